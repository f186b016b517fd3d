//! Mutants of a unit's SystemVerilog, found on its syntax tree.
//!
//! Every `.sv` file of the unit that is not generated (a file whose first
//! lines say "Do not edit") is parsed with `sv-parser` (includes expanded,
//! as Verilator sees them). Mutation points are syntax nodes inside logic
//! that runs in simulation: `always*` blocks, continuous assignments and
//! functions (other than functions a parameter is computed with). Nothing
//! in a constant context (parameters, ranges and widths, casts, replication
//! counts, `for` headers), an assignment's left-hand side, a declaration, an
//! `initial` or `final` block, an event control or a system task call is
//! mutated: such a change either cannot compile as a run-time choice or
//! cannot reach an output.
//!
//! A mutant is a set of edits of the source text, each replacing the text
//! of one syntax node (an expression or a statement) with other text. Two
//! renderings of the edits exist: [`Unit::apply`] writes one mutant's edits
//! as plain source (a mutant as a user would write it), and
//! [`Unit::instrument`] writes every mutant at once, each edit guarded by a
//! comparison of the mutant select with the mutant's number, so that one
//! build simulates any mutant.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use sv_parser::{parse_sv, NodeEvent, RefNode, RefNodes, SyntaxTree};

/// What a mutant changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operator {
    /// A relational operator shifted (`<` ↔ `<=`, `>` ↔ `>=`).
    Relational,
    /// An equality operator flipped (`==` ↔ `!=`, `===` ↔ `!==`).
    Equality,
    /// An arithmetic operator swapped (`+` ↔ `-`, `*` → `+`).
    Arithmetic,
    /// A logic operator swapped (`&&` ↔ `||`, `&` ↔ `|`, `^` → `|`).
    Logic,
    /// A shift's direction reversed (`<<` ↔ `>>`).
    Shift,
    /// A shift's amount off by one.
    ShiftAmount,
    /// A constant off by one.
    Constant,
    /// An `if` or `?:` condition inverted.
    Condition,
    /// Bit 0 of an assigned value stuck at 0.
    #[serde(rename = "stuck-at-0")]
    StuckAt0,
    /// Bit 0 of an assigned value stuck at 1.
    #[serde(rename = "stuck-at-1")]
    StuckAt1,
    /// One term of an AND or OR dropped.
    DropTerm,
    /// A `!` or `~` dropped.
    DropNot,
    /// A case item dropped (its values fall to the default).
    CaseDrop,
    /// The statements of two neighbouring case items swapped.
    CaseSwap,
    /// A register's reset value inverted.
    ResetValue,
}

impl Operator {
    /// Every operator, in report order.
    pub const ALL: [Operator; 15] = [
        Operator::Relational,
        Operator::Equality,
        Operator::Arithmetic,
        Operator::Logic,
        Operator::Shift,
        Operator::ShiftAmount,
        Operator::Constant,
        Operator::Condition,
        Operator::StuckAt0,
        Operator::StuckAt1,
        Operator::DropTerm,
        Operator::DropNot,
        Operator::CaseDrop,
        Operator::CaseSwap,
        Operator::ResetValue,
    ];

    /// The operator's name in reports (`relational`, `stuck-at-0`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Operator::Relational => "relational",
            Operator::Equality => "equality",
            Operator::Arithmetic => "arithmetic",
            Operator::Logic => "logic",
            Operator::Shift => "shift",
            Operator::ShiftAmount => "shift-amount",
            Operator::Constant => "constant",
            Operator::Condition => "condition",
            Operator::StuckAt0 => "stuck-at-0",
            Operator::StuckAt1 => "stuck-at-1",
            Operator::DropTerm => "drop-term",
            Operator::DropNot => "drop-not",
            Operator::CaseDrop => "case-drop",
            Operator::CaseSwap => "case-swap",
            Operator::ResetValue => "reset-value",
        }
    }
}

impl std::fmt::Display for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One replacement of a node's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    /// Byte range of the node in the file.
    pub start: usize,
    /// End of the range (exclusive).
    pub end: usize,
    /// The text that replaces it in the mutant.
    pub text: String,
    /// The node is a statement (else an expression).
    pub stmt: bool,
}

/// One mutant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Mutant {
    /// Its number in the unit (1-based; 0 is the RTL as written).
    pub id: u32,
    /// The file, relative to the unit's directory.
    pub file: String,
    /// Line of its first edit (1-based).
    pub line: usize,
    /// What it changes.
    pub operator: Operator,
    /// Its edits, in source order, non-overlapping.
    pub edits: Vec<Edit>,
    /// The mutation point's original text (of the first edit).
    pub original: String,
    /// What replaces it.
    pub mutated: String,
    /// The point is inside a package (the select is read per use, not per
    /// module instance).
    #[serde(default)]
    pub in_package: bool,
}

/// A unit's mutable sources and every mutant of them.
#[derive(Debug, Clone)]
pub struct Unit {
    /// The unit's RTL directory.
    pub dir: PathBuf,
    /// Every file of the unit directory (`.sv` and includes), by name, with
    /// its text.
    pub files: BTreeMap<String, String>,
    /// Files not mutated because they are generated.
    pub generated: Vec<String>,
    /// The mutants, by id order.
    pub mutants: Vec<Mutant>,
    /// Per file, where the select's declarations go in an instrumented
    /// build (after each module header and package name).
    inserts: BTreeMap<String, Vec<(usize, String)>>,
}

/// The module-level mutant select of an instrumented build.
pub const SELECT_VAR: &str = "gpucosim_mut_sel";
/// The DPI-C function the select is read with (defined by the shim).
pub const SELECT_FN: &str = crate::rtlbuild::MUTANT_SELECT_FN;
/// The DPI-C function the selected mutant's activation is reported with
/// (defined by the shim): `gpucosim_activated(differs)`, returning 1.
pub const ACTIVATED_FN: &str = "gpucosim_activated";

