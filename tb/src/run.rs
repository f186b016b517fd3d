//! The model side of a run: where transactions come from ([`Stimulus`]),
//! the knobs that shape them ([`parse_knobs`]), and [`ModelRun`], which
//! drives a unit's model cycle by cycle exactly as a lock-step run does
//! (the co-simulator runs the RTL beside it; the DPI-C library and the
//! Python package run it alone).

use crate::error::{Error, Result};
use crate::testbench::{Drive, Driver, Index, Testbench, TxnSource};
use gpucosim_model::ports::{Dir, Port, PortTable};
use gpucosim_model::{Coverage, Profile, Unit};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::ops::Range;

/// Cycles with `rst_ni` low at the start of every run.
pub const RESET_CYCLES: u64 = 2;

/// Where transactions come from.
pub enum Stimulus<T> {
    /// Directed transactions, then seeded random ones without end.
    Fresh,
    /// The first `n` transactions of [`Stimulus::Fresh`] (a replay of a
    /// fresh run); the run ends when the driver reports them done.
    Prefix(usize),
    /// Exactly these transactions (a replay); the run ends when the driver
    /// reports them done.
    Replay(Vec<T>),
}

impl<T: Clone> Stimulus<T> {
    /// The stimulus replaying the first `n` transactions of this one.
    pub fn first(&self, n: usize) -> Stimulus<T> {
        match self {
            Stimulus::Fresh | Stimulus::Prefix(_) => Stimulus::Prefix(n),
            Stimulus::Replay(v) => Stimulus::Replay(v[..n.min(v.len())].to_vec()),
        }
    }
    /// The same stimulus again (a second run of it).
    pub fn again(&self) -> Stimulus<T> {
        match self {
            Stimulus::Fresh => Stimulus::Fresh,
            Stimulus::Prefix(n) => Stimulus::Prefix(*n),
            Stimulus::Replay(v) => Stimulus::Replay(v.clone()),
        }
    }
}

/// Transactions kept for the report of the one in flight (by the run that
/// takes it, [`ModelRun::context_at`]); older ones are regenerated from the
/// seed when asked for.
const RECENT: usize = 64;

/// The transactions of a run, counted as they are consumed.
struct Source<'a, B: Testbench> {
    profile: Profile,
    knobs: Cow<'a, B::Knobs>,
    seed: u64,
    version: u32,
    rng: ChaCha8Rng,
    directed: std::vec::IntoIter<B::Txn>,
    replay: Option<Vec<B::Txn>>,
    limit: Option<usize>,
    count: usize,
    /// Whether `recent` is kept: only for a report's context, so that the
    /// runs that check cycles clone no transaction.
    keep_recent: bool,
    recent: VecDeque<(usize, B::Txn)>,
}

impl<'a, B: Testbench> Source<'a, B> {
    fn new(
        profile: Profile,
        seed: u64,
        knobs: Cow<'a, B::Knobs>,
        stimulus: Stimulus<B::Txn>,
    ) -> Self {
        let (directed, replay, limit) = match stimulus {
            Stimulus::Fresh => (B::directed(profile), None, None),
            Stimulus::Prefix(n) => (B::directed(profile), None, Some(n)),
            Stimulus::Replay(v) => {
                let n = v.len();
                (Vec::new(), Some(v), Some(n))
            }
        };
        Source {
            profile,
            knobs,
            seed,
            version: crate::STIMULUS_VERSION,
            rng: ChaCha8Rng::seed_from_u64(seed),
            directed: directed.into_iter(),
            replay,
            limit,
            count: 0,
            keep_recent: false,
            recent: VecDeque::new(),
        }
    }

    /// Transaction `i` of this run's stimulus (consumed or not).
    fn nth(&self, i: usize) -> Option<B::Txn> {
        if let Some((_, t)) = self.recent.iter().find(|(j, _)| *j == i) {
            return Some(t.clone());
        }
        match &self.replay {
            Some(v) => v.get(i).cloned(),
            None => {
                let knobs = Cow::Borrowed(&*self.knobs);
                let mut s = Source::<B>::new(self.profile, self.seed, knobs, Stimulus::Fresh);
                s.version = self.version;
                (0..=i).filter_map(|_| s.next_txn()).last()
            }
        }
    }
}

