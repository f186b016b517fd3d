//! The crate's unit tests: the `gpucosim_unit` test of the gpucosim-tests
//! package (`cargo test -p gpucosim-tests --test gpucosim_unit`), built there
//! unoptimised against the library as everything else uses it, so that
//! `cargo test` compiles the library once (docs/architecture.md,
//! "Crates"). What they reach beyond the crate's API is `#[doc(hidden)]
//! pub`.

mod benchmark;
mod cache;
mod cli;
mod codecov;
mod decoded;
mod engine;
mod fst_vcd;
mod job_times;
mod kernel_launch_run;
mod mutate_equiv;
mod mutate_gen;
mod mutate_report;
mod mutate_waivers;
mod regress;
mod report;
mod repro;
mod rtlbuild;
