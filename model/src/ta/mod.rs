//! Texture-cache address unit for MUBUF/MTBUF buffer instructions (SPEC §1).
//! Cycle contract: `docs/ta.md`.
//!
//! - [`ports`]: the port table;
//! - [`params`]: what differs per profile (V# encoding, range rule, line size);
//! - [`isa`]: the instruction, the V# (decode and encode) and the data-format
//!   tables;
//! - [`tlm`]: the transaction level (per-lane addresses, range checks,
//!   alignment, pieces and the coalescer), pure functions, also behind `eval`;
//! - [`cycle`]: [`TaModel`], the cycle model run against the RTL;
//! - [`cover`]: the functional-coverage bins;
//! - [`decoded`]: the decoded waveform signals (the instruction in flight,
//!   its V# fields);
//! - [`svh`]: the RTL package's generated encodings (`rtl/ta/ta_enc.svh`).

pub mod cover;
pub mod cycle;
pub mod decoded;
pub mod isa;
pub mod params;
pub mod ports;
pub mod svh;
pub mod tlm;

pub use self::cycle::{read_instr, write_instr, write_lanes, TaModel};
pub use self::isa::{Instr, Kind, Op, Vsharp, VsharpFields};
pub use self::params::{FormatEncoding, RangeRule, SwizzleEncoding, TaParams};
pub use self::tlm::{Access, Class, LaneResults, LineReq};
