//! Benchmarks: how much lock-step checking costs on top of simulating the RTL.
//!
//! For one unit and profile, [`bench_unit`] measures cycles per second of
//!
//! 1. a bare Verilated C++ loop (`rtlbuild::bare_source`) over recorded
//!    inputs: the limit for that RTL with Verilator;
//! 2. the RTL alone, driven from Rust through the shim over the same inputs;
//! 3. the model alone over the same inputs;
//! 4. full lock-step ([`engine::run`]: driver, model, RTL, compare, capture
//!    ring) with fresh stimulus of the same seed, on one thread (as each job
//!    of `gpucosim regress` runs);
//! 5. the same, pipelined: driver and model on a second thread ahead of the
//!    RTL (as `gpucosim run` runs on a machine with two CPUs or more);
//! 6. driver, stimulus generator and model closed-loop without RTL, over the
//!    same number of fresh cycles of the same seed: what lock-step runs
//!    besides the RTL, so that (1) ÷ ((2) + (6)) bounds 4 ÷ 1;
//! 7. the same without the model: driver and stimulus generator on a
//!    replay of the outputs the driver reads, recorded from a run with the
//!    model ([`gpucosim_tb::time_driver`]), so that (6) − (7) is the model's
//!    share and (1) ÷ ((2) + (7)) what 4 ÷ 1 could reach with a model that
//!    cost nothing;
//!
//! plus the time to write a VCD of a 1,024-cycle window from a capture
//! filled by a real run, and what a whole-run waveform (`--dump-all`) costs
//! in each format ([`DumpFigures`]). The recorded inputs come from running the driver
//! closed-loop against the model exactly as the engine does (reset cycles
//! included), so figures 1–3 see the same per-cycle input words. Loops 1–3 fold
//! every cycle's outputs into one checksum (`rtlbuild::OutputChecksum`);
//! the bare loop's and the shim's must be equal (the shim moves the same
//! bits), and the model's equals them when model and RTL agree. Loops 1–3
//! time their cycles in blocks of [`BLOCK_CYCLES`], each block's inputs
//! read first, so that inputs come from cache as they do in lock-step.
//!
//! The figures are measured in `repeats` rounds of one run each, on fresh
//! instances, and each keeps its best round: a slow spell of a shared
//! machine then hits all figures alike, and other processes stay out of the
//! numbers as far as possible.

use crate::engine::{self, RunSpec, Stimulus, ONE_THREAD_BATCH, RESET_CYCLES};
use crate::error::{Error, Result};
use crate::rtl::Rtl;
use crate::rtlbuild::{self, OutputChecksum};
use crate::testbench::Testbench;
use crate::verilator::Verilator;
use gpucosim_model::Profile;
use gpucosim_tb::{record_inputs, time_closed_loop, time_driver};
use gpucosim_waves::{Capture, Meta, WaveFormat};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Cycles of the VCD window measured.
pub const VCD_WINDOW: usize = 1024;

/// Cycles of the whole-run waveforms measured (at most `--cycles`).
pub const DUMP_CYCLES: u64 = 20_000;

/// Rounds of one figure disagree when the slowest of its best `repeats`
/// rounds is more than this fraction slower than the fastest.
pub const SPREAD: f64 = 0.15;

/// Extra rounds a figure gets, at most, while its best rounds disagree.
pub const EXTRA_ROUNDS: usize = 4;

/// How far lock-step on one thread may come out above its ceiling
/// ([`UnitFigures::one_thread_ceiling`]) before the row's figures are
/// taken to contradict each other ([`UnitFigures::beats_its_ceiling`]).
/// The RTL's figure (2) calls into the shim once a cycle and folds every
/// output into a checksum, where lock-step steps a batch of cycles in one
/// call and compares the outputs instead, so lock-step may beat its
/// ceiling by those costs' share of (2), a few per cent (at most 2 % in the
/// record of `BENCHMARKS.md`).
pub const CEILING_SLACK: f64 = 0.1;

/// CPU seconds of this process (every thread) and of its children that
/// have been waited for.
fn own_cpu_seconds() -> f64 {
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let mut total = 0.0;
    for who in [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN] {
        // SAFETY: an all-zero rusage is valid; getrusage fills it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid rusage to write to.
        if unsafe { libc::getrusage(who, &mut ru) } == 0 {
            total += tv(ru.ru_utime) + tv(ru.ru_stime);
        }
    }
    total
}

/// Busy CPU seconds of the whole machine since boot, all CPUs together
/// (`/proc/stat`: everything but idle and iowait), if known.
fn machine_busy_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map_while(|v| v.parse().ok())
        .collect();
    if f.len() < 4 {
        return None;
    }
    // user nice system idle iowait irq softirq steal (guest is in user).
    let busy: u64 = f
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, v)| v)
        .sum();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| busy as f64 / hz as f64)
}

/// The CPU time other processes take while something is measured: the
/// machine's busy time (`/proc/stat`) minus this process's and its
/// children's own (`getrusage`), over the wall time.
#[derive(Debug, Clone, Copy)]
pub struct LoadProbe {
    t0: Instant,
    busy0: Option<f64>,
    own0: f64,
}

impl LoadProbe {
    /// Starts measuring.
    pub fn start() -> LoadProbe {
        LoadProbe {
            t0: Instant::now(),
            busy0: machine_busy_seconds(),
            own0: own_cpu_seconds(),
        }
    }

    /// Other processes' CPU seconds since the start (never negative;
    /// `/proc/stat` counts in clock ticks, so short spans are coarse) and
    /// the wall seconds; `None` without `/proc/stat`.
    pub fn stop(&self) -> Option<(f64, f64)> {
        let wall = self.t0.elapsed().as_secs_f64();
        let busy = machine_busy_seconds()? - self.busy0?;
        let own = own_cpu_seconds() - self.own0;
        Some(((busy - own).max(0.0), wall))
    }
}

/// The rounds of one figure: their times, the other processes' load while
/// they ran, and the extra rounds taken because they disagreed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Rounds {
    /// Rounds whose best are compared (`--repeats`).
    pub repeats: usize,
    /// Seconds of each round, in the order measured.
    pub secs: Vec<f64>,
    /// Other processes' CPU seconds during the rounds, if known.
    pub other_cpu: Option<f64>,
    /// Wall seconds of the rounds (as the load was measured).
    pub wall: f64,
    /// Rounds added because the best ones disagreed by more than [`SPREAD`].
    pub extra: usize,
    /// The spread of the first `repeats` rounds, before any extra round.
    pub first_spread: f64,
}

impl Rounds {
    /// No round yet.
    pub fn new(repeats: usize) -> Rounds {
        Rounds {
            repeats,
            secs: Vec::new(),
            other_cpu: Some(0.0),
            wall: 0.0,
            extra: 0,
            first_spread: 0.0,
        }
    }

    /// Runs one round, `f` returning its measured time, and records it
    /// with the load during it.
    pub fn measure(&mut self, f: impl FnOnce() -> Result<Duration>) -> Result<()> {
        let probe = LoadProbe::start();
        let t = f()?;
        match probe.stop() {
            Some((other, wall)) => {
                self.other_cpu = self.other_cpu.map(|o| o + other);
                self.wall += wall;
            }
            None => self.other_cpu = None,
        }
        self.secs.push(t.as_secs_f64());
        Ok(())
    }

    /// The best round.
    pub fn best(&self) -> Duration {
        Duration::from_secs_f64(self.secs.iter().copied().fold(f64::INFINITY, f64::min))
    }

    /// How far the best `repeats` rounds disagree: slowest ÷ fastest − 1.
    pub fn spread(&self) -> f64 {
        let mut s = self.secs.clone();
        s.sort_by(f64::total_cmp);
        s.truncate(self.repeats.max(1));
        match (s.first(), s.last()) {
            (Some(&lo), Some(&hi)) if lo > 0.0 => hi / lo - 1.0,
            _ => 0.0,
        }
    }

    /// Other processes' load during the rounds, in CPUs (their CPU seconds
    /// over the rounds' wall seconds), if known.
    pub fn load(&self) -> Option<f64> {
        self.other_cpu.map(|o| o / self.wall.max(1e-9))
    }
}

/// The targets of the suite.
pub mod targets {
    /// Lock-step on one thread ÷ bare Verilator loop, at least.
    pub const LOCKSTEP_RATIO: f64 = 0.9;
    /// Pipelined lock-step ÷ bare Verilator loop, at least: with driver and
    /// model on a second CPU, checking should cost the RTL's thread nothing.
    pub const PIPELINED_RATIO: f64 = 1.0;
    /// Model alone ÷ RTL alone, at least.
    pub const MODEL_SPEEDUP: f64 = 10.0;
    /// Writing the VCD of a 1,024-cycle window, at most (milliseconds).
    pub const VCD_MS: f64 = 50.0;
    /// A cached start of `gpucosim run`, at most (seconds).
    pub const START_S: f64 = 1.0;
    /// `regress` throughput with as many workers as CPUs ÷ with one ÷ the
    /// CPUs, at least.
    pub const REGRESS_EFFICIENCY: f64 = 0.9;
    /// What a regression job costs besides its cycles, as a share of a
    /// default job, at most.
    pub const JOB_OVERHEAD: f64 = 0.05;
    /// A run dumping its whole waveform as FST ÷ the same run without
    /// waveforms, at most.
    pub const FST_DUMP_COST: f64 = 1.3;
    /// The VCD of a whole run ÷ its FST, in bytes, at least.
    pub const FST_SHRINK: f64 = 10.0;
    /// Peak resident memory of a run ten times longer, at most this many
    /// megabytes more (flat in run length).
    pub const RSS_GROWTH_MB: f64 = 2.0;
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchSpec {
    /// Cycles per measurement (reset included).
    pub cycles: u64,
    /// Seed of the stimulus.
    pub seed: u64,
    /// Measurements per figure; the best is kept.
    pub repeats: usize,
    /// The RTL tree (holding `<unit>/*.sv`).
    pub rtl_root: PathBuf,
    /// Where the recorded input files go.
    pub work_dir: PathBuf,
}

impl BenchSpec {
    /// Checks the numbers are usable.
    pub fn validate(&self) -> Result<()> {
        if self.cycles <= RESET_CYCLES + VCD_WINDOW as u64 {
            return Err(Error::Input(format!(
                "--cycles must be more than {} (reset plus the {VCD_WINDOW}-cycle VCD window), got {}",
                RESET_CYCLES + VCD_WINDOW as u64,
                self.cycles
            )));
        }
        if self.repeats == 0 {
            return Err(Error::Input("--repeats must be at least 1".into()));
        }
        Ok(())
    }
}

/// The figures of one unit and profile.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UnitFigures {
    /// Unit name.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Cycles per measurement.
    pub cycles: u64,
    /// Packed input / output words per cycle.
    pub words: (usize, usize),
    /// (1) Bare Verilated C++ loop, cycles/s.
    pub bare: f64,
    /// (2) RTL alone through the shim, cycles/s.
    pub shim: f64,
    /// (3) Model alone, cycles/s.
    pub model: f64,
    /// (4) Full lock-step on one thread, cycles/s.
    pub lockstep: f64,
    /// (5) Full lock-step, pipelined on two threads, cycles/s.
    pub pipelined: f64,
    /// (6) Driver, stimulus generator and model closed-loop without RTL,
    /// cycles/s ([`gpucosim_tb::time_closed_loop`]).
    pub producer: f64,
    /// (7) Driver and stimulus generator closed-loop on a replay of the
    /// outputs the driver reads, without model or RTL, cycles/s
    /// ([`gpucosim_tb::time_driver`]).
    pub driver: f64,
    /// Cycles the lock-step run simulated (fewer than `cycles` if it
    /// diverged).
    pub lockstep_cycles: u64,
    /// Whether model and RTL agreed in the lock-step run.
    pub agreed: bool,
    /// Output checksums of the bare loop, the shim and the model.
    pub checksums: (u64, u64, u64),
    /// Milliseconds to write the VCD of a 1,024-cycle window.
    pub vcd_ms: f64,
    /// Size of that VCD in bytes.
    pub vcd_bytes: u64,
    /// Whole-run waveforms.
    pub dump: DumpFigures,
    /// The rounds of figures (1)–(7).
    pub rounds: [Rounds; 7],
    /// The CPUs figures (1)–(4), (6), (7) and (5) ran on ([`Pinning`]).
    pub pinning: Pinning,
}

