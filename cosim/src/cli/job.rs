//! `gpucosim job` (hidden): jobs of a regression in this process. One job
//! by default, its spec as JSON on stdin and its result as one JSON line on
//! stdout; with `--serve`, one job after another (a regression's worker
//! process, `regress::Worker`).

use gpucosim::error::{Error, Result};
use gpucosim::{regress, with_testbench};
use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

/// `gpucosim job` options.
#[derive(clap::Args)]
pub(crate) struct JobArgs {
    /// Read job specs one per line until stdin ends, answering each with a
    /// line `result: JSON` on stdout as it ends, after a line `gpucosim
    /// job: NAME` on stderr as it starts.
    #[arg(long)]
    serve: bool,
}

/// `gpucosim job`: jobs of a regression in this process.
pub(crate) fn run(a: JobArgs) -> Result<ExitCode> {
    gpucosim::catch_stop_signals_quietly();
    if a.serve {
        return serve();
    }
    let spec: regress::JobSpec = serde_json::from_str(&read_stdin()?)
        .map_err(|e| Error::Input(format!("job spec is not valid: {e}")))?;
    let r = one(&spec)?;
    println!("{}", serde_json::to_string(&r).expect("results serialise"));
    Ok(ExitCode::SUCCESS)
}

fn one(spec: &regress::JobSpec) -> Result<regress::JobResult> {
    with_testbench!(spec.job.unit.as_str(), B => Ok(regress::run_job_on::<B>(
        &spec.job, &spec.cfg, &spec.root, &spec.lib, &spec.hash,
    )))
}

/// Jobs one after another until stdin ends or a stop signal came (the job
/// it stopped is answered first).
fn serve() -> Result<ExitCode> {
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
        let r = one(&spec)?;
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

fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Error::Input(format!("cannot read stdin: {e}")))?;
    Ok(s)
}
