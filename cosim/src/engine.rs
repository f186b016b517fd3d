//! The lock-step engine.
//!
//! Each cycle the driver sets the inputs, the model and the RTL step on the
//! same inputs, and the two output buffers are compared as packed words.
//! The first divergence (or the first `max_mismatches`) ends the run a few
//! cycles later, so the waveform shows what followed. The waveform's
//! window is not copied cycle by cycle: the engine keeps the RTL's outputs
//! of the cycles where they differ, and a failing run makes the window's
//! inputs and model outputs again by running driver and model alone (as it
//! does for the report's context). The report names the cycle, the signal, both values
//! (decoded per element for array ports), the transaction in flight and the
//! command that reproduces it.
//!
//! A run also ends, with a report of its own kind ([`End`]), when the RTL
//! ends the simulation (`$finish`, `$stop`, `$error`, `$fatal`, a Verilator
//! runtime error), when it stops making progress or the run's time is up
//! (the watchdog, [`Limits`]), or on SIGINT/SIGTERM. Memory does not grow with
//! the length of a run: the transactions consumed are counted, not kept (a
//! seed's stimulus is reproducible, see [`fresh_txns`]).

use crate::error::{Error, Result};
pub use crate::repro::{shell_quote, ReproCommand};
use crate::rtl::{Rtl, RtlEnd, STATUS_TEXT};
use crate::testbench::{Drive, Index, Testbench};
use crate::watchdog::{self, Guard, Limits, StopReason};
use gpucosim_model::ports::{Dir, Port, PortTable};
use gpucosim_model::{Coverage, Profile};
pub use gpucosim_tb::run::{
    fresh_txns, parse_knobs, record_inputs, ModelRun, Stimulus, ONE_THREAD_BATCH, RESET_CYCLES,
};
use gpucosim_waves::session::{self, View};
use gpucosim_waves::text;
use gpucosim_waves::{Capture, Dump, Frame, Layout, Meta, WaveFormat};
use serde::Serialize;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Unit name.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Seed of the random stimulus.
    pub seed: u64,
    /// What the run is of, when not the unit's random stimulus (a kernel's
    /// name), in its name: `UNIT.PROFILE.LABEL.SEED`.
    pub label: Option<String>,
    /// Cycle budget (reset included).
    pub cycles: u64,
    /// `--rtl` as given, for the repro command.
    pub rtl_arg: Option<PathBuf>,
    /// Directory for waveforms (none: no waveform is written).
    pub waves: Option<PathBuf>,
    /// The waveforms' format (and extension).
    pub waves_format: WaveFormat,
    /// Ring window in cycles.
    pub window: usize,
    /// Cycles recorded past the divergence.
    pub post: u64,
    /// Dump the whole run, not only the window around a divergence.
    pub dump_all: bool,
    /// Divergences to collect before stopping.
    pub max_mismatches: usize,
    /// `--knob name=value` pairs.
    pub knobs: Vec<(String, String)>,
    /// Run driver and model on a second thread, ahead of the RTL (same
    /// outcome, less wall time when a second CPU is free).
    pub pipeline: bool,
    /// Time limit and stall limit.
    pub limits: Limits,
    /// Step the RTL with one call into the shim per cycle, and on one
    /// thread produce one cycle at a time, instead of stepping every run of
    /// matching cycles in one call: the same outcome, more slowly (the
    /// engine's tests compare the two).
    pub step_each_cycle: bool,
    /// The command that reproduces this run, when it is not a `gpucosim
    /// run` of the seed (a bundle's replay, a kernel's `kernel run`).
    pub reproduce: Option<ReproCommand>,
    /// The stimulus version the seed draws ([`crate::draw`]): the current
    /// one, or a bundle's when it replays one recorded under an older one.
    pub stimulus: u32,
}

/// Whether a second CPU is idle now: at least two CPUs are available to
/// this process and the load average over the last minute leaves one and a
/// half of them free (a CPU another process keeps busy would make a second
/// thread of the run wait for it, and the pipeline then costs more than it
/// saves). `gpucosim run` pipelines by default when this holds at its start.
pub fn second_cpu_idle() -> bool {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok());
    idle_cpu(cpus, load)
}

/// [`second_cpu_idle`] for `cpus` CPUs and a one-minute load average (none
/// when it cannot be read: then only the CPU count decides).
#[doc(hidden)]
pub fn idle_cpu(cpus: usize, load: Option<f64>) -> bool {
    cpus >= 2 && load.is_none_or(|l| l + 1.5 <= cpus as f64)
}

impl RunSpec {
    /// A spec with the defaults of `gpucosim run` for one seed.
    pub fn new(unit: &str, profile: Profile, seed: u64, cycles: u64) -> RunSpec {
        RunSpec {
            unit: unit.to_string(),
            profile,
            seed,
            label: None,
            cycles,
            rtl_arg: None,
            waves: None,
            waves_format: WaveFormat::Vcd,
            window: 1024,
            post: 8,
            dump_all: false,
            max_mismatches: 1,
            knobs: Vec::new(),
            pipeline: false,
            limits: Limits::default(),
            step_each_cycle: false,
            reproduce: None,
            stimulus: crate::draw::STIMULUS_VERSION,
        }
    }

    /// `UNIT.PROFILE.SEED` (`UNIT.PROFILE.LABEL.SEED` with a label), the
    /// name of this run everywhere.
    pub fn name(&self) -> String {
        match &self.label {
            Some(l) => format!("{}.{}.{l}.{}", self.unit, self.profile, self.seed),
            None => format!("{}.{}.{}", self.unit, self.profile, self.seed),
        }
    }

    /// The command that reproduces this run: [`RunSpec::reproduce`], else
    /// `gpucosim run` of its seed.
    pub fn repro(&self) -> ReproCommand {
        if let Some(r) = &self.reproduce {
            return r.clone();
        }
        ReproCommand::Run {
            unit: self.unit.clone(),
            profile: self.profile,
            seed: self.seed,
            cycles: self.cycles,
            rtl: self.rtl_arg.clone(),
            knobs: self.knobs.clone(),
            waves: self.waves.clone(),
            waves_format: self.waves_format,
        }
    }

    /// The command that reproduces this run, as text.
    pub fn repro_command(&self) -> String {
        self.repro().to_string()
    }
}