/// Where the figures of a row ran: (1)–(4), (6) and (7) on one CPU and (5) on
/// that CPU and another, so that the bare loop's process and the lock-step run get
/// the same CPU on a machine whose CPUs differ in speed or load (a virtual
/// machine's); or why they were not pinned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Pinning {
    /// (1)–(4), (6) and (7) on the first CPU, (5) on both.
    Cpus(usize, usize),
    /// Not pinned, and why.
    Not(String),
}

/// A thread's CPU affinity, restored when dropped.
#[doc(hidden)]
pub struct Affinity {
    saved: libc::cpu_set_t,
}

impl Affinity {
    /// The CPUs the calling thread may run on.
    #[doc(hidden)]
    pub fn allowed() -> std::io::Result<(libc::cpu_set_t, Vec<usize>)> {
        // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity
        // writes at most its size.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let r =
            unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let cpus = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `c` is below CPU_SETSIZE.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect();
        Ok((set, cpus))
    }

    /// Keeps the calling thread (and the threads and processes it starts
    /// from now on) on `cpus` until the guard drops.
    fn pin(cpus: &[usize]) -> std::io::Result<Affinity> {
        let (saved, _) = Affinity::allowed()?;
        set_affinity(cpus)?;
        Ok(Affinity { saved })
    }
}

fn set_affinity(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: as in `Affinity::allowed`; every `c` is below CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

impl Drop for Affinity {
    fn drop(&mut self) {
        // SAFETY: restores the set read in `pin`.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.saved);
        }
    }
}

impl Pinning {
    /// The CPU this thread runs on now and another it may run on.
    #[doc(hidden)]
    pub fn choose() -> Pinning {
        let cpus = match Affinity::allowed() {
            Ok((_, cpus)) => cpus,
            Err(e) => return Pinning::Not(format!("cannot read the CPU affinity: {e}")),
        };
        // SAFETY: no arguments; returns the current CPU or -1.
        let now = unsafe { libc::sched_getcpu() };
        let home = usize::try_from(now)
            .ok()
            .filter(|c| cpus.contains(c))
            .or_else(|| cpus.first().copied());
        match (home, cpus.iter().find(|&&c| Some(c) != home)) {
            (Some(a), Some(&b)) => Pinning::Cpus(a, b),
            _ => Pinning::Not(format!("{} CPU(s) allowed", cpus.len())),
        }
    }

    /// Keeps the calling thread on the CPUs of figure `k` (0-based) until
    /// the guard drops; `None` when not pinned.
    #[doc(hidden)]
    pub fn figure(&self, k: usize) -> Result<Option<Affinity>> {
        let Pinning::Cpus(a, b) = *self else {
            return Ok(None);
        };
        let cpus: &[usize] = if k == 4 { &[a, b] } else { &[a] };
        Affinity::pin(cpus)
            .map(Some)
            .map_err(|e| Error::Env(format!("cannot pin the benchmark to CPUs {cpus:?}: {e}")))
    }

    /// The words of the report.
    pub fn describe(&self) -> String {
        match self {
            Pinning::Cpus(a, b) => {
                format!("(1)–(4), (6) and (7) on CPU {a}, (5) on CPUs {a} and {b}")
            }
            Pinning::Not(why) => format!("not pinned to CPUs: {why}"),
        }
    }
}

/// What a whole-run waveform (`--dump-all`) costs: the same lock-step run
/// on one thread without waveforms and dumping its whole run as a VCD and
/// as an FST, each timed from the start of the run to the file renamed
/// into place (best of the repeats), and the files' sizes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DumpFigures {
    /// Cycles of each run.
    pub cycles: u64,
    /// Milliseconds without waveforms.
    pub none_ms: f64,
    /// Milliseconds dumping a VCD.
    pub vcd_ms: f64,
    /// Milliseconds dumping an FST.
    pub fst_ms: f64,
    /// Bytes of the VCD.
    pub vcd_bytes: u64,
    /// Bytes of the FST.
    pub fst_bytes: u64,
    /// Other processes' load during these runs, in CPUs, if known.
    pub load: Option<f64>,
}

impl DumpFigures {
    /// The VCD run ÷ the run without waveforms.
    pub fn vcd_cost(&self) -> f64 {
        self.vcd_ms / self.none_ms.max(1e-9)
    }
    /// The FST run ÷ the run without waveforms.
    pub fn fst_cost(&self) -> f64 {
        self.fst_ms / self.none_ms.max(1e-9)
    }
    /// VCD bytes ÷ FST bytes.
    pub fn shrink(&self) -> f64 {
        self.vcd_bytes as f64 / self.fst_bytes.max(1) as f64
    }
}

impl UnitFigures {
    /// The highest load of other processes during figures (1)–(7), in CPUs.
    pub fn max_load(&self) -> Option<f64> {
        self.rounds
            .iter()
            .map(Rounds::load)
            .try_fold(0.0f64, |m, l| l.map(|l| m.max(l)))
    }
    /// Lock-step ÷ bare loop.
    pub fn ratio(&self) -> f64 {
        self.lockstep / self.bare.max(1e-9)
    }
    /// Pipelined lock-step ÷ bare loop.
    pub fn pipelined_ratio(&self) -> f64 {
        self.pipelined / self.bare.max(1e-9)
    }
    /// Model alone ÷ RTL alone.
    pub fn model_speedup(&self) -> f64 {
        self.model / self.shim.max(1e-9)
    }
    /// The most lock-step on one thread can reach ÷ the bare loop with
    /// this driver, stimulus and model: a cycle costs at least the RTL
    /// through the shim (2) plus driver, generation and model (6), so
    /// (1) ÷ ((2) + (6)) in time.
    pub fn one_thread_ceiling(&self) -> f64 {
        self.ceiling_beside(self.producer)
    }
    /// Whether lock-step on one thread came out more than
    /// [`CEILING_SLACK`] above its ceiling: it ran faster than the RTL
    /// through the shim and the driver, stimulus and model, each measured
    /// apart, leave possible, so the row's figures contradict each other
    /// (the machine's speed changed between them, or the RTL's code ran
    /// faster in one process than in another) and its ratios cannot be
    /// trusted.
    pub fn beats_its_ceiling(&self) -> bool {
        self.ratio() > self.one_thread_ceiling() * (1.0 + CEILING_SLACK)
    }
    /// The same ceiling with a model that cost nothing: (1) ÷ ((2) + (7)),
    /// driver and stimulus left (on a unit whose ceiling this is below a
    /// target, no change to the model alone meets it).
    pub fn free_model_ceiling(&self) -> f64 {
        self.ceiling_beside(self.driver)
    }
    /// (1) ÷ ((2) + a cycle of work that runs at `rate` cycles/s beside
    /// the RTL on one thread), in time.
    fn ceiling_beside(&self, rate: f64) -> f64 {
        let t = |rate: f64| 1.0 / rate.max(1e-9);
        t(self.bare) / (t(self.shim) + t(rate))
    }
}

