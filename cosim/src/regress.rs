//! Regressions: many seeds across units and profiles in parallel, sharding,
//! JUnit, merged coverage, failure bundles, replay and shrinking.
//!
//! A regression is a list of jobs `UNIT.PROFILE.SEED`, in a fixed order
//! (units, then profiles, then seeds). `--shard K/N` keeps the jobs whose
//! index `i` has `i % N == K - 1`, so the shards of one regression partition
//! its jobs whatever machine runs them. Each shard writes a results file;
//! `gpucosim merge` combines them.

use crate::bench::Testbench;
use crate::engine::{self, Outcome, RunSpec, Stimulus};
use crate::error::{Error, Result};
use crate::rtl::Rtl;
use crate::rtlbuild;
use gpucosim_model::{Coverage, Profile};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// One job of a regression.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Job {
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Seed.
    pub seed: u64,
}

impl Job {
    /// `UNIT.PROFILE.SEED`.
    pub fn name(&self) -> String {
        format!("{}.{}.{}", self.unit, self.profile, self.seed)
    }
    /// `UNIT.PROFILE`.
    pub fn group(&self) -> String {
        format!("{}.{}", self.unit, self.profile)
    }
}

/// A shard `K/N` (1-based `K`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seeds {
    /// First seed.
    pub first: u64,
    /// Last seed (inclusive).
    pub last: u64,
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
                return Err(bad());
            }
            Ok(Seeds { first, last })
        } else {
            let n: u64 = s.trim().parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(bad());
            }
            Ok(Seeds { first: 1, last: n })
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
    let mut all = Vec::new();
    for u in units {
        for &p in profiles {
            for seed in seeds.first..=seeds.last {
                all.push(Job {
                    unit: u.clone(),
                    profile: p,
                    seed,
                });
            }
        }
    }
    match shard {
        None => all,
        Some(s) => all
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i as u64 % s.n as u64 == (s.k - 1) as u64)
            .map(|(_, j)| j)
            .collect(),
    }
}

/// The result of one job, as kept in results files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobResult {
    /// The job.
    pub job: Job,
    /// Cycles simulated.
    pub cycles: u64,
    /// Transactions consumed.
    pub transactions: usize,
    /// Wall time of the cycle loop in seconds.
    pub seconds: f64,
    /// Whether model and RTL agreed.
    pub passed: bool,
    /// The divergence report (empty when passed).
    pub report: String,
    /// First divergence: cycle and signal.
    pub first_mismatch: Option<(u64, String)>,
    /// The command reproducing the run.
    pub reproduce: String,
    /// Failure bundle, if one was written.
    pub bundle: Option<PathBuf>,
    /// Shrunk bundle, if shrinking ran.
    pub shrunk: Option<PathBuf>,
    /// An environment or input error that kept the job from running.
    pub error: Option<String>,
}

/// Coverage of one unit and profile, merged over seeds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GroupCoverage {
    /// Hits per bin.
    pub bins: BTreeMap<String, u64>,
}