impl<B: Testbench> TxnSource<B::Txn> for Source<'_, B> {
    fn next_txn(&mut self) -> Option<B::Txn> {
        if self.limit.is_some_and(|l| self.count >= l) {
            return None;
        }
        let t = match &self.replay {
            Some(v) => v[self.count].clone(),
            None => match self.directed.next() {
                Some(t) => t,
                None => B::generate(self.version, self.profile, &self.knobs, &mut self.rng),
            },
        };
        if self.keep_recent {
            if self.recent.len() == RECENT {
                self.recent.pop_front();
            }
            self.recent.push_back((self.count, t.clone()));
        }
        self.count += 1;
        Some(t)
    }
}

/// The first `n` transactions of a fresh run of seed `seed` under stimulus
/// version `version` (what a run that consumed `n` transactions was given).
pub fn fresh_txns<B: Testbench>(
    version: u32,
    profile: Profile,
    seed: u64,
    knobs: &[(String, String)],
    n: usize,
) -> Result<Vec<B::Txn>> {
    let knobs = parse_knobs::<B>(knobs)?;
    let mut s = Source::<B>::new(profile, seed, Cow::Owned(knobs), Stimulus::Prefix(n));
    s.version = crate::draw::check_version(version)?;
    Ok(std::iter::from_fn(|| s.next_txn()).collect())
}

/// Parses `--knob` pairs into the unit's knob struct: every name one of
/// the unit's [`Testbench::KNOBS`], given once, every value in its range,
/// and the unit's rules between knobs kept. Anything else is a one-line
/// [`Error::Input`] naming the knob and what it takes.
pub fn parse_knobs<B: Testbench>(pairs: &[(String, String)]) -> Result<B::Knobs> {
    use crate::testbench::KnobValues;
    let unit = B::UNIT;
    let mut obj = serde_json::to_value(B::Knobs::default())
        .map_err(|e| Error::Input(format!("knobs of unit {unit}: {e}")))?;
    let map = obj
        .as_object_mut()
        .ok_or_else(|| Error::Input(format!("unit {unit} has no knobs")))?;
    for (i, (k, v)) in pairs.iter().enumerate() {
        let Some(knob) = B::KNOBS.iter().find(|n| n.name == k) else {
            let known: Vec<&str> = B::KNOBS.iter().map(|n| n.name).collect();
            return Err(Error::Input(format!(
                "unknown knob `{}` for unit {unit} (known: {})",
                crate::units::clip(k),
                known.join(", ")
            )));
        };
        if pairs[..i].iter().any(|(p, _)| p == k) {
            return Err(Error::Input(format!(
                "knob `{k}` is given twice for unit {unit}"
            )));
        }
        let bad = || {
            let what = match knob.values {
                KnobValues::Int(..) => "an integer in",
                KnobValues::Real(..) => "a number in",
                KnobValues::Word(_) => "one of",
            };
            Error::Input(format!(
                "knob `{k}` of unit {unit}: `{}` is not {what} {}",
                crate::units::clip(v),
                knob.values
            ))
        };
        let val = match knob.values {
            KnobValues::Int(lo, hi) => {
                let n: i64 = v.trim().parse().map_err(|_| bad())?;
                if !(lo..=hi).contains(&n) {
                    return Err(bad());
                }
                serde_json::Value::from(n)
            }
            KnobValues::Real(lo, hi) => {
                let n: f64 = v.trim().parse().map_err(|_| bad())?;
                if !(lo..=hi).contains(&n) {
                    return Err(bad());
                }
                serde_json::Value::from(n)
            }
            KnobValues::Word(words) => {
                if !words.contains(&v.as_str()) {
                    return Err(bad());
                }
                serde_json::Value::String(v.clone())
            }
        };
        if !map.contains_key(k) {
            return Err(Error::Input(format!(
                "knob `{k}` of unit {unit} is in its table but not a field of its knobs"
            )));
        }
        map.insert(k.clone(), val);
    }
    let knobs: B::Knobs = serde_json::from_value(obj)
        .map_err(|e| Error::Input(format!("bad knob value for unit {unit}: {e}")))?;
    B::knob_rules(&knobs).map_err(|e| Error::Input(format!("unit {unit}: {e}")))?;
    Ok(knobs)
}

