//! Bit-accurate, cycle-level reference models of three AMD GPU units, for the
//! `gfx9` (Vega) and `gfx11` (RDNA3) profiles, following `SPEC.md`:
//!
//! - [`ta`]: the texture-cache address unit for MUBUF/MTBUF buffer instructions;
//! - [`lds`]: the LDS bank arbiter and RAM;
//! - [`waitcnt`]: the `s_waitcnt` counter scoreboard.
//!
//! Each unit has a transaction-level API (what the hardware does with one
//! instruction) and a cycle-level model implementing [`unit::Unit`] over the
//! unit's port table ([`ports`](mod@ports)), which the lock-step engine runs against the
//! RTL. No Verilator dependency.
#![warn(missing_docs)]

pub mod cover;
pub mod cpu;
pub mod decode;
pub mod ports;
pub mod profile;
pub mod serde_fmt;
pub mod svh;
pub mod unit;

pub use profile::Profile;
pub use unit::{Coverage, Unit};

pub mod lds;
pub mod ta;
pub mod waitcnt;
