//! A campaign's report: kill rates per unit and profile and per operator,
//! cycles to kill, the survivors with their diffs; as text, JSON and JUnit.

use super::gen::Operator;
use super::{Fate, GroupResult, MutantResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Format of the JSON report.
pub const REPORT_FORMAT: u32 = 1;

/// Counts of one group or operator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Mutants run.
    pub mutants: usize,
    /// Killed by a divergence.
    pub killed: usize,
    /// Killed by an RTL error or timeout.
    pub rtl_errors: usize,
    /// Survived, not proven equivalent.
    pub survived: usize,
    /// Of the survivors, those never activated: their edit never changed a
    /// value where the RTL evaluated it (a stimulus gap).
    #[serde(default)]
    pub not_activated: usize,
    /// Survived, proven equivalent.
    pub equivalent: usize,
    /// Survived, a reviewed waiver calls it equivalent.
    #[serde(default)]
    pub waived: usize,
    /// Did not compile.
    pub not_built: usize,
    /// Not run (stopped).
    pub not_run: usize,
}

impl Counts {
    fn add(&mut self, f: &Fate) {
        self.mutants += 1;
        match f {
            Fate::Killed { .. } => self.killed += 1,
            Fate::RtlError { .. } => self.rtl_errors += 1,
            Fate::Survived { activated, .. } => {
                self.survived += 1;
                if *activated == Some(false) {
                    self.not_activated += 1;
                }
            }
            Fate::Equivalent { .. } => self.equivalent += 1,
            Fate::Waived { .. } => self.waived += 1,
            Fate::NotBuilt { .. } => self.not_built += 1,
            Fate::NotRun => self.not_run += 1,
        }
    }

    /// Killed ÷ (killed + survived): the share of non-equivalent, built,
    /// run mutants the regression catches. None when there are none.
    pub fn kill_rate(&self) -> Option<f64> {
        let k = self.killed + self.rtl_errors;
        let d = k + self.survived;
        (d > 0).then(|| k as f64 / d as f64)
    }

    /// Killed ÷ (killed + activated survivors): the share the checking
    /// catches of the mutants the stimulus activated. None when there are
    /// none.
    pub fn activated_kill_rate(&self) -> Option<f64> {
        let k = self.killed + self.rtl_errors;
        let d = k + self.survived - self.not_activated;
        (d > 0).then(|| k as f64 / d as f64)
    }
}

/// Median, 90th percentile and maximum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Median.
    pub median: u64,
    /// 90th percentile (nearest rank).
    pub p90: u64,
    /// Maximum.
    pub max: u64,
}

impl Spread {
    /// Of `v` (none if empty).
    pub fn of(mut v: Vec<u64>) -> Option<Spread> {
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        let rank = |p: f64| v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Some(Spread {
            median: rank(0.5),
            p90: rank(0.9),
            max: *v.last().expect("not empty"),
        })
    }
}

/// A group's summary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupSummary {
    /// `UNIT.PROFILE`.
    pub group: String,
    /// Counts.
    pub counts: Counts,
    /// Kill rate.
    pub kill_rate: Option<f64>,
    /// Kill rate over the mutants activated ([`Counts::activated_kill_rate`]).
    #[serde(default)]
    pub activated_kill_rate: Option<f64>,
    /// Per operator.
    pub operators: BTreeMap<String, Counts>,
    /// Cycles to kill.
    pub cycles_to_kill: Option<Spread>,
}

/// Summarises a group.
pub fn summarise(g: &GroupResult) -> GroupSummary {
    let mut counts = Counts::default();
    let mut ops: BTreeMap<Operator, Counts> = BTreeMap::new();
    for m in &g.mutants {
        counts.add(&m.fate);
        ops.entry(m.operator).or_default().add(&m.fate);
    }
    GroupSummary {
        group: g.name(),
        counts,
        kill_rate: counts.kill_rate(),
        activated_kill_rate: counts.activated_kill_rate(),
        operators: ops
            .into_iter()
            .map(|(o, c)| (o.name().to_string(), c))
            .collect(),
        cycles_to_kill: Spread::of(
            g.mutants
                .iter()
                .filter_map(|m| m.fate.cycles_to_kill())
                .collect(),
        ),
    }
}

