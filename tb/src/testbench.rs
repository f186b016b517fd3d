//! Testbenches: each unit's testbench turns seeded random *transactions* into
//! per-cycle input words.
//!
//! A run's stimulus is a list of transactions (serialisable, so a failing run
//! can be saved, replayed and shrunk). A [`Driver`] applies them cycle by
//! cycle, honouring the unit's handshakes; it sees the model's outputs of the
//! previous cycle, so stimulus can be closed-loop (a sequencer that waits for
//! `ready`, a memory system that returns what was issued).
//!
//! Fresh runs draw transactions from [`Testbench::generate`] as the driver
//! asks for them, so a run of any length needs no up-front budget; the
//! transactions actually consumed are recorded for repro bundles.

use gpucosim_model::decode::Decoder;
use gpucosim_model::ports::PortTable;
use gpucosim_model::{Profile, Unit};
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// What the driver reports after driving a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drive {
    /// Inputs for this cycle are set; keep going.
    Busy,
    /// No transaction is left and the unit is idle: the run may end. The
    /// inputs were still set (to idle values) for this cycle.
    Done,
}

/// Where a driver takes its next transaction from.
pub trait TxnSource<T> {
    /// The next transaction, or `None` when the stimulus is exhausted.
    fn next_txn(&mut self) -> Option<T>;
}

/// Any iterator of transactions is a source (a replay list, a test's queue).
impl<T, I: Iterator<Item = T>> TxnSource<T> for I {
    fn next_txn(&mut self) -> Option<T> {
        self.next()
    }
}

/// Applies transactions to a unit's input ports, cycle by cycle.
pub trait Driver<T>: Send {
    /// Sets `inputs` (already zeroed, with `rst_ni` high) for the current
    /// cycle. `prev_out` holds the model's outputs of the previous cycle (all
    /// zeros in the first cycle after reset). Transactions are pulled from
    /// `src` when the driver is ready for one.
    fn drive(&mut self, prev_out: &[u32], inputs: &mut [u32], src: &mut dyn TxnSource<T>) -> Drive;
    /// Asked before [`Driver::drive`] in every cycle out of reset: when
    /// this cycle repeats inputs the driver already packed (an offer held
    /// until the unit takes it), writes every word of `inputs` (whatever
    /// they held, `rst_ni` high included) and returns the cycle's status,
    /// and `drive` is not called; otherwise leaves `inputs` alone and
    /// returns `None`. It spares the zeroing of the inputs that `drive`
    /// starts from. `prev_out` is as for `drive`. By default `None`.
    fn drive_held(&mut self, prev_out: &[u32], inputs: &mut [u32]) -> Option<Drive> {
        let _ = (prev_out, inputs);
        None
    }
    /// Sets `inputs` (already zeroed, with `rst_ni` low) for reset cycle
    /// `cycle` (`0..RESET_CYCLES`), for a unit whose cycle contract says
    /// what its outputs are in reset whatever the inputs. By default the
    /// inputs stay 0.
    fn drive_in_reset(&mut self, cycle: u64, inputs: &mut [u32]) {
        let _ = (cycle, inputs);
    }
    /// Index (in consumption order) of the oldest transaction still in
    /// flight, for mismatch reports.
    fn in_flight(&self) -> Option<usize>;
    /// Index of the transaction in flight that concerns element `focus`
    /// (the lane, wave, … that diverged): for a unit that serves one
    /// instruction at a time, [`Driver::in_flight`].
    fn in_flight_at(&self, focus: Option<(Index, usize)>) -> Option<usize> {
        let _ = focus;
        self.in_flight()
    }
}

/// What one element of an array port, or one bit of a mask, stands for:
/// how reports, waveform sessions and decoded views name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Index {
    /// A lane of the wave (`lane 17`).
    Lane,
    /// Dword `d` of lane `l` at index `4 * l + d` (`lane 4 dword 1`).
    LaneDword,
    /// An LDS bank (`bank 3`).
    Bank,
    /// A wave slot (`wave 1`).
    Wave,
    /// A byte of a line (`byte 40`).
    Byte,
    /// A return channel (`channel 2`).
    Channel,
}

impl Index {
    /// The noun, singular or plural: `lane`, `lanes`.
    pub fn noun(self, plural: bool) -> &'static str {
        let (one, many) = match self {
            Index::Lane | Index::LaneDword => ("lane", "lanes"),
            Index::Bank => ("bank", "banks"),
            Index::Wave => ("wave", "waves"),
            Index::Byte => ("byte", "bytes"),
            Index::Channel => ("channel", "channels"),
        };
        if plural {
            many
        } else {
            one
        }
    }

    /// The item an index names: the lane of a lane-dword index, the index
    /// itself otherwise.
    pub fn item(self, i: usize) -> usize {
        match self {
            Index::LaneDword => i / 4,
            _ => i,
        }
    }
}

