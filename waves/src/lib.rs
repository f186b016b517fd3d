//! Signal capture and waveform output (VCD and FST) for gpucosim.
//!
//! [`Capture`] keeps the last `window` cycles of inputs and of both sides'
//! outputs in one preallocated buffer (a ring; recording a cycle is three
//! `memcpy`s). [`VcdWriter`] turns frames into a VCD that GTKWave or Surfer
//! loads: scope `tb` holds `clk`, `cycle` (an integer), `in.*` (the inputs),
//! `model.*` and `rtl.*` (both sides' outputs side by side) and `mismatch.*`
//! (one bit per compared output, plus `mismatch.any`). Every port has its
//! natural width (the 128-bit V# is one variable); an array port is one
//! variable per element, named as viewers show it (`tb.rtl.lane_addr_o[17]`,
//! declared `lane_addr_o[17] [47:0]`). [`Layout`] lists the variables. Cycle
//! `n` is at time `10n` ns, its rising clock edge at `10n + 5`.
//!
//! [`FstWriter`] writes the same variables to an FST (GTKWave's compressed
//! format, [`WaveFormat::Fst`]). [`Dump`] streams frames into either format
//! and [`write_capture`] writes a capture window; both write to a temporary
//! file beside the target and rename it into place when complete.
//!
//! A layout may add *decoded signals* ([`Signal`], declared in scopes below
//! their group's): the lanes of a mask as one-bit signals
//! ([`Layout::with_signals`]) and the numbers and texts a unit's
//! [`Decoder`] computes from a frame's words ([`Layout::with_decoder`]).
//! The writers compute them frame by frame as they write
//! ([`VcdWriter::with_layout`], [`FstWriter::with_layout`],
//! [`Dump::with_layout`], [`write_capture_with`]); the capture ring holds
//! only the packed words. This crate knows no unit: the decoders live next
//! to each unit's port table in `gpucosim-model`.
//!
//! ```
//! use gpucosim_waves::{Capture, VcdWriter, Meta};
//! gpucosim_model::ports! {
//!     mod toy("toy", "toy_top") { input rst_ni: 1, input d_i: 8 x 2, output q_o: 8 }
//! }
//! let mut cap = Capture::new(&toy::TABLE, 4);
//! for c in 0..6u32 {
//!     cap.record(c as u64, &[1, c], &[c], &[if c == 5 { 9 } else { c }]);
//! }
//! let mut out = Vec::new();
//! let mut w = VcdWriter::new(&mut out, &toy::TABLE, &Meta::default()).unwrap();
//! for f in cap.frames() { w.frame(&f).unwrap(); }
//! w.finish().unwrap();
//!
//! // Read it back.
//! use vcd::{Command, Value};
//! let mut parser = vcd::Parser::new(&out[..]);
//! let header = parser.parse_header().unwrap();
//! let id = |path: &[&str]| header.find_var(path).unwrap().code;
//! let any = id(&["tb", "mismatch", "any"]);
//! let model_q = id(&["tb", "model", "q_o"]);
//! let rtl_q = id(&["tb", "rtl", "q_o"]);
//! let d0 = id(&["tb", "in", "d_i[0]"]); // element 0 of the array port d_i
//! let (mut now, mut stamps, mut rises, mut values) = (0, vec![], vec![], vec![]);
//! for command in parser {
//!     match command.unwrap() {
//!         Command::Timestamp(t) => {
//!             now = t;
//!             stamps.push(t);
//!         }
//!         Command::ChangeScalar(i, Value::V1) if i == any => rises.push(now),
//!         Command::ChangeVector(i, v) => {
//!             let n = v.iter().fold(0, |n, b| n << 1 | u32::from(b == Value::V1));
//!             values.push((now, i, n));
//!         }
//!         _ => {}
//!     }
//! }
//! // The window of 4 holds cycles 2 to 5: each at 10n, its rising edge at 10n + 5.
//! assert_eq!(stamps, [20, 25, 30, 35, 40, 45, 50, 55]);
//! // The outputs differ in cycle 5 only, where the model says 5 and the RTL 9.
//! assert_eq!(rises, [50]);
//! assert!(values.contains(&(50, model_q, 5)) && values.contains(&(50, rtl_q, 9)));
//! assert!(values.contains(&(30, d0, 3)));
//! ```
#![warn(missing_docs)]

pub mod session;
pub mod text;

use gpucosim_model::ports::{get_bits, Dir, PortTable};
use std::fmt;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use vcd::{IdCode, ReferenceIndex, TimescaleUnit, VarType};

#[doc(hidden)]
pub mod fst;
pub use fst::{FstWriter, BLOCK_BYTES};

/// A ring buffer of the last `window` cycles.
pub struct Capture {
    in_words: usize,
    out_words: usize,
    stride: usize,
    window: usize,
    buf: Vec<u32>,
    cycles: Vec<u64>,
    /// Per slot: the model's outputs equal the RTL's, and only the RTL's
    /// were stored (the usual case: a passing cycle costs one copy of the
    /// outputs, not two).
    same: Vec<bool>,
    recorded: u64,
}

