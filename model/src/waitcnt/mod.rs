//! s_waitcnt counter scoreboard (SPEC §3). Cycle contract: `docs/waitcnt.md`.
//!
//! - [`ports`]: the port table;
//! - [`params`]: what differs per profile (counter widths, immediate fields,
//!   opcodes, which classes count where);
//! - [`isa`]: the counters, the instruction classes, the `s_waitcnt`
//!   immediate ([`decode`], [`encode`], LLVM-style text) and the wait
//!   instruction words ([`decode_wait_word`]: `s_waitcnt`, gfx11
//!   `s_waitcnt_vscnt`);
//! - [`tlm`]: what one instruction of each class counts on;
//! - [`cycle`]: [`WaitcntModel`], the cycle-level scoreboard of 16 waves;
//! - [`cover`]: the functional-coverage bins;
//! - [`decoded`]: the decoded waveform signals (each wave's counters and
//!   pending wait, the issue, wait and returns offered);
//! - [`svh`]: the RTL package's generated encodings (`rtl/waitcnt/waitcnt_enc.svh`).

pub mod cover;
pub mod cycle;
pub mod decoded;
pub mod isa;
pub mod params;
pub mod ports;
pub mod svh;
pub mod tlm;

pub use cycle::{ErrCode, WaitcntModel, NUM_ERRORS, RET_CHANNELS, WAVES, WAVE_W};
pub use isa::{
    decode, decode_vscnt, decode_wait_word, decode_word, encode, Class, Counter, Thresholds, Wait,
    CLASS_W, CNT_W, COUNTERS, NUM_COUNTERS,
};
pub use params::WaitcntParams;
pub use tlm::{Incr, Order};