/// Writes recorded input words as little-endian `u32`s.
pub fn write_inputs(path: &Path, words: &[u32]) -> Result<()> {
    let mut bytes = Vec::with_capacity(words.len() * 4);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// Result of the bare loop.
#[derive(Debug, Clone, Copy)]
pub struct BareRun {
    /// Cycles simulated per repetition.
    pub cycles: u64,
    /// Best wall time of the loop.
    pub best: Duration,
    /// Checksum of all outputs.
    pub checksum: u64,
}

/// Runs the bare executable over an input file.
pub fn run_bare(exe: &Path, inputs: &Path, repeats: usize) -> Result<BareRun> {
    let out = Command::new(exe)
        .arg(inputs)
        .arg(repeats.to_string())
        .output()
        .map_err(|e| Error::Env(format!("cannot run {}: {e}", exe.display())))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(Error::Env(format!(
            "{} failed: {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let field = |name: &str| {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .ok_or_else(|| Error::Env(format!("{} printed no {name}: {text}", exe.display())))
    };
    let bad = |name: &str| Error::Env(format!("{} printed a bad {name}: {text}", exe.display()));
    Ok(BareRun {
        cycles: field("cycles")?.parse().map_err(|_| bad("cycles"))?,
        best: Duration::from_secs_f64(
            field("best_seconds")?
                .parse::<f64>()
                .map_err(|_| bad("best_seconds"))?,
        ),
        checksum: u64::from_str_radix(field("checksum")?, 16).map_err(|_| bad("checksum"))?,
    })
}

/// Cycles of figures (1)–(3) timed at a time, their recorded inputs read
/// once beforehand, untimed: the figures measure the RTL and the model with
/// their inputs in cache, as in lock-step, where the driver has just
/// written them, rather than the streaming of a recording of tens of
/// megabytes (147–333 words a cycle) from memory, which would cost a fast
/// model more than its own work. The bare loop (`cosim/cxx/gc_bare.cpp`)
/// uses the same blocks.
pub const BLOCK_CYCLES: usize = 256;

/// Steps `step` over the recorded inputs (`iw` words per cycle), folding
/// every cycle's `ow` output words into the checksum: the time of the
/// steps and folds, in blocks of [`BLOCK_CYCLES`] each read beforehand,
/// and the checksum.
fn timed_loop(
    rec: &[u32],
    iw: usize,
    ow: usize,
    mut step: impl FnMut(&[u32], &mut [u32]),
) -> (Duration, u64) {
    let mut out = vec![0u32; ow];
    let mut sum = OutputChecksum::new(ow);
    let mut took = Duration::ZERO;
    for block in rec.chunks(BLOCK_CYCLES * iw) {
        let touch = block.iter().fold(0u32, |a, &w| a.wrapping_add(w));
        std::hint::black_box(touch);
        let t0 = Instant::now();
        for inp in block.chunks_exact(iw) {
            step(inp, &mut out);
            sum.fold(&out);
        }
        took += t0.elapsed();
    }
    let h = sum.value();
    (took, std::hint::black_box(h))
}

/// The RTL alone through the shim, on a fresh instance, over recorded
/// inputs: loop time and output checksum.
pub fn run_shim(
    lib: &Path,
    table: &'static gpucosim_model::ports::PortTable,
    rec: &[u32],
) -> Result<(Duration, u64)> {
    let mut rtl = Rtl::load(lib, table)?;
    Ok(timed_loop(
        rec,
        table.in_words(),
        table.out_words(),
        |i, o| {
            rtl.step(i, o);
        },
    ))
}

/// A fresh model alone over recorded inputs: loop time and output checksum.
pub fn run_model<B: Testbench>(profile: Profile, rec: &[u32]) -> (Duration, u64) {
    let table = B::table();
    let mut model = B::model(profile);
    timed_loop(rec, table.in_words(), table.out_words(), |i, o| {
        model.step(i, o)
    })
}

fn rate(cycles: u64, d: Duration) -> f64 {
    cycles as f64 / d.as_secs_f64().max(1e-12)
}

/// Measures one unit and profile: the four rates, the checksums and the VCD
/// window. Builds the shim library and the bare loop (cached) first.
pub fn bench_unit<B: Testbench>(spec: &BenchSpec, profile: Profile) -> Result<UnitFigures> {
    spec.validate()?;
    let table = B::table();
    let cache = rtlbuild::cache_root();
    let sources = rtlbuild::RtlSources::collect(&spec.rtl_root, table.unit)?;
    let v = Verilator::locate(&cache)?;
    let req = rtlbuild::BuildRequest {
        table,
        profile,
        sources: &sources,
        trace: false,
        coverage: false,
    };
    let lib = rtlbuild::build(&req, &v, &cache)?.lib;
    let bare_exe = rtlbuild::build_bare(&req, &v, &cache)?.lib;

    let rec = record_inputs::<B>(profile, spec.seed, spec.cycles)?;
    std::fs::create_dir_all(&spec.work_dir).map_err(|e| Error::io(&spec.work_dir, e))?;
    let file = spec.work_dir.join(format!(
        "{}.{}.{}.inputs.bin",
        table.unit, profile, spec.seed
    ));
    write_inputs(&file, &rec)?;

    let mut run_spec = RunSpec::new(table.unit, profile, spec.seed, spec.cycles);
    run_spec.rtl_arg = Some(spec.rtl_root.clone());
    run_spec.window = VCD_WINDOW;
    // The seven figures are measured in rounds, one of each per round, so
    // that a slow spell of a shared machine hits all seven alike rather than
    // one; each figure keeps its best round. A figure whose best rounds
    // disagree by more than SPREAD gets extra rounds of its own.
    let mut bare_sum = 0;
    let (mut shim_sum, mut model_sum) = (0, 0);
    let mut lock_cycles = 0;
    let mut agreed = true;
    let mut one_round = |k: usize| -> Result<Duration> {
        match k {
            0 => {
                // (1) bare loop
                let bare = run_bare(&bare_exe, &file, 1)?;
                if bare.cycles != spec.cycles {
                    return Err(Error::Env(format!(
                        "the bare loop read {} cycles from {}, expected {}",
                        bare.cycles,
                        file.display(),
                        spec.cycles
                    )));
                }
                bare_sum = bare.checksum;
                Ok(bare.best)
            }
            1 => {
                // (2) RTL through the shim
                let (t, sum) = run_shim(&lib, table, &rec)?;
                shim_sum = sum;
                Ok(t)
            }
            2 => {
                // (3) model alone
                let (t, sum) = run_model::<B>(profile, &rec);
                model_sum = sum;
                Ok(t)
            }
            5 => {
                // (6) driver, generation and model closed-loop, no RTL
                Ok(time_closed_loop::<B>(profile, spec.seed, spec.cycles).0)
            }
            6 => {
                // (7) driver and generation on a replay of what the driver
                // reads: no model, no RTL
                Ok(time_driver::<B>(profile, spec.seed, spec.cycles)?.0)
            }
            _ => {
                // (4) full lock-step on one thread, (5) pipelined
                let mut rtl = Rtl::load(&lib, table)?;
                let spec = RunSpec {
                    pipeline: k == 4,
                    ..run_spec.clone()
                };
                let o = engine::run::<B>(&spec, &mut rtl, Stimulus::Fresh, None)?;
                lock_cycles = o.cycles;
                agreed &= o.passed();
                Ok(o.elapsed)
            }
        }
    };
    let pinning = Pinning::choose();
    let mut pinned_round = |k: usize| -> Result<Duration> {
        let _pin = pinning.figure(k)?;
        one_round(k)
    };
    let mut rounds: [Rounds; 7] = std::array::from_fn(|_| Rounds::new(spec.repeats));
    for _ in 0..spec.repeats {
        for (k, r) in rounds.iter_mut().enumerate() {
            r.measure(|| pinned_round(k))?;
        }
    }
    for (k, r) in rounds.iter_mut().enumerate() {
        r.first_spread = r.spread();
        while r.spread() > SPREAD && r.extra < EXTRA_ROUNDS {
            r.measure(|| pinned_round(k))?;
            r.extra += 1;
        }
    }
    if shim_sum != bare_sum {
        return Err(Error::Env(format!(
            "{} {}: the shim's output checksum {shim_sum:016x} differs from the bare Verilator loop's {bare_sum:016x}: the shim does not move the same bits",
            table.unit, profile
        )));
    }
    let [bare_r, shim_r, model_r, lock_r, pipe_r, prod_r, drv_r] = rounds;
    // VCD of a 1,024-cycle window, captured from model and RTL over the
    // recorded inputs.
    let (vcd_t, vcd_bytes) = vcd_window::<B>(profile, &lib, &rec, spec)?;
    let dump = whole_run_dumps::<B>(&lib, &run_spec, spec)?;
    Ok(UnitFigures {
        unit: table.unit.to_string(),
        profile,
        cycles: spec.cycles,
        words: (table.in_words(), table.out_words()),
        bare: rate(spec.cycles, bare_r.best()),
        shim: rate(spec.cycles, shim_r.best()),
        model: rate(spec.cycles, model_r.best()),
        lockstep: rate(lock_cycles, lock_r.best()),
        pipelined: rate(lock_cycles, pipe_r.best()),
        producer: rate(spec.cycles, prod_r.best()),
        driver: rate(spec.cycles, drv_r.best()),
        rounds: [bare_r, shim_r, model_r, lock_r, pipe_r, prod_r, drv_r],
        pinning,
        lockstep_cycles: lock_cycles,
        agreed,
        checksums: (bare_sum, shim_sum, model_sum),
        vcd_ms: vcd_t.as_secs_f64() * 1e3,
        vcd_bytes,
        dump,
    })
}

/// Times `run_spec` over [`DUMP_CYCLES`] without waveforms, dumping a VCD
/// and dumping an FST (interleaved rounds, best of each), each from the
/// start of the run to the file in place; the files go to the work
/// directory and are removed after measuring.
fn whole_run_dumps<B: Testbench>(
    lib: &Path,
    run_spec: &RunSpec,
    spec: &BenchSpec,
) -> Result<DumpFigures> {
    let table = B::table();
    let cycles = DUMP_CYCLES.min(spec.cycles);
    let dir = spec.work_dir.join("dump");
    let formats = [None, Some(WaveFormat::Vcd), Some(WaveFormat::Fst)];
    let mut best = [Duration::MAX; 3];
    let mut bytes = [0u64; 3];
    let probe = LoadProbe::start();
    for _ in 0..spec.repeats {
        for (k, format) in formats.iter().enumerate() {
            let s = RunSpec {
                cycles,
                waves: format.map(|_| dir.clone()),
                waves_format: format.unwrap_or_default(),
                dump_all: format.is_some(),
                ..run_spec.clone()
            };
            let mut rtl = Rtl::load(lib, table)?;
            let t0 = Instant::now();
            let o = engine::run::<B>(&s, &mut rtl, Stimulus::Fresh, None)?;
            best[k] = best[k].min(t0.elapsed());
            if let Some(e) = &o.vcd_error {
                return Err(Error::Env(format!("whole-run waveform: {e}")));
            }
            if let Some(p) = &o.vcd {
                bytes[k] = std::fs::metadata(p).map_err(|e| Error::io(p, e))?.len();
                std::fs::remove_file(p).map_err(|e| Error::io(p, e))?;
            }
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Ok(DumpFigures {
        cycles,
        none_ms: ms(best[0]),
        vcd_ms: ms(best[1]),
        fst_ms: ms(best[2]),
        vcd_bytes: bytes[1],
        fst_bytes: bytes[2],
        load: probe.stop().map(|(o, w)| o / w.max(1e-9)),
    })
}

/// Fills a capture ring from model and RTL over the first cycles of `rec`
/// and times writing its 1,024-cycle window as a VCD (best of repeats).
fn vcd_window<B: Testbench>(
    profile: Profile,
    lib: &Path,
    rec: &[u32],
    spec: &BenchSpec,
) -> Result<(Duration, u64)> {
    let table = B::table();
    let (iw, ow) = (table.in_words(), table.out_words());
    let mut capture = Capture::new(table, VCD_WINDOW);
    let mut model = B::model(profile);
    let mut rtl = Rtl::load(lib, table)?;
    let (mut mo, mut ro) = (vec![0u32; ow], vec![0u32; ow]);
    for (c, inp) in rec.chunks_exact(iw).take(2 * VCD_WINDOW).enumerate() {
        model.step(inp, &mut mo);
        rtl.step(inp, &mut ro);
        capture.record(c as u64, inp, &mo, &ro);
    }
    let path = spec.work_dir.join(format!(
        "{}.{}.{}.window.vcd",
        table.unit, profile, spec.seed
    ));
    let meta = Meta {
        comments: vec![format!(
            "gpucosim bench {}.{}.{}",
            table.unit, profile, spec.seed
        )],
    };
    let mut best = Duration::MAX;
    for _ in 0..spec.repeats {
        let t0 = Instant::now();
        gpucosim_waves::write_capture(&path, table, &capture, &meta, WaveFormat::Vcd)
            .map_err(|e| Error::io(&path, e))?;
        best = best.min(t0.elapsed());
    }
    let bytes = std::fs::metadata(&path)
        .map_err(|e| Error::io(&path, e))?
        .len();
    Ok((best, bytes))
}

/// Wall time of a cached start: spawns `exe run --unit U --profile P
/// --cycles 1` (the RTL already built), best of `repeats`.
pub fn cached_start(
    exe: &Path,
    unit: &str,
    profile: Profile,
    rtl: Option<&Path>,
    repeats: usize,
) -> Result<Duration> {
    let mut best = Duration::MAX;
    for _ in 0..repeats.max(1) + 1 {
        let mut cmd = Command::new(exe);
        cmd.args([
            "run",
            "--unit",
            unit,
            "--profile",
            profile.name(),
            "--cycles",
            "1",
        ]);
        if let Some(r) = rtl {
            cmd.arg("--rtl").arg(r);
        }
        let t0 = Instant::now();
        let out = cmd
            .output()
            .map_err(|e| Error::Env(format!("cannot run {}: {e}", exe.display())))?;
        let t = t0.elapsed();
        if !out.status.success() {
            return Err(Error::Env(format!(
                "`gpucosim run --unit {unit} --profile {profile} --cycles 1` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        best = best.min(t);
    }
    Ok(best)
}

/// Seeds per unit and profile of the regression-scaling plan: 32 seeds of
/// the 6 units and profiles are 192 jobs.
pub const SCALING_SEEDS: u64 = 32;

/// Cycles of a job of the per-job overhead measurement: reset and a cycle.
pub const OVERHEAD_CYCLES: u64 = 3;

/// One `--jobs J` run of the regression-scaling plan.
#[derive(Debug, Clone)]
pub struct ScalingRun {
    /// Workers (`--jobs J`).
    pub workers: usize,
    /// Wall time of the command.
    pub wall: Duration,
    /// Throughput: the jobs' total cycles ÷ the wall time.
    pub rate: f64,
    /// The jobs' cycle loops' total time in seconds (each job's `seconds`
    /// in the results file).
    pub loops: f64,
    /// An integer loop's rate on each of `workers` CPUs at once ÷ its rate
    /// on the same CPU alone ([`cpu_speed`]): what the machine's clocks and
    /// shared cores give each CPU when that many are busy; or why it was
    /// not measured.
    pub cpu: std::result::Result<f64, String>,
}

/// `gpucosim regress` over one plan with 1, 2, 4, … workers up to the
/// machine's CPUs, and what a job costs beyond its cycles.
#[derive(Debug, Clone)]
pub struct Scaling {
    /// Jobs in the plan.
    pub jobs: usize,
    /// Cycles per job.
    pub cycles: u64,
    /// One run per worker count, in increasing order.
    pub runs: Vec<ScalingRun>,
    /// Wall time of the same plan with jobs of [`OVERHEAD_CYCLES`] cycles
    /// on one worker, per job: what a job costs besides its cycles.
    pub per_job: Duration,
}

impl Scaling {
    fn run(&self, j: usize) -> Option<&ScalingRun> {
        self.runs.iter().find(|r| r.workers == j)
    }

    /// Throughput with `j` workers ÷ with one.
    pub fn speedup(&self, j: usize) -> Option<f64> {
        Some(self.run(j)?.rate / self.run(1)?.rate.max(1e-9))
    }

    /// Speedup with the most workers measured ÷ their number.
    pub fn efficiency(&self) -> Option<(usize, f64)> {
        let j = self.runs.iter().map(|r| r.workers).max()?;
        Some((j, self.speedup(j)? / j as f64))
    }

    /// How fast the jobs' cycle loops ran with `j` workers ÷ with one: the
    /// same jobs' total loop time with one worker ÷ with `j`.
    pub fn loop_speed(&self, j: usize) -> Option<f64> {
        Some(self.run(1)?.loops / self.run(j)?.loops.max(1e-9))
    }

    /// The share of `j` workers' wall time spent in the jobs' cycle loops;
    /// the rest is the regression's own (process starts, RTL loading, the
    /// jobs' set-up and results, the last jobs' tail).
    pub fn busy(&self, j: usize) -> Option<f64> {
        let r = self.run(j)?;
        Some(r.loops / (r.workers as f64 * r.wall.as_secs_f64()).max(1e-9))
    }

    /// The per-job overhead as a share of a job's wall time on one worker.
    pub fn overhead_share(&self) -> Option<f64> {
        let one = self.run(1)?;
        let per_job = one.wall.as_secs_f64() / self.jobs.max(1) as f64;
        Some(self.per_job.as_secs_f64() / per_job.max(1e-9))
    }

    /// The section of `BENCHMARKS.md`.
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "| `--jobs` | wall time | cycles/s | speedup | ÷ linear | cycle loops' speed | workers in cycle loops | a CPU's speed |\n\
             |---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for r in &self.runs {
            let j = r.workers;
            let k = self.speedup(j).unwrap_or(0.0);
            let _ = writeln!(
                s,
                "| {j} | {:.2} s | {} | {k:.2}× | {:.0} % | {:.2} | {:.0} % | {} |",
                r.wall.as_secs_f64(),
                si(r.rate),
                100.0 * k / j as f64,
                self.loop_speed(j).unwrap_or(0.0),
                100.0 * self.busy(j).unwrap_or(0.0),
                r.cpu
                    .as_ref()
                    .map_or_else(|why| format!("not measured: {why}"), |c| format!("{c:.2}"))
            );
        }
        let _ = writeln!(
            s,
            "\n`gpucosim regress --seeds 1..{SCALING_SEEDS} --cycles {} --jobs J` over every unit and profile benched ({} jobs; stress variants as by default), the RTL built beforehand, each with the job times of the runs before it (`--job-times`, docs/regress.md), as a regression after an earlier one; throughput is the jobs' total cycles (from the `--results` file) over the command's wall time. \
             Cycle loops' speed: the jobs' total cycle-loop time (each job's `seconds` in the results file) with one worker ÷ with J, how fast each job ran while J ran at once. \
             Workers in cycle loops: that total ÷ (J × wall time), the share the rest of the regression (process starts, RTL loading, each job's set-up and result, the last jobs' tail) leaves; \
             speedup ÷ J = cycle loops' speed × workers in cycle loops at J ÷ at 1. \
             A CPU's speed: J threads of an integer loop (four independent multiply chains, no memory traffic) at once, each pinned to one of J CPUs, each one's rate ÷ its rate on the same CPU alone, averaged, measured after each run: what the machine's clocks and shared cores give a CPU when J are busy. \
             A job costs {:.1} ms besides its cycles (the same plan with jobs of {OVERHEAD_CYCLES} cycles on one worker, per job){}.",
            self.cycles,
            self.jobs,
            self.per_job.as_secs_f64() * 1e3,
            self.overhead_share()
                .map(|o| format!(", {:.1} % of a job of {} cycles", 100.0 * o, self.cycles))
                .unwrap_or_default()
        );
        s
    }
}

/// Runs `gpucosim regress` (spawning `exe`) over seeds 1..[`SCALING_SEEDS`]
/// of `units` × `profiles`, `cycles` each, with `jobs` workers: its wall
/// time, the jobs' total cycles, their cycle loops' total seconds and their
/// number. A regression that finds divergences (exit 1) still counts.
fn time_regress(
    exe: &Path,
    units: &[String],
    profiles: &[Profile],
    cycles: u64,
    jobs: usize,
    rtl: Option<&Path>,
    work: &Path,
) -> Result<(Duration, u64, f64, usize)> {
    let results = work.join(format!("regress-{cycles}-jobs{jobs}.json"));
    let mut cmd = Command::new(exe);
    cmd.args(["regress", "--quiet"])
        .arg("--seeds")
        .arg(format!("1..{SCALING_SEEDS}"))
        .arg("--cycles")
        .arg(cycles.to_string())
        .arg("--jobs")
        .arg(jobs.to_string())
        .arg("--results")
        .arg(&results)
        .arg("--bundles")
        .arg(work.join(format!("bundles-{cycles}-jobs{jobs}")))
        // The bench's own job times, of the runs before this one (the
        // first, with one worker, orders nothing): every run with several
        // workers orders its jobs as a regression after an earlier one
        // does, whatever the user's cache holds.
        .arg("--job-times")
        .arg(work.join("job-times.json"));
    for u in units {
        cmd.args(["--unit", u]);
    }
    for p in profiles {
        cmd.args(["--profile", p.name()]);
    }
    if let Some(r) = rtl {
        cmd.arg("--rtl").arg(r);
    }
    let t0 = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| Error::Env(format!("cannot run {}: {e}", exe.display())))?;
    let wall = t0.elapsed();
    if !matches!(out.status.code(), Some(0) | Some(1)) {
        return Err(Error::Env(format!(
            "`gpucosim regress --jobs {jobs}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let r = crate::regress::ResultsFile::load(&results)?;
    let total: u64 = r.jobs.iter().map(|j| j.cycles).sum();
    let loops: f64 = r.jobs.iter().map(|j| j.seconds).sum();
    Ok((wall, total, loops, r.jobs.len()))
}

/// Iterations of [`spin`] that take about `d` on this thread alone.
fn spin_iterations(d: Duration) -> u64 {
    let mut n = 1u64 << 16;
    loop {
        let t0 = Instant::now();
        std::hint::black_box(spin(std::hint::black_box(n)));
        let t = t0.elapsed();
        if t >= Duration::from_millis(20) || n >= 1 << 40 {
            return ((n as f64) * d.as_secs_f64() / t.as_secs_f64().max(1e-9)).max(1.0) as u64;
        }
        n *= 4;
    }
}

/// Four independent chains of multiplies and shifts in registers: they keep
/// the core's multiplier busy, so the rate drops with the CPU's clock and
/// when another thread shares the core, and touch no memory.
fn spin(n: u64) -> u64 {
    let mut x = [
        0x9e37_79b9_7f4a_7c15_u64,
        0xbf58_476d_1ce4_e5b9,
        0x94d0_49bb_1331_11eb,
        0xd6e8_feb8_6659_fd93,
    ];
    for _ in 0..n {
        for v in &mut x {
            *v = v.wrapping_mul(0xd129_0b3e_5a1e_b4c5) ^ (*v >> 29);
        }
    }
    x[0] ^ x[1] ^ x[2] ^ x[3]
}

/// The rate of `n` iterations of [`spin`] on each of `cpus.len()` threads
/// started together, thread `i` pinned to `cpus[i]`, in iterations per
/// second; each thread's best of 3 rounds. Fails if a thread cannot be
/// pinned.
#[doc(hidden)]
pub fn spin_rates(cpus: &[usize], n: u64) -> std::result::Result<Vec<f64>, String> {
    let mut best = vec![0.0f64; cpus.len()];
    for _ in 0..3 {
        let start = std::sync::Barrier::new(cpus.len().max(1));
        let rates: Vec<std::result::Result<f64, String>> = std::thread::scope(|s| {
            let hs: Vec<_> = cpus
                .iter()
                .map(|&c| {
                    let start = &start;
                    s.spawn(move || {
                        let pinned = set_affinity(&[c]);
                        start.wait();
                        pinned.map_err(|e| format!("cannot pin a thread to CPU {c}: {e}"))?;
                        let t0 = Instant::now();
                        std::hint::black_box(spin(std::hint::black_box(n)));
                        Ok(n as f64 / t0.elapsed().as_secs_f64().max(1e-9))
                    })
                })
                .collect();
            hs.into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
                .collect()
        });
        for (b, r) in best.iter_mut().zip(rates) {
            *b = b.max(r?);
        }
    }
    Ok(best)
}

/// A CPU's speed with `threads` busy: an integer loop on `threads` threads
/// at once, each pinned to one of the first `threads` CPUs this process may
/// use, each one's rate ÷ its rate on the same CPU alone, averaged. 1.0 when
/// every CPU keeps its speed with `threads` busy; less when clocks drop or
/// CPUs share cores. Comparing each CPU with itself keeps a machine whose
/// CPUs differ in speed (a virtual machine's) from reading as a change.
/// Fails, saying why, where `threads` CPUs cannot be had one per thread.
pub fn cpu_speed(threads: usize) -> std::result::Result<f64, String> {
    if threads <= 1 {
        return Ok(1.0);
    }
    let (_, allowed) =
        Affinity::allowed().map_err(|e| format!("cannot read the CPU affinity: {e}"))?;
    if allowed.len() < threads {
        return Err(format!("{} CPU(s) allowed", allowed.len()));
    }
    let cpus = &allowed[..threads];
    let n = spin_iterations(Duration::from_millis(50));
    let mut alone = Vec::with_capacity(threads);
    for &c in cpus {
        alone.push(spin_rates(&[c], n)?[0]);
    }
    let together = spin_rates(cpus, n)?;
    Ok(together
        .iter()
        .zip(&alone)
        .map(|(t, a)| t / a.max(1e-9))
        .sum::<f64>()
        / threads as f64)
}

/// Throughput of `gpucosim regress` over seeds 1..[`SCALING_SEEDS`] of
/// every unit and profile given, `cycles` each, with 1, 2, 4, … workers up
/// to the machine's CPUs (and the CPUs themselves), with a CPU's speed at
/// each worker count, and the per-job overhead.
pub fn regress_scaling(
    exe: &Path,
    units: &[String],
    profiles: &[Profile],
    cycles: u64,
    rtl: Option<&Path>,
    work: &Path,
) -> Result<Scaling> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |j| Some(j * 2))
        .take_while(|&j| j <= cpus)
        .collect();
    if counts.last() != Some(&cpus) {
        counts.push(cpus);
    }
    let mut runs = Vec::new();
    let mut jobs = 0;
    for j in counts {
        let (wall, total, loops, n) = time_regress(exe, units, profiles, cycles, j, rtl, work)?;
        jobs = n;
        runs.push(ScalingRun {
            workers: j,
            wall,
            rate: rate(total, wall),
            loops,
            cpu: cpu_speed(j),
        });
    }
    let (wall, _, _, n) = time_regress(exe, units, profiles, OVERHEAD_CYCLES, 1, rtl, work)?;
    Ok(Scaling {
        jobs,
        cycles,
        runs,
        per_job: wall / n.max(1) as u32,
    })
}

/// The machine the figures come from.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Machine {
    /// CPU model.
    pub cpu: String,
    /// Logical CPUs.
    pub cores: usize,
    /// Total memory.
    pub memory: String,
    /// Operating system and kernel.
    pub os: String,
    /// The compiler this binary was built with (`rustc --version`).
    pub rust: String,
    /// The Verilator used and its version.
    pub verilator: String,
    /// C++ compiler (`$CXX` or `g++`) version.
    pub cxx: String,
    /// The copies of the hot loops this CPU runs (`gpucosim_model::cpu`).
    pub copies: String,
    /// Load average (1 min) when the suite started.
    pub load_before: String,
}

fn first_line(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The compiler Verilator's makefile (`include/verilated.mk` under its
/// `VERILATOR_ROOT`) builds with: its last `CXX = …` line.
#[doc(hidden)]
pub fn makefile_cxx(v: &Verilator) -> Option<String> {
    let out = Command::new(&v.exe)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let mk = std::fs::read_to_string(Path::new(&root).join("include").join("verilated.mk")).ok()?;
    mk.lines()
        .rev()
        .filter_map(|l| {
            let value = l
                .trim_start()
                .strip_prefix("CXX")?
                .trim_start()
                .strip_prefix('=')?;
            Some(value.trim().to_string())
        })
        .find(|c| !c.is_empty())
}

/// The first field of `/proc/loadavg`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

impl Machine {
    /// Describes this machine.
    pub fn describe() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                let kb: u64 = m
                    .lines()
                    .find_map(|l| l.strip_prefix("MemTotal:"))?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()?;
                Some(format!("{:.1} GiB", kb as f64 / (1024.0 * 1024.0)))
            })
            .unwrap_or_else(|| "unknown".into());
        let pretty = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                    .map(|v| v.trim_matches('"').to_string())
            })
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        let found = Verilator::locate(&rtlbuild::cache_root());
        let verilator = match &found {
            Ok(v) => format!(
                "{} ({})",
                first_line(&v.exe.display().to_string(), &["--version"]),
                v.exe.display()
            ),
            Err(e) => format!("unavailable: {e}"),
        };
        // The compiler the builds use: `$CXX`, else the makefile's.
        let (cxx, whose) = match rtlbuild::cxx_override() {
            Some(c) => (c, "$CXX"),
            None => (
                found
                    .ok()
                    .and_then(|v| makefile_cxx(&v))
                    .unwrap_or_else(|| "c++".into()),
                "Verilator's makefile",
            ),
        };
        let mut words = cxx.split_whitespace();
        let version = match words.next() {
            Some(prog) => {
                let mut args: Vec<&str> = words.collect();
                args.push("--version");
                first_line(prog, &args)
            }
            None => "unknown".into(),
        };
        Machine {
            cpu,
            cores,
            memory,
            os: format!("{pretty}, Linux {kernel}"),
            rust: env!("GPUCOSIM_RUSTC").to_string(),
            verilator,
            cxx: format!("{version} ({whose}: `{cxx}`)"),
            copies: gpucosim_model::cpu::level().to_string(),
            load_before: load_average(),
        }
    }
}

/// One run of the suite.
#[derive(Debug, Clone)]
pub struct BenchReport {
    /// The machine.
    pub machine: Machine,
    /// The command line of this run.
    pub command: String,
    /// Whether this binary was built with optimisations.
    pub release: bool,
    /// Cycles, seed and repeats used.
    pub spec: BenchSpec,
    /// Per unit and profile.
    pub rows: Vec<UnitFigures>,
    /// Cached start of `gpucosim run` per unit and profile.
    pub starts: Vec<(String, Profile, Duration)>,
    /// `regress` scaling, when measured; otherwise why not.
    pub regress: std::result::Result<Scaling, String>,
    /// Load average (1 min) when the suite ended.
    pub load_after: String,
    /// A timed mutation campaign, when asked for.
    pub mutate: Option<MutateFigures>,
    /// Peak memory of short and long runs per unit and profile, or why
    /// it was not measured.
    pub rss: std::result::Result<Vec<RssFigures>, String>,
    /// The cocotb example against `gpucosim run`, when asked for.
    pub cocotb: Option<Vec<CocotbFigures>>,
}

/// Peak resident memory of `gpucosim run` at two run lengths.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RssFigures {
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// The short run: cycles, peak RSS in MB, wall seconds.
    pub short: (u64, f64, f64),
    /// The long run: cycles, peak RSS in MB, wall seconds.
    pub long: (u64, f64, f64),
}

impl RssFigures {
    /// Megabytes the long run needed more than the short one.
    pub fn growth(&self) -> f64 {
        self.long.1 - self.short.1
    }
    /// Whether the peak stays flat in run length.
    pub fn flat(&self) -> bool {
        self.growth() <= targets::RSS_GROWTH_MB
    }
}

/// Measures the peak memory of `gpucosim run` (a child of `exe`) of `short`
/// and of `long` cycles.
pub fn rss_figures(
    exe: &Path,
    unit: &str,
    profile: Profile,
    (short, long): (u64, u64),
    rtl: Option<&Path>,
) -> Result<RssFigures> {
    let (s_mb, s_t) = peak_rss(exe, unit, profile, short, rtl)?;
    let (l_mb, l_t) = peak_rss(exe, unit, profile, long, rtl)?;
    Ok(RssFigures {
        unit: unit.to_string(),
        profile,
        short: (short, s_mb, s_t.as_secs_f64()),
        long: (long, l_mb, l_t.as_secs_f64()),
    })
}

/// A mutation campaign timed against building its mutants one by one.
#[derive(Debug, Clone)]
pub struct MutateFigures {
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Mutants run.
    pub mutants: usize,
    /// Kill rate of the campaign.
    pub kill_rate: Option<f64>,
    /// Seconds to build the instrumented model (from nothing cached).
    pub build: f64,
    /// Seconds of the unmutated runs.
    pub baseline: f64,
    /// Seconds running the mutants.
    pub runs: f64,
    /// Wall time of the whole campaign.
    pub total: f64,
    /// Seconds of separate builds of single mutants.
    pub separate: Vec<f64>,
    /// Load average (1 min) at the start and the end.
    pub load: (String, String),
}

impl MutateFigures {
    /// The campaign with one build per mutant instead: the mean separate
    /// build times the mutants, plus the same runs.
    pub fn separate_total(&self) -> f64 {
        let mean = self.separate.iter().sum::<f64>() / self.separate.len().max(1) as f64;
        mean * self.mutants as f64 + self.baseline + self.runs
    }

    /// The section of `BENCHMARKS.md`.
    pub fn markdown(&self) -> String {
        let mean = self.separate.iter().sum::<f64>() / self.separate.len().max(1) as f64;
        let builds: Vec<String> = self.separate.iter().map(|b| format!("{b:.1} s")).collect();
        format!(
            "`gpucosim mutate --unit {u} --profile {p} --mutants {n} --verify {k}` with its instrumented model built from nothing cached (`gpucosim bench --mutate {u}:{p}:{n}`), on this machine's cores:\n\n\
             | | one instrumented build | {n} separate builds (estimated) |\n|---|---:|---:|\n\
             | building | {b:.1} s (once) | {n} × {mean:.1} s = {sb:.0} s |\n\
             | unmutated runs | {bl:.1} s | {bl:.1} s |\n\
             | running the {n} mutants | {r:.1} s | {r:.1} s |\n\
             | **wall time** | **{t:.1} s** | **{st:.0} s** ({x:.1}×) |\n\n\
             The separate build time is the mean of {k} mutants built alone, measured in the same run ({builds}); \
             the instrumented model's wall time includes its {k} `--verify` builds. Kill rate of the sample: {kr}. \
             Load average (1 min): {l0} at the start, {l1} at the end.\n",
            u = self.unit,
            p = self.profile,
            n = self.mutants,
            k = self.separate.len(),
            b = self.build,
            sb = mean * self.mutants as f64,
            bl = self.baseline,
            r = self.runs,
            t = self.total,
            st = self.separate_total(),
            x = self.separate_total() / self.total.max(1e-9),
            builds = builds.join(", "),
            kr = self.kill_rate.map_or("-".into(), |r| format!("{:.1} %", 100.0 * r)),
            l0 = self.load.0,
            l1 = self.load.1,
        )
    }
}

/// Times a campaign of `n` mutants of `B` on `profile` whose instrumented
/// model is built afresh, with 3 of its mutants also built separately.
pub fn bench_mutate<B: Testbench>(
    exe: &Path,
    profile: Profile,
    n: usize,
    rtl: Option<&Path>,
) -> Result<MutateFigures> {
    use crate::mutate::{self, CampaignSpec};
    let load0 = load_average();
    let spec = CampaignSpec {
        rtl_arg: rtl.map(Path::to_path_buf),
        seeds: "1..16".parse().expect("a seed range"),
        cycles: 50_000,
        knobs: Vec::new(),
        stress: true,
        sample: Some(n),
        sample_seed: 1,
        ids: Vec::new(),
        jobs: std::thread::available_parallelism().map_or(1, |c| c.get()),
        verify: 3,
        timeout: None,
        fresh_build: true,
    };
    struct Quiet;
    impl mutate::Progress for Quiet {
        fn phase(&self, _: &str, _: &str) {}
        fn mutant(&self, _: &str, _: usize, _: usize, _: &mutate::MutantResult) {}
    }
    let stop = std::sync::atomic::AtomicBool::new(false);
    let t0 = Instant::now();
    let g = mutate::campaign::<B>(exe, profile, &spec, &stop, &Quiet)?;
    let total = t0.elapsed().as_secs_f64();
    Ok(MutateFigures {
        unit: B::UNIT.to_string(),
        profile,
        mutants: g.mutants.len(),
        kill_rate: mutate::report::summarise(&g).kill_rate,
        build: g.build_seconds,
        baseline: g.baseline_seconds,
        runs: g.run_seconds,
        total,
        separate: g.verified.iter().map(|v| v.build_seconds).collect(),
        load: (load0, load_average()),
    })
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT MET"
    }
}

/// `x` with two decimals, or as many more (up to six) as it takes for the
/// printed value to stay on `x`'s side of `target` (0.899 against 0.9
/// reads 0.899, 0.89996 reads 0.89996, never 0.90).
#[doc(hidden)]
pub fn against(x: f64, target: f64) -> String {
    let mut s = String::new();
    for d in 2..=6 {
        s = format!("{x:.d$}");
        let printed: f64 = s.parse().unwrap_or(x);
        if (printed >= target) == (x >= target) {
            break;
        }
    }
    s
}

/// A load in CPUs, or a dash when unknown.
fn cpus(load: Option<f64>) -> String {
    load.map_or("–".into(), |l| format!("{l:.2} CPU"))
}

/// The names of figures (1)–(7).
pub const FIGURES: [&str; 7] = [
    "(1) bare",
    "(2) shim",
    "(3) model",
    "(4) lock-step",
    "(5) pipelined",
    "(6) driver + model",
    "(7) driver",
];

fn si(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.2} M", rate / 1e6)
    } else if rate >= 1e3 {
        format!("{:.1} k", rate / 1e3)
    } else {
        format!("{rate:.0}")
    }
}

