//! The `gpucosim` command line.
#![allow(unused_variables, dead_code)] // until the first unit is registered

use clap::{Parser, Subcommand};
use gpucosim::engine::{self, RunSpec, Stimulus};
use gpucosim::error::{Error, Result};
use gpucosim::{rtlbuild, units, with_bench};
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
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("GPUCOSIM_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .without_time()
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
                "bench {u} {p}: bare {:.0}, shim {:.0}, model {:.0}, lock-step {:.0} cycles/s; 4/1 = {:.2}",
                fig.bare, fig.shim, fig.model, fig.lockstep, fig.ratio()
            );
            rows.push(fig);
            starts.push((
                u.clone(),
                p,
                benchmark::cached_start(&exe, u, p, rtl.as_deref(), repeats)?,
            ));
        }
    }
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
        regress: Err("this build has no `gpucosim regress` command".into()),
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
