//! How long the jobs of earlier regressions took, by group, kept in the
//! cache (`job-times.json` in [`crate::rtlbuild::cache_root`]): what the
//! workers of the next regression estimate its jobs' lengths from, so that
//! they take the longest first from the start (`regress::Dispatch`).
//!
//! Without them the workers learn a group's length only when one of its
//! jobs ends. A plan of one to two jobs a worker then loses most of what
//! the order could give: the workers start on jobs of every group, and the
//! longest group's other jobs wait until the first jobs end
//! (docs/regress.md, "The order the workers take the jobs in").
//!
//! The times only order the jobs: what a job does, and its result, do not
//! depend on them. A file that cannot be read is reported and treated as
//! empty; one that cannot be written is reported, and the regression's
//! results and exit code are the same.

use crate::error::{Error, Result};
use crate::regress::{Job, JobResult, Plan, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The format of `job-times.json`.
const FORMAT: u32 = 1;

/// The file's name in the cache root.
pub const FILE: &str = "job-times.json";

/// The fewest cycles a job of a group must average for the group's times
/// to replace kept ones of shorter jobs ([`JobTimes::record`]).
pub const MIN_CYCLES: u64 = 10_000;

/// The jobs of one group that a regression measured: one CPU each,
/// ended by their last cycle, a divergence or the RTL.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupTime {
    /// Their cycle loops' seconds, summed.
    pub seconds: f64,
    /// Their cycles, summed.
    pub cycles: u64,
    /// How many.
    pub jobs: u64,
}

/// Group times by key ([`key`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobTimes {
    /// `FORMAT`.
    pub format: u32,
    /// By [`key`].
    pub groups: BTreeMap<String, GroupTime>,
}

/// The key of `job`'s group in `plan`: `UNIT.PROFILE`, the kernel's unit,
/// profile and name for a kernel job, with `.code-coverage` when the plan
/// counts code coverage and `.quick` for the quick build
/// (`GPUCOSIM_BUILD=quick`), both slower. The RTL tree, knobs, stress
/// variants, a kernel's file and its launch are not part of it: the times
/// of the latest regression of a group stand for all of them (two
/// launches of one kernel share theirs).
pub fn key(plan: &Plan, job: &Job) -> String {
    let mut k = match &job.kernel {
        Some(kr) => format!("{}.{}.kernel.{}", kr.unit, kr.profile, kr.name),
        None => job.group(),
    };
    if plan.code_coverage {
        k.push_str(".code-coverage");
    }
    k.push_str(flavour_suffix());
    k
}

/// `.quick` for the quick build, else nothing.
#[doc(hidden)]
pub fn flavour_suffix() -> &'static str {
    match crate::rtlbuild::Flavor::from_env() {
        Ok(crate::rtlbuild::Flavor::Quick) => ".quick",
        _ => "",
    }
}

impl JobTimes {
    /// The file in the cache root.
    pub fn path() -> PathBuf {
        crate::rtlbuild::cache_root().join(FILE)
    }

    /// Reads `path`: none yet is empty; one that cannot be read or parsed,
    /// or of another format, is empty with a one-line warning saying why.
    pub fn load(path: &Path) -> (JobTimes, Option<String>) {
        JobTimes::read(path).unwrap_or_else(|e| {
            (
                JobTimes::empty(),
                Some(format!(
                    "cannot read the job times of earlier regressions {}: {e}; the jobs are ordered without them",
                    path.display()
                )),
            )
        })
    }

    /// Reads `path` as [`JobTimes::load`] does, but a file that is there
    /// and cannot be read is an error.
    fn read(path: &Path) -> std::io::Result<(JobTimes, Option<String>)> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(JobTimes::parse(&String::from_utf8_lossy(&bytes), path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((JobTimes::empty(), None)),
            Err(e) => Err(e),
        }
    }

    /// The times in `text`, read from `path`: empty with a one-line
    /// warning where they are not valid or of another format.
    fn parse(text: &str, path: &Path) -> (JobTimes, Option<String>) {
        match serde_json::from_str::<JobTimes>(text) {
            Ok(t) if t.format == FORMAT => (t, None),
            Ok(t) => (
                JobTimes::empty(),
                Some(format!(
                    "the job times of earlier regressions {} are of format {}, not {FORMAT}; the jobs are ordered without them, and the file is replaced by this regression's times",
                    path.display(),
                    t.format
                )),
            ),
            Err(e) => (
                JobTimes::empty(),
                Some(format!(
                    "the job times of earlier regressions {} are not valid ({e}); the jobs are ordered without them, and the file is replaced by this regression's times",
                    path.display()
                )),
            ),
        }
    }

    /// No times.
    pub fn empty() -> JobTimes {
        JobTimes {
            format: FORMAT,
            groups: BTreeMap::new(),
        }
    }

    /// The estimated seconds of `job` of `plan`: its group's seconds a
    /// cycle times the plan's cycles, or for a kernel, which ends when its
    /// program does, times the cycles its jobs ran (at most the plan's).
    /// `None` for a group without times.
    pub fn estimate(&self, plan: &Plan, job: &Job) -> Option<f64> {
        let g = self.groups.get(&key(plan, job))?;
        if g.cycles == 0 || g.jobs == 0 || !g.seconds.is_finite() || g.seconds < 0.0 {
            return None;
        }
        let per_cycle = g.seconds / g.cycles as f64;
        let cycles = match job.kernel {
            Some(_) => (g.cycles / g.jobs).min(plan.cycles),
            None => plan.cycles,
        };
        Some(per_cycle * cycles as f64)
    }

