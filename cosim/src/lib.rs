//! gpucosim: lock-step co-simulation of the Rust reference models in
//! `gpucosim-model` against SystemVerilog RTL compiled by Verilator.
//!
//! The public surface is the modules a command is made of ([`engine`]:
//! lock-step runs; [`regress`]: regressions and their results files;
//! [`kernel`]: kernels as stimulus and the hazard proof; [`mutate`]:
//! mutation campaigns; [`benchmark`]: `gpucosim bench`; [`cache`]: the
//! build cache's listing and pruning; [`cli`]: the command line, whose
//! [`cli::main`] is the `gpucosim` binary's), the model side of a testbench
//! (re-exported from `gpucosim-tb`: [`testbench`], [`units`], [`error`]),
//! and, at the root, the few pieces of the machinery a caller needs: finding
//! Verilator ([`Verilator`]), building a unit's RTL into a cached library
//! ([`build_rtl`], [`RtlSources`], [`cache_root`]), driving it ([`Rtl`]),
//! the limits and signals that end a run ([`Limits`],
//! [`catch_stop_signals`]), and writing results ([`write_atomic`],
//! [`report`], [`write_bundle`]).
#![warn(missing_docs)]
// rustdoc works out the auto traits of sv-parser's deep syntax tree.
#![recursion_limit = "256"]

// The command line's modules name this crate `gpucosim::`, as its users do.
extern crate self as gpucosim;

pub mod benchmark;
pub mod cache;
pub mod cli;
pub mod codecov;
pub mod engine;
pub mod job_times;
pub mod kernel;
pub mod mutate;
pub mod regress;

#[doc(hidden)]
pub mod bundle;
#[doc(hidden)]
pub mod decoded;
#[doc(hidden)]
pub mod fst_vcd;
mod outputs;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod repro;
#[doc(hidden)]
pub mod rtl;
#[doc(hidden)]
pub mod rtlbuild;
#[doc(hidden)]
pub mod verilator;
#[doc(hidden)]
pub mod watchdog;

pub use bundle::write_bundle;
pub use gpucosim_tb::{draw, error, produce_batch_impl, testbench, units, with_testbench};
pub use outputs::{probe_dir, probe_file, refuse_overwrite, same_file, write_atomic};
pub use report::report;
pub use repro::ReproCommand;
pub use rtl::{Rtl, RtlEnd, STATUS_TEXT};
pub use rtlbuild::{
    build as build_rtl, build_bare, builtin_rtl_root, cache_root, lint as lint_rtl, rtl_root,
    sources_hash, BuildRequest, Built, RtlSources,
};
pub use verilator::Verilator;
pub use watchdog::{catch_stop_signals, catch_stop_signals_quietly, signalled, Limits};

use engine::{Outcome, RunSpec, Stimulus};
use error::Result;
use std::path::{Path, PathBuf};
use testbench::Testbench;

/// Builds (or loads from the cache) unit `B`'s RTL from `rtl_root` and
/// returns a fresh instance.
pub fn load_rtl<B: Testbench>(
    rtl_root: &Path,
    profile: gpucosim_model::Profile,
    trace: bool,
) -> Result<(Rtl, Built)> {
    let cache = rtlbuild::cache_root();
    let sources = rtlbuild::RtlSources::collect(rtl_root, B::table().unit)?;
    let v = verilator::Verilator::locate(&cache)?;
    let built = rtlbuild::build(
        &rtlbuild::BuildRequest {
            table: B::table(),
            profile,
            sources: &sources,
            trace,
            coverage: false,
        },
        &v,
        &cache,
    )?;
    let r = rtl::Rtl::load(&built.lib, B::table())?;
    Ok((r, built))
}

/// A complete run: build or load the RTL, run lock-step; with `trace_rtl`,
/// a run that did not pass is replayed on a tracing build of the RTL to
/// write the RTL's internal signals over the waveform's window to
/// `<name>.rtl.vcd` (same window, same time scale).
pub fn simulate<B: Testbench>(
    spec: &RunSpec,
    stimulus: Stimulus<B::Txn>,
    trace_rtl: bool,
) -> Result<(Outcome<B::Txn>, Option<PathBuf>)> {
    let root = rtlbuild::rtl_root(spec.rtl_arg.as_deref());
    let (mut r, _) = load_rtl::<B>(&root, spec.profile, false)?;
    let again = trace_rtl.then(|| stimulus.first(usize::MAX));
    let mut out = engine::run::<B>(spec, &mut r, stimulus, None)?;
    let mut rtl_vcd = None;
    if let (Some(again), Some(dir), Some((from, until))) = (again, &spec.waves, out.window) {
        let path = dir.join(format!("{}.rtl.vcd", spec.name()));
        let (mut tr, _) = load_rtl::<B>(&root, spec.profile, true)?;
        let mut replay_spec = spec.clone();
        replay_spec.waves = None;
        replay_spec.dump_all = false;
        replay_spec.cycles = until + 1;
        // Run on to the end of the window whatever happens before it.
        replay_spec.post = until + 1;
        replay_spec.max_mismatches = usize::MAX;
        engine::run::<B>(
            &replay_spec,
            &mut tr,
            again.first(out.txn_count),
            Some((&path, from, until)),
        )?;
        let focus = engine::focus_cycle(&out.mismatches, &out.end).unwrap_or(from);
        let title = format!("{}: the RTL's internal signals", spec.name());
        match gpucosim_waves::session::write_trace_sessions(
            &path,
            B::table().top,
            focus,
            (from, until),
            &title,
        ) {
            Ok(mut p) => out.sessions.append(&mut p),
            Err(e) => {
                out.vcd_error = Some(format!(
                    "the viewer sessions beside {}: {e}",
                    path.display()
                ))
            }
        }
        rtl_vcd = Some(path);
    }
    Ok((out, rtl_vcd))
}

/// The first item of `items` that an earlier one equals: a unit, profile
/// or kernel named twice, which would run its jobs twice.
pub fn first_repeat<T: PartialEq>(items: &[T]) -> Option<&T> {
    items
        .iter()
        .enumerate()
        .find(|(i, x)| items[..*i].contains(x))
        .map(|(_, x)| x)
}
