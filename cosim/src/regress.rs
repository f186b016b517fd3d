//! Regressions: many seeds across units and profiles in parallel, sharding,
//! JUnit, merged coverage, failure bundles, replay and shrinking.
//!
//! A regression is a [`Plan`]: jobs `UNIT.PROFILE.SEED` in a fixed order
//! (units, then profiles, then seeds). `--shard K/N` keeps the jobs whose
//! index `i` has `i % N == K - 1`, so the shards of one regression partition
//! its jobs whatever machine runs them; the list is computed lazily, so any
//! number of seeds can be sharded. Each shard writes a results file that
//! records its plan and shard; `gpucosim merge` combines them and refuses
//! (unless told otherwise) an incomplete set: a missing shard, or a shard
//! that was interrupted.
//!
//! Stopping (SIGINT, SIGTERM): no job starts once the stop is seen; jobs
//! that are running end at their next cycle and count as interrupted; every
//! job that finished is kept; the jobs that did not run are listed as
//! skipped in JUnit, and the results file says the run was interrupted.

use crate::codecov::{self, Checked, CodeCoverage};
use crate::engine::{self, Outcome, RunSpec, Stimulus, Verdict};
use crate::error::{Error, Result};
use crate::kernel::launch_run::{self, KernelRun, Need};
use crate::repro::ReproCommand;
use crate::rtl::Rtl;
use crate::rtlbuild;
use crate::testbench::{Testbench, Variant};
use crate::watchdog::Limits;
use gpucosim_model::Profile;
use gpucosim_waves::WaveFormat;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

pub use crate::bundle::{
    check_rtl_hash, commit_bundle, replay, replay_txns, shrink, stage_bundle, write_bundle, Repro,
    Shrunk, REPRO_FORMAT,
};

/// A compiled kernel of a regression: one kernel (by symbol) of a file,
/// replayed through the waitcnt unit on its profile as `gpucosim kernel
/// run` does, or (with a launch) emulated and its traffic for one unit run
/// as `gpucosim kernel run --launch` does.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelRef {
    /// The file (absolute).
    pub file: PathBuf,
    /// The kernel's symbol.
    pub name: String,
    /// Its profile.
    pub profile: Profile,
    /// The launch emulated (absolute), for traffic through `unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<PathBuf>,
    /// The unit its transactions go to.
    #[serde(default = "waitcnt_unit")]
    pub unit: String,
}

fn waitcnt_unit() -> String {
    "waitcnt".into()
}

impl KernelRef {
    /// Every kernel of `file` (assembly or a code object), on the profile
    /// its target names.
    pub fn all_in(file: &Path) -> Result<Vec<KernelRef>> {
        let (prog, profile) = crate::kernel::read(file, None)?;
        let file = file.canonicalize().map_err(|e| Error::io(file, e))?;
        Ok(prog
            .kernels
            .iter()
            .map(|k| KernelRef {
                file: file.clone(),
                name: k.name.clone(),
                profile,
                launch: None,
                unit: waitcnt_unit(),
            })
            .collect())
    }

    /// The launch `launch` of a kernel of `file`: one reference per unit
    /// its traffic goes to (lds, ta). The launch is read (and checked) now.
    pub fn launches(file: &Path, launch: &Path) -> Result<Vec<KernelRef>> {
        let (prog, profile) = crate::kernel::read(file, None)?;
        let l = crate::kernel::emu::launch::Launch::read(launch, &prog, profile, None, None)?;
        let file = file.canonicalize().map_err(|e| Error::io(file, e))?;
        let launch = launch.canonicalize().map_err(|e| Error::io(launch, e))?;
        Ok(["lds", "ta"]
            .iter()
            .map(|u| KernelRef {
                file: file.clone(),
                name: l.kernel.clone(),
                profile,
                launch: Some(launch.clone()),
                unit: u.to_string(),
            })
            .collect())
    }

    /// The transactions of seed `seed`: the waitcnt replay's, or the
    /// launch's traffic for `unit` (the seed drawing its fills, samples,
    /// gaps and backpressure).
    pub fn transactions(&self, seed: u64) -> Result<Vec<serde_json::Value>> {
        Ok(self.traffic(seed)?.0)
    }

    /// [`KernelRef::transactions`], and for a launch what they ask of the
    /// unit (for the default cycle budget).
    pub fn traffic(&self, seed: u64) -> Result<(Vec<serde_json::Value>, Option<Need>)> {
        fn json<T: Serialize>(t: &T) -> Result<serde_json::Value> {
            serde_json::to_value(t).map_err(|e| Error::Input(format!("kernel transaction: {e}")))
        }
        let Some(launch) = &self.launch else {
            let txns = self
                .stimulus(seed)?
                .iter()
                .map(json)
                .collect::<Result<_>>()?;
            return Ok((txns, None));
        };
        let (em, _) = launch_run::emulate(
            &self.file,
            Some(self.profile),
            launch,
            Some(&self.name),
            seed,
        )?;
        let txns = match self.unit.as_str() {
            "lds" => em.traffic.lds.iter().map(json).collect::<Result<_>>()?,
            _ => em.traffic.ta.iter().map(json).collect::<Result<_>>()?,
        };
        Ok((txns, Need::of(&em, &self.unit)))
    }

    /// Its lock-step run with seed `seed`, as `kernel run` does it with
    /// `cycles` (`--cycles`) and `rtl_arg` (`--rtl`).
    pub fn run_of(&self, seed: u64, cycles: Option<u64>, rtl_arg: Option<PathBuf>) -> KernelRun {
        KernelRun {
            file: self.file.clone(),
            kernel: self.name.clone(),
            profile: self.profile,
            unit: self.unit.clone(),
            seed,
            launch: self.launch.clone(),
            waitcnt_stim: None,
            cycles,
            rtl_arg,
        }
    }

    /// The waitcnt transactions of seed `seed` (`kernel run`'s defaults).
    pub fn stimulus(&self, seed: u64) -> Result<Vec<crate::units::waitcnt::txn::WaitcntTxn>> {
        let (prog, profile) = crate::kernel::read(&self.file, Some(self.profile))?;
        let k = prog
            .kernels
            .iter()
            .find(|k| k.name == self.name)
            .ok_or_else(|| {
                Error::Input(format!(
                    "{}: no kernel `{}`",
                    self.file.display(),
                    self.name
                ))
            })?;
        let pr = crate::kernel::check::KernelFlow::new(k, profile).map_err(|e| {
            Error::Input(format!("{}: kernel {}: {e}", self.file.display(), k.name))
        })?;
        Ok(crate::kernel::waitcnt_stim::stimulus(
            &pr,
            seed,
            &crate::kernel::waitcnt_stim::StimOpts::default(),
        ))
    }
}

/// One job of a regression.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Seed.
    pub seed: u64,
    /// The kernel replayed, for a kernel job (unit `waitcnt`); none for the
    /// unit's random stimulus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<KernelRef>,
    /// The stress variant whose knobs the job runs with ([`variant_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

impl Job {
    /// `UNIT.PROFILE.SEED`, `UNIT.PROFILE.VARIANT.SEED` for a stress
    /// variant, or `waitcnt.PROFILE.KERNEL.SEED` for a kernel.
    pub fn name(&self) -> String {
        match (&self.kernel, &self.variant) {
            (Some(k), _) => format!("{}.{}.{}.{}", self.unit, self.profile, k.name, self.seed),
            (None, Some(v)) => format!("{}.{}.{v}.{}", self.unit, self.profile, self.seed),
            (None, None) => format!("{}.{}.{}", self.unit, self.profile, self.seed),
        }
    }
    /// `UNIT.PROFILE`.
    pub fn group(&self) -> String {
        format!("{}.{}", self.unit, self.profile)
    }
}

/// Every `STRESS_EVERY`-th seed (seed % STRESS_EVERY == 0) of a unit's
/// random jobs runs with one of the unit's stress variants, unless the plan
/// turns them off (`--no-stress`).
pub const STRESS_EVERY: u64 = 4;

/// The stress variant that seed `seed` of `unit` runs with in a plan with
/// variants: for seeds that are a multiple of [`STRESS_EVERY`], the unit's
/// variants in turn (seed 4 the first, 8 the second, …); none for the other
/// seeds or a unit without variants. A function of the unit and seed alone,
/// so every shard of a plan agrees.
pub fn variant_of(unit: &str, seed: u64) -> Option<&'static Variant> {
    let vs = crate::units::variants(unit);
    if !seed.is_multiple_of(STRESS_EVERY) || vs.is_empty() {
        return None;
    }
    let k = (seed / STRESS_EVERY).wrapping_sub(1) % vs.len() as u64;
    vs.get(k as usize)
}

/// The knobs of a job run with variant `v`: the variant's, except those
/// the user set, then the user's (`user`, as given). User knobs win.
pub fn variant_knobs(v: &Variant, user: &[(String, String)]) -> Vec<(String, String)> {
    let mut k: Vec<(String, String)> = v
        .knobs
        .iter()
        .filter(|(n, _)| !user.iter().any(|(u, _)| u == n))
        .map(|(n, val)| (n.to_string(), val.to_string()))
        .collect();
    k.extend(user.iter().cloned());
    k
}

/// A shard `K/N` (1-based `K`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// This shard, 1..=n.
    pub k: u32,
    /// Number of shards.
    pub n: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || format!("bad shard `{s}`: expected K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// A range of seeds, `A..B` (inclusive) or `N` (1..=N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seeds {
    /// First seed.
    pub first: u64,
    /// Last seed (inclusive).
    pub last: u64,
}

impl Seeds {
    /// Number of seeds (up to 2^64).
    pub fn count(&self) -> u128 {
        (self.last - self.first) as u128 + 1
    }
}

impl std::str::FromStr for Seeds {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || format!("bad seed range `{s}`: expected A..B (inclusive) or a count N");
        if let Some((a, b)) = s.split_once("..") {
            let first: u64 = a.trim().parse().map_err(|_| bad())?;
            let last: u64 = b
                .trim()
                .trim_start_matches('=')
                .parse()
                .map_err(|_| bad())?;
            if last < first {
                return Err(format!(
                    "bad seed range `{s}`: it starts after it ends ({first} > {last})"
                ));
            }
            Ok(Seeds { first, last })
        } else {
            let n: u64 = s.trim().parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(format!("bad seed range `{s}`: a count of no seeds"));
            }
            Ok(Seeds { first: 1, last: n })
        }
    }
}

impl std::fmt::Display for Seeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.first, self.last)
    }
}