/// One differing output in one cycle.
#[derive(Debug, Clone, Serialize)]
pub struct Mismatch {
    /// Cycle number (reset cycles included).
    pub cycle: u64,
    /// Output port.
    pub signal: String,
    /// Model value (hex).
    pub model: String,
    /// RTL value (hex).
    pub rtl: String,
    /// `rst_ni` was low in that cycle.
    pub in_reset: bool,
    /// What an element (or a bit of a mask) of the port stands for, when
    /// the unit says ([`Testbench::index`]).
    pub index: Option<Index>,
    /// The differing elements of an array port, or the differing bits of a
    /// mask (a flat port with an index): `(index, model, rtl)` in hex, in
    /// order.
    pub elements: Vec<(usize, String, String)>,
}

impl Mismatch {
    /// The element (lane, wave, …) the divergence is first seen in, when
    /// the port says what its elements are.
    pub fn focus(&self) -> Option<(Index, usize)> {
        let ix = self.index?;
        self.elements.first().map(|e| (ix, ix.item(e.0)))
    }
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum End {
    /// The cycle budget was used up, or a replay's transactions were done.
    Completed,
    /// The divergences asked for were collected (and `post` cycles after).
    Diverged,
    /// The RTL ended the simulation in cycle `cycle`.
    Rtl {
        /// The cycle.
        cycle: u64,
        /// How.
        how: RtlEnd,
        /// Verilator's message and where it came from.
        message: String,
    },
    /// The RTL's step in cycle `cycle` did not return and was aborted
    /// (`timeout`: because the run's time was up; otherwise no progress
    /// within the stall limit).
    Hang {
        /// The cycle.
        cycle: u64,
        /// The limit that ran out, in seconds.
        seconds: f64,
        /// Whether it was the run's time limit (else the stall limit).
        timeout: bool,
    },
    /// The run's time ran out (or a cycle outside the RTL took longer than
    /// the stall limit) before cycle `cycle`.
    Timeout {
        /// The first cycle not run.
        cycle: u64,
        /// The limit, in seconds.
        seconds: f64,
    },
    /// SIGINT or SIGTERM before cycle `cycle`.
    Interrupted {
        /// The first cycle not run.
        cycle: u64,
        /// The signal.
        signal: i32,
    },
}

/// The signal's name (`SIGTERM`).
pub fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        s => format!("signal {s}"),
    }
}

/// How a run that did not complete ended, in words: `kind` (`RTL ERROR`,
/// `HANG`, ...), `when` (`at cycle 12`) and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headline {
    /// `RTL FINISH`, `RTL ERROR`, `HANG`, `TIMEOUT` or `INTERRUPTED`.
    pub kind: &'static str,
    /// `at cycle N` or `before cycle N`.
    pub when: String,
    /// What happened.
    pub what: String,
}

impl Headline {
    /// The headline of `end`; `None` for a run that completed.
    pub fn of(end: &End) -> Option<Headline> {
        let (kind, when, what) = match end {
            End::Completed | End::Diverged => return None,
            End::Rtl {
                cycle,
                how: RtlEnd::Finish,
                message,
            } => (
                "RTL FINISH",
                format!("at cycle {cycle}"),
                format!("the RTL ended the simulation: {message}"),
            ),
            End::Rtl {
                cycle,
                how: RtlEnd::Stop,
                message,
            } => (
                "RTL ERROR",
                format!("at cycle {cycle}"),
                format!("the RTL stopped the simulation: {message}"),
            ),
            End::Rtl { cycle, message, .. } => (
                "RTL ERROR",
                format!("at cycle {cycle}"),
                format!("Verilator: {message}"),
            ),
            End::Hang {
                cycle,
                seconds,
                timeout,
            } => (
                "HANG",
                format!("at cycle {cycle}"),
                format!(
                    "the RTL's eval() did not return within {}; the step was aborted",
                    if *timeout {
                        format!("the run's time limit of {seconds} s")
                    } else {
                        format!("the stall limit of {seconds} s")
                    }
                ),
            ),
            End::Timeout { cycle, seconds } => (
                "TIMEOUT",
                format!("before cycle {cycle}"),
                format!("the run's time limit of {seconds} s ran out"),
            ),
            End::Interrupted { cycle, signal } => (
                "INTERRUPTED",
                format!("before cycle {cycle}"),
                format!("stopped by {}", signal_name(*signal)),
            ),
        };
        Some(Headline { kind, when, what })
    }

    /// `KIND in NAME WHEN: WHAT`.
    pub fn line(&self, name: &str) -> String {
        format!("{} in {name} {}: {}", self.kind, self.when, self.what)
    }
}

/// What a run means for its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Model and RTL agreed over the whole run.
    Passed,
    /// Model and RTL diverged.
    Diverged,
    /// The RTL ended the simulation (`$finish`, `$stop`, `$error`,
    /// `$fatal`, a Verilator runtime error).
    RtlError,
    /// The run's time ran out or the RTL stopped making progress.
    Timeout,
    /// Stopped by SIGINT or SIGTERM before it could finish.
    Interrupted,
}

/// Exit code: model and RTL agree.
pub const EXIT_PASS: u8 = 0;
/// Exit code: divergence.
pub const EXIT_DIVERGED: u8 = 1;
/// Exit code: bad input or environment (or, for `regress` and `merge`, an
/// output that could not be written).
pub const EXIT_INPUT: u8 = 2;
/// Exit code: the RTL ended the simulation.
pub const EXIT_RTL_ERROR: u8 = 3;
/// Exit code: time limit or no progress.
pub const EXIT_TIMEOUT: u8 = 4;

