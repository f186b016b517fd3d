//! `gpucosim mutate`: mutation testing, a unit's RTL mutated and the
//! mutants the regression kills counted (docs/mutate.md).

use super::args::{
    parse_rate, parse_seconds, whole, NoStressArg, RtlArg, SeedsArgs, Selection, UnitKnobs,
};
use gpucosim::error::{Error, Result};
use gpucosim::with_testbench;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct MutateArgs {
    #[command(flatten)]
    selection: Selection,
    #[command(flatten)]
    rtl: RtlArg,
    /// Run a sample of N mutants per unit and profile (default: every
    /// mutant).
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, value_name = "N")]
    mutants: Option<usize>,
    /// Seed of the sample.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 1)]
    sample_seed: u64,
    /// Run only this mutant (repeatable; numbers from `--list`, `12` or
    /// `m12`).
    #[arg(long = "mutant", value_name = "ID", value_parser = mutant_id, conflicts_with = "mutants")]
    ids: Vec<u32>,
    #[command(flatten)]
    seeds: SeedsArgs,
    #[command(flatten)]
    knobs: UnitKnobs,
    #[command(flatten)]
    no_stress: NoStressArg,
    /// Mutants run in parallel (default: all cores).
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long)]
    jobs: Option<usize>,
    /// Write the report as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a JUnit XML report: each survivor is a failed testcase.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Fail (exit 1) if a unit and profile's kill rate is below this
    /// (0..1), e.g. 0.95.
    #[arg(allow_negative_numbers = true, value_parser = parse_rate, long, value_name = "RATE")]
    min_kill_rate: Option<f64>,
    /// A file of reviewed equivalent mutants (docs/mutate.md "Waivers"):
    /// the survivors it names are reported apart (`waived`) and left out
    /// of the kill rate and the JUnit failures; its entries that no longer
    /// match a mutant of the sources (stale) or whose mutant is killed are
    /// listed, and with `--junit` fail a `UNIT.PROFILE.waivers` testcase.
    #[arg(long, value_name = "FILE")]
    waivers: Option<PathBuf>,
    /// Also build N of the mutants separately and check that each behaves
    /// exactly as the instrumented build with it selected.
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, value_name = "N", default_value_t = 0)]
    verify: usize,
    /// End a mutant's job after this many seconds (default: ten times the
    /// slowest job of the RTL as written, plus 10 s).
    #[arg(allow_negative_numbers = true, long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// List the mutants (with their diffs) without running them: every
    /// mutant, or those named with `--mutant`.
    #[arg(long, conflicts_with_all = [
        "mutants", "sample_seed", "seeds", "cycles", "knobs", "no_stress", "jobs", "json",
        "junit", "min_kill_rate", "waivers", "verify", "timeout",
    ])]
    pub(crate) list: bool,
}

/// A mutant's number as `--list` shows it: `12` or `m12`.
fn mutant_id(s: &str) -> std::result::Result<u32, String> {
    let n = s.strip_prefix('m').unwrap_or(s);
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return Err(if s.contains(".m") {
            "expected the mutant's number from --list (`12` or `m12` for `ta.m12`), with --unit for its unit".into()
        } else {
            "expected a mutant's number from --list, `12` or `m12`".into()
        });
    }
    match n.parse::<u32>() {
        Ok(0) | Err(_) => Err("no such mutant: they are numbered from 1 (--list)".into()),
        Ok(k) => Ok(k),
    }
}

/// Prints a campaign's progress on stderr.
struct MutateProgress {
    quiet: bool,
}

impl gpucosim::mutate::Progress for MutateProgress {
    fn phase(&self, group: &str, what: &str) {
        if !self.quiet {
            eprintln!("mutate {group}: {what}");
        }
    }

    fn mutant(&self, group: &str, done: usize, total: usize, r: &gpucosim::mutate::MutantResult) {
        if !self.quiet {
            eprintln!(
                "mutate {group}: [{done}/{total}] m{} {} ({} {}:{})",
                r.id,
                r.fate.word(),
                r.operator,
                r.file,
                r.line
            );
        }
    }
}