/// What a regression runs: its jobs are every unit × profile × seed, in
/// that order, then every kernel × seed, each for `cycles` cycles with
/// `knobs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Units.
    pub units: Vec<String>,
    /// Profiles.
    pub profiles: Vec<Profile>,
    /// Seeds.
    pub seeds: Seeds,
    /// Cycles per job.
    pub cycles: u64,
    /// `--knob` pairs as given.
    pub knobs: Vec<(String, String)>,
    /// Compiled kernels replayed through the waitcnt unit (`--kernels`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernels: Vec<KernelRef>,
    /// Whether a share of the seeds runs with the units' stress variants
    /// ([`variant_of`]; off with `--no-stress`). Results files written
    /// before variants existed read as without.
    #[serde(default)]
    pub stress: bool,
    /// Whether the RTL runs built with code coverage (`--code-coverage`),
    /// its counts merged per unit and profile.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub code_coverage: bool,
    /// The stimulus version the jobs' seeds drew (`gpucosim_tb::draw`);
    /// results files written before it was recorded read as version 1.
    #[serde(default = "stimulus_version_one")]
    pub stimulus: u32,
}

fn stimulus_version_one() -> u32 {
    1
}

impl Plan {
    /// Number of jobs (fails beyond 2^64).
    pub fn total(&self) -> Result<u64> {
        let n = self.seeds.count()
            * (self.units.len() as u128 * self.profiles.len() as u128 + self.kernels.len() as u128);
        u64::try_from(n).map_err(|_| Error::Input(format!("{n} jobs are too many")))
    }

    /// Job `i` in canonical order.
    pub fn job(&self, i: u64) -> Job {
        let seeds = self.seeds.count() as u64;
        let per_unit = seeds * self.profiles.len() as u64;
        let unit_jobs = per_unit * self.units.len() as u64;
        if i >= unit_jobs {
            let k = &self.kernels[((i - unit_jobs) / seeds) as usize];
            return Job {
                unit: k.unit.clone(),
                profile: k.profile,
                seed: self.seeds.first + (i - unit_jobs) % seeds,
                kernel: Some(k.clone()),
                variant: None,
            };
        }
        let unit = &self.units[(i / per_unit) as usize];
        let seed = self.seeds.first + i % seeds;
        Job {
            unit: unit.clone(),
            profile: self.profiles[((i / seeds) % self.profiles.len() as u64) as usize],
            seed,
            kernel: None,
            variant: if self.stress {
                variant_of(unit, seed).map(|v| v.name.to_string())
            } else {
                None
            },
        }
    }

    /// The index of `job` in canonical order, or `None` when it is not
    /// one of the plan's jobs (its seed, unit, profile, kernel or stress
    /// variant not the plan's).
    pub fn index_of(&self, job: &Job) -> Option<u64> {
        if job.seed < self.seeds.first || job.seed > self.seeds.last {
            return None;
        }
        let seeds = u64::try_from(self.seeds.count()).ok()?;
        let off = job.seed - self.seeds.first;
        let groups = self.units.len() as u64 * self.profiles.len() as u64;
        let group = match &job.kernel {
            Some(k) => groups + self.kernels.iter().position(|x| x == k)? as u64,
            None => {
                let u = self.units.iter().position(|x| *x == job.unit)? as u64;
                let p = self.profiles.iter().position(|x| *x == job.profile)? as u64;
                u * self.profiles.len() as u64 + p
            }
        };
        let i = group.checked_mul(seeds)?.checked_add(off)?;
        (i < self.total().ok()? && self.job(i) == *job).then_some(i)
    }

    /// Whether some job of the plan runs on `UNIT.PROFILE`.
    fn runs_group(&self, group: &str) -> bool {
        let of = |u: &str, p: Profile| format!("{u}.{p}") == group;
        self.units
            .iter()
            .any(|u| self.profiles.iter().any(|&p| of(u, p)))
            || self.kernels.iter().any(|k| of(&k.unit, k.profile))
    }

    /// What makes a plan read from a file one no regression runs: a seed
    /// range that ends before it starts, a unit, profile or kernel named
    /// twice, a stimulus version this gpucosim does not know.
    fn check(&self) -> std::result::Result<(), String> {
        if self.seeds.last < self.seeds.first {
            return Err(format!(
                "its plan's seeds {} start after they end",
                self.seeds
            ));
        }
        self.total().map_err(|e| format!("its plan: {e}"))?;
        if let Some(u) = crate::first_repeat(&self.units) {
            return Err(format!("its plan names unit `{u}` twice"));
        }
        if let Some(p) = crate::first_repeat(&self.profiles) {
            return Err(format!("its plan names profile `{p}` twice"));
        }
        // A launched kernel is one job a unit its traffic reaches: the same
        // kernel for another unit is another kernel of the plan.
        if let Some(k) = crate::first_repeat(&self.kernels) {
            return Err(format!(
                "its plan names kernel `{}` ({}) on {}.{} twice",
                k.name,
                k.file.display(),
                k.unit,
                k.profile
            ));
        }
        if self.cycles == 0 {
            return Err("its plan runs jobs of no cycles".into());
        }
        crate::draw::check_version(self.stimulus)
            .map(|_| ())
            .map_err(|e| format!("its plan: {e}"))
    }

    /// A one-line description, to tell two plans apart.
    pub fn describe(&self) -> String {
        let knobs: Vec<String> = self.knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "units {}, profiles {}, seeds {}, {} cycles{}",
            self.units.join(","),
            self.profiles
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(","),
            self.seeds,
            self.cycles,
            if knobs.is_empty() {
                String::new()
            } else {
                format!(", knobs {}", knobs.join(" "))
            }
        ) + if self.stress {
            ""
        } else {
            ", no stress variants"
        } + &if self.kernels.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = self
                .kernels
                .iter()
                .map(|k| format!("{} ({})", k.name, k.file.display()))
                .collect();
            format!(", kernels {}", names.join(" "))
        }
    }
}

/// The jobs of a plan in one shard (or all), computed on demand.
#[derive(Debug, Clone)]
pub struct JobList {
    plan: Plan,
    shard: Option<Shard>,
    total: u64,
    len: u64,
}

impl JobList {
    /// The jobs of `plan` in `shard`.
    pub fn new(plan: &Plan, shard: Option<Shard>) -> Result<JobList> {
        let total = plan.total()?;
        let len = match shard {
            None => total,
            Some(s) => {
                let first = (s.k - 1) as u64;
                if total > first {
                    (total - first).div_ceil(s.n as u64)
                } else {
                    0
                }
            }
        };
        Ok(JobList {
            plan: plan.clone(),
            shard,
            total,
            len,
        })
    }
    /// Number of jobs in the list.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Jobs of the whole plan.
    pub fn plan_total(&self) -> u64 {
        self.total
    }
    /// The `k`-th job of the list.
    pub fn get(&self, k: u64) -> Job {
        let i = match self.shard {
            None => k,
            Some(s) => k * s.n as u64 + (s.k - 1) as u64,
        };
        self.plan.job(i)
    }
    /// The jobs in order.
    pub fn iter(&self) -> impl Iterator<Item = Job> + '_ {
        (0..self.len).map(|k| self.get(k))
    }

    /// The list's jobs split into runs of one unit, profile and kernel
    /// (the plan's groups of one job a seed), as ranges of list indices in
    /// order; empty runs left out.
    pub fn groups(&self) -> Vec<std::ops::Range<u64>> {
        let seeds = self.plan.seeds.count() as u64;
        if seeds == 0 || self.len == 0 {
            return std::iter::once(0..self.len).collect();
        }
        // The first list index whose plan index is at least `i`.
        let at = |i: u64| -> u64 {
            match self.shard {
                None => i,
                Some(s) => {
                    let off = (s.k - 1) as u64;
                    i.saturating_sub(off).div_ceil(s.n as u64)
                }
            }
            .min(self.len)
        };
        (0..self.total / seeds)
            .map(|g| at(g * seeds)..at((g + 1) * seeds))
            .filter(|r| !r.is_empty())
            .collect()
    }
}

/// The order in which the workers of [`run_jobs`] take the jobs of a list:
/// longest first, as estimated from the jobs done so far.
///
/// A regression's jobs differ in length by unit (an `lds` job of the
/// default plan takes about twice a `ta` or `waitcnt` job), and in
/// canonical order the workers' last jobs finish at different times: with
/// 16 workers on the 192 jobs of `regress --seeds 1..32` that tail cost
/// 3 % of the wall time (list scheduling replayed on the measured job
/// times). Taking the jobs of the group (unit, profile, kernel) whose jobs
/// take longest first leaves the short jobs for the end. A group with an
/// estimate from earlier regressions' times ([`crate::job_times`]) is as
/// long as the mean of its jobs that passed on one CPU, or before one has,
/// its estimate scaled by how long this regression's jobs that passed on
/// one CPU took against theirs (a loaded machine, a slower one). A group
/// without has its first job taken first, in canonical order, to measure
/// it, counts as the longest until one of its jobs is done, and then as
/// long as the mean of its jobs done. Jobs within a group keep their order.
/// One worker takes the jobs in canonical order (the order changes
/// nothing there).
///
/// It also lends the CPUs of workers that will find no job to a job that
/// can use a second one: a job runs pipelined, its driver and model on a
/// second thread ahead of the RTL ([`RunSpec::pipeline`]), when the CPUs
/// in use with it, its second one included, and one for every job not yet
/// handed out stay within the regression's CPUs (`cpus`, at most one a
/// worker). So a plan smaller than the workers has its first `cpus -
/// jobs` jobs pipelined; a larger one has none until its last jobs, taken
/// after some workers have run out of work (a job that has started keeps
/// its mode). The outcome of a job is the same either way, bit for bit.
#[doc(hidden)]
pub struct Dispatch {
    groups: Vec<Group>,
    /// CPUs the regression may keep busy (0: no job pipelined).
    cpus: usize,
    /// Jobs handed out and not done.
    #[doc(hidden)]
    pub running: usize,
    /// Second CPUs of the running jobs that run pipelined.
    #[doc(hidden)]
    pub lent: usize,
}

/// A run of list indices `first..end` of one unit, profile and kernel:
/// the next to hand out, the time its finished jobs took, the estimate of
/// a job's seconds from earlier regressions, and the seconds of its jobs
/// that count against the estimate (passed on one CPU) with their number.
struct Group {
    first: u64,
    next: u64,
    end: u64,
    done: u64,
    seconds: f64,
    estimate: Option<f64>,
    full: u64,
    full_seconds: f64,
}

