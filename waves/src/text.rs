//! Text waveforms: a few cycles of a few signals as a table, model above
//! RTL, for a CI log or a terminal.
//!
//! ```text
//! cycle                          4         5         6         7
//! grant_lanes_o      model    ffff      ffff  0000ffff      0000
//!                    rtl      ffff      ffff  ffff0000*     0000
//! ```
//!
//! A cell where model and RTL differ is marked `*`. Values are hex (1-bit
//! ones 0 or 1); a value wider than 64 bits is shown as the 64-bit slice
//! holding its first difference (`lane_inrange_o[127:64]`). The lock-step
//! report builds its table from the capture ring ([`Trace::from_frames`]),
//! `gpucosim waves` from a VCD it wrote ([`Trace::read_vcd`]).
//!
//! ```
//! use gpucosim_waves::text::{Pick, Trace};
//! use gpucosim_waves::{Capture, Layout};
//! gpucosim_model::ports! {
//!     mod toy("toy", "toy_top") { input rst_ni: 1, output q_o: 8 x 2 }
//! }
//! let mut cap = Capture::new(&toy::TABLE, 8);
//! for c in 0..4u32 {
//!     cap.record(c as u64, &[1], &[c << 8], &[if c == 3 { 9 << 8 } else { c << 8 }]);
//! }
//! let layout = Layout::new(&toy::TABLE);
//! let picks = [Pick::new(&layout, "q_o", Some(1), None).unwrap()];
//! let t = Trace::from_frames(&layout, cap.frames(), &picks);
//! let text = t.render();
//! assert!(text.contains("q_o[1]"), "{text}");
//! assert!(text.lines().nth(2).unwrap().trim_end().ends_with("9*"), "{text}");
//! ```

use crate::{Frame, Group, Layout, Var};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// A signal to show: a port, or an element of an array port, or a 64-bit
/// slice of a wider one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// The variable's name in its scope (`lane_addr_o[17]`, `stall_o`).
    pub name: String,
    /// Whether it is an input (one row) or an output (model and RTL rows).
    pub input: bool,
    /// First bit shown.
    pub lsb: u32,
    /// Bits shown (at most 64).
    pub width: u32,
    /// The variable's full width.
    pub full: u32,
}

impl Pick {
    /// Port `port` (element `elem` of an array port) of `layout`, bits
    /// `lsb..lsb + 64` of it when it is wider than 64 bits (`lsb` rounded
    /// down to a multiple of 64). `None` if the layout has no such
    /// variable.
    pub fn new(layout: &Layout, port: &str, elem: Option<u32>, lsb: Option<u32>) -> Option<Pick> {
        let v = layout
            .vars
            .iter()
            .find(|v| v.port == port && v.elem == elem)?;
        Some(Pick::of(v, lsb.unwrap_or(0)))
    }

    fn of(v: &Var, lsb: u32) -> Pick {
        let lsb = if v.width > 64 { lsb / 64 * 64 } else { 0 };
        Pick {
            name: v.name(),
            input: v.group == Group::In,
            lsb,
            width: (v.width - lsb.min(v.width)).min(64),
            full: v.width,
        }
    }

    /// The row's label: the name, with the bits shown when they are a
    /// slice (`lane_inrange_o[127:64]`).
    pub fn label(&self) -> String {
        if self.width < self.full {
            format!("{}[{}:{}]", self.name, self.lsb + self.width - 1, self.lsb)
        } else {
            self.name.clone()
        }
    }
}

/// One signal's values, per cycle of the trace (`None`: unknown, `x`).
#[derive(Debug, Clone)]
pub struct Row {
    /// What is shown.
    pub pick: Pick,
    /// The input's or the model's values.
    pub model: Vec<Option<u64>>,
    /// The RTL's values (outputs only).
    pub rtl: Option<Vec<Option<u64>>>,
}

/// A few cycles of a few signals.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The cycles, in order.
    pub cycles: Vec<u64>,
    /// The signals.
    pub rows: Vec<Row>,
}