/// Cycles a run on one thread produces (driver and model) before it
/// checks them (the engine's `Checker::check_many`): one call into the
/// shim then steps and compares all that match, where a call per cycle
/// cost 6–12 % of the run (docs/benchmarks.md). From 32 to 256 cycles
/// measured the same; 64 keeps the ta unit's (560 words a cycle) in the L2
/// cache.
pub const ONE_THREAD_BATCH: usize = 64;

/// The side of lock-step that makes each cycle: the driver sets the inputs
/// (closed-loop on the model's outputs of the previous cycle) and the model
/// steps. It never looks at the RTL, so it may run ahead of it. It is also
/// the way to run a unit's model alone, exactly as a lock-step run does.
pub struct ModelRun<'a, B: Testbench> {
    model: Box<dyn Unit>,
    driver: B::Driver,
    src: Source<'a, B>,
    rst: Port,
}

impl<'a, B: Testbench> ModelRun<'a, B> {
    /// A fresh model and driver on `stimulus`.
    pub fn new(
        profile: Profile,
        seed: u64,
        knobs: &'a B::Knobs,
        stimulus: Stimulus<B::Txn>,
    ) -> Self {
        ModelRun {
            model: B::model(profile),
            driver: B::driver(profile, knobs),
            src: Source::new(profile, seed, Cow::Borrowed(knobs), stimulus),
            rst: Port::at(B::table().ports, 0),
        }
    }

