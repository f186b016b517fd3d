//! Testbench of the `waitcnt` unit (the s_waitcnt scoreboard,
//! `docs/waitcnt.md`): closed-loop stimulus from a 16-wave sequencer and a
//! memory system, the `eval` calculator and the `decode-waitcnt` decoder.
//!
//! - [`txn`]: the transaction, [`WaitcntTxn`], and its simplification;
//! - [`stimulus`]: the knobs, [`WaitcntKnobs`], random and directed stimulus;
//! - [`driver`]: the driver, [`WaitcntDriver`];
//! - [`eval`]: the `gpucosim eval` front end and `decode-waitcnt`.

pub mod driver;
pub mod eval;
pub mod stimulus;
pub mod txn;

pub use driver::WaitcntDriver;
pub use stimulus::WaitcntKnobs;
pub use txn::WaitcntTxn;

use crate::testbench::{Evaluator, Index, Knob, Testbench, Variant};
use gpucosim_model::decode::Decoder;
use gpucosim_model::ports::PortTable;
use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::WaitcntModel;
use gpucosim_model::{Profile, Unit};
use rand_chacha::ChaCha8Rng;

/// The `waitcnt` testbench.
pub struct WaitcntTestbench;

impl Testbench for WaitcntTestbench {
    type Txn = WaitcntTxn;
    type Knobs = WaitcntKnobs;
    type Driver = WaitcntDriver;
    const UNIT: &'static str = P::TABLE.unit;
    const KNOBS: &'static [Knob] = stimulus::KNOBS;
    const DRIVER_READS: &'static [&'static str] = &["issue_ack_o", "stall_o", "release_o"];

    fn table() -> &'static PortTable {
        &P::TABLE
    }
    fn model(profile: Profile) -> Box<dyn Unit> {
        Box::new(WaitcntModel::new(profile))
    }
    fn generate(
        _version: u32,
        profile: Profile,
        knobs: &WaitcntKnobs,
        rng: &mut ChaCha8Rng,
    ) -> WaitcntTxn {
        // Versions 1 and 2 draw the same waitcnt stream.
        stimulus::generate(profile, knobs, rng)
    }
    fn directed(profile: Profile) -> Vec<WaitcntTxn> {
        stimulus::directed(profile)
    }
    /// With injected errors (`err_pct` > 0) the reset cycles carry inputs
    /// too, which the unit must ignore.
    fn describe(profile: Profile, txn: &WaitcntTxn) -> Vec<String> {
        match txn {
            WaitcntTxn::Wait { wave, imm, vscnt } => {
                let text = if *vscnt {
                    // The immediate of `s_waitcnt_vscnt null, imm` (SOPK).
                    eval::decode_waitcnt_text(profile, &format!("{}", 0xBC7C_0000u32 | u32::from(*imm)))
                } else {
                    eval::decode_waitcnt_text(profile, &imm.to_string())
                };
                match text {
                    Ok(t) => vec![format!("wave {wave}: {t}")],
                    Err(e) => vec![format!("wave {wave}: {e}")],
                }
            }
            _ => Vec::new(),
        }
    }
    fn knob_rules(knobs: &WaitcntKnobs) -> Result<(), String> {
        stimulus::rules(knobs)
    }
    fn driver(profile: Profile, knobs: &WaitcntKnobs) -> WaitcntDriver {
        WaitcntDriver::new(profile).reset_inputs(knobs.err_pct > 0)
    }
    /// `errors`: injected protocol errors (every kind, and several on one
    /// wave or on several waves in one cycle) on few waves with short
    /// latencies, so that injected returns meet counters that are low but
    /// not 0 (underflow of a non-zero counter) and errors meet pending
    /// waits (`busy`).
    fn variants() -> &'static [Variant] {
        &[Variant {
            name: "errors",
            knobs: &[("err_pct", "12"), ("waves", "6"), ("lat_max", "12")],
        }]
    }
    fn simplify(txn: &WaitcntTxn) -> Vec<WaitcntTxn> {
        txn::simplify(txn)
    }
    crate::produce_batch_impl!();
    fn evaluator(profile: Profile) -> Evaluator {
        eval::evaluator(profile)
    }
    fn decoder(profile: Profile) -> Option<Box<dyn Decoder>> {
        Some(Box::new(gpucosim_model::waitcnt::decoded::WaitcntDecoder::new(profile)))
    }
    fn index(port: &str) -> Option<Index> {
        match port {
            "ret_valid_i" | "ret_wave_i" | "ret_class_i" => Some(Index::Channel),
            "vm_cnt_o" | "lgkm_cnt_o" | "exp_cnt_o" | "vs_cnt_o" | "stall_o" | "release_o"
            | "err_o" => Some(Index::Wave),
            _ => None,
        }
    }
}
