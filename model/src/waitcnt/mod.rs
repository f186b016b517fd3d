//! s_waitcnt counter scoreboard (SPEC §3). Cycle contract: `docs/waitcnt.md`.
//!
//! - [`encoding`]: the `s_waitcnt` immediate of each profile
//!   ([`decode`], [`encode`], LLVM-style text) and the wait instruction
//!   words ([`decode_wait_word`]: `s_waitcnt`, gfx11 `s_waitcnt_vscnt`);
//! - [`Class`]: what each instruction class counts on;
//! - [`WaitcntModel`]: the cycle-level scoreboard of 16 waves.

pub mod class;
pub mod encoding;
pub mod model;
pub mod params;
pub mod ports;

pub use class::{Class, Counter, Incr, COUNTERS};
pub use encoding::{decode, decode_vscnt, decode_wait_word, decode_word, encode, Thresholds, Wait};
pub use model::{ErrCode, WaitcntModel, WAVES};
pub use params::WaitcntParams;
