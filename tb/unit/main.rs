//! The crate's unit tests: the `tb_unit` test of the gpucosim-tests
//! package (`cargo test -p gpucosim-tests --test tb_unit`), built there
//! unoptimised against the library as everything else uses it, so that
//! `cargo test` compiles the library once (docs/architecture.md,
//! "Crates"). What they reach beyond the crate's API is `#[doc(hidden)]
//! pub`.

mod draw;
mod json;
mod registry;
mod run_checksum;
mod run_driver_view;
mod run_stream;
mod units;
mod units_input;
mod units_lds_driver;
mod units_lds_eval;
mod units_lds_stimulus;
mod units_ta_driver;
mod units_ta_eval;
mod units_ta_stimulus;
mod units_ta_txn;
mod units_waitcnt_driver;
mod units_waitcnt_eval;
mod units_waitcnt_stimulus;
mod units_waitcnt_txn;