impl Verdict {
    /// The process exit code of a run with this verdict (`signal` for an
    /// interrupted one: 128 + the signal).
    pub fn exit_code(self, signal: i32) -> u8 {
        match self {
            Verdict::Passed => EXIT_PASS,
            Verdict::Diverged => EXIT_DIVERGED,
            Verdict::RtlError => EXIT_RTL_ERROR,
            Verdict::Timeout => EXIT_TIMEOUT,
            Verdict::Interrupted => (128 + signal.clamp(1, 127)) as u8,
        }
    }
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct Outcome<T> {
    /// Cycles simulated.
    pub cycles: u64,
    /// Transactions consumed: for a fresh run, the first this many of the
    /// seed's stimulus ([`fresh_txns`]); for a replay, of its list.
    pub txn_count: usize,
    /// Whether a replay ran to its end: every transaction consumed, the
    /// unit idle after the last, and the few cycles after that shown
    /// (false for a fresh run, and for a replay that the cycle budget, a
    /// divergence or anything else ended first).
    pub replay_finished: bool,
    /// Divergences, in order.
    pub mismatches: Vec<Mismatch>,
    /// Why the run ended.
    pub end: End,
    /// The transaction in flight at the first divergence (or at the end of
    /// a run that did not complete), with its index.
    pub in_flight: Option<(usize, T)>,
    /// Its structured inputs decoded, a line each ([`Testbench::describe`]).
    pub in_flight_decoded: Vec<String>,
    /// The model's description of its state then (before the edge that
    /// ends that cycle, as the waveform shows the cycle).
    pub state: Option<String>,
    /// A text waveform of the diverging ports over the last cycles up to
    /// the divergence, model above RTL.
    pub trace: Option<String>,
    /// Viewer sessions written next to the waveform.
    pub sessions: Vec<PathBuf>,
    /// The waveform written (VCD or FST), if any.
    pub vcd: Option<PathBuf>,
    /// The first and last cycle of the waveform's window.
    pub window: Option<(u64, u64)>,
    /// Why the waveform could not be written, if it could not.
    pub vcd_error: Option<String>,
    /// The last lines the RTL printed.
    pub rtl_text: Vec<String>,
    /// The model's coverage.
    pub coverage: Coverage,
    /// Wall time of the cycle loop.
    pub elapsed: Duration,
}

impl<T> Outcome<T> {
    /// Cycles per second of the loop.
    pub fn rate(&self) -> f64 {
        self.cycles as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Whether model and RTL agreed over the whole run.
    pub fn passed(&self) -> bool {
        self.verdict() == Verdict::Passed
    }
    /// What the run means: a divergence wins over how the run ended.
    pub fn verdict(&self) -> Verdict {
        if !self.mismatches.is_empty() {
            return Verdict::Diverged;
        }
        match self.end {
            End::Completed | End::Diverged => Verdict::Passed,
            End::Rtl { .. } => Verdict::RtlError,
            End::Hang { .. } | End::Timeout { .. } => Verdict::Timeout,
            End::Interrupted { .. } => Verdict::Interrupted,
        }
    }
    /// The signal that interrupted the run, if one did.
    pub fn signal(&self) -> i32 {
        match self.end {
            End::Interrupted { signal, .. } => signal,
            _ => 0,
        }
    }
    /// The process exit code for this run.
    pub fn exit_code(&self) -> u8 {
        self.verdict().exit_code(self.signal())
    }
    /// The cycle at which the run ended abnormally, if it did.
    pub fn end_cycle(&self) -> Option<u64> {
        match self.end {
            End::Completed | End::Diverged => None,
            End::Rtl { cycle, .. }
            | End::Hang { cycle, .. }
            | End::Timeout { cycle, .. }
            | End::Interrupted { cycle, .. } => Some(cycle),
        }
    }
}

/// What `gpucosim run --json` writes: one run's result, keys in sorted
/// order, one per field below.
#[derive(Debug, Serialize)]
pub struct RunRecord<'a> {
    /// The run's name (`UNIT-PROFILE-sSEED`).
    pub name: String,
    /// Its unit.
    pub unit: &'a str,
    /// Its profile.
    pub profile: Profile,
    /// Its seed.
    pub seed: u64,
    /// Cycles simulated.
    pub cycles: u64,
    /// Transactions consumed.
    pub transactions: usize,
    /// What the run means.
    pub verdict: Verdict,
    /// Whether model and RTL agreed over the whole run.
    pub passed: bool,
    /// Why the run ended.
    pub end: &'a End,
    /// Divergences, in order.
    pub mismatches: &'a [Mismatch],
    /// The waveform written, if any.
    pub vcd: Option<&'a Path>,
    /// The first and last cycle of its window.
    pub vcd_window: Option<(u64, u64)>,
    /// Why the waveform could not be written, if it could not.
    pub vcd_error: Option<&'a str>,
    /// The RTL's own trace (`--trace-rtl`), if written.
    pub rtl_vcd: Option<&'a Path>,
    /// The last lines the RTL printed.
    pub rtl_output: &'a [String],
    /// Cycles per second of the loop.
    pub cycles_per_second: f64,
    /// The command that runs it again.
    pub reproduce: String,
    /// Hits per coverage bin, by name.
    pub coverage: std::collections::BTreeMap<String, u64>,
}

impl<'a> RunRecord<'a> {
    /// The record of run `spec`, which ended as `out`, with the RTL's own
    /// trace at `rtl_vcd`.
    pub fn of<T>(spec: &'a RunSpec, out: &'a Outcome<T>, rtl_vcd: Option<&'a Path>) -> Self {
        RunRecord {
            name: spec.name(),
            unit: &spec.unit,
            profile: spec.profile,
            seed: spec.seed,
            cycles: out.cycles,
            transactions: out.txn_count,
            verdict: out.verdict(),
            passed: out.passed(),
            end: &out.end,
            mismatches: &out.mismatches,
            vcd: out.vcd.as_deref(),
            vcd_window: out.window,
            vcd_error: out.vcd_error.as_deref(),
            rtl_vcd,
            rtl_output: &out.rtl_text,
            cycles_per_second: out.rate(),
            reproduce: spec.repro_command(),
            coverage: out.coverage.by_name(),
        }
    }

    /// The record as pretty-printed JSON, keys sorted.
    pub fn to_json(&self) -> String {
        // Through a `Value`, whose maps are sorted: the file's key order
        // does not follow the struct's.
        let v = serde_json::to_value(self).expect("a run record is JSON");
        serde_json::to_string_pretty(&v).expect("JSON")
    }
}

/// Chunks between the two threads: how far driver and model may run ahead.
const CHUNKS: usize = 4;
/// Bytes of a chunk's inputs and expected outputs the chunk size aims at.
const CHUNK_BYTES: usize = 256 << 10;

/// Cycles per chunk handed from the producing thread to the checking one,
/// for `words` input and output words a cycle: as many as fill
/// 256 KiB (a power of two, 256 to 4,096). A hand-over costs the
/// checking thread a wake-up of the producer; units with narrow ports
/// (waitcnt's 28 words) take 2,048 cycles a chunk, wide ones 256.
pub fn chunk_cycles(words: usize) -> usize {
    let fit = CHUNK_BYTES / (4 * words.max(1));
    let pow2 = if fit == 0 { 1 } else { 1 << fit.ilog2() };
    pow2.clamp(256, 4096)
}

/// Lines of RTL text kept for the report.
const TEXT_TAIL: usize = 20;

/// The side of lock-step that checks each cycle: the RTL steps on the
/// produced inputs, the outputs are compared as packed words, the RTL's
/// differing outputs are kept (and a full dump records every cycle), and
/// the end of the run is decided.
struct Checker<'s> {
    spec: &'s RunSpec,
    table: &'static PortTable,
    index: fn(&str) -> Option<Index>,
    rtl: &'s mut Rtl,
    guard: &'s Guard,
    rout: Vec<u32>,
    /// The RTL's outputs in the cycles where they differed from the
    /// model's, oldest first, back to at least the window before the last
    /// cycle checked. In the others they equal the model's, which driver
    /// and model alone make again for the waveform ([`rerun_window`]).
    differing: VecDeque<(u64, Box<[u32]>)>,
    stream: Option<Dump>,
    stream_error: Option<String>,
    rtl_trace: Option<(&'s Path, u64, u64)>,
    tracing_rtl: bool,
    mismatches: Vec<Mismatch>,
    diverging_cycles: usize,
    first_divergence: Option<u64>,
    stop_at: u64,
    replaying: bool,
    done_cycles: u64,
    end: Option<End>,
    /// Cycles run (stepped) so far.
    ran: u64,
    text_tail: VecDeque<String>,
    text_partial: String,
}

impl Checker<'_> {
    /// Keeps the RTL's outputs of `cycle`, which differ from the model's,
    /// and forgets those the window no longer reaches.
    fn keep_differing(&mut self, cycle: u64) {
        let window = self.spec.window.max(1) as u64;
        while self
            .differing
            .front()
            .is_some_and(|(c, _)| c + window <= cycle)
        {
            self.differing.pop_front();
        }
        self.differing
            .push_back((cycle, self.rout.clone().into_boxed_slice()));
    }