/// `gpucosim mutate`: the campaigns of the units and profiles, or the
/// mutants listed with `--list`; `quiet` keeps the progress off stderr.
pub(crate) fn run(a: MutateArgs, quiet: bool) -> Result<ExitCode> {
    use gpucosim::mutate;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (units, profiles) = a.selection.or_all()?;
    for u in &units {
        let (): () = with_testbench!(u.as_str(), B => Ok(()))?;
    }
    a.knobs.check(&units)?;
    if a.seeds.cycles == 0 {
        return Err(Error::Input("--cycles must be at least 1".into()));
    }
    if a.mutants == Some(0) {
        return Err(Error::Input("--mutants must be at least 1".into()));
    }
    if let Some(r) = a.min_kill_rate {
        if !(0.0..=1.0).contains(&r) {
            return Err(Error::Input(format!(
                "--min-kill-rate {r}: expected a rate between 0 and 1, e.g. 0.95"
            )));
        }
    }
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if jobs == 0 {
        return Err(Error::Input("--jobs must be at least 1".into()));
    }
    if a.list {
        for u in &units {
            let unit = mutate::scan_unit(a.rtl.rtl.as_deref(), u)?;
            let n = unit.mutants.len();
            if let Some(id) = a.ids.iter().find(|&&id| id as usize > n) {
                return Err(Error::Input(format!(
                    "no mutant {id} of {u}: it has mutants 1..{n}"
                )));
            }
            let named = |id: u32| a.ids.is_empty() || a.ids.contains(&id);
            for m in unit.mutants.iter().filter(|m| named(m.id)) {
                println!("{u}.m{} [{}] {}:{}", m.id, m.operator, m.file, m.line);
                print!("{}", mutate::diff(&unit, m));
            }
            println!(
                "{u}: {} mutants{}",
                unit.mutants.len(),
                if unit.generated.is_empty() {
                    String::new()
                } else {
                    format!(" (generated, not mutated: {})", unit.generated.join(", "))
                }
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let waivers = match &a.waivers {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Error::Input(format!("{}: cannot read the waivers: {e}", path.display()))
            })?;
            Some(mutate::waivers::parse(&text, &path.display().to_string())?)
        }
        None => None,
    };
    for out in [&a.json, &a.junit].into_iter().flatten() {
        gpucosim::probe_file(out, "the report")?;
    }
    let exe = mutate::exe_path()?;
    gpucosim::catch_stop_signals();
    static STOP: AtomicBool = AtomicBool::new(false);
    static SIG: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
    let watcher_done = std::sync::Arc::new(AtomicBool::new(false));
    let watcher = {
        let done = std::sync::Arc::clone(&watcher_done);
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                if let (Some(sig), false) = (gpucosim::signalled(), STOP.load(Ordering::SeqCst)) {
                    STOP.store(true, Ordering::SeqCst);
                    SIG.store(sig, Ordering::SeqCst);
                    tracing::info!("stopping: no new mutants; writing the report");
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let progress = MutateProgress { quiet };
    let mut groups = Vec::new();
    let mut failure = None;
    'all: for u in &units {
        let knobs = a.knobs.for_unit(u);
        let spec = mutate::CampaignSpec {
            rtl_arg: a.rtl.rtl.clone(),
            seeds: a.seeds.seeds,
            cycles: a.seeds.cycles,
            knobs,
            stress: !a.no_stress.no_stress,
            sample: a.mutants,
            sample_seed: a.sample_seed,
            ids: a.ids.clone(),
            jobs,
            verify: a.verify,
            timeout: a.timeout,
            fresh_build: false,
        };
        with_testbench!(u.as_str(), B => gpucosim::engine::parse_knobs::<B>(&spec.knobs).map(drop))?;
        for &p in &profiles {
            if STOP.load(Ordering::SeqCst) {
                break 'all;
            }
            match with_testbench!(u.as_str(), B => mutate::campaign::<B>(&exe, p, &spec, &STOP, &progress))
            {
                Ok(g) => groups.push(g),
                Err(e) => {
                    failure = Some(e);
                    break 'all;
                }
            }
        }
    }
    watcher_done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    let rtl = a.rtl.rtl.clone();
    let repro =
        |g: &mutate::GroupResult, id: u32| mutate::repro_command(g, id, rtl.as_deref(), None);
    // The keys of every mutant of each unit's sources, to find stale
    // waivers (a unit that cannot be read again has none: all stale).
    let findings = waivers.as_ref().map(|w| {
        let keys = |g: &mutate::GroupResult| -> std::collections::BTreeSet<String> {
            mutate::scan_unit(rtl.as_deref(), &g.unit)
                .map(|unit| {
                    unit.mutants
                        .iter()
                        .map(|m| {
                            mutate::waivers::key(
                                &m.file,
                                m.operator.name(),
                                &mutate::diff(&unit, m),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        mutate::waivers::apply(&mut groups, w, &keys)
    });
    print!("{}", mutate::report::text(&groups, &repro));
    if let Some(f) = findings.as_ref().filter(|f| !f.is_empty()) {
        let file = a
            .waivers
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        println!("\nWAIVERS FOUND WRONG ({file}):");
        for x in f {
            println!(
                "  line {} ({} {}): {}: {}",
                x.waiver.line, x.group, x.waiver.place, x.problem, x.waiver.reason
            );
        }
    }
    let mut lost = Vec::new();
    if let Some(path) = &a.json {
        let report = mutate::report::MutationReport {
            format: mutate::report::REPORT_FORMAT,
            command: std::env::args().collect::<Vec<_>>().join(" "),
            summaries: groups.iter().map(mutate::report::summarise).collect(),
            groups: groups.clone(),
            waiver_findings: findings.clone().unwrap_or_default(),
        };
        let text = serde_json::to_string_pretty(&report).expect("reports serialise");
        if let Err(e) = gpucosim::write_atomic(path, text.as_bytes()) {
            lost.push(e.to_string());
        }
    }
    if let Some(path) = &a.junit {
        let text = mutate::report::junit(&groups, a.min_kill_rate, findings.as_deref(), &repro);
        if let Err(e) = gpucosim::write_atomic(path, text.as_bytes()) {
            lost.push(e.to_string());
        }
    }
    for l in &lost {
        eprintln!("error: not written: {l}");
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if STOP.load(Ordering::SeqCst) {
        eprintln!("mutate: interrupted; the report covers the mutants that ran");
        return Ok(ExitCode::from((128 + SIG.load(Ordering::SeqCst)) as u8));
    }
    if !lost.is_empty() {
        return Ok(ExitCode::from(gpucosim::engine::EXIT_INPUT));
    }
    if let Some(min) = a.min_kill_rate {
        let low: Vec<String> = groups
            .iter()
            .map(mutate::report::summarise)
            .filter(|s| !matches!(s.kill_rate, Some(r) if r + 1e-12 >= min))
            .map(|s| {
                format!(
                    "{} {}",
                    s.group,
                    s.kill_rate
                        .map_or("(nothing run)".into(), |r| format!("{:.1} %", 100.0 * r))
                )
            })
            .collect();
        if !low.is_empty() {
            eprintln!(
                "mutate: kill rate below {:.1} %: {}",
                100.0 * min,
                low.join(", ")
            );
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}