impl Dispatch {
    /// `estimate` gives a job's estimated seconds from earlier
    /// regressions, if any (asked of each group's first job).
    #[doc(hidden)]
    pub fn new(
        list: &JobList,
        threads: usize,
        cpus: usize,
        estimate: &dyn Fn(&Job) -> Option<f64>,
    ) -> Dispatch {
        // One worker: the whole list as one group, taken in order.
        let groups = if threads <= 1 {
            std::iter::once(0..list.len()).collect()
        } else {
            list.groups()
        };
        let d = Dispatch {
            groups: groups
                .into_iter()
                .map(|r| Group {
                    first: r.start,
                    next: r.start,
                    end: r.end,
                    done: 0,
                    seconds: 0.0,
                    full: 0,
                    full_seconds: 0.0,
                    estimate: if threads <= 1 || r.is_empty() {
                        None
                    } else {
                        estimate(&list.get(r.start)).filter(|e| e.is_finite() && *e >= 0.0)
                    },
                })
                .collect(),
            cpus: cpus.min(threads),
            running: 0,
            lent: 0,
        };
        if threads > 1 {
            tracing::debug!(
                "{} of {} job groups have times of earlier regressions",
                d.groups.iter().filter(|g| g.estimate.is_some()).count(),
                d.groups.len()
            );
        }
        d
    }

    /// The next job to run, as (group, list index, whether it runs
    /// pipelined); `None` when all have been handed out.
    #[doc(hidden)]
    pub fn take(&mut self) -> Option<(usize, u64, bool)> {
        let (g, k) = self.next()?;
        let left: u64 = self.groups.iter().map(|g| g.end - g.next).sum();
        self.running += 1;
        // This job on two CPUs, the running ones on theirs, and each job
        // still to start on one.
        let pipeline = left + (self.running + self.lent + 1) as u64 <= self.cpus as u64;
        self.lent += usize::from(pipeline);
        Some((g, k, pipeline))
    }

    /// The next job to hand out, as (group, list index).
    fn next(&mut self) -> Option<(usize, u64)> {
        let open = |g: &Group| g.next < g.end;
        let g = if let Some(g) = self
            .groups
            .iter()
            .position(|g| open(g) && g.next == g.first && g.estimate.is_none())
        {
            g
        } else {
            // This regression's seconds against the estimates, over the
            // jobs that passed on one CPU (a whole job each, as estimated)
            // in groups with an estimate: what turns an estimate into
            // seconds of this run.
            let (measured, estimated) = self
                .groups
                .iter()
                .filter_map(|g| g.estimate.map(|e| (g.full_seconds, e * g.full as f64)))
                .fold((0.0, 0.0), |(m, e), (gm, ge)| (m + gm, e + ge));
            let scale = if measured > 0.0 && estimated > 0.0 {
                measured / estimated
            } else {
                1.0
            };
            // Longest first. A group with an estimate: the mean of its
            // jobs that passed on one CPU, else the estimate scaled (a job
            // that ended early, a divergence, says little of the others);
            // without: the mean of its jobs done, and before one is done
            // first of all. Ties to the earlier group. Means and scale are
            // of wall time, a job's start and end included.
            let mean = |g: &Group| match (g.estimate, g.full, g.done) {
                (Some(_), n, _) if n > 0 => g.full_seconds / n as f64,
                (Some(e), _, _) => e * scale,
                (None, _, 0) => f64::INFINITY,
                (None, _, n) => g.seconds / n as f64,
            };
            let mut best: Option<(usize, f64)> = None;
            for (i, g) in self.groups.iter().enumerate().filter(|(_, g)| open(g)) {
                let m = mean(g);
                if best.is_none_or(|(_, b)| m > b) {
                    best = Some((i, m));
                }
            }
            best?.0
        };
        let grp = &mut self.groups[g];
        let k = grp.next;
        grp.next += 1;
        Some((g, k))
    }

    /// Records that a job of group `g` took `seconds`, pipelined or not,
    /// and whether it passed (ran all its cycles, as its estimate).
    #[doc(hidden)]
    pub fn done(&mut self, g: usize, seconds: f64, pipelined: bool, passed: bool) {
        self.running = self.running.saturating_sub(1);
        self.lent = self.lent.saturating_sub(usize::from(pipelined));
        let grp = &mut self.groups[g];
        grp.done += 1;
        grp.seconds += seconds;
        if passed && !pipelined {
            grp.full += 1;
            grp.full_seconds += seconds;
        }
    }
}

/// The jobs of a regression, in canonical order, restricted to a shard.
pub fn jobs(
    units: &[String],
    profiles: &[Profile],
    seeds: Seeds,
    shard: Option<Shard>,
) -> Vec<Job> {
    let plan = Plan {
        units: units.to_vec(),
        profiles: profiles.to_vec(),
        seeds,
        cycles: 0,
        knobs: Vec::new(),
        kernels: Vec::new(),
        stress: false,
        code_coverage: false,
        stimulus: crate::draw::STIMULUS_VERSION,
    };
    JobList::new(&plan, shard)
        .map(|l| l.iter().collect())
        .unwrap_or_default()
}

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Model and RTL agreed.
    Passed,
    /// Model and RTL diverged.
    Diverged,
    /// The RTL ended the simulation.
    RtlError,
    /// Time limit or no progress.
    Timeout,
    /// Stopped by SIGINT/SIGTERM before it finished.
    Interrupted,
    /// An environment or input error kept the job from running.
    Error,
}

impl From<Verdict> for Status {
    fn from(v: Verdict) -> Status {
        match v {
            Verdict::Passed => Status::Passed,
            Verdict::Diverged => Status::Diverged,
            Verdict::RtlError => Status::RtlError,
            Verdict::Timeout => Status::Timeout,
            Verdict::Interrupted => Status::Interrupted,
        }
    }
}

/// The result of one job, as kept in results files.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobResult {
    /// The job.
    pub job: Job,
    /// How it ended.
    pub status: Status,
    /// Cycles simulated.
    pub cycles: u64,
    /// Transactions consumed.
    pub transactions: usize,
    /// Wall time of the cycle loop in seconds.
    pub seconds: f64,
    /// One line saying what went wrong (empty when passed).
    pub message: String,
    /// The report (empty when passed).
    pub report: String,
    /// First divergence: cycle and signal.
    pub first_mismatch: Option<(u64, String)>,
    /// The command reproducing the run.
    pub reproduce: String,
    /// Failure bundle, if one was written.
    pub bundle: Option<PathBuf>,
    /// Shrunk bundle, if shrinking ran.
    pub shrunk: Option<PathBuf>,
    /// Outputs of this job that could not be written (a bundle on a full
    /// disk), one line each.
    #[serde(default)]
    pub lost: Vec<String>,
    /// Coverage bins hit by this job (moved into the group's coverage).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub coverage: BTreeMap<String, u64>,
    /// The RTL's code coverage counts of this job (`--code-coverage`;
    /// moved into the group's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_coverage: Option<CodeCoverage>,
    /// Whether the selected mutant was activated (`gpucosim mutate`): its
    /// edit changed a value where the RTL evaluated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activated: Option<bool>,
    /// The job ran pipelined, its driver and model on a second thread, on
    /// a CPU that a worker without a job lent it ([`run_jobs`]): `seconds`
    /// is then that of two CPUs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pipelined: bool,
}

impl JobResult {
    /// A result with nothing run yet.
    pub fn new(job: &Job) -> JobResult {
        JobResult {
            job: job.clone(),
            status: Status::Error,
            cycles: 0,
            transactions: 0,
            seconds: 0.0,
            message: String::new(),
            report: String::new(),
            first_mismatch: None,
            reproduce: String::new(),
            bundle: None,
            shrunk: None,
            lost: Vec::new(),
            coverage: BTreeMap::new(),
            code_coverage: None,
            activated: None,
            pipelined: false,
        }
    }
    /// A job that could not run.
    pub fn error(job: &Job, message: String) -> JobResult {
        JobResult {
            message,
            ..JobResult::new(job)
        }
    }
    /// Whether model and RTL agreed.
    pub fn passed(&self) -> bool {
        self.status == Status::Passed
    }
}

/// Coverage of one unit and profile, merged over seeds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GroupCoverage {
    /// Hits per bin.
    pub bins: BTreeMap<String, u64>,
}

impl GroupCoverage {
    /// Adds one job's bins.
    pub fn add(&mut self, bins: &BTreeMap<String, u64>) {
        for (n, h) in bins {
            *self.bins.entry(n.clone()).or_default() += h;
        }
    }
    fn merge(&mut self, o: &GroupCoverage) {
        self.add(&o.bins);
    }
    /// Bins hit at least once.
    pub fn covered(&self) -> usize {
        self.bins.values().filter(|&&h| h > 0).count()
    }
    /// Bins never hit.
    pub fn holes(&self) -> Vec<&str> {
        self.bins
            .iter()
            .filter(|(_, &h)| h == 0)
            .map(|(n, _)| n.as_str())
            .collect()
    }
}

/// A results file: what one regression (or shard, or merge of shards) did.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsFile {
    /// Format version.
    pub format: u32,
    /// The regression.
    pub plan: Plan,
    /// Shards that contributed (empty for an unsharded run).
    pub shards: Vec<Shard>,
    /// Shards of the regression that a merge did not have.
    #[serde(default)]
    pub missing_shards: Vec<Shard>,
    /// Whether the run was interrupted before every job ran.
    pub interrupted: bool,
    /// Job results, in canonical job order.
    pub jobs: Vec<JobResult>,
    /// Coverage per `UNIT.PROFILE`.
    pub coverage: BTreeMap<String, GroupCoverage>,
    /// The RTL's code coverage per `UNIT.PROFILE` (`--code-coverage`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub code_coverage: BTreeMap<String, CodeCoverage>,
}

/// The coverage bins of `unit` on `profile`, or `None` for a unit this
/// gpucosim does not have (for [`ResultsFile::check_bins`]).
pub fn unit_bins(unit: &str, profile: Profile) -> Option<Vec<&'static str>> {
    crate::with_testbench!(unit, B => Ok(B::model(profile).coverage().names.to_vec())).ok()
}

/// Results-file format version.
pub const RESULTS_FORMAT: u32 = 2;

/// Skipped jobs listed one by one in JUnit; beyond, one entry counts them.
pub const SKIPPED_LISTED: u64 = 10_000;