    /// Replaces the times of the groups that `results` of `plan` measured:
    /// jobs that ran on one CPU to their last cycle or to an end the RTL
    /// or a divergence made (not pipelined, timed out, interrupted or
    /// kept from running). A kernel's jobs count only when they passed,
    /// having run its whole program, and always replace its times (the
    /// program may have changed). Other jobs of fewer than [`MIN_CYCLES`]
    /// cycles on average replace a group's times only where its kept jobs
    /// ran no more cycles on average (or it has none): a job's fixed cost
    /// (its RTL instance, reset; 0.1–0.3 ms) makes up much of a short one,
    /// and a quick smoke regression would blur the times of a long one.
    /// Returns how many groups it set.
    pub fn record(&mut self, plan: &Plan, results: &[JobResult]) -> usize {
        let mut new: BTreeMap<String, GroupTime> = BTreeMap::new();
        let mut kernels = std::collections::BTreeSet::new();
        for r in results {
            let measured = match (&r.job.kernel, r.status) {
                (Some(_), s) => s == Status::Passed,
                (None, s) => matches!(s, Status::Passed | Status::Diverged | Status::RtlError),
            };
            if !measured || r.pipelined || r.cycles == 0 || !r.seconds.is_finite() {
                continue;
            }
            let k = key(plan, &r.job);
            if r.job.kernel.is_some() {
                kernels.insert(k.clone());
            }
            let g = new.entry(k).or_insert(GroupTime {
                seconds: 0.0,
                cycles: 0,
                jobs: 0,
            });
            g.seconds += r.seconds;
            g.cycles += r.cycles;
            g.jobs += 1;
        }
        new.retain(|k, g| {
            kernels.contains(k)
                || g.cycles >= MIN_CYCLES * g.jobs
                || self.groups.get(k).is_none_or(|old| {
                    u128::from(g.cycles) * u128::from(old.jobs)
                        >= u128::from(old.cycles) * u128::from(g.jobs)
                })
        });
        let n = new.len();
        self.format = FORMAT;
        self.groups.extend(new);
        n
    }

    /// Adds what `results` of `plan` measured ([`JobTimes::record`]) to
    /// the times in `path` as they are now, read again under a lock
    /// (`PATH.lock`) so that regressions sharing the file (the shards of
    /// a plan on one cache) do not write over each other's groups; where
    /// no lock can be taken it goes on without one. Returns how many
    /// groups it set, and writes nothing when none.
    pub fn update(path: &Path, plan: &Plan, results: &[JobResult]) -> Result<usize> {
        Self::update_waiting(path, plan, results, LOCK_WAIT)
    }

    /// [`JobTimes::update`], waiting at most `wait` for the lock.
    #[doc(hidden)]
    pub fn update_waiting(
        path: &Path,
        plan: &Plan,
        results: &[JobResult],
        wait: std::time::Duration,
    ) -> Result<usize> {
        let _lock = FileLock::take(&lock_path(path), wait);
        // A file that cannot be read now is left as it is; one that is not
        // there, or not valid, is (re)made.
        let (mut latest, _) = JobTimes::read(path).map_err(|e| Error::io(path, e))?;
        let n = latest.record(plan, results);
        if n > 0 {
            latest.save(path)?;
        }
        Ok(n)
    }

    /// Writes the times to `path`, atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Env(format!("cannot encode the job times: {e}")))?;
        crate::outputs::write_atomic(path, format!("{text}\n").as_bytes())
    }
}

/// The longest an update waits for another's lock on the file.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// An exclusive `flock` on a file, released when dropped; none where the
/// file cannot be opened or locked (the times are a hint: the update goes
/// on without it).
#[doc(hidden)]
pub struct FileLock {
    _held: Option<std::fs::File>,
}

/// The lock file of the job times in `path`: `PATH.lock`.
#[doc(hidden)]
pub fn lock_path(path: &Path) -> PathBuf {
    let mut lock = path.as_os_str().to_owned();
    lock.push(".lock");
    PathBuf::from(lock)
}

impl FileLock {
    /// Whether the lock was taken (else the update goes on without it).
    #[doc(hidden)]
    pub fn is_held(&self) -> bool {
        self._held.is_some()
    }

    /// Takes the lock, waiting at most `wait` for another holder.
    #[doc(hidden)]
    pub fn take(path: &Path, wait: std::time::Duration) -> FileLock {
        use crate::cache::{flock, open_lock, would_block};
        // Read-only where the lock file is another user's (a shared
        // cache): `flock` takes either.
        let f = open_lock(path).or_else(|e| std::fs::File::open(path).map_err(|_| e));
        let f = match f {
            Ok(f) => f,
            Err(e) => {
                tracing::debug!("no lock ({e}); the job times updated without");
                return FileLock { _held: None };
            }
        };
        // Another regression holds it for a read and a write; one stopped
        // while it holds it (SIGSTOP) is not waited for past `wait`.
        let since = std::time::Instant::now();
        loop {
            match flock(&f, libc::LOCK_EX | libc::LOCK_NB) {
                Ok(()) => return FileLock { _held: Some(f) },
                Err(e) if would_block(&e) && since.elapsed() < wait => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => {
                    tracing::debug!(
                        "no lock on {} ({e}); the job times updated without",
                        path.display()
                    );
                    return FileLock { _held: None };
                }
            }
        }
    }
}
