//! `gpucosim bench`: co-simulation speed against a bare Verilator loop, and
//! `bench --rss`: the peak memory of runs.

use super::args::{count, whole, RtlArg, SeedArg, Selection, REGRESS_JOB_CYCLES};
use gpucosim::error::{Error, Result};
use gpucosim::{regress, with_testbench};
use gpucosim_model::Profile;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    #[command(flatten)]
    selection: Selection,
    /// Cycles per measurement of figures (1)-(7) and of the shorter memory
    /// run (reset included). The regression-scaling plan always runs
    /// default jobs of 50,000 cycles, as a regression does.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 200_000)]
    cycles: u64,
    #[command(flatten)]
    seed: SeedArg,
    /// Measurements per figure; the best is kept.
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 3)]
    repeats: usize,
    #[command(flatten)]
    rtl: RtlArg,
    /// Regenerate this Markdown file (atomically) with the figures.
    #[arg(long)]
    write: Option<PathBuf>,
    /// Measure only the peak memory of `gpucosim run` at these cycle
    /// counts (comma-separated, e.g. 1000000,10000000), per unit and
    /// profile.
    #[arg(long, value_delimiter = ',', value_parser = count::<u64>, conflicts_with_all = [
        "write", "mutate", "cocotb", "cycles", "repeats", "seed",
    ])]
    rss: Vec<u64>,
    /// Also time a mutation campaign of N mutants of one unit and
    /// profile (`UNIT:PROFILE:N`), its instrumented model built afresh,
    /// against building 3 of the mutants separately.
    #[arg(long, value_name = "UNIT:PROFILE:N", value_parser = parse_mutate_bench)]
    mutate: Option<(String, Profile, usize)>,
    /// Also run each unit's cocotb example (python/examples/cocotb) with
    /// and without the model under this Python interpreter (one with
    /// cocotb and the gpucosim package installed), on gfx9 (or the
    /// first profile benched), against `gpucosim run`.
    #[arg(long, value_name = "PYTHON")]
    cocotb: Option<PathBuf>,
    /// Cycles of each cocotb run.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 3000, requires = "cocotb")]
    cocotb_cycles: u64,
}

pub(crate) fn run(a: BenchArgs) -> Result<ExitCode> {
    if !a.rss.is_empty() {
        return bench_rss(a.selection, &a.rss, a.rtl.rtl.as_deref());
    }
    bench(
        a.selection,
        (a.cycles, a.seed.seed, a.repeats),
        a.rtl.rtl.as_deref(),
        a.write,
        a.mutate,
        a.cocotb.map(|p| (p, a.cocotb_cycles)),
    )
}