/// Bits `lsb..lsb + width` (`width <= 64`) of little-endian words.
fn slice(words: &[u32], lsb: u32, width: u32) -> u64 {
    let mut v = 0u64;
    for i in 0..width {
        let b = (lsb + i) as usize;
        if words.get(b / 32).is_some_and(|w| w >> (b % 32) & 1 != 0) {
            v |= 1 << i;
        }
    }
    v
}

impl Trace {
    /// No cycles yet of the signals `picks`.
    fn empty(picks: &[Pick]) -> Trace {
        Trace {
            cycles: Vec::new(),
            rows: picks
                .iter()
                .map(|p| Row {
                    pick: p.clone(),
                    model: Vec::new(),
                    rtl: (!p.input).then(Vec::new),
                })
                .collect(),
        }
    }

    /// The picked signals over `frames` (a capture ring's frames).
    pub fn from_frames<'a>(
        layout: &Layout,
        frames: impl Iterator<Item = Frame<'a>>,
        picks: &[Pick],
    ) -> Trace {
        let vars: Vec<[Option<&Var>; 2]> = picks
            .iter()
            .map(|p| {
                let find = |g: Group| {
                    layout
                        .vars
                        .iter()
                        .find(|v| v.group == g && v.name() == p.name)
                };
                if p.input {
                    [find(Group::In), None]
                } else {
                    [find(Group::Model), find(Group::Rtl)]
                }
            })
            .collect();
        let mut t = Trace::empty(picks);
        let value = |v: &Var, buf: &[u32], p: &Pick| {
            let w = v.offset;
            let base = v.lsb as u32 + p.lsb;
            slice(&buf[w..], base, p.width)
        };
        for f in frames {
            t.cycles.push(f.cycle);
            for (row, [a, b]) in t.rows.iter_mut().zip(&vars) {
                let p = &row.pick;
                let first = a.map(|v| {
                    value(
                        v,
                        if v.group == Group::In {
                            f.inputs
                        } else {
                            f.model
                        },
                        p,
                    )
                });
                row.model.push(first);
                if let Some(r) = &mut row.rtl {
                    r.push(b.map(|v| value(v, f.rtl, p)));
                }
            }
        }
        t
    }

    /// Keeps the last `n` cycles.
    pub fn last(mut self, n: usize) -> Trace {
        let drop = self.cycles.len().saturating_sub(n);
        self.cycles.drain(..drop);
        for r in &mut self.rows {
            r.model.drain(..drop.min(r.model.len()));
            if let Some(x) = &mut r.rtl {
                x.drain(..drop.min(x.len()));
            }
        }
        self
    }

    /// The table: a header row of cycle numbers, then per signal its row
    /// (an input) or its model row above its RTL row (an output), with
    /// `*` after each RTL value that differs from the model's.
    pub fn render(&self) -> String {
        let hex = |v: Option<u64>, w: u32| match v {
            None => "x".to_string(),
            Some(v) if w == 1 => v.to_string(),
            Some(v) => format!("{v:x}"),
        };
        let label_w = self
            .rows
            .iter()
            .map(|r| r.pick.label().len())
            .max()
            .unwrap_or(0)
            .max(5);
        // Each column as wide as its widest value; a mark column after it.
        let mut col_w: Vec<usize> = self.cycles.iter().map(|c| c.to_string().len()).collect();
        for r in &self.rows {
            for (k, w) in col_w.iter_mut().enumerate() {
                let a = r.model.get(k).map_or(1, |v| hex(*v, r.pick.width).len());
                let b = r
                    .rtl
                    .as_ref()
                    .and_then(|x| x.get(k))
                    .map_or(0, |v| hex(*v, r.pick.width).len());
                *w = (*w).max(a).max(b);
            }
        }
        let mut s = String::new();
        let _ = write!(s, "{:<label_w$} {:<5}", "cycle", "");
        for (c, w) in self.cycles.iter().zip(&col_w) {
            let _ = write!(s, "  {c:>w$} ");
        }
        s.push('\n');
        for r in &self.rows {
            let (first, second) = if r.rtl.is_some() {
                ("model", "rtl")
            } else {
                ("in", "")
            };
            let _ = write!(s, "{:<label_w$} {first:<5}", r.pick.label());
            for (v, w) in r.model.iter().zip(&col_w) {
                let _ = write!(s, "  {:>w$} ", hex(*v, r.pick.width));
            }
            s.push('\n');
            if let Some(rtl) = &r.rtl {
                let _ = write!(s, "{:<label_w$} {second:<5}", "");
                for ((v, m), w) in rtl.iter().zip(&r.model).zip(&col_w) {
                    let mark = if v != m { '*' } else { ' ' };
                    let _ = write!(s, "  {:>w$}{mark}", hex(*v, r.pick.width));
                }
                s.push('\n');
            }
        }
        // Trailing spaces of the padding are noise in a log.
        s.lines().map(|l| format!("{}\n", l.trim_end())).collect()
    }

    /// Reads the signals of a VCD written by gpucosim (scopes `tb.in`,
    /// `tb.model`, `tb.rtl`, `tb.mismatch`) sampled once per cycle (at
    /// `10 * cycle`), for the cycles in `cycles` (inclusive). `select` picks
    /// the signals from what the file declares (see [`Declared`]); `None`
    /// keeps the diverging ones.
    pub fn read_vcd(
        path: &Path,
        cycles: Option<(u64, u64)>,
        select: impl FnOnce(&Declared) -> Vec<Pick>,
    ) -> io::Result<Trace> {
        let open = || -> io::Result<vcd::Parser<io::BufReader<std::fs::File>>> {
            Ok(vcd::Parser::new(io::BufReader::with_capacity(
                1 << 20,
                std::fs::File::open(path)?,
            )))
        };
        let mut parser = open()?;
        let header = parser.parse_header()?;
        let declared = Declared::of(&header)?;
        let picks = select(&declared);
        // Codes of the variables to follow: (row, side) per code.
        let mut follow: HashMap<vcd::IdCode, Vec<(usize, usize)>> = HashMap::new();
        for (i, p) in picks.iter().enumerate() {
            let groups: &[&str] = if p.input { &["in"] } else { &["model", "rtl"] };
            for (side, g) in groups.iter().enumerate() {
                let code = declared.code(g, &p.name).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("no signal {g}.{}", p.name),
                    )
                })?;
                follow.entry(code).or_default().push((i, side));
            }
        }
        let mut cur: Vec<[Option<u64>; 2]> = vec![[None, None]; picks.len()];
        let mut t = Trace::empty(&picks);
        let (from, to) = cycles.unwrap_or((0, u64::MAX));
        let mut now: Option<u64> = None;
        let sample = |t: &mut Trace, at: u64, cur: &[[Option<u64>; 2]]| {
            if !at.is_multiple_of(10) {
                return;
            }
            let c = at / 10;
            if c < from || c > to {
                return;
            }
            t.cycles.push(c);
            for (row, v) in t.rows.iter_mut().zip(cur) {
                row.model.push(v[0]);
                if let Some(r) = &mut row.rtl {
                    r.push(v[1]);
                }
            }
        };
        for cmd in parser {
            match cmd? {
                vcd::Command::Timestamp(ts) => {
                    if let Some(prev) = now {
                        sample(&mut t, prev, &cur);
                        if prev / 10 > to {
                            now = None;
                            break;
                        }
                    }
                    now = Some(ts);
                }
                vcd::Command::ChangeScalar(id, v) => {
                    if let Some(rows) = follow.get(&id) {
                        let v = bit(v);
                        for &(i, side) in rows {
                            cur[i][side] = v.map(u64::from);
                        }
                    }
                }
                vcd::Command::ChangeVector(id, v) => {
                    if let Some(rows) = follow.get(&id) {
                        for &(i, side) in rows {
                            let p = &picks[i];
                            cur[i][side] = vector_slice(&v, p.lsb, p.width);
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(prev) = now {
            sample(&mut t, prev, &cur);
        }
        Ok(t)
    }
}

fn bit(v: vcd::Value) -> Option<bool> {
    match v {
        vcd::Value::V0 => Some(false),
        vcd::Value::V1 => Some(true),
        _ => None,
    }
}

/// Bits `lsb..lsb + width` of a vector change (most significant first,
/// leading zeros dropped); `None` if one of them is `x` or `z`.
fn vector_slice(v: &vcd::Vector, lsb: u32, width: u32) -> Option<u64> {
    let bits: Vec<vcd::Value> = v.iter().collect();
    let n = bits.len();
    let mut out = 0u64;
    for i in 0..width {
        let k = (lsb + i) as usize;
        if k >= n {
            break;
        }
        match bit(bits[n - 1 - k]) {
            Some(true) => out |= 1 << i,
            Some(false) => {}
            None => return None,
        }
    }
    Some(out)
}

/// What a gpucosim VCD declares: per scope (`in`, `model`, `rtl`,
/// `mismatch`), its variables with their widths, in order (the ports; the
/// decoded signals in scopes below these, and texts, are left out).
#[derive(Debug, Clone, Default)]
pub struct Declared {
    /// `(scope, name, width, code)` of every variable under `tb`.
    pub vars: Vec<(String, String, u32, vcd::IdCode)>,
}

impl Declared {
    fn of(header: &vcd::Header) -> io::Result<Declared> {
        let tb = header
            .items
            .iter()
            .find_map(|i| match i {
                vcd::ScopeItem::Scope(s) if s.identifier == "tb" => Some(s),
                _ => None,
            })
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "not a gpucosim waveform (no scope `tb`)",
                )
            })?;
        let mut vars = Vec::new();
        for i in &tb.items {
            if let vcd::ScopeItem::Scope(s) = i {
                for j in &s.items {
                    // Ports and their elements; not the decoded texts
                    // (`tb.in.instr`), which are not bits.
                    match j {
                        vcd::ScopeItem::Var(v) if v.var_type != vcd::VarType::String => {
                            vars.push((s.identifier.clone(), v.reference.clone(), v.size, v.code));
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(Declared { vars })
    }

    fn code(&self, scope: &str, name: &str) -> Option<vcd::IdCode> {
        self.vars
            .iter()
            .find(|v| v.0 == scope && v.1 == name)
            .map(|v| v.3)
    }

    /// The variables of `scope`: `(name, width)`.
    pub fn of_scope<'a>(&'a self, scope: &'a str) -> impl Iterator<Item = (&'a str, u32)> + 'a {
        self.vars
            .iter()
            .filter(move |v| v.0 == scope)
            .map(|v| (v.1.as_str(), v.2))
    }

    /// A pick of variable `name` of `scope` (`in`, `model`, `rtl`), bits
    /// from `lsb` when wider than 64.
    pub fn pick(&self, scope: &str, name: &str, lsb: u32) -> Option<Pick> {
        let (_, _, width, _) = self.vars.iter().find(|v| v.0 == scope && v.1 == name)?;
        let lsb = if *width > 64 { lsb / 64 * 64 } else { 0 };
        Some(Pick {
            name: name.to_string(),
            input: scope == "in",
            lsb,
            width: (width - lsb.min(*width)).min(64),
            full: *width,
        })
    }
}

/// The first mismatch in a gpucosim VCD, if any: the cycle where
/// `tb.mismatch.any` first rises, and the output ports whose mismatch bit
/// is set then.
pub fn first_mismatch(path: &Path) -> io::Result<Option<(u64, Vec<String>)>> {
    let mut parser = vcd::Parser::new(io::BufReader::with_capacity(
        1 << 20,
        std::fs::File::open(path)?,
    ));
    let header = parser.parse_header()?;
    let declared = Declared::of(&header)?;
    let names: HashMap<vcd::IdCode, &str> = declared
        .vars
        .iter()
        .filter(|v| v.0 == "mismatch")
        .map(|v| (v.3, v.1.as_str()))
        .collect();
    let mut set: Vec<&str> = Vec::new();
    let mut now = 0;
    let mut at = None;
    for cmd in parser {
        match cmd? {
            vcd::Command::Timestamp(t) => {
                if at.is_some() {
                    break;
                }
                now = t;
            }
            vcd::Command::ChangeScalar(id, v) => {
                if let Some(n) = names.get(&id) {
                    let on = v == vcd::Value::V1;
                    if *n == "any" {
                        if on {
                            at = Some(now / 10);
                        }
                    } else if on {
                        set.push(n);
                    } else {
                        set.retain(|s| s != n);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(at.map(|c| (c, set.iter().map(|s| s.to_string()).collect())))
}
