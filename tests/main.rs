//! The end-to-end tests of gpucosim, one module per subject, in one test
//! binary: the `e2e` test of the gpucosim-cli package (see
//! docs/architecture.md, "Crates"). `cargo test --release --workspace --
//! cli::` runs one module (`-p gpucosim-cli` alone resolves other dependency
//! features and recompiles). Their helpers are the gpucosim-tests package
//! (`src/` beside this file). The tests with the most RTL builds of their
//! own are `#[ignore]`d with their reason: `-- --include-ignored` (the full
//! suite, which CI runs) runs them too.

// Linked so that Cargo builds libgpucosim_dpi.so for this test build, for
// the SystemVerilog examples (`gpucosim_tests::sv_bench::dpi_lib`).
use gpucosim_dpi as _;

mod bench;
mod broken_rtl;
mod cache;
mod cli;
mod code_coverage;
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