/// The JSON report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MutationReport {
    /// [`REPORT_FORMAT`].
    pub format: u32,
    /// The command line.
    pub command: String,
    /// Summaries, per group.
    pub summaries: Vec<GroupSummary>,
    /// Everything, per group.
    pub groups: Vec<GroupResult>,
    /// The waivers a campaign found stale or contradicted by a kill.
    #[serde(default)]
    pub waiver_findings: Vec<super::waivers::Finding>,
}

fn pct(r: Option<f64>) -> String {
    r.map_or("-".into(), |r| format!("{:.1} %", 100.0 * r))
}

/// The text report.
pub fn text(groups: &[GroupResult], repro: &dyn Fn(&GroupResult, u32) -> String) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:>7} {:>7} {:>9} {:>8} {:>7} {:>10} {:>6} {:>9} {:>9} {:>10}  cycles to kill (median / p90 / max)",
        "unit.profile",
        "mutants",
        "killed",
        "rtl-error",
        "survived",
        "not-act",
        "equivalent",
        "waived",
        "not-built",
        "kill rate",
        "activated"
    );
    for g in groups {
        let sm = summarise(g);
        let c = sm.counts;
        let ctk = sm.cycles_to_kill.map_or("-".into(), |x| {
            format!("{} / {} / {}", x.median, x.p90, x.max)
        });
        let _ = writeln!(
            s,
            "{:<14} {:>7} {:>7} {:>9} {:>8} {:>7} {:>10} {:>6} {:>9} {:>9} {:>10}  {ctk}",
            sm.group,
            c.mutants,
            c.killed,
            c.rtl_errors,
            c.survived,
            c.not_activated,
            c.equivalent,
            c.waived,
            c.not_built,
            pct(sm.kill_rate),
            pct(sm.activated_kill_rate)
        );
    }
    // Per operator, over all groups.
    let mut ops: BTreeMap<Operator, Counts> = BTreeMap::new();
    for g in groups {
        for m in &g.mutants {
            ops.entry(m.operator).or_default().add(&m.fate);
        }
    }
    let _ = writeln!(
        s,
        "\n{:<14} {:>7} {:>7} {:>8} {:>10} {:>9}",
        "operator", "mutants", "killed", "survived", "equivalent", "kill rate"
    );
    for (o, c) in &ops {
        let _ = writeln!(
            s,
            "{:<14} {:>7} {:>7} {:>8} {:>10} {:>9}",
            o.name(),
            c.mutants,
            c.killed + c.rtl_errors,
            c.survived,
            c.equivalent,
            pct(c.kill_rate())
        );
    }
    let survivors: Vec<(&GroupResult, &MutantResult)> = groups
        .iter()
        .flat_map(|g| g.mutants.iter().map(move |m| (g, m)))
        .filter(|(_, m)| matches!(m.fate, Fate::Survived { .. }))
        .collect();
    if !survivors.is_empty() {
        let _ = writeln!(
            s,
            "\nSURVIVORS (the regression passes with these bugs in the RTL):"
        );
        for (g, m) in survivors {
            let class = match m.fate {
                Fate::Survived {
                    activated: Some(false),
                    ..
                } => " NOT ACTIVATED (a stimulus gap: the change never showed where it is)",
                Fate::Survived {
                    activated: Some(true),
                    ..
                } => " ACTIVATED, NOT DETECTED (a checking gap, or an equivalent mutant)",
                _ => "",
            };
            let _ = writeln!(
                s,
                "\n{}.m{} [{}] {}:{}{class}\n{}  run again: {}\n  waiver, once reviewed: {}",
                g.name(),
                m.id,
                m.operator,
                m.file,
                m.line,
                indent(&m.diff),
                repro(g, m.id),
                super::waivers::line_for(g, m)
            );
        }
    }
    let equivalent: Vec<(&GroupResult, &MutantResult)> = groups
        .iter()
        .flat_map(|g| g.mutants.iter().map(move |m| (g, m)))
        .filter(|(_, m)| matches!(m.fate, Fate::Equivalent { .. }))
        .collect();
    if !equivalent.is_empty() {
        let _ = writeln!(
            s,
            "\nEquivalent (survived; proven to behave as the RTL as written):"
        );
        for (g, m) in equivalent {
            if let Fate::Equivalent { reason } = &m.fate {
                let _ = writeln!(
                    s,
                    "  {}.m{} [{}] {}:{}: {reason}",
                    g.name(),
                    m.id,
                    m.operator,
                    m.file,
                    m.line
                );
            }
        }
    }
    let waived: Vec<(&GroupResult, &MutantResult)> = groups
        .iter()
        .flat_map(|g| g.mutants.iter().map(move |m| (g, m)))
        .filter(|(_, m)| matches!(m.fate, Fate::Waived { .. }))
        .collect();
    if !waived.is_empty() {
        let _ = writeln!(
            s,
            "\nWaived (survived; a reviewed waiver calls it equivalent):"
        );
        for (g, m) in waived {
            if let Fate::Waived { reason, line } = &m.fate {
                let _ = writeln!(
                    s,
                    "  {}.m{} [{}] {}:{}: {reason} (waiver line {line})",
                    g.name(),
                    m.id,
                    m.operator,
                    m.file,
                    m.line
                );
            }
        }
    }
    for g in groups {
        for v in &g.verified {
            let _ = writeln!(
                s,
                "{}: mutant {} instrumented vs built alone: {}",
                g.name(),
                v.id,
                match v.differs_at {
                    None => format!("same outputs for {} cycles", v.cycles),
                    Some(c) => format!("OUTPUTS DIFFER at cycle {c}"),
                }
            );
        }
    }
    s
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}

