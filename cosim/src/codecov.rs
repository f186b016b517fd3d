//! Code coverage of the RTL (`--code-coverage`; docs/regress.md "Code
//! coverage"): Verilator's counts read from its `coverage.dat`, merged over
//! jobs, shards and `merge`, waived by reviewed exclusions, checked against
//! floors and written as lcov, Cobertura and a text list of what was never
//! covered.
//!
//! Four metrics, from Verilator's coverage points (`--coverage`):
//!
//! - **line**: every source line in the span of a `line` point (a block,
//!   an `if`/`else` arm, a case item) is coverable; it is covered when a
//!   point spanning it ran;
//! - **branch**: every arm of a decision: the `if`, `else`, `elsif` and
//!   case-item points, and the `?:` arms (`branch` points);
//! - **expr**: every term combination of Verilator's expression coverage
//!   (Verilator 5.020 and later);
//! - **toggle**: every bit of every signal, each direction where Verilator
//!   counts them apart (`sig[3]:0->1`, `sig[3]:1->0`).
//!
//! Counts of a module's instances are summed (Verilator writes them per
//! module), so a file's coverage is that of all its instances.

use crate::error::{Error, Result};
use gpucosim_model::Profile;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// A coverage metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    /// Source lines.
    Line,
    /// Decision arms.
    Branch,
    /// Expression term combinations.
    Expr,
    /// Signal bit transitions.
    Toggle,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 4] = [Metric::Line, Metric::Branch, Metric::Expr, Metric::Toggle];

    /// Its name in options, waivers and reports.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Line => "line",
            Metric::Branch => "branch",
            Metric::Expr => "expr",
            Metric::Toggle => "toggle",
        }
    }

    fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == s)
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One Verilator coverage point, its instances summed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point {
    /// Verilator's type: `line`, `branch`, `expr`, `toggle` (others are
    /// kept but in no metric).
    pub kind: String,
    /// The source file, relative to the RTL tree (`ta/ta_top.sv`).
    pub file: String,
    /// Its line.
    pub line: u32,
    /// Its column.
    pub col: u32,
    /// Verilator's comment: `if`, `else`, `block`, `case`, `cond_then`, an
    /// expression's terms, a toggled bit (`sig[3]:0->1`).
    pub what: String,
    /// The lines a `line` point spans (`8-9,12`); empty for others.
    pub span: String,
}

impl Point {
    /// The metric it counts in, if any. `line` points count for lines;
    /// those that are a decision's arm also count for branches.
    fn metric(&self) -> Option<Metric> {
        match self.kind.as_str() {
            "line" => Some(Metric::Line),
            "branch" => Some(Metric::Branch),
            "expr" => Some(Metric::Expr),
            "toggle" => Some(Metric::Toggle),
            _ => None,
        }
    }

    /// Whether it is one arm of a decision (branch coverage).
    fn is_arm(&self) -> bool {
        self.kind == "branch" || (self.kind == "line" && self.what != "block")
    }

    /// The lines of a `line` point's span.
    fn span_lines(&self) -> Vec<u32> {
        let mut v = Vec::new();
        for part in self.span.split(',').filter(|p| !p.is_empty()) {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
                if b >= a && b - a < 100_000 {
                    v.extend(a..=b);
                }
            }
        }
        v
    }
}

/// The code coverage of one unit and profile: counts per point, and the
/// text of the files they are in (so that reports, waivers and `merge`
/// need no RTL tree).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeCoverage {
    /// Hits per point.
    #[serde(with = "points_list")]
    pub points: BTreeMap<Point, u64>,
    /// The RTL files the points are in, by their name in the points.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sources: BTreeMap<String, String>,
    /// The RTL tree they were read from (the lcov and Cobertura reports
    /// name files under it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub root: String,
}

/// Points as a compact JSON list of `[kind, file, line, col, what, span,
/// hits]`.
mod points_list {
    use super::Point;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    type Row = (String, String, u32, u32, String, String, u64);

