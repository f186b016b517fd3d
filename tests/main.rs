//! The end-to-end tests of gpucosim, one module per subject, in one test
//! binary: `cargo test -p gpucosim-tests` runs them all in one libtest
//! run; `cargo test -p gpucosim-tests -- cli::` runs one module.

mod bench;
mod broken_rtl;
mod cache;
mod cli;
mod cosim_units;
mod coverage;
mod dpi_sv;
mod engine;
mod faults;
mod kernel_emu;
mod kernels;
mod mutate;
mod python;
mod regress;
mod slurm;
mod waveforms;
mod workflow;
