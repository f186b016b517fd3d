//! Mutation testing of the checker: how many bugs in the RTL would the
//! regression catch?
//!
//! A campaign mutates a unit's SystemVerilog ([`gen`]), builds one
//! instrumented model in which a run-time select chooses the mutant (the
//! shim's `gc_set_mutant`, read by the RTL through the DPI-C function
//! `gpucosim_mutant`), checks that the RTL as written (select 0) passes
//! the regression's jobs, then runs each mutant over the same jobs, in
//! child processes, stopping at the first job that fails. A mutant is
//! killed by a divergence, killed by an RTL error (a `$fatal`, a crash, a
//! timeout; counted as killed and reported apart), or it survives.
//! Survivors are checked for cheap proofs of equivalence ([`equiv`]).
//! docs/mutate.md has the user's view.

pub mod equiv;
pub mod gen;
pub mod report;
pub mod waivers;

use crate::error::{Error, Result};
use crate::regress::{self, JobList, JobResult, JobSpec, Plan, RegressConfig, Seeds, Status};
use crate::repro::ReproCommand;
use crate::rtlbuild::{self, RtlSources};
use crate::testbench::Testbench;
use crate::verilator::Verilator;
use gen::{Mutant, Operator, Unit};
use gpucosim_model::ports::PortTable;
use gpucosim_model::Profile;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// What a campaign runs.
#[derive(Debug, Clone)]
pub struct CampaignSpec {
    /// `--rtl` as given.
    pub rtl_arg: Option<PathBuf>,
    /// Seeds of each mutant's jobs (the regression's by default).
    pub seeds: Seeds,
    /// Cycles per job.
    pub cycles: u64,
    /// Knobs for every job.
    pub knobs: Vec<(String, String)>,
    /// Run the regression's stress variants on their seeds, as `regress`
    /// does.
    pub stress: bool,
    /// Mutants to run: a sample of this many (all if none).
    pub sample: Option<usize>,
    /// Seed of the sample.
    pub sample_seed: u64,
    /// Run exactly these mutants (overrides the sample).
    pub ids: Vec<u32>,
    /// Parallel mutants.
    pub jobs: usize,
    /// Mutants whose instrumented build is compared with a separate build.
    pub verify: usize,
    /// Time limit of one job, in seconds (default: from the unmutated
    /// runs).
    pub timeout: Option<f64>,
    /// Build the instrumented model even if an identical one is cached
    /// (for measuring the build).
    pub fresh_build: bool,
}

/// How a mutant fared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fate", rename_all = "kebab-case")]
pub enum Fate {
    /// A job diverged.
    Killed {
        /// The job (`UNIT.PROFILE.SEED`).
        job: String,
        /// Its seed.
        seed: u64,
        /// First diverging cycle.
        cycle: u64,
        /// First diverging signal.
        signal: String,
        /// Cycles simulated until the kill, over all jobs run.
        cycles_to_kill: u64,
    },
    /// The RTL stopped, crashed or hung: killed, reported apart.
    RtlError {
        /// The job.
        job: String,
        /// Its seed.
        seed: u64,
        /// What happened.
        message: String,
        /// Cycles simulated until the kill.
        cycles_to_kill: u64,
    },
    /// Every job passed.
    Survived {
        /// Cycles simulated.
        cycles: u64,
        /// Whether the mutant was activated in some job: its edit changed
        /// a value where the RTL evaluated it (a statement edit: it ran).
        /// Not activated, it is a stimulus gap; activated, a checking gap
        /// or an equivalent mutant. Unknown in reports from before it was
        /// recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        activated: Option<bool>,
    },
    /// Every job passed, and the mutant is proven equivalent.
    Equivalent {
        /// The proof.
        reason: String,
    },
    /// Every job passed, and a reviewed waiver calls the mutant
    /// equivalent ([`waivers`]).
    Waived {
        /// The waiver's reason.
        reason: String,
        /// Its line in the waiver file.
        line: usize,
    },
    /// The mutant does not compile (left out of the build and the rate).
    NotBuilt {
        /// The compiler's complaint.
        reason: String,
    },
    /// Not run (the campaign was stopped).
    NotRun,
}

impl Fate {
    /// Killed by a divergence or an RTL error.
    pub fn killed(&self) -> bool {
        matches!(self, Fate::Killed { .. } | Fate::RtlError { .. })
    }