/// One captured cycle.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// Cycle number.
    pub cycle: u64,
    /// Packed inputs.
    pub inputs: &'a [u32],
    /// The model's packed outputs.
    pub model: &'a [u32],
    /// The RTL's packed outputs.
    pub rtl: &'a [u32],
}

impl Capture {
    /// A ring of `window` cycles (at least 1) for `table`'s ports.
    pub fn new(table: &PortTable, window: usize) -> Capture {
        Capture::try_new(table, window).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Capture::new`], or an error (`OutOfMemory`) naming the window and
    /// the bytes it needs when they cannot be allocated.
    pub fn try_new(table: &PortTable, window: usize) -> io::Result<Capture> {
        let window = window.max(1);
        let (i, o) = (table.in_words(), table.out_words());
        let stride = i + 2 * o;
        let too_big = || {
            let bytes = (stride as u128 * 4 + 9) * window as u128;
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("a waveform window of {window} cycles needs {bytes} bytes of memory"),
            )
        };
        // `n` copies of `v`, or None when they cannot be allocated.
        fn filled<T: Clone>(n: usize, v: T) -> Option<Vec<T>> {
            let mut x = Vec::new();
            x.try_reserve_exact(n).ok()?;
            x.resize(n, v);
            Some(x)
        }
        let words = stride.checked_mul(window).ok_or_else(too_big)?;
        Ok(Capture {
            in_words: i,
            out_words: o,
            stride,
            window,
            buf: filled(words, 0).ok_or_else(too_big)?,
            cycles: filled(window, 0).ok_or_else(too_big)?,
            same: filled(window, false).ok_or_else(too_big)?,
            recorded: 0,
        })
    }

    /// Window size in cycles.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Records one cycle, overwriting the oldest once the ring is full.
    #[inline]
    pub fn record(&mut self, cycle: u64, inputs: &[u32], model: &[u32], rtl: &[u32]) {
        let same = model[..self.out_words] == rtl[..self.out_words];
        self.record_compared(cycle, inputs, model, rtl, same);
    }

    /// [`Capture::record`] for a caller that has compared the outputs
    /// already: `same` says whether `model` equals `rtl` (then only `rtl`
    /// is copied).
    #[inline]
    pub fn record_compared(
        &mut self,
        cycle: u64,
        inputs: &[u32],
        model: &[u32],
        rtl: &[u32],
        same: bool,
    ) {
        debug_assert_eq!(same, model[..self.out_words] == rtl[..self.out_words]);
        let slot = (self.recorded % self.window as u64) as usize;
        let base = slot * self.stride;
        let (i, o) = (self.in_words, self.out_words);
        let s = &mut self.buf[base..base + self.stride];
        s[..i].copy_from_slice(&inputs[..i]);
        if !same {
            s[i..i + o].copy_from_slice(&model[..o]);
        }
        s[i + o..].copy_from_slice(&rtl[..o]);
        self.cycles[slot] = cycle;
        self.same[slot] = same;
        self.recorded += 1;
    }

    /// Number of frames held.
    pub fn len(&self) -> usize {
        self.recorded.min(self.window as u64) as usize
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.recorded == 0
    }

    /// The frames held, oldest first.
    pub fn frames(&self) -> impl Iterator<Item = Frame<'_>> + '_ {
        let n = self.len();
        let first = self.recorded - n as u64;
        (0..n).map(move |k| {
            let slot = ((first + k as u64) % self.window as u64) as usize;
            let s = &self.buf[slot * self.stride..(slot + 1) * self.stride];
            let (i, o) = (self.in_words, self.out_words);
            let rtl = &s[i + o..];
            Frame {
                cycle: self.cycles[slot],
                inputs: &s[..i],
                model: if self.same[slot] { rtl } else { &s[i..i + o] },
                rtl,
            }
        })
    }
}

/// Header information written as VCD comments.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// Free-form lines (unit, profile, seed, the command that reproduces it).
    pub comments: Vec<String>,
}

pub use gpucosim_model::decode::{Decoder, Group, Kind, Signal, Source, Value};

/// One waveform variable: a port, or one element of an array port, in one
/// group.
#[derive(Debug, Clone)]
pub struct Var {
    /// The group (and so the scope and the buffer).
    pub group: Group,
    /// The port's name.
    pub port: &'static str,
    /// The element of an array port.
    pub elem: Option<u32>,
    /// Width in bits (the port's natural width: a 128-bit V# is one
    /// 128-bit variable).
    pub width: u32,
    /// Word offset of the port in its buffer.
    pub offset: usize,
    /// Bit offset of the variable within the port.
    pub lsb: usize,
}

impl Var {
    /// The variable's name in its scope: `lane_addr_o[17]` for element 17
    /// of `lane_addr_o`, the port's name otherwise.
    pub fn name(&self) -> String {
        match self.elem {
            Some(e) => format!("{}[{e}]", self.port),
            None => self.port.to_string(),
        }
    }

    /// The full path: `tb.model.lane_addr_o[17]`.
    pub fn path(&self) -> String {
        format!("tb.{}.{}", self.group.scope(), self.name())
    }

    /// The variable's value in `buf` (the frame's buffer of its group), as
    /// little-endian 32-bit words.
    pub fn words<'a>(&self, buf: &'a [u32]) -> &'a [u32] {
        debug_assert!(self.lsb.is_multiple_of(32));
        let w = self.offset + self.lsb / 32;
        &buf[w..w + self.width.div_ceil(32) as usize]
    }

    /// The variable's value in `buf` when it is at most 64 bits wide.
    pub fn value(&self, buf: &[u32]) -> u64 {
        get_bits(&buf[self.offset..], self.lsb, self.width.min(64))
    }
}

/// The variables of a port table, in the order the waveforms declare them:
/// `tb.in.*` (inputs), `tb.model.*` and `tb.rtl.*` (outputs), each port in
/// table order and an array port as one variable per element named
/// `port[e]`. After them, the waveforms hold `tb.mismatch.any` and one
/// `tb.mismatch.<port>` bit per output port.
///
/// A layout may also hold decoded signals ([`Layout::derived`]): per-lane
/// bits of masks ([`Source::Bit`], added with [`Layout::with_signals`]) and
/// the signals of a unit's [`Decoder`] ([`Layout::with_decoder`]). Each is
/// declared in its group's scope, below the ports, in scopes of its own
/// (`tb.model.lane_inrange_o.lane32.dword0`); in a VCD their identifier
/// codes follow all the others', so the ports' declarations and value
/// changes are the same bytes with or without them. They are computed only
/// as frames are written.
pub struct Layout {
    /// The value variables.
    pub vars: Vec<Var>,
    /// The output ports: name, word offset and words.
    pub outputs: Vec<(&'static str, usize, usize)>,
    /// The decoded signals, in declaration order.
    pub derived: Vec<Signal>,
    table: PortTable,
    decoder: Option<Box<dyn Decoder>>,
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Layout")
            .field("unit", &self.table.unit)
            .field("vars", &self.vars.len())
            .field("derived", &self.derived.len())
            .field("decoder", &self.decoder.is_some())
            .finish()
    }
}

impl Clone for Layout {
    fn clone(&self) -> Layout {
        Layout {
            vars: self.vars.clone(),
            outputs: self.outputs.clone(),
            derived: self.derived.clone(),
            table: self.table,
            decoder: self.decoder.as_ref().map(|d| d.fresh()),
        }
    }
}

/// A scope of decoded signals as declared: its name and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum Node {
    /// A scope.
    Scope(String, Vec<Node>),
    /// Decoded signal `n` of [`Layout::derived`].
    Signal(usize),
}

/// Where a decoded signal's value is, resolved for a writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Resolved {
    /// Bit `bit` (counted from bit 0 of the buffer) of the group's buffer;
    /// the port is at words `port` of it.
    Bit {
        group: Group,
        bit: usize,
        port: (usize, usize),
    },
    /// Value `n` of the decoder.
    Computed(usize),
}

fn invalid_input(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

impl Layout {
    /// The layout of `table`'s ports.
    pub fn new(table: &PortTable) -> Layout {
        let mut vars = Vec::new();
        for group in [Group::In, Group::Model, Group::Rtl] {
            let dir = if group == Group::In {
                Dir::In
            } else {
                Dir::Out
            };
            for (d, p) in table.of(dir) {
                if d.elems > 1 {
                    for e in 0..d.elems {
                        vars.push(Var {
                            group,
                            port: d.name,
                            elem: Some(e),
                            width: d.elem_width,
                            offset: p.offset,
                            lsb: (e * d.elem_width) as usize,
                        });
                    }
                } else {
                    vars.push(Var {
                        group,
                        port: d.name,
                        elem: None,
                        width: d.width(),
                        offset: p.offset,
                        lsb: 0,
                    });
                }
            }
        }
        let outputs = table
            .of(Dir::Out)
            .map(|(d, p)| (d.name, p.offset, p.words()))
            .collect();
        Layout {
            vars,
            outputs,
            derived: Vec::new(),
            table: *table,
            decoder: None,
        }
    }

    /// The port table.
    pub fn table(&self) -> &PortTable {
        &self.table
    }

    /// Adds decoded signals read straight from the ports ([`Source::Bit`]:
    /// one lane of a mask). Fails with [`io::ErrorKind::InvalidInput`] for a
    /// signal that is computed, names a port its group does not have or a
    /// bit past the port, or has a path taken.
    pub fn with_signals(mut self, signals: Vec<Signal>) -> io::Result<Layout> {
        for s in &signals {
            match s.source {
                Source::Bit { .. } => {
                    self.resolve_bit(s)?;
                }
                Source::Computed(_) => {
                    return Err(invalid_input(format!(
                        "{}: a computed signal comes with its decoder",
                        s.path()
                    )))
                }
            }
        }
        self.add(signals)?;
        Ok(self)
    }

    /// Adds the signals of `decoder`, which computes them as frames are
    /// written (each writer runs a [`Decoder::fresh`] one of its own).
    /// Fails with [`io::ErrorKind::InvalidInput`] if the layout has a
    /// decoder already, or a signal is not computed, has an index past the
    /// decoder's signals or a path taken.
    pub fn with_decoder(mut self, decoder: Box<dyn Decoder>) -> io::Result<Layout> {
        if self.decoder.is_some() {
            return Err(invalid_input("the layout has a decoder already".into()));
        }
        let signals = decoder.signals();
        for (k, s) in signals.iter().enumerate() {
            if s.source != Source::Computed(k) {
                return Err(invalid_input(format!(
                    "{}: decoder signal {k} is not `Computed({k})`",
                    s.path()
                )));
            }
        }
        self.add(signals)?;
        self.decoder = Some(decoder);
        Ok(self)
    }

    fn add(&mut self, signals: Vec<Signal>) -> io::Result<()> {
        let mut taken: std::collections::HashSet<String> = self
            .vars
            .iter()
            .map(Var::path)
            .chain(self.derived.iter().map(Signal::path))
            .collect();
        for s in &signals {
            let w = s.kind.width();
            if w > 64 || (w == 0 && s.kind != Kind::Text) {
                return Err(invalid_input(format!(
                    "{}: {w} bits (1 to 64 wanted)",
                    s.path()
                )));
            }
            if let Some(bad) = s.scope.iter().chain([&s.name]).find(|n| {
                !n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') || n.is_empty()
            }) {
                return Err(invalid_input(format!(
                    "{}: `{bad}` is not a plain name",
                    s.path()
                )));
            }
            if !taken.insert(s.path()) {
                return Err(invalid_input(format!("{} is declared twice", s.path())));
            }
        }
        self.derived.extend(signals);
        Ok(())
    }

    fn resolve_bit(&self, s: &Signal) -> io::Result<Resolved> {
        let Source::Bit { port, bit } = s.source else {
            return Err(invalid_input(format!("{} is computed", s.path())));
        };
        let dir = if s.group == Group::In {
            Dir::In
        } else {
            Dir::Out
        };
        match self.table.find(port) {
            Some((d, p)) if d.dir == dir && bit < d.width() => Ok(Resolved::Bit {
                group: s.group,
                bit: p.offset * 32 + bit as usize,
                port: (p.offset, p.words()),
            }),
            _ => Err(invalid_input(format!(
                "{}: {} has no port {port} with a bit {bit}",
                s.path(),
                s.group.scope()
            ))),
        }
    }

    /// Where each decoded signal's value is.
    pub(crate) fn resolved(&self) -> Vec<Resolved> {
        self.derived
            .iter()
            .map(|s| match s.source {
                Source::Computed(n) => Resolved::Computed(n),
                // Checked when added.
                Source::Bit { .. } => self
                    .resolve_bit(s)
                    .unwrap_or(Resolved::Computed(usize::MAX)),
            })
            .collect()
    }

    /// A decoder of its own for one writer, if the layout has one.
    pub(crate) fn new_decoder(&self) -> Option<Box<dyn Decoder>> {
        self.decoder.as_ref().map(|d| d.fresh())
    }

    /// How many values the decoder writes per frame.
    pub(crate) fn decoder_values(&self) -> usize {
        self.derived
            .iter()
            .filter_map(|s| match s.source {
                Source::Computed(n) => Some(n + 1),
                Source::Bit { .. } => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The decoded signals of `group` as scopes to declare, each scope
    /// where its first signal is, its signals in order.
    pub(crate) fn derived_tree(&self, group: Group) -> Vec<Node> {
        fn insert(level: &mut Vec<Node>, path: &[String], k: usize) {
            let Some((name, rest)) = path.split_first() else {
                level.push(Node::Signal(k));
                return;
            };
            let at = level
                .iter()
                .position(|n| matches!(n, Node::Scope(m, _) if m == name));
            let i = at.unwrap_or_else(|| {
                level.push(Node::Scope(name.clone(), Vec::new()));
                level.len() - 1
            });
            if let Node::Scope(_, children) = &mut level[i] {
                insert(children, rest, k);
            }
        }
        let mut root: Vec<Node> = Vec::new();
        for (k, s) in self.derived.iter().enumerate() {
            if s.group == group {
                insert(&mut root, &s.scope, k);
            }
        }
        root
    }

    /// The decoded signal at `path` (`tb.model.lane_inrange_o.lane32.dword0`).
    pub fn find_derived(&self, path: &str) -> Option<&Signal> {
        self.derived.iter().find(|s| s.path() == path)
    }
}

/// A decoded value as a writer keeps it between frames.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum Held {
    Num(u64),
    Unknown,
    Text(Vec<u8>),
}

impl Held {
    /// The value `v` of a signal of `kind` (`Keep` resolved by the caller).
    pub(crate) fn of(v: &Value, kind: Kind) -> Held {
        let mask = |x: u64| match kind.width() {
            64 => x,
            w => x & ((1 << w) - 1),
        };
        match (kind, v) {
            (Kind::Text, Value::Text(t)) if !t.is_empty() => Held::Text(t.as_bytes().to_vec()),
            (Kind::Text, Value::Text(_)) => Held::Text(b"-".to_vec()),
            (Kind::Text, Value::Num(n)) => Held::Text(n.to_string().into_bytes()),
            (Kind::Text, _) => Held::Text(b"?".to_vec()),
            (_, Value::Num(n)) => Held::Num(mask(*n)),
            (_, _) => Held::Unknown,
        }
    }

    /// Whether `v` (not `Keep`) is this value.
    pub(crate) fn same(&self, v: &Value, kind: Kind) -> bool {
        match (self, v) {
            (Held::Num(a), Value::Num(_)) => Held::of(v, kind) == Held::Num(*a),
            (Held::Unknown, Value::Unknown) => kind != Kind::Text,
            (Held::Text(a), Value::Text(b)) => a.as_slice() == b.as_bytes() && !b.is_empty(),
            _ => false,
        }
    }
}

/// A text as a VCD `string` value: one token, with a space, a backslash
/// and anything not printable ASCII escaped (`\x20`), as GTKWave and
/// wellen read them.
fn vcd_text(t: &[u8]) -> Vec<u8> {
    let mut s = Vec::with_capacity(t.len() + 8);
    for &b in t {
        match b {
            b'\\' => s.extend_from_slice(b"\\\\"),
            0x21..=0x7e => s.push(b),
            _ => s.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
        }
    }
    if s.is_empty() {
        s.push(b'-');
    }
    s
}

/// A variable as the writer tracks it.
struct VarRef {
    /// The identifier code as written after a value.
    code: Box<[u8]>,
    group: Group,
    /// Word offset of the port in its buffer.
    offset: usize,
    /// Bit offset of the element within the port.
    lsb: usize,
    width: u32,
    /// Previous value written (for change detection); `None` before the
    /// first. Variables wider than 64 bits keep theirs in `wide`.
    last: Option<u64>,
    /// Previous value of a variable wider than 64 bits.
    wide: Vec<u32>,
}

/// The bits of one port shown as decoded one-bit signals (lanes of a mask).
struct BitsRef {
    group: Group,
    /// Words of the port in its buffer.
    words: std::ops::Range<usize>,
    /// The port's words in the previous frame (`None` before the first).
    last: Option<Vec<u32>>,
    /// Per bit of the port's words, the code of its signal, if it has one.
    codes: Vec<Option<Code>>,
}

/// A computed decoded signal as the VCD writer tracks it.
struct CompRef {
    code: Code,
    kind: Kind,
    /// Its value of the decoder.
    n: usize,
    last: Option<Held>,
}

/// What a writer needs to write the decoded signals of a layout: its
/// decoder and the decoder's values of the current frame.
#[doc(hidden)]
pub struct Decoding {
    decoder: Box<dyn Decoder>,
    values: Vec<Value>,
}

impl Decoding {
    pub(crate) fn new(layout: &Layout) -> Option<Decoding> {
        Some(Decoding {
            decoder: layout.new_decoder()?,
            values: vec![Value::Keep; layout.decoder_values()],
        })
    }

    /// Decodes one frame; returns its values.
    pub(crate) fn run(&mut self, inputs: &[u32], model: &[u32], rtl: &[u32]) -> &[Value] {
        self.decoder.decode(inputs, model, rtl, &mut self.values);
        &self.values
    }
}

/// Streams frames into a VCD.
pub struct VcdWriter<W: Write> {
    w: vcd::Writer<W>,
    vars: Vec<VarRef>,
    /// Per output port: (id code, offset, words, last value).
    mism: Vec<(Code, usize, usize, Option<bool>)>,
    any: Box<[u8]>,
    any_last: Option<bool>,
    clk: Box<[u8]>,
    cycle_id: Box<[u8]>,
    /// Decoded lane bits, per port.
    bits: Vec<BitsRef>,
    /// Computed decoded signals and their decoder.
    comps: Vec<CompRef>,
    decoding: Option<Decoding>,
    /// One frame's value changes, written with one call.
    scratch: Vec<u8>,
}

/// An identifier code as the bytes written after a value.
type Code = Box<[u8]>;

/// The bytes of an identifier code.
#[doc(hidden)]
pub fn code(id: IdCode) -> Code {
    id.to_string().into_bytes().into_boxed_slice()
}

/// How a decoded signal is declared in a VCD: type, width and index.
fn vcd_decl(kind: Kind) -> (VarType, u32, Option<ReferenceIndex>) {
    match kind {
        Kind::Bits(w) => (
            VarType::Wire,
            w,
            (w > 1).then(|| ReferenceIndex::Range(w as i32 - 1, 0)),
        ),
        Kind::Int(w) => (VarType::Integer, w, None),
        Kind::Text => (VarType::String, 1, None),
    }
}

impl<W: Write> VcdWriter<W> {
    /// Writes the header for `table`'s ports.
    pub fn new(out: W, table: &PortTable, meta: &Meta) -> io::Result<Self> {
        Self::with_layout(out, &Layout::new(table), meta)
    }

    /// Writes the header for `layout`: its ports, then its decoded signals.
    pub fn with_layout(out: W, layout: &Layout, meta: &Meta) -> io::Result<Self> {
        let mut w = vcd::Writer::new(out);
        for c in &meta.comments {
            w.comment(c)?;
        }
        w.timescale(1, TimescaleUnit::NS)?;
        // Identifier codes: the ports' first, in declaration order (as
        // without decoded signals), then the decoded signals'.
        let id = |n: usize| IdCode::from(n as u32);
        let ports_end = 2 + layout.vars.len() + 1 + layout.outputs.len();
        let mut next_derived = ports_end;
        let mut derived_code: Vec<Option<Code>> = vec![None; layout.derived.len()];
        w.add_module("tb")?;
        w.var_def(VarType::Wire, 1, id(0), "clk", None)?;
        w.var_def(VarType::Integer, 64, id(1), "cycle", None)?;
        let mut vars = Vec::new();
        for group in [Group::In, Group::Model, Group::Rtl] {
            let tree = layout.derived_tree(group);
            let mine: Vec<(usize, &Var)> = layout
                .vars
                .iter()
                .enumerate()
                .filter(|(_, v)| v.group == group)
                .collect();
            if mine.is_empty() && tree.is_empty() {
                continue;
            }
            w.add_module(group.scope())?;
            for (k, v) in mine {
                // `name [msb:0]`, as simulators write vectors, so that viewers
                // show `lane_addr_o[17][47:0]`.
                let index = (v.width > 1).then(|| ReferenceIndex::Range(v.width as i32 - 1, 0));
                let i = id(2 + k);
                w.var_def(VarType::Wire, v.width, i, &v.name(), index)?;
                vars.push(VarRef {
                    code: code(i),
                    group: v.group,
                    offset: v.offset,
                    lsb: v.lsb,
                    width: v.width,
                    last: None,
                    wide: Vec::new(),
                });
            }
            fn declare<W: Write>(
                w: &mut vcd::Writer<W>,
                layout: &Layout,
                nodes: &[Node],
                next: &mut usize,
                codes: &mut [Option<Code>],
            ) -> io::Result<()> {
                for n in nodes {
                    match n {
                        Node::Scope(name, children) => {
                            w.add_module(name)?;
                            declare(w, layout, children, next, codes)?;
                            w.upscope()?;
                        }
                        Node::Signal(k) => {
                            let s = &layout.derived[*k];
                            let (ty, width, index) = vcd_decl(s.kind);
                            let i = IdCode::from(*next as u32);
                            *next += 1;
                            w.var_def(ty, width, i, &s.name, index)?;
                            codes[*k] = Some(code(i));
                        }
                    }
                }
                Ok(())
            }
            declare(&mut w, layout, &tree, &mut next_derived, &mut derived_code)?;
            w.upscope()?;
        }
        w.add_module("mismatch")?;
        let any = id(2 + layout.vars.len());
        w.var_def(VarType::Wire, 1, any, "any", None)?;
        let mut mism = Vec::new();
        for (k, (name, offset, words)) in layout.outputs.iter().enumerate() {
            let i = id(3 + layout.vars.len() + k);
            w.var_def(VarType::Wire, 1, i, name, None)?;
            mism.push((code(i), *offset, *words, None));
        }
        w.upscope()?;
        w.upscope()?;
        w.enddefinitions()?;
        let mut bits: Vec<BitsRef> = Vec::new();
        let mut comps = Vec::new();
        for (k, r) in layout.resolved().into_iter().enumerate() {
            let Some(c) = derived_code[k].take() else {
                continue;
            };
            match r {
                Resolved::Bit { group, bit, port } => {
                    let words = port.0..port.0 + port.1;
                    let at = match bits
                        .iter()
                        .position(|b| b.group == group && b.words == words)
                    {
                        Some(i) => i,
                        None => {
                            bits.push(BitsRef {
                                group,
                                words,
                                last: None,
                                codes: vec![None; 32 * port.1],
                            });
                            bits.len() - 1
                        }
                    };
                    bits[at].codes[bit - 32 * port.0] = Some(c);
                }
                Resolved::Computed(n) => comps.push(CompRef {
                    code: c,
                    kind: layout.derived[k].kind,
                    n,
                    last: None,
                }),
            }
        }
        let decoding = if comps.is_empty() {
            None
        } else {
            Decoding::new(layout)
        };
        Ok(VcdWriter {
            w,
            vars,
            mism,
            any: code(any),
            any_last: None,
            clk: code(id(0)),
            cycle_id: code(id(1)),
            bits,
            comps,
            decoding,
            scratch: Vec::with_capacity(1 << 16),
        })
    }

    /// Writes one cycle: values at `10 * cycle`, the rising edge at `+5`.
    pub fn frame(&mut self, f: &Frame<'_>) -> io::Result<()> {
        let t = f.cycle * 10;
        self.w.timestamp(t)?;
        let s = &mut self.scratch;
        s.clear();
        scalar(s, &self.clk, false);
        vector(s, &self.cycle_id, f.cycle, 64);
        for v in &mut self.vars {
            let buf = match v.group {
                Group::In => f.inputs,
                Group::Model => f.model,
                Group::Rtl => f.rtl,
            };
            if v.width <= 64 {
                let val = get_bits(&buf[v.offset..], v.lsb, v.width);
                if v.last != Some(val) {
                    v.last = Some(val);
                    vector(s, &v.code, val, v.width);
                }
            } else {
                let w = v.offset + v.lsb / 32;
                let words = &buf[w..w + v.width.div_ceil(32) as usize];
                if v.last.is_none() || v.wide != words {
                    v.last = Some(0);
                    v.wide.clear();
                    v.wide.extend_from_slice(words);
                    wide_vector(s, &v.code, words);
                }
            }
        }
        let mut any = false;
        for (id, off, n, last) in &mut self.mism {
            let m = f.model[*off..*off + *n] != f.rtl[*off..*off + *n];
            any |= m;
            if *last != Some(m) {
                *last = Some(m);
                scalar(s, id, m);
            }
        }
        if self.any_last != Some(any) {
            self.any_last = Some(any);
            scalar(s, &self.any, any);
        }
        // Decoded signals: the lanes of a mask that changed (all in the
        // first frame), then the decoder's values that changed.
        for b in &mut self.bits {
            let buf = match b.group {
                Group::In => f.inputs,
                Group::Model => f.model,
                Group::Rtl => f.rtl,
            };
            let now = &buf[b.words.clone()];
            let last = b.last.as_deref();
            if last == Some(now) {
                continue;
            }
            for (w, &word) in now.iter().enumerate() {
                let mut diff = last.map_or(u32::MAX, |l| l[w] ^ word);
                while diff != 0 {
                    let i = diff.trailing_zeros() as usize;
                    diff &= diff - 1;
                    if let Some(c) = &b.codes[32 * w + i] {
                        scalar(s, c, word >> i & 1 != 0);
                    }
                }
            }
            match &mut b.last {
                Some(l) => l.copy_from_slice(now),
                None => b.last = Some(now.to_vec()),
            }
        }
        if let Some(d) = &mut self.decoding {
            let values = d.run(f.inputs, f.model, f.rtl);
            for c in &mut self.comps {
                let Some(v) = values.get(c.n) else {
                    continue;
                };
                let held = match (v, &c.last) {
                    (Value::Keep, Some(_)) => continue,
                    (Value::Keep, None) => Held::of(&Value::Unknown, c.kind),
                    (v, Some(l)) if l.same(v, c.kind) => continue,
                    (v, _) => Held::of(v, c.kind),
                };
                held_change(s, &c.code, &held, c.kind);
                c.last = Some(held);
            }
        }
        self.w.writer().write_all(s)?;
        self.w.timestamp(t + 5)?;
        s.clear();
        scalar(s, &self.clk, true);
        self.w.writer().write_all(s)
    }

    /// Flushes the underlying writer.
    pub fn finish(mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Appends the change of a decoded signal of `kind` to `held`.
fn held_change(s: &mut Vec<u8>, code: &[u8], held: &Held, kind: Kind) {
    match held {
        Held::Num(v) => vector(s, code, *v, kind.width()),
        Held::Unknown if kind.width() == 1 => {
            s.push(b'x');
            s.extend_from_slice(code);
            s.push(b'\n');
        }
        Held::Unknown => {
            s.extend_from_slice(b"bx ");
            s.extend_from_slice(code);
            s.push(b'\n');
        }
        Held::Text(t) => {
            s.push(b's');
            s.extend_from_slice(&vcd_text(t));
            s.push(b' ');
            s.extend_from_slice(code);
            s.push(b'\n');
        }
    }
}

/// Appends a vector change of a value given as little-endian words,
/// `b<bits> <id>` with leading zeros dropped.
#[doc(hidden)]
pub fn wide_vector(s: &mut Vec<u8>, code: &[u8], words: &[u32]) {
    s.push(b'b');
    let top = words.iter().rposition(|&w| w != 0);
    match top {
        None => s.push(b'0'),
        Some(t) => {
            let n = 32 - words[t].leading_zeros() as usize;
            for i in (0..n).rev() {
                s.push(b'0' + (words[t] >> i & 1) as u8);
            }
            for w in words[..t].iter().rev() {
                for i in (0..32).rev() {
                    s.push(b'0' + (w >> i & 1) as u8);
                }
            }
        }
    }
    s.push(b' ');
    s.extend_from_slice(code);
    s.push(b'\n');
}

/// Appends a scalar change, `0<id>` or `1<id>`, as the `vcd` crate writes it.
#[inline]
fn scalar(s: &mut Vec<u8>, code: &[u8], v: bool) {
    s.push(if v { b'1' } else { b'0' });
    s.extend_from_slice(code);
    s.push(b'\n');
}

/// Appends a vector change, `b<bits> <id>` (leading zeros implied), or a
/// scalar change for a one-bit variable.
#[inline]
#[doc(hidden)]
pub fn vector(s: &mut Vec<u8>, code: &[u8], v: u64, width: u32) {
    if width == 1 {
        return scalar(s, code, v & 1 != 0);
    }
    let n = if v == 0 {
        1
    } else {
        64 - v.leading_zeros() as usize
    };
    // Most significant bit first, into a fixed buffer (no per-bit growth).
    let mut bits = [0u8; 66];
    bits[0] = b'b';
    for (i, c) in bits[1..=n].iter_mut().enumerate() {
        *c = b'0' + (v >> (n - 1 - i) & 1) as u8;
    }
    bits[n + 1] = b' ';
    s.extend_from_slice(&bits[..n + 2]);
    s.extend_from_slice(code);
    s.push(b'\n');
}

/// A new temporary file in `path`'s directory (created if need be), to be
/// renamed to `path` once complete; 0666 less the umask, like any other file
/// the user writes.
pub(crate) fn temp_file_for(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    tempfile::Builder::new()
        .prefix(".gpucosim-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
}

/// The format of a waveform file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WaveFormat {
    /// Value change dump (text; IEEE 1364).
    #[default]
    Vcd,
    /// GTKWave's compressed format.
    Fst,
}

impl WaveFormat {
    /// Every format.
    pub const ALL: [WaveFormat; 2] = [WaveFormat::Vcd, WaveFormat::Fst];

    /// The format's name and file extension: `vcd`, `fst`.
    pub fn extension(self) -> &'static str {
        match self {
            WaveFormat::Vcd => "vcd",
            WaveFormat::Fst => "fst",
        }
    }
}

impl std::fmt::Display for WaveFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.extension())
    }
}

impl std::str::FromStr for WaveFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        WaveFormat::ALL
            .into_iter()
            .find(|w| w.extension() == s)
            .ok_or_else(|| format!("unknown waveform format `{s}` (expected vcd or fst)"))
    }
}

/// A waveform file being written frame by frame, in either format, at a
/// path it takes only when complete: frames go to a temporary file in the
/// same directory, which [`Dump::finish`] renames into place. Dropped
/// unfinished (or after an error), it leaves nothing behind.
pub struct Dump {
    kind: DumpKind,
}

// One per run: the size of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum DumpKind {
    Vcd {
        w: VcdWriter<io::BufWriter<File>>,
        tmp: tempfile::TempPath,
        path: PathBuf,
    },
    Fst(FstWriter),
}

impl Dump {
    /// Starts the waveform of `table`'s ports at `path` in `format`,
    /// creating its directory if need be.
    pub fn create(
        path: &Path,
        table: &PortTable,
        meta: &Meta,
        format: WaveFormat,
    ) -> io::Result<Dump> {
        Dump::with_layout(path, &Layout::new(table), meta, format)
    }

    /// Starts the waveform of `layout` (its ports and decoded signals) at
    /// `path` in `format`, creating its directory if need be.
    pub fn with_layout(
        path: &Path,
        layout: &Layout,
        meta: &Meta,
        format: WaveFormat,
    ) -> io::Result<Dump> {
        let kind = match format {
            WaveFormat::Vcd => {
                let (file, tmp) = temp_file_for(path)?.into_parts();
                let out = io::BufWriter::with_capacity(1 << 20, file);
                let w = VcdWriter::with_layout(out, layout, meta)?;
                DumpKind::Vcd {
                    w,
                    tmp,
                    path: path.to_path_buf(),
                }
            }
            WaveFormat::Fst => DumpKind::Fst(FstWriter::with_layout(path, layout, meta)?),
        };
        Ok(Dump { kind })
    }

    /// The path the file takes when finished.
    pub fn path(&self) -> &Path {
        match &self.kind {
            DumpKind::Vcd { path, .. } => path,
            DumpKind::Fst(w) => w.path(),
        }
    }

    /// Writes one cycle (see [`VcdWriter::frame`]).
    #[inline]
    pub fn frame(&mut self, f: &Frame<'_>) -> io::Result<()> {
        match &mut self.kind {
            DumpKind::Vcd { w, .. } => w.frame(f),
            DumpKind::Fst(w) => w.frame(f),
        }
    }

    /// Completes the file and renames it into place.
    pub fn finish(self) -> io::Result<()> {
        match self.kind {
            DumpKind::Vcd { w, tmp, path } => {
                w.finish()?;
                tmp.persist(&path).map_err(|e| e.error)?;
                Ok(())
            }
            DumpKind::Fst(w) => w.finish(),
        }
    }
}

/// Writes the frames of `capture` at `path` in `format`, atomically (a
/// temporary file in the same directory, renamed into place).
pub fn write_capture(
    path: &Path,
    table: &PortTable,
    capture: &Capture,
    meta: &Meta,
    format: WaveFormat,
) -> io::Result<()> {
    write_capture_with(path, &Layout::new(table), capture, meta, format)
}

/// [`write_capture`] with the variables of `layout`: its ports and its
/// decoded signals, computed frame by frame as they are written.
pub fn write_capture_with(
    path: &Path,
    layout: &Layout,
    capture: &Capture,
    meta: &Meta,
    format: WaveFormat,
) -> io::Result<()> {
    let mut d = Dump::with_layout(path, layout, meta, format)?;
    for f in capture.frames() {
        d.frame(&f)?;
    }
    d.finish()
}