/// Whether a file says it is generated.
fn is_generated(text: &str) -> bool {
    text.lines().take(5).any(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("do not edit") || l.contains("@generated")
    })
}

impl Unit {
    /// Reads and parses the unit's sources in `dir` and lists its mutants.
    pub fn scan(dir: &Path, sv_files: &[PathBuf], includes: &[PathBuf]) -> Result<Unit> {
        let mut files = BTreeMap::new();
        for p in sv_files.iter().chain(includes) {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| Error::Input(format!("bad RTL file name {}", p.display())))?
                .to_string();
            let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
            files.insert(name, text);
        }
        let mut generated = Vec::new();
        let mut parsed = Vec::new();
        for p in sv_files {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if is_generated(&files[name]) {
                generated.push(name.to_string());
                continue;
            }
            let (tree, _) = parse_sv(p, &HashMap::new(), &[dir], false, false).map_err(|e| {
                Error::Input(format!(
                    "cannot parse {} for mutation: {}",
                    p.display(),
                    parse_error(&e)
                ))
            })?;
            parsed.push((name.to_string(), p.clone(), tree));
        }
        // Functions a parameter or other constant is computed with cannot
        // read a run-time select.
        let mut constant_fns = BTreeSet::new();
        for (_, _, tree) in &parsed {
            constant_functions(tree, &mut constant_fns);
        }
        let mut mutants = Vec::new();
        let mut inserts = BTreeMap::new();
        for (name, path, tree) in &parsed {
            let text = &files[name.as_str()];
            let mut f = FileScan::new(name, path, text, tree);
            f.scan(&constant_fns);
            mutants.extend(f.mutants);
            inserts.insert(name.clone(), f.inserts);
        }
        // One mutant per distinct mutated source.
        let mut seen = BTreeSet::new();
        mutants.retain(|m: &Mutant| {
            let key = (m.file.clone(), apply_edits(&files[&m.file], &m.edits));
            seen.insert(key)
        });
        mutants.sort_by(|a, b| {
            (&a.file, a.edits[0].start, a.operator, &a.mutated).cmp(&(
                &b.file,
                b.edits[0].start,
                b.operator,
                &b.mutated,
            ))
        });
        for (i, m) in mutants.iter_mut().enumerate() {
            m.id = i as u32 + 1;
        }
        Ok(Unit {
            dir: dir.to_path_buf(),
            files,
            generated,
            mutants,
            inserts,
        })
    }

    /// Mutant `id`.
    pub fn mutant(&self, id: u32) -> Option<&Mutant> {
        self.mutants.get((id as usize).checked_sub(1)?)
    }

    /// The sources with mutant `id`'s edits applied (no select).
    pub fn apply(&self, id: u32) -> BTreeMap<String, String> {
        let mut out = self.files.clone();
        if let Some(m) = self.mutant(id) {
            let t = apply_edits(&self.files[&m.file], &m.edits);
            out.insert(m.file.clone(), t);
        }
        out
    }

    /// The sources with the mutants `ids` instrumented: each edit chosen at
    /// run time by the mutant select, whose declarations are added to every
    /// module and package of a file with mutants. Also returns, per file,
    /// the byte ranges of the output that each mutant's replacement text
    /// occupies (to find the mutant a compile error points into).
    #[allow(clippy::type_complexity)]
    pub fn instrument(
        &self,
        ids: &BTreeSet<u32>,
    ) -> (
        BTreeMap<String, String>,
        BTreeMap<String, Vec<(usize, usize, u32)>>,
    ) {
        let mut out = self.files.clone();
        let mut where_ = BTreeMap::new();
        let mut by_file: BTreeMap<&str, Vec<Guarded<'_>>> = BTreeMap::new();
        for m in &self.mutants {
            if ids.contains(&m.id) {
                for e in &m.edits {
                    by_file.entry(m.file.as_str()).or_default().push((
                        e,
                        m.id,
                        m.in_package,
                        m.operator == Operator::CaseDrop,
                    ));
                }
            }
        }
        for (file, mut edits) in by_file {
            edits.sort_by(|a, b| {
                (a.0.start, std::cmp::Reverse(a.0.end), a.1).cmp(&(
                    b.0.start,
                    std::cmp::Reverse(b.0.end),
                    b.1,
                ))
            });
            let src = &self.files[file];
            let r = Render {
                src,
                inserts: self.inserts.get(file).map_or(&[][..], |v| &v[..]),
            };
            let mut ranges = Vec::new();
            let mut text = String::with_capacity(src.len() * 2);
            r.render(&edits, 0, src.len(), &mut text, &mut ranges);
            where_.insert(file.to_string(), ranges);
            out.insert(file.to_string(), text);
        }
        (out, where_)
    }
}

fn parse_error(e: &sv_parser::Error) -> String {
    match e {
        sv_parser::Error::Parse(Some((path, pos))) => {
            let line = std::fs::read_to_string(path)
                .map(|t| t[..(*pos).min(t.len())].matches('\n').count() + 1)
                .unwrap_or(0);
            format!("syntax error at {}:{line}", path.display())
        }
        other => other.to_string(),
    }
}

/// Applies non-overlapping edits as plain text.
fn apply_edits(src: &str, edits: &[Edit]) -> String {
    let mut v: Vec<&Edit> = edits.iter().collect();
    v.sort_by_key(|e| e.start);
    let mut out = String::with_capacity(src.len() + 64);
    let mut pos = 0;
    for e in v {
        out.push_str(&src[pos..e.start]);
        out.push_str(&e.text);
        pos = e.end;
    }
    out.push_str(&src[pos..]);
    out
}

/// An edit as rendered: the edit, its mutant, whether it is in a package,
/// whether it is a case-drop edit.
type Guarded<'a> = (&'a Edit, u32, bool, bool);