    /// Cycles to the kill.
    pub fn cycles_to_kill(&self) -> Option<u64> {
        match self {
            Fate::Killed { cycles_to_kill, .. } | Fate::RtlError { cycles_to_kill, .. } => {
                Some(*cycles_to_kill)
            }
            _ => None,
        }
    }

    /// One word.
    pub fn word(&self) -> &'static str {
        match self {
            Fate::Killed { .. } => "killed",
            Fate::RtlError { .. } => "rtl-error",
            Fate::Survived { .. } => "survived",
            Fate::Equivalent { .. } => "equivalent",
            Fate::Waived { .. } => "waived",
            Fate::NotBuilt { .. } => "not-built",
            Fate::NotRun => "not-run",
        }
    }
}

/// One mutant's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MutantResult {
    /// Its number.
    pub id: u32,
    /// Its file (relative to the unit's directory).
    pub file: String,
    /// Line.
    pub line: usize,
    /// Operator.
    pub operator: Operator,
    /// The change as a diff of the lines it touches.
    pub diff: String,
    /// How it fared.
    #[serde(flatten)]
    pub fate: Fate,
}

/// A campaign's result for one unit and profile.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupResult {
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// The RTL directory mutated.
    pub rtl: PathBuf,
    /// Files not mutated because they are generated.
    pub generated: Vec<String>,
    /// Mutants the sources have.
    pub total_mutants: usize,
    /// Jobs each mutant runs (seeds).
    pub seeds: Seeds,
    /// Cycles per job.
    pub cycles: u64,
    /// Knobs of every job.
    #[serde(default)]
    pub knobs: Vec<(String, String)>,
    /// Stress variants ran on their seeds.
    #[serde(default)]
    pub stress: bool,
    /// Seconds to build the instrumented model (0 when cached).
    pub build_seconds: f64,
    /// Seconds of the unmutated runs.
    pub baseline_seconds: f64,
    /// Seconds running the mutants.
    pub run_seconds: f64,
    /// Mutants run, by id.
    pub mutants: Vec<MutantResult>,
    /// Instrumented builds compared with separate builds: (id, agreed
    /// cycles, or the first differing cycle).
    #[serde(default)]
    pub verified: Vec<Verified>,
}

/// A check that the instrumented build with a mutant selected behaves as a
/// separate build of that mutant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Verified {
    /// The mutant.
    pub id: u32,
    /// Cycles compared.
    pub cycles: u64,
    /// The first cycle whose outputs differ, if any.
    pub differs_at: Option<u64>,
    /// Seconds to build the separate mutant.
    pub build_seconds: f64,
}

impl GroupResult {
    /// `UNIT.PROFILE`.
    pub fn name(&self) -> String {
        format!("{}.{}", self.unit, self.profile)
    }
}

/// The instrumented sources of a unit, written where a build can read them.
pub struct Instrumented {
    /// The RTL root holding `<unit>/`.
    pub root: PathBuf,
    /// Mutants that do not compile, with Verilator's message.
    pub not_built: BTreeMap<u32, String>,
    _dir: tempfile::TempDir,
}