    /// Checks cycle `cycle`; returns whether the run goes on to the next.
    #[inline]
    fn check(&mut self, cycle: u64, inp: &[u32], mout: &[u32], status: Drive) -> Result<bool> {
        if let Some(r) = self.guard.stop() {
            self.end = Some(self.stopped(r, cycle));
            return Ok(false);
        }
        if let Some((path, from, _)) = self.rtl_trace {
            if cycle == from && !self.tracing_rtl {
                self.tracing_rtl = self.rtl.trace_open(path)?;
            }
        }
        let st = self.rtl.step(inp, &mut self.rout);
        self.after_step(cycle, st, inp, mout, status)
    }

    /// How many of the cycles from `first` (whose driver statuses are
    /// `status`) [`Checker::check_many`] may step in one call into the
    /// shim: none while something is done in every cycle (a full dump, the
    /// RTL's own trace) or with [`RunSpec::step_each_cycle`], none from a
    /// replay's first done cycle on (its end is counted cycle by cycle),
    /// and none past the cycle where the run ends.
    fn batchable(&self, first: u64, status: &[Drive]) -> usize {
        if self.stream.is_some()
            || self.rtl_trace.is_some()
            || self.spec.step_each_cycle
            || self.end.is_some()
        {
            return 0;
        }
        let busy = if self.replaying {
            status
                .iter()
                .position(|s| *s != Drive::Busy)
                .unwrap_or(status.len())
        } else {
            status.len()
        };
        let left = self.spec.cycles.min(self.stop_at.saturating_add(1));
        (busy as u64).min(left.saturating_sub(first)) as usize
    }

    /// Checks the cycles of `inp` and `mout` (`status.len()` of them) from
    /// cycle `first` on, as [`Checker::check`] does one by one; returns how
    /// many it checked and whether the run goes on after the last of
    /// them. The cycles whose outputs match and whose step reports
    /// nothing step in one call into the shim, which compares them,
    /// publishes each cycle done for the watchdog and reads the stop flag
    /// between cycles as `check` does; the first one that differs or
    /// reports (text, an end), or the last before a stop request, is then
    /// handled as `check` handles it.
    fn check_many(
        &mut self,
        first: u64,
        inp: &[u32],
        mout: &[u32],
        status: &[Drive],
    ) -> Result<(usize, bool)> {
        let (iw, ow) = (self.table.in_words(), self.table.out_words());
        let n = self.batchable(first, status);
        if n < 2 || self.guard.stop().is_some() {
            let go = self.check(first, &inp[..iw], &mout[..ow], status[0])?;
            return Ok((1, go));
        }
        let (done, st) = self.rtl.run(
            &inp[..n * iw],
            &mout[..n * ow],
            &mut self.rout,
            first,
            self.guard.progress(),
            self.guard.stop_flag(),
        );
        let k = done - 1;
        let cycle = first + k as u64;
        let (i, m) = (&inp[k * iw..(k + 1) * iw], &mout[k * ow..(k + 1) * ow]);
        let go = self.after_step(cycle, st, i, m, status[k])?;
        Ok((done, go))
    }

    /// The rest of [`Checker::check`] once cycle `cycle` stepped with
    /// status `st` (its outputs in `self.rout`).
    #[inline]
    fn after_step(
        &mut self,
        cycle: u64,
        st: u32,
        inp: &[u32],
        mout: &[u32],
        status: Drive,
    ) -> Result<bool> {
        self.ran = cycle + 1;
        self.guard.progress().store(cycle + 1, Ordering::Relaxed);
        let mut compare = true;
        if st != 0 {
            compare = self.rtl_status(st, cycle);
        }
        let same = *mout == *self.rout;
        if !same {
            self.keep_differing(cycle);
        }
        if let Some(w) = &mut self.stream {
            let r = w.frame(&Frame {
                cycle,
                inputs: inp,
                model: mout,
                rtl: &self.rout,
            });
            if let Err(e) = r {
                self.stream_error = Some(format!("{}: {e}", w.path().display()));
                self.stream = None;
            }
        }
        if compare && !same && self.diverging_cycles < self.spec.max_mismatches {
            diff(
                self.table,
                self.index,
                cycle,
                inp,
                mout,
                &self.rout,
                &mut self.mismatches,
            );
            self.first_divergence.get_or_insert(cycle);
            self.diverging_cycles += 1;
            if self.diverging_cycles >= self.spec.max_mismatches {
                self.stop_at = cycle + self.spec.post;
            }
        }
        if let Some((_, _, until)) = self.rtl_trace {
            if self.tracing_rtl && cycle == until {
                self.rtl.trace_close();
                self.tracing_rtl = false;
            }
        }
        if self.end.is_some() {
            return Ok(false);
        }
        if self.replaying && status == Drive::Done {
            // Let the last transaction's effects show for a few cycles.
            self.done_cycles += 1;
            if self.replay_finished() {
                return Ok(false);
            }
        }
        let next = cycle + 1;
        Ok(next < self.spec.cycles && next <= self.stop_at)
    }

    /// Whether the replay ran to its end: done, and the cycles after that
    /// shown.
    fn replay_finished(&self) -> bool {
        self.done_cycles > self.spec.post.max(2)
    }