/// Renders instrumented text: the source, its edits guarded by the
/// select, and the select's declarations inserted. The selected mutant
/// reports its activation (weak mutation) through [`ACTIVATED_FN`]: an
/// expression edit whether its value differs from the original's where
/// it is evaluated (a case-drop edit: whether the case expression equals
/// the dropped label, the item that no longer matches), a statement edit
/// that it ran.
struct Render<'a> {
    src: &'a str,
    /// Insertions (position in the source, text), sorted.
    inserts: &'a [(usize, String)],
}

impl Render<'_> {
    /// Copies `src[a..b]`, with the insertions that fall in it.
    fn copy(&self, a: usize, b: usize, out: &mut String) {
        let mut pos = a;
        for (at, t) in self.inserts {
            if *at >= a && *at < b {
                out.push_str(&self.src[pos..*at]);
                out.push_str(t);
                pos = *at;
            }
        }
        out.push_str(&self.src[pos..b]);
    }

    /// Renders `src[lo..hi]` with `edits` (sorted by start, then longest
    /// first; all inside `lo..hi`) guarded by the select.
    fn render(
        &self,
        edits: &[Guarded<'_>],
        lo: usize,
        hi: usize,
        out: &mut String,
        ranges: &mut Vec<(usize, usize, u32)>,
    ) {
        let mut pos = lo;
        let mut i = 0;
        while i < edits.len() {
            let (e, _, _, _) = edits[i];
            if e.start < pos {
                // Overlaps an edit already rendered (the scan makes none).
                i += 1;
                continue;
            }
            let mut j = i;
            while j < edits.len() && edits[j].0.start == e.start && edits[j].0.end == e.end {
                j += 1;
            }
            let mut k = j;
            while k < edits.len() && edits[k].0.start < e.end {
                k += 1;
            }
            self.copy(pos, e.start, out);
            let sel = |pkg: bool| {
                if pkg {
                    format!("{SELECT_FN}()")
                } else {
                    SELECT_VAR.to_string()
                }
            };
            if e.stmt {
                for &(g, id, pkg, _) in &edits[i..j] {
                    out.push_str(&format!(
                        "if ({} == 32'd{id}) begin void'({ACTIVATED_FN}(1)); ",
                        sel(pkg)
                    ));
                    let a = out.len();
                    out.push_str(&g.text);
                    ranges.push((a, out.len(), id));
                    out.push_str(" end else begin ");
                }
                self.render(&edits[j..k], e.start, e.end, out, ranges);
                out.push_str(&" end".repeat(j - i));
            } else {
                out.push('(');
                let orig = &self.src[e.start..e.end];
                for &(g, id, pkg, case_drop) in &edits[i..j] {
                    out.push_str(&format!(
                        "({} == 32'd{id}) ? (({ACTIVATED_FN}(int'(",
                        sel(pkg)
                    ));
                    match g.text.strip_prefix("~(").and_then(|t| t.strip_suffix(')')) {
                        Some(case_expr) if case_drop => {
                            out.push_str(&format!("({case_expr}) == ({orig})"));
                        }
                        _ => {
                            out.push('(');
                            let a = out.len();
                            out.push_str(&g.text);
                            ranges.push((a, out.len(), id));
                            out.push_str(&format!(") != ({orig})"));
                        }
                    }
                    out.push_str(")) != 0) ? (");
                    let a = out.len();
                    out.push_str(&g.text);
                    ranges.push((a, out.len(), id));
                    out.push_str(&format!(") : ({orig})) : "));
                }
                out.push('(');
                self.render(&edits[j..k], e.start, e.end, out, ranges);
                out.push_str("))");
            }
            pos = e.end;
            i = k;
        }
        self.copy(pos, hi, out);
    }
}

/// Collects the names of functions called in constant contexts.
fn constant_functions(tree: &SyntaxTree, names: &mut BTreeSet<String>) {
    let mut depth = 0usize;
    for ev in tree.into_iter().event() {
        match ev {
            NodeEvent::Enter(n) => {
                if is_constant_context(&n) {
                    depth += 1;
                }
                if depth > 0 {
                    if let RefNode::SimpleIdentifier(id) = n {
                        if let Some(t) = tree.get_str(&id.nodes.0) {
                            names.insert(t.to_string());
                        }
                    }
                }
            }
            NodeEvent::Leave(n) => {
                if is_constant_context(&n) {
                    depth -= 1;
                }
            }
        }
    }
}

fn is_constant_context(n: &RefNode<'_>) -> bool {
    matches!(
        n,
        RefNode::ParameterDeclaration(_)
            | RefNode::LocalParameterDeclaration(_)
            | RefNode::ConstantExpression(_)
            | RefNode::ConstantPrimary(_)
            | RefNode::TypeDeclaration(_)
    )
}

/// Nodes inside which nothing is mutated.
fn is_forbidden(n: &RefNode<'_>) -> bool {
    matches!(
        n,
        RefNode::ConstantExpression(_)
            | RefNode::ConstantPrimary(_)
            | RefNode::ConstantRange(_)
            | RefNode::ConstantMintypmaxExpression(_)
            | RefNode::ConstantParamExpression(_)
            | RefNode::SystemTfCall(_)
            | RefNode::EventControl(_)
            | RefNode::DataDeclaration(_)
            | RefNode::ParameterDeclaration(_)
            | RefNode::LocalParameterDeclaration(_)
            | RefNode::NetDeclaration(_)
            | RefNode::TypeDeclaration(_)
            | RefNode::BlockItemDeclaration(_)
            | RefNode::TfPortItem(_)
            | RefNode::TfPortDeclaration(_)
            | RefNode::VariableLvalue(_)
            | RefNode::NetLvalue(_)
            | RefNode::InitialConstruct(_)
            | RefNode::FinalConstruct(_)
            | RefNode::ImmediateAssertionStatement(_)
            | RefNode::DeferredImmediateAssertionStatement(_)
            | RefNode::ConcurrentAssertionItem(_)
            | RefNode::AssertionItem(_)
            | RefNode::CastingType(_)
            | RefNode::DpiImportExport(_)
            | RefNode::ForInitialization(_)
            | RefNode::ForStep(_)
    )
}