    pub fn serialize<S: Serializer>(m: &BTreeMap<Point, u64>, s: S) -> Result<S::Ok, S::Error> {
        let rows: Vec<Row> = m
            .iter()
            .map(|(p, &n)| {
                (
                    p.kind.clone(),
                    p.file.clone(),
                    p.line,
                    p.col,
                    p.what.clone(),
                    p.span.clone(),
                    n,
                )
            })
            .collect();
        rows.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<Point, u64>, D::Error> {
        let rows = Vec::<Row>::deserialize(d)?;
        let mut m = BTreeMap::new();
        for (kind, file, line, col, what, span, n) in rows {
            *m.entry(Point {
                kind,
                file,
                line,
                col,
                what,
                span,
            })
            .or_default() += n;
        }
        Ok(m)
    }
}

impl CodeCoverage {
    /// Reads Verilator's `coverage.dat` text of unit `unit`, whose files
    /// (by name) are `names`: a point in one of them is named
    /// `UNIT/NAME`, as under the RTL tree, whatever path the build that
    /// made the counts was given (a cached build serves every tree of the
    /// same content); other files keep their recorded path.
    pub fn parse_dat(text: &str, unit: &str, names: &BTreeSet<String>) -> Result<CodeCoverage> {
        let mut rel_of: BTreeMap<String, String> = BTreeMap::new();
        let mut points = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || Error::Input(format!("coverage data line {}: not `C '...' N`", n + 1));
            let rest = line.strip_prefix("C '").ok_or_else(bad)?;
            let (keys, count) = rest.rsplit_once("' ").ok_or_else(bad)?;
            let count: u64 = count.trim().parse().map_err(|_| bad())?;
            let mut kv: BTreeMap<&str, &str> = BTreeMap::new();
            for item in keys.split('\u{1}').filter(|s| !s.is_empty()) {
                if let Some((k, v)) = item.split_once('\u{2}') {
                    kv.insert(k, v);
                }
            }
            // Older Verilators name the type only in the page
            // (`v_line/module`).
            let kind = kv
                .get("t")
                .map(|s| s.to_string())
                .or_else(|| {
                    kv.get("page")
                        .and_then(|p| p.strip_prefix("v_"))
                        .and_then(|p| p.split('/').next())
                        .map(String::from)
                })
                .unwrap_or_default();
            let file = kv.get("f").copied().unwrap_or_default();
            let rel = rel_of
                .entry(file.to_string())
                .or_insert_with(|| {
                    let name = Path::new(file)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    if names.contains(&name) {
                        format!("{unit}/{name}")
                    } else {
                        file.to_string()
                    }
                })
                .clone();
            let num = |k: &str| kv.get(k).and_then(|v| v.parse::<u32>().ok()).unwrap_or(0);
            let p = Point {
                kind,
                file: rel,
                line: num("l"),
                col: num("n"),
                what: kv.get("o").copied().unwrap_or_default().to_string(),
                span: kv.get("S").copied().unwrap_or_default().to_string(),
            };
            *points.entry(p).or_insert(0u64) += count;
        }
        Ok(CodeCoverage {
            points,
            sources: BTreeMap::new(),
            root: String::new(),
        })
    }

    /// Adds another run's counts (of the same RTL).
    pub fn add(&mut self, o: &CodeCoverage) {
        for (p, n) in &o.points {
            *self.points.entry(p.clone()).or_default() += n;
        }
        for (f, t) in &o.sources {
            self.sources.entry(f.clone()).or_insert_with(|| t.clone());
        }
        if self.root.is_empty() {
            self.root = o.root.clone();
        }
    }

    /// Merges the coverage of another shard of the same regression: its
    /// files must be the same as ours.
    pub fn merge(&mut self, o: &CodeCoverage, group: &str) -> Result<()> {
        for (f, t) in &o.sources {
            if let Some(mine) = self.sources.get(f) {
                if mine != t {
                    return Err(Error::Input(format!(
                        "the code coverage of {group} comes from different RTL: {f} differs between the inputs"
                    )));
                }
            }
        }
        self.add(o);
        Ok(())
    }

    /// Reads the text of every file the points are in from the RTL tree
    /// `root`. A file that cannot be read is left out (its items are then
    /// listed without their source, and a waiver on it is reported as not
    /// a file of the RTL that ran) and returned, one line each, so that the
    /// counts already made are kept.
    pub fn read_sources(&mut self, root: &Path) -> Vec<String> {
        self.root = std::fs::canonicalize(root)
            .unwrap_or_else(|_| root.to_path_buf())
            .display()
            .to_string();
        let files: BTreeSet<String> = self.points.keys().map(|p| p.file.clone()).collect();
        let mut unread = Vec::new();
        for f in files {
            if self.sources.contains_key(&f) {
                continue;
            }
            let p = root.join(&f);
            match std::fs::read_to_string(&p) {
                Ok(text) => {
                    self.sources.insert(f, text);
                }
                Err(e) => unread.push(format!("{}: {e}", p.display())),
            }
        }
        unread
    }

