//! gpucosim: lock-step co-simulation of the Rust reference models in
//! `gpucosim-model` against SystemVerilog RTL compiled by Verilator.
//!
//! The pieces: [`verilator`] finds (or provisions) Verilator; [`rtlbuild`]
//! generates the C++ shim from a unit's port table and builds the RTL into a
//! cached shared library; [`rtl`] drives it; [`bench`] defines stimulus;
//! [`engine`] runs model and RTL in lock-step and reports divergences, with
//! waveforms from `gpucosim-waves`.
#![warn(missing_docs)]

pub mod bench;
pub mod benchmark;
pub mod engine;
pub mod error;
pub mod regress;
pub mod rtl;
pub mod rtlbuild;
pub mod units;
pub mod verilator;

use bench::Testbench;
use engine::{Outcome, RunSpec, Stimulus};
use error::Result;
use std::path::{Path, PathBuf};

/// Builds (or loads from the cache) unit `B`'s RTL from `rtl_root` and
/// returns a fresh instance.
pub fn load_rtl<B: Testbench>(
    rtl_root: &Path,
    profile: gpucosim_model::Profile,
    trace: bool,
) -> Result<(rtl::Rtl, rtlbuild::Built)> {
    let cache = rtlbuild::cache_root();
    let sources = rtlbuild::RtlSources::collect(rtl_root, B::table().unit)?;
    let v = verilator::Verilator::locate(&cache)?;
    let built = rtlbuild::build(
        &rtlbuild::BuildRequest {
            table: B::table(),
            profile,
            sources: &sources,
            trace,
        },
        &v,
        &cache,
    )?;
    let r = rtl::Rtl::load(&built.lib, B::table())?;
    Ok((r, built))
}

/// A complete run: build or load the RTL, run lock-step; with `trace_rtl`,
/// a divergent run is replayed on a tracing build of the RTL to write the
/// RTL's internal signals over the same window to `<name>.rtl.vcd`.
pub fn simulate<B: Testbench>(
    spec: &RunSpec,
    stimulus: Stimulus<B::Txn>,
    trace_rtl: bool,
) -> Result<(Outcome<B::Txn>, Option<PathBuf>)> {
    let root = rtlbuild::rtl_root(spec.rtl_arg.as_deref());
    let (mut r, _) = load_rtl::<B>(&root, spec.profile, false)?;
    let out = engine::run::<B>(spec, &mut r, stimulus, None)?;
    let mut rtl_vcd = None;
    if trace_rtl && !out.passed() {
        if let Some(dir) = &spec.waves {
            let first = out.mismatches[0].cycle;
            let from = first.saturating_sub(spec.window as u64 - 1);
            let until = first + spec.post;
            let path = dir.join(format!("{}.rtl.vcd", spec.name()));
            let (mut tr, _) = load_rtl::<B>(&root, spec.profile, true)?;
            let mut replay_spec = spec.clone();
            replay_spec.waves = None;
            replay_spec.dump_all = false;
            replay_spec.cycles = until + 1;
            engine::run::<B>(
                &replay_spec,
                &mut tr,
                Stimulus::Replay(out.txns.clone()),
                Some((&path, from, until)),
            )?;
            rtl_vcd = Some(path);
        }
    }
    Ok((out, rtl_vcd))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, renamed into place, so readers never see a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| error::Error::io(dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| error::Error::io(dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| error::Error::io(path, e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| error::Error::io(path, e))?;
    tmp.persist(path)
        .map_err(|e| error::Error::io(path, e.error))?;
    Ok(())
}