/// The names a tree declares with unpacked dimensions: variables, nets
/// and ANSI ports (`slot_t slot [N]`, `output slot_t slot_o [N]`).
#[doc(hidden)]
pub fn unpacked_names(tree: &SyntaxTree) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    let mut add = |id: Option<&str>| {
        if let Some(id) = id {
            names.insert(id.to_string());
        }
    };
    for node in tree {
        match node {
            RefNode::VariableDeclAssignmentVariable(v) if !v.nodes.1.is_empty() => {
                add(tree.get_str_trim(&v.nodes.0))
            }
            RefNode::NetDeclAssignment(n) if !n.nodes.1.is_empty() => {
                add(tree.get_str_trim(&n.nodes.0))
            }
            RefNode::AnsiPortDeclarationVariable(p) if !p.nodes.2.is_empty() => {
                add(tree.get_str_trim(&p.nodes.1))
            }
            RefNode::AnsiPortDeclarationNet(p) if !p.nodes.2.is_empty() => {
                add(tree.get_str_trim(&p.nodes.1))
            }
            _ => {}
        }
    }
    names
}

struct FileScan<'a> {
    name: &'a str,
    path: &'a Path,
    text: &'a str,
    tree: &'a SyntaxTree,
    mutants: Vec<Mutant>,
    /// Ranges (original coordinates) where mutation is allowed.
    allowed: Vec<(usize, usize, bool)>,
    /// Ranges where it is not.
    forbidden: Vec<(usize, usize)>,
    /// Assignments of reset branches (their values get reset mutants).
    reset_values: BTreeSet<(usize, usize)>,
    /// Where the select's declarations go.
    inserts: Vec<(usize, String)>,
    /// Binary and conditional expressions already taken as part of an
    /// operator chain (by address).
    chained: std::collections::HashSet<usize>,
    /// Names declared in this file with unpacked dimensions (`slot_t
    /// slot [N]`): a whole unpacked array has no bit 0 to stick.
    unpacked: std::collections::HashSet<String>,
}

impl<'a> FileScan<'a> {
    fn new(name: &'a str, path: &'a Path, text: &'a str, tree: &'a SyntaxTree) -> Self {
        FileScan {
            name,
            path,
            text,
            tree,
            mutants: Vec::new(),
            allowed: Vec::new(),
            forbidden: Vec::new(),
            reset_values: BTreeSet::new(),
            inserts: Vec::new(),
            chained: std::collections::HashSet::new(),
            unpacked: unpacked_names(tree),
        }
    }

    /// The node's byte range in this file, without surrounding white space,
    /// if all of it comes from this file unchanged by the preprocessor.
    fn span<'b, T: Into<RefNodes<'b>>>(&self, n: T) -> Option<(usize, usize)> {
        self.span_of(n, true)
    }

    /// The node's byte range in this file, where it may hold text from
    /// included files.
    fn loose_span<'b, T: Into<RefNodes<'b>>>(&self, n: T) -> Option<(usize, usize)> {
        self.span_of(n, false)
    }

    fn span_of<'b, T: Into<RefNodes<'b>>>(&self, n: T, strict: bool) -> Option<(usize, usize)> {
        let mut first: Option<usize> = None;
        let mut last = 0usize;
        let mut skip = 0usize;
        for ev in sv_parser::Iter::new(n.into()).event() {
            match ev {
                NodeEvent::Enter(RefNode::WhiteSpace(_)) => skip += 1,
                NodeEvent::Leave(RefNode::WhiteSpace(_)) => skip -= 1,
                NodeEvent::Enter(RefNode::Locate(l)) if skip == 0 => {
                    if first.is_none() {
                        first = Some(l.offset);
                    }
                    last = l.offset + l.len;
                }
                _ => {}
            }
        }
        let first = first?;
        if last <= first {
            return None;
        }
        let (pa, a) = self.tree.get_origin(&sv_parser::Locate {
            offset: first,
            line: 0,
            len: 1,
        })?;
        let (pb, b) = self.tree.get_origin(&sv_parser::Locate {
            offset: last - 1,
            line: 0,
            len: 1,
        })?;
        if pa != pb || !same_file(pa, self.path) || b < a || (strict && b + 1 - a != last - first) {
            return None;
        }
        Some((a, b + 1))
    }