    /// As [`ModelRun::new`], owning its knobs (a run kept beyond the
    /// caller's frame: a stimulus handed to another testbench).
    pub fn owned(
        profile: Profile,
        seed: u64,
        knobs: B::Knobs,
        stimulus: Stimulus<B::Txn>,
    ) -> ModelRun<'static, B> {
        let driver = B::driver(profile, &knobs);
        ModelRun {
            model: B::model(profile),
            driver,
            src: Source::new(profile, seed, Cow::Owned(knobs), stimulus),
            rst: Port::at(B::table().ports, 0),
        }
    }

    /// The same run with `model` in place of the unit's model (a stand-in
    /// that shows the driver what the model would).
    #[doc(hidden)]
    pub fn with_model(mut self, model: Box<dyn Unit>) -> Self {
        self.model = model;
        self
    }

    /// The same run drawing its random transactions from stimulus version
    /// `version` (by default [`crate::STIMULUS_VERSION`]); an error when
    /// this build does not generate it.
    pub fn with_stimulus_version(mut self, version: u32) -> Result<Self> {
        self.src.version = crate::draw::check_version(version)?;
        Ok(self)
    }

    /// Cycle `cycle`: its inputs into `inp`, the model's outputs into `mout`
    /// (which holds the previous cycle's outputs on entry). `rst_ni` is low
    /// for the first [`RESET_CYCLES`].
    #[inline]
    pub fn cycle(&mut self, cycle: u64, inp: &mut [u32], mout: &mut [u32]) -> Drive {
        let status = self.drive(cycle, inp, mout);
        self.model.step(inp, mout);
        status
    }

    /// Cycles `first..first + n` into the first `n` slots of a batch of
    /// `status.len()` slots: slot `k` of `inp` (the unit's input words),
    /// of `mout` (its output words) and of `status`. The model steps on
    /// the outputs of the cycle before, which for slot 0 are in the last
    /// slot (the previous batch's last cycle; zeros before the first).
    /// Called through [`Testbench::produce_batch`], which compiles this
    /// loop once per unit in this crate.
    #[inline]
    pub fn produce_batch(
        &mut self,
        first: u64,
        n: usize,
        inp: &mut [u32],
        mout: &mut [u32],
        status: &mut [Drive],
    ) {
        let table = B::table();
        let (iw, ow) = (table.in_words(), table.out_words());
        let batch = status.len();
        assert!(n <= batch && inp.len() == batch * iw && mout.len() == batch * ow);
        for k in 0..n {
            let from = if k == 0 { batch - 1 } else { k - 1 };
            mout.copy_within(from * ow..(from + 1) * ow, k * ow);
            status[k] = self.cycle(
                first + k as u64,
                &mut inp[k * iw..(k + 1) * iw],
                &mut mout[k * ow..(k + 1) * ow],
            );
        }
    }

    /// The first half of [`ModelRun::cycle`]: the driver sets the inputs;
    /// the model has not stepped yet.
    #[inline]
    fn drive(&mut self, cycle: u64, inp: &mut [u32], mout: &[u32]) -> Drive {
        if cycle < RESET_CYCLES {
            inp.fill(0);
            self.driver.drive_in_reset(cycle, inp);
            return Drive::Busy;
        }
        if let Some(status) = self.driver.drive_held(mout, inp) {
            return status;
        }
        inp.fill(0);
        self.rst.set(inp, 1);
        self.driver.drive(mout, inp, &mut self.src)
    }

    /// Runs a fresh run from cycle 0 until the driver reports its stimulus
    /// done (a [`Stimulus::Replay`] or [`Stimulus::Prefix`] consumed and the
    /// unit idle), for at most `limit` cycles, calling `each(cycle, inputs,
    /// outputs)` after every cycle. Returns the cycles run, `None` when the
    /// limit came first.
    pub fn run_until_done(
        &mut self,
        limit: u64,
        mut each: impl FnMut(u64, &[u32], &[u32]),
    ) -> Option<u64> {
        let table = B::table();
        let mut inp = vec![0u32; table.in_words()];
        let mut out = vec![0u32; table.out_words()];
        for cycle in 0..limit {
            let status = self.cycle(cycle, &mut inp, &mut out);
            each(cycle, &inp, &out);
            if status == Drive::Done {
                return Some(cycle + 1);
            }
        }
        None
    }

    /// Transactions consumed so far.
    pub fn txn_count(&self) -> usize {
        self.src.count
    }

    /// The model's coverage so far.
    pub fn coverage(&self) -> &Coverage {
        self.model.coverage()
    }

    /// The driver.
    pub fn driver(&self) -> &B::Driver {
        &self.driver
    }

    /// The driver, to configure it before the run.
    pub fn driver_mut(&mut self) -> &mut B::Driver {
        &mut self.driver
    }

    /// The model.
    pub fn model(&self) -> &dyn Unit {
        self.model.as_ref()
    }

    /// What the report says is in flight: the driver's transaction that
    /// concerns `focus` (the diverging lane or wave; its oldest when none)
    /// and the model's state. The transaction comes from the last 64 kept
    /// by [`ModelRun::context_at`], else it is made again from the seed.
    pub fn context(&self, focus: Option<(Index, usize)>) -> (Option<(usize, B::Txn)>, String) {
        let t = self
            .driver
            .in_flight_at(focus)
            .and_then(|i| self.src.nth(i).map(|t| (i, t)));
        (t, self.model.in_flight())
    }

    /// Runs cycles `0..=until` as [`ModelRun::cycle`] does, calling
    /// `each(cycle, inputs, outputs)` after every cycle, and returns the
    /// context in cycle `at` (at most `until`) as the waveform shows it:
    /// the inputs of the cycle applied, the model's state before its edge.
    pub fn context_at(
        &mut self,
        at: u64,
        until: u64,
        focus: Option<(Index, usize)>,
        mut each: impl FnMut(u64, &[u32], &[u32]),
    ) -> (Option<(usize, B::Txn)>, String) {
        let table = B::table();
        let (mut inp, mut mout) = (vec![0u32; table.in_words()], vec![0u32; table.out_words()]);
        let mut context = None;
        self.src.keep_recent = true;
        for c in 0..=until {
            self.drive(c, &mut inp, &mout);
            if c == at {
                context = Some(self.context(focus));
            }
            self.model.step(&inp, &mut mout);
            each(c, &inp, &mout);
        }
        context.unwrap_or_else(|| self.context(focus))
    }
}