impl BenchReport {
    /// The table of rates, as printed and written to `BENCHMARKS.md`.
    pub fn table(&self) -> String {
        let mut s = String::new();
        s.push_str(
            "| unit | profile | words in/out | (1) bare Verilator, cycles/s | (2) RTL via shim | (3) model alone | (4) lock-step, 1 thread | (5) lock-step, pipelined | 4 ÷ 1 | 5 ÷ 1 | 3 ÷ 2 | VCD 1,024 cycles | cached start | other load |\n\
             |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for r in &self.rows {
            let start = self
                .starts
                .iter()
                .find(|(u, p, _)| *u == r.unit && *p == r.profile)
                .map(|(_, _, d)| format!("{:.0} ms", d.as_secs_f64() * 1e3))
                .unwrap_or_else(|| "–".into());
            let _ = writeln!(
                s,
                "| {} | {} | {}/{} | {} | {} | {} | {}{} | {} | {:.2} | {:.2} | {:.1}× | {:.1} ms ({} kB) | {} | {} |",
                r.unit,
                r.profile,
                r.words.0,
                r.words.1,
                si(r.bare),
                si(r.shim),
                si(r.model),
                si(r.lockstep),
                if r.agreed { "" } else { " (diverged)" },
                si(r.pipelined),
                r.ratio(),
                r.pipelined_ratio(),
                r.model_speedup(),
                r.vcd_ms,
                r.vcd_bytes.div_ceil(1024),
                start,
                cpus(r.max_load())
            );
        }
        s
    }

