//! gpucosim: lock-step co-simulation of the Rust reference models in
//! `gpucosim-model` against SystemVerilog RTL compiled by Verilator.
#![warn(missing_docs)]

pub mod bench;
pub mod units;
