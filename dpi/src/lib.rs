//! gpucosim's reference models for other testbenches.
//!
//! - [`Model`]: a unit's cycle model for one profile, stepped with the
//!   packed input words of the unit's port table and giving the packed
//!   output words, either a whole cycle at a time ([`Model::step`], as the
//!   lock-step engine does) or split the way an event-driven simulator sees
//!   a clock cycle ([`Model::eval`] for the outputs of the current inputs,
//!   any number of times, then [`Model::tick`] for the rising edge);
//! - [`Stim`]: gpucosim's seeded, legal random stimulus for a unit, the
//!   inputs of one cycle at a time (reset cycles first);
//! - [`capi`]: both as a C ABI (`libgpucosim_dpi.so`, `include/gpucosim.h`),
//!   callable through SystemVerilog DPI-C;
//! - [`generate`]: the SystemVerilog package of DPI imports and, per unit, the
//!   reference module `<unit>_ref` with the ports of `<unit>_top` and an
//!   example testbench, generated from the port tables (`dpi/sv/`,
//!   `dpi/examples/`).
//!
//! Word layout: [`gpucosim_model::ports`](mod@gpucosim_model::ports) (every port at its word offset,
//! least significant word first; a SystemVerilog `bit [32*W-1:0]` vector
//! passed by DPI-C has exactly this layout).
#![warn(missing_docs)]

pub mod capi;
pub mod generate;

use gpucosim_model::ports::PortTable;
use gpucosim_model::{Coverage, Profile, Unit};
use gpucosim_tb::run::{self as engine, ModelRun, Stimulus};
use gpucosim_tb::testbench::{Drive, Testbench};
use gpucosim_tb::units;

/// Errors are one-line messages (what the C ABI's `gpucosim_last_error`
/// returns).
pub type Result<T> = std::result::Result<T, String>;

/// The port table of a registered unit.
pub fn table(unit: &str) -> Result<&'static PortTable> {
    units::port_tables()
        .find(|t| t.unit == unit)
        .ok_or_else(|| unknown_unit(unit))
}

fn unknown_unit(unit: &str) -> String {
    format!(
        "unknown unit `{}` (expected {})",
        units::clip(unit),
        units::UNIT_CHOICES
    )
}

fn profile(name: &str) -> Result<Profile> {
    name.parse::<Profile>().map_err(|e| e.to_string())
}

/// A unit's reference model for one profile.
pub struct Model {
    table: &'static PortTable,
    profile: Profile,
    committed: Box<dyn Unit>,
    /// What [`Model::eval`] computed last: its inputs, the model stepped on
    /// them (the next state if the edge comes with the same inputs) and its
    /// outputs.
    pending: Option<Pending>,
    /// The outputs of the last cycle committed: a model writes only the
    /// outputs that change, so each step starts from these.
    last: Vec<u32>,
}

struct Pending {
    inputs: Vec<u32>,
    next: Box<dyn Unit>,
    outputs: Vec<u32>,
}

impl Model {
    /// A model of `unit` (`ta`, `lds`, `waitcnt`) for `profile` (`gfx9`,
    /// `gfx11`) in its reset state.
    pub fn new(unit: &str, profile_name: &str) -> Result<Model> {
        let table = table(unit)?;
        let profile = profile(profile_name)?;
        let committed = gpucosim_tb::with_testbench!(unit, B => Ok(B::model(profile)))
            .map_err(|e| e.to_string())?;
        Ok(Model {
            table,
            profile,
            committed,
            pending: None,
            last: vec![0; table.out_words()],
        })
    }