    /// Where a cycle of lock-step on one thread goes, in nanoseconds: the
    /// RTL through the shim (2), driver, generation and model (6), of them
    /// driver and generation (7) and the model (6) − (7), the rest (the
    /// engine's), and the ceilings of 4 ÷ 1 they leave, with this model and
    /// with one that cost nothing.
    pub fn cycle_cost_table(&self) -> String {
        let mut s = String::from(
            "| unit | profile | (1) bare | (2) RTL via shim | (6) driver, stimulus and model | (7) of them driver and stimulus | (6) − (7): the model | (2) + (6) | (4) lock-step, 1 thread | (4) − (2) − (6): the engine | 4 ÷ 1 | at most: (1) ÷ ((2) + (6)) | with a model at no cost: (1) ÷ ((2) + (7)) |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        let ns = |rate: f64| 1e9 / rate.max(1e-9);
        for r in &self.rows {
            let (b, sh, p, l) = (ns(r.bare), ns(r.shim), ns(r.producer), ns(r.lockstep));
            let d = ns(r.driver);
            let _ = writeln!(
                s,
                "| {} | {} | {b:.0} | {sh:.0} | {p:.0} | {d:.0} | {:.0} | {:.0} | {l:.0} | {:.0} | {} | {} | {} |",
                r.unit,
                r.profile,
                p - d,
                sh + p,
                l - sh - p,
                against(r.ratio(), targets::LOCKSTEP_RATIO),
                against(r.one_thread_ceiling(), targets::LOCKSTEP_RATIO),
                against(r.free_model_ceiling(), targets::LOCKSTEP_RATIO)
            );
        }
        s
    }

    /// The table of whole-run waveforms.
    pub fn dump_table(&self) -> String {
        let mut s = String::new();
        s.push_str(
            "| unit | profile | cycles | no waveform | VCD | VCD ÷ none | VCD size | FST | FST ÷ none | FST size | VCD ÷ FST size | other load |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for r in &self.rows {
            let d = &r.dump;
            let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.0} ms | {:.0} ms | {:.2} | {} | {:.0} ms | {:.2} | {} | {:.1}× | {} |",
                r.unit,
                r.profile,
                d.cycles,
                d.none_ms,
                d.vcd_ms,
                d.vcd_cost(),
                mb(d.vcd_bytes),
                d.fst_ms,
                d.fst_cost(),
                mb(d.fst_bytes),
                d.shrink(),
                cpus(d.load)
            );
        }
        s
    }

    /// Per figure: other processes' load while it was measured, how far its
    /// best rounds disagree, and extra rounds taken.
    pub fn rounds_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "| unit | profile | {} |\n|---|---|{}",
            FIGURES.join(" | "),
            "---:|".repeat(FIGURES.len())
        );
        for r in &self.rows {
            let cells: Vec<String> = r
                .rounds
                .iter()
                .map(|x| {
                    let mut c = format!("{}, {:.0} %", cpus(x.load()), 100.0 * x.spread());
                    if x.extra > 0 {
                        let _ = write!(
                            c,
                            " (was {:.0} %, +{} rounds)",
                            100.0 * x.first_spread,
                            x.extra
                        );
                    }
                    c
                })
                .collect();
            let _ = writeln!(s, "| {} | {} | {} |", r.unit, r.profile, cells.join(" | "));
        }
        s
    }

    /// Which figures were repeated and whether their rounds agree now.
    pub fn repeated(&self) -> String {
        let mut s = String::new();
        for r in &self.rows {
            for (name, x) in FIGURES.iter().zip(&r.rounds) {
                if x.extra == 0 && x.spread() <= SPREAD {
                    continue;
                }
                let _ = writeln!(
                    s,
                    "- {} {} {name}: best {} rounds {:.0} % apart, {} more round{} → {:.0} % apart: {}",
                    r.unit,
                    r.profile,
                    x.repeats,
                    100.0 * x.first_spread,
                    x.extra,
                    if x.extra == 1 { "" } else { "s" },
                    100.0 * x.spread(),
                    if x.spread() <= SPREAD {
                        "agree now"
                    } else {
                        "STILL DISAGREE (the figure is unreliable)"
                    }
                );
            }
        }
        if s.is_empty() {
            let _ = writeln!(
                s,
                "- none: every figure's best rounds agreed within {:.0} %",
                100.0 * SPREAD
            );
        }
        s
    }

    /// Peak memory of short and long runs.
    pub fn rss_table(&self) -> String {
        let rows = match &self.rss {
            Ok(rows) => rows,
            Err(why) => return format!("Not measured: {why}\n"),
        };
        let mut s = String::from(
            "| unit | profile | short run | peak RSS | long run | peak RSS | growth | flat |\n\
             |---|---|---:|---:|---:|---:|---:|---|\n",
        );
        for r in rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} cycles, {:.1} s | {:.1} MB | {} cycles, {:.1} s | {:.1} MB | {:+.1} MB | {} |",
                r.unit,
                r.profile,
                r.short.0,
                r.short.2,
                r.short.1,
                r.long.0,
                r.long.2,
                r.long.1,
                r.growth(),
                if r.flat() { "yes" } else { "NO" }
            );
        }
        s
    }

    /// The cocotb example against `gpucosim run`.
    pub fn cocotb_table(&self) -> Option<String> {
        let rows = self.cocotb.as_ref()?;
        let mut s = String::from(
            "| unit | profile | cycles | cocotb, no model | cocotb with the model | with ÷ without | `gpucosim run`: (4) 1 thread | (5) pipelined | (4) ÷ cocotb with the model |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        let mut errors = String::new();
        for c in rows {
            let row = self
                .rows
                .iter()
                .find(|r| r.unit == c.unit && r.profile == c.profile);
            let cell = |r: &std::result::Result<f64, String>| match r {
                Ok(v) => si(*v),
                Err(_) => "failed".into(),
            };
            for (what, r) in [
                ("with the model", &c.with_model),
                ("no model", &c.without_model),
            ] {
                if let Err(e) = r {
                    let _ = writeln!(errors, "- {} {} {what}: {e}", c.unit, c.profile);
                }
            }
            let ratio = |a: Option<f64>, b: Option<f64>, unit: &str| match (a, b) {
                (Some(a), Some(b)) => format!("{:.2}{unit}", a / b.max(1e-9)),
                _ => "–".into(),
            };
            let w = c.with_model.as_ref().ok().copied();
            let wo = c.without_model.as_ref().ok().copied();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                c.unit,
                c.profile,
                c.cycles,
                cell(&c.without_model),
                cell(&c.with_model),
                ratio(w, wo, ""),
                row.map_or("–".into(), |r| si(r.lockstep)),
                row.map_or("–".into(), |r| si(r.pipelined)),
                ratio(row.map(|r| r.lockstep), w, "×"),
            );
        }
        s.push_str(&errors);
        Some(s)
    }

    /// The targets and whether each is met.
    pub fn targets(&self) -> String {
        use targets::*;
        let mut s = String::new();
        for r in &self.rows {
            let _ = writeln!(
                s,
                "- {} {}: lock-step ÷ bare {} on one thread (target ≥ {LOCKSTEP_RATIO}): {}{}, {} pipelined (target ≥ {PIPELINED_RATIO:.1}): {}; model ÷ RTL alone {:.1}× (target ≥ {MODEL_SPEEDUP}×): {}; VCD window {:.1} ms (target < {VCD_MS} ms): {}{}",
                r.unit,
                r.profile,
                against(r.ratio(), LOCKSTEP_RATIO),
                met(r.ratio() >= LOCKSTEP_RATIO),
                if r.ratio() < LOCKSTEP_RATIO {
                    format!(
                        " (driver, stimulus and model alone leave at most {}, driver and stimulus alone {})",
                        against(r.one_thread_ceiling(), LOCKSTEP_RATIO),
                        against(r.free_model_ceiling(), LOCKSTEP_RATIO)
                    )
                } else {
                    String::new()
                },
                against(r.pipelined_ratio(), PIPELINED_RATIO),
                met(r.pipelined_ratio() >= PIPELINED_RATIO),
                r.model_speedup(),
                met(r.model_speedup() >= MODEL_SPEEDUP),
                r.vcd_ms,
                met(r.vcd_ms < VCD_MS),
                if r.agreed {
                    String::new()
                } else {
                    format!(
                        "; model and RTL DIVERGED after {} cycles, so the lock-step figure covers a short run",
                        r.lockstep_cycles
                    )
                }
            );
        }
        for r in &self.rows {
            let d = &r.dump;
            let _ = writeln!(
                s,
                "- {} {}: a whole-run FST costs {:.2}× the run without waveforms (target ≤ {FST_DUMP_COST}×): {}; it is {:.1}× smaller than the VCD (target ≥ {FST_SHRINK}×): {}",
                r.unit,
                r.profile,
                d.fst_cost(),
                met(d.fst_cost() <= FST_DUMP_COST),
                d.shrink(),
                met(d.shrink() >= FST_SHRINK)
            );
        }
        match &self.rss {
            Ok(rows) => {
                for r in rows {
                    let _ = writeln!(
                        s,
                        "- {} {}: peak RSS {:.1} MB after {} cycles, {:.1} MB after {} ({:+.1} MB; target ≤ +{RSS_GROWTH_MB} MB, flat in run length): {}",
                        r.unit,
                        r.profile,
                        r.short.1,
                        r.short.0,
                        r.long.1,
                        r.long.0,
                        r.growth(),
                        met(r.flat())
                    );
                }
            }
            Err(why) => {
                let _ = writeln!(s, "- peak RSS flat in run length: not measured: {why}");
            }
        }
        for r in &self.rows {
            if r.beats_its_ceiling() {
                let _ = writeln!(
                    s,
                    "- {} {}: lock-step on one thread ran at {:.2} of the bare loop, {:.0} % above the {:.2} that the RTL through the shim (2) and driver, stimulus and model (6), measured apart, leave it: the row's figures contradict each other (the machine's speed, or how fast the RTL's code runs in each process, changed between them), and its ratios are unreliable",
                    r.unit,
                    r.profile,
                    r.ratio(),
                    100.0 * (r.ratio() / r.one_thread_ceiling() - 1.0),
                    r.one_thread_ceiling()
                );
            }
            for (name, x) in FIGURES.iter().zip(&r.rounds) {
                if x.spread() > SPREAD {
                    let _ = writeln!(
                        s,
                        "- {} {} {name}: its best {} rounds still disagree by {:.0} % after {} more: the figure and its ratios are unreliable",
                        r.unit,
                        r.profile,
                        x.repeats,
                        100.0 * x.spread(),
                        x.extra
                    );
                }
            }
        }
        if let Some(worst) = self.starts.iter().map(|(_, _, d)| *d).max() {
            let _ = writeln!(
                s,
                "- cached start of `gpucosim run`: at most {:.0} ms (target < {START_S} s): {}",
                worst.as_secs_f64() * 1e3,
                met(worst.as_secs_f64() < START_S)
            );
        }
        match &self.regress {
            Ok(sc) => {
                if let Some((j, e)) = sc.efficiency() {
                    let _ = writeln!(
                        s,
                        "- `regress --jobs {j}` ÷ `--jobs 1`: {:.2}×, {:.0} % of linear on {} jobs (target ≥ {:.0} % up to the machine's CPUs): {}{}",
                        sc.speedup(j).unwrap_or(0.0),
                        100.0 * e,
                        sc.jobs,
                        100.0 * REGRESS_EFFICIENCY,
                        met(e >= REGRESS_EFFICIENCY),
                        if j > 1 {
                            format!(
                                "; with {j} workers the jobs' cycle loops ran at {:.2} of their speed with one{}, and the workers spent {:.0} % of the wall time in cycle loops ({:.0} % with one)",
                                sc.loop_speed(j).unwrap_or(0.0),
                                match sc.run(j).map(|r| &r.cpu) {
                                    Some(Ok(c)) => format!(" and an integer loop on each CPU at {c:.2} of its speed alone"),
                                    Some(Err(why)) => format!(" (a CPU's speed not measured: {why})"),
                                    None => String::new(),
                                },
                                100.0 * sc.busy(j).unwrap_or(0.0),
                                100.0 * sc.busy(1).unwrap_or(0.0)
                            )
                        } else {
                            String::new()
                        }
                    );
                }
                if let Some(o) = sc.overhead_share() {
                    let _ = writeln!(
                        s,
                        "- a regression job's overhead: {:.1} ms, {:.1} % of a job of {} cycles (target ≤ {:.0} %): {}",
                        sc.per_job.as_secs_f64() * 1e3,
                        100.0 * o,
                        sc.cycles,
                        100.0 * JOB_OVERHEAD,
                        met(o <= JOB_OVERHEAD)
                    );
                }
            }
            Err(why) => {
                let _ = writeln!(s, "- `regress` scaling: not measured: {why}");
            }
        }
        if !self.release {
            s.push_str("- WARNING: this binary was built without optimisations; run the suite with `cargo run --release`.\n");
        }
        s
    }

    /// The complete `BENCHMARKS.md`.
    pub fn markdown(&self) -> String {
        let m = &self.machine;
        let mut s = String::new();
        s.push_str("# Benchmarks\n\n");
        s.push_str(
            "Generated by `gpucosim bench`; do not edit by hand (see `docs/benchmarks.md` for \
             what is measured and how). Regenerate from a fresh clone with:\n\n\
             ```\ncargo run --release -- bench --write BENCHMARKS.md\n```\n\n",
        );
        let _ = writeln!(s, "This run: `{}`\n", self.command);
        let _ = writeln!(
            s,
            "{} cycles per measurement (2 reset cycles included), seed {}, best of {} runs per figure; rates in cycles per second.\n",
            self.spec.cycles, self.spec.seed, self.spec.repeats
        );
        s.push_str("## Figures\n\n");
        s.push_str(&self.table());
        let _ = write!(
            s,
            "\n(1) a bare Verilated C++ loop over the recorded inputs, evaluating with `eval()` as a \
             hand-written harness does; (2) the same RTL driven from Rust through the shim over the \
             same inputs, which evaluates the model's root directly where `eval()` adds only \
             bookkeeping with nothing to do (docs/architecture.md, \"Evaluating the RTL\"); (3) the model alone over the same inputs; (1)–(3) \
             timed in blocks of {BLOCK_CYCLES} cycles whose inputs are read first, untimed, so that they come \
             from cache as in lock-step; (4) full \
             lock-step: driver, model, RTL, compare and the record of differing cycles, on one thread \
             (each job of a `gpucosim regress` whose jobs keep its workers busy); (5) the same with driver and model on a second thread \
             ahead of the RTL (`gpucosim run` on two CPUs or more). \
             The checksums of (1) and (2) were equal in every row (`gpucosim bench` fails otherwise). \
             \"Other load\" is the highest CPU time other processes took during figures (1)–(7), in CPUs \
             (machine busy time from `/proc/stat` minus this process's and its children's); \
             on an idle machine it is close to 0. \
             Each row's figures (1)–(4), (6) and (7) (below) ran on one CPU, the bare loop's process included, and (5) on that CPU \
             and one more (`sched_setaffinity`), so that all of them get the same CPU on a machine whose CPUs \
             differ in speed or load: ",
        );
        let pins: Vec<String> = self
            .rows
            .iter()
            .map(|r| format!("{} {} {}", r.unit, r.profile, r.pinning.describe()))
            .collect();
        let _ = writeln!(s, "{}.\n", pins.join("; "));
        s.push_str("## Where a cycle on one thread goes\n\n");
        s.push_str(&self.cycle_cost_table());
        s.push_str(&format!(
            "\nNanoseconds a cycle, from the figures above and (6): driver, stimulus generator and model \
             closed-loop over the same number of fresh cycles of the same seed without RTL, in batches of \
             {ONE_THREAD_BATCH} cycles as one-thread lock-step produces them (what lock-step runs besides \
             the RTL before its own share), in the same rounds as (1)–(5) and on the CPU of (1)–(4). On \
             one thread a cycle costs at least (2) + (6), so lock-step ÷ bare cannot exceed \
             (1) ÷ ((2) + (6)) with this driver, stimulus and model; what (4) adds beyond (2) + (6) is the \
             engine's: the batches read back from the L2 cache, the call into the shim, the compare in \
             C++. (7): the same closed loop with the model replaced by a replay of the outputs \
             the driver reads (recorded from a run with the model; the driver then drives the same inputs, \
             `gpucosim bench` fails otherwise), so driver and stimulus alone; (6) − (7) is the model's share, and \
             (1) ÷ ((2) + (7)) is what 4 ÷ 1 could reach with a model that cost nothing: where that is below \
             the target, no change to the model alone meets it.\n\n"
        ));
        s.push_str("## Load and agreement of the rounds\n\n");
        s.push_str(&self.rounds_table());
        let _ = writeln!(
            s,
            "\nPer figure: other processes' load while its rounds ran (their CPU seconds over the rounds' wall time), \
             and how far its best {} rounds are apart (slowest ÷ fastest − 1). A figure whose best rounds are more \
             than {:.0} % apart gets up to {EXTRA_ROUNDS} more rounds of its own. Repeated figures:\n",
            self.spec.repeats,
            100.0 * SPREAD
        );
        s.push_str(&self.repeated());
        s.push('\n');
        s.push_str("## Whole-run waveforms\n\n");
        s.push_str(&self.dump_table());
        let _ = writeln!(
            s,
            "\nThe lock-step run of (4), {} cycles on one thread, without waveforms and with `--dump-all` in each format (`--waves-format vcd`, `fst`), each timed from the start of the run until its file is in place, best of {}; the FST encoder runs on a second thread.\n",
            self.rows.first().map_or(DUMP_CYCLES, |r| r.dump.cycles),
            self.spec.repeats
        );
        s.push_str("## Peak memory\n\n");
        s.push_str(&self.rss_table());
        s.push_str(
            "\nPeak resident memory (`VmHWM`, read from /proc while it runs) of `gpucosim run --cycles N` as a child process, \
             the RTL already built, at the figures' cycle count and ten times it; \
             run length must not change it (\"flat\": at most 2 MB more).\n\n",
        );
        if let Some(t) = self.cocotb_table() {
            s.push_str("## cocotb\n\n");
            s.push_str(&t);
            s.push_str(
                "\nThe cocotb example testbench of each unit (`python/examples/cocotb/run.py`, Verilator under cocotb 2, \
                 the gpucosim Python package driving the stimulus), with the model predicting and comparing every \
                 output each cycle and with `--no-model`, cycles per second as it logs them (measured inside its \
                 test loop, the build excluded; one run each, one profile), against the lock-step rates of \
                 `gpucosim run` on the same unit and profile from the table above.\n\n",
            );
        }
        if let Ok(sc) = &self.regress {
            s.push_str("## Regression scaling\n\n");
            s.push_str(&sc.markdown());
            s.push('\n');
        }
        if let Some(m) = &self.mutate {
            s.push_str("## Mutation campaign: one build for every mutant\n\n");
            s.push_str(&m.markdown());
            s.push('\n');
        }
        s.push_str("## Targets\n\n");
        s.push_str(&self.targets());
        s.push_str("\n## Machine\n\n");
        let _ = writeln!(s, "- CPU: {} ({} logical CPUs)", m.cpu, m.cores);
        let _ = writeln!(s, "- memory: {}", m.memory);
        let _ = writeln!(s, "- OS: {}", m.os);
        let _ = writeln!(s, "- Rust (that built this binary): {}", m.rust);
        let _ = writeln!(s, "- Verilator: {}", m.verilator);
        let _ = writeln!(s, "- C++ compiler: {}", m.cxx);
        let _ = writeln!(
            s,
            "- copies of the hot loops run (ta datapath and stimulus, checksums): {}",
            m.copies
        );
        let _ = writeln!(
            s,
            "- load average (1 min): {} at the start, {} at the end",
            m.load_before, self.load_after
        );
        s
    }
}