/// A named set of knobs that drives a unit's error and corner paths
/// (injected protocol errors, out-of-range and misaligned accesses,
/// backpressure, …) harder than its defaults. `gpucosim regress` runs a
/// share of its seeds with one (docs/regress.md, "Stress variants").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Name, as it appears in job names (`UNIT.PROFILE.NAME.SEED`).
    pub name: &'static str,
    /// The knobs, `name=value` as `--knob` takes them.
    pub knobs: &'static [(&'static str, &'static str)],
}

/// The values a stimulus knob takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KnobValues {
    /// An integer from the first to the second, both included.
    Int(i64, i64),
    /// A number from the first to the second, both included.
    Real(f64, f64),
    /// One of these words.
    Word(&'static [&'static str]),
}

/// A percentage of transactions (or instructions): 0 to 100.
pub const PERCENT: KnobValues = KnobValues::Int(0, 100);

impl std::fmt::Display for KnobValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KnobValues::Int(lo, hi) => write!(f, "{lo}..={hi}"),
            KnobValues::Real(lo, hi) => write!(f, "{lo:?}..={hi:?}"),
            KnobValues::Word(ws) => write!(f, "{}", ws.join("|")),
        }
    }
}

/// One knob of a unit's random stimulus: a field of the unit's
/// [`Testbench::Knobs`], the values it takes and what it does. The one
/// table the CLI (`--knob`), the C and Python stimulus and the units' docs
/// read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knob {
    /// Name, as `--knob NAME=VALUE` takes it.
    pub name: &'static str,
    /// The values it takes.
    pub values: KnobValues,
    /// What it does, one line.
    pub help: &'static str,
}

/// The knobs of `B` as a Markdown table (name, values, default, meaning),
/// as the unit's doc shows them.
pub fn knob_doc<B: Testbench>() -> String {
    let defaults = serde_json::to_value(B::Knobs::default()).unwrap_or_default();
    let mut s = String::from("| knob | values | default | meaning |\n|---|---|---|---|\n");
    for k in B::KNOBS {
        let d = match defaults.get(k.name) {
            Some(serde_json::Value::String(w)) => w.clone(),
            Some(v) => v.to_string(),
            None => "?".into(),
        };
        let values = match k.values {
            KnobValues::Int(..) | KnobValues::Real(..) => k.values.to_string(),
            KnobValues::Word(ws) => ws
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(", "),
        };
        s.push_str(&format!("| `{}` | {values} | {d} | {} |\n", k.name, k.help));
    }
    s
}

/// The coverage-bin table of unit `B`, as its doc shows it: every bin of
/// any profile, in declaration order, and the profiles that have it.
pub fn bin_doc<B: Testbench>() -> String {
    let profiles: Vec<Profile> = Profile::all().collect();
    let per: Vec<&'static [&'static str]> = profiles
        .iter()
        .map(|p| B::model(*p).coverage().names)
        .collect();
    // Each profile's list is a subsequence of the declaration: merge them
    // keeping that order.
    let mut all: Vec<&'static str> = Vec::new();
    for names in &per {
        let mut at = 0;
        for n in names.iter() {
            match all.iter().position(|m| m == n) {
                Some(i) => at = i + 1,
                None => {
                    all.insert(at, n);
                    at += 1;
                }
            }
        }
    }
    let mut s = String::from("| bin |");
    for p in &profiles {
        s.push_str(&format!(" {p} |"));
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(profiles.len()));
    s.push('\n');
    for n in all {
        s.push_str(&format!("| `{n}` |"));
        for names in &per {
            s.push_str(if names.contains(&n) {
                " yes |"
            } else {
                " no |"
            });
        }
        s.push('\n');
    }
    s
}

/// An `eval` calculator: one request in, its result (or a one-line error)
/// out. A calculator may keep state between the requests of one input (the
/// LDS keeps its memory).
pub type Evaluator = Box<dyn FnMut(&serde_json::Value) -> Result<serde_json::Value, String>>;