    fn src(&self, (a, b): (usize, usize)) -> &'a str {
        &self.text[a..b]
    }

    fn line_of(&self, at: usize) -> usize {
        self.text[..at].matches('\n').count() + 1
    }

    /// Whether a node at `sp` may be mutated; and if so whether it is in
    /// a package.
    fn mutable(&self, sp: (usize, usize)) -> Option<bool> {
        // An edit may replace a whole node holding a forbidden one (a
        // statement with its left-hand side), never a part of one.
        let contains = |a: usize, b: usize| sp.0 <= a && b <= sp.1 && (sp.0, sp.1) != (a, b);
        if self
            .forbidden
            .iter()
            .any(|&(a, b)| sp.0 < b && a < sp.1 && !contains(a, b))
        {
            return None;
        }
        self.allowed
            .iter()
            .find(|&&(a, b, _)| a <= sp.0 && sp.1 <= b)
            .map(|&(_, _, pkg)| pkg)
    }

    fn push(&mut self, op: Operator, edits: Vec<Edit>) {
        let Some(first) = edits.first() else { return };
        let Some(pkg) = edits
            .iter()
            .map(|e| self.mutable((e.start, e.end)))
            .collect::<Option<Vec<bool>>>()
            .map(|v| v.iter().any(|&p| p))
        else {
            return;
        };
        let original = self.text[first.start..first.end].to_string();
        if edits.iter().all(|e| self.text[e.start..e.end] == e.text) {
            return;
        }
        self.mutants.push(Mutant {
            id: 0,
            file: self.name.to_string(),
            line: self.line_of(first.start),
            operator: op,
            mutated: first.text.clone(),
            original,
            edits,
            in_package: pkg,
        });
    }

    fn expr(&mut self, op: Operator, sp: (usize, usize), text: String) {
        self.push(
            op,
            vec![Edit {
                start: sp.0,
                end: sp.1,
                text,
                stmt: false,
            }],
        );
    }

    fn scan(&mut self, constant_fns: &BTreeSet<String>) {
        let tree = self.tree;
        // Pass 1: where mutation is allowed and where not.
        let mut packages: Vec<(usize, usize)> = Vec::new();
        let module_decls = format!(
            "\n  import \"DPI-C\" function int {SELECT_FN}();\n  import \"DPI-C\" function int {ACTIVATED_FN}(input int differs);\n  int {SELECT_VAR};\n  initial {SELECT_VAR} = {SELECT_FN}();\n"
        );
        for node in tree {
            match node {
                RefNode::PackageDeclaration(p) => {
                    if let Some(sp) = self.loose_span(p) {
                        packages.push(sp);
                    }
                    if let Some((_, end)) = self.span(&p.nodes.4) {
                        self.inserts.push((
                            end,
                            format!("\n  import \"DPI-C\" function int {SELECT_FN}();\n  import \"DPI-C\" function int {ACTIVATED_FN}(input int differs);\n"),
                        ));
                    }
                }
                RefNode::ModuleAnsiHeader(h) => {
                    if let Some((_, end)) = self.loose_span(h) {
                        self.inserts.push((end, module_decls.clone()));
                    }
                }
                RefNode::ModuleNonansiHeader(h) => {
                    if let Some((_, end)) = self.loose_span(h) {
                        self.inserts.push((end, module_decls.clone()));
                    }
                }
                RefNode::AlwaysConstruct(_) | RefNode::ContinuousAssign(_) => {
                    if let Some(sp) = self.span(RefNodes(vec![node.clone()])) {
                        self.allowed.push((sp.0, sp.1, false));
                    }
                }
                RefNode::FunctionDeclaration(f) => {
                    let name =
                        sv_parser::Iter::new(RefNodes(vec![RefNode::FunctionDeclaration(f)]))
                            .find_map(|n| match n {
                                RefNode::FunctionIdentifier(id) => {
                                    tree.get_str_trim(id).map(String::from)
                                }
                                _ => None,
                            });
                    if name.is_some_and(|n| !constant_fns.contains(&n)) {
                        if let Some(sp) = self.span(f) {
                            self.allowed.push((sp.0, sp.1, false));
                        }
                    }
                }
                RefNode::LoopStatementFor(f) => {
                    // The loop's header, not its body.
                    let p = &f.nodes.1;
                    if let Some(sp) = self.span(p) {
                        self.forbidden.push(sp);
                    }
                }
                RefNode::MultipleConcatenation(m) => {
                    if let Some(sp) = self.span(&m.nodes.0.nodes.1 .0) {
                        self.forbidden.push(sp);
                    }
                }
                n if is_forbidden(&n) => {
                    if let Some(sp) = self.loose_span(RefNodes(vec![n.clone()])) {
                        self.forbidden.push(sp);
                    }
                }
                _ => {}
            }
        }
        self.inserts.sort();
        for a in self.allowed.iter_mut() {
            a.2 = packages.iter().any(|&(s, e)| s <= a.0 && a.1 <= e);
        }
        // Reset branches of always_ff blocks.
        for node in tree {
            if let RefNode::AlwaysConstruct(a) = node {
                if matches!(a.nodes.0, sv_parser::AlwaysKeyword::AlwaysFf(_)) {
                    self.reset_branch(a);
                }
            }
        }
        // Pass 2: the mutation points.
        for node in tree {
            match node {
                RefNode::ExpressionBinary(x)
                    if !self.chained.contains(&(x as *const _ as usize)) =>
                {
                    self.chain(&Chain::Binary(x));
                }
                RefNode::ConditionalExpression(c)
                    if !self.chained.contains(&(c as *const _ as usize)) =>
                {
                    self.chain(&Chain::Cond(c));
                }
                RefNode::ExpressionUnary(x) => {
                    let op = tree.get_str_trim(&x.nodes.0).unwrap_or_default();
                    if op == "!" || op == "~" {
                        if let (Some(sp), Some(p)) = (self.span(x), self.span(&x.nodes.2)) {
                            let t = self.src(p).to_string();
                            self.expr(Operator::DropNot, sp, t);
                        }
                    }
                }
                RefNode::ConditionalStatement(c) => {
                    let mut preds = vec![&c.nodes.2.nodes.1];
                    preds.extend(c.nodes.4.iter().map(|e| &e.2.nodes.1));
                    for p in preds {
                        self.invert(p);
                    }
                }
                RefNode::IntegralNumber(n) => {
                    if let Some(sp) = self.span(n) {
                        for t in off_by_one(self.src(sp)) {
                            self.expr(Operator::Constant, sp, t);
                        }
                    }
                }
                RefNode::OperatorAssignment(a) if tree.get_str_trim(&a.nodes.1) == Some("=") => {
                    self.stuck(&a.nodes.2);
                }
                RefNode::NonblockingAssignment(a) => self.stuck(&a.nodes.3),
                RefNode::NetAssignment(a) => self.stuck(&a.nodes.2),
                RefNode::CaseStatementNormal(c) => self.case(c),
                _ => {}
            }
        }
    }

    fn invert(&mut self, p: &sv_parser::CondPredicate) {
        if !p.nodes.0.nodes.1.is_empty() {
            return;
        }
        if let sv_parser::ExpressionOrCondPattern::Expression(e) = &p.nodes.0.nodes.0 {
            if let Some(sp) = self.span(e.as_ref()) {
                let t = format!("!({})", self.src(sp));
                self.expr(Operator::Condition, sp, t);
            }
        }
    }

    fn stuck(&mut self, e: &sv_parser::Expression) {
        let Some(sp) = self.span(e) else { return };
        if self.reset_values.contains(&sp) {
            let t = format!("~({})", self.src(sp));
            self.expr(Operator::ResetValue, sp, t);
            return;
        }
        let v = self.src(sp);
        // A whole unpacked array has no bit 0 (Verilator accepts the
        // shifts in lint and then generates C++ that does not compile).
        if self.unpacked.contains(v.trim()) {
            return;
        }
        // A literal already has its bit 0: one of the two is no change.
        let bit0 = literal_bit0(v);
        let (s0, s1) = (format!("((({v}) >> 1) << 1)"), format!("(({v}) | 1'b1)"));
        if bit0 != Some(false) {
            self.expr(Operator::StuckAt0, sp, s0);
        }
        if bit0 != Some(true) {
            self.expr(Operator::StuckAt1, sp, s1);
        }
    }

    /// Flattens an operator chain into its operands and operators, in
    /// source order. `sv-parser` nests binary operators to the right
    /// whatever their precedence, and takes a `?:` after a binary operator
    /// into its right operand (`a == b ? c : d` as `a == (b ? c : d)`);
    /// [`Expr::parse`] rebuilds the tree SystemVerilog means.
    fn flatten(&mut self, e: &Chain<'_>, out: &mut Vec<Item>) -> bool {
        match e {
            Chain::Binary(b) => {
                self.chained.insert(*b as *const _ as usize);
                let Some(op) = self.span(&b.nodes.1) else {
                    return false;
                };
                let text = self.src(op).to_string();
                self.flatten(&Chain::of(&b.nodes.0), out)
                    && {
                        out.push(Item::Op(text, op));
                        true
                    }
                    && self.flatten(&Chain::of(&b.nodes.3), out)
            }
            Chain::Cond(c) => {
                self.chained.insert(*c as *const _ as usize);
                let p = &c.nodes.0;
                if !p.nodes.0.nodes.1.is_empty() {
                    return false;
                }
                let sv_parser::ExpressionOrCondPattern::Expression(cond) = &p.nodes.0.nodes.0
                else {
                    return false;
                };
                self.flatten(&Chain::of(cond), out)
                    && {
                        out.push(Item::Question);
                        true
                    }
                    && self.flatten(&Chain::of(&c.nodes.3), out)
                    && {
                        out.push(Item::Colon);
                        true
                    }
                    && self.flatten(&Chain::of(&c.nodes.5), out)
            }
            Chain::Atom(a) => match self.span(*a) {
                Some(sp) => {
                    out.push(Item::Atom(sp));
                    true
                }
                None => false,
            },
        }
    }

    /// The mutants of an operator chain.
    fn chain(&mut self, top: &Chain<'_>) {
        let mut items = Vec::new();
        if !self.flatten(top, &mut items) {
            return;
        }
        let Some(tree) = Expr::parse(&items) else {
            return;
        };
        let mut nodes = Vec::new();
        tree.walk(&mut nodes);
        for n in nodes {
            match n {
                Expr::Bin { op, op_span, l, r } => self.binary(op, *op_span, l, r),
                Expr::Cond { c, .. } => {
                    let sp = c.span();
                    let t = format!("!({})", self.src(sp));
                    self.expr(Operator::Condition, sp, t);
                }
                Expr::Atom(_) => {}
            }
        }
    }

    fn binary(&mut self, op: &str, op_sp: (usize, usize), l: &Expr, r: &Expr) {
        let sp = (l.span().0, r.span().1);
        let (l, r) = (l.span(), r.span());
        // Every replacement is parenthesised: put back into its chain as
        // plain text (a mutant built alone) it must group as the node it
        // replaces (`a && b && c` with the first `&&` swapped is
        // `(a || b) && c`, not `a || b && c`).
        let with_op = |new: &str| {
            format!(
                "({}{}{})",
                &self.text[sp.0..op_sp.0],
                new,
                &self.text[op_sp.1..sp.1]
            )
        };
        let swaps: &[(&str, Operator)] = match op {
            "<" => &[("<=", Operator::Relational)],
            "<=" => &[("<", Operator::Relational)],
            ">" => &[(">=", Operator::Relational)],
            ">=" => &[(">", Operator::Relational)],
            "==" => &[("!=", Operator::Equality)],
            "!=" => &[("==", Operator::Equality)],
            "===" => &[("!==", Operator::Equality)],
            "!==" => &[("===", Operator::Equality)],
            "+" => &[("-", Operator::Arithmetic)],
            "-" => &[("+", Operator::Arithmetic)],
            "*" => &[("+", Operator::Arithmetic)],
            "&&" => &[("||", Operator::Logic)],
            "||" => &[("&&", Operator::Logic)],
            "&" => &[("|", Operator::Logic)],
            "|" => &[("&", Operator::Logic)],
            "^" => &[("|", Operator::Logic)],
            "<<" => &[(">>", Operator::Shift)],
            ">>" => &[("<<", Operator::Shift)],
            "<<<" => &[(">>>", Operator::Shift)],
            ">>>" => &[("<<<", Operator::Shift)],
            _ => &[],
        };
        for &(new, o) in swaps {
            let t = with_op(new);
            self.expr(o, sp, t);
        }
        if matches!(op, "&&" | "||" | "&" | "|") {
            let (lt, rt) = (format!("({})", self.src(l)), format!("({})", self.src(r)));
            self.expr(Operator::DropTerm, sp, lt);
            self.expr(Operator::DropTerm, sp, rt);
        }
        if matches!(op, "<<" | ">>" | "<<<" | ">>>") {
            let head = &self.text[sp.0..r.0];
            let amount = self.src(r);
            let plus = format!("({head}(({amount}) + 1))");
            let minus = format!("({head}(({amount}) - 1))");
            self.expr(Operator::ShiftAmount, sp, plus);
            self.expr(Operator::ShiftAmount, sp, minus);
        }
    }

    fn case(&mut self, c: &sv_parser::CaseStatementNormal) {
        let Some(ce) = self.span(&c.nodes.2.nodes.1) else {
            return;
        };
        let never = format!("~({})", self.src(ce));
        let mut items: Vec<&sv_parser::CaseItem> = vec![&c.nodes.3];
        items.extend(c.nodes.4.iter());
        let mut bodies: Vec<(usize, usize)> = Vec::new();
        for it in items {
            let sv_parser::CaseItem::NonDefault(nd) = it else {
                continue;
            };
            let list = &nd.nodes.0;
            let mut exprs = vec![&list.nodes.0];
            exprs.extend(list.nodes.1.iter().map(|(_, e)| e));
            let edits: Option<Vec<Edit>> = exprs
                .iter()
                .map(|e| {
                    self.span(*e).map(|sp| Edit {
                        start: sp.0,
                        end: sp.1,
                        text: never.clone(),
                        stmt: false,
                    })
                })
                .collect();
            if let Some(edits) = edits {
                self.push(Operator::CaseDrop, edits);
            }
            if let Some(b) = self.span(&nd.nodes.2) {
                bodies.push(b);
            }
        }
        for w in bodies.windows(2) {
            let (a, b) = (w[0], w[1]);
            if self.src(a) == self.src(b) {
                continue;
            }
            self.push(
                Operator::CaseSwap,
                vec![
                    Edit {
                        start: a.0,
                        end: a.1,
                        text: self.src(b).to_string(),
                        stmt: true,
                    },
                    Edit {
                        start: b.0,
                        end: b.1,
                        text: self.src(a).to_string(),
                        stmt: true,
                    },
                ],
            );
        }
    }

    /// Marks the values assigned in an `always_ff`'s reset branch.
    fn reset_branch(&mut self, a: &sv_parser::AlwaysConstruct) {
        let tree = self.tree;
        // Signals of the event control other than the first (the clock),
        // and whether each is active low.
        let mut edges: Vec<(bool, String)> = Vec::new();
        for n in sv_parser::Iter::new(RefNodes(vec![RefNode::AlwaysConstruct(a)])) {
            if let RefNode::EventExpressionExpression(e) = n {
                let neg = matches!(e.nodes.0, Some(sv_parser::EdgeIdentifier::Negedge(_)));
                if let Some(t) = tree.get_str_trim(&e.nodes.1) {
                    edges.push((neg, t.trim().to_string()));
                }
            }
        }
        let resets: Vec<(bool, String)> = edges.into_iter().skip(1).collect();
        let Some(cond) = sv_parser::Iter::new(RefNodes(vec![RefNode::AlwaysConstruct(a)]))
            .find_map(|n| match n {
                RefNode::ConditionalStatement(c) => Some(c),
                _ => None,
            })
        else {
            return;
        };
        let pred: String = tree
            .get_str_trim(&cond.nodes.2.nodes.1)
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
            .collect();
        let (negated, name) = match pred.strip_prefix('!').or_else(|| pred.strip_prefix('~')) {
            Some(n) => (true, n.to_string()),
            None => (false, pred.clone()),
        };
        let looks_like_reset = {
            let l = name.to_ascii_lowercase();
            l.contains("rst") || l.contains("reset")
        };
        let is_reset = resets.iter().any(|(neg, r)| *r == name && *neg == negated)
            || (resets.is_empty() && looks_like_reset);
        if !is_reset {
            return;
        }
        for n in sv_parser::Iter::new(RefNodes(vec![RefNode::StatementOrNull(&cond.nodes.3)])) {
            if let RefNode::NonblockingAssignment(x) = n {
                if let Some(sp) = self.span(&x.nodes.3) {
                    self.reset_values.insert(sp);
                }
            }
        }
    }
}