/// Where the benchmark loops' checksum starts.
pub const CHECKSUM_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// The checksum the benchmark loops fold every cycle's packed outputs into,
/// so the bare loop, the shim and the model can be compared and no output
/// read is optimised away. A cycle's words are summed with distinct odd
/// weights (`Σ wᵢ·(2i+1)`, so a change to any one word always changes the
/// sum, and the multiplies are independent of each other), then the sum is
/// folded FNV-style into the checksum (so cycles are order-sensitive). The
/// weights are a table of u32s, so that each product is one 32 × 32 → 64
/// bit multiply the compiler vectorises (half the time of computing them
/// as u64s); the function is compiled here, in a fully optimised crate,
/// whoever calls it.
#[derive(Debug, Clone)]
pub struct OutputChecksum {
    #[doc(hidden)]
    pub weights: Vec<u32>,
    h: u64,
}

impl OutputChecksum {
    /// A checksum of cycles of `words` output words each.
    pub fn new(words: usize) -> Self {
        OutputChecksum {
            weights: (0..words as u32).map(|i| 2 * i + 1).collect(),
            h: CHECKSUM_SEED,
        }
    }

    /// Folds one cycle's output words in (as many as it was made for).
    /// On x86-64-v3 and v4 CPUs the sum runs in a copy compiled for AVX2
    /// or AVX-512 ([`gpucosim_model::cpu`]), four or eight products an
    /// instruction.
    pub fn fold(&mut self, words: &[u32]) {
        debug_assert_eq!(words.len(), self.weights.len());
        let s = weighted_sum(words, &self.weights);
        self.h = (self.h ^ s).wrapping_mul(0x0100_0000_01b3);
    }

    /// The checksum so far.
    pub fn value(&self) -> u64 {
        self.h
    }
}

gpucosim_model::hot_copies! {
    /// `Σ wᵢ·kᵢ` in u64, wrapping.
    pub fn weighted_sum(words: &[u32], weights: &[u32]) -> u64 = weighted_sum_body;
    copies weighted_sum_baseline, weighted_sum_x86_64_v3, weighted_sum_x86_64_v4, all in weighted_sum_copies;
}

#[inline(always)]
fn weighted_sum_body(words: &[u32], weights: &[u32]) -> u64 {
    words.iter().zip(weights).fold(0u64, |s, (&w, &k)| {
        s.wrapping_add(u64::from(w) * u64::from(k))
    })
}

/// Runs the driver closed-loop against the model for `cycles` cycles of a
/// fresh run of `seed` with the default knobs (directed transactions, then
/// seeded random ones), as the engine does (reset first), calling
/// `each(inputs, outputs)` after every cycle; returns the last cycle's
/// inputs and outputs.
#[inline]
fn closed_loop<B: Testbench>(
    profile: Profile,
    seed: u64,
    cycles: u64,
    each: impl FnMut(&[u32], &[u32]),
) -> (Vec<u32>, Vec<u32>) {
    let knobs = B::Knobs::default();
    let run = ModelRun::<B>::new(profile, seed, &knobs, Stimulus::Fresh);
    run_closed_loop(run, cycles, each)
}

/// The loop of [`closed_loop`] on `run`, calling `each(inputs, outputs)`
/// after every cycle; returns the last cycle's inputs and outputs.
#[inline]
#[doc(hidden)]
pub fn run_closed_loop<B: Testbench>(
    mut run: ModelRun<'_, B>,
    cycles: u64,
    mut each: impl FnMut(&[u32], &[u32]),
) -> (Vec<u32>, Vec<u32>) {
    let table = B::table();
    let mut inp = vec![0u32; table.in_words()];
    let mut out = vec![0u32; table.out_words()];
    for cycle in 0..cycles {
        // Fresh stimulus never runs out, so the status is always Busy.
        run.cycle(cycle, &mut inp, &mut out);
        each(&inp, &out);
    }
    (inp, out)
}