    /// The text of `file`'s line `line` (1-based), trimmed.
    pub fn source_line(&self, file: &str, line: u32) -> Option<&str> {
        let text = self.sources.get(file)?;
        text.lines()
            .nth((line as usize).checked_sub(1)?)
            .map(str::trim)
    }
}

/// One coverable item of a metric.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Item {
    /// The metric.
    pub metric: Metric,
    /// File.
    pub file: String,
    /// Line.
    pub line: u32,
    /// What it is (empty for a line; a point's comment otherwise).
    pub what: String,
    /// Hits.
    pub hits: u64,
}

impl Item {
    /// What a listing says of it when it was never covered.
    pub fn describe(&self) -> String {
        match self.metric {
            Metric::Line => "line never ran".into(),
            Metric::Branch => format!("{} arm never taken", arm_name(&self.what)),
            Metric::Expr => format!("expression terms {} never seen", self.what),
            Metric::Toggle => format!("toggle {} never seen", self.what),
        }
    }
}

fn arm_name(what: &str) -> &str {
    match what {
        "cond_then" => "?: then",
        "cond_else" => "?: else",
        "case" => "case item",
        other => other,
    }
}

/// The items of every metric of `cov`.
pub fn items(cov: &CodeCoverage) -> Vec<Item> {
    let mut lines: BTreeMap<(String, u32), u64> = BTreeMap::new();
    let mut out = Vec::new();
    for (p, &n) in &cov.points {
        match p.metric() {
            Some(Metric::Line) => {
                for l in p.span_lines() {
                    let e = lines.entry((p.file.clone(), l)).or_default();
                    *e = (*e).max(n);
                }
            }
            Some(m) => out.push(Item {
                metric: m,
                file: p.file.clone(),
                line: p.line,
                what: p.what.clone(),
                hits: n,
            }),
            None => {}
        }
        if p.kind == "line" && p.is_arm() {
            out.push(Item {
                metric: Metric::Branch,
                file: p.file.clone(),
                line: p.line,
                what: p.what.clone(),
                hits: n,
            });
        }
    }
    out.extend(lines.into_iter().map(|((file, line), hits)| Item {
        metric: Metric::Line,
        file,
        line,
        what: String::new(),
        hits,
    }));
    out.sort();
    out
}

/// Covered, coverable and waived items of one metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Items covered (waived ones not counted).
    pub covered: u64,
    /// Items coverable (waived ones not counted).
    pub total: u64,
    /// Items waived.
    pub waived: u64,
}

impl Tally {
    /// Percent covered (100 when there is nothing to cover).
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.covered as f64 / self.total as f64
        }
    }

    fn cell(&self) -> String {
        if self.total == 0 && self.waived == 0 {
            "-".into()
        } else {
            format!("{}/{} {:.1}%", self.covered, self.total, self.percent())
        }
    }
}

/// The coverage of one unit and profile, waivers applied.
#[derive(Debug, Clone, Default)]
pub struct GroupReport {
    /// Per metric.
    pub tally: BTreeMap<Metric, Tally>,
    /// Per file, per metric.
    pub files: BTreeMap<String, BTreeMap<Metric, Tally>>,
    /// Items never covered and not waived, in file and line order.
    pub uncovered: Vec<Item>,
    /// Items waived (with the waiver's file line).
    pub waived: Vec<(Item, usize)>,
    /// Every item, waived ones marked (for lcov and Cobertura).
    pub items: Vec<(Item, bool)>,
}

/// Code coverage of a regression, waivers applied: per group, and what the
/// waivers say about themselves.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Per `UNIT.PROFILE`.
    pub groups: BTreeMap<String, GroupReport>,
    /// Stale or needless waivers, one line each.
    pub findings: Vec<String>,
    /// The RTL sources, per group (for listings).
    sources: BTreeMap<String, BTreeMap<String, String>>,
    /// The RTL tree, per group.
    roots: BTreeMap<String, String>,
}

/// A waiver of code coverage items: reviewed, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiver {
    /// `None`: every profile.
    pub profile: Option<Profile>,
    /// File, relative to the RTL tree.
    pub file: String,
    /// Line.
    pub line: u32,
    /// Metric.
    pub metric: Metric,
    /// Which items of the line (a branch arm, a signal or bit, a term
    /// combination); all when absent.
    pub what: Option<String>,
    /// [`key`] of the line when it was reviewed.
    pub key: String,
    /// Why the items cannot or need not be covered.
    pub reason: String,
    /// Its line in the waiver file.
    pub at: usize,
}

