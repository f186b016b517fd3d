//! `gpucosim job` (hidden): a regression's worker process
//! (`regress::Worker`), running the jobs it is given one after another.

use gpucosim::error::{Error, Result};
use gpucosim::{regress, with_testbench};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// `gpucosim job`: job specs as JSON, one per line on stdin, until stdin
/// ends or a stop signal came (the job it stopped is answered first). Each
/// job is announced on stderr (`gpucosim job: NAME`) as it starts and
/// answered on stdout (`result: JSON`) as it ends.
pub(crate) fn run() -> Result<ExitCode> {
    gpucosim::catch_stop_signals_quietly();
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line.map_err(|e| Error::Input(format!("cannot read stdin: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let spec: regress::JobSpec = serde_json::from_str(&line)
            .map_err(|e| Error::Input(format!("job spec is not valid: {e}")))?;
        eprintln!("{}{}", regress::WORKER_JOB_START, spec.job.name());
        let r = with_testbench!(spec.job.unit.as_str(), B => Ok(regress::run_job_on::<B>(
            &spec.job, &spec.cfg, &spec.root, &spec.lib, &spec.hash, spec.pipeline,
        )))?;
        let answer = format!(
            "{}{}\n",
            regress::WORKER_RESULT,
            serde_json::to_string(&r).expect("results serialise")
        );
        if stdout
            .write_all(answer.as_bytes())
            .and_then(|()| stdout.flush())
            .is_err()
        {
            // The regression is gone: nobody to answer.
            break;
        }
        if gpucosim::signalled().is_some() {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}