/// Peak resident memory of one `gpucosim run` of `cycles` cycles (a child
/// process of `exe`, the RTL already built): megabytes and wall time.
pub fn peak_rss(
    exe: &Path,
    unit: &str,
    profile: Profile,
    cycles: u64,
    rtl: Option<&Path>,
) -> Result<(f64, Duration)> {
    let mut cmd = Command::new(exe);
    cmd.args(["run", "--unit", unit, "--profile", profile.name()])
        .args(["--cycles", &cycles.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(r) = rtl {
        cmd.arg("--rtl").arg(r);
    }
    let t0 = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Env(format!("cannot run {}: {e}", exe.display())))?;
    // The child's own high-water mark, `VmHWM` of /proc/PID/status, read
    // until it exits. Not `wait4`'s `ru_maxrss`: Linux keeps in it the
    // resident size of the process that forked the child (this benchmark,
    // with its recorded inputs), so every run would show at least that.
    let status_file = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut hwm_kb = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                hwm_kb = hwm_kb.max(kb);
            }
        }
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(Error::Env(format!("waiting for gpucosim run: {e}"))),
        }
    };
    let took = t0.elapsed();
    if !status.success() {
        return Err(Error::Env(format!(
            "gpucosim run --unit {unit} --profile {profile} --cycles {cycles} did not pass"
        )));
    }
    if hwm_kb == 0 {
        return Err(Error::Env(format!(
            "cannot read the peak memory of gpucosim run from {}",
            status_file.display()
        )));
    }
    Ok((hwm_kb as f64 / 1024.0, took))
}

