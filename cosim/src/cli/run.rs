//! `gpucosim run`: one unit and profile co-simulated with one seed.

use super::args::{count, parse_kv, whole, LimitArgs, RtlArg, SeedArg, Target, WavesArgs};
use gpucosim::engine::{self, RunSpec, Stimulus, Verdict, EXIT_INPUT};
use gpucosim::error::{Error, Result};
use gpucosim::with_testbench;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    seed: SeedArg,
    /// Cycles to simulate (reset included).
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 100_000)]
    cycles: u64,
    #[command(flatten)]
    rtl: RtlArg,
    #[command(flatten)]
    waves: WavesArgs,
    /// Cycles of the waveform before a divergence.
    #[arg(allow_negative_numbers = true, value_parser = count::<usize>, long, default_value_t = 1024, requires = "waves")]
    window: usize,
    /// Cycles recorded past the divergence.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 8)]
    post: u64,
    /// Write the whole run to the waveform, not only the window.
    #[arg(long, requires = "waves")]
    dump_all: bool,
    /// Diverging cycles to report before stopping.
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 1)]
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
    /// Run driver and model on a second thread ahead of the RTL (the
    /// outcome is the same, bit for bit). Default: when a second CPU is
    /// idle at the start (the one-minute load average leaves one and a
    /// half CPUs free); see BENCHMARKS.md, columns 4 and 5.
    #[arg(long, overrides_with = "no_pipeline")]
    pipeline: bool,
    /// Run driver, model and RTL on one thread.
    #[arg(long)]
    no_pipeline: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

pub(crate) fn run(a: RunArgs) -> Result<ExitCode> {
    let target = a.target;
    if a.cycles == 0 {
        return Err(Error::Input("--cycles must be at least 1".into()));
    }
    let mut spec = RunSpec::new(&target.unit, target.profile, a.seed.seed, a.cycles);
    spec.rtl_arg = a.rtl.rtl;
    spec.waves = a.waves.waves;
    spec.waves_format = a.waves.waves_format;
    spec.window = a.window;
    spec.post = a.post;
    spec.dump_all = a.dump_all;
    if a.max_mismatches == 0 {
        return Err(Error::Input(
            "--max-mismatches must be at least 1 (the first divergence is always reported)".into(),
        ));
    }
    spec.max_mismatches = a.max_mismatches;
    spec.knobs = a.knobs;
    spec.pipeline = a.pipeline || (!a.no_pipeline && engine::second_cpu_idle());
    tracing::debug!(
        "driver and model {} (load average {})",
        if spec.pipeline {
            "on a second thread"
        } else {
            "on the RTL's thread"
        },
        gpucosim::benchmark::load_average()
    );
    spec.limits = a.limits.limits();
    // The knobs and every output location are checked before the run
    // starts.
    with_testbench!(target.unit.as_str(), B => engine::parse_knobs::<B>(&spec.knobs).map(drop))?;
    if let Some(w) = &spec.waves {
        gpucosim::probe_dir(w, "--waves")?;
    }
    if let Some(j) = &a.json {
        gpucosim::probe_file(j, "--json")?;
    }
    gpucosim::catch_stop_signals();
    let (trace_rtl, json) = (a.trace_rtl, a.json.as_deref());
    with_testbench!(target.unit.as_str(), B => run_one::<B>(&spec, trace_rtl, json))
}

fn run_one<B: gpucosim::testbench::Testbench>(
    spec: &RunSpec,
    trace_rtl: bool,
    json: Option<&Path>,
) -> Result<ExitCode> {
    let (out, rtl_vcd) = gpucosim::simulate::<B>(spec, Stimulus::Fresh, trace_rtl)?;
    let cov = &out.coverage;
    let name = spec.name();
    match out.verdict() {
        Verdict::Passed => println!(
            "PASS {name}: {} cycles, {} transactions, {:.0} cycles/s, coverage {}/{} bins",
            out.cycles,
            out.txn_count,
            out.rate(),
            cov.covered(),
            cov.names.len()
        ),
        Verdict::Interrupted => println!(
            "INTERRUPTED {name} before cycle {} by {}: model and RTL agreed over the {} cycles run ({} transactions)",
            out.cycles,
            engine::signal_name(out.signal()),
            out.cycles,
            out.txn_count
        ),
        v => {
            print!("{}", gpucosim::report(spec, &out, B::table()));
            if let Some(p) = &rtl_vcd {
                println!("  RTL internal signals: {}", p.display());
            }
            let what = match (out.mismatches.first(), engine::Headline::of(&out.end)) {
                (Some(m), _) => format!("FAIL {name}: diverged at cycle {}", m.cycle),
                (None, Some(h)) => format!("{} {name} {}", h.kind, h.when),
                (None, None) => format!("FAIL {name}: {v:?}"),
            };
            println!("{what}{}", in_transaction(&out));
        }
    }
    let mut lost = false;
    if let Some(e) = &out.vcd_error {
        eprintln!("error: the waveform was not written: {e}");
        lost = true;
    }
    if let Some(path) = json {
        let record = engine::RunRecord::of(spec, &out, rtl_vcd.as_deref());
        if let Err(e) = gpucosim::write_atomic(path, record.to_json().as_bytes()) {
            eprintln!("error: --json was not written: {e}");
            lost = true;
        }
    }
    // What the run found comes first; a lost output turns only a pass
    // into a failure.
    Ok(ExitCode::from(match out.verdict() {
        Verdict::Passed if lost => EXIT_INPUT,
        _ => out.exit_code(),
    }))
}

/// `, in transaction #N` for the transaction the report shows, if any.
pub(crate) fn in_transaction<T>(out: &engine::Outcome<T>) -> String {
    out.in_flight
        .as_ref()
        .map(|(i, _)| format!(", in transaction #{i}"))
        .unwrap_or_default()
}