/// The key of a source line: 16 hex digits of the SHA-256 of the file's
/// name and the line's text, trimmed. A waiver keyed so goes stale when
/// the line changes.
pub fn key(file: &str, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(file.as_bytes());
    h.update([0]);
    h.update(text.trim().as_bytes());
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads a waiver file:
///
/// ```text
/// # PROFILE FILE:LINE METRIC[:WHAT] KEY REASON
/// all lds/lds_top.sv:212 branch:else 5d3c0e51a4b0f7e2 the request FIFO never fills: ...
/// ```
pub fn parse_waivers(text: &str, path: &Path) -> Result<Vec<Waiver>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let bad = |what: &str| {
            Error::Input(format!(
                "{}:{}: {what} (expected `PROFILE FILE:LINE METRIC[:WHAT] KEY REASON`)",
                path.display(),
                i + 1
            ))
        };
        let mut f = l.splitn(5, char::is_whitespace).map(str::trim);
        let (Some(profile), Some(place), Some(metric), Some(key), Some(reason)) =
            (f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            return Err(bad("too few fields"));
        };
        let profile = match profile {
            "all" => None,
            p => Some(
                p.parse::<Profile>()
                    .map_err(|_| bad(&format!("`{p}` is not a profile or `all`")))?,
            ),
        };
        let (file, line) = place
            .rsplit_once(':')
            .ok_or_else(|| bad(&format!("`{place}` is not FILE:LINE")))?;
        let line: u32 = line
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| bad(&format!("`{line}` is not a line number")))?;
        let (m, what) = match metric.split_once(':') {
            Some((m, w)) if !w.is_empty() => (m, Some(compact(w))),
            Some(_) => return Err(bad(&format!("`{metric}` names nothing after `:`"))),
            None => (metric, None),
        };
        let metric = Metric::parse(m).ok_or_else(|| {
            bad(&format!(
                "`{m}` is not a metric (line, branch, expr, toggle)"
            ))
        })?;
        if metric == Metric::Line && what.is_some() {
            return Err(bad("a line waiver names no item"));
        }
        if key.len() != 16 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(&format!("`{key}` is not a 16-digit key")));
        }
        if reason.trim().is_empty() {
            return Err(bad("no reason"));
        }
        out.push(Waiver {
            profile,
            file: file.to_string(),
            line,
            metric,
            what,
            key: key.to_ascii_lowercase(),
            reason: reason.trim().to_string(),
            at: i + 1,
        });
    }
    Ok(out)
}

/// Reads the waiver file at `path`.
pub fn load_waivers(path: &Path) -> Result<Vec<Waiver>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_waivers(&text, path)
}

impl Waiver {
    /// Whether it waives `it`: the same metric, file and line, and, when
    /// it names an item, that item (a signal also names its bits and
    /// directions: `sum` waives `sum[3]:0->1`). Spaces do not count
    /// (expression terms are written without them).
    fn names(&self, it: &Item) -> bool {
        if it.metric != self.metric || it.file != self.file || it.line != self.line {
            return false;
        }
        match &self.what {
            None => true,
            Some(w) => {
                let what = compact(&it.what);
                what == *w
                    || what
                        .strip_prefix(w.as_str())
                        .is_some_and(|rest| rest.starts_with('[') || rest.starts_with(':'))
            }
        }
    }
}

/// `s` without whitespace: an item's name in a waiver.
fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The waiver file line a reviewer would add for `it` of `group`.
pub fn waiver_line(group: &str, cov: &CodeCoverage, it: &Item) -> String {
    let profile = group.rsplit('.').next().unwrap_or("all");
    let what = match it.metric {
        Metric::Line => String::new(),
        _ => format!(":{}", compact(&it.what)),
    };
    let text = cov.source_line(&it.file, it.line).unwrap_or_default();
    format!(
        "{profile} {}:{} {}{what} {} <why it cannot or need not be covered>",
        it.file,
        it.line,
        it.metric,
        key(&it.file, text)
    )
}