/// The cocotb example of one unit (`python/examples/cocotb/run.py`) with and
/// without the model, in cycles per second as it logs them (measured inside
/// its test loop, the build excluded).
#[derive(Debug, Clone, serde::Serialize)]
pub struct CocotbFigures {
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Cycles of each run.
    pub cycles: u64,
    /// With the model predicting and comparing, or why it failed.
    pub with_model: std::result::Result<f64, String>,
    /// The same testbench with `--no-model`, or why it failed.
    pub without_model: std::result::Result<f64, String>,
}

/// The cocotb example runner of this source tree.
pub fn cocotb_script() -> PathBuf {
    rtlbuild::builtin_rtl_root()
        .join("..")
        .join("python/examples/cocotb/run.py")
}

/// The last line of `text` that says what went wrong, shortened.
fn last_word(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let line = lines
        .iter()
        .rev()
        .find(|l| {
            l.contains("Error")
                || l.contains("error:")
                || l.contains("FAIL")
                || l.contains("run.py:")
        })
        .or(lines.last())
        .copied()
        .unwrap_or("no output");
    let mut s: String = line.chars().take(200).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    s
}

/// Checks that `python` runs and imports cocotb and gpucosim, and that the
/// example and Verilator are there: a one-line error naming what is missing
/// otherwise.
pub fn check_cocotb(python: &Path) -> Result<()> {
    let script = cocotb_script();
    if !script.is_file() {
        return Err(Error::Env(format!(
            "the cocotb example {} is missing",
            script.display()
        )));
    }
    let o = Command::new(python)
        .args(["-c", "import cocotb, cocotb_tools.runner, gpucosim"])
        .output()
        .map_err(|e| Error::Input(format!("--cocotb: cannot run {}: {e}", python.display())))?;
    if !o.status.success() {
        return Err(Error::Input(format!(
            "--cocotb: {} cannot import cocotb and gpucosim: {}",
            python.display(),
            last_word(&String::from_utf8_lossy(&o.stderr))
        )));
    }
    Verilator::locate(&rtlbuild::cache_root())?;
    Ok(())
}

