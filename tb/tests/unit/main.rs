//! The crate's unit tests, one integration-test binary. `cargo test`
//! builds the library once, for its dependents and for these tests, and not
//! a second time as a test harness of its own (`[lib] test = false` in
//! Cargo.toml). What they reach beyond the crate's API is `#[doc(hidden)]
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