/// Writes `files` as `<root>/<unit>/...`.
fn write_tree(root: &Path, unit: &str, files: &BTreeMap<String, String>) -> Result<()> {
    let dir = root.join(unit);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

/// `%Error: path:line:col: ...` → (file name, line, column).
fn error_at(line: &str) -> Option<(String, usize, usize)> {
    let rest = line.split_once(": ")?.1;
    let mut it = rest.splitn(4, ':');
    let path = it.next()?;
    let l: usize = it.next()?.trim().parse().ok()?;
    let c: usize = it.next()?.trim().parse().ok()?;
    let name = Path::new(path).file_name()?.to_str()?.to_string();
    Some((name, l, c))
}

/// Instruments the mutants `ids` of `unit` for `profile`, leaving out
/// (and reporting) mutants Verilator rejects.
pub fn instrument(
    unit: &Unit,
    table: &'static PortTable,
    profile: Profile,
    ids: &BTreeSet<u32>,
    verilator: &Verilator,
) -> Result<Instrumented> {
    let unit_name = table.unit;
    let dir = tempfile::Builder::new()
        .prefix("gpucosim-mutants-")
        .tempdir()
        .map_err(|e| Error::Env(format!("cannot create a temporary directory: {e}")))?;
    let root = dir.path().to_path_buf();
    let mut ids = ids.clone();
    let mut not_built = BTreeMap::new();
    // Which mutants Verilator rejects is a function of the instrumented
    // text, the profile and Verilator: kept in the cache, the rounds of
    // checks below (seconds each for a unit of thousands of mutants) run
    // once per tree.
    let mut memo: Option<PathBuf> = None;
    for _round in 0..20 {
        let (files, ranges) = unit.instrument(&ids);
        write_tree(&root, unit_name, &files)?;
        let sources = RtlSources::collect(&root, unit_name)?;
        if memo.is_none() {
            let key = rtlbuild::key_of([
                "gpucosim-instrument-1",
                unit_name,
                &profile.to_string(),
                &verilator.identity,
                &rtlbuild::COMPILE_CHECK_OPTIONS.join(" "),
                &rtlbuild::sources_hash(&sources)?,
            ]);
            let path = rtlbuild::cache_root()
                .join("mutants")
                .join(format!("{unit_name}-{profile}-{}.json", &key[..16]));
            let known = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str::<BTreeMap<u32, String>>(&t).ok())
                .filter(|nb| nb.keys().all(|id| ids.contains(id)));
            if let Some(nb) = known {
                tracing::debug!(
                    "{unit_name} {profile}: the mutants Verilator rejects are known from an earlier campaign on these sources ({}): {}",
                    path.display(),
                    nb.len()
                );
                if !nb.is_empty() {
                    ids.retain(|i| !nb.contains_key(i));
                    write_tree(&root, unit_name, &unit.instrument(&ids).0)?;
                }
                return Ok(Instrumented {
                    root,
                    not_built: nb,
                    _dir: dir,
                });
            }
            memo = Some(path);
        }
        let errs = rtlbuild::compile_errors(table, profile, &sources, verilator)?;
        if errs.is_empty() {
            if let Some(path) = &memo {
                let text = serde_json::to_string(&not_built).expect("a map serialises");
                if let Err(e) = crate::write_atomic(path, text.as_bytes()) {
                    tracing::debug!("the mutants that do not compile are not kept: {e}");
                }
            }
            return Ok(Instrumented {
                root,
                not_built,
                _dir: dir,
            });
        }
        let mut culprits = BTreeSet::new();
        let mut unplaced = Vec::new();
        for e in &errs {
            let Some((file, line, col)) = error_at(e) else {
                unplaced.push(e.clone());
                continue;
            };
            let (Some(text), Some(r)) = (files.get(&file), ranges.get(&file)) else {
                unplaced.push(e.clone());
                continue;
            };
            let off = text
                .split_inclusive('\n')
                .take(line.saturating_sub(1))
                .map(str::len)
                .sum::<usize>()
                + col.saturating_sub(1);
            // The innermost mutant text holding the error.
            match r
                .iter()
                .filter(|&&(a, b, _)| a <= off && off < b.max(a + 1))
                .min_by_key(|&&(a, b, _)| b - a)
            {
                Some(&(_, _, id)) => {
                    culprits.insert(id);
                    // Verilator's message without its place in the
                    // instrumented text (the mutant's own place is known).
                    let msg = e
                        .split_once(&format!(":{line}:{col}: "))
                        .map_or(e.as_str(), |x| x.1)
                        .trim()
                        .to_string();
                    not_built.entry(id).or_insert(msg);
                }
                None => unplaced.push(e.clone()),
            }
        }
        if culprits.is_empty() {
            return Err(Error::Input(format!(
                "the RTL of {unit_name} does not compile without mutants, or the instrumentation broke it: {}",
                unplaced.first().map_or("", |s| s.as_str())
            )));
        }
        ids.retain(|i| !culprits.contains(i));
    }
    Err(Error::Env(format!(
        "{} mutants of {unit_name} do not compile; giving up",
        not_built.len()
    )))
}

/// The lines a mutant changes, as a small diff.
pub fn diff(unit: &Unit, m: &Mutant) -> String {
    let src = &unit.files[&m.file];
    let mut out = String::new();
    let mut edits: Vec<&gen::Edit> = m.edits.iter().collect();
    edits.sort_by_key(|e| e.start);
    for e in edits {
        let ls = src[..e.start].rfind('\n').map_or(0, |i| i + 1);
        let le = src[e.end..].find('\n').map_or(src.len(), |i| e.end + i);
        let line = src[..e.start].matches('\n').count() + 1;
        let new = format!("{}{}{}", &src[ls..e.start], e.text, &src[e.end..le]);
        out.push_str(&format!("@@ {}:{line}\n", m.file));
        for l in src[ls..le].lines() {
            out.push_str(&format!("-{l}\n"));
        }
        for l in new.lines() {
            out.push_str(&format!("+{l}\n"));
        }
    }
    out
}