/// One run of the cocotb example: the rate it logs, or a one-line reason.
/// Verilator's directory goes first on PATH (cocotb runs `verilator`).
#[allow(clippy::too_many_arguments)]
pub fn cocotb_rate(
    python: &Path,
    unit: &str,
    profile: Profile,
    seed: u64,
    cycles: u64,
    model: bool,
    rtl_root: &Path,
    build_dir: &Path,
) -> std::result::Result<f64, String> {
    let script = cocotb_script();
    let v = Verilator::locate(&rtlbuild::cache_root()).map_err(|e| e.to_string())?;
    let vdir = v.exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let old = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(vdir).chain(std::env::split_paths(&old)))
        .map_err(|e| format!("PATH: {e}"))?;
    let mut cmd = Command::new(python);
    cmd.arg(&script)
        .args(["--unit", unit, "--profile", profile.name()])
        .args(["--seed", &seed.to_string(), "--cycles", &cycles.to_string()])
        .arg("--rtl")
        .arg(rtl_root)
        .arg("--build-dir")
        .arg(build_dir)
        .env("PATH", path);
    if let Some(dir) = script.parent() {
        cmd.current_dir(dir);
    }
    if !model {
        cmd.arg("--no-model");
    }
    let what = format!(
        "run.py --unit {unit} --profile {profile} --cycles {cycles}{}",
        if model { "" } else { " --no-model" }
    );
    let o = cmd
        .output()
        .map_err(|e| format!("{what}: cannot run {}: {e}", python.display()))?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    if !o.status.success() {
        return Err(format!(
            "{what} failed ({}): {}",
            o.status,
            last_word(&text)
        ));
    }
    // "... no mismatch, 13823 cycles/s; ..."
    text.lines()
        .rev()
        .find_map(|l| {
            let (before, _) = l.split_once(" cycles/s")?;
            before.split_whitespace().last()?.parse::<f64>().ok()
        })
        .ok_or_else(|| format!("{what} logged no cycles/s"))
}

/// The cocotb example of each unit on `profile`, with and without the
/// model, `cycles` each; builds under `build_dir` (kept between runs).
pub fn bench_cocotb(
    python: &Path,
    units: &[String],
    profile: Profile,
    seed: u64,
    cycles: u64,
    rtl_root: &Path,
    build_dir: &Path,
) -> Result<Vec<CocotbFigures>> {
    check_cocotb(python)?;
    Ok(units
        .iter()
        .map(|u| {
            let run =
                |model| cocotb_rate(python, u, profile, seed, cycles, model, rtl_root, build_dir);
            // Without the model first: the build is done by then, whichever
            // run is timed.
            let without_model = run(false);
            let with_model = run(true);
            CocotbFigures {
                unit: u.clone(),
                profile,
                cycles,
                with_model,
                without_model,
            }
        })
        .collect())
}
