//! Failure bundles: what reproduces a failed run (`repro.json`), its report
//! and waveform; replaying them; shrinking their stimulus.
//!
//! A bundle of a fresh run records its seed and how many transactions the
//! run consumed, not the transactions: the seed's stimulus is reproducible
//! ([`crate::engine::fresh_txns`]), so a bundle stays small however long the
//! run was. A shrunk bundle lists its transactions.

use crate::engine::{self, End, Outcome, RunSpec, Stimulus, Verdict};
use crate::error::{Error, Result};
use crate::outputs;
use crate::repro::ReproCommand;
use crate::rtl::{Rtl, RtlEnd};
use crate::rtlbuild;
use crate::testbench::Testbench;
use gpucosim_model::Profile;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a repro bundle holds (`repro.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repro {
    /// Format version.
    pub format: u32,
    /// Unit.
    pub unit: String,
    /// Profile.
    pub profile: Profile,
    /// Seed the stimulus came from.
    pub seed: u64,
    /// What the run was of, when not the unit's random stimulus (a kernel's
    /// name: `waitcnt.gfx9.KERNEL.7`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Cycle budget of the run.
    pub cycles: u64,
    /// Knobs.
    pub knobs: Vec<(String, String)>,
    /// The RTL tree used (absolute).
    pub rtl_dir: PathBuf,
    /// Content hash of the unit's RTL sources.
    pub rtl_hash: String,
    /// What the run came to.
    #[serde(default = "diverged")]
    pub verdict: Verdict,
    /// First divergence: cycle and signal.
    pub first_mismatch: Option<(u64, String)>,
    /// The cycle at which the run ended otherwise (an RTL error, a hang).
    #[serde(default)]
    pub end_cycle: Option<u64>,
    /// Transactions the run consumed.
    #[serde(default)]
    pub transaction_count: usize,
    /// The stimulus version the seed drew (`gpucosim_tb::draw`); bundles
    /// written before it was recorded are version 1.
    #[serde(default = "stimulus_version_one")]
    pub stimulus: u32,
    /// The transactions, when they are not the first `transaction_count` of
    /// the seed's stimulus (a shrunk bundle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions: Option<Vec<serde_json::Value>>,
    /// The bundle directory this was loaded from.
    #[serde(skip)]
    pub dir: Option<PathBuf>,
    /// The format of the bundle's waveform (what `shrink` writes), from
    /// the file the bundle holds; none when it holds none.
    #[serde(skip)]
    pub waves_format: Option<gpucosim_waves::WaveFormat>,
}

fn diverged() -> Verdict {
    Verdict::Diverged
}

fn stimulus_version_one() -> u32 {
    1
}

/// Repro format version (1: every transaction listed; 2: a fresh run's
/// seed and transaction count; 3: with its stimulus version).
pub const REPRO_FORMAT: u32 = 3;

impl Repro {
    /// Reads `BUNDLE/repro.json` (or a repro file given directly).
    pub fn load(bundle: &Path) -> Result<Repro> {
        let (path, dir) = if bundle.is_dir() {
            (bundle.join("repro.json"), Some(bundle.to_path_buf()))
        } else {
            (bundle.to_path_buf(), bundle.parent().map(Path::to_path_buf))
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::Input(format!("cannot read repro bundle {}: {e}", path.display()))
        })?;
        let mut r: Repro = serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{} is not a valid gpucosim repro file: {e}",
                path.display()
            ))
        })?;
        if !(1..=REPRO_FORMAT).contains(&r.format) {
            return Err(Error::Input(format!(
                "{}: repro format {} (expected 1 to {REPRO_FORMAT})",
                path.display(),
                r.format
            )));
        }
        r.check()
            .map_err(|m| Error::Input(format!("{}: {m}", path.display())))?;
        match &r.transactions {
            Some(t) => r.transaction_count = t.len(),
            // The seed's stimulus is regenerated: its version must be one
            // this build draws.
            None => {
                crate::draw::check_version(r.stimulus)
                    .map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
            }
        }
        r.dir = dir;
        let name = r.name();
        r.waves_format = r.dir.as_deref().and_then(|d| {
            gpucosim_waves::WaveFormat::ALL
                .into_iter()
                .find(|f| d.join(format!("{name}.{}", f.extension())).is_file())
        });
        Ok(r)
    }

    /// What makes a bundle read from a file one no run writes: a label
    /// that cannot be part of a file name (the bundle's waveforms are
    /// named after it), more transactions than its cycles could consume
    /// (a driver takes at most one a cycle), or an end past its cycles.
    fn check(&self) -> std::result::Result<(), String> {
        if let Some(l) = &self.label {
            if l.is_empty() || l.contains(['/', '\\']) || l.chars().any(char::is_control) {
                return Err(format!(
                    "its label {l:?} cannot be part of a file name (it names the bundle's waveforms)"
                ));
            }
        }
        if self.rtl_hash.is_empty() || !self.rtl_hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!(
                "its `rtl_hash` {:?} is not a hash (hexadecimal digits)",
                self.rtl_hash
            ));
        }
        if self.transactions.is_none() && self.transaction_count as u64 > self.cycles {
            return Err(format!(
                "`transaction_count` {} is more than a run of {} cycles consumes (at most one a cycle)",
                self.transaction_count, self.cycles
            ));
        }
        let past = |c: Option<u64>| c.filter(|&c| c > self.cycles);
        if let Some(c) = past(self.first_mismatch.as_ref().map(|m| m.0)).or(past(self.end_cycle)) {
            return Err(format!(
                "it ends at cycle {c}, past the run's {} cycles",
                self.cycles
            ));
        }
        Ok(())
    }

    /// `UNIT.PROFILE.SEED`, or `UNIT.PROFILE.LABEL.SEED`.
    pub fn name(&self) -> String {
        let mut s = RunSpec::new(&self.unit, self.profile, self.seed, self.cycles);
        s.label = self.label.clone();
        s.name()
    }

    /// The command that replays this bundle.
    pub fn replay(&self) -> ReproCommand {
        match &self.dir {
            Some(d) => ReproCommand::Replay { bundle: d.clone() },
            None => ReproCommand::ReplayOf { name: self.name() },
        }
    }

    /// The command that replays this bundle, as text.
    pub fn replay_command(&self) -> String {
        self.replay().to_string()
    }

    /// The run this bundle replays, writing waveforms to `waves`.
    pub fn spec(&self, waves: Option<&Path>) -> RunSpec {
        let mut s = RunSpec::new(&self.unit, self.profile, self.seed, self.cycles);
        s.label = self.label.clone();
        s.rtl_arg = Some(self.rtl_dir.clone());
        s.waves = waves.map(Path::to_path_buf);
        s.knobs = self.knobs.clone();
        s.stimulus = self.stimulus;
        s.reproduce = Some(self.replay());
        if let Some(f) = self.waves_format {
            s.waves_format = f;
        }
        s
    }

    /// The stimulus to replay.
    pub fn stimulus<B: Testbench>(&self) -> Result<Stimulus<B::Txn>> {
        Ok(match &self.transactions {
            None => Stimulus::Prefix(self.transaction_count),
            Some(_) => Stimulus::Replay(self.txns::<B>()?),
        })
    }

    /// The transactions, typed for testbench `B` (regenerated from the seed
    /// when the bundle does not list them).
    pub fn txns<B: Testbench>(&self) -> Result<Vec<B::Txn>> {
        let Some(list) = &self.transactions else {
            return engine::fresh_txns::<B>(
                self.stimulus,
                self.profile,
                self.seed,
                &self.knobs,
                self.transaction_count,
            );
        };
        list.iter()
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

    /// Whether `o` failed the way this bundle's run did.
    pub fn same_failure<T>(&self, o: &Outcome<T>) -> bool {
        o.verdict() == self.verdict
            && o.mismatches.first().map(|m| (m.cycle, m.signal.clone())) == self.first_mismatch
            && (o.verdict() == Verdict::Diverged || o.end_cycle() == self.end_cycle)
    }
}

/// Writes a failure bundle directory atomically: `repro.json`, `report.txt`
/// and a copy of the VCD. `txns`: the transactions to list (a shrunk
/// stimulus), or `None` for the first `out.txn_count` of the seed's
/// stimulus.
#[allow(clippy::too_many_arguments)]
pub fn write_bundle<T: Serialize>(
    dir: &Path,
    spec: &RunSpec,
    rtl_dir: &Path,
    rtl_hash: &str,
    out: &Outcome<T>,
    txns: Option<&[T]>,
    report: &str,
    vcd: Option<&Path>,
) -> Result<()> {
    let stage = stage_bundle(dir)?;
    // The waveform and the viewer sessions beside it (which name it
    // relative to themselves, so they open in the bundle too).
    let sessions = vcd.map(|_| out.sessions.as_slice()).unwrap_or_default();
    for v in vcd.into_iter().chain(sessions.iter().map(PathBuf::as_path)) {
        let name = v.file_name().unwrap_or_default();
        std::fs::copy(v, stage.path().join(name)).map_err(|e| Error::io(dir.join(name), e))?;
    }
    commit_bundle(stage, dir, spec, rtl_dir, rtl_hash, out, txns, report)
}

/// A temporary directory beside bundle `dir` to fill (a run can write its
/// waveform straight into it) and then [`commit_bundle`].
pub fn stage_bundle(dir: &Path) -> Result<tempfile::TempDir> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    outputs::temp_dir_in(parent, ".bundle-")
        .map_err(|e| Error::io(parent, outputs::without_temp_name(e)))
}

/// Adds `repro.json` and `report.txt` to `stage` and renames it to `dir`
/// (replacing an older bundle there).
#[allow(clippy::too_many_arguments)]
pub fn commit_bundle<T: Serialize>(
    stage: tempfile::TempDir,
    dir: &Path,
    spec: &RunSpec,
    rtl_dir: &Path,
    rtl_hash: &str,
    out: &Outcome<T>,
    txns: Option<&[T]>,
    report: &str,
) -> Result<()> {
    let repro = Repro {
        format: REPRO_FORMAT,
        unit: spec.unit.clone(),
        profile: spec.profile,
        seed: spec.seed,
        label: spec.label.clone(),
        cycles: spec.cycles,
        knobs: spec.knobs.clone(),
        rtl_dir: rtl_dir
            .canonicalize()
            .unwrap_or_else(|_| rtl_dir.to_path_buf()),
        rtl_hash: rtl_hash.to_string(),
        verdict: out.verdict(),
        first_mismatch: out.mismatches.first().map(|m| (m.cycle, m.signal.clone())),
        end_cycle: out.end_cycle(),
        transaction_count: txns.map_or(out.txn_count, <[T]>::len),
        stimulus: spec.stimulus,
        transactions: txns.map(|t| {
            t.iter()
                .map(|t| serde_json::to_value(t).expect("transactions serialise"))
                .collect()
        }),
        dir: None,
        waves_format: None,
    };
    let j = serde_json::to_string_pretty(&repro).expect("repro serialises");
    let write = |name: &str, bytes: &[u8]| {
        let p = stage.path().join(name);
        std::fs::write(&p, bytes).map_err(|e| Error::io(dir.join(name), e))
    };
    write("repro.json", j.as_bytes())?;
    write("report.txt", report.as_bytes())?;
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let kept = stage.keep();
    std::fs::rename(&kept, dir).map_err(|e| {
        let _ = std::fs::remove_dir_all(&kept);
        Error::io(dir, e)
    })?;
    tracing::debug!("bundle written: {}", dir.display());
    Ok(())
}

/// Replays `stimulus` of `repro`'s run on the library `lib`, writing the
/// waveform to `waves`.
pub fn replay<B: Testbench>(
    repro: &Repro,
    lib: &Path,
    stimulus: Stimulus<B::Txn>,
    waves: Option<&Path>,
) -> Result<Outcome<B::Txn>> {
    let spec = repro.spec(waves);
    let mut rtl = Rtl::load(lib, B::table())?;
    engine::run::<B>(&spec, &mut rtl, stimulus, None)
}

/// Replays exactly `txns` (shrinking's candidates).
pub fn replay_txns<B: Testbench>(
    repro: &Repro,
    lib: &Path,
    txns: Vec<B::Txn>,
    waves: Option<&Path>,
) -> Result<Outcome<B::Txn>> {
    replay::<B>(repro, lib, Stimulus::Replay(txns), waves)
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
    /// Failing cycle before.
    pub cycle_before: u64,
    /// Failing cycle after.
    pub cycle_after: u64,
    /// Replays tried.
    pub attempts: usize,
}

impl Shrunk {
    /// One line: sizes before and after.
    pub fn summary(&self) -> String {
        format!(
            "{} -> {} transactions, {} -> {} bytes of stimulus, failure at cycle {} -> {} ({} replays)",
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

/// The failure a replay must keep showing for a change to count as simpler: diverge
/// on the same signal, or end with the same kind of RTL error.
#[derive(Debug, Clone, PartialEq)]
enum Failure {
    Diverges(String),
    RtlEnds(RtlEnd),
}

impl Failure {
    fn of<T>(o: &Outcome<T>) -> Option<(Failure, u64)> {
        if let Some(m) = o.mismatches.first() {
            return Some((Failure::Diverges(m.signal.clone()), m.cycle));
        }
        match o.end {
            End::Rtl { cycle, how, .. } if how != RtlEnd::Aborted => {
                Some((Failure::RtlEnds(how), cycle))
            }
            _ => None,
        }
    }
}

/// Minimises a failing stimulus: drops chunks of transactions (halves,
/// quarters, … single ones) and then simplifies each remaining transaction
/// with [`Testbench::simplify`], keeping every change after which the run
/// still diverges on the same signal (or ends with the same kind of RTL
/// error). Writes the result as a new bundle in `out_dir`, whose report,
/// waveform and reproduce command are the shrunk bundle's own.
pub fn shrink<B: Testbench>(repro: &Repro, lib: &Path, out_dir: &Path) -> Result<Shrunk> {
    let orig: Vec<B::Txn> = repro.txns::<B>()?;
    let bytes = |t: &[B::Txn]| serde_json::to_string(t).map(|s| s.len()).unwrap_or(0);
    let base = replay_txns::<B>(repro, lib, orig.clone(), None)?;
    let Some((target, first_cycle)) = Failure::of(&base) else {
        return Err(Error::Input(format!(
            "the bundle of {} does not diverge or end with an RTL error on this RTL; nothing to shrink",
            repro.name()
        )));
    };
    let mut attempts = 0usize;
    let mut fails = |cand: &[B::Txn]| -> Result<Option<u64>> {
        attempts += 1;
        let o = replay_txns::<B>(repro, lib, cand.to_vec(), None)?;
        Ok(Failure::of(&o)
            .filter(|(t, _)| *t == target)
            .map(|(_, c)| c))
    };
    // The run stopped shortly after the failure: later transactions never
    // mattered.
    let mut cur: Vec<B::Txn> = orig[..base.txn_count.min(orig.len())].to_vec();
    let mut cur_cycle = first_cycle;
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
                    tracing::debug!(
                        "shrink {}: {} transactions still fail (at cycle {c})",
                        repro.name(),
                        cur.len()
                    );
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
    // Write the shrunk bundle with its waveform; everything in it names the
    // shrunk bundle.
    let waves = tempfile::tempdir().map_err(|e| Error::Env(format!("temporary directory: {e}")))?;
    let mut shrunk = repro.clone();
    shrunk.dir = Some(out_dir.to_path_buf());
    let o = replay_txns::<B>(&shrunk, lib, cur.clone(), Some(waves.path()))?;
    let spec = shrunk.spec(Some(out_dir));
    let report = bundle_report::<B>(&spec, &o, out_dir);
    write_bundle(
        out_dir,
        &spec,
        &repro.rtl_dir,
        &repro.rtl_hash,
        &o,
        Some(&cur),
        &report,
        o.vcd.as_deref(),
    )?;
    Ok(Shrunk {
        txns_before: orig.len(),
        txns_after: cur.len(),
        bytes_before: bytes(&orig),
        bytes_after: bytes(&cur),
        cycle_before: first_cycle,
        cycle_after: cur_cycle,
        attempts,
    })
}

/// The report of `o` as it reads inside the bundle `dir`: its waveform is
/// the bundle's copy.
pub fn bundle_report<B: Testbench>(spec: &RunSpec, o: &Outcome<B::Txn>, dir: &Path) -> String {
    let mut o2 = o.clone();
    if let Some(v) = &o.vcd {
        o2.vcd = Some(dir.join(v.file_name().unwrap_or_default()));
    }
    for p in &mut o2.sessions {
        *p = dir.join(p.file_name().unwrap_or_default());
    }
    crate::report::report(spec, &o2, B::table())
}

/// Checks a bundle's RTL against the tree it will replay on: refuses a
/// changed RTL unless `force`.
pub fn check_rtl_hash<B: Testbench>(repro: &Repro, root: &Path, force: bool) -> Result<String> {
    let sources = rtlbuild::RtlSources::collect(root, B::table().unit)?;
    let now = rtlbuild::sources_hash(&sources)?;
    if now != repro.rtl_hash && !force {
        // Enough of each hash to tell them apart: 12 characters, or up to
        // the first that differs.
        let same = now
            .chars()
            .zip(repro.rtl_hash.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let shown = (same + 1).max(12);
        return Err(Error::Input(format!(
            "the {} RTL in {} has changed since the bundle was written (hash {} now, {} in the bundle); \
             pass --force to replay anyway",
            repro.unit,
            root.display(),
            &now[..shown.min(now.len())],
            &repro.rtl_hash[..shown.min(repro.rtl_hash.len())]
        )));
    }
    Ok(now)
}