impl GroupCoverage {
    fn add(&mut self, c: &Coverage) {
        for (n, h) in c.names.iter().zip(&c.hits) {
            *self.bins.entry(n.to_string()).or_default() += h;
        }
    }
    fn merge(&mut self, o: &GroupCoverage) {
        for (n, h) in &o.bins {
            *self.bins.entry(n.clone()).or_default() += h;
        }
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

/// A results file: what one regression (or shard) did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Results {
    /// Format version.
    pub format: u32,
    /// Shards that contributed (empty for an unsharded run).
    pub shards: Vec<Shard>,
    /// Whether the run was interrupted before every job ran.
    pub interrupted: bool,
    /// Job results, in canonical job order.
    pub jobs: Vec<JobResult>,
    /// Coverage per `UNIT.PROFILE`.
    pub coverage: BTreeMap<String, GroupCoverage>,
}

/// Results-file format version.
pub const RESULTS_FORMAT: u32 = 1;

impl Results {
    /// Reads a results file.
    pub fn load(path: &Path) -> Result<Results> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let r: Results = serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{} is not a gpucosim results file: {e}",
                path.display()
            ))
        })?;
        if r.format != RESULTS_FORMAT {
            return Err(Error::Input(format!(
                "{}: results format {} (expected {RESULTS_FORMAT})",
                path.display(),
                r.format
            )));
        }
        Ok(r)
    }

    /// Merges shard results; a job present in two inputs is an error.
    pub fn merge(parts: Vec<(PathBuf, Results)>) -> Result<Results> {
        let mut out = Results {
            format: RESULTS_FORMAT,
            ..Default::default()
        };
        let mut seen: BTreeMap<Job, PathBuf> = BTreeMap::new();
        for (path, r) in parts {
            for j in r.jobs {
                if let Some(prev) = seen.insert(j.job.clone(), path.clone()) {
                    return Err(Error::Input(format!(
                        "job {} appears in both {} and {}",
                        j.job.name(),
                        prev.display(),
                        path.display()
                    )));
                }
                out.jobs.push(j);
            }
            for (g, c) in &r.coverage {
                out.coverage.entry(g.clone()).or_default().merge(c);
            }
            out.shards.extend(r.shards);
            out.interrupted |= r.interrupted;
        }
        out.jobs.sort_by(|a, b| a.job.cmp(&b.job));
        out.shards.sort_by_key(|s| (s.n, s.k));
        Ok(out)
    }

    /// The summary table: per unit and profile, seeds, cycles, cycles per
    /// second, failures and coverage; then the bins never hit.
    pub fn summary(&self) -> String {
        #[derive(Default)]
        struct Row {
            seeds: usize,
            cycles: u64,
            secs: f64,
            fails: usize,
            errors: usize,
        }
        let mut rows: BTreeMap<String, Row> = BTreeMap::new();
        for j in &self.jobs {
            let r = rows.entry(j.job.group()).or_default();
            r.seeds += 1;
            r.cycles += j.cycles;
            r.secs += j.seconds;
            if j.error.is_some() {
                r.errors += 1;
            } else if !j.passed {
                r.fails += 1;
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
            let fails = if r.errors > 0 {
                format!("{}+{}err", r.fails, r.errors)
            } else {
                r.fails.to_string()
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

    /// Number of failed or errored jobs.
    pub fn failures(&self) -> usize {
        self.jobs.iter().filter(|j| !j.passed).count()
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

    /// The JUnit XML report: one testcase per `UNIT.PROFILE.SEED`.
    pub fn junit(&self) -> String {
        let mut groups: BTreeMap<String, Vec<&JobResult>> = BTreeMap::new();
        for j in &self.jobs {
            groups.entry(j.job.group()).or_default().push(j);
        }
        let total: usize = self.jobs.len();
        let fails = self
            .jobs
            .iter()
            .filter(|j| !j.passed && j.error.is_none())
            .count();
        let errors = self.jobs.iter().filter(|j| j.error.is_some()).count();
        let time: f64 = self.jobs.iter().map(|j| j.seconds).sum();
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.push_str(&format!(
            "<testsuites name=\"gpucosim\" tests=\"{total}\" failures=\"{fails}\" errors=\"{errors}\" time=\"{time:.3}\">\n"
        ));
        for (g, js) in &groups {
            let f = js.iter().filter(|j| !j.passed && j.error.is_none()).count();
            let e = js.iter().filter(|j| j.error.is_some()).count();
            let t: f64 = js.iter().map(|j| j.seconds).sum();
            s.push_str(&format!(
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" time=\"{t:.3}\">\n",
                xml(g),
                js.len()
            ));
            for j in js {
                s.push_str(&format!(
                    "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                    xml(g),
                    xml(&j.job.name()),
                    j.seconds
                ));
                if let Some(e) = &j.error {
                    s.push_str(&format!(
                        ">\n      <error message=\"{}\"/>\n    </testcase>\n",
                        xml(e)
                    ));
                } else if !j.passed {
                    let msg = j
                        .first_mismatch
                        .as_ref()
                        .map(|(c, sig)| format!("model and RTL diverge at cycle {c} on {sig}"))
                        .unwrap_or_else(|| "diverged".into());
                    let mut body = j.report.clone();
                    if let Some(b) = &j.bundle {
                        body.push_str(&format!("bundle: {}\n", b.display()));
                    }
                    body.push_str(&format!("reproduce: {}\n", j.reproduce));
                    s.push_str(&format!(
                        ">\n      <failure message=\"{}\" type=\"divergence\">{}</failure>\n    </testcase>\n",
                        xml(&msg),
                        xml(&body)
                    ));
                } else {
                    s.push_str("/>\n");
                }
            }
            s.push_str("  </testsuite>\n");
        }
        s.push_str("</testsuites>\n");
        s
    }
}

fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' && c != '\r' => {}
            c => o.push(c),
        }
    }
    o
}

/// Settings shared by every job of a regression.
#[derive(Debug, Clone)]
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
}

