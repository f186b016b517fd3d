//! s_waitcnt counter scoreboard (SPEC §3).

pub mod ports;
