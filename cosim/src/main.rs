//! The `gpucosim` command line.

use clap::{Parser, Subcommand};
use gpucosim::engine::{self, RunSpec, Stimulus};
use gpucosim::error::{Error, Result};
use gpucosim::{regress, rtlbuild, units, with_bench};
use gpucosim_model::Profile;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gpucosim",
    version,
    about = "Lock-step co-simulation of AMD GPU unit reference models against Verilated RTL",
    after_help = "Exit status: 0 model and RTL agree, 1 divergence, 2 bad input or environment."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args, Clone)]
struct Target {
    /// Unit: ta, lds or waitcnt.
    #[arg(long)]
    unit: String,
    /// Profile: gfx9 or gfx11.
    #[arg(long)]
    profile: Profile,
}

#[derive(Subcommand)]
enum Cmd {
    /// Co-simulate one unit and profile with one seed.
    Run {
        #[command(flatten)]
        target: Target,
        /// Seed of the random stimulus.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Cycles to simulate (reset included).
        #[arg(long, default_value_t = 100_000)]
        cycles: u64,
        /// Another RTL tree (holding `<unit>/*.sv`) with the same top-level
        /// ports. Default: $GPUCOSIM_RTL, else the built-in rtl/.
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Directory for waveforms: a VCD of the window around a divergence.
        #[arg(long)]
        waves: Option<PathBuf>,
        /// Cycles kept in the waveform ring before a divergence.
        #[arg(long, default_value_t = 1024)]
        window: usize,
        /// Cycles recorded past the divergence.
        #[arg(long, default_value_t = 8)]
        post: u64,
        /// Write the whole run to the VCD, not only the window.
        #[arg(long, requires = "waves")]
        dump_all: bool,
        /// Diverging cycles to report before stopping.
        #[arg(long, default_value_t = 1)]
        max_mismatches: usize,
        /// Stimulus knob, `name=value` (repeatable).
        #[arg(long = "knob", value_parser = parse_kv)]
        knobs: Vec<(String, String)>,
        /// On divergence, re-run on a tracing build of the RTL and write its
        /// internal signals over the same window to `<name>.rtl.vcd`.
        #[arg(long, requires = "waves")]
        trace_rtl: bool,
        /// Write the result as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Run driver and model on a second thread ahead of the RTL. The
        /// outcome is the same; whether it is faster depends on the unit
        /// (see BENCHMARKS.md, column 5).
        #[arg(long)]
        pipeline: bool,
    },
    /// What would the hardware do? Reads JSON requests (FILE or stdin) and
    /// prints the model's JSON results.
    Eval {
        #[command(flatten)]
        target: Target,
        /// Input file; `-` or absent for stdin.
        file: Option<PathBuf>,
    },
    /// Measure co-simulation speed against a bare Verilator loop (see
    /// docs/benchmarks.md). Run it from a release build.
    Bench {
        /// Unit (repeatable); default: every unit.
        #[arg(long = "unit")]
        units: Vec<String>,
        /// Profile (repeatable); default: every profile.
        #[arg(long = "profile")]
        profiles: Vec<Profile>,
        /// Cycles per measurement (reset included).
        #[arg(long, default_value_t = 200_000)]
        cycles: u64,
        /// Seed of the stimulus.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Measurements per figure; the best is kept.
        #[arg(long, default_value_t = 3)]
        repeats: usize,
        /// Another RTL tree. Default: $GPUCOSIM_RTL, else the built-in rtl/.
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Regenerate this Markdown file (atomically) with the figures.
        #[arg(long)]
        write: Option<PathBuf>,
    },
    /// Decode an `s_waitcnt` instruction word (e.g. 0xBF8C0070), a gfx11
    /// `s_waitcnt_vscnt null, imm` word (e.g. 0xBC7C0005) or an `s_waitcnt`
    /// 16-bit immediate into the counter thresholds.
    DecodeWaitcnt {
        /// Profile: gfx9 or gfx11.
        #[arg(long)]
        profile: Profile,
        /// The instruction word or immediate (hex with 0x, or decimal).
        word: String,
    },
    /// Lint the RTL of every unit (or one) for every profile with
    /// `verilator --lint-only -Wall`. Exit 1 on any finding.
    Lint {
        /// Only this unit.
        #[arg(long)]
        unit: Option<String>,
        /// Another RTL tree.
        #[arg(long)]
        rtl: Option<PathBuf>,
    },
    /// Run many seeds across units and profiles in parallel, with a summary
    /// table, JUnit, merged coverage, failure bundles and optional shrinking.
    Regress(RegressArgs),
    /// Combine the results files of shards into one report.
    Merge {
        /// Results files written by `regress --results`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the merged JUnit XML report.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// Write the merged coverage as JSON.
        #[arg(long)]
        coverage: Option<PathBuf>,
        /// Write the merged results file.
        #[arg(long)]
        results: Option<PathBuf>,
    },
    /// Re-run a failure bundle's exact stimulus.
    Replay {
        /// Bundle directory (or its repro.json).
        bundle: PathBuf,
        /// Replay even though the RTL changed since the bundle was written.
        #[arg(long)]
        force: bool,
        /// Replay on another RTL tree instead of the bundle's.
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Write the waveform of the replay here.
        #[arg(long)]
        waves: Option<PathBuf>,
    },
    /// Minimise a failure bundle's stimulus to one that still diverges.
    Shrink {
        /// Bundle directory (or its repro.json).
        bundle: PathBuf,
        /// Where to write the shrunk bundle (default: BUNDLE.shrunk).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Shrink even though the RTL changed since the bundle was written.
        #[arg(long)]
        force: bool,
    },
    /// Build (or find in the cache) a unit's RTL and print the library path.
    Build {
        #[command(flatten)]
        target: Target,
        /// Another RTL tree.
        #[arg(long)]
        rtl: Option<PathBuf>,
    },
}

