//! The lock-step engine.
//!
//! Each cycle the driver sets the inputs, the model and the RTL step on the
//! same inputs, the capture ring records all three, and the two output
//! buffers are compared as packed words. The first divergence (or the first
//! `max_mismatches`) ends the run a few cycles later, so the waveform shows
//! what followed; the report names the cycle, the signal, both values
//! (decoded per element for array ports), the transaction in flight and the
//! command that reproduces it.

use crate::bench::{Drive, Driver, Testbench, TxnSource};
use crate::error::{Error, Result};
use crate::rtl::Rtl;
use gpucosim_model::ports::{Dir, Port, PortTable};
use gpucosim_model::{Coverage, Profile, Unit};
use gpucosim_waves::{Capture, Frame, Meta, VcdWriter};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Cycles with `rst_ni` low at the start of every run.
pub const RESET_CYCLES: u64 = 2;

/// How to run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Unit name.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Seed of the random stimulus.
    pub seed: u64,
    /// Cycle budget (reset included).
    pub cycles: u64,
    /// `--rtl` as given, for the repro command.
    pub rtl_arg: Option<PathBuf>,
    /// Directory for VCDs (none: no waveform is written).
    pub waves: Option<PathBuf>,
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
}

impl RunSpec {
    /// `UNIT.PROFILE.SEED`, the name of this run everywhere.
    pub fn name(&self) -> String {
        format!("{}.{}.{}", self.unit, self.profile, self.seed)
    }

    /// The command that reproduces this run.
    pub fn repro_command(&self) -> String {
        let mut s = format!(
            "gpucosim run --unit {} --profile {} --seed {} --cycles {}",
            self.unit, self.profile, self.seed, self.cycles
        );
        if let Some(r) = &self.rtl_arg {
            s.push_str(&format!(" --rtl {}", shell_quote(&r.display().to_string())));
        }
        for (k, v) in &self.knobs {
            s.push_str(&format!(" --knob {}", shell_quote(&format!("{k}={v}"))));
        }
        s.push_str(&format!(
            " --waves {}",
            self.waves
                .as_ref()
                .map(|w| shell_quote(&w.display().to_string()))
                .unwrap_or_else(|| "waves".into())
        ));
        s
    }
}

fn shell_quote(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
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
    /// For array ports: the first differing elements `(index, model, rtl)`.
    pub elements: Vec<(usize, u64, u64)>,
    /// Number of differing elements.
    pub elements_differing: usize,
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct Outcome<T> {
    /// Cycles simulated.
    pub cycles: u64,
    /// Transactions consumed, in order (the complete stimulus of the run).
    pub txns: Vec<T>,
    /// Divergences, in order.
    pub mismatches: Vec<Mismatch>,
    /// The transaction in flight at the first divergence, and the model's
    /// description of its state.
    pub context: Option<(Option<usize>, String)>,
    /// VCD written, if any.
    pub vcd: Option<PathBuf>,
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
    /// Whether model and RTL agreed.
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Where transactions come from.
pub enum Stimulus<T> {
    /// Directed transactions, then seeded random ones without end.
    Fresh,
    /// Exactly these transactions (a replay); the run ends when the driver
    /// reports them done.
    Replay(Vec<T>),
}

struct Source<'a, B: Testbench> {
    profile: Profile,
    knobs: &'a B::Knobs,
    rng: ChaCha8Rng,
    directed: std::vec::IntoIter<B::Txn>,
    replay: Option<std::vec::IntoIter<B::Txn>>,
    consumed: Vec<B::Txn>,
}

impl<B: Testbench> TxnSource<B::Txn> for Source<'_, B> {
    fn next_txn(&mut self) -> Option<B::Txn> {
        let t = match &mut self.replay {
            Some(r) => r.next()?,
            None => match self.directed.next() {
                Some(t) => t,
                None => B::generate(self.profile, self.knobs, &mut self.rng),
            },
        };
        self.consumed.push(t.clone());
        Some(t)
    }
}

/// Parses `--knob` pairs into the unit's knob struct.
pub fn parse_knobs<B: Testbench>(pairs: &[(String, String)]) -> Result<B::Knobs> {
    let mut obj = serde_json::to_value(B::Knobs::default())
        .map_err(|e| Error::Input(format!("knobs of unit {}: {e}", B::UNIT)))?;
    let map = obj
        .as_object_mut()
        .ok_or_else(|| Error::Input(format!("unit {} has no knobs", B::UNIT)))?;
    for (k, v) in pairs {
        if !map.contains_key(k) {
            let known: Vec<&str> = map.keys().map(|s| s.as_str()).collect();
            return Err(Error::Input(format!(
                "unknown knob `{k}` for unit {} (known: {})",
                B::UNIT,
                known.join(", ")
            )));
        }
        let val = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.clone()));
        map.insert(k.clone(), val);
    }
    serde_json::from_value(obj)
        .map_err(|e| Error::Input(format!("bad knob value for unit {}: {e}", B::UNIT)))
}