/// A node of an operator chain as `sv-parser` gives it.
enum Chain<'a> {
    Binary(&'a sv_parser::ExpressionBinary),
    Cond(&'a sv_parser::ConditionalExpression),
    Atom(&'a sv_parser::Expression),
}

impl<'a> Chain<'a> {
    fn of(e: &'a sv_parser::Expression) -> Chain<'a> {
        match e {
            sv_parser::Expression::Binary(b) => Chain::Binary(b),
            sv_parser::Expression::ConditionalExpression(c) => Chain::Cond(c),
            other => Chain::Atom(other),
        }
    }
}

/// An operand or operator of a flattened chain.
#[derive(Debug, Clone, PartialEq)]
#[doc(hidden)]
pub enum Item {
    Atom((usize, usize)),
    Op(String, (usize, usize)),
    Question,
    Colon,
}

/// An operator chain as SystemVerilog groups it (IEEE 1800-2017 table
/// 11-2: binary operators left-associative by precedence, `?:` lowest and
/// right-associative).
#[derive(Debug, Clone, PartialEq)]
#[doc(hidden)]
pub enum Expr {
    Atom((usize, usize)),
    Bin {
        op: String,
        op_span: (usize, usize),
        l: Box<Expr>,
        r: Box<Expr>,
    },
    Cond {
        c: Box<Expr>,
        t: Box<Expr>,
        f: Box<Expr>,
    },
}

/// Binding strength of a binary operator (higher binds tighter).
#[doc(hidden)]
pub fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "->" | "<->" => 1,
        "||" => 3,
        "&&" => 4,
        "|" => 5,
        "^" | "~^" | "^~" => 6,
        "&" => 7,
        "==" | "!=" | "===" | "!==" | "==?" | "!=?" => 8,
        "<" | "<=" | ">" | ">=" => 9,
        "<<" | ">>" | "<<<" | ">>>" => 10,
        "+" | "-" => 11,
        "*" | "/" | "%" => 12,
        "**" => 13,
        _ => return None,
    })
}