impl ResultsFile {
    /// Empty results of `plan` (in `shard`).
    pub fn new(plan: &Plan, shard: Option<Shard>) -> ResultsFile {
        ResultsFile {
            format: RESULTS_FORMAT,
            plan: plan.clone(),
            shards: shard.into_iter().collect(),
            missing_shards: Vec::new(),
            interrupted: false,
            jobs: Vec::new(),
            coverage: BTreeMap::new(),
            code_coverage: BTreeMap::new(),
        }
    }

    /// Adds one job's result (its coverage into its group's).
    pub fn add(&mut self, mut r: JobResult) {
        let bins = std::mem::take(&mut r.coverage);
        if !bins.is_empty() {
            self.coverage.entry(r.job.group()).or_default().add(&bins);
        }
        if let Some(c) = r.code_coverage.take() {
            self.code_coverage.entry(r.job.group()).or_default().add(&c);
        }
        self.jobs.push(r);
    }

    /// Reads a results file.
    pub fn load(path: &Path) -> Result<ResultsFile> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        #[derive(Deserialize)]
        struct Format {
            format: u32,
            plan: serde::de::IgnoredAny,
            jobs: serde::de::IgnoredAny,
        }
        let f: Format = serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{} is not a gpucosim results file: {e}",
                path.display()
            ))
        })?;
        let (_, _) = (f.plan, f.jobs);
        if f.format != RESULTS_FORMAT {
            return Err(Error::Input(format!(
                "{}: results format {} (expected {RESULTS_FORMAT}; rerun the regression with this gpucosim)",
                path.display(),
                f.format
            )));
        }
        let r: ResultsFile = serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{} is not a gpucosim results file: {e}",
                path.display()
            ))
        })?;
        r.check()
            .map_err(|m| Error::Input(format!("{}: {m}", path.display())))?;
        Ok(r)
    }

    /// What makes results read from a file ones no regression writes, so
    /// that a file edited or cut short is refused rather than merged or
    /// reported as complete: a plan that cannot be ([`Plan`]'s rules), a
    /// shard outside its count, a job that is not the plan's or not in
    /// the file's shards, a job listed twice, a time that is not one, an
    /// interrupted job in a run not marked interrupted, fewer jobs than its
    /// shards hold in a run not marked interrupted, coverage of a unit and
    /// profile that no job runs. The bins themselves are the units' to
    /// check ([`ResultsFile::check_bins`]).
    pub fn check(&self) -> std::result::Result<(), String> {
        self.plan.check()?;
        let n = self
            .shards
            .first()
            .or(self.missing_shards.first())
            .map(|s| s.n);
        for s in self.shards.iter().chain(&self.missing_shards) {
            if s.k == 0 || s.k > s.n || Some(s.n) != n {
                return Err(format!(
                    "shard {s} is not one of {} shards",
                    n.unwrap_or(s.n)
                ));
            }
        }
        let mut ks = HashSet::new();
        if let Some(s) = self
            .shards
            .iter()
            .chain(&self.missing_shards)
            .find(|s| !ks.insert(s.k))
        {
            return Err(format!("shard {s} is listed twice"));
        }
        let ran: HashSet<u32> = self.shards.iter().map(|s| s.k).collect();
        if !self.missing_shards.is_empty() && self.shards.is_empty() {
            return Err("it lists missing shards but none that ran".into());
        }
        let mut seen = HashSet::new();
        for j in &self.jobs {
            let name = j.job.name();
            let Some(i) = self.plan.index_of(&j.job) else {
                return Err(format!(
                    "job {name} is not one of its regression's jobs ({})",
                    self.plan.describe()
                ));
            };
            if let Some(n) = n {
                let k = (i % n as u64) as u32 + 1;
                if !ran.contains(&k) {
                    return Err(format!(
                        "job {name} belongs to shard {k}/{n}, which the file does not hold"
                    ));
                }
            }
            if !seen.insert(i) {
                return Err(format!("job {name} is listed twice"));
            }
            if !j.seconds.is_finite() || j.seconds < 0.0 {
                return Err(format!("job {name} took {} seconds", j.seconds));
            }
            if j.status == Status::Interrupted && !self.interrupted {
                return Err(format!(
                    "job {name} was interrupted, yet the run is not marked interrupted"
                ));
            }
        }
        if !self.interrupted {
            let mut expected = 0u64;
            if self.shards.is_empty() {
                expected = self.plan.total().map_err(|e| e.to_string())?;
            }
            for s in &self.shards {
                expected += JobList::new(&self.plan, Some(*s))
                    .map_err(|e| e.to_string())?
                    .len();
            }
            if self.jobs.len() as u64 != expected {
                return Err(format!(
                    "it holds {} of its {expected} jobs yet does not say the run was interrupted: is it cut short?",
                    self.jobs.len()
                ));
            }
        }
        let groups = self.coverage.keys().chain(self.code_coverage.keys());
        if let Some(g) = groups.into_iter().find(|g| !self.plan.runs_group(g)) {
            return Err(format!(
                "it holds coverage of `{g}`, which no job of its plan runs"
            ));
        }
        if !self.code_coverage.is_empty() && !self.plan.code_coverage {
            return Err("it holds code coverage from a regression run without it".into());
        }
        Ok(())
    }

    /// Checks the coverage against the units' bins: each `UNIT.PROFILE`
    /// must hold exactly the bins that unit has on that profile (`bins`
    /// gives them, `None` for a unit this gpucosim does not have), else a
    /// hole could go unreported or a bin be counted that no unit has.
    pub fn check_bins(
        &self,
        bins: impl Fn(&str, Profile) -> Option<Vec<&'static str>>,
    ) -> std::result::Result<(), String> {
        let mut units: Vec<&str> = self.plan.units.iter().map(|u| u.as_str()).collect();
        units.extend(self.plan.kernels.iter().map(|k| k.unit.as_str()));
        for u in units {
            if bins(u, Profile::Gfx9).is_none() {
                return Err(format!(
                    "its plan runs unit `{u}`, which this gpucosim does not have"
                ));
            }
        }
        for (g, c) in &self.coverage {
            let (u, p) = g.split_once('.').unwrap_or((g, ""));
            let Some(names) = p.parse::<Profile>().ok().and_then(|p| bins(u, p)) else {
                return Err(format!("it holds coverage of `{g}`, no unit and profile"));
            };
            if let Some(b) = c.bins.keys().find(|b| !names.contains(&b.as_str())) {
                return Err(format!(
                    "its coverage of {g} counts bin `{b}`, which {u} does not have"
                ));
            }
            if let Some(b) = names.iter().find(|b| !c.bins.contains_key(**b)) {
                return Err(format!(
                    "its coverage of {g} lacks bin `{b}` (written by another version of gpucosim?)"
                ));
            }
        }
        Ok(())
    }

    /// Merges the results files of one regression's shards. The problems
    /// that make the merge partial (a missing shard, an interrupted input)
    /// are returned, one line each, with the merged results (which record
    /// them); inputs from different regressions, or a job in two inputs,
    /// are errors.
    pub fn merge(parts: Vec<(PathBuf, ResultsFile)>) -> Result<(ResultsFile, Vec<String>)> {
        let Some((first_path, first)) = parts.first() else {
            return Err(Error::Input("nothing to merge".into()));
        };
        let plan = first.plan.clone();
        let mut out = ResultsFile::new(&plan, None);
        let mut problems = Vec::new();
        let mut seen: BTreeMap<Job, PathBuf> = BTreeMap::new();
        let mut shard_n: Option<Option<u32>> = None;
        for (path, r) in &parts {
            if r.plan != plan {
                return Err(Error::Input(format!(
                    "{} and {} come from different regressions ({} / {})",
                    first_path.display(),
                    path.display(),
                    plan.describe(),
                    r.plan.describe()
                )));
            }
            let n = r.shards.first().map(|s| s.n);
            if r.shards.iter().any(|s| Some(s.n) != n) {
                return Err(Error::Input(format!(
                    "{} mixes shards of different counts",
                    path.display()
                )));
            }
            match shard_n {
                None => shard_n = Some(n),
                Some(m) if m != n => {
                    return Err(Error::Input(format!(
                        "{} and {} were sharded differently ({} / {})",
                        first_path.display(),
                        path.display(),
                        m.map_or("unsharded".into(), |n| format!("{n} shards")),
                        n.map_or("unsharded".into(), |n| format!("{n} shards"))
                    )))
                }
                _ => {}
            }
            if r.interrupted {
                problems.push(format!(
                    "{} is from an interrupted run: {} of its jobs did not run",
                    path.display(),
                    r.counts().2
                ));
            }
            for j in &r.jobs {
                if let Some(prev) = seen.insert(j.job.clone(), path.clone()) {
                    return Err(Error::Input(format!(
                        "job {} appears in both {} and {}",
                        j.job.name(),
                        prev.display(),
                        path.display()
                    )));
                }
                out.jobs.push(j.clone());
            }
            for (g, c) in &r.coverage {
                out.coverage.entry(g.clone()).or_default().merge(c);
            }
            for (g, c) in &r.code_coverage {
                out.code_coverage
                    .entry(g.clone())
                    .or_default()
                    .merge(c, g)?;
            }
            out.shards.extend(&r.shards);
            out.missing_shards.extend(&r.missing_shards);
            out.interrupted |= r.interrupted;
        }
        out.jobs.sort_by(|a, b| a.job.cmp(&b.job));
        out.shards.sort();
        out.shards.dedup();
        if let Some(Some(n)) = shard_n {
            for k in 1..=n {
                let s = Shard { k, n };
                if !out.shards.contains(&s) && !out.missing_shards.contains(&s) {
                    out.missing_shards.push(s);
                }
            }
        }
        out.missing_shards.sort();
        for s in &out.missing_shards {
            problems.push(format!("shard {s} is missing"));
        }
        Ok((out, problems))
    }

    /// The jobs of the plan that these results should hold and do not, and
    /// why, at most `limit` of them; and how many there are in all.
    pub fn not_run_listed(&self, limit: u64) -> (Vec<(Job, String)>, u64) {
        let have: HashSet<&Job> = self.jobs.iter().map(|j| &j.job).collect();
        let mut listed = Vec::new();
        let mut total = 0u64;
        let mut scan = |list: JobList, why: String, listed: &mut Vec<(Job, String)>| {
            let missing = list.len();
            // Only the jobs of this list that ran are in `have`.
            let ran = list_ran(&list, &self.jobs);
            total += missing - ran;
            if (listed.len() as u64) < limit {
                for j in list.iter() {
                    if listed.len() as u64 >= limit {
                        break;
                    }
                    if !have.contains(&j) {
                        listed.push((j, why.clone()));
                    }
                }
            }
        };
        let why_int = "not run: the regression was interrupted".to_string();
        if self.shards.is_empty() && self.missing_shards.is_empty() {
            if let Ok(l) = JobList::new(&self.plan, None) {
                if self.interrupted {
                    scan(l, why_int.clone(), &mut listed);
                }
            }
        } else {
            if self.interrupted {
                for s in &self.shards {
                    if let Ok(l) = JobList::new(&self.plan, Some(*s)) {
                        scan(l, why_int.clone(), &mut listed);
                    }
                }
            }
            for s in &self.missing_shards {
                if let Ok(l) = JobList::new(&self.plan, Some(*s)) {
                    scan(l, format!("not run: shard {s} is missing"), &mut listed);
                }
            }
        }
        (listed, total)
    }

    /// Jobs that ran to their end, jobs stopped while running, and jobs of
    /// the plan that did not start.
    pub fn counts(&self) -> (usize, usize, u64) {
        let stopped = self
            .jobs
            .iter()
            .filter(|j| j.status == Status::Interrupted)
            .count();
        (self.jobs.len() - stopped, stopped, self.not_run_listed(0).1)
    }

    /// The summary table: per unit and profile, seeds, cycles, cycles per
    /// second, failures and coverage; then the bins never hit.
    pub fn summary(&self) -> String {
        #[derive(Default)]
        struct Row {
            seeds: usize,
            cycles: u64,
            secs: f64,
            by: BTreeMap<Status, usize>,
        }
        let mut rows: BTreeMap<String, Row> = BTreeMap::new();
        for j in &self.jobs {
            let r = rows.entry(j.job.group()).or_default();
            r.seeds += 1;
            r.cycles += j.cycles;
            r.secs += j.seconds;
            if !j.passed() {
                *r.by.entry(j.status).or_default() += 1;
            }
        }
        let mut s = format!(
            "{:<16} {:>6} {:>12} {:>12} {:>9} {:>12}\n",
            "unit.profile", "seeds", "cycles", "cycles/s", "failures", "coverage"
        );
        for (g, r) in &rows {
            let cov = self
                .coverage
                .get(g)
                .map(|c| format!("{}/{}", c.covered(), c.bins.len()))
                .unwrap_or_else(|| "-".into());
            let fails = if r.by.is_empty() {
                "0".to_string()
            } else {
                r.by.iter()
                    .map(|(st, n)| match st {
                        Status::Diverged => n.to_string(),
                        Status::RtlError => format!("{n}rtl"),
                        Status::Timeout => format!("{n}hang"),
                        Status::Interrupted => format!("{n}int"),
                        _ => format!("{n}err"),
                    })
                    .collect::<Vec<_>>()
                    .join("+")
            };
            s.push_str(&format!(
                "{:<16} {:>6} {:>12} {:>12.0} {:>9} {:>12}\n",
                g,
                r.seeds,
                r.cycles,
                r.cycles as f64 / r.secs.max(1e-9),
                fails,
                cov
            ));
        }
        let holes: Vec<String> = self
            .coverage
            .iter()
            .flat_map(|(g, c)| c.holes().into_iter().map(move |h| format!("{g}:{h}")))
            .collect();
        if !holes.is_empty() {
            s.push_str(&format!(
                "bins never hit ({}): {}\n",
                holes.len(),
                holes.join(", ")
            ));
        }
        s
    }

    /// Number of jobs that did not pass (interrupted ones included).
    pub fn failures(&self) -> usize {
        self.jobs.iter().filter(|j| !j.passed()).count()
    }

    /// The exit code the jobs call for: 4 if any timed out, else 3 if the
    /// RTL ended any, else 2 if any could not run, else 1 if any diverged,
    /// else 0. (Interruptions and unwritten outputs are the caller's.)
    pub fn exit_code(&self) -> u8 {
        let has = |s: Status| self.jobs.iter().any(|j| j.status == s);
        if has(Status::Timeout) {
            engine::EXIT_TIMEOUT
        } else if has(Status::RtlError) {
            engine::EXIT_RTL_ERROR
        } else if has(Status::Error) {
            engine::EXIT_INPUT
        } else if has(Status::Diverged) {
            engine::EXIT_DIVERGED
        } else {
            engine::EXIT_PASS
        }
    }

    /// The exit code of [`ResultsFile::exit_code`], or, when `require_coverage`
    /// and every job passed, 1 if a group that ran left a bin unhit.
    pub fn exit_code_with(&self, require_coverage: bool) -> u8 {
        self.exit_code_checked(require_coverage, None)
    }

    /// [`ResultsFile::exit_code_with`], and 1 when every job passed but
    /// the code coverage `code` is held to fails its floors.
    pub fn exit_code_checked(&self, require_coverage: bool, code: Option<&Checked>) -> u8 {
        match self.exit_code() {
            engine::EXIT_PASS
                if (require_coverage && !self.unhit_bins().is_empty())
                    || code.is_some_and(Checked::failed) =>
            {
                engine::EXIT_DIVERGED
            }
            c => c,
        }
    }

    /// Per `UNIT.PROFILE` whose jobs reported coverage, the bins never hit
    /// (groups with none left out), in group order. Bins a profile cannot
    /// hit are not declared on it, so are never listed.
    pub fn unhit_bins(&self) -> Vec<(String, Vec<String>)> {
        self.coverage
            .iter()
            .map(|(g, c)| {
                (
                    g.clone(),
                    c.holes().into_iter().map(String::from).collect::<Vec<_>>(),
                )
            })
            .filter(|(_, h)| !h.is_empty())
            .collect()
    }

    /// The JUnit test case name of a group's coverage check.
    pub fn coverage_case(group: &str) -> String {
        format!("coverage.{group}")
    }

    /// One line per group with unhit bins, for `--require-coverage`:
    /// `coverage.UNIT.PROFILE: N bins never hit: a, b`.
    pub fn coverage_failures(&self) -> Vec<String> {
        self.unhit_bins()
            .into_iter()
            .map(|(g, h)| {
                format!(
                    "{}: {} bin{} never hit: {}",
                    ResultsFile::coverage_case(&g),
                    h.len(),
                    if h.len() == 1 { "" } else { "s" },
                    h.join(", ")
                )
            })
            .collect()
    }

    /// The coverage report as JSON: per group, bins with hits, covered,
    /// total and the bins never hit.
    pub fn coverage_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (g, c) in &self.coverage {
            m.insert(
                g.clone(),
                serde_json::json!({
                    "covered": c.covered(),
                    "total": c.bins.len(),
                    "holes": c.holes(),
                    "bins": c.bins,
                }),
            );
        }
        serde_json::Value::Object(m)
    }

    /// The JUnit XML report: one testcase per `UNIT.PROFILE.SEED` in a
    /// testsuite per `UNIT.PROFILE`; a divergence a `<failure>`, an RTL
    /// error, a hang or a job that could not run an `<error>`, an
    /// interrupted or unrun job `<skipped>` (at most [`SKIPPED_LISTED`]
    /// listed one by one, the rest counted in one entry). Failures and
    /// errors carry the job's message and its report, bundle, unwritten
    /// outputs and reproduce command as their text.
    pub fn junit(&self) -> String {
        self.junit_with(false)
    }

    /// [`ResultsFile::junit`], and with `require_coverage` one more test case
    /// per group whose jobs reported coverage, `coverage.UNIT.PROFILE`: a
    /// `<failure type="coverage">` naming the bins never hit, or a pass.
    pub fn junit_with(&self, require_coverage: bool) -> String {
        self.junit_checked(require_coverage, None)
    }

    /// [`ResultsFile::junit_with`], with the code coverage `code`: each
    /// group's suite carries its metrics as properties
    /// (`code-coverage.line` = `97.5`, and `.covered`, `.total`,
    /// `.waived`); with floors, a test case `code-coverage.UNIT.PROFILE`
    /// per group (a failure listing the uncovered items of the failing
    /// metrics) and `code-coverage.waivers` (a failure listing stale and
    /// needless waivers).
    pub fn junit_checked(&self, require_coverage: bool, code: Option<&Checked>) -> String {
        use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
        let secs = |s: f64| Duration::try_from_secs_f64(s).unwrap_or_default();
        let skipped = |message: &str| {
            let mut st = TestCaseStatus::skipped();
            st.set_message(message);
            st
        };
        let mut groups: BTreeMap<String, Vec<TestCase>> = BTreeMap::new();
        for j in &self.jobs {
            let status = match j.status {
                Status::Passed => TestCaseStatus::success(),
                Status::Interrupted => skipped(&expand_tabs(&j.message)),
                st => {
                    let mut text = j.report.clone();
                    if let Some(b) = &j.bundle {
                        text.push_str(&format!("bundle: {}\n", b.display()));
                    }
                    for l in &j.lost {
                        text.push_str(&format!("NOT WRITTEN: {l}\n"));
                    }
                    if st == Status::Diverged || !j.reproduce.is_empty() {
                        text.push_str(&format!("reproduce: {}\n", j.reproduce));
                    }
                    let (kind, ty) = match st {
                        Status::Diverged => (NonSuccessKind::Failure, "divergence"),
                        Status::RtlError => (NonSuccessKind::Error, "rtl_error"),
                        Status::Timeout => (NonSuccessKind::Error, "timeout"),
                        _ => (NonSuccessKind::Error, "error"),
                    };
                    let mut s = TestCaseStatus::non_success(kind);
                    s.set_message(expand_tabs(&j.message))
                        .set_type(ty)
                        .set_description(expand_tabs(&text));
                    s
                }
            };
            let mut case = TestCase::new(j.job.name(), status);
            case.set_time(secs(j.seconds));
            groups.entry(j.job.group()).or_default().push(case);
        }
        if require_coverage {
            for (g, c) in &self.coverage {
                let holes = c.holes();
                let status = if holes.is_empty() {
                    TestCaseStatus::success()
                } else {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(format!(
                        "{} of {} coverage bins never hit: {}",
                        holes.len(),
                        c.bins.len(),
                        holes.join(", ")
                    ))
                    .set_type("coverage")
                    .set_description(
                        holes
                            .iter()
                            .map(|h| format!("{g}:{h}\n"))
                            .collect::<String>(),
                    );
                    s
                };
                let mut case = TestCase::new(ResultsFile::coverage_case(g), status);
                case.set_time(Duration::ZERO);
                groups.entry(g.clone()).or_default().push(case);
            }
        }
        if let Some(c) = code {
            if let Some(floors) = &c.floors {
                let fails = c.report.failures(floors);
                for g in c.report.groups.keys() {
                    let status = match fails.iter().find(|(fg, _, _)| fg == g) {
                        None => TestCaseStatus::success(),
                        Some((_, msg, items)) => {
                            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                            s.set_message(msg.clone())
                                .set_type("code-coverage")
                                .set_description(expand_tabs(
                                    &items.iter().map(|i| format!("{i}\n")).collect::<String>(),
                                ));
                            s
                        }
                    };
                    let mut case = TestCase::new(codecov::Report::case(g), status);
                    case.set_time(Duration::ZERO);
                    groups.entry(g.clone()).or_default().push(case);
                }
                let status = if c.report.findings.is_empty() {
                    TestCaseStatus::success()
                } else {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(format!(
                        "{} stale or needless waiver(s)",
                        c.report.findings.len()
                    ))
                    .set_type("code-coverage-waivers")
                    .set_description(
                        c.report
                            .findings
                            .iter()
                            .map(|l| format!("{l}\n"))
                            .collect::<String>(),
                    );
                    s
                };
                let mut case = TestCase::new(Checked::WAIVERS_CASE, status);
                case.set_time(Duration::ZERO);
                groups.entry("gpucosim".into()).or_default().push(case);
            }
        }
        let (listed, total_skipped) = self.not_run_listed(SKIPPED_LISTED);
        for (job, why) in &listed {
            let mut case = TestCase::new(job.name(), skipped(why));
            case.set_time(Duration::ZERO);
            groups.entry(job.group()).or_default().push(case);
        }
        let more = total_skipped - listed.len() as u64;
        if more > 0 {
            let mut case = TestCase::new(
                format!("{more} more jobs not run"),
                skipped(&format!("{more} more jobs of the plan did not run")),
            );
            case.set_time(Duration::ZERO);
            groups.entry("gpucosim".into()).or_default().push(case);
        }
        let mut report = Report::new("gpucosim");
        let mut total = Duration::ZERO;
        for (g, mut cases) in groups {
            cases.sort_by(|a, b| a.name.cmp(&b.name));
            let mut suite = TestSuite::new(g.as_str());
            if let Some(gr) = code.and_then(|c| c.report.groups.get(&g)) {
                for (m, t) in &gr.tally {
                    let p = format!("code-coverage.{m}");
                    suite.add_property(quick_junit::Property::new(
                        p.as_str(),
                        format!("{:.2}", t.percent()),
                    ));
                    for (k, v) in [
                        ("covered", t.covered),
                        ("total", t.total),
                        ("waived", t.waived),
                    ] {
                        suite.add_property(quick_junit::Property::new(
                            format!("{p}.{k}"),
                            v.to_string(),
                        ));
                    }
                }
            }
            let mut time = Duration::ZERO;
            for mut c in cases {
                time += c.time.unwrap_or_default();
                c.set_classname(g.as_str());
                suite.add_test_case(c);
            }
            suite.set_time(time);
            total += time;
            report.add_test_suite(suite);
        }
        report.set_time(total);
        report.to_string().expect("a JUnit report serialises")
    }
}