/// What a repro bundle holds (`repro.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Repro {
    /// Format version.
    pub format: u32,
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Seed the stimulus came from.
    pub seed: u64,
    /// Cycle budget of the run.
    pub cycles: u64,
    /// Knobs.
    pub knobs: Vec<(String, String)>,
    /// The RTL tree used (absolute).
    pub rtl_dir: PathBuf,
    /// Content hash of the unit's RTL sources.
    pub rtl_hash: String,
    /// First divergence: cycle and signal.
    pub first_mismatch: Option<(u64, String)>,
    /// The complete stimulus, as transactions.
    pub transactions: Vec<serde_json::Value>,
}

/// Repro format version.
pub const REPRO_FORMAT: u32 = 1;

impl Repro {
    /// Reads `BUNDLE/repro.json` (or a repro file given directly).
    pub fn load(bundle: &Path) -> Result<Repro> {
        let path = if bundle.is_dir() {
            bundle.join("repro.json")
        } else {
            bundle.to_path_buf()
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::Input(format!("cannot read repro bundle {}: {e}", path.display()))
        })?;
        let r: Repro = serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{} is not a valid gpucosim repro file: {e}",
                path.display()
            ))
        })?;
        if r.format != REPRO_FORMAT {
            return Err(Error::Input(format!(
                "{}: repro format {} (expected {REPRO_FORMAT})",
                path.display(),
                r.format
            )));
        }
        Ok(r)
    }

    /// The run this bundle replays, writing waveforms to `waves`.
    pub fn spec(&self, waves: Option<&Path>) -> RunSpec {
        RunSpec {
            unit: self.unit.clone(),
            profile: self.profile,
            seed: self.seed,
            cycles: self.cycles,
            rtl_arg: Some(self.rtl_dir.clone()),
            waves: waves.map(Path::to_path_buf),
            window: 1024,
            post: 8,
            dump_all: false,
            max_mismatches: 1,
            knobs: self.knobs.clone(),
            // Replays are short, and shrinking runs many of them.
            pipeline: false,
        }
    }

    /// The transactions, typed for bench `B`.
    pub fn txns<B: Testbench>(&self) -> Result<Vec<B::Txn>> {
        self.transactions
            .iter()
            .enumerate()
            .map(|(i, v)| {
                serde_json::from_value(v.clone()).map_err(|e| {
                    Error::Input(format!(
                        "repro transaction #{i} is not a {} transaction: {e}",
                        self.unit
                    ))
                })
            })
            .collect()
    }
}

fn spec_for(job: &Job, cfg: &RegressConfig, waves: Option<PathBuf>) -> RunSpec {
    RunSpec {
        unit: job.unit.clone(),
        profile: job.profile,
        seed: job.seed,
        cycles: cfg.cycles,
        rtl_arg: cfg.rtl_arg.clone(),
        waves,
        window: cfg.window,
        post: 8,
        dump_all: false,
        max_mismatches: 1,
        knobs: cfg.knobs.clone(),
        // The jobs fill the CPUs; each runs on one thread.
        pipeline: false,
    }
}

