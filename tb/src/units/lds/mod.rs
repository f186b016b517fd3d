//! Testbench of the `lds` unit: seeded stimulus mixing stores, loads and
//! atomics over a small shared address window (so loads see earlier stores),
//! a driver for the `req_valid_i` / `req_ready_o` handshake, and `eval`.
//! The cycle contract is `docs/lds.md`.
//!
//! - [`txn`]: the transaction, [`LdsTxn`], and its simplification;
//! - [`stimulus`]: the knobs, [`LdsKnobs`], random and directed stimulus;
//! - [`driver`]: the driver, [`LdsDriver`];
//! - [`eval`]: the `gpucosim eval` front end.

pub mod driver;
pub mod eval;
pub mod stimulus;
mod stimulus_v1;
pub mod txn;

pub use driver::LdsDriver;
pub use stimulus::LdsKnobs;
pub use txn::LdsTxn;

use crate::testbench::{Evaluator, Index, Knob, Testbench, Variant};
use gpucosim_model::lds::ports::lds_ports as P;
use gpucosim_model::lds::LdsModel;
use gpucosim_model::decode::Decoder;
use gpucosim_model::ports::PortTable;
use gpucosim_model::{Profile, Unit};
use rand_chacha::ChaCha8Rng;

/// The `lds` testbench.
pub struct LdsTestbench;

impl Testbench for LdsTestbench {
    type Txn = LdsTxn;
    type Knobs = LdsKnobs;
    type Driver = LdsDriver;
    const UNIT: &'static str = P::TABLE.unit;
    const KNOBS: &'static [Knob] = stimulus::KNOBS;
    const DRIVER_READS: &'static [&'static str] = &["req_ready_o"];

    fn table() -> &'static PortTable {
        &P::TABLE
    }
    fn model(profile: Profile) -> Box<dyn Unit> {
        Box::new(LdsModel::new(profile))
    }
    fn generate(version: u32, profile: Profile, knobs: &LdsKnobs, rng: &mut ChaCha8Rng) -> LdsTxn {
        match version {
            1 => stimulus_v1::generate(profile, knobs, rng),
            v => stimulus::generate_version(v, profile, knobs, rng),
        }
    }
    fn directed(profile: Profile) -> Vec<LdsTxn> {
        stimulus::directed(profile)
    }
    fn describe(profile: Profile, txn: &LdsTxn) -> Vec<String> {
        let r = &txn.req;
        let op = gpucosim_model::lds::isa::name_of(r.op, profile)
            .unwrap_or_else(|| format!("undefined op {}", r.op));
        let lanes = if r.wave64 { 64 } else { 32 };
        let active = (r.exec & if r.wave64 { u64::MAX } else { 0xFFFF_FFFF }).count_ones();
        let mode = if profile.wave32() {
            if r.wgp {
                ", WGP mode"
            } else {
                ", CU mode"
            }
        } else {
            ""
        };
        vec![format!(
            "{op}: {active} of {lanes} lanes active, {} alignment{mode}, lds_base {:#x}, lds_size {:#x}",
            if r.unaligned { "UNALIGNED" } else { "DWORD" },
            r.lds_base,
            r.lds_size
        )]
    }
    fn knob_rules(knobs: &LdsKnobs) -> Result<(), String> {
        stimulus::rules(knobs)
    }
    fn driver(_profile: Profile, _knobs: &LdsKnobs) -> LdsDriver {
        LdsDriver::new()
    }
    /// `stress`: the error and corner paths — misaligned atomics (MEMVIOL),
    /// misaligned DWORD-mode and UNALIGNED accesses, allocations ending
    /// inside the window (out of range), addresses wrapping at 2^32,
    /// undefined op codes — back to back.
    fn variants() -> &'static [Variant] {
        &[Variant {
            name: "stress",
            knobs: &[
                ("misalign", "40"),
                ("misalign_dword", "40"),
                ("unaligned", "30"),
                ("range_edge", "40"),
                ("wrap", "15"),
                ("invalid", "5"),
                ("max_gap", "1"),
            ],
        }]
    }
    fn simplify(txn: &LdsTxn) -> Vec<LdsTxn> {
        txn::simplify(txn)
    }
    crate::produce_batch_impl!();
    fn evaluator(profile: Profile) -> Evaluator {
        eval::evaluator(profile)
    }
    fn decoder(profile: Profile) -> Option<Box<dyn Decoder>> {
        Some(Box::new(gpucosim_model::lds::decoded::LdsDecoder::new(profile)))
    }
    fn index(port: &str) -> Option<Index> {
        match port {
            "exec_i" | "addr_i" | "data0_i" | "data1_i" | "grant_lanes_o" | "rdata_o" | "oor_o"
            | "memviol_o" => Some(Index::Lane),
            "grant_banks_o" => Some(Index::Bank),
            _ => None,
        }
    }
}
