//! `gpucosim merge`: the results files of a regression's shards combined
//! into one report.

use super::args::{ReportArgs, RequireCoverage};
use super::regress::{not_run_note, print_coverage_failures};
use gpucosim::engine::EXIT_INPUT;
use gpucosim::error::{Error, Result};
use gpucosim::regress::ResultsFile;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct MergeArgs {
    /// Results files written by `regress --results`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    reports: ReportArgs,
    /// Accept a partial merge (a missing shard, an interrupted input):
    /// report it but exit by the jobs' results alone.
    #[arg(long)]
    allow_partial: bool,
    #[command(flatten)]
    require: RequireCoverage,
}

pub(crate) fn run(a: MergeArgs) -> Result<ExitCode> {
    let (allow_partial, require_coverage) = (a.allow_partial, a.require.require_coverage);
    a.reports.probe()?;
    for f in &a.files {
        for (out, what) in a.reports.files() {
            gpucosim::refuse_overwrite(out, what, f)?;
        }
    }
    let waivers = a.require.waivers()?;
    let mut parts = Vec::new();
    for f in a.files {
        let r = ResultsFile::load(&f)?;
        r.check_bins(gpucosim::regress::unit_bins)
            .map_err(|m| Error::Input(format!("{}: {m}", f.display())))?;
        parts.push((f, r));
    }
    let (merged, problems) = ResultsFile::merge(parts)?;
    a.reports.check_code_coverage(merged.plan.code_coverage)?;
    let code = a.require.check(&merged, &waivers)?;
    let lost = a.reports.write(&merged, require_coverage, code.as_ref());
    print!("{}", merged.summary());
    if let Some(c) = &code {
        print!("{}", c.report.table());
    }
    let (ran, stopped, not_run) = merged.counts();
    println!(
        "{ran} jobs from {} shard(s), {} failed{}",
        merged.shards.len().max(1),
        merged.failures() - stopped,
        not_run_note(stopped, not_run)
    );
    print_coverage_failures(&merged, require_coverage, code.as_ref());
    for p in &problems {
        if allow_partial {
            tracing::warn!("partial merge: {p}");
        } else {
            eprintln!("error: incomplete merge: {p} (--allow-partial accepts a partial merge)");
        }
    }
    Ok(ExitCode::from(
        if lost || (!problems.is_empty() && !allow_partial) {
            EXIT_INPUT
        } else {
            merged.exit_code_checked(require_coverage, code.as_ref())
        },
    ))
}
