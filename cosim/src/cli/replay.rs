//! `gpucosim replay` and `gpucosim shrink`: a failure bundle's stimulus
//! run again, or minimised to one that still diverges.

use super::args::{RtlArg, WavesArgs};
use super::regress::status_word;
use gpucosim::engine;
use gpucosim::error::Result;
use gpucosim::{regress, with_testbench};
use std::path::PathBuf;
use std::process::ExitCode;

/// A failure bundle, and whether its RTL may have changed.
#[derive(clap::Args)]
struct BundleArgs {
    /// Bundle directory (or its repro.json).
    bundle: PathBuf,
    /// Go on even though the RTL changed since the bundle was written.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    bundle: BundleArgs,
    #[command(flatten)]
    rtl: RtlArg,
    #[command(flatten)]
    waves: WavesArgs,
}

#[derive(clap::Args)]
pub(crate) struct ShrinkArgs {
    /// Where to write the shrunk bundle (default: BUNDLE.shrunk).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    bundle: BundleArgs,
}

/// `gpucosim replay`: the bundle's stimulus on its RTL (or `--rtl`'s).
pub(crate) fn replay(a: ReplayArgs) -> Result<ExitCode> {
    let repro = regress::Repro::load(&a.bundle.bundle)?;
    let force = a.bundle.force;
    with_testbench!(repro.unit.as_str(), B => replay_on::<B>(&repro, force, a.rtl, a.waves))
}

/// `gpucosim shrink`: the bundle's stimulus minimised into a new bundle.
pub(crate) fn shrink(a: ShrinkArgs) -> Result<ExitCode> {
    let BundleArgs { bundle, force } = a.bundle;
    let repro = regress::Repro::load(&bundle)?;
    let out = a.out.unwrap_or_else(|| {
        let mut s = bundle.clone().into_os_string();
        s.push(".shrunk");
        PathBuf::from(s)
    });
    gpucosim::refuse_overwrite(&out, "--out", &bundle)?;
    // Checked before the replays, and not left behind made for nothing.
    let existed = out.exists();
    gpucosim::probe_dir(&out, "--out")?;
    let shrunk = with_testbench!(repro.unit.as_str(), B => (|| {
        regress::check_rtl_hash::<B>(&repro, &repro.rtl_dir, force)?;
        let libs = regress::LibCache::default();
        let (lib, _) = libs.get::<B>(&repro.rtl_dir, repro.profile)?;
        regress::shrink::<B>(&repro, &lib, &out)
    })());
    let s = match shrunk {
        Ok(s) => s,
        Err(e) => {
            if !existed {
                let _ = std::fs::remove_dir(&out);
            }
            return Err(e);
        }
    };
    let label = repro
        .label
        .as_deref()
        .map(|l| format!(".{l}"))
        .unwrap_or_default();
    println!(
        "shrunk {}.{}{label}.{}: {}",
        repro.unit,
        repro.profile,
        repro.seed,
        s.summary()
    );
    println!("bundle: {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn replay_on<B: gpucosim::testbench::Testbench>(
    repro: &regress::Repro,
    force: bool,
    rtl: RtlArg,
    waves: WavesArgs,
) -> Result<ExitCode> {
    let root = rtl.rtl.unwrap_or_else(|| repro.rtl_dir.clone());
    regress::check_rtl_hash::<B>(repro, &root, force)?;
    waves.probe()?;
    let libs = regress::LibCache::default();
    let (lib, _) = libs.get::<B>(&root, repro.profile)?;
    let mut r = repro.clone();
    r.rtl_dir = root;
    gpucosim::catch_stop_signals();
    let mut spec = r.spec(waves.waves.as_deref());
    spec.waves_format = waves.waves_format;
    let mut rtl = gpucosim::Rtl::load(&lib, B::table())?;
    let out = engine::run::<B>(&spec, &mut rtl, repro.stimulus::<B>()?, None)?;
    let name = repro.name();
    if out.passed() {
        println!(
            "PASS {name}: the {} recorded transactions no longer fail ({} cycles)",
            repro.transaction_count, out.cycles
        );
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", gpucosim::report(&spec, &out, B::table()));
    if let Some(e) = &out.vcd_error {
        eprintln!("error: the waveform was not written: {e}");
    }
    let how = match out.mismatches.first() {
        Some(m) => format!("cycle {} on {}", m.cycle, m.signal),
        None => regress::job_message(&out),
    };
    println!(
        "{} {name}: {} ({how})",
        status_word(out.verdict().into()),
        if repro.same_failure(&out) {
            "reproduced exactly as recorded"
        } else {
            "fails, but not as recorded"
        },
    );
    Ok(ExitCode::from(out.exit_code()))
}
