//! The contract between a reference model and the lock-step engine.

use crate::ports::PortTable;
use crate::profile::Profile;

/// A cycle-level reference model of one unit.
///
/// The engine calls [`Unit::step`] once per clock cycle with the packed input
/// words of that cycle (layout: [`PortTable`]). The model writes the outputs
/// the RTL shows in that cycle *before* the rising clock edge (they may depend
/// on the current state and, combinationally, on the inputs), then advances
/// its state across the edge. The RTL side does the same: inputs applied,
/// `eval()`, outputs sampled, rising edge. While `rst_ni` is low the model is
/// in its reset state and shows its reset outputs (the reset is asynchronous).
///
/// Example: a unit with a registered `q_o <= d_i` shows in cycle `n` the `d_i`
/// of cycle `n - 1`.
pub trait Unit: Send {
    /// The unit's port table.
    fn table(&self) -> &'static PortTable;
    /// The profile the model was built for.
    fn profile(&self) -> Profile;
    /// One clock cycle: outputs for this cycle, then the rising edge.
    fn step(&mut self, inputs: &[u32], outputs: &mut [u32]);
    /// A one-line description of the transaction(s) in flight, for reports.
    fn in_flight(&self) -> String;
    /// The unit's functional coverage, accumulated over all cycles stepped.
    fn coverage(&self) -> &Coverage;
    /// An independent copy of the model in its current state, coverage
    /// included. A testbench that needs a cycle's outputs before it knows
    /// whether the inputs are final (an event-driven simulator evaluating
    /// combinational paths, `gpucosim-dpi`'s `eval`) steps a fork and keeps
    /// it as the next state once the clock edge comes with those inputs.
    fn fork(&self) -> Box<dyn Unit>;
}

/// Functional coverage: named bins with hit counts. Each unit declares its
/// bins with [`bins!`](crate::bins) (`<unit>/cover.rs`), only on the profiles
/// where they can occur, so the list of bins never hit is meaningful.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// Bin names, fixed per unit and profile.
    pub names: &'static [&'static str],
    /// Hits per bin, same order as `names`.
    pub hits: Vec<u64>,
}

impl Coverage {
    /// A coverage record with every bin at zero.
    pub fn new(names: &'static [&'static str]) -> Self {
        Coverage {
            names,
            hits: vec![0; names.len()],
        }
    }
    /// Counts one hit of bin `i`.
    #[inline]
    pub fn hit(&mut self, i: usize) {
        self.hits[i] += 1;
    }
    /// Number of bins hit at least once.
    pub fn covered(&self) -> usize {
        self.hits.iter().filter(|&&h| h > 0).count()
    }
    /// Hits of the bin called `name`, or `None` if the unit has no such bin
    /// on this profile.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.names
            .iter()
            .position(|n| *n == name)
            .map(|i| self.hits[i])
    }
    /// Each bin's name with its hits, in declaration order.
    pub fn bins(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.names.iter().copied().zip(self.hits.iter().copied())
    }
    /// Every bin's hits keyed by its name (the form of results files and
    /// `run --json`).
    pub fn by_name(&self) -> std::collections::BTreeMap<String, u64> {
        self.bins().map(|(n, h)| (n.to_string(), h)).collect()
    }
    /// Names of the bins never hit.
    pub fn holes(&self) -> Vec<&'static str> {
        self.names
            .iter()
            .zip(&self.hits)
            .filter(|(_, &h)| h == 0)
            .map(|(n, _)| *n)
            .collect()
    }
}
