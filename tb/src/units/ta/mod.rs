//! Testbench of the `ta` unit: seeded random buffer instructions biased to
//! the corners of SPEC §1, directed examples from the seeds, a closed-loop
//! driver honouring `req_valid_i`/`req_ready_o` with backpressure on
//! `line_ready_i`, and the `eval` calculator. Cycle contract: `docs/ta.md`.
//!
//! - [`txn`]: the transaction, [`TaTxn`], and its simplification;
//! - [`stimulus`]: the knobs, [`TaKnobs`], random and directed stimulus;
//! - [`driver`]: the driver, [`TaDriver`];
//! - [`eval`]: the `gpucosim eval` front end.

pub mod driver;
pub mod eval;
pub mod stimulus;
mod stimulus_v1;
pub mod txn;

pub use driver::TaDriver;
pub use stimulus::TaKnobs;
pub use txn::TaTxn;

use crate::testbench::{Evaluator, Index, Knob, Testbench, Variant};
use gpucosim_model::decode::Decoder;
use gpucosim_model::ports::PortTable;
use gpucosim_model::ta::ports::ta_ports as p;
use gpucosim_model::ta::TaModel;
use gpucosim_model::{Profile, Unit};
use rand_chacha::ChaCha8Rng;

/// The `ta` testbench.
pub struct TaTestbench;

impl Testbench for TaTestbench {
    type Txn = TaTxn;
    type Knobs = TaKnobs;
    type Driver = TaDriver;
    const UNIT: &'static str = p::TABLE.unit;
    const KNOBS: &'static [Knob] = stimulus::KNOBS;
    const DRIVER_READS: &'static [&'static str] = &["req_ready_o"];

    fn table() -> &'static PortTable {
        &p::TABLE
    }
    fn model(profile: Profile) -> Box<dyn Unit> {
        Box::new(TaModel::new(profile))
    }
    fn generate(version: u32, profile: Profile, knobs: &TaKnobs, rng: &mut ChaCha8Rng) -> TaTxn {
        match version {
            1 => stimulus_v1::generate(profile, knobs, rng),
            v => stimulus::generate_version(v, profile, knobs, rng),
        }
    }
    fn directed(profile: Profile) -> Vec<TaTxn> {
        stimulus::directed(profile)
    }
    fn describe(profile: Profile, txn: &TaTxn) -> Vec<String> {
        vec![format!(
            "V#: {}",
            gpucosim_model::ta::decoded::vsharp_text(profile, txn.instr.vsharp)
        )]
    }
    fn knob_rules(knobs: &TaKnobs) -> Result<(), String> {
        stimulus::rules(knobs)
    }
    fn driver(_profile: Profile, _knobs: &TaKnobs) -> TaDriver {
        TaDriver::new()
    }
    /// `stress`: the error and corner paths — range edges, wrapping
    /// addresses, misaligned lanes (MEMVIOL), invalid formats, mismatched
    /// and all-zero V#s, exec 0, odd encodings — under heavy backpressure,
    /// back to back.
    fn variants() -> &'static [Variant] {
        &[Variant {
            name: "stress",
            knobs: &[
                ("edge_pct", "70"),
                ("wrap_pct", "25"),
                ("misalign_pct", "50"),
                ("invalid_format_pct", "25"),
                ("mismatch_pct", "10"),
                ("all_zero_pct", "10"),
                ("exec_zero_pct", "10"),
                ("odd_encoding_pct", "15"),
                ("stall_pct", "70"),
                ("gap_max", "0"),
            ],
        }]
    }
    fn simplify(txn: &TaTxn) -> Vec<TaTxn> {
        txn::simplify(txn)
    }
    crate::produce_batch_impl!();
    fn evaluator(profile: Profile) -> Evaluator {
        eval::evaluator(profile)
    }
    fn decoder(profile: Profile) -> Option<Box<dyn Decoder>> {
        Some(Box::new(gpucosim_model::ta::decoded::TaDecoder::new(profile)))
    }
    fn index(port: &str) -> Option<Index> {
        match port {
            "exec_i" | "vindex_i" | "voffset_i" | "lane_memviol_o" => Some(Index::Lane),
            "lane_addr_o" | "lane_inrange_o" | "lane_access_o" => Some(Index::LaneDword),
            "line_mask_o" => Some(Index::Byte),
            _ => None,
        }
    }
}
