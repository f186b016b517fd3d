//! `gpucosim regress`: many seeds across units and profiles in parallel,
//! with a summary, reports, failure bundles and optional shrinking; and the
//! summary lines that `merge` and `replay` print as it does.

use super::args::{
    parse_kv, whole, BundlesArg, LimitArgs, NoStressArg, ReportArgs, RequireCoverage, RtlArg,
    SeedsArgs, Selection, UnitKnobs, WavesFormatArg, WindowArg,
};
use gpucosim::engine::{self, EXIT_INPUT};
use gpucosim::error::{Error, Result};
use gpucosim::job_times::JobTimes;
use gpucosim::{regress, with_testbench};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct RegressArgs {
    #[command(flatten)]
    selection: Selection,
    #[command(flatten)]
    seeds: SeedsArgs,
    /// Parallel jobs (default: all cores); also the CPUs the regression
    /// keeps busy: when the plan has fewer jobs than that, the first jobs
    /// run pipelined on the spare CPUs (driver and model on a second
    /// thread; the same outcome).
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long)]
    jobs: Option<usize>,
    /// Run every job on one CPU, driver, model and RTL on one thread, even
    /// when the plan leaves workers without a job.
    #[arg(long)]
    no_pipeline: bool,
    /// The job times of earlier regressions, by which the workers take the
    /// longest jobs first from the start; this regression's replace those
    /// of the groups it runs (default: `job-times.json` in gpucosim's cache
    /// directory; docs/regress.md).
    #[arg(long, value_name = "FILE")]
    job_times: Option<PathBuf>,
    /// Run only shard K of N (1-based), e.g. `--shard 2/4`.
    #[arg(long)]
    shard: Option<regress::Shard>,
    #[command(flatten)]
    reports: ReportArgs,
    #[command(flatten)]
    bundles: BundlesArg,
    /// Shrink each failure into a second, minimal bundle.
    #[arg(long)]
    shrink: bool,
    #[command(flatten)]
    rtl: RtlArg,
    #[command(flatten)]
    knobs: UnitKnobs,
    /// Also replay the kernels of this file (assembly or a code object,
    /// naming its target) through the waitcnt unit, each seed a job
    /// `waitcnt.PROFILE.KERNEL.SEED` (repeatable; docs/kernels.md).
    #[arg(long = "kernels", value_name = "FILE")]
    kernels: Vec<PathBuf>,
    /// Also emulate this launch of a kernel of FILE (`clang -S` output)
    /// and run its LDS and buffer traffic through the LDS and TA units,
    /// each seed two jobs `lds.PROFILE.KERNEL.SEED` and
    /// `ta.PROFILE.KERNEL.SEED`, the seed drawing the launch's fills,
    /// samples, gaps and backpressure (repeatable; docs/kernels.md).
    #[arg(long = "launch", value_name = "FILE=LAUNCH", value_parser = parse_kv)]
    launches: Vec<(String, String)>,
    #[command(flatten)]
    window: WindowArg,
    #[command(flatten)]
    waves_format: WavesFormatArg,
    #[command(flatten)]
    limits: LimitArgs,
    /// Print the jobs (of the shard) one per line, without running them.
    #[arg(long)]
    pub(crate) list: bool,
    #[command(flatten)]
    no_stress: NoStressArg,
    #[command(flatten)]
    require: RequireCoverage,
    /// Run the RTL built with Verilator's code coverage (line, branch,
    /// expression, toggle; a separately cached build) and report it merged
    /// per unit and profile (docs/regress.md "Code coverage").
    #[arg(long)]
    code_coverage: bool,
}

