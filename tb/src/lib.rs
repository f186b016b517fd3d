//! gpucosim-tb: the model side of a testbench, everything that says what a
//! unit is to the co-simulator, the DPI-C library and the Python package,
//! none of which needs Verilator to use it.
//!
//! [`testbench`] defines what a unit's testbench is (transactions, driver,
//! knobs, stimulus); [`units`] holds the registry and the three units; [`run`]
//! draws a run's stimulus and drives a unit's model cycle by cycle exactly
//! as a lock-step run does; [`error`] is the error every layer reports.
#![warn(missing_docs)]

pub mod draw;
pub mod error;
pub mod json;
pub mod run;
pub mod testbench;
pub mod units;

pub use draw::STIMULUS_VERSION;
pub use run::{
    fresh_txns, parse_knobs, record_inputs, time_closed_loop, time_driver, ModelRun, Stimulus,
    RESET_CYCLES,
};