/// `s` with its tabs expanded to spaces (stops every 8 columns): the JUnit
/// writer removes control characters, tabs included, and an RTL's
/// `$display` text in a report may hold some.
fn expand_tabs(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    let mut col = 0;
    for c in s.chars() {
        match c {
            '\t' => {
                let n = 8 - col % 8;
                o.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' => {
                o.push(c);
                col = 0;
            }
            c => {
                o.push(c);
                col += 1;
            }
        }
    }
    o
}

/// How many jobs of `list` are among `jobs`.
fn list_ran(list: &JobList, jobs: &[JobResult]) -> u64 {
    jobs.iter()
        .filter(|j| match list.shard {
            None => true,
            Some(s) => {
                // The job's index in the plan, from its place in the order.
                plan_index(&list.plan, &j.job).is_some_and(|i| i % s.n as u64 == (s.k - 1) as u64)
            }
        })
        .count() as u64
}

/// The index of `job` in `plan`'s canonical order.
fn plan_index(plan: &Plan, job: &Job) -> Option<u64> {
    let u = plan.units.iter().position(|u| *u == job.unit)? as u64;
    let p = plan.profiles.iter().position(|p| *p == job.profile)? as u64;
    if job.seed < plan.seeds.first || job.seed > plan.seeds.last {
        return None;
    }
    let seeds = plan.seeds.count() as u64;
    Some((u * plan.profiles.len() as u64 + p) * seeds + (job.seed - plan.seeds.first))
}