/// `gpucosim regress`: the jobs of the plan (or of its shard) run, or
/// listed with `--list`; `quiet` keeps the progress off stderr.
pub(crate) fn run(a: RegressArgs, quiet: bool) -> Result<ExitCode> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let named_units = a.selection.units.clone();
    let (units, profiles) = a.selection.or_all()?;
    let threads = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if threads == 0 {
        return Err(Error::Input("--jobs must be at least 1".into()));
    }
    // The CPUs the jobs may keep busy: one a worker, at most the machine's.
    let cpus = if a.no_pipeline {
        0
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(threads)
    };
    if a.seeds.cycles == 0 {
        return Err(Error::Input("--cycles must be at least 1".into()));
    }
    for u in &units {
        let (): () = with_testbench!(u.as_str(), B => Ok(()))?;
    }
    // The kernels of the profiles run; a file left out says so, and files
    // that leave no kernel job at all are an error.
    let mut left_out = Vec::new();
    let mut of_profiles = |what: String, all: Vec<regress::KernelRef>| {
        let (kept, other): (Vec<_>, Vec<_>) =
            all.into_iter().partition(|k| profiles.contains(&k.profile));
        if let Some(k) = other.first().filter(|_| kept.is_empty()) {
            let line = format!(
                "{what}: its kernels are for {}, a profile this run leaves out",
                k.profile
            );
            tracing::warn!("{line}");
            left_out.push(line);
        }
        kept
    };
    let mut kernels = Vec::new();
    for f in &a.kernels {
        let all = regress::KernelRef::all_in(f)?;
        kernels.extend(of_profiles(format!("--kernels {}", f.display()), all));
    }
    for (f, l) in &a.launches {
        let all = regress::KernelRef::launches(std::path::Path::new(f), std::path::Path::new(l))?;
        kernels.extend(of_profiles(format!("--launch {f}={l}"), all));
    }
    if kernels.is_empty() {
        if let Some(line) = left_out.first() {
            return Err(Error::Input(format!(
                "{line} (--profile): no kernel job is left"
            )));
        }
    }
    let plan = regress::Plan {
        units: units.clone(),
        profiles: profiles.clone(),
        seeds: a.seeds.seeds,
        cycles: a.seeds.cycles,
        knobs: a.knobs.knobs.clone(),
        kernels,
        stress: !a.no_stress.no_stress,
        code_coverage: a.code_coverage,
        stimulus: gpucosim::draw::STIMULUS_VERSION,
    };
    // Kernel jobs run on their units (waitcnt, or lds and ta for a
    // launch), on their profiles.
    let mut spec_units = units.clone();
    for k in &plan.kernels {
        if !spec_units.contains(&k.unit) {
            spec_units.push(k.unit.clone());
        }
    }
    // The knobs are checked before the plan is listed or run: each names a
    // unit run, and each unit takes its own (with its stress variants').
    a.knobs.check(&spec_units)?;
    for u in &spec_units {
        let knobs = a.knobs.for_unit(u);
        with_testbench!(u.as_str(), B => {
            gpucosim::engine::parse_knobs::<B>(&knobs)?;
            if plan.stress {
                for v in <B as gpucosim::testbench::Testbench>::variants() {
                    gpucosim::engine::parse_knobs::<B>(&regress::variant_knobs(v, &knobs))?;
                }
            }
            Ok(())
        })?;
    }
    let list = regress::JobList::new(&plan, a.shard)?;
    if a.list {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for j in list.iter() {
            writeln!(out, "{}", j.name()).map_err(|e| Error::Env(format!("stdout: {e}")))?;
        }
        out.flush()
            .map_err(|e| Error::Env(format!("stdout: {e}")))?;
        return Ok(ExitCode::SUCCESS);
    }
    // Every output location is checked before anything is built or run.
    a.reports.probe()?;
    if let Some(t) = &a.job_times {
        gpucosim::probe_file(t, "--job-times")?;
    }
    a.reports.check_code_coverage(a.code_coverage)?;
    if !a.code_coverage {
        // Floors or waivers without code coverage: refused, before any run.
        a.require
            .check(&regress::ResultsFile::new(&plan, a.shard), &[])?;
    }
    let waivers = a.require.waivers()?;
    let bundles = a.bundles.bundles;
    let bundles_existed = bundles.exists();
    gpucosim::probe_dir(&bundles, "--bundles")?;
    gpucosim::cache::remove_stale(&bundles, ".bundle-");
    // Per-unit configuration; build every library up front so a broken
    // RTL or a missing Verilator is reported once, before any job runs.
    let libs = regress::LibCache::new(a.code_coverage);
    let mut specs = std::collections::BTreeMap::new();
    let limits = a.limits.limits();
    for u in &spec_units {
        let knobs = a.knobs.for_unit(u);
        // A tree of some units co-simulates those; the units it lacks run
        // on the built-in RTL unless named with --unit.
        let rtl_arg = if named_units.contains(u) {
            a.rtl.rtl.clone()
        } else {
            let (rtl, note) = regress::rtl_for_unit(&a.rtl.rtl, u);
            if let Some(n) = note {
                eprintln!("{n}");
            }
            rtl
        };
        let root = gpucosim::rtl_root(rtl_arg.as_deref());
        let cfg = regress::RegressConfig {
            cycles: a.seeds.cycles,
            rtl_arg,
            knobs,
            bundles: bundles.clone(),
            shrink: a.shrink,
            window: a.window.window,
            timeout: limits.timeout.map(|d| d.as_secs_f64()),
            stall: limits.stall.map(|d| d.as_secs_f64()),
            waves_format: a.waves_format.waves_format,
            mutant: None,
            code_coverage: a.code_coverage,
        };
        with_testbench!(u.as_str(), B => {
            for &p in &profiles {
                let (lib, hash) = libs.get::<B>(&root, p)?;
                specs.insert((u.clone(), p), regress::JobSpec {
                    job: regress::Job { unit: u.clone(), profile: p, seed: 0, kernel: None, variant: None },
                    cfg: cfg.clone(),
                    root: root.clone(),
                    lib,
                    hash,
                    pipeline: false,
                });
            }
            Ok::<(), Error>(())
        })?;
    }
    let exe = regress::own_exe()?;
    let total = list.len();
    gpucosim::catch_stop_signals();
    static STOP: AtomicBool = AtomicBool::new(false);
    // Stop requests are turned into the flag the workers check.
    let watcher_done = std::sync::Arc::new(AtomicBool::new(false));
    let watcher = {
        let done = std::sync::Arc::clone(&watcher_done);
        std::thread::spawn(move || {
            let mut told = false;
            while !done.load(Ordering::SeqCst) {
                if let (Some(sig), false) = (gpucosim::signalled(), told) {
                    told = true;
                    STOP.store(true, Ordering::SeqCst);
                    tracing::info!(
                        "{}: no new jobs; running jobs stop at their next cycle; writing the results (again to abort)",
                        engine::signal_name(sig)
                    );
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let interactive = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let bar = if quiet || !interactive {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} seeds, {msg}",
            )
            .expect("template"),
        );
        b
    };
    // The job times of earlier regressions order the jobs from the start
    // (`job_times`); this one's replace them for the groups it measures.
    let times_path = a.job_times.clone().unwrap_or_else(JobTimes::path);
    let (times, times_warning) = JobTimes::load(&times_path);
    if let Some(w) = times_warning {
        eprintln!("warning: {w}");
    }
    tracing::debug!("job times of earlier regressions: {}", times_path.display());
    let estimate = |j: &regress::Job| times.estimate(&plan, j);
    let start = std::time::Instant::now();
    let mut failed = 0usize;
    let mut done = 0u64;
    // Each thread runs its jobs in a worker process of its own, started
    // again after a job that ends it (a crash, a kill); the workers end
    // with their threads.
    let runner = |job: &regress::Job, pipeline: bool| -> regress::JobResult {
        let mut spec = specs[&(job.unit.clone(), job.profile)].clone();
        spec.job = job.clone();
        spec.pipeline = pipeline;
        regress::run_job_in_worker(&exe, &spec, &STOP)
    };
    let results = regress::run_jobs(&list, threads, cpus, &estimate, &STOP, &runner, &mut |r| {
        done += 1;
        if !r.passed() {
            failed += 1;
        }
        let line = match r.status {
            regress::Status::Passed => format!(
                "PASS {} ({} cycles, {:.1} s)",
                r.job.name(),
                r.cycles,
                r.seconds
            ),
            _ => format!(
                "{} {}: {}{}",
                status_word(r.status),
                r.job.name(),
                r.message,
                if r.reproduce.is_empty() {
                    String::new()
                } else {
                    format!("; reproduce: {}", r.reproduce)
                }
            ),
        };
        if interactive {
            if !r.passed() && !quiet {
                bar.suspend(|| eprintln!("{line}"));
            }
        } else if !quiet {
            eprintln!("[{done}/{total}] {line}");
        }
        bar.set_message(format!("{failed} failed"));
        bar.inc(1);
    });
    bar.finish_and_clear();
    watcher_done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    if let Err(e) = JobTimes::update(&times_path, &plan, &results) {
        eprintln!("warning: cannot keep this regression's job times for the next one's order: {e}");
    }
    let signal = gpucosim::signalled();
    let mut res = regress::ResultsFile::new(&plan, a.shard);
    for r in results {
        res.add(r);
    }
    res.interrupted = signal.is_some() && (res.jobs.len() as u64) < total
        || res
            .jobs
            .iter()
            .any(|j| j.status == regress::Status::Interrupted);
    let require_coverage = a.require.require_coverage;
    // The code coverage carries the text of the RTL it counts.
    for (g, c) in res.code_coverage.iter_mut() {
        let unit = g.split('.').next().unwrap_or_default();
        if let Some(spec) = specs.iter().find(|((u, _), _)| u == unit).map(|(_, s)| s) {
            for l in c.read_sources(&spec.root) {
                eprintln!(
                    "warning: code coverage of {g}: cannot read {l}; its items are listed without their source"
                );
            }
        }
    }
    let code = a.require.check(&res, &waivers)?;
    let mut lost = a.reports.write(&res, require_coverage, code.as_ref());
    if !bundles_existed {
        // Made for bundles that no job needed: leave no empty directory.
        let _ = std::fs::remove_dir(&bundles);
    }
    print!("{}", res.summary());
    if let Some(c) = &code {
        print!("{}", c.report.table());
    }
    let (ran, stopped, not_run) = res.counts();
    println!(
        "{ran} of {total} seeds run{} in {:.1} s on {} job(s): {} failed{}",
        a.shard.map(|s| format!(" (shard {s})")).unwrap_or_default(),
        start.elapsed().as_secs_f64(),
        threads,
        res.failures() - stopped,
        not_run_note(stopped, not_run)
    );
    for j in res.jobs.iter().filter(|j| !j.passed()) {
        println!(
            "  {} {}: {}",
            status_word(j.status),
            j.job.name(),
            if j.reproduce.is_empty() {
                &j.message
            } else {
                &j.reproduce
            }
        );
        if let Some(line) = j.report.lines().find(|l| l.starts_with("shrunk: ")) {
            println!("    {line}");
        }
        for l in &j.lost {
            eprintln!("error: not written: {l}");
            lost = true;
        }
    }
    print_coverage_failures(&res, require_coverage, code.as_ref());
    Ok(ExitCode::from(match signal {
        Some(sig) if res.interrupted => (128 + sig) as u8,
        _ if lost => EXIT_INPUT,
        _ => res.exit_code_checked(require_coverage, code.as_ref()),
    }))
}

/// With `--require-coverage`, a line per unit and profile that left bins
/// unhit, as the failed jobs are listed.
pub(crate) fn print_coverage_failures(
    r: &regress::ResultsFile,
    require_coverage: bool,
    code: Option<&gpucosim::codecov::Checked>,
) {
    if require_coverage {
        for l in r.coverage_failures() {
            println!("  FAIL {l}");
        }
    }
    for l in code.map(|c| c.failure_lines()).unwrap_or_default() {
        println!("  {l}");
    }
}

/// `, K stopped while running, N not run`, or nothing.
pub(crate) fn not_run_note(stopped: usize, not_run: u64) -> String {
    let mut s = String::new();
    if stopped > 0 {
        s.push_str(&format!(", {stopped} stopped while running"));
    }
    if not_run > 0 {
        s.push_str(&format!(", {not_run} not run"));
    }
    s
}

pub(crate) fn status_word(s: regress::Status) -> &'static str {
    match s {
        regress::Status::Passed => "PASS",
        regress::Status::Diverged => "FAIL",
        regress::Status::RtlError => "RTL ERROR",
        regress::Status::Timeout => "TIMEOUT",
        regress::Status::Interrupted => "INTERRUPTED",
        regress::Status::Error => "ERROR",
    }
}