/// Every cycle's packed input words (`in_words` per cycle) of the
/// driver run closed-loop against the model for `cycles` cycles, as the
/// engine runs them (reset first; directed transactions, then seeded
/// random ones).
pub fn record_inputs<B: Testbench>(profile: Profile, seed: u64, cycles: u64) -> Result<Vec<u32>> {
    let iw = B::table().in_words();
    let total = usize::try_from(cycles)
        .ok()
        .and_then(|c| c.checked_mul(iw))
        .ok_or_else(|| Error::Input(format!("{cycles} cycles do not fit in memory")))?;
    let mut rec = Vec::with_capacity(total);
    closed_loop::<B>(profile, seed, cycles, |inp, _| rec.extend_from_slice(inp));
    Ok(rec)
}

/// The time the driver, the stimulus generator and the model take
/// closed-loop, without RTL, for `cycles` cycles of a fresh run of `seed`,
/// produced as one-thread lock-step produces them (batches of
/// [`ONE_THREAD_BATCH`] cycles, each cycle's inputs and outputs in a slot
/// of their own): what each cycle of lock-step costs on top of the RTL,
/// before the engine's own share (the run's set-up, microseconds,
/// included). Also returns a fold of the last outputs, so that nothing is
/// optimised away.
pub fn time_closed_loop<B: Testbench>(
    profile: Profile,
    seed: u64,
    cycles: u64,
) -> (std::time::Duration, u32) {
    let knobs = B::Knobs::default();
    let run = ModelRun::<B>::new(profile, seed, &knobs, Stimulus::Fresh);
    let t0 = std::time::Instant::now();
    let (_, out) = run_batches(run, cycles);
    let took = t0.elapsed();
    (took, std::hint::black_box(fold_words(&out)))
}

/// Runs `run` for `cycles` cycles as one-thread lock-step produces them,
/// [`ONE_THREAD_BATCH`] at a time through [`Testbench::produce_batch`]
/// (the timed loops of [`time_closed_loop`] and [`time_driver`]); returns
/// the last cycle's inputs and outputs.
fn run_batches<B: Testbench>(mut run: ModelRun<'_, B>, cycles: u64) -> (Vec<u32>, Vec<u32>) {
    let table = B::table();
    let (iw, ow) = (table.in_words(), table.out_words());
    let batch = ONE_THREAD_BATCH;
    let mut inp = vec![0u32; batch * iw];
    let mut out = vec![0u32; batch * ow];
    let mut status = vec![Drive::Busy; batch];
    let (mut cycle, mut n) = (0u64, 0usize);
    while cycle < cycles {
        n = (batch as u64).min(cycles - cycle) as usize;
        B::produce_batch(&mut run, cycle, n, &mut inp, &mut out, &mut status);
        cycle += n as u64;
    }
    match n {
        0 => (vec![0; iw], vec![0; ow]),
        n => (
            inp[(n - 1) * iw..n * iw].to_vec(),
            out[(n - 1) * ow..n * ow].to_vec(),
        ),
    }
}

/// A fold of `words` that the timed loops return, so that their last
/// cycle's words are not optimised away.
fn fold_words(words: &[u32]) -> u32 {
    words.iter().fold(0u32, |a, &w| a.rotate_left(5) ^ w)
}

/// The packed output words of the ports the driver of `B` reads
/// ([`Testbench::DRIVER_READS`]).
fn driver_read_words<B: Testbench>() -> Vec<Range<usize>> {
    let table = B::table();
    B::DRIVER_READS
        .iter()
        .map(|name| match table.find(name) {
            Some((def, port)) if def.dir == Dir::Out => port.offset..port.offset + port.words(),
            _ => panic!(
                "unit {}: DRIVER_READS names `{name}`, which is not one of its output ports",
                B::UNIT
            ),
        })
        .collect()
}

