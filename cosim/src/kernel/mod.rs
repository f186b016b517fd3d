//! Real kernels: the `gpucosim-kernel` crate (reading, the hazard proof,
//! launch emulation, waitcnt stimulus; its modules re-exported here), and
//! [`launch_run`], which runs a kernel's traffic in lock-step with the RTL,
//! for `gpucosim kernel run` and `gpucosim regress` alike.

pub use gpucosim_kernel::*;

pub mod launch_run;
