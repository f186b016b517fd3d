//! The crate's unit tests, one integration-test binary. `cargo test`
//! builds the library once, for its dependents and for these tests, and not
//! a second time as a test harness of its own (`[lib] test = false` in
//! Cargo.toml). What they reach beyond the crate's API is `#[doc(hidden)]
//! pub`.

mod asm;
mod check;
mod emu;
mod emu_decode;
mod emu_float;
mod emu_half;
mod emu_launch;
mod emu_memory;
mod emu_ops;
mod emu_wide;
mod root;
mod table;
mod waitcnt_stim;
