//! Reviewed dispositions of surviving mutants (docs/mutate.md "Waivers"):
//! a text file, versioned with the RTL, one reviewed equivalent mutant a
//! line with the reason. Each is keyed by the mutated source text, so a
//! waiver goes stale when the RTL under it changes; a survivor it covers
//! is reported apart (`waived`) and left out of the kill rate, the JUnit
//! failures and `--min-kill-rate`.
//!
//! ```text
//! # UNIT PROFILE FILE:LINE KEY REASON
//! waitcnt all waitcnt_top.sv:212 5d3c0e51a4b0f7e2 a default the loop below overwrites on every path
//! ```
//!
//! PROFILE is `gfx9`, `gfx11` or `all`; FILE:LINE is where the mutant was
//! when it was reviewed (the key, not the line, finds it: moved code keeps
//! its waiver); KEY is what the text report prints beside each survivor.

use super::{Fate, GroupResult, MutantResult};
use crate::error::{Error, Result};
use gpucosim_model::Profile;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;

/// One waiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiver {
    /// Unit.
    pub unit: String,
    /// Profile (`None`: every profile).
    pub profile: Option<Profile>,
    /// File and line where the mutant was reviewed.
    pub place: String,
    /// The mutant's key ([`key`]).
    pub key: String,
    /// Why it cannot change an output.
    pub reason: String,
    /// Its line in the waiver file.
    pub line: usize,
}

impl Waiver {
    /// Whether it is about group `unit`.`profile`.
    pub fn covers(&self, unit: &str, profile: Profile) -> bool {
        self.unit == unit && self.profile.is_none_or(|p| p == profile)
    }
}

/// A mutant's key: 16 hex digits of the SHA-256 of its file, operator and
/// the source lines it changes, before and after (its diff without the
/// line numbers).
pub fn key(file: &str, operator: &str, diff: &str) -> String {
    let mut h = Sha256::new();
    h.update(file.as_bytes());
    h.update([0]);
    h.update(operator.as_bytes());
    h.update([0]);
    for l in diff.lines().filter(|l| !l.starts_with("@@ ")) {
        h.update(l.as_bytes());
        h.update([b'\n']);
    }
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The key of a mutant's result.
pub fn key_of(m: &MutantResult) -> String {
    key(&m.file, m.operator.name(), &m.diff)
}

/// The waiver line a reviewer would add for survivor `m` of `g`.
pub fn line_for(g: &GroupResult, m: &MutantResult) -> String {
    format!(
        "{} {} {}:{} {} <why it cannot change an output>",
        g.unit,
        g.profile,
        m.file,
        m.line,
        key_of(m)
    )
}

/// Reads a waiver file (`path` names it in errors: one line each, with the
/// line number).
pub fn parse(text: &str, path: &str) -> Result<Vec<Waiver>> {
    let mut out: Vec<Waiver> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| Error::Input(format!("{path}:{}: {why}: `{line}`", n + 1));
        let mut w = line.split_whitespace();
        let (Some(unit), Some(profile), Some(place), Some(key)) =
            (w.next(), w.next(), w.next(), w.next())
        else {
            return Err(bad("expected UNIT PROFILE FILE:LINE KEY REASON"));
        };
        let reason = w.collect::<Vec<_>>().join(" ");
        if reason.is_empty() {
            return Err(bad("a waiver needs its reason"));
        }
        if !crate::units::UNITS.contains(&unit) {
            return Err(bad(&format!(
                "`{unit}` is not a unit ({})",
                crate::units::UNIT_CHOICES
            )));
        }
        let profile = match profile {
            "all" => None,
            p => Some(
                p.parse::<Profile>()
                    .map_err(|_| bad(&format!("`{p}` is not a profile (gfx9, gfx11, all)")))?,
            ),
        };
        let ok_place = place
            .rsplit_once(':')
            .is_some_and(|(f, l)| !f.is_empty() && l.parse::<usize>().is_ok_and(|l| l > 0));
        if !ok_place {
            return Err(bad(&format!("`{place}` is not FILE:LINE")));
        }
        if key.len() != 16 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(&format!(
                "`{key}` is not a mutant's key (16 hex digits, as the report prints it)"
            )));
        }
        let w = Waiver {
            unit: unit.to_string(),
            profile,
            place: place.to_string(),
            key: key.to_ascii_lowercase(),
            reason,
            line: n + 1,
        };
        if let Some(d) = out.iter().find(|d| {
            d.unit == w.unit
                && d.key == w.key
                && (d.profile.is_none() || w.profile.is_none() || d.profile == w.profile)
        }) {
            return Err(bad(&format!("the same mutant as line {}", d.line)));
        }
        out.push(w);
    }
    Ok(out)
}

/// A waiver found wrong or out of date by a campaign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The group (`UNIT.PROFILE`).
    pub group: String,
    /// The waiver.
    pub waiver: Waiver,
    /// What is wrong: `stale` (no mutant of the sources has its key: the
    /// RTL under it changed) or `killed` (the regression kills the mutant
    /// it calls equivalent), with the kill.
    pub problem: String,
}

/// Applies `waivers` to the campaign's `groups`: a survivor a waiver
/// covers becomes [`Fate::Waived`]. `keys(g)` gives the keys of every
/// mutant of `g`'s sources (not only those run). Returns the waivers found
/// stale or contradicted by a kill.
pub fn apply(
    groups: &mut [GroupResult],
    waivers: &[Waiver],
    keys: &dyn Fn(&GroupResult) -> BTreeSet<String>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for g in groups.iter_mut() {
        let mine: Vec<&Waiver> = waivers
            .iter()
            .filter(|w| w.covers(&g.unit, g.profile))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let group = g.name();
        for m in &mut g.mutants {
            let k = key_of(m);
            let Some(w) = mine.iter().find(|w| w.key == k) else {
                continue;
            };
            match &m.fate {
                Fate::Survived { .. } => {
                    m.fate = Fate::Waived {
                        reason: w.reason.clone(),
                        line: w.line,
                    }
                }
                Fate::Killed {
                    job, cycle, signal, ..
                } => out.push(Finding {
                    group: group.clone(),
                    waiver: (*w).clone(),
                    problem: format!(
                        "killed: m{} diverged in {job} at cycle {cycle} on {signal}",
                        m.id
                    ),
                }),
                Fate::RtlError { job, message, .. } => out.push(Finding {
                    group: group.clone(),
                    waiver: (*w).clone(),
                    problem: format!("killed: m{} stopped the RTL in {job}: {message}", m.id),
                }),
                _ => {}
            }
        }
        let all = keys(g);
        for w in mine.iter().filter(|w| !all.contains(&w.key)) {
            out.push(Finding {
                group: group.clone(),
                waiver: (*w).clone(),
                problem: "stale: no mutant of the sources has its key (the RTL under it changed)"
                    .into(),
            });
        }
    }
    out
}