/// Settings shared by every job of a regression.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RegressConfig {
    /// Cycles per seed.
    pub cycles: u64,
    /// `--rtl` as given.
    pub rtl_arg: Option<PathBuf>,
    /// Knobs (applied to every unit that has them; unknown ones are errors).
    pub knobs: Vec<(String, String)>,
    /// Where failure bundles go.
    pub bundles: PathBuf,
    /// Shrink failures.
    pub shrink: bool,
    /// Waveform window.
    pub window: usize,
    /// Time limit per job, in seconds.
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Stall limit per job, in seconds.
    #[serde(default)]
    pub stall: Option<f64>,
    /// The format of the bundles' waveforms.
    #[serde(default, with = "wave_format")]
    pub waves_format: WaveFormat,
    /// The mutant selected in a build instrumented by `gpucosim mutate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutant: Option<u32>,
    /// Run on the RTL built with code coverage, and return its counts.
    #[serde(default)]
    pub code_coverage: bool,
}

/// A [`WaveFormat`] as its name (`"vcd"`, `"fst"`).
mod wave_format {
    use gpucosim_waves::WaveFormat;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(f: &WaveFormat, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(f)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<WaveFormat, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl RegressConfig {
    /// The run limits of each job.
    pub fn limits(&self) -> Limits {
        Limits {
            timeout: self.timeout.map(Duration::from_secs_f64),
            stall: self.stall.map(Duration::from_secs_f64),
        }
    }
}

/// The run of `job`; `variants` are its unit's stress variants, `need`
/// what a launch's traffic asks of the unit. A kernel job runs as `kernel
/// run` does, with the regression's `--cycles` and `--rtl`.
fn spec_for(
    job: &Job,
    cfg: &RegressConfig,
    waves: Option<PathBuf>,
    variants: &[Variant],
    need: Option<Need>,
) -> Result<RunSpec> {
    let mut s = match &job.kernel {
        Some(k) => {
            let kr = k.run_of(job.seed, Some(cfg.cycles), cfg.rtl_arg.clone());
            kr.spec(kr.budget(need))
        }
        None => RunSpec::new(&job.unit, job.profile, job.seed, cfg.cycles),
    };
    s.rtl_arg = cfg.rtl_arg.clone();
    s.waves = waves;
    s.waves_format = cfg.waves_format;
    s.window = cfg.window;
    s.knobs = cfg.knobs.clone();
    s.limits = cfg.limits();
    if let (Some(name), None) = (&job.variant, &job.kernel) {
        let v = variants.iter().find(|v| v.name == name).ok_or_else(|| {
            Error::Input(format!("unit {} has no stress variant `{name}`", job.unit))
        })?;
        s.knobs = variant_knobs(v, &cfg.knobs);
        s.label = Some(v.name.to_string());
    }
    Ok(s)
}

/// Per-process cache of built RTL libraries, keyed by unit and profile.
#[derive(Default)]
pub struct LibCache {
    libs: Mutex<BTreeMap<(String, Profile), (PathBuf, String)>>,
    coverage: bool,
}

impl LibCache {
    /// A cache of libraries built with code coverage (`coverage`) or not.
    pub fn new(coverage: bool) -> LibCache {
        LibCache {
            libs: Mutex::default(),
            coverage,
        }
    }

    /// The library path and the sources hash for `B` on `profile`.
    pub fn get<B: Testbench>(&self, root: &Path, profile: Profile) -> Result<(PathBuf, String)> {
        let key = (B::UNIT.to_string(), profile);
        if let Some(v) = self.libs.lock().expect("lib cache").get(&key) {
            return Ok(v.clone());
        }
        let cache = rtlbuild::cache_root();
        let sources = rtlbuild::RtlSources::collect(root, B::table().unit)?;
        let v = crate::verilator::Verilator::locate(&cache)?;
        let built = rtlbuild::build(
            &rtlbuild::BuildRequest {
                table: B::table(),
                profile,
                sources: &sources,
                trace: false,
                coverage: self.coverage,
            },
            &v,
            &cache,
        )?;
        let hash = rtlbuild::sources_hash(&sources)?;
        let v = (built.lib, hash);
        self.libs.lock().expect("lib cache").insert(key, v.clone());
        Ok(v)
    }
}

/// The code coverage counts of `rtl`, unit `unit` built from the RTL tree
/// `root` into `lib`, with coverage.
fn code_coverage_of(rtl: &mut Rtl, unit: &str, root: &Path, lib: &Path) -> Result<CodeCoverage> {
    let sources = rtlbuild::RtlSources::collect(root, unit)?;
    let names: std::collections::BTreeSet<String> = sources
        .files
        .iter()
        .chain(&sources.includes)
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let dir = tempfile::Builder::new()
        .prefix("gpucosim-cov-")
        .tempdir()
        .map_err(|e| Error::Env(format!("cannot make a temporary directory: {e}")))?;
    let path = dir.path().join("coverage.dat");
    if !rtl.coverage_write(&path)? {
        return Err(Error::Env(format!(
            "{} was not built with code coverage",
            lib.display()
        )));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    CodeCoverage::parse_dat(&text, unit, &names)
}

/// Runs one job of testbench `B` in this process: the run (pipelined, its
/// driver and model on a second thread, with `pipeline`), and on failure
/// its bundle (and its shrunk bundle when asked).
pub fn run_job<B: Testbench>(
    job: &Job,
    cfg: &RegressConfig,
    libs: &LibCache,
    pipeline: bool,
) -> JobResult {
    let root = rtlbuild::rtl_root(cfg.rtl_arg.as_deref());
    match libs.get::<B>(&root, job.profile) {
        Ok((lib, hash)) => run_job_on::<B>(job, cfg, &root, &lib, &hash, pipeline),
        Err(e) => JobResult::error(job, e.to_string()),
    }
}

/// Runs one job of testbench `B` on the built library `lib` of the RTL in
/// `root` (whose sources hash is `hash`), pipelined with `pipeline`.
pub fn run_job_on<B: Testbench>(
    job: &Job,
    cfg: &RegressConfig,
    root: &Path,
    lib: &Path,
    hash: &str,
    pipeline: bool,
) -> JobResult {
    let mut res = JobResult::new(job);
    if let Err(e) = run_job_inner::<B>(job, cfg, root, lib, hash, pipeline, &mut res) {
        res.status = Status::Error;
        res.message = e.to_string();
    }
    res
}

fn run_job_inner<B: Testbench>(
    job: &Job,
    cfg: &RegressConfig,
    root: &Path,
    lib: &Path,
    hash: &str,
    pipeline: bool,
    res: &mut JobResult,
) -> Result<()> {
    let bundle_dir = cfg.bundles.join(job.name());
    // The waveform is written straight into the bundle-to-be.
    let stage = crate::bundle::stage_bundle(&bundle_dir)?;
    // A kernel job replays the kernel's transactions (listed in its bundle).
    let (kernel_txns, need): (Option<Vec<B::Txn>>, Option<Need>) = match &job.kernel {
        None => (None, None),
        Some(k) => {
            if B::UNIT != k.unit {
                return Err(Error::Input(format!(
                    "kernel {} is a {} job, not a {} one",
                    k.name,
                    k.unit,
                    B::UNIT
                )));
            }
            let (txns, need) = k.traffic(job.seed)?;
            let txns = txns
                .into_iter()
                .map(|t| {
                    serde_json::from_value(t)
                        .map_err(|e| Error::Input(format!("kernel transaction: {e}")))
                })
                .collect::<Result<Vec<B::Txn>>>()?;
            (Some(txns), need)
        }
    };
    let mut spec = spec_for(
        job,
        cfg,
        Some(stage.path().to_path_buf()),
        B::variants(),
        need,
    )?;
    spec.pipeline = pipeline;
    res.pipelined = spec.pipeline;
    let mut rtl = Rtl::load(lib, B::table())?;
    if let Some(k) = cfg.mutant {
        rtl.set_mutant(k);
    }
    let passing_repro = spec_for(job, cfg, None, B::variants(), need)?.repro_command();
    // A failure's reproduce command is its bundle's replay, also in the
    // waveform's header.
    spec.reproduce = Some(ReproCommand::Replay {
        bundle: bundle_dir.clone(),
    });
    // A kernel job runs as `kernel run` runs the kernel (launch_run).
    let (out, kernel_txns, incomplete) = match kernel_txns {
        Some(t) => {
            let ran = launch_run::run::<B>(&spec, &mut rtl, t)?;
            let incomplete = ran.incomplete();
            (ran.out, Some(ran.txns), incomplete)
        }
        None => (
            engine::run::<B>(&spec, &mut rtl, Stimulus::Fresh, None)?,
            None,
            None,
        ),
    };
    if cfg.mutant.is_some() {
        res.activated = Some(rtl.activated());
    }
    // An instance whose step was aborted (a hang) is left alone: the job
    // reports the hang, without counts.
    let code_coverage =
        (cfg.code_coverage && rtl.usable()).then(|| code_coverage_of(&mut rtl, B::UNIT, root, lib));
    drop(rtl);
    res.cycles = out.cycles;
    res.transactions = out.txn_count;
    res.seconds = out.elapsed.as_secs_f64();
    res.status = out.verdict().into();
    res.coverage = out.coverage.by_name();
    res.first_mismatch = out.mismatches.first().map(|m| (m.cycle, m.signal.clone()));
    res.message = job_message(&out);
    match code_coverage {
        Some(Ok(c)) => res.code_coverage = Some(c),
        // The run's own result is kept; the lost counts make it an error
        // (a regression that asked for code coverage did not get it all).
        Some(Err(e)) => {
            res.lost.push(format!("its code coverage: {e}"));
            if res.status == Status::Passed && incomplete.is_none() {
                // Nothing to bundle: the run itself passed.
                res.status = Status::Error;
                res.message = format!("the run passed, but its code coverage was lost: {e}");
                res.reproduce = passing_repro;
                return Ok(());
            }
        }
        None => {}
    }
    // A kernel job that ran out of cycles before its replay ended has not
    // shown that the units agree on the kernel: an error, not a pass.
    if let Some(i) = incomplete {
        res.status = Status::Error;
        res.message = i.message();
    }
    if matches!(res.status, Status::Passed | Status::Interrupted) {
        res.reproduce = passing_repro;
        return Ok(());
    }
    res.reproduce = spec.repro_command();
    let mut bspec = spec.clone();
    bspec.waves = Some(bundle_dir.clone());
    res.report = crate::bundle::bundle_report::<B>(&bspec, &out, &bundle_dir);
    if let Some(v) = &job.variant {
        // The same run from scratch, with the variant's knobs.
        res.report
            .push_str(&format!("stress variant {v}, run again: {passing_repro}\n"));
    }
    if let Some(e) = &out.vcd_error {
        res.lost.push(format!("waveform {e}"));
    }
    if let Err(e) = crate::bundle::commit_bundle(
        stage,
        &bundle_dir,
        &bspec,
        root,
        hash,
        &out,
        kernel_txns
            .as_deref()
            .map(|t| &t[..out.txn_count.min(t.len())]),
        &res.report,
    ) {
        // The failure stands; only its bundle is lost.
        res.lost
            .push(format!("bundle {}: {e}", bundle_dir.display()));
        res.reproduce = passing_repro;
        return Ok(());
    }
    res.bundle = Some(bundle_dir.clone());
    if cfg.shrink && res.status != Status::Timeout {
        let shrunk_dir = cfg.bundles.join(format!("{}.shrunk", job.name()));
        match Repro::load(&bundle_dir).and_then(|r| shrink::<B>(&r, lib, &shrunk_dir)) {
            Ok(s) => {
                res.report.push_str(&format!("shrunk: {}\n", s.summary()));
                res.shrunk = Some(shrunk_dir);
            }
            Err(e) => res.report.push_str(&format!("not shrunk: {e}\n")),
        }
    }
    Ok(())
}

/// One line for a job's outcome: what JUnit shows as the message.
pub fn job_message<T>(o: &Outcome<T>) -> String {
    if let Some(m) = o.mismatches.first() {
        return format!("model and RTL diverge at cycle {} on {}", m.cycle, m.signal);
    }
    engine::Headline::of(&o.end)
        .map(|h| format!("{} {}: {}", h.kind, h.when, h.what))
        .unwrap_or_default()
}

/// Runs the jobs of `list` on `threads` workers with `runner`, calling
/// `progress` on this thread after each job. Several workers take the
/// longest jobs first (`Dispatch`), by the estimates of earlier
/// regressions (`estimate`, seconds) until this one's own jobs tell; one
/// takes them in canonical order.
/// `runner` is told whether the job runs pipelined, on a second CPU that
/// a worker without a job lends it, within `cpus` CPUs in all (0: every
/// job on one CPU; see `Dispatch`).
///
/// Stopping: once `stop` is set, no job starts (a worker checks it before
/// taking each job); jobs already running finish as `runner` lets them; the
/// result of every job that finished is returned. Results come in
/// canonical order.
pub fn run_jobs(
    list: &JobList,
    threads: usize,
    cpus: usize,
    estimate: &dyn Fn(&Job) -> Option<f64>,
    stop: &AtomicBool,
    runner: &(dyn Fn(&Job, bool) -> JobResult + Sync),
    progress: &mut dyn FnMut(&JobResult),
) -> Vec<JobResult> {
    let dispatch = std::sync::Mutex::new(Dispatch::new(list, threads, cpus, estimate));
    let (tx, rx) = mpsc::channel::<JobResult>();
    let mut results = Vec::new();
    std::thread::scope(|s| {
        // A worker beyond the plan's jobs would take none: `--jobs` may name
        // more workers than there are jobs, or than threads can be made.
        for _ in 0..threads
            .min(usize::try_from(list.len()).unwrap_or(usize::MAX))
            .max(1)
        {
            let tx = tx.clone();
            let dispatch = &dispatch;
            s.spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let lock = || dispatch.lock().unwrap_or_else(|e| e.into_inner());
                let Some((g, pipeline, job)) = ({
                    let mut d = lock();
                    // Logged under the lock: in the order taken.
                    d.take().map(|(g, i, p)| {
                        let job = list.get(i);
                        tracing::debug!(
                            "{}: started{}",
                            job.name(),
                            if p {
                                ", pipelined, on the CPU of a worker without a job"
                            } else {
                                ""
                            }
                        );
                        (g, p, job)
                    })
                }) else {
                    break;
                };
                let start = std::time::Instant::now();
                let r = runner(&job, pipeline);
                lock().done(
                    g,
                    start.elapsed().as_secs_f64(),
                    pipeline,
                    r.status == Status::Passed,
                );
                if tx.send(r).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for r in rx {
            progress(&r);
            results.push(r);
        }
    });
    results.sort_by(|a, b| a.job.cmp(&b.job));
    results
}

/// What a job process is given (`gpucosim job`, on its standard input).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobSpec {
    /// The job.
    pub job: Job,
    /// The regression's settings.
    pub cfg: RegressConfig,
    /// The RTL tree.
    pub root: PathBuf,
    /// The built library.
    pub lib: PathBuf,
    /// The RTL sources hash.
    pub hash: String,
    /// Run the job pipelined, its driver and model on a second thread
    /// ([`RunSpec::pipeline`]), on a CPU that the regression lends it
    /// ([`run_jobs`]); the outcome is the same.
    #[serde(default)]
    pub pipeline: bool,
}

/// The executable to start job processes from: this running process's own
/// (`/proc/self/exe`), so that a regression finishes with the binary it
/// started with even when the file on disk is rebuilt, replaced or deleted
/// meanwhile; elsewhere the path it was started from.
pub fn own_exe() -> Result<PathBuf> {
    let own = Path::new("/proc/self/exe");
    if own.exists() {
        return Ok(own.to_path_buf());
    }
    std::env::current_exe()
        .map_err(|e| Error::Env(format!("cannot find the gpucosim executable: {e}")))
}

/// The `--rtl` of `unit` in a command that runs several units (a regression
/// over every unit, a kernel's traffic through the LDS and TA units): the
/// tree given when it has the unit's folder; the built-in RTL when the
/// tree holds other units but not this one, with a one-line note saying
/// so; otherwise the tree as given (whose error then names the unit).
pub fn rtl_for_unit(rtl: &Option<PathBuf>, unit: &str) -> (Option<PathBuf>, Option<String>) {
    let Some(dir) = rtl else {
        return (None, None);
    };
    if !dir.is_dir() || dir.join(unit).is_dir() {
        return (rtl.clone(), None);
    }
    let others: Vec<&str> = crate::units::UNITS
        .iter()
        .copied()
        .filter(|u| dir.join(u).is_dir())
        .collect();
    if others.is_empty() {
        return (rtl.clone(), None);
    }
    let builtin = rtlbuild::builtin_rtl_root();
    let note = format!(
        "note: {} has RTL for {} but not for {unit}: {unit} runs on the built-in RTL ({})",
        dir.display(),
        others.join(", "),
        builtin.display()
    );
    (Some(builtin), Some(note))
}

/// Bytes of a job process's standard error kept for its report.
const STDERR_TAIL: usize = 16 * 1024;

/// The result of a job whose process ended without answering: killed for
/// its time limit, stopped, or dead of its own (with how it ended and why
/// its spec could not be written to it, when it could not); `tail` is the
/// end of what it wrote to standard error.
fn lost_job(
    spec: &JobSpec,
    status: Option<std::process::ExitStatus>,
    killed_for_time: bool,
    termed: bool,
    unfed: Option<String>,
    tail: &str,
) -> JobResult {
    let how = match status {
        Some(st) => {
            use std::os::unix::process::ExitStatusExt;
            match st.signal() {
                Some(sig) => format!("was killed by signal {sig}"),
                None => format!("exited with code {}", st.code().unwrap_or(-1)),
            }
        }
        None => "could not be waited for".into(),
    };
    let mut r = JobResult::error(&spec.job, String::new());
    if killed_for_time {
        r.status = Status::Timeout;
        r.message = format!(
            "the job did not finish within its time limit of {} s and was killed",
            spec.cfg.timeout.unwrap_or_default()
        );
    } else if termed {
        r.status = Status::Interrupted;
        r.message = "interrupted: the job process was stopped".into();
    } else {
        r.message = format!("the job process {how} without a result");
        if let Some(e) = unfed {
            r.message
                .push_str(&format!(" (its job spec could not be written to it: {e})"));
        }
    }
    r.report = format!("{}\n  the job's last output:\n{}", r.message, indent(tail));
    r
}

/// What a worker process writes on standard error as it starts a job,
/// before the job's name.
pub const WORKER_JOB_START: &str = "gpucosim job: ";

/// What starts a worker process's answer line on standard output, before
/// the result's JSON.
pub const WORKER_RESULT: &str = "result: ";

/// Blocks SIGPIPE in the calling thread, so that a write to a pipe whose
/// reader is gone fails with EPIPE instead of ending the process, whatever
/// the process's disposition of it.
fn block_sigpipe() {
    // SAFETY: changes this thread's own signal mask only.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// A job process started with `args`, in its own process group, sent
/// SIGTERM should this process die, its three standard streams piped.
fn spawn_job_process(exe: &Path, args: &[&str]) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(exe);
    cmd.arg0("gpucosim")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: a terminal's Ctrl-C reaches the parent
        // only, which decides what the children do.
        .process_group(0);
    // SAFETY: prctl is async-signal-safe; the child gets SIGTERM if this
    // process dies, instead of running on alone.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    cmd.spawn()
}

/// A worker process of a regression (`gpucosim job`): it runs the
/// jobs it is given one after another, so that a regression of short jobs
/// pays for starting a process, loading the RTL library and its C++
/// runtime once per worker rather than once per job. A job is still
/// isolated as far as it matters: a worker that dies (a crash in the RTL's
/// C++) or is killed (a job past its time limit, a stop) fails the job it
/// was running and no other, and the next job starts a fresh worker; each
/// job's Verilated model is its own instance, context included, destroyed
/// when the job ends.
pub struct Worker {
    exe: PathBuf,
    proc: Option<WorkerProc>,
}

struct WorkerProc {
    child: std::process::Child,
    /// Its input; closing it ends the worker once it is idle.
    stdin: Option<std::process::ChildStdin>,
    /// Answer lines from standard output; the sender hangs up at its end.
    answers: mpsc::Receiver<String>,
    /// Standard error since the worker started (its tail).
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    readers: [std::thread::JoinHandle<()>; 2],
}

impl WorkerProc {
    fn start(exe: &Path) -> std::io::Result<WorkerProc> {
        use std::io::{BufRead, Read};
        let mut child = spawn_job_process(exe, &["job"])?;
        let stdin = child.stdin.take().expect("piped stdin");
        let out = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        let (tx, answers) = mpsc::channel();
        let out_reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if let Some(a) = line.strip_prefix(WORKER_RESULT) {
                    if tx.send(a.to_string()).is_err() {
                        break;
                    }
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let tail = std::sync::Arc::clone(&stderr);
        let err_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.extend_from_slice(&buf[..n]);
                if t.len() > 2 * STDERR_TAIL {
                    let cut = t.len() - STDERR_TAIL;
                    t.drain(..cut);
                }
            }
        });
        Ok(WorkerProc {
            child,
            stdin: Some(stdin),
            answers,
            stderr,
            readers: [out_reader, err_reader],
        })
    }

    /// The end of standard error since job `name` started.
    fn tail_of(&self, name: &str) -> String {
        let t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&t);
        let mark = format!("{WORKER_JOB_START}{name}\n");
        let since = text
            .rfind(&mark)
            .map_or(&text[..], |i| &text[i + mark.len()..]);
        let mut cut = since.len().saturating_sub(STDERR_TAIL);
        while !since.is_char_boundary(cut) {
            cut += 1;
        }
        since[cut..].to_string()
    }