/// Chooses the mutants to run.
pub fn select(unit: &Unit, spec: &CampaignSpec) -> Result<BTreeSet<u32>> {
    let n = unit.mutants.len() as u32;
    if !spec.ids.is_empty() {
        for &id in &spec.ids {
            if id == 0 || id > n {
                return Err(Error::Input(format!(
                    "no mutant {id}: the unit has mutants 1..{n}"
                )));
            }
        }
        return Ok(spec.ids.iter().copied().collect());
    }
    let mut all: Vec<u32> = (1..=n).collect();
    if let Some(k) = spec.sample {
        if k < all.len() {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.sample_seed);
            all.shuffle(&mut rng);
            all.truncate(k);
        }
    }
    Ok(all.into_iter().collect())
}

/// The jobs a mutant runs: the regression's for one unit and profile.
pub fn job_list(unit: &str, profile: Profile, spec: &CampaignSpec) -> Result<JobList> {
    JobList::new(
        &Plan {
            units: vec![unit.to_string()],
            profiles: vec![profile],
            seeds: spec.seeds,
            cycles: spec.cycles,
            knobs: spec.knobs.clone(),
            kernels: Vec::new(),
            stress: spec.stress,
            code_coverage: false,
            stimulus: crate::draw::STIMULUS_VERSION,
        },
        None,
    )
}

/// Runs the jobs of one mutant (0: none) in this thread's worker process
/// (`regress::run_job_in_worker`), stopping at the first that does not
/// pass.
fn run_mutant(
    exe: &Path,
    base: &JobSpec,
    list: &JobList,
    mutant: u32,
    stop: &AtomicBool,
) -> (Fate, Vec<JobResult>) {
    let mut cycles = 0u64;
    let mut results = Vec::new();
    for job in list.iter() {
        if stop.load(Ordering::SeqCst) {
            return (Fate::NotRun, results);
        }
        let mut spec = base.clone();
        spec.job = job.clone();
        spec.cfg.mutant = (mutant != 0).then_some(mutant);
        let r = regress::run_job_in_worker(exe, &spec, stop);
        let name = job.name();
        let fate = match r.status {
            Status::Passed => {
                cycles += r.cycles;
                results.push(r);
                continue;
            }
            Status::Diverged => {
                let (cycle, signal) = r.first_mismatch.clone().unwrap_or_default();
                Fate::Killed {
                    job: name,
                    seed: job.seed,
                    cycle,
                    signal,
                    cycles_to_kill: cycles + cycle + 1,
                }
            }
            Status::RtlError | Status::Timeout | Status::Error => Fate::RtlError {
                job: name,
                seed: job.seed,
                message: r.message.clone(),
                cycles_to_kill: cycles + r.cycles,
            },
            Status::Interrupted => Fate::NotRun,
        };
        results.push(r);
        return (fate, results);
    }
    let activated = Some(results.iter().any(|r| r.activated == Some(true)));
    (Fate::Survived { cycles, activated }, results)
}

/// Progress of a campaign, for the terminal.
pub trait Progress: Sync {
    /// A phase starts (`building`, `baseline`, ...).
    fn phase(&self, group: &str, what: &str);
    /// A mutant finished.
    fn mutant(&self, group: &str, done: usize, total: usize, r: &MutantResult);
}