/// A stand-in for a unit's model that costs next to nothing: in each cycle
/// it shows the outputs the driver reads as a run of the model showed them
/// ([`DriverView::record`]), every other output 0. On it the driver drives
/// the same inputs as on the model, cycle for cycle, so that driver and
/// stimulus can be timed without the model ([`time_driver`]).
#[derive(Clone)]
#[doc(hidden)]
pub struct DriverView {
    table: &'static PortTable,
    profile: Profile,
    #[doc(hidden)]
    pub ranges: Vec<Range<usize>>,
    /// Each cycle's words of `ranges`, in order.
    words: Vec<u32>,
    at: usize,
    cov: Coverage,
}

impl DriverView {
    /// The outputs the driver of `B` reads in `cycles` cycles of a fresh
    /// closed-loop run of `seed` with the model (as [`record_inputs`]
    /// runs it); also returns that run's last inputs.
    #[doc(hidden)]
    pub fn record<B: Testbench>(
        profile: Profile,
        seed: u64,
        cycles: u64,
    ) -> Result<(DriverView, Vec<u32>)> {
        let ranges = driver_read_words::<B>();
        let per_cycle: usize = ranges.iter().map(Range::len).sum();
        let total = usize::try_from(cycles)
            .ok()
            .and_then(|c| c.checked_mul(per_cycle))
            .ok_or_else(|| Error::Input(format!("{cycles} cycles do not fit in memory")))?;
        let mut words = Vec::with_capacity(total);
        let (last, _) = closed_loop::<B>(profile, seed, cycles, |_, out| {
            for r in &ranges {
                words.extend_from_slice(&out[r.clone()]);
            }
        });
        let view = DriverView {
            table: B::table(),
            profile,
            ranges,
            words,
            at: 0,
            cov: Coverage::new(&[]),
        };
        Ok((view, last))
    }
}

impl Unit for DriverView {
    fn table(&self) -> &'static PortTable {
        self.table
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    #[inline]
    fn step(&mut self, _inputs: &[u32], outputs: &mut [u32]) {
        for r in &self.ranges {
            let n = r.len();
            outputs[r.clone()].copy_from_slice(&self.words[self.at..self.at + n]);
            self.at += n;
        }
    }

    fn in_flight(&self) -> String {
        "a replay of the outputs the driver reads".to_string()
    }

    fn coverage(&self) -> &Coverage {
        &self.cov
    }

    fn fork(&self) -> Box<dyn Unit> {
        Box::new(self.clone())
    }
}

/// The time driver and stimulus generator take closed-loop for `cycles`
/// cycles of a fresh run of `seed`, the model replaced by a replay of the
/// outputs the driver reads ([`Testbench::DRIVER_READS`]), recorded from a
/// run with the model first (untimed): what [`time_closed_loop`] measures
/// less the model, so that the difference is the model's share. Also
/// returns a fold of the last inputs. An error when the replay's last
/// inputs differ from the model run's: the driver then reads outputs the
/// list does not name.
pub fn time_driver<B: Testbench>(
    profile: Profile,
    seed: u64,
    cycles: u64,
) -> Result<(std::time::Duration, u32)> {
    let (view, expect) = DriverView::record::<B>(profile, seed, cycles)?;
    time_on_view::<B>(profile, seed, cycles, view, &expect)
}

/// [`time_driver`] on `view`, whose run with the model ended on the inputs
/// `expect`.
#[doc(hidden)]
pub fn time_on_view<B: Testbench>(
    profile: Profile,
    seed: u64,
    cycles: u64,
    view: DriverView,
    expect: &[u32],
) -> Result<(std::time::Duration, u32)> {
    let knobs = B::Knobs::default();
    let run = ModelRun::<B>::new(profile, seed, &knobs, Stimulus::Fresh).with_model(Box::new(view));
    let t0 = std::time::Instant::now();
    let (last, _) = run_batches(run, cycles);
    let took = t0.elapsed();
    if last != expect {
        return Err(Error::Env(format!(
            "unit {}: its driver drove other inputs on a replay of the outputs it reads ({}) than on the model: it reads outputs besides these",
            B::UNIT,
            B::DRIVER_READS.join(", ")
        )));
    }
    Ok((took, std::hint::black_box(fold_words(&last))))
}