    /// Closes its input and waits a second for it to end, then kills it;
    /// reaps it.
    fn close_and_reap(mut self) -> Option<std::process::ExitStatus> {
        self.stdin = None;
        let t0 = std::time::Instant::now();
        while t0.elapsed() < Duration::from_secs(1) {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
        }
        self.reap()
    }

    /// Waits for the process to end (it was killed or closed its output),
    /// then for its readers.
    fn reap(mut self) -> Option<std::process::ExitStatus> {
        let status = self.child.wait().ok();
        self.stdin = None;
        for r in self.readers {
            let _ = r.join();
        }
        status
    }
}

impl Worker {
    /// A worker that starts its process from `exe` when given its first job.
    pub fn new(exe: &Path) -> Worker {
        Worker {
            exe: exe.to_path_buf(),
            proc: None,
        }
    }

    /// Runs `spec`'s job in the worker process (started, or started again,
    /// as needed), so that nothing the RTL does (an endless loop, a crash)
    /// takes the regression with it. The job's run ends at its next cycle
    /// when `stop` is set (the worker is sent SIGTERM, answers and ends); a
    /// job past its time limit by a grace period is killed with its worker.
    /// The spec is written while the worker is idle, reading its input.
    pub fn run(&mut self, spec: &JobSpec, stop: &AtomicBool) -> JobResult {
        use std::io::Write;
        block_sigpipe();
        let line = format!(
            "{}\n",
            serde_json::to_string(spec).expect("job specs serialise")
        );
        // A worker that ended while idle gets no job: the job goes to a
        // fresh one.
        let mut unfed = None;
        for _ in 0..2 {
            let mut p = match self.proc.take() {
                Some(p) => p,
                None => match WorkerProc::start(&self.exe) {
                    Ok(p) => p,
                    Err(e) => {
                        return JobResult::error(
                            &spec.job,
                            format!("cannot start {}: {e}", self.exe.display()),
                        )
                    }
                },
            };
            let stdin = p
                .stdin
                .as_mut()
                .expect("a worker's input is open until it ends");
            match stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush())
            {
                Ok(()) => {
                    self.proc = Some(p);
                    unfed = None;
                    break;
                }
                Err(e) => {
                    let tail = p.tail_of("");
                    unfed = Some((e.to_string(), tail, p.close_and_reap()));
                }
            }
        }
        if let Some((e, tail, status)) = unfed {
            return lost_job(spec, status, false, false, Some(e), &tail);
        }
        let p = self.proc.as_mut().expect("a worker was given the job");
        tracing::debug!(
            "{}: job given to worker process {}",
            spec.job.name(),
            p.child.id()
        );
        let started = std::time::Instant::now();
        let grace = Duration::from_secs(10);
        let kill_after = spec.cfg.timeout.map(|t| Duration::from_secs_f64(t) + grace);
        let mut termed: Option<std::time::Instant> = None;
        let mut killed_for_time = false;
        loop {
            match p.answers.recv_timeout(Duration::from_millis(20)) {
                Ok(a) => {
                    let r = serde_json::from_str::<JobResult>(&a);
                    if termed.is_some() || r.is_err() {
                        // A stopped worker ends after its answer; one that
                        // answers nonsense is not trusted with another job.
                        if let Some(p) = self.proc.take() {
                            p.close_and_reap();
                        }
                    }
                    return r.unwrap_or_else(|e| {
                        JobResult::error(
                            &spec.job,
                            format!("the job process answered with an unreadable result: {e}"),
                        )
                    });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let pid = p.child.id() as libc::pid_t;
            if stop.load(Ordering::SeqCst) && termed.is_none() {
                // SAFETY: signals our own child.
                unsafe { libc::kill(pid, libc::SIGTERM) };
                termed = Some(std::time::Instant::now());
            }
            let overdue = kill_after.is_some_and(|k| started.elapsed() >= k);
            if overdue || termed.is_some_and(|t| t.elapsed() >= grace) {
                killed_for_time |= overdue;
                let _ = p.child.kill();
                break;
            }
        }
        // The worker ended (or was killed) without answering.
        let p = self.proc.take().expect("worker");
        let tail = p.tail_of(&spec.job.name());
        let status = p.close_and_reap();
        lost_job(spec, status, killed_for_time, termed.is_some(), None, &tail)
    }
}

thread_local! {
    /// The worker of this thread (see [`run_job_in_worker`]).
    static WORKER: std::cell::RefCell<Option<Worker>> = const { std::cell::RefCell::new(None) };
}

/// Runs `spec`'s job in this thread's worker process, started from `exe`
/// when the thread has none (or had one of another executable, or one
/// that ended); the worker ends when the thread does.
pub fn run_job_in_worker(exe: &Path, spec: &JobSpec, stop: &AtomicBool) -> JobResult {
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        if w.as_ref().is_none_or(|w| w.exe != exe) {
            *w = Some(Worker::new(exe));
        }
        w.as_mut().expect("a worker").run(spec, stop)
    })
}

/// Ends this thread's worker process, if it has one (a thread that will
/// run no more jobs for a while).
pub fn end_worker() {
    WORKER.with(|w| drop(w.borrow_mut().take()));
}

impl Drop for Worker {
    /// Closes the worker's input, which ends it, and reaps it.
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close_and_reap();
        }
    }
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}\n")).collect()
}