/// The report of `groups`' coverage with `waivers` applied.
pub fn report(groups: &BTreeMap<String, CodeCoverage>, waivers: &[Waiver]) -> Report {
    let mut rep = Report::default();
    let mut used = vec![false; waivers.len()];
    let mut valid = vec![true; waivers.len()];
    // A waiver whose line changed is stale, whatever the group.
    for (i, w) in waivers.iter().enumerate() {
        let text = groups.values().find_map(|c| {
            c.sources
                .get(&w.file)
                .map(|_| c.source_line(&w.file, w.line))
        });
        match text {
            None => {
                valid[i] = false;
                rep.findings.push(format!(
                    "waiver at line {}: {} is not a file of the RTL that ran",
                    w.at, w.file
                ));
            }
            Some(None) => {
                valid[i] = false;
                rep.findings.push(format!(
                    "waiver at line {}: {} has no line {}",
                    w.at, w.file, w.line
                ));
            }
            Some(Some(t)) => {
                let now = key(&w.file, t);
                if now != w.key {
                    valid[i] = false;
                    rep.findings.push(format!(
                        "stale waiver at line {}: {}:{} changed since it was reviewed (key {}, now {now}: `{t}`)",
                        w.at, w.file, w.line, w.key
                    ));
                }
            }
        }
    }
    for (g, cov) in groups {
        let profile = g.rsplit('.').next().and_then(|p| p.parse::<Profile>().ok());
        let mut gr = GroupReport::default();
        for it in items(cov) {
            let waiver = waivers.iter().enumerate().find(|(i, w)| {
                valid[*i] && w.profile.is_none_or(|p| Some(p) == profile) && w.names(&it)
            });
            let t = gr.tally.entry(it.metric).or_default();
            let ft = gr
                .files
                .entry(it.file.clone())
                .or_default()
                .entry(it.metric)
                .or_default();
            match waiver {
                Some((i, w)) if it.hits == 0 => {
                    used[i] = true;
                    t.waived += 1;
                    ft.waived += 1;
                    gr.waived.push((it.clone(), w.at));
                    gr.items.push((it, true));
                }
                _ => {
                    t.total += 1;
                    ft.total += 1;
                    if it.hits > 0 {
                        t.covered += 1;
                        ft.covered += 1;
                    } else {
                        gr.uncovered.push(it.clone());
                    }
                    gr.items.push((it, false));
                }
            }
        }
        rep.sources.insert(g.clone(), cov.sources.clone());
        rep.roots.insert(g.clone(), cov.root.clone());
        rep.groups.insert(g.clone(), gr);
    }
    for (i, w) in waivers.iter().enumerate() {
        if valid[i] && !used[i] {
            rep.findings.push(format!(
                "waiver at line {} waives nothing: {}:{} has no uncovered {}{} item (remove it)",
                w.at,
                w.file,
                w.line,
                w.metric,
                w.what
                    .as_deref()
                    .map(|x| format!(" `{x}`"))
                    .unwrap_or_default()
            ));
        }
    }
    rep
}

/// Floors of `--require-code-coverage` (`line=95,branch=90,toggle=80`), in
/// percent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Floors(pub BTreeMap<Metric, f64>);

impl std::str::FromStr for Floors {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Floors, String> {
        let mut m = BTreeMap::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}` is not METRIC=PERCENT"))?;
            let metric = Metric::parse(k.trim())
                .ok_or_else(|| format!("`{k}` is not a metric (line, branch, expr, toggle)"))?;
            let pct: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|x: &f64| (0.0..=100.0).contains(x))
                .ok_or_else(|| format!("`{v}` is not a percentage from 0 to 100"))?;
            if m.insert(metric, pct).is_some() {
                return Err(format!("{metric} is given twice"));
            }
        }
        if m.is_empty() {
            return Err("expected METRIC=PERCENT,..., e.g. line=95,branch=90,toggle=80".into());
        }
        Ok(Floors(m))
    }
}

/// Uncovered items listed in a failure before the rest are counted (all
/// are in `--uncovered`).
pub const LISTED: usize = 20;

impl Report {
    /// The JUnit test case name of a group's code coverage check.
    pub fn case(group: &str) -> String {
        format!("code-coverage.{group}")
    }

    /// `file:line: what: source` of an item of `group`.
    pub fn locate(&self, group: &str, it: &Item) -> String {
        let text = self
            .sources
            .get(group)
            .and_then(|s| s.get(&it.file))
            .and_then(|t| t.lines().nth((it.line as usize).saturating_sub(1)))
            .map(str::trim)
            .unwrap_or("");
        format!("{}:{}: {}: {text}", it.file, it.line, it.describe())
    }

    /// Per group below a floor: the failure's one-line message and its
    /// uncovered items of the failing metrics (each `file:line: what:
    /// source`).
    pub fn failures(&self, floors: &Floors) -> Vec<(String, String, Vec<String>)> {
        let mut out = Vec::new();
        for (g, gr) in &self.groups {
            let mut below = Vec::new();
            for (&m, &floor) in &floors.0 {
                let t = gr.tally.get(&m).copied().unwrap_or_default();
                // A floor on a metric with nothing counted (no expression
                // coverage from a Verilator before 5.020) is not met.
                if t.percent() + 1e-9 < floor || (t.total == 0 && t.waived == 0) {
                    below.push((m, t, floor));
                }
            }
            if below.is_empty() {
                continue;
            }
            let msg = below
                .iter()
                .map(|(m, t, f)| {
                    if t.total == 0 {
                        format!("{m}: nothing counted, no {m} coverage to hold to {f}%")
                    } else {
                        format!(
                            "{m} {:.1}% < {f}% ({} of {} uncovered)",
                            t.percent(),
                            t.total - t.covered,
                            t.total
                        )
                    }
                })
                .collect::<Vec<_>>()
                .join(", ");
            let items = gr
                .uncovered
                .iter()
                .filter(|it| below.iter().any(|(m, _, _)| *m == it.metric))
                .map(|it| self.locate(g, it))
                .collect();
            out.push((g.clone(), msg, items));
        }
        out
    }