    /// Handles a nonzero step status; returns whether the cycle's outputs
    /// are valid to compare.
    #[cold]
    fn rtl_status(&mut self, st: u32, cycle: u64) -> bool {
        if st & STATUS_TEXT != 0 {
            let (text, dropped) = self.rtl.take_text();
            self.rtl_text(&text, dropped);
        }
        let Some((how, message)) = self.rtl.ended(st) else {
            return true;
        };
        self.end = Some(match how {
            RtlEnd::Aborted => {
                let timeout = self.guard.stop() == Some(StopReason::Timeout);
                let lim = if timeout {
                    self.spec.limits.timeout
                } else {
                    self.spec.limits.stall
                };
                End::Hang {
                    cycle,
                    seconds: lim.unwrap_or_default().as_secs_f64(),
                    timeout,
                }
            }
            _ => End::Rtl {
                cycle,
                how,
                message,
            },
        });
        // A step that completed ($finish, $stop) produced its outputs.
        matches!(how, RtlEnd::Finish | RtlEnd::Stop)
    }

    /// Passes the RTL's text on to stderr and keeps its last lines.
    fn rtl_text(&mut self, text: &str, dropped: usize) {
        eprint!("{text}");
        self.text_partial.push_str(text);
        while let Some(i) = self.text_partial.find('\n') {
            let line: String = self.text_partial.drain(..=i).collect();
            if self.text_tail.len() == TEXT_TAIL {
                self.text_tail.pop_front();
            }
            self.text_tail
                .push_back(line.trim_end_matches(['\n', '\r']).to_string());
        }
        if dropped > 0 {
            let note = format!("({dropped} bytes of RTL output dropped)");
            eprintln!("{note}");
            self.text_tail.push_back(note);
        }
    }

    fn stopped(&self, r: StopReason, cycle: u64) -> End {
        let secs = |d: Option<Duration>| d.unwrap_or_default().as_secs_f64();
        match r {
            StopReason::Timeout => End::Timeout {
                cycle,
                seconds: secs(self.spec.limits.timeout),
            },
            StopReason::Stalled => End::Timeout {
                cycle,
                seconds: secs(self.spec.limits.stall),
            },
            StopReason::Signal(signal) => End::Interrupted { cycle, signal },
        }
    }
}

/// A batch of produced cycles.
struct Chunk {
    len: usize,
    inp: Vec<u32>,
    mout: Vec<u32>,
    status: Vec<Drive>,
}

