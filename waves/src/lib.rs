//! Signal capture and VCD output for gpucosim.
//!
//! [`Capture`] keeps the last `window` cycles of inputs and of both sides'
//! outputs in one preallocated buffer (a ring; recording a cycle is three
//! `memcpy`s). [`VcdWriter`] turns frames into a VCD that GTKWave or Surfer
//! loads: scope `tb` holds `clk`, `cycle`, `in.*` (the inputs), `model.*` and
//! `rtl.*` (both sides' outputs side by side) and `mismatch.*` (one bit per
//! compared output, plus `mismatch.any`). Array ports become a scope with one
//! variable per element (`tb.rtl.lane_addr_o.017`). Cycle `n` is at time
//! `10n` ns, its rising clock edge at `10n + 5`.
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
//! let d0 = id(&["tb", "in", "d_i", "0"]); // element 0 of the array port d_i
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

use gpucosim_model::ports::{get_bits, Dir, PortTable};
use std::io::{self, Write};
use std::path::Path;
use vcd::{IdCode, TimescaleUnit};

/// A ring buffer of the last `window` cycles.
pub struct Capture {
    in_words: usize,
    out_words: usize,
    stride: usize,
    window: usize,
    buf: Vec<u32>,
    cycles: Vec<u64>,
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
        let window = window.max(1);
        let (i, o) = (table.in_words(), table.out_words());
        let stride = i + 2 * o;
        Capture {
            in_words: i,
            out_words: o,
            stride,
            window,
            buf: vec![0; stride * window],
            cycles: vec![0; window],
            recorded: 0,
        }
    }

    /// Window size in cycles.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Records one cycle, overwriting the oldest once the ring is full.
    #[inline]
    pub fn record(&mut self, cycle: u64, inputs: &[u32], model: &[u32], rtl: &[u32]) {
        let slot = (self.recorded % self.window as u64) as usize;
        let base = slot * self.stride;
        let (i, o) = (self.in_words, self.out_words);
        let s = &mut self.buf[base..base + self.stride];
        s[..i].copy_from_slice(&inputs[..i]);
        s[i..i + o].copy_from_slice(&model[..o]);
        s[i + o..].copy_from_slice(&rtl[..o]);
        self.cycles[slot] = cycle;
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
            Frame {
                cycle: self.cycles[slot],
                inputs: &s[..i],
                model: &s[i..i + o],
                rtl: &s[i + o..],
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

/// One VCD variable: a port element in one of the value groups.
struct VarRef {
    /// The identifier code as written after a value.
    code: Box<[u8]>,
    /// Word offset of the port in its buffer.
    offset: usize,
    /// Bit offset of the element within the port.
    lsb: usize,
    width: u32,
    /// Previous value written (for change detection); `None` before the first.
    last: Option<u64>,
}

enum Group {
    In,
    Model,
    Rtl,
}

/// Streams frames into a VCD.
pub struct VcdWriter<W: Write> {
    w: vcd::Writer<W>,
    vars: Vec<(Group, VarRef)>,
    /// Per output port: (id code, offset, words, last value).
    mism: Vec<(Code, usize, usize, Option<bool>)>,
    any: Box<[u8]>,
    any_last: Option<bool>,
    clk: Box<[u8]>,
    cycle_id: Box<[u8]>,
    /// One frame's value changes, written with one call.
    scratch: Vec<u8>,
}

/// An identifier code as the bytes written after a value.
type Code = Box<[u8]>;

/// The bytes of an identifier code.
fn code(id: IdCode) -> Code {
    id.to_string().into_bytes().into_boxed_slice()
}

impl<W: Write> VcdWriter<W> {
    /// Writes the header for `table`'s ports.
    pub fn new(out: W, table: &PortTable, meta: &Meta) -> io::Result<Self> {
        let mut w = vcd::Writer::new(out);
        for c in &meta.comments {
            w.comment(c)?;
        }
        w.timescale(1, TimescaleUnit::NS)?;
        w.add_module("tb")?;
        let clk = w.add_wire(1, "clk")?;
        let cycle_id = w.add_wire(64, "cycle")?;
        let mut vars = Vec::new();
        for (scope, dir) in [("in", Dir::In), ("model", Dir::Out), ("rtl", Dir::Out)] {
            w.add_module(scope)?;
            for (d, p) in table.of(dir) {
                let group = match scope {
                    "in" => Group::In,
                    "model" => Group::Model,
                    _ => Group::Rtl,
                };
                // Wide scalar ports are split into 64-bit chunks so values
                // stay in a u64; arrays into their elements.
                if d.elems > 1 && d.elem_width <= 64 {
                    w.add_module(d.name)?;
                    let digits = (d.elems - 1).to_string().len();
                    for e in 0..d.elems {
                        let id = w.add_wire(d.elem_width, &format!("{e:0digits$}"))?;
                        vars.push((
                            group_clone(&group),
                            VarRef {
                                code: code(id),
                                offset: p.offset,
                                lsb: (e * d.elem_width) as usize,
                                width: d.elem_width,
                                last: None,
                            },
                        ));
                    }
                    w.upscope()?;
                } else if d.width() <= 64 {
                    let id = w.add_wire(d.width(), d.name)?;
                    vars.push((
                        group,
                        VarRef {
                            code: code(id),
                            offset: p.offset,
                            lsb: 0,
                            width: d.width(),
                            last: None,
                        },
                    ));
                } else {
                    w.add_module(d.name)?;
                    let chunks = d.width().div_ceil(64);
                    for c in 0..chunks {
                        let width = (d.width() - 64 * c).min(64);
                        let name = format!("bits_{}_{}", 64 * c + width - 1, 64 * c);
                        let id = w.add_wire(width, &name)?;
                        vars.push((
                            group_clone(&group),
                            VarRef {
                                code: code(id),
                                offset: p.offset,
                                lsb: 64 * c as usize,
                                width,
                                last: None,
                            },
                        ));
                    }
                    w.upscope()?;
                }
            }
            w.upscope()?;
        }
        w.add_module("mismatch")?;
        let any = w.add_wire(1, "any")?;
        let mut mism = Vec::new();
        for (d, p) in table.of(Dir::Out) {
            let id = w.add_wire(1, d.name)?;
            mism.push((code(id), p.offset, p.words(), None));
        }
        w.upscope()?;
        w.upscope()?;
        w.enddefinitions()?;
        Ok(VcdWriter {
            w,
            vars,
            mism,
            any: code(any),
            any_last: None,
            clk: code(clk),
            cycle_id: code(cycle_id),
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
        for (g, v) in &mut self.vars {
            let buf = match g {
                Group::In => f.inputs,
                Group::Model => f.model,
                Group::Rtl => f.rtl,
            };
            let val = get_bits(&buf[v.offset..], v.lsb, v.width);
            if v.last != Some(val) {
                v.last = Some(val);
                vector(s, &v.code, val, v.width);
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

fn group_clone(g: &Group) -> Group {
    match g {
        Group::In => Group::In,
        Group::Model => Group::Model,
        Group::Rtl => Group::Rtl,
    }
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
fn vector(s: &mut Vec<u8>, code: &[u8], v: u64, width: u32) {
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

/// Writes the frames of `capture` as a VCD at `path`, atomically (a
/// temporary file in the same directory, renamed into place).
pub fn write_capture(
    path: &Path,
    table: &PortTable,
    capture: &Capture,
    meta: &Meta,
) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // 0666 less the umask, like any other file the user writes.
    let tmp = tempfile::Builder::new()
        .prefix(".gpucosim-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)?;
    {
        let mut w = VcdWriter::new(
            io::BufWriter::with_capacity(1 << 20, tmp.as_file()),
            table,
            meta,
        )?;
        for f in capture.frames() {
            w.frame(&f)?;
        }
        w.finish()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Value changes are byte-for-byte what the `vcd` crate writes: fails if
    /// the hand-written fast path drifts from the format.
    #[test]
    fn value_changes_match_the_vcd_crate() {
        let id = IdCode::from(93u32);
        for (v, width) in [
            (0u64, 8u32),
            (5, 8),
            (1, 1),
            (0, 1),
            (u64::MAX, 64),
            (1 << 47, 48),
        ] {
            let mut ours = Vec::new();
            vector(&mut ours, &code(id), v, width);
            let mut theirs = vcd::Writer::new(Vec::new());
            if width == 1 {
                theirs.change_scalar(id, bit(v & 1 != 0)).unwrap();
            } else {
                let n = if v == 0 { 1 } else { 64 - v.leading_zeros() };
                let bits = (0..n).rev().map(|i| bit(v >> i & 1 != 0));
                theirs.change_vector(id, bits).unwrap();
            }
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                String::from_utf8(theirs.writer().clone()).unwrap(),
                "value {v:#x} width {width}"
            );
        }
    }

    fn bit(b: bool) -> vcd::Value {
        if b {
            vcd::Value::V1
        } else {
            vcd::Value::V0
        }
    }
}