fn parse_kv(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected name=value, got `{s}`")),
    }
}

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when the reader of our
    // output goes away (`gpucosim eval ... | head`) instead of panicking.
    // SAFETY: called before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("GPUCOSIM_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .without_time()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match dispatch(cli.cmd) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cmd: Cmd) -> Result<ExitCode> {
    match cmd {
        Cmd::Run {
            target,
            seed,
            cycles,
            rtl,
            waves,
            window,
            post,
            dump_all,
            max_mismatches,
            knobs,
            trace_rtl,
            json,
            pipeline,
        } => {
            let spec = RunSpec {
                unit: target.unit.clone(),
                profile: target.profile,
                seed,
                cycles,
                rtl_arg: rtl,
                waves,
                window,
                post,
                dump_all,
                max_mismatches: max_mismatches.max(1),
                knobs,
                pipeline,
            };
            with_bench!(target.unit.as_str(), B => run_one::<B>(&spec, trace_rtl, json.as_deref()))
        }
        Cmd::Eval { target, file } => {
            let text = match file.as_deref() {
                None => read_stdin()?,
                Some(p) if p.as_os_str() == "-" => read_stdin()?,
                Some(p) => std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?,
            };
            let input: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| Error::Input(format!("eval input is not JSON: {e}")))?;
            let out = units::eval_json(&target.unit, target.profile, &input)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&out).expect("JSON values serialise")
            );
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Bench {
            units,
            profiles,
            cycles,
            seed,
            repeats,
            rtl,
            write,
        } => bench(units, profiles, cycles, seed, repeats, rtl, write),
        Cmd::DecodeWaitcnt { profile, word } => {
            let text = units::waitcnt::decode_waitcnt_text(profile, &word).map_err(Error::Input)?;
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Lint { unit, rtl } => {
            let root = rtlbuild::rtl_root(rtl.as_deref());
            let cache = rtlbuild::cache_root();
            let v = gpucosim::verilator::Verilator::locate(&cache)?;
            let mut findings = 0;
            for t in gpucosim_model::TABLES {
                if unit.as_deref().is_some_and(|u| u != t.unit) {
                    continue;
                }
                let sources = rtlbuild::RtlSources::collect(&root, t.unit)?;
                for profile in Profile::all() {
                    match rtlbuild::lint(t, profile, &sources, &v)? {
                        None => println!("lint {} {}: clean", t.unit, profile),
                        Some(text) => {
                            findings += 1;
                            println!("lint {} {}: FINDINGS\n{text}", t.unit, profile);
                        }
                    }
                }
            }
            if let Some(u) = unit {
                if !gpucosim_model::TABLES.iter().any(|t| t.unit == u) {
                    return Err(Error::Input(format!(
                        "unknown unit `{u}` (expected one of: {})",
                        units::UNITS.join(", ")
                    )));
                }
            }
            Ok(if findings == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Regress(a) => cmd_regress(a),
        Cmd::Merge {
            files,
            junit,
            coverage,
            results,
        } => {
            let mut parts = Vec::new();
            for f in files {
                let r = regress::Results::load(&f)?;
                parts.push((f, r));
            }
            let merged = regress::Results::merge(parts)?;
            write_reports(
                &merged,
                junit.as_deref(),
                coverage.as_deref(),
                results.as_deref(),
            )?;
            print!("{}", merged.summary());
            println!(
                "{} jobs from {} shard(s), {} failed",
                merged.jobs.len(),
                merged.shards.len().max(1),
                merged.failures()
            );
            Ok(if merged.failures() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Replay {
            bundle,
            force,
            rtl,
            waves,
        } => {
            let repro = regress::Repro::load(&bundle)?;
            with_bench!(repro.unit.as_str(), B => cmd_replay::<B>(&repro, force, rtl, waves))
        }
        Cmd::Shrink { bundle, out, force } => {
            let repro = regress::Repro::load(&bundle)?;
            let out = out.unwrap_or_else(|| {
                let mut s = bundle.clone().into_os_string();
                s.push(".shrunk");
                PathBuf::from(s)
            });
            with_bench!(repro.unit.as_str(), B => {
                regress::check_rtl_hash::<B>(&repro, &repro.rtl_dir, force)?;
                let libs = regress::LibCache::default();
                let (lib, _) = libs.get::<B>(&repro.rtl_dir, repro.profile)?;
                let s = regress::shrink::<B>(&repro, &lib, &out)?;
                println!("shrunk {}.{}.{}: {}", repro.unit, repro.profile, repro.seed, s.summary());
                println!("bundle: {}", out.display());
                Ok(ExitCode::SUCCESS)
            })
        }
        Cmd::Build { target, rtl } => {
            let root = rtlbuild::rtl_root(rtl.as_deref());
            with_bench!(target.unit.as_str(), B => {
                let (_, built) = gpucosim::load_rtl::<B>(&root, target.profile, false)?;
                println!("{}", built.lib.display());
                Ok(ExitCode::SUCCESS)
            })
        }
    }
}

fn bench(
    units: Vec<String>,
    profiles: Vec<Profile>,
    cycles: u64,
    seed: u64,
    repeats: usize,
    rtl: Option<PathBuf>,
    write: Option<PathBuf>,
) -> Result<ExitCode> {
    use gpucosim::benchmark::{self, BenchSpec, Machine, Report};
    let units = if units.is_empty() {
        units::UNITS.iter().map(|u| u.to_string()).collect()
    } else {
        units
    };
    let profiles = if profiles.is_empty() {
        Profile::all().collect()
    } else {
        profiles
    };
    for u in &units {
        // Unknown units are reported before anything is built.
        let (): () = with_bench!(u.as_str(), B => Ok(()))?;
    }
    let release = !cfg!(debug_assertions);
    if !release {
        eprintln!("warning: this gpucosim was built without optimisations; the figures mean little (use `cargo run --release -- bench`)");
    }
    let machine = Machine::describe();
    let work = tempfile::Builder::new()
        .prefix("gpucosim-bench-")
        .tempdir()
        .map_err(|e| Error::Env(format!("cannot create a temporary directory: {e}")))?;
    let spec = BenchSpec {
        cycles,
        seed,
        repeats,
        rtl_root: rtlbuild::rtl_root(rtl.as_deref()),
        work_dir: work.path().to_path_buf(),
    };
    spec.validate()?;
    let exe = std::env::current_exe()
        .map_err(|e| Error::Env(format!("cannot find the gpucosim executable: {e}")))?;
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    for u in &units {
        for &p in &profiles {
            eprintln!("bench {u} {p}: building and measuring…");
            let fig: benchmark::UnitFigures =
                with_bench!(u.as_str(), B => benchmark::bench_unit::<B>(&spec, p))?;
            eprintln!(
                "bench {u} {p}: bare {:.0}, shim {:.0}, model {:.0}, lock-step {:.0} (pipelined {:.0}) cycles/s; 4/1 = {:.2}, 5/1 = {:.2}",
                fig.bare, fig.shim, fig.model, fig.lockstep, fig.pipelined, fig.ratio(), fig.pipelined_ratio()
            );
            rows.push(fig);
            starts.push((
                u.clone(),
                p,
                benchmark::cached_start(&exe, u, p, rtl.as_deref(), repeats)?,
            ));
        }
    }
    eprintln!("bench: regress --jobs 1 vs --jobs 2…");
    let regress = benchmark::regress_scaling(
        &exe,
        &units,
        &profiles,
        (cycles / 4).max(10_000),
        rtl.as_deref(),
        work.path(),
    )
    .map_err(|e| e.to_string());
    let report = Report {
        machine,
        command: std::iter::once("gpucosim".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        release,
        spec,
        rows,
        starts,
        regress,
        load_after: benchmark::load_average(),
    };
    print!("{}\n{}", report.table(), report.targets());
    if let Some(path) = write {
        gpucosim::write_atomic(&path, report.markdown().as_bytes())?;
        println!("wrote {}", path.display());
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

fn run_one<B: gpucosim::bench::Testbench>(
    spec: &RunSpec,
    trace_rtl: bool,
    json: Option<&std::path::Path>,
) -> Result<ExitCode> {
    let (out, rtl_vcd) = gpucosim::simulate::<B>(spec, Stimulus::Fresh, trace_rtl)?;
    let cov = &out.coverage;
    if out.passed() {
        println!(
            "PASS {}: {} cycles, {} transactions, {:.0} cycles/s, coverage {}/{} bins",
            spec.name(),
            out.cycles,
            out.txns.len(),
            out.rate(),
            cov.covered(),
            cov.names.len()
        );
    } else {
        print!("{}", engine::report(spec, &out, B::table()));
        if let Some(p) = &rtl_vcd {
            println!("  RTL internal signals: {}", p.display());
        }
        println!(
            "FAIL {}: diverged at cycle {} after {} transactions",
            spec.name(),
            out.mismatches[0].cycle,
            out.txns.len()
        );
    }
    if let Some(path) = json {
        let v = serde_json::json!({
            "name": spec.name(),
            "unit": spec.unit,
            "profile": spec.profile,
            "seed": spec.seed,
            "cycles": out.cycles,
            "transactions": out.txns.len(),
            "passed": out.passed(),
            "mismatches": out.mismatches,
            "vcd": out.vcd,
            "rtl_vcd": rtl_vcd,
            "cycles_per_second": out.rate(),
            "reproduce": spec.repro_command(),
            "coverage": cov.names.iter().zip(&cov.hits).map(|(n, h)| (n.to_string(), *h)).collect::<std::collections::BTreeMap<_, _>>(),
        });
        gpucosim::write_atomic(
            path,
            serde_json::to_string_pretty(&v).expect("JSON").as_bytes(),
        )?;
    }
    Ok(if out.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[derive(clap::Args)]
struct RegressArgs {
    /// Units to run (repeatable; default: all).
    #[arg(long = "unit")]
    units: Vec<String>,
    /// Profiles to run (repeatable; default: all).
    #[arg(long = "profile")]
    profiles: Vec<Profile>,
    /// Seeds: `A..B` (inclusive) or a count N meaning 1..N.
    #[arg(long, default_value = "1..16")]
    seeds: regress::Seeds,
    /// Cycles per seed.
    #[arg(long, default_value_t = 50_000)]
    cycles: u64,
    /// Parallel jobs (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only shard K of N (1-based), e.g. `--shard 2/4`.
    #[arg(long)]
    shard: Option<regress::Shard>,
    /// Write a JUnit XML report.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Write the merged coverage as JSON.
    #[arg(long)]
    coverage: Option<PathBuf>,
    /// Write the results file (input of `gpucosim merge`).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Directory for failure bundles.
    #[arg(long, default_value = "gpucosim-failures")]
    bundles: PathBuf,
    /// Shrink each failure into a second, minimal bundle.
    #[arg(long)]
    shrink: bool,
    /// Another RTL tree.
    #[arg(long)]
    rtl: Option<PathBuf>,
    /// Stimulus knob `name=value` for every unit, or `unit.name=value`.
    #[arg(long = "knob", value_parser = parse_kv)]
    knobs: Vec<(String, String)>,
    /// Waveform window of failure bundles, in cycles.
    #[arg(long, default_value_t = 1024)]
    window: usize,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn cmd_regress(a: RegressArgs) -> Result<ExitCode> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let units: Vec<String> = if a.units.is_empty() {
        units::UNITS.iter().map(|s| s.to_string()).collect()
    } else {
        a.units
    };
    let profiles: Vec<Profile> = if a.profiles.is_empty() {
        Profile::all().collect()
    } else {
        a.profiles
    };
    let threads = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if threads == 0 {
        return Err(Error::Input("--jobs must be at least 1".into()));
    }
    let root = rtlbuild::rtl_root(a.rtl.as_deref());
    // Per-unit configuration; build every library up front so a broken
    // RTL or a missing Verilator is reported once, before any job runs.
    let libs = regress::LibCache::default();
    let mut cfgs = std::collections::BTreeMap::new();
    for u in &units {
        let knobs: Vec<(String, String)> = a
            .knobs
            .iter()
            .filter_map(|(k, v)| match k.split_once('.') {
                Some((unit, name)) if unit == u => Some((name.to_string(), v.clone())),
                Some(_) => None,
                None => Some((k.clone(), v.clone())),
            })
            .collect();
        with_bench!(u.as_str(), B => {
            gpucosim::engine::parse_knobs::<B>(&knobs)?;
            for &p in &profiles {
                libs.get::<B>(&root, p)?;
            }
            Ok::<(), Error>(())
        })?;
        cfgs.insert(
            u.clone(),
            regress::RegressConfig {
                cycles: a.cycles,
                rtl_arg: a.rtl.clone(),
                knobs,
                bundles: a.bundles.clone(),
                shrink: a.shrink,
                window: a.window,
            },
        );
    }
    let jobs = regress::jobs(&units, &profiles, a.seeds, a.shard);
    let total = jobs.len();
    static STOP: AtomicBool = AtomicBool::new(false);
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!(
            "interrupted: finishing the running jobs and writing results (Ctrl-C again to abort)"
        );
    });
    let bar = if a.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(total as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} seeds, {msg}",
            )
            .expect("template"),
        );
        b
    };
    let start = std::time::Instant::now();
    let mut failed = 0usize;
    let runner = |job: &regress::Job| -> (regress::JobResult, Option<gpucosim_model::Coverage>) {
        let cfg = &cfgs[&job.unit];
        let r: Result<(regress::JobResult, Option<gpucosim_model::Coverage>)> =
            with_bench!(job.unit.as_str(), B => Ok(regress::run_job::<B>(job, cfg, &libs)));
        r.expect("units were validated before the run")
    };
    let (results, coverage) = regress::run_jobs(jobs, threads, &STOP, &runner, &mut |r| {
        if !r.passed {
            failed += 1;
            bar.suspend(|| {
                if let Some(e) = &r.error {
                    eprintln!("ERROR {}: {e}", r.job.name());
                } else {
                    eprintln!("FAIL {}: {}", r.job.name(), r.reproduce);
                }
            });
        }
        bar.set_message(format!("{failed} failed"));
        bar.inc(1);
    });
    bar.finish_and_clear();
    let interrupted = STOP.load(Ordering::SeqCst) && results.len() < total;
    let res = regress::Results {
        format: regress::RESULTS_FORMAT,
        shards: a.shard.into_iter().collect(),
        interrupted,
        jobs: results,
        coverage,
    };
    write_reports(
        &res,
        a.junit.as_deref(),
        a.coverage.as_deref(),
        a.results.as_deref(),
    )?;
    print!("{}", res.summary());
    println!(
        "{} of {} seeds run{} in {:.1} s on {} job(s): {} failed",
        res.jobs.len(),
        total,
        a.shard.map(|s| format!(" (shard {s})")).unwrap_or_default(),
        start.elapsed().as_secs_f64(),
        threads,
        res.failures()
    );
    for j in res.jobs.iter().filter(|j| !j.passed) {
        match &j.error {
            Some(e) => println!("  ERROR {}: {e}", j.job.name()),
            None => println!("  FAIL {}: {}", j.job.name(), j.reproduce),
        }
        if let Some(line) = j.report.lines().find(|l| l.starts_with("shrunk: ")) {
            println!("    {line}");
        }
    }
    Ok(if interrupted {
        ExitCode::from(130)
    } else if res.failures() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn write_reports(
    r: &regress::Results,
    junit: Option<&std::path::Path>,
    coverage: Option<&std::path::Path>,
    results: Option<&std::path::Path>,
) -> Result<()> {
    if let Some(p) = junit {
        gpucosim::write_atomic(p, r.junit().as_bytes())?;
    }
    if let Some(p) = coverage {
        let j = serde_json::to_string_pretty(&r.coverage_json()).expect("JSON");
        gpucosim::write_atomic(p, j.as_bytes())?;
    }
    if let Some(p) = results {
        let j = serde_json::to_string_pretty(r).expect("JSON");
        gpucosim::write_atomic(p, j.as_bytes())?;
    }
    Ok(())
}

fn cmd_replay<B: gpucosim::bench::Testbench>(
    repro: &regress::Repro,
    force: bool,
    rtl: Option<PathBuf>,
    waves: Option<PathBuf>,
) -> Result<ExitCode> {
    let root = rtl.unwrap_or_else(|| repro.rtl_dir.clone());
    regress::check_rtl_hash::<B>(repro, &root, force)?;
    let libs = regress::LibCache::default();
    let (lib, _) = libs.get::<B>(&root, repro.profile)?;
    let mut r = repro.clone();
    r.rtl_dir = root;
    let out = regress::replay_txns::<B>(&r, &lib, repro.txns::<B>()?, waves.as_deref())?;
    let name = format!("{}.{}.{}", repro.unit, repro.profile, repro.seed);
    match out.mismatches.first() {
        None => {
            println!(
                "PASS {name}: the {} recorded transactions no longer diverge ({} cycles)",
                repro.transactions.len(),
                out.cycles
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(m) => {
            let same = repro.first_mismatch.as_ref() == Some(&(m.cycle, m.signal.clone()));
            let spec = r.spec(waves.as_deref());
            print!("{}", engine::report(&spec, &out, B::table()));
            println!(
                "FAIL {name}: {} (cycle {} on {})",
                if same {
                    "reproduced exactly as recorded"
                } else {
                    "diverges, but not as recorded"
                },
                m.cycle,
                m.signal
            );
            Ok(ExitCode::from(1))
        }
    }
}
