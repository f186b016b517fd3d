//! s_waitcnt counter scoreboard (SPEC §3). Cycle contract: `docs/waitcnt.md`.
//!
//! - [`encoding`]: the `s_waitcnt` immediate of each profile
//!   ([`decode`], [`encode`], LLVM-style text);
//! - [`Class`]: what each instruction class counts on;
//! - [`WaitcntModel`]: the cycle-level scoreboard of 16 waves.

pub mod class;
pub mod encoding;
pub mod model;
pub mod ports;

pub use class::{Class, Counter, Incr, COUNTERS};
pub use encoding::{decode, decode_word, encode, Thresholds};
pub use model::{ErrCode, WaitcntModel, WAVES};