    /// The unit's port table.
    pub fn table(&self) -> &'static PortTable {
        self.table
    }

    /// The unit's name.
    pub fn unit(&self) -> &'static str {
        self.table.unit
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Back to the state of a new model (coverage cleared too).
    pub fn reset(&mut self) {
        *self = Model::new(self.table.unit, self.profile.name()).expect("a model's own unit");
    }

    fn check(&self, inputs: &[u32], outputs: Option<&[u32]>) -> Result<()> {
        let (i, o) = (self.table.in_words(), self.table.out_words());
        if inputs.len() != i {
            return Err(format!(
                "{}: {} input words given, the port table has {i}",
                self.unit(),
                inputs.len()
            ));
        }
        match outputs {
            Some(out) if out.len() != o => Err(format!(
                "{}: room for {} output words given, the port table has {o}",
                self.unit(),
                out.len()
            )),
            _ => Ok(()),
        }
    }

    /// One whole clock cycle, as the lock-step engine runs it: the outputs
    /// of the cycle for `inputs`, then the rising edge.
    pub fn step(&mut self, inputs: &[u32], outputs: &mut [u32]) -> Result<()> {
        self.check(inputs, Some(outputs))?;
        self.pending = None;
        self.committed.step(inputs, &mut self.last);
        outputs.copy_from_slice(&self.last);
        Ok(())
    }

    /// The outputs of the current cycle for `inputs`, without the edge:
    /// may be called any number of times per cycle (every time an input
    /// changes). `rst_ni` low resets the state at once (the reset is
    /// asynchronous).
    pub fn eval(&mut self, inputs: &[u32], outputs: &mut [u32]) -> Result<()> {
        self.check(inputs, Some(outputs))?;
        if let Some(p) = &self.pending {
            if p.inputs == inputs {
                outputs.copy_from_slice(&p.outputs);
                return Ok(());
            }
        }
        if inputs[0] & 1 == 0 {
            // In reset the state is the reset state whatever happens next.
            self.pending = None;
            self.committed.step(inputs, &mut self.last);
            outputs.copy_from_slice(&self.last);
            return Ok(());
        }
        let mut next = self.committed.fork();
        let mut out = self.last.clone();
        next.step(inputs, &mut out);
        outputs.copy_from_slice(&out);
        self.pending = Some(Pending {
            inputs: inputs.to_vec(),
            next,
            outputs: out,
        });
        Ok(())
    }

    /// The rising edge with `inputs` (the inputs just before it).
    pub fn tick(&mut self, inputs: &[u32]) -> Result<()> {
        self.check(inputs, None)?;
        match self.pending.take() {
            Some(p) if p.inputs == inputs => {
                self.committed = p.next;
                self.last = p.outputs;
            }
            _ => self.committed.step(inputs, &mut self.last),
        }
        Ok(())
    }

    /// A one-line description of what is in flight.
    pub fn in_flight(&self) -> String {
        self.committed.in_flight()
    }

    /// The coverage accumulated over the cycles stepped (edges taken).
    pub fn coverage(&self) -> &Coverage {
        self.committed.coverage()
    }

    /// `covered N/M bins` and the bins never hit.
    pub fn coverage_summary(&self) -> String {
        let c = self.coverage();
        let holes = c.holes();
        let mut s = format!(
            "{} {}: covered {}/{} bins",
            self.unit(),
            self.profile.name(),
            c.covered(),
            c.names.len()
        );
        if !holes.is_empty() {
            s.push_str("; never hit: ");
            s.push_str(&holes.join(", "));
        }
        s
    }
}

/// The stimulus source behind a [`Stim`], for any unit.
trait Source: Send {
    fn next(&mut self, inputs: &mut [u32]) -> Drive;
    fn txns(&self) -> usize;
}

struct Run<B: Testbench> {
    run: ModelRun<'static, B>,
    cycle: u64,
    outputs: Vec<u32>,
}

impl<B: Testbench> Source for Run<B> {
    fn next(&mut self, inputs: &mut [u32]) -> Drive {
        let d = self.run.cycle(self.cycle, inputs, &mut self.outputs);
        self.cycle += 1;
        d
    }
    fn txns(&self) -> usize {
        self.run.txn_count()
    }
}

/// gpucosim's stimulus for a unit: the seeded random transactions of
/// `gpucosim run --seed N` (directed ones first), applied by the unit's
/// driver with its handshakes, closed-loop on the model's own outputs, so
/// the inputs it gives are those a lock-step run of that seed gives the
/// RTL, cycle for cycle, starting with the reset cycles.
pub struct Stim {
    table: &'static PortTable,
    source: Box<dyn Source>,
}

impl Stim {
    /// The stimulus of `unit`, `profile`, `seed`, with the `--knob`
    /// settings in `knobs` (`name=value` pairs separated by spaces or
    /// commas; empty for the defaults).
    pub fn new(unit: &str, profile_name: &str, seed: u64, knobs: &str) -> Result<Stim> {
        let table = table(unit)?;
        let profile = profile(profile_name)?;
        let pairs = parse_knob_pairs(knobs)?;
        let source = gpucosim_tb::with_testbench!(unit, B => {
            engine::parse_knobs::<B>(&pairs).map(|k| {
                Box::new(Run::<B> {
                    run: ModelRun::<B>::owned(profile, seed, k, Stimulus::Fresh),
                    cycle: 0,
                    outputs: vec![0; B::table().out_words()],
                }) as Box<dyn Source>
            })
        })
        .map_err(|e| e.to_string())?;
        Ok(Stim { table, source })
    }

    /// The inputs of the next cycle. `false` once the stimulus is used up
    /// and the unit idle (a fresh stimulus never is).
    pub fn next(&mut self, inputs: &mut [u32]) -> Result<bool> {
        let n = self.table.in_words();
        if inputs.len() != n {
            return Err(format!(
                "{}: room for {} input words given, the port table has {n}",
                self.table.unit,
                inputs.len()
            ));
        }
        Ok(self.source.next(inputs) == Drive::Busy)
    }

    /// Transactions consumed so far.
    pub fn txns(&self) -> usize {
        self.source.txns()
    }

    /// The unit's port table.
    pub fn table(&self) -> &'static PortTable {
        self.table
    }
}

/// `a=1 b=2,c=3` into pairs.
fn parse_knob_pairs(s: &str) -> Result<Vec<(String, String)>> {
    s.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| format!("knob `{}` is not name=value", units::clip(t)))
        })
        .collect()
}
