//! LDS bank arbiter and RAM (SPEC §2).

pub mod ports;