/// Writes a failure bundle directory atomically: `repro.json`,
/// `report.txt` and the VCD.
#[allow(clippy::too_many_arguments)]
pub fn write_bundle<T: Serialize>(
    dir: &Path,
    spec: &RunSpec,
    rtl_dir: &Path,
    rtl_hash: &str,
    out: &Outcome<T>,
    report: &str,
    vcd: Option<&Path>,
) -> Result<()> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".bundle-")
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, e))?;
    let repro = Repro {
        format: REPRO_FORMAT,
        unit: spec.unit.clone(),
        profile: spec.profile,
        seed: spec.seed,
        cycles: spec.cycles,
        knobs: spec.knobs.clone(),
        rtl_dir: rtl_dir
            .canonicalize()
            .unwrap_or_else(|_| rtl_dir.to_path_buf()),
        rtl_hash: rtl_hash.to_string(),
        first_mismatch: out.mismatches.first().map(|m| (m.cycle, m.signal.clone())),
        transactions: out
            .txns
            .iter()
            .map(|t| serde_json::to_value(t).expect("transactions serialise"))
            .collect(),
    };
    let j = serde_json::to_string_pretty(&repro).expect("repro serialises");
    std::fs::write(tmp.path().join("repro.json"), j).map_err(|e| Error::io(tmp.path(), e))?;
    std::fs::write(tmp.path().join("report.txt"), report).map_err(|e| Error::io(tmp.path(), e))?;
    if let Some(v) = vcd {
        let name = v.file_name().unwrap_or_default();
        std::fs::copy(v, tmp.path().join(name)).map_err(|e| Error::io(v, e))?;
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let kept = tmp.keep();
    std::fs::rename(&kept, dir).map_err(|e| Error::io(dir, e))?;
    Ok(())
}

/// Per-process cache of built RTL libraries, keyed by unit and profile.
#[derive(Default)]
pub struct LibCache {
    libs: Mutex<BTreeMap<(String, Profile), (PathBuf, String)>>,
}

impl LibCache {
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

/// Runs one job of bench `B`: the run, and on failure its bundle (and its
/// shrunk bundle when asked). Returns the result and the model's coverage.
pub fn run_job<B: Testbench>(
    job: &Job,
    cfg: &RegressConfig,
    libs: &LibCache,
) -> (JobResult, Option<Coverage>) {
    let mut res = JobResult {
        job: job.clone(),
        cycles: 0,
        transactions: 0,
        seconds: 0.0,
        passed: false,
        report: String::new(),
        first_mismatch: None,
        reproduce: String::new(),
        bundle: None,
        shrunk: None,
        error: None,
    };
    match run_job_inner::<B>(job, cfg, libs, &mut res) {
        Ok(cov) => (res, Some(cov)),
        Err(e) => {
            res.passed = false;
            res.error = Some(e.to_string());
            (res, None)
        }
    }
}

fn run_job_inner<B: Testbench>(
    job: &Job,
    cfg: &RegressConfig,
    libs: &LibCache,
    res: &mut JobResult,
) -> Result<Coverage> {
    let root = rtlbuild::rtl_root(cfg.rtl_arg.as_deref());
    let (lib, hash) = libs.get::<B>(&root, job.profile)?;
    let bundle_dir = cfg.bundles.join(job.name());
    let waves_tmp =
        tempfile::tempdir().map_err(|e| Error::Env(format!("temporary directory: {e}")))?;
    let spec = spec_for(job, cfg, Some(waves_tmp.path().to_path_buf()));
    let mut rtl = Rtl::load(&lib, B::table())?;
    let out = engine::run::<B>(&spec, &mut rtl, Stimulus::Fresh, None)?;
    res.cycles = out.cycles;
    res.transactions = out.txns.len();
    res.seconds = out.elapsed.as_secs_f64();
    res.passed = out.passed();
    let mut bspec = spec.clone();
    bspec.waves = Some(bundle_dir.clone());
    if out.passed() {
        res.reproduce = spec_for(job, cfg, None).repro_command();
        return Ok(out.coverage);
    }
    res.reproduce = format!("gpucosim replay {}", bundle_dir.display());
    res.report = engine::report(&bspec, &out, B::table());
    if let Some(v) = &out.vcd {
        // The waveform is copied into the bundle; point the report there.
        let kept = bundle_dir.join(v.file_name().unwrap_or_default());
        res.report = res
            .report
            .replace(&v.display().to_string(), &kept.display().to_string());
    }
    res.first_mismatch = out.mismatches.first().map(|m| (m.cycle, m.signal.clone()));
    write_bundle(
        &bundle_dir,
        &bspec,
        &root,
        &hash,
        &out,
        &res.report,
        out.vcd.as_deref(),
    )?;
    res.bundle = Some(bundle_dir.clone());
    if cfg.shrink {
        let shrunk_dir = cfg.bundles.join(format!("{}.shrunk", job.name()));
        let s = shrink::<B>(&Repro::load(&bundle_dir)?, &lib, &shrunk_dir)?;
        res.report.push_str(&format!("shrunk: {}\n", s.summary()));
        res.shrunk = Some(shrunk_dir);
    }
    Ok(out.coverage)
}

/// Runs `jobs` on `threads` workers with `runner`, calling `progress` on
/// the main thread after each job; stops taking new jobs once `stop` is
/// set. Returns the results of the jobs that ran, in canonical order, and
/// the merged coverage.
pub fn run_jobs(
    jobs: Vec<Job>,
    threads: usize,
    stop: &AtomicBool,
    runner: &(dyn Fn(&Job) -> (JobResult, Option<Coverage>) + Sync),
    progress: &mut dyn FnMut(&JobResult),
) -> (Vec<JobResult>, BTreeMap<String, GroupCoverage>) {
    let next = AtomicUsize::new(0);
    let jobs = Arc::new(jobs);
    let (tx, rx) = mpsc::channel::<(JobResult, Option<Coverage>)>();
    let mut results = Vec::new();
    let mut coverage: BTreeMap<String, GroupCoverage> = BTreeMap::new();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let jobs = Arc::clone(&jobs);
            let next = &next;
            s.spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                if tx.send(runner(job)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (r, c) in rx {
            if let Some(c) = &c {
                coverage.entry(r.job.group()).or_default().add(c);
            }
            progress(&r);
            results.push(r);
        }
    });
    results.sort_by(|a, b| a.job.cmp(&b.job));
    (results, coverage)
}

