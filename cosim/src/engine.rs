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
use gpucosim_model::ports::{Dir, PortTable};
use gpucosim_model::{Coverage, Profile};
use gpucosim_waves::{Capture, Frame, Meta, VcdWriter};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::path::{Path, PathBuf};
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

/// The per-run machinery shared by fresh runs and replays.
pub fn run<B: Testbench>(
    spec: &RunSpec,
    rtl: &mut Rtl,
    stimulus: Stimulus<B::Txn>,
    rtl_trace: Option<(&Path, u64, u64)>,
) -> Result<Outcome<B::Txn>> {
    let table: &'static PortTable = B::table();
    let knobs = parse_knobs::<B>(&spec.knobs)?;
    let mut model = B::model(spec.profile);
    let mut driver = B::driver(spec.profile, &knobs);
    let replaying = matches!(stimulus, Stimulus::Replay(_));
    let mut src = Source::<B> {
        profile: spec.profile,
        knobs: &knobs,
        rng: ChaCha8Rng::seed_from_u64(spec.seed),
        directed: match stimulus {
            Stimulus::Fresh => B::directed(spec.profile).into_iter(),
            Stimulus::Replay(_) => Vec::new().into_iter(),
        },
        replay: match stimulus {
            Stimulus::Replay(v) => Some(v.into_iter()),
            Stimulus::Fresh => None,
        },
        consumed: Vec::new(),
    };
    if table.ports.first().map(|p| p.name) != Some("rst_ni") {
        return Err(Error::Input(format!(
            "unit {}: the first port must be rst_ni",
            table.unit
        )));
    }
    let rst = gpucosim_model::ports::Port::at(table.ports, 0);

    let mut inp = vec![0u32; table.in_words()];
    let mut mout = vec![0u32; table.out_words()];
    let mut rout = vec![0u32; table.out_words()];
    let mut capture = Capture::new(table, spec.window);
    let meta = Meta {
        comments: vec![
            format!("gpucosim {}", spec.name()),
            format!("reproduce: {}", spec.repro_command()),
        ],
    };
    let mut stream = match (&spec.waves, spec.dump_all) {
        (Some(dir), true) => {
            let path = dir.join(format!("{}.vcd", spec.name()));
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            let f = std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
            Some((
                VcdWriter::new(std::io::BufWriter::new(f), table, &meta)
                    .map_err(|e| Error::io(&path, e))?,
                path,
            ))
        }
        _ => None,
    };
    let mut mismatches = Vec::new();
    let mut diverging_cycles = 0usize;
    let mut context = None;
    let mut stop_at = u64::MAX;
    let mut done_cycles = 0u64;
    let mut tracing_rtl = false;

    let start = Instant::now();
    let mut cycle = 0u64;
    while cycle < spec.cycles && cycle <= stop_at {
        if let Some((path, from, _)) = rtl_trace {
            if cycle == from && !tracing_rtl {
                tracing_rtl = rtl.trace_open(path)?;
            }
        }
        inp.fill(0);
        let status = if cycle < RESET_CYCLES {
            Drive::Busy
        } else {
            rst.set(&mut inp, 1);
            driver.drive(&mout, &mut inp, &mut src)
        };
        model.step(&inp, &mut mout);
        rtl.step(&inp, &mut rout);
        capture.record(cycle, &inp, &mout, &rout);
        if let Some((w, p)) = &mut stream {
            w.frame(&Frame {
                cycle,
                inputs: &inp,
                model: &mout,
                rtl: &rout,
            })
            .map_err(|e| Error::io(&*p, e))?;
        }
        if mout != rout && diverging_cycles < spec.max_mismatches {
            diff(table, cycle, &mout, &rout, &mut mismatches);
            if context.is_none() {
                context = Some((driver.in_flight(), model.in_flight()));
            }
            diverging_cycles += 1;
            if diverging_cycles >= spec.max_mismatches {
                stop_at = cycle + spec.post;
            }
        }
        if let Some((_, _, until)) = rtl_trace {
            if tracing_rtl && cycle == until {
                rtl.trace_close();
                tracing_rtl = false;
            }
        }
        cycle += 1;
        if replaying && status == Drive::Done {
            // Let the last transaction's effects show for a few cycles.
            done_cycles += 1;
            if done_cycles > spec.post.max(2) {
                break;
            }
        }
    }
    let elapsed = start.elapsed();
    if tracing_rtl {
        rtl.trace_close();
    }
    let mut vcd = None;
    if let Some((w, p)) = stream {
        w.finish().map_err(|e| Error::io(&p, e))?;
        vcd = Some(p);
    } else if let (Some(dir), false) = (&spec.waves, mismatches.is_empty()) {
        let path = dir.join(format!("{}.vcd", spec.name()));
        gpucosim_waves::write_capture(&path, table, &capture, &meta)
            .map_err(|e| Error::io(&path, e))?;
        vcd = Some(path);
    }
    Ok(Outcome {
        cycles: cycle,
        txns: src.consumed,
        mismatches,
        context,
        vcd,
        coverage: model.coverage().clone(),
        elapsed,
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
