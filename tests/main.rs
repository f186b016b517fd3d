//! The end-to-end tests of gpucosim, one module per subject, in one test
//! binary, the `e2e` test of the gpucosim package: `cargo test -p gpucosim
//! --test e2e` runs them all in one libtest run; `cargo test -p gpucosim
//! --test e2e -- cli::` runs one module. Their helpers are the
//! gpucosim-tests package (`src/` beside this file).

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

/// The `gpucosim` binary that Cargo built for this test build (with the
/// same features as the rest of it, so running the tests rebuilds nothing).
pub fn gpucosim_bin() -> std::path::PathBuf {
    env!("CARGO_BIN_EXE_gpucosim").into()
}
