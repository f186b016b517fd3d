//! LDS bank arbiter and RAM (SPEC §2). The cycle contract is in `docs/lds.md`.
//!
//! - [`ports`]: the port table;
//! - [`params`]: what differs per profile (RAM size, banks, modes, cmpst
//!   operand order);
//! - [`isa`]: the `op_i` codes, their mnemonics and what each one does;
//! - [`tlm`]: [`tlm::Lds`], the unit as a state machine (accept one
//!   instruction, then arbitrate and commit per BUSY cycle), also what
//!   `eval` runs;
//! - [`cycle`]: [`LdsModel`], the cycle model run against the RTL;
//! - [`cover`]: the functional-coverage bins;
//! - [`decoded`]: the decoded waveform signals (the instruction in flight,
//!   each lane's bank and dword);
//! - [`svh`]: the RTL package's generated encodings (`rtl/lds/lds_enc.svh`).

pub mod cover;
pub mod cycle;
pub mod decoded;
pub mod isa;
pub mod params;
pub mod ports;
pub mod svh;
pub mod tlm;

pub use self::cycle::{read_request, LdsModel};
pub use self::params::LdsParams;