/// Runs a campaign on one unit and profile.
#[allow(clippy::too_many_arguments)]
pub fn campaign<B: Testbench>(
    exe: &Path,
    profile: Profile,
    spec: &CampaignSpec,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<GroupResult> {
    let table = B::table();
    let unit_name = table.unit;
    let group = format!("{unit_name}.{profile}");
    let root = rtlbuild::rtl_root(spec.rtl_arg.as_deref());
    let sources = RtlSources::collect(&root, unit_name)?;
    let unit = Unit::scan(&sources.dir, &sources.files, &sources.includes)?;
    if unit.mutants.is_empty() {
        return Err(Error::Input(format!(
            "no mutation points in {}: no always blocks, continuous assignments or functions outside generated files",
            sources.dir.display()
        )));
    }
    let chosen = select(&unit, spec)?;
    let cache = rtlbuild::cache_root();
    let verilator = Verilator::locate(&cache)?;
    let list = job_list(unit_name, profile, spec)?;
    let bundles = tempfile::Builder::new()
        .prefix("gpucosim-mutate-")
        .tempdir()
        .map_err(|e| Error::Env(format!("cannot create a temporary directory: {e}")))?;
    let cfg = RegressConfig {
        cycles: spec.cycles,
        rtl_arg: spec.rtl_arg.clone(),
        knobs: spec.knobs.clone(),
        bundles: bundles.path().to_path_buf(),
        shrink: false,
        window: 16,
        timeout: spec.timeout,
        stall: None,
        waves_format: gpucosim_waves::WaveFormat::Vcd,
        mutant: None,
        code_coverage: false,
    };
    // The RTL as written must pass, before anything is instrumented.
    progress.phase(&group, "running the unmutated RTL");
    let t0 = Instant::now();
    let (lib, hash) = regress::LibCache::default().get::<B>(&root, profile)?;
    let plain = JobSpec {
        job: list.get(0),
        cfg: cfg.clone(),
        root: root.clone(),
        lib,
        hash,
        pipeline: false,
    };
    baseline(exe, &plain, &list, stop, &group, false, spec)?;
    let mut baseline_seconds = t0.elapsed().as_secs_f64();
    // Every mutant is instrumented, so one build serves every campaign on
    // these sources.
    progress.phase(&group, "instrumenting");
    let all: BTreeSet<u32> = unit.mutants.iter().map(|m| m.id).collect();
    let inst = instrument(&unit, table, profile, &all, &verilator)?;
    progress.phase(&group, "building the instrumented model");
    let t0 = Instant::now();
    let built = build_tree(&inst.root, table, profile, &verilator, spec.fresh_build)?;
    let isources = RtlSources::collect(&inst.root, unit_name)?;
    let build_seconds = if built.cached {
        0.0
    } else {
        t0.elapsed().as_secs_f64()
    };
    let mut base = JobSpec {
        job: list.get(0),
        cfg: RegressConfig {
            rtl_arg: Some(inst.root.clone()),
            ..cfg
        },
        root: inst.root.clone(),
        lib: built.lib.clone(),
        hash: rtlbuild::sources_hash(&isources)?,
        pipeline: false,
    };
    // The instrumented build with no mutant selected must pass too; its
    // runs set the time limit.
    let t0 = Instant::now();
    let results = baseline(exe, &base, &list, stop, &group, true, spec)?;
    baseline_seconds += t0.elapsed().as_secs_f64();
    if base.cfg.timeout.is_none() {
        let slowest = results.iter().map(|r| r.seconds).fold(0.0, f64::max);
        base.cfg.timeout = Some(10.0 * slowest + 10.0);
    }
    let verified =
        verify_sample::<B>(&unit, &inst, &built.lib, profile, spec, &chosen, &verilator)?;
    progress.phase(&group, "running mutants");
    let t0 = Instant::now();
    let todo: Vec<u32> = chosen.iter().copied().collect();
    // A survivor is checked for equivalence: by evaluation, then by
    // Verilator's optimiser against the RTL as written (Verilated once).
    let original = std::sync::OnceLock::new();
    let prove = |m: &Mutant| -> Option<String> {
        if let Some(r) = equiv::prove(&unit, m, profile) {
            return Some(r);
        }
        let orig = original.get_or_init(|| {
            equiv::verilate(&unit.files, table, profile, &verilator)
                .map_err(|e| tracing::warn!("{group}: cannot Verilate the RTL as written: {e}"))
                .ok()
                .flatten()
        });
        let orig = orig.as_ref()?;
        equiv::prove_by_verilator(&unit, m, orig, table, profile, &verilator)
            .map_err(|e| tracing::warn!("{group}: mutant {}: {e}", m.id))
            .ok()
            .flatten()
    };
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<MutantResult>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        // A worker beyond the mutants would take none.
        for _ in 0..spec.jobs.min(todo.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= todo.len() {
                    break;
                }
                let id = todo[i];
                let m = unit.mutant(id).expect("chosen mutants exist");
                let fate = if let Some(reason) = inst.not_built.get(&id) {
                    Fate::NotBuilt {
                        reason: reason.clone(),
                    }
                } else {
                    let (fate, _) = run_mutant(exe, &base, &list, id, stop);
                    match fate {
                        Fate::Survived { cycles, activated } => match prove(m) {
                            Some(reason) => Fate::Equivalent { reason },
                            None => Fate::Survived { cycles, activated },
                        },
                        f => f,
                    }
                };
                let r = MutantResult {
                    id,
                    file: m.file.clone(),
                    line: m.line,
                    operator: m.operator,
                    diff: diff(&unit, m),
                    fate,
                };
                let d = done.fetch_add(1, Ordering::SeqCst) + 1;
                progress.mutant(&group, d, todo.len(), &r);
                results.lock().expect("results").push(r);
            });
        }
    });
    let mut mutants = results.into_inner().expect("results");
    mutants.sort_by_key(|r| r.id);
    Ok(GroupResult {
        unit: unit_name.to_string(),
        profile,
        rtl: sources.dir.clone(),
        generated: unit.generated.clone(),
        total_mutants: unit.mutants.len(),
        seeds: spec.seeds,
        cycles: spec.cycles,
        knobs: spec.knobs.clone(),
        stress: spec.stress,
        build_seconds,
        baseline_seconds,
        run_seconds: t0.elapsed().as_secs_f64(),
        mutants,
        verified,
    })
}