/// The outcome of shrinking.
#[derive(Debug, Clone)]
pub struct Shrunk {
    /// Transactions before.
    pub txns_before: usize,
    /// Transactions after.
    pub txns_after: usize,
    /// Serialised stimulus size in bytes before.
    pub bytes_before: usize,
    /// Serialised stimulus size in bytes after.
    pub bytes_after: usize,
    /// Divergence cycle before.
    pub cycle_before: u64,
    /// Divergence cycle after.
    pub cycle_after: u64,
    /// Replays tried.
    pub attempts: usize,
}

impl Shrunk {
    /// One line: sizes before and after.
    pub fn summary(&self) -> String {
        format!(
            "{} -> {} transactions, {} -> {} bytes of stimulus, divergence at cycle {} -> {} ({} replays)",
            self.txns_before,
            self.txns_after,
            self.bytes_before,
            self.bytes_after,
            self.cycle_before,
            self.cycle_after,
            self.attempts
        )
    }
}

/// Replays `txns`; returns the first divergence's (cycle, signal), if any.
pub fn replay_txns<B: Testbench>(
    repro: &Repro,
    lib: &Path,
    txns: Vec<B::Txn>,
    waves: Option<&Path>,
) -> Result<Outcome<B::Txn>> {
    let spec = repro.spec(waves);
    let mut rtl = Rtl::load(lib, B::table())?;
    engine::run::<B>(&spec, &mut rtl, Stimulus::Replay(txns), None)
}