/// The JUnit report: a suite per group, a testcase per mutant (a survivor
/// is a failure, an equivalent mutant or one that does not compile is
/// skipped), and a `kill-rate` testcase that fails below `min_rate`.
pub fn junit(
    groups: &[GroupResult],
    min_rate: Option<f64>,
    findings: Option<&[super::waivers::Finding]>,
    repro: &dyn Fn(&GroupResult, u32) -> String,
) -> String {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new("gpucosim-mutate");
    for g in groups {
        let mut suite = TestSuite::new(format!("mutate.{}", g.name()));
        for m in &g.mutants {
            let status = match &m.fate {
                Fate::Killed { .. } | Fate::RtlError { .. } => TestCaseStatus::success(),
                Fate::Survived { .. } => {
                    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    st.set_message(format!(
                        "mutant survived the regression: {}:{}",
                        m.file, m.line
                    ))
                    .set_type("survivor")
                    .set_description(format!(
                        "{}run again: {}\n",
                        m.diff,
                        repro(g, m.id)
                    ));
                    st
                }
                Fate::Equivalent { reason } => {
                    let mut st = TestCaseStatus::skipped();
                    st.set_message(format!("equivalent: {reason}"));
                    st
                }
                Fate::Waived { reason, line } => {
                    let mut st = TestCaseStatus::skipped();
                    st.set_message(format!("waived (line {line}): {reason}"));
                    st
                }
                Fate::NotBuilt { reason } => {
                    let mut st = TestCaseStatus::skipped();
                    st.set_message(format!("does not compile: {reason}"));
                    st
                }
                Fate::NotRun => {
                    let mut st = TestCaseStatus::skipped();
                    st.set_message("not run: the campaign was stopped");
                    st
                }
            };
            let mut case = TestCase::new(
                format!(
                    "{}.m{} [{}] {}:{}",
                    g.name(),
                    m.id,
                    m.operator,
                    m.file,
                    m.line
                ),
                status,
            );
            case.set_classname(format!("mutate.{}", g.name()));
            suite.add_test_case(case);
        }
        if let Some(min) = min_rate {
            let rate = summarise(g).kill_rate;
            let status = if rate.is_some_and(|r| r + 1e-12 >= min) {
                TestCaseStatus::success()
            } else {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                st.set_message(format!(
                    "kill rate {} is below {}",
                    pct(rate),
                    pct(Some(min))
                ))
                .set_type("kill_rate");
                st
            };
            let mut case = TestCase::new(format!("{}.kill-rate", g.name()), status);
            case.set_classname(format!("mutate.{}", g.name()));
            suite.add_test_case(case);
        }
        // With a waiver file: its entries for the group are all live.
        if let Some(findings) = findings {
            let mine: Vec<String> = findings
                .iter()
                .filter(|f| f.group == g.name())
                .map(|f| format!("line {} ({}): {}", f.waiver.line, f.waiver.place, f.problem))
                .collect();
            let status = if mine.is_empty() {
                TestCaseStatus::success()
            } else {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                st.set_message(format!("{} waiver(s) stale or contradicted", mine.len()))
                    .set_type("waivers")
                    .set_description(mine.join("\n"));
                st
            };
            let mut case = TestCase::new(format!("{}.waivers", g.name()), status);
            case.set_classname(format!("mutate.{}", g.name()));
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string().expect("a JUnit report serialises")
}
