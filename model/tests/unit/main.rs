//! The crate's unit tests, one integration-test binary. `cargo test`
//! builds the library once, for its dependents and for these tests, and not
//! a second time as a test harness of its own (`[lib] test = false` in
//! Cargo.toml). What they reach beyond the crate's API is `#[doc(hidden)]
//! pub`.

mod decode;
mod lds_decoded;
mod lds_isa;
mod lds_svh;
mod ports;
mod profile;
mod svh;
mod ta_cover;
mod ta_decoded;
mod ta_isa;
mod ta_svh;
mod ta_tlm;
mod waitcnt_cycle;
mod waitcnt_decoded;
mod waitcnt_isa;
mod waitcnt_svh;
mod waitcnt_tlm;