/// Cycles per chunk handed from the producing thread to the checking one.
const CHUNK: usize = 256;
/// Chunks between the two threads: how far driver and model may run ahead.
const CHUNKS: usize = 4;

/// The side of lock-step that makes each cycle: the driver sets the inputs
/// (closed-loop on the model's outputs of the previous cycle) and the model
/// steps. It never looks at the RTL, so it may run ahead of it.
struct Producer<'a, B: Testbench> {
    model: Box<dyn Unit>,
    driver: B::Driver,
    src: Source<'a, B>,
    rst: Port,
}

impl<'a, B: Testbench> Producer<'a, B> {
    fn new(profile: Profile, seed: u64, knobs: &'a B::Knobs, stimulus: Stimulus<B::Txn>) -> Self {
        let table = B::table();
        Producer {
            model: B::model(profile),
            driver: B::driver(profile, knobs),
            src: Source::<B> {
                profile,
                knobs,
                rng: ChaCha8Rng::seed_from_u64(seed),
                directed: match stimulus {
                    Stimulus::Fresh => B::directed(profile).into_iter(),
                    Stimulus::Replay(_) => Vec::new().into_iter(),
                },
                replay: match stimulus {
                    Stimulus::Replay(v) => Some(v.into_iter()),
                    Stimulus::Fresh => None,
                },
                consumed: Vec::new(),
            },
            rst: Port::at(table.ports, 0),
        }
    }

    /// Cycle `cycle`: its inputs into `inp`, the model's outputs into `mout`
    /// (which holds the previous cycle's outputs on entry).
    #[inline]
    fn cycle(&mut self, cycle: u64, inp: &mut [u32], mout: &mut [u32]) -> Drive {
        inp.fill(0);
        let status = if cycle < RESET_CYCLES {
            Drive::Busy
        } else {
            self.rst.set(inp, 1);
            self.driver.drive(mout, inp, &mut self.src)
        };
        self.model.step(inp, mout);
        status
    }

    /// What the report says is in flight: the driver's oldest transaction
    /// and the model's state.
    fn context(&self) -> (Option<usize>, String) {
        (self.driver.in_flight(), self.model.in_flight())
    }
}

/// The side of lock-step that checks each cycle: the RTL steps on the
/// produced inputs, the capture ring (and a full dump) records, the outputs
/// are compared as packed words, and the end of the run is decided.
struct Checker<'s> {
    spec: &'s RunSpec,
    table: &'static PortTable,
    rtl: &'s mut Rtl,
    rout: Vec<u32>,
    capture: Capture,
    stream: Option<(VcdWriter<BufWriter<File>>, PathBuf)>,
    rtl_trace: Option<(&'s Path, u64, u64)>,
    tracing_rtl: bool,
    mismatches: Vec<Mismatch>,
    diverging_cycles: usize,
    first_divergence: Option<u64>,
    stop_at: u64,
    replaying: bool,
    done_cycles: u64,
}