/// Runs the jobs with no mutant selected; an error if one does not pass.
fn baseline(
    exe: &Path,
    base: &JobSpec,
    list: &JobList,
    stop: &AtomicBool,
    group: &str,
    instrumented: bool,
    spec: &CampaignSpec,
) -> Result<Vec<JobResult>> {
    let (fate, results) = run_mutant(exe, base, list, 0, stop);
    // The mutants run on other threads, with workers of their own.
    regress::end_worker();
    match fate {
        Fate::Survived { .. } => Ok(results),
        Fate::NotRun => Err(Error::Env(format!(
            "{group}: interrupted while running the unmutated RTL"
        ))),
        _ => {
            let r = results.last().expect("a failing job");
            Err(if instrumented {
                Error::Env(format!(
                    "the instrumented build of {group} with no mutant selected fails {} where the RTL as written passes ({}): a gpucosim bug, please report it",
                    r.job.name(),
                    r.message
                ))
            } else {
                Error::Input(format!(
                    "the RTL of {group} fails the regression without a mutant ({}: {}); fix that first: {}",
                    r.job.name(),
                    r.message,
                    ReproCommand::Regress {
                        unit: r.job.unit.clone(),
                        profile: r.job.profile,
                        seed: r.job.seed,
                        cycles: spec.cycles,
                        rtl: spec.rtl_arg.clone(),
                    },
                ))
            })
        }
    }
}

/// Builds `spec.verify` of the chosen mutants separately and checks that
/// each behaves exactly as the instrumented build with it selected: the
/// same outputs, every cycle, over the first seed's recorded inputs.
fn verify_sample<B: Testbench>(
    unit: &Unit,
    inst: &Instrumented,
    lib: &Path,
    profile: Profile,
    spec: &CampaignSpec,
    chosen: &BTreeSet<u32>,
    verilator: &Verilator,
) -> Result<Vec<Verified>> {
    if spec.verify == 0 {
        return Ok(Vec::new());
    }
    let ids: Vec<u32> = chosen
        .iter()
        .copied()
        .filter(|id| !inst.not_built.contains_key(id))
        .collect();
    let step = (ids.len() / spec.verify.max(1)).max(1);
    let picks: Vec<u32> = ids
        .iter()
        .step_by(step)
        .take(spec.verify)
        .copied()
        .collect();
    let rec = gpucosim_tb::record_inputs::<B>(profile, spec.seeds.first, spec.cycles)?;
    let mut out = Vec::new();
    for id in picks {
        let t0 = Instant::now();
        let alone = build_alone::<B>(unit, profile, id, verilator, spec.fresh_build)?;
        let build_seconds = t0.elapsed().as_secs_f64();
        let differs_at = compare_libs::<B>(lib, id, &alone, &rec)?;
        out.push(Verified {
            id,
            cycles: differs_at.map_or(spec.cycles, |c| c + 1),
            differs_at,
            build_seconds,
        });
    }
    Ok(out)
}

