//! gpucosim-bench holds the Criterion benchmarks of the workspace, in a
//! package of their own so that `cargo test` does not build Criterion:
//!
//! - `cargo bench -p gpucosim-bench --bench models`: each unit's model
//!   alone and closed-loop with its driver, per profile;
//! - `cargo bench -p gpucosim-bench --bench vcd` and `--bench fst`: writing
//!   a capture window as VCD and as FST.
//!
//! The library itself is empty.