/// The per-run machinery shared by fresh runs and replays.
///
/// Driver and model run ahead of the RTL: on this thread by
/// `ONE_THREAD_BATCH` cycles at a time, or with [`RunSpec::pipeline`] on
/// a second thread, up to `CHUNKS` chunks of cycles ahead, handing over
/// their inputs and expected outputs in chunks. This thread steps the RTL
/// over them and checks every cycle the same way in both modes (the
/// cycles that match, in one call into the shim: `Checker::check_many`).
/// When the run ends before the producer's last cycle (a divergence, an
/// end of the RTL, the end of a replay), driver and model are run again
/// alone, without the RTL, up to the last cycle checked, so the
/// transaction in flight, the model state, the transactions consumed and
/// the coverage are those of the cycles checked: the outcome is the same,
/// bit for bit, in both modes.
///
/// A waveform that cannot be written does not fail the run: the outcome says why
/// in [`Outcome::vcd_error`], so the divergence is still reported.
pub fn run<B: Testbench>(
    spec: &RunSpec,
    rtl: &mut Rtl,
    stimulus: Stimulus<B::Txn>,
    rtl_trace: Option<(&Path, u64, u64)>,
) -> Result<Outcome<B::Txn>> {
    let table: &'static PortTable = B::table();
    let knobs = parse_knobs::<B>(&spec.knobs)?;
    if table.ports.first().map(|p| p.name) != Some("rst_ni") {
        return Err(Error::Input(format!(
            "unit {}: the first port must be rst_ni",
            table.unit
        )));
    }
    if spec.cycles == 0 {
        return Err(Error::Input("the cycle budget must be at least 1".into()));
    }
    let replaying = !matches!(stimulus, Stimulus::Fresh);
    let (iw, ow) = (table.in_words(), table.out_words());
    let meta = Meta {
        comments: vec![
            format!("gpucosim {}", spec.name()),
            format!("reproduce: {}", spec.repro_command()),
        ],
    };
    let mut stream_error = None;
    let wave_path =
        |dir: &Path| dir.join(format!("{}.{}", spec.name(), spec.waves_format.extension()));
    let stream = match (&spec.waves, spec.dump_all) {
        (Some(dir), true) => {
            let path = wave_path(dir);
            let layout = crate::decoded::layout::<B>(spec.profile);
            match Dump::with_layout(&path, &layout, &meta, spec.waves_format) {
                Ok(w) => Some(w),
                Err(e) => {
                    stream_error = Some(format!("{}: {e}", path.display()));
                    None
                }
            }
        }
        _ => None,
    };
    let guard = Guard::start(
        spec.limits,
        rtl.abort_handle(),
        watchdog::LastWords {
            name: spec.name(),
            code: EXIT_TIMEOUT as i32,
        },
    );
    let mut chk = Checker {
        spec,
        table,
        index: B::index,
        rtl,
        guard: &guard,
        rout: vec![0u32; ow],
        differing: VecDeque::new(),
        stream,
        stream_error,
        rtl_trace,
        tracing_rtl: false,
        mismatches: Vec::new(),
        diverging_cycles: 0,
        first_divergence: None,
        stop_at: u64::MAX,
        replaying,
        done_cycles: 0,
        end: None,
        ran: 0,
        text_tail: VecDeque::new(),
        text_partial: String::new(),
    };

    // Driver and model on `stim`, drawing the spec's stimulus version.
    let model_run = |stim| {
        ModelRun::<B>::new(spec.profile, spec.seed, &knobs, stim)
            .with_stimulus_version(spec.stimulus)
    };
    let start = Instant::now();
    let prod = model_run(stimulus.again())?;
    let (prod, last, produced) = if spec.pipeline {
        let (res, last, prod, produced) = pipelined(spec.cycles, prod, &mut chk);
        res?;
        (prod, last, produced)
    } else {
        one_thread(spec.cycles, prod, &mut chk)?
    };
    // When driver and model ran past the last cycle checked, their state
    // there is rebuilt by running them again alone up to it: the run that
    // takes the report's context below, or one of its own.
    let mut prod = (last + 1 == produced).then_some(prod);
    // The context of the report: in the diverging cycle (or the last one
    // run), for the diverging lane or wave, as the waveform shows it. The
    // loop ran past it, so driver and model run again alone up to it, and
    // on to the last cycle checked when the window's cycles are wanted (a
    // waveform, or the report's text trace of a divergence).
    let at = chk.first_divergence.or(chk.end.as_ref().map(|_| last));
    let wanted = !chk.mismatches.is_empty()
        || matches!(
            chk.end,
            Some(End::Rtl { .. } | End::Hang { .. } | End::Timeout { .. })
        );
    let frames_wanted = chk.ran > 0
        && (!chk.mismatches.is_empty() || (wanted && spec.waves.is_some() && chk.stream.is_none()));
    let mut capture = Capture::new(table, 1);
    // Why the window's frames could not be made, if so.
    let mut window_error = None;
    // (The version was checked when the run's first ModelRun was made.)
    let context = at
        .map(|at| {
            let focus = chk.mismatches.iter().find_map(Mismatch::focus);
            let mut run = model_run(stimulus.again())?;
            // On to the last cycle checked when it stands in for the
            // producer.
            let to_last = prod.is_none().then_some(last);
            let ctx = if frames_wanted {
                let (ctx, cap) = rerun_window(&mut run, at, to_last, focus, &chk);
                match cap {
                    Ok(cap) => capture = cap,
                    Err(e) => window_error = Some(e.to_string()),
                }
                ctx
            } else {
                run.context_at(at, to_last.unwrap_or(at), focus, |_, _, _| {})
            };
            prod.get_or_insert(run);
            Ok(ctx)
        })
        .transpose()?;
    let prod = match prod {
        Some(p) => p,
        None => {
            let mut p = model_run(stimulus)?;
            let (mut inp, mut mout) = (vec![0u32; iw], vec![0u32; ow]);
            for c in 0..=last {
                p.cycle(c, &mut inp, &mut mout);
            }
            p
        }
    };
    let elapsed = start.elapsed();
    guard.finish();

    if chk.tracing_rtl {
        chk.rtl.trace_close();
    }
    let replay_finished = chk.replay_finished();
    let end = chk.end.take().unwrap_or(if chk.mismatches.is_empty() {
        End::Completed
    } else {
        End::Diverged
    });
    let mut vcd = None;
    let mut window = None;
    let mut vcd_error = chk.stream_error.take();
    let streamed = chk.stream.is_some();
    if let (Some(e), Some(dir), true, false, None) =
        (&window_error, &spec.waves, wanted, streamed, &vcd_error)
    {
        vcd_error = Some(format!("{}: {e}", wave_path(dir).display()));
    }
    if let Some(w) = chk.stream.take() {
        let p = w.path().to_path_buf();
        match w.finish() {
            Ok(()) => vcd = Some(p),
            Err(e) => vcd_error = Some(format!("{}: {e}", p.display())),
        }
    } else if let (Some(dir), true, None) = (&spec.waves, wanted, &vcd_error) {
        let path = wave_path(dir);
        let format = spec.waves_format;
        let layout = crate::decoded::layout::<B>(spec.profile);
        match gpucosim_waves::write_capture_with(&path, &layout, &capture, &meta, format) {
            Ok(()) => vcd = Some(path),
            Err(e) => vcd_error = Some(format!("{}: {e}", path.display())),
        }
    }
    if vcd.is_some() && chk.ran > 0 {
        // The window's cycles: the last `window` cycles checked.
        let last = chk.ran - 1;
        window = Some((window_start(spec, chk.ran), last));
        if spec.dump_all {
            window = Some((0, last));
        }
    }
    // Without the window's frames the report says why instead.
    let trace = match &window_error {
        Some(e) if !chk.mismatches.is_empty() => Some(format!("not shown: {e}")),
        _ => text_trace(table, &capture, &chk.mismatches),
    };
    let mut sessions = Vec::new();
    if let (Some(v), Some(w)) = (&vcd, window) {
        match write_sessions::<B>(spec, v, w, &chk.mismatches, &end) {
            Ok(p) => sessions = p,
            Err(e) => vcd_error = Some(format!("the viewer sessions beside {}: {e}", v.display())),
        }
    }
    let (in_flight, state) = match context {
        Some((t, s)) => (t, Some(s)),
        None => (None, None),
    };
    let mut rtl_text: Vec<String> = chk.text_tail.into();
    if !chk.text_partial.is_empty() {
        rtl_text.push(chk.text_partial);
    }
    let in_flight_decoded = in_flight
        .as_ref()
        .map(|(_, t)| B::describe(spec.profile, t))
        .unwrap_or_default();
    Ok(Outcome {
        in_flight_decoded,
        cycles: chk.ran,
        txn_count: prod.txn_count(),
        replay_finished,
        coverage: prod.coverage().clone(),
        mismatches: chk.mismatches,
        end,
        in_flight,
        state,
        trace,
        sessions,
        vcd,
        window,
        vcd_error,
        rtl_text,
        elapsed,
    })
}

/// The first cycle of the window of a run that checked `ran` cycles.
fn window_start(spec: &RunSpec, ran: u64) -> u64 {
    ran.saturating_sub(spec.window.max(1) as u64)
}

/// Runs driver and model alone again (`run`, fresh) up to the last cycle
/// `chk` checked (or on to cycle `to`), and returns the context in cycle `at` (see
/// [`ModelRun::context_at`]) and the window's cycles as the lock-step run
/// saw them: the inputs and the model's outputs made again (driver and
/// model never look at the RTL, so they are the same), the RTL's outputs
/// the model's where they were equal and the kept ones where not.
fn rerun_window<B: Testbench>(
    run: &mut ModelRun<'_, B>,
    at: u64,
    to: Option<u64>,
    focus: Option<(Index, usize)>,
    chk: &Checker<'_>,
) -> (ContextOf<B>, std::io::Result<Capture>) {
    let from = window_start(chk.spec, chk.ran);
    // As many frames as the window holds: no more than the cycles checked.
    // When they do not fit in memory, the context is still taken.
    let mut capture = Capture::try_new(chk.table, (chk.ran - from) as usize);
    let mut differing = chk.differing.iter().peekable();
    // A run stopped before it stepped cycle `at` checked cycles up to
    // `at - 1` only.
    let until = to.unwrap_or(at.max(chk.ran - 1));
    let ctx = run.context_at(at, until, focus, |c, inp, mout| {
        if c < from || c >= chk.ran {
            return;
        }
        let Ok(capture) = &mut capture else { return };
        while differing.next_if(|(d, _)| *d < c).is_some() {}
        match differing.next_if(|(d, _)| *d == c) {
            Some((_, rtl)) => capture.record_compared(c, inp, mout, rtl, false),
            None => capture.record_compared(c, inp, mout, mout, true),
        }
    });
    (ctx, capture)
}

