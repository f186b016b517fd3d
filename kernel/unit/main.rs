//! The crate's unit tests: the `kernel_unit` test of the gpucosim-tests
//! package (`cargo test -p gpucosim-tests --test kernel_unit`), built there
//! unoptimised against the library as everything else uses it, so that
//! `cargo test` compiles the library once (docs/architecture.md,
//! "Crates"). What they reach beyond the crate's API is `#[doc(hidden)]
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