/// Precedence of `?:` (between `->` and `||`).
const COND_PREC: u8 = 2;

impl Expr {
    #[doc(hidden)]
    pub fn parse(items: &[Item]) -> Option<Expr> {
        let mut i = 0;
        let e = Expr::climb(items, &mut i, 0)?;
        (i == items.len()).then_some(e)
    }

    fn climb(items: &[Item], i: &mut usize, min: u8) -> Option<Expr> {
        let Item::Atom(sp) = items.get(*i)? else {
            return None;
        };
        *i += 1;
        let mut lhs = Expr::Atom(*sp);
        loop {
            match items.get(*i) {
                Some(Item::Op(op, op_span)) => {
                    let p = precedence(op)?;
                    if p < min {
                        break;
                    }
                    *i += 1;
                    let rhs = Expr::climb(items, i, p + 1)?;
                    lhs = Expr::Bin {
                        op: op.clone(),
                        op_span: *op_span,
                        l: Box::new(lhs),
                        r: Box::new(rhs),
                    };
                }
                Some(Item::Question) if COND_PREC >= min => {
                    *i += 1;
                    let t = Expr::climb(items, i, 0)?;
                    if items.get(*i) != Some(&Item::Colon) {
                        return None;
                    }
                    *i += 1;
                    let f = Expr::climb(items, i, COND_PREC)?;
                    lhs = Expr::Cond {
                        c: Box::new(lhs),
                        t: Box::new(t),
                        f: Box::new(f),
                    };
                }
                _ => break,
            }
        }
        Some(lhs)
    }