/// `gpucosim bench --rss`: peak memory of runs of each length.
fn bench_rss(selection: Selection, cycles: &[u64], rtl: Option<&Path>) -> Result<ExitCode> {
    let (units, profiles) = selection.or_all()?;
    let exe = regress::own_exe()?;
    let root = gpucosim::rtl_root(rtl);
    println!("| unit | profile | cycles | peak RSS | wall time |");
    println!("|---|---|---:|---:|---:|");
    for u in &units {
        for &p in &profiles {
            with_testbench!(u.as_str(), B => gpucosim::load_rtl::<B>(&root, p, false).map(drop))?;
            for &c in cycles {
                let (mb, t) = gpucosim::benchmark::peak_rss(&exe, u, p, c, rtl)?;
                println!(
                    "| {u} | {p} | {c} | {mb:.1} MB | {:.1} s |",
                    t.as_secs_f64()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--mutate UNIT:PROFILE:N`.
fn parse_mutate_bench(s: &str) -> std::result::Result<(String, Profile, usize), String> {
    let bad = || format!("bad --mutate `{s}`: expected UNIT:PROFILE:N, e.g. waitcnt:gfx9:100");
    let mut it = s.split(':');
    let (Some(u), Some(p), Some(n), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return Err(bad());
    };
    let p: Profile = p.parse().map_err(|_| bad())?;
    let n: usize = n.parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(bad());
    }
    Ok((u.to_string(), p, n))
}

/// `gpucosim bench`: the figures of every unit and profile, and those
/// of the options asked for.
fn bench(
    selection: Selection,
    (cycles, seed, repeats): (u64, u64, usize),
    rtl: Option<&Path>,
    write: Option<PathBuf>,
    mutate: Option<(String, Profile, usize)>,
    cocotb: Option<(PathBuf, u64)>,
) -> Result<ExitCode> {
    use gpucosim::benchmark::{self, BenchReport, BenchSpec, Machine};
    if let Some((python, _)) = &cocotb {
        // A missing interpreter or package is reported before measuring.
        benchmark::check_cocotb(python)?;
    }
    if let Some(w) = &write {
        // Checked before anything is measured.
        gpucosim::probe_file(w, "--write")?;
    }
    let (units, profiles) = selection.or_all()?;
    // Unknown units are reported before anything is built.
    for u in units.iter().chain(mutate.as_ref().map(|m| &m.0)) {
        let (): () = with_testbench!(u.as_str(), B => Ok(()))?;
    }
    let release = !cfg!(debug_assertions);
    if !release {
        tracing::warn!("this gpucosim was built without optimisations; the figures mean little (use `cargo run --release -- bench`)");
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
        rtl_root: gpucosim::rtl_root(rtl),
        work_dir: work.path().to_path_buf(),
    };
    spec.validate()?;
    let exe = regress::own_exe()?;
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    for u in &units {
        for &p in &profiles {
            tracing::info!("bench {u} {p}: building and measuring…");
            let fig: benchmark::UnitFigures =
                with_testbench!(u.as_str(), B => benchmark::bench_unit::<B>(&spec, p))?;
            tracing::info!(
                "bench {u} {p}: bare {:.0}, shim {:.0}, model {:.0}, lock-step {:.0} (pipelined {:.0}) cycles/s; 4/1 = {:.2}, 5/1 = {:.2}",
                fig.bare, fig.shim, fig.model, fig.lockstep, fig.pipelined, fig.ratio(), fig.pipelined_ratio()
            );
            rows.push(fig);
            starts.push((
                u.clone(),
                p,
                benchmark::cached_start(&exe, u, p, rtl, repeats)?,
            ));
        }
    }
    tracing::info!("bench: regress scaling over 1, 2, 4, … workers…");
    let regress = benchmark::regress_scaling(
        &exe,
        &units,
        &profiles,
        REGRESS_JOB_CYCLES,
        rtl,
        work.path(),
    )
    .map_err(|e| e.to_string());
    let long = cycles.saturating_mul(10);
    tracing::info!("bench: peak memory of runs of {cycles} and {long} cycles…");
    let rss = units
        .iter()
        .flat_map(|u| profiles.iter().map(move |&p| (u, p)))
        .map(|(u, p)| benchmark::rss_figures(&exe, u, p, (cycles, long), rtl))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.to_string());
    let cocotb = match cocotb {
        None => None,
        Some((python, n)) => {
            let p = if profiles.contains(&Profile::Gfx9) {
                Profile::Gfx9
            } else {
                profiles[0]
            };
            tracing::info!(
                "bench: the cocotb examples on {p}, {n} cycles, with and without the model…"
            );
            let build = gpucosim::cache_root().join("cocotb-bench");
            let rows =
                benchmark::bench_cocotb(&python, &units, p, seed, n, &spec.rtl_root, &build)?;
            for c in &rows {
                for r in [&c.with_model, &c.without_model] {
                    if let Err(e) = r {
                        tracing::warn!("cocotb {} {}: {e}", c.unit, c.profile);
                    }
                }
            }
            Some(rows)
        }
    };
    let mutate = match mutate {
        None => None,
        Some((u, p, n)) => {
            tracing::info!("bench: a mutation campaign of {n} mutants of {u} {p}…");
            Some(with_testbench!(u.as_str(), B => benchmark::bench_mutate::<B>(&exe, p, n, rtl))?)
        }
    };
    let report = BenchReport {
        mutate,
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
        rss,
        cocotb,
    };
    print!(
        "{}\n{}\n{}\nRepeated figures:\n{}\n{}\n{}\n",
        report.table(),
        report.cycle_cost_table(),
        report.rounds_table(),
        report.repeated(),
        report.dump_table(),
        report.rss_table()
    );
    if let Some(t) = report.cocotb_table() {
        println!("{t}");
    }
    print!("{}", report.targets());
    if let Some(path) = write {
        gpucosim::write_atomic(&path, report.markdown().as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
