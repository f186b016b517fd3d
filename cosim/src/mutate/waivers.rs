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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::gen::Operator;
    use crate::regress::Seeds;

    fn mutant(id: u32, line: usize, diff: &str, fate: Fate) -> MutantResult {
        MutantResult {
            id,
            file: "top.sv".into(),
            line,
            operator: Operator::StuckAt1,
            diff: diff.into(),
            fate,
        }
    }

    fn group(mutants: Vec<MutantResult>) -> GroupResult {
        GroupResult {
            unit: "waitcnt".into(),
            profile: Profile::Gfx9,
            rtl: "rtl".into(),
            generated: vec![],
            total_mutants: mutants.len(),
            seeds: Seeds { first: 1, last: 1 },
            cycles: 100,
            knobs: vec![],
            stress: false,
            build_seconds: 0.0,
            baseline_seconds: 0.0,
            run_seconds: 0.0,
            mutants,
            verified: vec![],
        }
    }

    const DEAD: &str = "@@ top.sv:12\n-    stall = '0;\n+    stall = (('0) | 1'b1);\n";

    #[test]
    fn keys_follow_the_text_not_the_line() {
        let moved = DEAD.replace("top.sv:12", "top.sv:40");
        assert_eq!(
            key("top.sv", "stuck-at-1", DEAD),
            key("top.sv", "stuck-at-1", &moved)
        );
        let edited = DEAD.replace("stall = '0;", "stall  = '0;");
        assert_ne!(
            key("top.sv", "stuck-at-1", DEAD),
            key("top.sv", "stuck-at-1", &edited)
        );
        assert_ne!(
            key("top.sv", "stuck-at-1", DEAD),
            key("top.sv", "stuck-at-0", DEAD)
        );
        assert_ne!(
            key("top.sv", "stuck-at-1", DEAD),
            key("other.sv", "stuck-at-1", DEAD)
        );
        assert_eq!(key("top.sv", "stuck-at-1", DEAD).len(), 16);
    }

    #[test]
    fn bad_waiver_files_are_one_line_errors() {
        let k = key("top.sv", "stuck-at-1", DEAD);
        let ok = format!("# reviewed\n\nwaitcnt all top.sv:12 {k} overwritten below\n");
        let w = parse(&ok, "w.txt").unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(
            (w[0].line, w[0].profile, w[0].reason.as_str()),
            (3, None, "overwritten below")
        );
        for (text, want) in [
            (
                format!("waitcnt all top.sv:12 {k}"),
                "w.txt:1: a waiver needs its reason",
            ),
            (
                "waitcnt all top.sv:12".to_string(),
                "w.txt:1: expected UNIT PROFILE FILE:LINE KEY REASON",
            ),
            (
                format!("vmem all top.sv:12 {k} r"),
                "w.txt:1: `vmem` is not a unit",
            ),
            (
                format!("lds gfx10 top.sv:12 {k} r"),
                "w.txt:1: `gfx10` is not a profile",
            ),
            (
                format!("lds gfx9 top.sv {k} r"),
                "w.txt:1: `top.sv` is not FILE:LINE",
            ),
            (
                "lds gfx9 top.sv:3 12345 r".to_string(),
                "w.txt:1: `12345` is not a mutant's key",
            ),
            (
                format!("lds gfx9 top.sv:3 {k} r\nlds all top.sv:9 {k} again"),
                "w.txt:2: the same mutant as line 1",
            ),
        ] {
            let e = parse(&text, "w.txt").unwrap_err().to_string();
            assert!(e.starts_with(want), "{e}");
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    #[test]
    fn waivers_take_survivors_and_report_stale_and_killed_ones() {
        let killed_diff = "@@ top.sv:20\n-    err = '0;\n+    err = (('0) | 1'b1);\n";
        let mut groups = vec![group(vec![
            mutant(
                1,
                12,
                DEAD,
                Fate::Survived {
                    cycles: 10,
                    activated: Some(true),
                },
            ),
            mutant(
                2,
                20,
                killed_diff,
                Fate::Killed {
                    job: "waitcnt.gfx9.1".into(),
                    seed: 1,
                    cycle: 7,
                    signal: "err_o".into(),
                    cycles_to_kill: 7,
                },
            ),
        ])];
        let kd = key("top.sv", "stuck-at-1", DEAD);
        let kk = key("top.sv", "stuck-at-1", killed_diff);
        let text = format!(
            "waitcnt all top.sv:12 {kd} overwritten below\n\
             waitcnt gfx9 top.sv:20 {kk} wrongly waived\n\
             waitcnt gfx9 top.sv:30 0123456789abcdef the RTL changed under it\n\
             waitcnt gfx11 top.sv:31 fedcba9876543210 another profile\n\
             lds all top.sv:1 00000000000000aa another unit\n"
        );
        let w = parse(&text, "w.txt").unwrap();
        let all = BTreeSet::from([kd.clone(), kk.clone()]);
        let found = apply(&mut groups, &w, &|_| all.clone());
        assert_eq!(
            groups[0].mutants[0].fate,
            Fate::Waived {
                reason: "overwritten below".into(),
                line: 1
            }
        );
        assert!(groups[0].mutants[1].fate.killed());
        let problems: Vec<(usize, &str)> = found
            .iter()
            .map(|f| (f.waiver.line, f.problem.split(':').next().unwrap()))
            .collect();
        assert_eq!(problems, [(2, "killed"), (3, "stale")]);
        assert!(found[0]
            .problem
            .contains("m2 diverged in waitcnt.gfx9.1 at cycle 7 on err_o"));
    }
}