impl Checker<'_> {
    /// Checks cycle `cycle`; returns whether the run goes on to the next.
    #[inline]
    fn check(&mut self, cycle: u64, inp: &[u32], mout: &[u32], status: Drive) -> Result<bool> {
        if let Some((path, from, _)) = self.rtl_trace {
            if cycle == from && !self.tracing_rtl {
                self.tracing_rtl = self.rtl.trace_open(path)?;
            }
        }
        self.rtl.step(inp, &mut self.rout);
        self.capture.record(cycle, inp, mout, &self.rout);
        if let Some((w, p)) = &mut self.stream {
            w.frame(&Frame {
                cycle,
                inputs: inp,
                model: mout,
                rtl: &self.rout,
            })
            .map_err(|e| Error::io(&*p, e))?;
        }
        if *mout != *self.rout && self.diverging_cycles < self.spec.max_mismatches {
            diff(self.table, cycle, mout, &self.rout, &mut self.mismatches);
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
        if self.replaying && status == Drive::Done {
            // Let the last transaction's effects show for a few cycles.
            self.done_cycles += 1;
            if self.done_cycles > self.spec.post.max(2) {
                return Ok(false);
            }
        }
        let next = cycle + 1;
        Ok(next < self.spec.cycles && next <= self.stop_at)
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
/// With [`RunSpec::pipeline`], driver and model run on a second thread,
/// up to `CHUNKS × CHUNK` cycles ahead of the RTL, handing over their
/// inputs and expected outputs in chunks; this thread steps the RTL and
/// checks every cycle exactly as a single-threaded run does. When the run
/// ends before the producer's last cycle (a divergence, the end of a
/// replay), driver and model are run again alone, without the RTL, up to the
/// last cycle checked, so the transaction in flight, the model state, the
/// transactions consumed and the coverage are those of the cycles checked:
/// the outcome is the same, bit for bit, as without the pipeline.
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
    let replaying = matches!(stimulus, Stimulus::Replay(_));
    let (iw, ow) = (table.in_words(), table.out_words());
    let meta = Meta {
        comments: vec![
            format!("gpucosim {}", spec.name()),
            format!("reproduce: {}", spec.repro_command()),
        ],
    };
    let stream = match (&spec.waves, spec.dump_all) {
        (Some(dir), true) => {
            let path = dir.join(format!("{}.vcd", spec.name()));
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            let f = File::create(&path).map_err(|e| Error::io(&path, e))?;
            Some((
                VcdWriter::new(BufWriter::new(f), table, &meta).map_err(|e| Error::io(&path, e))?,
                path,
            ))
        }
        _ => None,
    };
    let mut chk = Checker {
        spec,
        table,
        rtl,
        rout: vec![0u32; ow],
        capture: Capture::new(table, spec.window),
        stream,
        rtl_trace,
        tracing_rtl: false,
        mismatches: Vec::new(),
        diverging_cycles: 0,
        first_divergence: None,
        stop_at: u64::MAX,
        replaying,
        done_cycles: 0,
    };

    let start = Instant::now();
    let (prod, cycle, context) = if spec.pipeline && spec.cycles > 0 {
        let again = match &stimulus {
            Stimulus::Fresh => Stimulus::Fresh,
            Stimulus::Replay(v) => Stimulus::Replay(v.clone()),
        };
        let prod = Producer::<B>::new(spec.profile, spec.seed, &knobs, stimulus);
        let (res, cycle, prod, produced) = pipelined(spec.cycles, prod, &mut chk);
        res?;
        match chk.first_divergence {
            None if cycle == produced => (prod, cycle, None),
            first => {
                // Driver and model ran past the last cycle checked: run
                // them again alone up to it.
                drop(prod);
                let mut prod = Producer::<B>::new(spec.profile, spec.seed, &knobs, again);
                let (mut inp, mut mout) = (vec![0u32; iw], vec![0u32; ow]);
                let mut context = None;
                for c in 0..cycle {
                    prod.cycle(c, &mut inp, &mut mout);
                    if first == Some(c) {
                        context = Some(prod.context());
                    }
                }
                (prod, cycle, context)
            }
        }
    } else {
        let mut prod = Producer::<B>::new(spec.profile, spec.seed, &knobs, stimulus);
        let (mut inp, mut mout) = (vec![0u32; iw], vec![0u32; ow]);
        let mut context = None;
        let mut cycle = 0u64;
        let mut go = spec.cycles > 0;
        while go {
            let status = prod.cycle(cycle, &mut inp, &mut mout);
            go = chk.check(cycle, &inp, &mout, status)?;
            if context.is_none() && chk.first_divergence == Some(cycle) {
                context = Some(prod.context());
            }
            cycle += 1;
        }
        (prod, cycle, context)
    };
    let elapsed = start.elapsed();

    if chk.tracing_rtl {
        chk.rtl.trace_close();
    }
    let mut vcd = None;
    if let Some((w, p)) = chk.stream.take() {
        w.finish().map_err(|e| Error::io(&p, e))?;
        vcd = Some(p);
    } else if let (Some(dir), false) = (&spec.waves, chk.mismatches.is_empty()) {
        let path = dir.join(format!("{}.vcd", spec.name()));
        gpucosim_waves::write_capture(&path, table, &chk.capture, &meta)
            .map_err(|e| Error::io(&path, e))?;
        vcd = Some(path);
    }
    Ok(Outcome {
        cycles: cycle,
        coverage: prod.model.coverage().clone(),
        txns: prod.src.consumed,
        mismatches: chk.mismatches,
        context,
        vcd,
        elapsed,
    })
}

/// Runs `prod` on a second thread and checks its cycles here, until the
/// checker ends the run or `cycles` are done. Returns the checker's result,
/// the cycles checked, the producer and the cycles it produced.
fn pipelined<'a, B: Testbench>(
    cycles: u64,
    prod: Producer<'a, B>,
    chk: &mut Checker<'_>,
) -> (Result<()>, u64, Producer<'a, B>, u64) {
    let table = B::table();
    let (iw, ow) = (table.in_words(), table.out_words());
    std::thread::scope(|s| {
        let (full_tx, full_rx) = mpsc::sync_channel::<Chunk>(CHUNKS);
        let (free_tx, free_rx) = mpsc::sync_channel::<Chunk>(CHUNKS + 1);
        for _ in 0..=CHUNKS {
            let chunk = Chunk {
                len: 0,
                inp: vec![0; CHUNK * iw],
                mout: vec![0; CHUNK * ow],
                status: vec![Drive::Busy; CHUNK],
            };
            free_tx
                .send(chunk)
                .expect("the channel has room for every chunk");
        }
        let producer = s.spawn(move || {
            let mut prod = prod;
            let (mut inp, mut mout) = (vec![0u32; iw], vec![0u32; ow]);
            let mut cycle = 0u64;
            while cycle < cycles {
                // The checker hangs up when it has seen enough.
                let Ok(mut ch) = free_rx.recv() else { break };
                ch.len = 0;
                while ch.len < CHUNK && cycle < cycles {
                    let k = ch.len;
                    ch.status[k] = prod.cycle(cycle, &mut inp, &mut mout);
                    ch.inp[k * iw..(k + 1) * iw].copy_from_slice(&inp);
                    ch.mout[k * ow..(k + 1) * ow].copy_from_slice(&mout);
                    ch.len += 1;
                    cycle += 1;
                }
                if full_tx.send(ch).is_err() {
                    break;
                }
            }
            (prod, cycle)
        });
        let mut res = Ok(());
        let mut cycle = 0u64;
        let mut go = true;
        while go {
            let Ok(ch) = full_rx.recv() else { break };
            for k in 0..ch.len {
                let inp = &ch.inp[k * iw..(k + 1) * iw];
                let mout = &ch.mout[k * ow..(k + 1) * ow];
                go = match chk.check(cycle, inp, mout, ch.status[k]) {
                    Ok(g) => g,
                    Err(e) => {
                        res = Err(e);
                        false
                    }
                };
                cycle += 1;
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
        (res, cycle, prod, produced)
    })
}

/// Records the differing output ports of one cycle.
fn diff(table: &PortTable, cycle: u64, m: &[u32], r: &[u32], out: &mut Vec<Mismatch>) {
    for (d, p) in table.of(Dir::Out) {
        let (ms, rs) = (p.slice(m), p.slice(r));
        if ms == rs {
            continue;
        }
        let mut elements = Vec::new();
        let mut differing = 0;
        if d.elems > 1 && d.elem_width <= 64 {
            for e in 0..d.elems as usize {
                let (a, b) = (p.elem(m, e), p.elem(r, e));
                if a != b {
                    differing += 1;
                    if elements.len() < 8 {
                        elements.push((e, a, b));
                    }
                }
            }
        }
        out.push(Mismatch {
            cycle,
            signal: d.name.to_string(),
            model: hex_words(ms, d.width()),
            rtl: hex_words(rs, d.width()),
            elements,
            elements_differing: differing,
        });
    }
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

/// The human-readable report of a divergence.
pub fn report<T: Serialize>(spec: &RunSpec, o: &Outcome<T>, table: &PortTable) -> String {
    let mut s = String::new();
    let Some(first) = o.mismatches.first() else {
        return s;
    };
    s.push_str(&format!(
        "DIVERGENCE in {} at cycle {}: model and RTL differ on {}\n",
        spec.name(),
        first.cycle,
        o.mismatches
            .iter()
            .filter(|m| m.cycle == first.cycle)
            .map(|m| m.signal.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for m in &o.mismatches {
        let ew = table
            .find(&m.signal)
            .map(|(d, _)| d.elem_width)
            .unwrap_or(32);
        if m.elements.is_empty() {
            s.push_str(&format!(
                "  cycle {} {}: model {} rtl {}\n",
                m.cycle, m.signal, m.model, m.rtl
            ));
        } else {
            s.push_str(&format!(
                "  cycle {} {}: {} element(s) differ\n",
                m.cycle, m.signal, m.elements_differing
            ));
            let digits = ew.div_ceil(4) as usize;
            for (e, a, b) in &m.elements {
                s.push_str(&format!(
                    "    [{e}] model 0x{a:0digits$x} rtl 0x{b:0digits$x}\n"
                ));
            }
            if m.elements_differing > m.elements.len() {
                s.push_str(&format!(
                    "    … {} more\n",
                    m.elements_differing - m.elements.len()
                ));
            }
        }
    }
    if let Some((idx, state)) = &o.context {
        if let Some(i) = idx {
            if let Some(t) = o.txns.get(*i) {
                let j = serde_json::to_string(t).unwrap_or_default();
                s.push_str(&format!("  transaction #{i} in flight: {j}\n"));
            }
        }
        if !state.is_empty() {
            s.push_str(&format!("  model state: {state}\n"));
        }
    }
    if let Some(v) = &o.vcd {
        s.push_str(&format!("  waveform: {}\n", v.display()));
    }
    s.push_str(&format!("  reproduce: {}\n", spec.repro_command()));
    s
}
