//! A kernel's transactions through a unit in lock-step: the one runner of
//! `gpucosim kernel run` (the waitcnt replay, and with `--launch` the
//! launch's LDS and TA traffic, one run per unit) and of the kernel jobs of
//! `gpucosim regress` (`--kernels`, `--launch`: one job per unit and seed).
//! Both name, budget, run and judge a kernel's run through [`KernelRun`]
//! and [`run`]; what they print and how they bundle a failure is theirs.
//!
//! **The cycle budget** ([`KernelRun::budget`]) is `--cycles` when the
//! command has it (`regress` always has: its `--cycles`, default 50,000, is
//! every job's), else `kernel run`'s default: for a launch, per unit, twice
//! what its traffic needs at the models' cycle counts ([`Need`]); for the
//! waitcnt replay [`REPLAY_CYCLES`]. A run that passes but whose budget
//! ended before the replay did — a transaction not yet consumed, or the
//! last one not yet finished — is not a pass ([`Ran::incomplete`]):
//! `kernel run` says `INCOMPLETE` (exit 2), a regression job is an error.

use crate::engine::{self, Outcome, RunSpec, Stimulus};
use crate::error::Result;
use crate::kernel::emu::{emulate_file, Emulation};
use crate::kernel::waitcnt_stim::StimOpts;
use crate::repro::ReproCommand;
use crate::rtl::Rtl;
use crate::testbench::Testbench;
use gpucosim_model::Profile;
use std::path::{Path, PathBuf};

/// The cycle budget of a kernel's waitcnt replay when the command gives
/// none (`kernel run` without `--cycles`).
pub const REPLAY_CYCLES: u64 = 1_000_000;

/// What one unit's share of a launch's traffic asks of the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    /// Its cycles at the model's counts: the LDS unit's busy cycles; for
    /// the TA unit, four per cache-line request (a line request a cycle,
    /// backpressure at most halving that, twice over).
    pub busy: u64,
    /// Its transactions.
    pub transactions: usize,
}

impl Need {
    /// The share of `em`'s traffic that goes to `unit` (`lds` or `ta`;
    /// none for another unit).
    pub fn of(em: &Emulation, unit: &str) -> Option<Need> {
        let t = &em.profile.total;
        match unit {
            "lds" => Some(Need {
                busy: t.lds_cycles,
                transactions: em.traffic.lds.len(),
            }),
            "ta" => Some(Need {
                busy: 4 * t.ta_lines,
                transactions: em.traffic.ta.len(),
            }),
            _ => None,
        }
    }

    /// Cycles enough for it: its busy cycles and the gaps and handshakes
    /// (6 cycles a transaction), twice over, and 1000 more.
    pub fn cycles(&self) -> u64 {
        2 * (self.busy + 6 * self.transactions as u64) + 1000
    }
}

/// Emulates the launch `launch` of a kernel of `file` (`kernel`: the one
/// named, else the launch's) with seed `seed`, keeping its traffic; the
/// file is read on `profile`, by default the one its target names.
pub fn emulate(
    file: &Path,
    profile: Option<Profile>,
    launch: &Path,
    kernel: Option<&str>,
    seed: u64,
) -> Result<(Emulation, Profile)> {
    let (prog, profile) = crate::kernel::read(file, profile)?;
    let em = emulate_file(file, &prog, profile, launch, kernel, Some(seed), true)?;
    Ok((em, profile))
}

/// One lock-step run of a kernel's transactions through one unit: what
/// names it (`UNIT.PROFILE.KERNEL.SEED`), budgets it and reproduces it.
#[derive(Debug, Clone)]
pub struct KernelRun {
    /// The kernel's file, as the reproduce command names it.
    pub file: PathBuf,
    /// The kernel's symbol.
    pub kernel: String,
    /// Profile.
    pub profile: Profile,
    /// The unit its transactions go to: `waitcnt` for the replay, `lds`
    /// or `ta` for a launch's traffic.
    pub unit: String,
    /// Seed (of the replay's paths and latencies, or of the launch's
    /// fills, samples, gaps and backpressure).
    pub seed: u64,
    /// The launch emulated, for a launch's traffic.
    pub launch: Option<PathBuf>,
    /// The waitcnt replay's settings, when the reproduce command names
    /// them all, its budget included (`kernel run` does; a regression
    /// runs the defaults).
    pub waitcnt_stim: Option<StimOpts>,
    /// `--cycles`, as given.
    pub cycles: Option<u64>,
    /// `--rtl`, as given.
    pub rtl_arg: Option<PathBuf>,
}

