//! The crate's unit tests, one integration-test binary. `cargo test`
//! builds the library once, for its dependents and for these tests, and not
//! a second time as a test harness of its own (`[lib] test = false` in
//! Cargo.toml). What they reach beyond the crate's API is `#[doc(hidden)]
//! pub`.

mod capture_vcd;
mod fst;
mod session;
mod text;