/// A unit's testbench: what `gpucosim` needs of a unit besides its model
/// (the stimulus, the driver, the `eval` front end). Units are registered
/// in `units::units!`.
pub trait Testbench: 'static {
    /// One transaction of stimulus.
    type Txn: Serialize + DeserializeOwned + Clone + Debug + Send + 'static;
    /// Knobs biasing the random stimulus (deserialised from `--knob k=v`).
    type Knobs: Serialize + DeserializeOwned + Default + Clone + Debug + Send + Sync + 'static;
    /// The driver type.
    type Driver: Driver<Self::Txn>;

    /// Unit name on the command line.
    const UNIT: &'static str;

    /// The unit's port table.
    fn table() -> &'static PortTable;
    /// A fresh reference model.
    fn model(profile: Profile) -> Box<dyn Unit>;
    /// Draws one random transaction of stimulus version `version` (one of
    /// [`crate::draw::OLDEST_STIMULUS_VERSION`]..=[`crate::STIMULUS_VERSION`]).
    fn generate(
        version: u32,
        profile: Profile,
        knobs: &Self::Knobs,
        rng: &mut ChaCha8Rng,
    ) -> Self::Txn;
    /// Directed transactions (worked examples from the seeds, corner cases),
    /// run before the random ones when a seed asks for them.
    fn directed(profile: Profile) -> Vec<Self::Txn>;
    /// A driver for one run.
    fn driver(profile: Profile, knobs: &Self::Knobs) -> Self::Driver;
    /// Simpler variants of a transaction, simplest first, for shrinking
    /// (fewer active lanes, zeroed fields, smaller values). Empty when it is
    /// already as simple as it gets.
    fn simplify(txn: &Self::Txn) -> Vec<Self::Txn>;
    /// [`ModelRun::produce_batch`](crate::run::ModelRun::produce_batch):
    /// every testbench implements it with
    /// [`produce_batch_impl!`](crate::produce_batch_impl), that one call
    /// in a method of its own. The lock-step loop of driver and model is
    /// then compiled for each unit in the testbench's crate, fully
    /// optimised here; called through a generic function of the
    /// co-simulator's own crate, it would be compiled there, at that
    /// crate's opt-level 1 (`Cargo.toml`), with the driver's and the
    /// transaction source's generic code.
    fn produce_batch(
        run: &mut crate::run::ModelRun<'_, Self>,
        first: u64,
        n: usize,
        inp: &mut [u32],
        mout: &mut [u32],
        status: &mut [Drive],
    ) where
        Self: Sized;
    /// The `gpucosim eval` calculator of the unit on `profile` (request and
    /// result formats in the unit's doc).
    fn evaluator(profile: Profile) -> Evaluator;
    /// The unit's knobs: one entry per field of [`Testbench::Knobs`].
    const KNOBS: &'static [Knob];
    /// The output ports the driver reads, its only view of the unit: the
    /// stimulus of a run depends on the model's outputs through these
    /// alone (`crate::run` tests that a replay of them drives the same
    /// inputs, cycle for cycle; [`crate::run::time_driver`] times driver
    /// and stimulus on such a replay).
    const DRIVER_READS: &'static [&'static str];
    /// The rules between knobs (e.g. a least value not above a greatest):
    /// the first broken one, in one line.
    fn knob_rules(knobs: &Self::Knobs) -> std::result::Result<(), String> {
        let _ = knobs;
        Ok(())
    }
    /// The unit's stress variants (none by default).
    fn variants() -> &'static [Variant] {
        &[]
    }
    /// What the elements (or, for a mask, the bits) of `port` stand for;
    /// `None` for a plain value.
    fn index(port: &str) -> Option<Index> {
        let _ = port;
        None
    }
    /// The unit's decoder of waveform signals for `profile`: the values its
    /// model knows how to read from the captured ports (a V#'s fields, the
    /// LDS bank of a lane, the instruction in flight as text), computed
    /// only when a waveform is written. `None` (the default): none. The
    /// lanes of masks need no decoder: they follow [`Testbench::index`]
    /// (`crate::decoded::layout`).
    fn decoder(profile: Profile) -> Option<Box<dyn Decoder>> {
        let _ = profile;
        None
    }
    /// The structured inputs of `txn` decoded, a line each, as reports show
    /// them under the transaction (ta: the V#'s fields beside its hex).
    /// None by default.
    fn describe(profile: Profile, txn: &Self::Txn) -> Vec<String> {
        let _ = (profile, txn);
        Vec::new()
    }
}

/// The [`Testbench::produce_batch`] of a testbench, written inside its
/// `impl Testbench` block: a call of
/// [`ModelRun::produce_batch`](crate::run::ModelRun::produce_batch) that
/// is never inlined, so that the loop is instantiated where the testbench
/// is.
#[macro_export]
macro_rules! produce_batch_impl {
    () => {
        #[inline(never)]
        fn produce_batch(
            run: &mut $crate::run::ModelRun<'_, Self>,
            first: u64,
            n: usize,
            inp: &mut [u32],
            mout: &mut [u32],
            status: &mut [$crate::testbench::Drive],
        ) {
            run.produce_batch(first, n, inp, mout, status);
        }
    };
}