/// The report's context: the transaction in flight and the model's state.
type ContextOf<B> = (Option<(usize, <B as Testbench>::Txn)>, String);

/// Cycles of the report's text waveform up to the divergence, and after.
const TRACE_BEFORE: u64 = 7;
const TRACE_AFTER: u64 = 2;

/// The bit where two hex values (as in [`Mismatch`]) first differ, from
/// the least significant end.
fn first_diff_bit(a: &str, b: &str) -> u32 {
    let a = a.trim_start_matches("0x").as_bytes();
    let b = b.trim_start_matches("0x").as_bytes();
    let n = a.len().max(b.len());
    let digit = |s: &[u8], k: usize| {
        if k < s.len() {
            s[s.len() - 1 - k]
        } else {
            b'0'
        }
    };
    (0..n).find(|&k| digit(a, k) != digit(b, k)).unwrap_or(0) as u32 * 4
}

/// The report's text waveform: the diverging ports of the first
/// divergence (for an array, its first two diverging elements; for a port
/// wider than 64 bits, the 64 bits holding its first difference), model
/// above RTL, over the last cycles up to it and a few after.
fn text_trace(table: &PortTable, capture: &Capture, mismatches: &[Mismatch]) -> Option<String> {
    let first = mismatches.first()?.cycle;
    let layout = Layout::new(table);
    let mut picks = Vec::new();
    for m in mismatches.iter().filter(|m| m.cycle == first) {
        let Some((d, _)) = table.find(&m.signal) else {
            continue;
        };
        if d.elems > 1 {
            for (e, a, b) in m.elements.iter().take(2) {
                picks.extend(text::Pick::new(
                    &layout,
                    d.name,
                    Some(*e as u32),
                    Some(first_diff_bit(a, b)),
                ));
            }
        } else {
            picks.extend(text::Pick::new(
                &layout,
                d.name,
                None,
                Some(first_diff_bit(&m.model, &m.rtl)),
            ));
        }
    }
    let frames = capture
        .frames()
        .filter(|f| f.cycle + TRACE_BEFORE >= first && f.cycle <= first + TRACE_AFTER);
    Some(text::Trace::from_frames(&layout, frames, &picks).render())
}

/// The cycle a session or report puts its marker on: the first
/// divergence, else the cycle the run ended in.
pub fn focus_cycle(mismatches: &[Mismatch], end: &End) -> Option<u64> {
    mismatches.first().map(|m| m.cycle).or(match end {
        End::Completed | End::Diverged => None,
        End::Rtl { cycle, .. }
        | End::Hang { cycle, .. }
        | End::Timeout { cycle, .. }
        | End::Interrupted { cycle, .. } => Some(*cycle),
    })
}