    fn span(&self) -> (usize, usize) {
        match self {
            Expr::Atom(sp) => *sp,
            Expr::Bin { l, r, .. } => (l.span().0, r.span().1),
            Expr::Cond { c, f, .. } => (c.span().0, f.span().1),
        }
    }

    /// Every node, parents first.
    fn walk<'a>(&'a self, out: &mut Vec<&'a Expr>) {
        out.push(self);
        match self {
            Expr::Atom(_) => {}
            Expr::Bin { l, r, .. } => {
                l.walk(out);
                r.walk(out);
            }
            Expr::Cond { c, t, f } => {
                c.walk(out);
                t.walk(out);
                f.walk(out);
            }
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || a.canonicalize().ok() == b.canonicalize().ok()
}

/// Bit 0 of a literal (`'0`, `'1`, `4'd3`, `12`), if `v` is one.
fn literal_bit0(v: &str) -> Option<bool> {
    let t: String = v
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    match t.as_str() {
        "'0" => return Some(false),
        "'1" => return Some(true),
        _ => {}
    }
    let (radix, digits) = match t.split_once('\'') {
        None => (10, t.as_str()),
        Some((_, rest)) => {
            let rest = rest.trim_start_matches(['s', 'S']);
            let mut ch = rest.chars();
            let radix = match ch.next()?.to_ascii_lowercase() {
                'd' => 10,
                'h' => 16,
                'b' => 2,
                'o' => 8,
                _ => return None,
            };
            (radix, ch.as_str())
        }
    };
    u128::from_str_radix(digits, radix).ok().map(|x| x & 1 == 1)
}

/// A literal's two neighbours (value ± 1, in the literal's size and base),
/// or none if it is not a plain integer (`'0`, X or Z digits, reals).
#[doc(hidden)]
pub fn off_by_one(lit: &str) -> Vec<String> {
    let clean: String = lit
        .chars()
        .filter(|c| *c != '_' && !c.is_whitespace())
        .collect();
    let (size, base, digits) = match clean.split_once('\'') {
        None => (None, 'd', clean.as_str()),
        Some((s, rest)) => {
            let rest = rest.trim_start_matches(['s', 'S']);
            let mut ch = rest.chars();
            let Some(b) = ch.next() else { return vec![] };
            let size = if s.is_empty() {
                None
            } else {
                match s.parse::<u32>() {
                    Ok(n) => Some(n),
                    Err(_) => return vec![],
                }
            };
            (size, b.to_ascii_lowercase(), ch.as_str())
        }
    };
    let radix = match base {
        'd' => 10,
        'h' => 16,
        'b' => 2,
        'o' => 8,
        _ => return vec![],
    };
    let Ok(v) = u128::from_str_radix(digits, radix) else {
        return vec![];
    };
    let bits = size.unwrap_or(32).min(128);
    let mask = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    let signed = clean.contains("'s") || clean.contains("'S");
    let prefix = match clean.split_once('\'') {
        None => String::new(),
        Some((s, _)) => format!("{s}'{}{base}", if signed { "s" } else { "" }),
    };
    let render = |x: u128| match radix {
        10 => format!("{prefix}{x}"),
        16 => format!("{prefix}{x:x}"),
        2 => format!("{prefix}{x:b}"),
        _ => format!("{prefix}{x:o}"),
    };
    let mut out = Vec::new();
    let up = v.wrapping_add(1) & mask;
    if up != v {
        out.push(render(up));
    }
    if v > 0 {
        out.push(render(v - 1));
    } else if size.is_some() {
        out.push(render(mask));
    }
    out.dedup();
    out
}
