//! The crate's unit tests: the `dpi_unit` test of the gpucosim-tests
//! package (`cargo test -p gpucosim-tests --test dpi_unit`), built there
//! unoptimised against the library as everything else uses it, so that
//! `cargo test` compiles the library once (docs/architecture.md,
//! "Crates"). What they reach beyond the crate's API is `#[doc(hidden)]
//! pub`.

mod capi;
mod root;