/// Writes the GTKWave and Surfer sessions of the waveform `vcd` (cycles
/// `window`): the marker on the divergence (or where the run ended), the
/// diverging ports first with their diverging elements (a mask's
/// diverging lanes as their own signals, with the lane's bank or address),
/// masks in binary.
fn write_sessions<B: Testbench>(
    spec: &RunSpec,
    vcd: &Path,
    window: (u64, u64),
    mismatches: &[Mismatch],
    end: &End,
) -> std::io::Result<Vec<PathBuf>> {
    let table = B::table();
    // The layout the waveform was written with.
    let layout = crate::decoded::layout::<B>(spec.profile);
    let focus = focus_cycle(mismatches, end);
    // The diverging elements of an array, or the diverging bits of a mask
    // (each shown as a signal of its own).
    let diverging: Vec<(String, Vec<u32>)> = mismatches
        .iter()
        .filter(|m| Some(m.cycle) == focus)
        .map(|m| {
            let elems = match table.find(&m.signal) {
                Some((d, _)) if d.elems > 1 || m.index.is_some() => {
                    m.elements.iter().map(|e| e.0 as u32).collect()
                }
                _ => Vec::new(),
            };
            (m.signal.clone(), elems)
        })
        .collect();
    let binary = table
        .ports
        .iter()
        .filter(|d| d.elems == 1 && d.elem_width > 1 && B::index(d.name).is_some())
        .map(|d| d.name.to_string())
        .collect();
    let title = match (mismatches.first(), Headline::of(end)) {
        (Some(m), _) => format!(
            "{}: divergence at cycle {} on {}",
            spec.name(),
            m.cycle,
            diverging
                .iter()
                .map(|d| d.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (None, Some(h)) => format!("{}: {} {}", spec.name(), h.kind, h.when),
        (None, None) => spec.name(),
    };
    session::write_sessions(
        vcd,
        &View {
            layout: &layout,
            focus: focus.unwrap_or(window.0),
            window,
            diverging,
            binary,
            items: crate::decoded::items::<B>(),
            title,
        },
    )
}

/// How long the producing thread sleeps between looks for a free chunk.
const FREE_POLL: Duration = Duration::from_micros(20);

/// Runs `prod` and checks its cycles on this thread, [`ONE_THREAD_BATCH`]
/// cycles produced at a time, until the checker ends the run or `cycles`
/// are done. Returns the producer, the last cycle checked and the cycles
/// produced.
fn one_thread<'a, B: Testbench>(
    cycles: u64,
    mut prod: ModelRun<'a, B>,
    chk: &mut Checker<'_>,
) -> Result<(ModelRun<'a, B>, u64, u64)> {
    let table = B::table();
    let (iw, ow) = (table.in_words(), table.out_words());
    let batch = if chk.spec.step_each_cycle {
        1
    } else {
        ONE_THREAD_BATCH
    };
    let mut inp = vec![0u32; batch * iw];
    let mut mout = vec![0u32; batch * ow];
    let mut status = vec![Drive::Busy; batch];
    let mut cycle = 0u64;
    // The checker ends the run at the budget's last cycle at the latest.
    while cycle < cycles {
        let n = (batch as u64).min(cycles - cycle) as usize;
        B::produce_batch(&mut prod, cycle, n, &mut inp, &mut mout, &mut status);
        let mut k = 0;
        while k < n {
            let (done, go) = chk.check_many(
                cycle + k as u64,
                &inp[k * iw..n * iw],
                &mout[k * ow..n * ow],
                &status[k..n],
            )?;
            k += done;
            if !go {
                return Ok((prod, cycle + k as u64 - 1, cycle + n as u64));
            }
        }
        cycle += n as u64;
    }
    Ok((prod, cycle.saturating_sub(1), cycle))
}

/// The next chunk the checking thread has given back, `None` once it has
/// hung up. The producing thread, which is the faster one, waits for it by
/// looking every [`FREE_POLL`] rather than blocking on the channel: a
/// blocked receiver must be woken by the sender, and that wake-up (a futex
/// call, an interrupt to the other CPU) would be paid by the checking
/// thread, the one that bounds the run; on a virtual machine it took 4 % of
/// that thread's time on ta (7 µs a chunk). Sleeping costs the producer
/// instead, which has time to spare (`CHUNKS` chunks ahead).
fn next_free(free: &mpsc::Receiver<Chunk>) -> Option<Chunk> {
    loop {
        match free.try_recv() {
            Ok(ch) => return Some(ch),
            Err(mpsc::TryRecvError::Empty) => std::thread::sleep(FREE_POLL),
            Err(mpsc::TryRecvError::Disconnected) => return None,
        }
    }
}

/// Runs `prod` on a second thread and checks its cycles here, until the
/// checker ends the run or `cycles` are done. Returns the checker's result,
/// the last cycle given to the checker, the producer and the cycles it
/// produced.
fn pipelined<'a, B: Testbench>(
    cycles: u64,
    prod: ModelRun<'a, B>,
    chk: &mut Checker<'_>,
) -> (Result<()>, u64, ModelRun<'a, B>, u64) {
    let table = B::table();
    let (iw, ow) = (table.in_words(), table.out_words());
    let chunk_len = chunk_cycles(iw + ow);
    std::thread::scope(|s| {
        let (full_tx, full_rx) = mpsc::sync_channel::<Chunk>(CHUNKS);
        let (free_tx, free_rx) = mpsc::sync_channel::<Chunk>(CHUNKS + 1);
        for _ in 0..=CHUNKS {
            let chunk = Chunk {
                len: 0,
                inp: vec![0; chunk_len * iw],
                mout: vec![0; chunk_len * ow],
                status: vec![Drive::Busy; chunk_len],
            };
            free_tx
                .send(chunk)
                .expect("the channel has room for every chunk");
        }
        let producer = s.spawn(move || {
            let mut prod = prod;
            // The model's outputs of the last cycle produced.
            let mut last = vec![0u32; ow];
            let mut cycle = 0u64;
            while cycle < cycles {
                // The checker hangs up when it has seen enough.
                let Some(mut ch) = next_free(&free_rx) else {
                    break;
                };
                // Produced in place, as a batch whose last slot holds the
                // outputs its first cycle steps on.
                let n = (chunk_len as u64).min(cycles - cycle) as usize;
                ch.mout[(chunk_len - 1) * ow..].copy_from_slice(&last);
                B::produce_batch(
                    &mut prod,
                    cycle,
                    n,
                    &mut ch.inp,
                    &mut ch.mout,
                    &mut ch.status,
                );
                last.copy_from_slice(&ch.mout[(n - 1) * ow..n * ow]);
                ch.len = n;
                cycle += n as u64;
                if full_tx.send(ch).is_err() {
                    break;
                }
            }
            (prod, cycle)
        });
        let mut res = Ok(());
        let mut cycle = 0u64;
        let mut last = 0u64;
        let mut go = true;
        while go {
            let Ok(ch) = full_rx.recv() else { break };
            let mut k = 0;
            while k < ch.len {
                let inp = &ch.inp[k * iw..ch.len * iw];
                let mout = &ch.mout[k * ow..ch.len * ow];
                let (done, g) = match chk.check_many(cycle, inp, mout, &ch.status[k..ch.len]) {
                    Ok(r) => r,
                    Err(e) => {
                        res = Err(e);
                        (1, false)
                    }
                };
                go = g;
                k += done;
                cycle += done as u64;
                last = cycle - 1;
                if !go {
                    break;
                }
            }
            // The producer may have finished: a refused chunk is dropped.
            let _ = free_tx.send(ch);
        }
        drop(full_rx);
        drop(free_tx);
        let (prod, produced) = match producer.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        (res, last, prod, produced)
    })
}

/// Records the differing output ports of one cycle.
fn diff(
    table: &PortTable,
    index: fn(&str) -> Option<Index>,
    cycle: u64,
    inp: &[u32],
    m: &[u32],
    r: &[u32],
    out: &mut Vec<Mismatch>,
) {
    let in_reset = !Port::at(table.ports, 0).bit(inp);
    for (d, p) in table.of(Dir::Out) {
        let (ms, rs) = (p.slice(m), p.slice(r));
        if ms == rs {
            continue;
        }
        let ix = index(d.name);
        let mut elements = Vec::new();
        if d.elems > 1 {
            let ew = d.elem_width as usize;
            for e in 0..d.elems as usize {
                let (a, b) = (bits_hex(ms, e * ew, ew), bits_hex(rs, e * ew, ew));
                if a != b {
                    elements.push((e, a, b));
                }
            }
        } else if ix.is_some() {
            for b in 0..d.width() as usize {
                let (x, y) = (ms[b / 32] >> (b % 32) & 1, rs[b / 32] >> (b % 32) & 1);
                if x != y {
                    elements.push((b, x.to_string(), y.to_string()));
                }
            }
        }
        out.push(Mismatch {
            cycle,
            signal: d.name.to_string(),
            model: hex_words(ms, d.width()),
            rtl: hex_words(rs, d.width()),
            in_reset,
            index: ix,
            elements,
        });
    }
}

/// Bits `lsb..lsb + width` of `w` in hex, zero-padded to the width.
fn bits_hex(w: &[u32], lsb: usize, width: usize) -> String {
    let digits = width.div_ceil(4);
    let mut s = String::with_capacity(digits + 2);
    s.push_str("0x");
    for k in (0..digits).rev() {
        let mut nib = 0;
        for i in 0..4.min(width - 4 * k) {
            let b = lsb + 4 * k + i;
            nib |= (w[b / 32] >> (b % 32) & 1) << i;
        }
        s.push(char::from_digit(nib, 16).unwrap_or('?'));
    }
    s
}

fn hex_words(w: &[u32], width: u32) -> String {
    let digits = width.div_ceil(4) as usize;
    let mut s = String::with_capacity(digits + 2);
    for x in w.iter().rev() {
        s.push_str(&format!("{x:08x}"));
    }
    let s = &s[s.len() - digits.min(s.len())..];
    let t = s.trim_start_matches('0');
    format!("0x{}", if t.is_empty() { "0" } else { t })
}