impl KernelRun {
    /// The cycle budget (the rule of the module's documentation): `--cycles`
    /// when given, else enough for `need` (a launch's share for this unit),
    /// else [`REPLAY_CYCLES`].
    pub fn budget(&self, need: Option<Need>) -> u64 {
        self.cycles
            .unwrap_or_else(|| need.map_or(REPLAY_CYCLES, |n| n.cycles()))
    }

    /// The `gpucosim kernel run` command that runs it again.
    pub fn reproduce(&self) -> ReproCommand {
        ReproCommand::KernelRun {
            file: self.file.clone(),
            launch: self.launch.clone(),
            profile: self.profile,
            seed: self.seed,
            kernel: self.kernel.clone(),
            waitcnt_stim: self.waitcnt_stim.map(|o| (o.waves, o.max_iterations)),
            cycles: match self.waitcnt_stim {
                Some(_) => Some(self.budget(None)),
                None => self.cycles,
            },
            rtl: self.rtl_arg.clone(),
        }
    }

    /// The run with budget `cycles`: named for the kernel, on `--rtl`,
    /// reproduced by [`KernelRun::reproduce`]; the rest `gpucosim run`'s
    /// defaults, for the caller to change.
    pub fn spec(&self, cycles: u64) -> RunSpec {
        let mut s = RunSpec::new(&self.unit, self.profile, self.seed, cycles);
        s.label = Some(self.kernel.clone());
        s.rtl_arg = self.rtl_arg.clone();
        s.reproduce = Some(self.reproduce());
        s
    }
}

/// A kernel's run through one unit: its outcome and the transactions it
/// was given.
pub struct Ran<T> {
    /// The outcome.
    pub out: Outcome<T>,
    /// The transactions.
    pub txns: Vec<T>,
    /// The cycle budget it had.
    pub budget: u64,
}

/// A run that passed but ended for its budget before the replay did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Incomplete {
    /// The budget.
    pub budget: u64,
    /// Transactions consumed.
    pub consumed: usize,
    /// Transactions given.
    pub total: usize,
}

impl Incomplete {
    /// What `kernel run` says after `INCOMPLETE NAME: `.
    pub fn line(&self) -> String {
        if self.consumed < self.total {
            format!(
                "the cycle budget ended after {} of {} transactions",
                self.consumed, self.total
            )
        } else {
            format!(
                "the cycle budget ended before the last of {} transactions had finished",
                self.total
            )
        }
    }

    /// A regression job's message.
    pub fn message(&self) -> String {
        if self.consumed < self.total {
            format!(
                "the cycle budget of {} cycles ended after {} of the kernel's {} transactions: raise --cycles",
                self.budget, self.consumed, self.total
            )
        } else {
            format!(
                "the cycle budget of {} cycles ended before the last of the kernel's {} transactions had finished: raise --cycles",
                self.budget, self.total
            )
        }
    }
}

impl<T> Ran<T> {
    /// Whether it passed but its budget ended before the replay did (a
    /// transaction not consumed, or the last not finished): then model and
    /// RTL have not been shown to agree on the kernel.
    pub fn incomplete(&self) -> Option<Incomplete> {
        let done = self.out.txn_count >= self.txns.len() && self.out.replay_finished;
        (self.out.passed() && !done).then_some(Incomplete {
            budget: self.budget,
            consumed: self.out.txn_count,
            total: self.txns.len(),
        })
    }

    /// The transactions a failure bundle lists: those up to the failure.
    pub fn listed(&self) -> &[T] {
        &self.txns[..self.out.txn_count.min(self.txns.len())]
    }
}

/// Runs `txns` through unit `B`'s model and `rtl` in lock-step as `spec`
/// says (its budget, waveforms, limits).
pub fn run<B: Testbench>(spec: &RunSpec, rtl: &mut Rtl, txns: Vec<B::Txn>) -> Result<Ran<B::Txn>> {
    let out = engine::run::<B>(spec, rtl, Stimulus::Replay(txns.clone()), None)?;
    Ok(Ran {
        out,
        txns,
        budget: spec.cycles,
    })
}