    /// The summary table: per group and metric covered/coverable and
    /// percent, then per file; waived items counted.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<24} {:>20} {:>20} {:>20} {:>20}\n",
            "code coverage", "line", "branch", "expr", "toggle"
        );
        let row = |s: &mut String, name: &str, t: &BTreeMap<Metric, Tally>| {
            let cell = |m: Metric| t.get(&m).map_or("-".into(), Tally::cell);
            let _ = writeln!(
                s,
                "{:<24} {:>20} {:>20} {:>20} {:>20}",
                name,
                cell(Metric::Line),
                cell(Metric::Branch),
                cell(Metric::Expr),
                cell(Metric::Toggle)
            );
        };
        for (g, gr) in &self.groups {
            row(&mut s, g, &gr.tally);
            for (f, t) in &gr.files {
                row(&mut s, &format!("  {f}"), t);
            }
            let waived = gr.waived.len();
            if waived > 0 {
                let _ = writeln!(s, "  ({waived} uncovered items waived)");
            }
        }
        for f in &self.findings {
            let _ = writeln!(s, "code coverage waivers: {f}");
        }
        s
    }

    /// Every uncovered item, one per line (`GROUP FILE:LINE: what:
    /// source`), then each waived one with its waiver's line, and a line a
    /// reviewer would add to waive each uncovered one.
    pub fn uncovered_text(&self, groups: &BTreeMap<String, CodeCoverage>) -> String {
        let mut s = String::new();
        for (g, gr) in &self.groups {
            let _ = writeln!(s, "# {g}: {} uncovered", gr.uncovered.len());
            for it in &gr.uncovered {
                let _ = writeln!(s, "{g} {}", self.locate(g, it));
            }
            for (it, at) in &gr.waived {
                let _ = writeln!(s, "{g} waived (waiver line {at}) {}", self.locate(g, it));
            }
        }
        let _ = writeln!(
            s,
            "# waiver lines, once reviewed (PROFILE FILE:LINE METRIC[:WHAT] KEY REASON):"
        );
        for (g, gr) in &self.groups {
            if let Some(cov) = groups.get(g) {
                for it in &gr.uncovered {
                    let _ = writeln!(s, "# {}", waiver_line(g, cov, it));
                }
            }
        }
        s
    }

    /// An lcov tracefile: per group (`TN:UNIT.PROFILE`) and file, the lines
    /// (`DA`) and decision arms (`BRDA`), waived items left out. Files are
    /// named as under the RTL tree they ran from (`SF:ROOT/FILE`), or
    /// under `root` when given.
    pub fn lcov(&self, root: Option<&Path>) -> String {
        let mut s = String::new();
        for (g, gr) in &self.groups {
            let root = root.map_or_else(
                || Path::new(self.roots.get(g).map_or("", String::as_str)).to_path_buf(),
                Path::to_path_buf,
            );
            let mut by_file: BTreeMap<&str, Vec<&Item>> = BTreeMap::new();
            for (it, waived) in &gr.items {
                if !waived && matches!(it.metric, Metric::Line | Metric::Branch) {
                    by_file.entry(&it.file).or_default().push(it);
                }
            }
            for (f, its) in by_file {
                let _ = writeln!(s, "TN:{}", g.replace(['.', '-'], "_"));
                let _ = writeln!(s, "SF:{}", root.join(f).display());
                let (mut lf, mut lh, mut brf, mut brh) = (0, 0, 0, 0);
                let mut arm_on_line: BTreeMap<u32, u32> = BTreeMap::new();
                for it in &its {
                    match it.metric {
                        Metric::Line => {
                            lf += 1;
                            lh += u32::from(it.hits > 0);
                            let _ = writeln!(s, "DA:{},{}", it.line, it.hits);
                        }
                        _ => {
                            let k = arm_on_line.entry(it.line).or_default();
                            brf += 1;
                            brh += u32::from(it.hits > 0);
                            let _ = writeln!(s, "BRDA:{},0,{},{}", it.line, k, it.hits);
                            *k += 1;
                        }
                    }
                }
                let _ = writeln!(s, "BRF:{brf}\nBRH:{brh}\nLF:{lf}\nLH:{lh}\nend_of_record");
            }
        }
        s
    }

    /// A Cobertura XML report (the format CI dashboards read): a package
    /// per group, a class per file, its lines with their hits and, on
    /// lines with decisions, the arms taken.
    pub fn cobertura(&self, timestamp: u64) -> String {
        let rate = |t: Option<&Tally>| t.map_or(1.0, |t| t.percent() / 100.0);
        let (mut lv, mut lc, mut bv, mut bc) = (0u64, 0u64, 0u64, 0u64);
        for gr in self.groups.values() {
            let l = gr.tally.get(&Metric::Line).copied().unwrap_or_default();
            let b = gr.tally.get(&Metric::Branch).copied().unwrap_or_default();
            lv += l.total;
            lc += l.covered;
            bv += b.total;
            bc += b.covered;
        }
        let ratio = |c: u64, t: u64| if t == 0 { 1.0 } else { c as f64 / t as f64 };
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.push_str(
            "<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">\n",
        );
        let _ = writeln!(
            s,
            "<coverage line-rate=\"{:.4}\" branch-rate=\"{:.4}\" lines-covered=\"{lc}\" lines-valid=\"{lv}\" branches-covered=\"{bc}\" branches-valid=\"{bv}\" complexity=\"0\" version=\"gpucosim {}\" timestamp=\"{timestamp}\">",
            ratio(lc, lv),
            ratio(bc, bv),
            env!("CARGO_PKG_VERSION")
        );
        s.push_str("  <sources>\n");
        let roots: BTreeSet<&String> = self.roots.values().collect();
        for r in roots {
            let _ = writeln!(s, "    <source>{}</source>", xml(r));
        }
        s.push_str("  </sources>\n  <packages>\n");
        for (g, gr) in &self.groups {
            let _ = writeln!(
                s,
                "    <package name=\"{}\" line-rate=\"{:.4}\" branch-rate=\"{:.4}\" complexity=\"0\">\n      <classes>",
                xml(g),
                rate(gr.tally.get(&Metric::Line)),
                rate(gr.tally.get(&Metric::Branch))
            );
            for (f, t) in &gr.files {
                let class = Path::new(f)
                    .file_stem()
                    .map(|x| x.to_string_lossy().into_owned())
                    .unwrap_or_else(|| f.clone());
                let _ = writeln!(
                    s,
                    "        <class name=\"{}\" filename=\"{}\" line-rate=\"{:.4}\" branch-rate=\"{:.4}\" complexity=\"0\">\n          <methods/>\n          <lines>",
                    xml(&class),
                    xml(f),
                    rate(t.get(&Metric::Line)),
                    rate(t.get(&Metric::Branch))
                );
                let mut lines: BTreeMap<u32, (u64, u32, u32)> = BTreeMap::new();
                let mut has_line: BTreeSet<u32> = BTreeSet::new();
                for (it, waived) in &gr.items {
                    if *waived || it.file != *f {
                        continue;
                    }
                    match it.metric {
                        Metric::Line => {
                            has_line.insert(it.line);
                            lines.entry(it.line).or_default().0 = it.hits;
                        }
                        Metric::Branch => {
                            let e = lines.entry(it.line).or_default();
                            e.1 += 1;
                            e.2 += u32::from(it.hits > 0);
                        }
                        _ => {}
                    }
                }
                for (l, (hits, arms, taken)) in lines {
                    match (100 * taken).checked_div(arms) {
                        None => {
                            let _ = writeln!(
                                s,
                                "            <line number=\"{l}\" hits=\"{hits}\" branch=\"false\"/>"
                            );
                        }
                        Some(pct) => {
                            // A decision on a line no block spans still has
                            // a line entry: hit when an arm was taken.
                            let hits = if has_line.contains(&l) {
                                hits
                            } else {
                                u64::from(taken > 0)
                            };
                            let _ = writeln!(
                                s,
                                "            <line number=\"{l}\" hits=\"{hits}\" branch=\"true\" condition-coverage=\"{pct}% ({taken}/{arms})\"/>"
                            );
                        }
                    }
                }
                s.push_str("          </lines>\n        </class>\n");
            }
            s.push_str("      </classes>\n    </package>\n");
        }
        s.push_str("  </packages>\n</coverage>\n");
        s
    }

    /// An HTML report in `dir` made by `genhtml` (Debian's `lcov`) from the
    /// lcov tracefile, with the sources written under `dir/src`. `None`
    /// when `genhtml` is not installed.
    pub fn html(&self, dir: &Path) -> Result<Option<std::path::PathBuf>> {
        let genhtml = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("genhtml"))
                .find(|p| p.is_file())
        });
        let Some(genhtml) = genhtml else {
            return Ok(None);
        };
        let src = dir.join("src");
        for files in self.sources.values() {
            for (f, text) in files {
                let p = src.join(f);
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
            }
        }
        let info = dir.join("coverage.info");
        std::fs::write(&info, self.lcov(Some(&src))).map_err(|e| Error::io(&info, e))?;
        let out = std::process::Command::new(&genhtml)
            .args(["--quiet", "--branch-coverage", "--output-directory"])
            .arg(dir)
            .arg(&info)
            .output()
            .map_err(|e| Error::Env(format!("cannot run {}: {e}", genhtml.display())))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(Error::Env(format!(
                "genhtml failed: {}",
                err.lines().last().unwrap_or("(no message)")
            )));
        }
        Ok(Some(dir.join("index.html")))
    }

    /// The summary as JSON: per group, each metric's covered, total,
    /// waived and percent, and per file.
    pub fn json(&self) -> serde_json::Value {
        let tallies = |t: &BTreeMap<Metric, Tally>| {
            let mut m = serde_json::Map::new();
            for (k, v) in t {
                m.insert(
                    k.name().into(),
                    serde_json::json!({
                        "covered": v.covered,
                        "total": v.total,
                        "waived": v.waived,
                        "percent": (v.percent() * 100.0).round() / 100.0,
                    }),
                );
            }
            serde_json::Value::Object(m)
        };
        let mut out = serde_json::Map::new();
        for (g, gr) in &self.groups {
            let files: serde_json::Map<String, serde_json::Value> = gr
                .files
                .iter()
                .map(|(f, t)| (f.clone(), tallies(t)))
                .collect();
            out.insert(
                g.clone(),
                serde_json::json!({
                    "metrics": tallies(&gr.tally),
                    "files": files,
                    "uncovered": gr.uncovered.iter().map(|it| self.locate(g, it)).collect::<Vec<_>>(),
                }),
            );
        }
        serde_json::json!({ "groups": out, "waiver_findings": self.findings })
    }
}