/// Minimises a failing stimulus: drops chunks of transactions (halves,
/// quarters, … single ones) and then simplifies each remaining transaction
/// with [`Testbench::simplify`], keeping every change after which the run
/// still diverges on the same signal. Writes the result as a new bundle.
pub fn shrink<B: Testbench>(repro: &Repro, lib: &Path, out_dir: &Path) -> Result<Shrunk> {
    let orig: Vec<B::Txn> = repro.txns::<B>()?;
    let bytes = |t: &[B::Txn]| serde_json::to_string(t).map(|s| s.len()).unwrap_or(0);
    let base = replay_txns::<B>(repro, lib, orig.clone(), None)?;
    let Some(first) = base.mismatches.first().cloned() else {
        return Err(Error::Input(format!(
            "the bundle of {}.{}.{} does not diverge on this RTL; nothing to shrink",
            repro.unit, repro.profile, repro.seed
        )));
    };
    let target = first.signal.clone();
    let mut attempts = 0usize;
    let mut fails = |cand: &[B::Txn]| -> Result<Option<u64>> {
        attempts += 1;
        let o = replay_txns::<B>(repro, lib, cand.to_vec(), None)?;
        Ok(o.mismatches
            .first()
            .filter(|m| m.signal == target)
            .map(|m| m.cycle))
    };
    // The run stopped shortly after the divergence: later transactions
    // never mattered.
    let mut cur: Vec<B::Txn> = base.txns.clone();
    let mut cur_cycle = first.cycle;
    // Chunk removal (delta debugging, complement only).
    let mut chunk = cur.len().div_ceil(2).max(1);
    loop {
        let mut i = 0;
        let mut changed = false;
        while i < cur.len() {
            let end = (i + chunk).min(cur.len());
            let mut cand = cur[..i].to_vec();
            cand.extend_from_slice(&cur[end..]);
            if !cand.is_empty() {
                if let Some(c) = fails(&cand)? {
                    cur = cand;
                    cur_cycle = c;
                    changed = true;
                    continue;
                }
            }
            i = end;
        }
        if chunk == 1 && !changed {
            break;
        }
        if !changed {
            chunk = chunk.div_ceil(2).max(1);
        }
    }
    // Field simplification, to a fixpoint (bounded).
    for _round in 0..4 {
        let mut changed = false;
        for i in 0..cur.len() {
            for simpler in B::simplify(&cur[i]) {
                let mut cand = cur.clone();
                cand[i] = simpler;
                if let Some(c) = fails(&cand)? {
                    cur = cand;
                    cur_cycle = c;
                    changed = true;
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Write the shrunk bundle with its waveform.
    let waves = tempfile::tempdir().map_err(|e| Error::Env(format!("temporary directory: {e}")))?;
    let o = replay_txns::<B>(repro, lib, cur.clone(), Some(waves.path()))?;
    let spec = repro.spec(Some(out_dir));
    let mut o2 = o;
    o2.txns = cur.clone();
    let mut report = engine::report(&spec, &o2, B::table()).replace(
        &spec.repro_command(),
        &format!("gpucosim replay {}", out_dir.display()),
    );
    if let Some(v) = &o2.vcd {
        let kept = out_dir.join(v.file_name().unwrap_or_default());
        report = report.replace(&v.display().to_string(), &kept.display().to_string());
    }
    write_bundle(
        out_dir,
        &spec,
        &repro.rtl_dir,
        &repro.rtl_hash,
        &o2,
        &report,
        o2.vcd.as_deref(),
    )?;
    Ok(Shrunk {
        txns_before: orig.len(),
        txns_after: cur.len(),
        bytes_before: bytes(&orig),
        bytes_after: bytes(&cur),
        cycle_before: first.cycle,
        cycle_after: cur_cycle,
        attempts,
    })
}

/// Checks a bundle's RTL against the tree it will replay on: refuses a
/// changed RTL unless `force`.
pub fn check_rtl_hash<B: Testbench>(repro: &Repro, root: &Path, force: bool) -> Result<String> {
    let sources = rtlbuild::RtlSources::collect(root, B::table().unit)?;
    let now = rtlbuild::sources_hash(&sources)?;
    if now != repro.rtl_hash && !force {
        return Err(Error::Input(format!(
            "the {} RTL in {} has changed since the bundle was written (hash {} now, {} in the bundle); \
             pass --force to replay anyway",
            repro.unit,
            root.display(),
            &now[..12],
            &repro.rtl_hash[..repro.rtl_hash.len().min(12)]
        )));
    }
    Ok(now)
}
