//! The crate's unit tests: the `model_unit` test of the gpucosim-tests
//! package (`cargo test -p gpucosim-tests --test model_unit`), built there
//! unoptimised against the library as everything else uses it, so that
//! `cargo test` compiles the library once (docs/architecture.md,
//! "Crates"). What they reach beyond the crate's API is `#[doc(hidden)]
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