/// A regression's code coverage report and the floors it is held to.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The report, waivers applied.
    pub report: Report,
    /// `--require-code-coverage`.
    pub floors: Option<Floors>,
}

impl Checked {
    /// The JUnit test case name of the waivers' check.
    pub const WAIVERS_CASE: &'static str = "code-coverage.waivers";

    /// Whether the floors are given and a group is below one, or a waiver
    /// is stale or waives nothing.
    pub fn failed(&self) -> bool {
        self.floors.as_ref().is_some_and(|f| {
            !self.report.failures(f).is_empty() || !self.report.findings.is_empty()
        })
    }

    /// The lines `regress` and `merge` print under the summary for the
    /// floors: `FAIL code-coverage.UNIT.PROFILE: line 93.1% < 95% (...)`
    /// and the first [`LISTED`] uncovered items of each failing group.
    pub fn failure_lines(&self) -> Vec<String> {
        let Some(f) = &self.floors else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (g, msg, items) in self.report.failures(f) {
            out.push(format!("FAIL {}: {msg}", Report::case(&g)));
            for it in items.iter().take(LISTED) {
                out.push(format!("    {it}"));
            }
            if items.len() > LISTED {
                out.push(format!(
                    "    ... and {} more (every one in --uncovered FILE)",
                    items.len() - LISTED
                ));
            }
        }
        if !self.report.findings.is_empty() {
            out.push(format!(
                "FAIL {}: {} finding(s)",
                Checked::WAIVERS_CASE,
                self.report.findings.len()
            ));
            for l in &self.report.findings {
                out.push(format!("    {l}"));
            }
        }
        out
    }
}

/// Text for an XML attribute or element.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
