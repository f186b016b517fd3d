//! `gpucosim job` (hidden): one job of a regression in this process, its
//! spec as JSON on stdin, its result as one JSON line on stdout.

use gpucosim::error::{Error, Result};
use gpucosim::{regress, with_testbench};
use std::io::Read;
use std::process::ExitCode;

/// `gpucosim job`: one job of a regression in this process.
pub(crate) fn run() -> Result<ExitCode> {
    let spec: regress::JobSpec = serde_json::from_str(&read_stdin()?)
        .map_err(|e| Error::Input(format!("job spec is not valid: {e}")))?;
    gpucosim::catch_stop_signals_quietly();
    let r = with_testbench!(spec.job.unit.as_str(), B => Ok(regress::run_job_on::<B>(
        &spec.job, &spec.cfg, &spec.root, &spec.lib, &spec.hash,
    )))?;
    println!("{}", serde_json::to_string(&r).expect("results serialise"));
    Ok(ExitCode::SUCCESS)
}

fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Error::Input(format!("cannot read stdin: {e}")))?;
    Ok(s)
}