/// Builds mutant `id` (0: none) of `unit` on its own, without the select.
fn build_alone<B: Testbench>(
    unit: &Unit,
    profile: Profile,
    id: u32,
    verilator: &Verilator,
    fresh: bool,
) -> Result<PathBuf> {
    let table = B::table();
    let dir = tempfile::Builder::new()
        .prefix("gpucosim-mutant-")
        .tempdir()
        .map_err(|e| Error::Env(format!("cannot create a temporary directory: {e}")))?;
    write_tree(dir.path(), table.unit, &unit.apply(id))?;
    let built = build_tree(dir.path(), table, profile, verilator, fresh)?;
    Ok(built.lib)
}

/// Builds the unit's tree under `root` (cached as any build); `fresh`: with
/// a comment no cached build has seen, to time a build from nothing.
fn build_tree(
    root: &Path,
    table: &'static PortTable,
    profile: Profile,
    verilator: &Verilator,
    fresh: bool,
) -> Result<rtlbuild::Built> {
    let sources = RtlSources::collect(root, table.unit)?;
    if fresh {
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let p = &sources.files[0];
        let mut t = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
        t.push_str(&format!("// fresh build {nonce}\n"));
        std::fs::write(p, t).map_err(|e| Error::io(p, e))?;
    }
    rtlbuild::build(
        &rtlbuild::BuildRequest {
            table,
            profile,
            sources: &sources,
            trace: false,
            coverage: false,
        },
        verilator,
        &rtlbuild::cache_root(),
    )
}

/// Steps the library `a` with mutant `sel` selected and the library `b`
/// over the recorded inputs: the first cycle whose outputs differ.
fn compare_libs<B: Testbench>(a: &Path, sel: u32, b: &Path, rec: &[u32]) -> Result<Option<u64>> {
    let table = B::table();
    let mut ra = crate::rtl::Rtl::load(a, table)?;
    ra.set_mutant(sel);
    let mut rb = crate::rtl::Rtl::load(b, table)?;
    let (iw, ow) = (table.in_words(), table.out_words());
    let (mut oa, mut ob) = (vec![0u32; ow], vec![0u32; ow]);
    for (c, inp) in rec.chunks_exact(iw).enumerate() {
        ra.step(inp, &mut oa);
        rb.step(inp, &mut ob);
        if oa != ob {
            return Ok(Some(c as u64));
        }
    }
    Ok(None)
}

/// Runs the instrumented build of `unit` (every mutant) with mutant
/// `selected` and a separate build of mutant `alone` (0: the RTL as
/// written) over `cycles` cycles of `seed`'s stimulus: the first cycle
/// whose outputs differ, if any.
pub fn compare_with_separate_build<B: Testbench>(
    unit: &Unit,
    profile: Profile,
    selected: u32,
    alone: u32,
    seed: u64,
    cycles: u64,
) -> Result<Option<u64>> {
    let table = B::table();
    let cache = rtlbuild::cache_root();
    let verilator = Verilator::locate(&cache)?;
    let all: BTreeSet<u32> = unit.mutants.iter().map(|m| m.id).collect();
    let inst = instrument(unit, table, profile, &all, &verilator)?;
    let lib = build_tree(&inst.root, table, profile, &verilator, false)?.lib;
    let b = build_alone::<B>(unit, profile, alone, &verilator, false)?;
    let rec = gpucosim_tb::record_inputs::<B>(profile, seed, cycles)?;
    compare_libs::<B>(&lib, selected, &b, &rec)
}

/// Runs `gpucosim job`'s executable check: a path that exists.
pub fn exe_path() -> Result<PathBuf> {
    crate::regress::own_exe()
}

/// Lists the mutants of a unit (for `--list`).
pub fn scan_unit(rtl_arg: Option<&Path>, unit: &str) -> Result<Unit> {
    let root = rtlbuild::rtl_root(rtl_arg);
    let sources = RtlSources::collect(&root, unit)?;
    Unit::scan(&sources.dir, &sources.files, &sources.includes)
}

/// The command that runs one mutant again.
pub fn repro_command(
    g: &GroupResult,
    id: u32,
    rtl_arg: Option<&Path>,
    seed: Option<u64>,
) -> String {
    ReproCommand::Mutate {
        unit: g.unit.clone(),
        profile: g.profile,
        mutant: id,
        seeds: seed.map_or((g.seeds.first, g.seeds.last), |s| (s, s)),
        cycles: g.cycles,
        knobs: g.knobs.clone(),
        stress: g.stress,
        rtl: rtl_arg.map(Path::to_path_buf),
    }
    .to_string()
}
