//! Per-unit test benches (stimulus, drivers, `eval` front ends).

pub mod lds;
pub mod ta;
pub mod waitcnt;
