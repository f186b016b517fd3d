//! FST output: the variables, names, widths and timing of the VCD in
//! GTKWave's compressed format, a fraction of the size.
//!
//! [`FstWriter`] declares what [`VcdWriter`](crate::VcdWriter) declares —
//! scope `tb` with `clk`, the integer `cycle` and the scopes `in`, `model`,
//! `rtl` and `mismatch` — under the same names; a vector is named as
//! GTKWave's `vcd2fst` names it, reference and range (`lane_addr_o[17]
//! [47:0]`, which viewers show as `lane_addr_o[17][47:0]`). Cycle `n` is at
//! time `10n` ns, its rising edge at `10n + 5`; the file starts at the first
//! frame written.
//!
//! The writer is built for whole-run dumps: `frame` only copies the frame's
//! packed words into a batch; a second thread finds the changes on the
//! packed words, packs each changed value one bit per bit straight from them
//! (the format's two-state encoding), and writes a block whenever the
//! changes held reach [`BLOCK_BYTES`]: each variable's changes compressed
//! with LZ4, and an RTL output whose changes in the block are its model
//! twin's (where the two agree) stored once, as an alias — an RTL port
//! equal to the model's since the block started is not even encoded. Up to
//! 16 MB of frames may wait for the thread; memory stays bounded however
//! long the run. The file's version text is the first line of [`Meta`]
//! (the format has no room for comments such as the reproduce command).
//!
//! The file is written to a temporary file beside its path and renamed into
//! place by [`FstWriter::finish`], so a run that is interrupted or fails
//! leaves no partial file.

use crate::{Decoding, Frame, Group, Held, Kind, Layout, Meta, Node, Resolved, Value};
use gpucosim_model::ports::{get_bits, PortTable};
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Bytes of value changes held before a block is written.
pub const BLOCK_BYTES: usize = 4 << 20;

/// Frames handed to the encoding thread at once.
const BATCH: usize = 256;

/// Bytes of frames that may wait for the encoding thread (while it writes
/// a block, the run goes on).
const QUEUE_BYTES: usize = 16 << 20;

/// Block types of the format.
const HEADER: u8 = 0;
const GEOMETRY: u8 = 3;
const HIERARCHY_LZ4: u8 = 6;
const VC_DATA_DYNAMIC_ALIAS2: u8 = 8;
/// Hierarchy entries.
const SCOPE: u8 = 254;
const UPSCOPE: u8 = 255;
const SCOPE_MODULE: u8 = 0;
const VAR_INTEGER: u8 = 1;
const VAR_WIRE: u8 = 16;
const VAR_GEN_STRING: u8 = 21;
const DIR_IMPLICIT: u8 = 0;
/// Value changes packed with LZ4.
const PACK_LZ4: u8 = b'4';
/// Header sizes.
const HEADER_LENGTH: u64 = 329;
const VERSION_LEN: usize = 128;
const DATE_LEN: usize = 119;

/// Appends `v` as an unsigned LEB128 varint.
#[inline]
#[doc(hidden)]
pub fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` as a signed varint (sign-extended 7-bit groups).
#[doc(hidden)]
pub fn svarint(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        if done {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The `width` (at most 64) bits from bit `sh` (below 32) of `words`, the
/// one to three words a variable lies in.
#[inline]
fn bits_at(words: &[u32], sh: u32, width: u32) -> u64 {
    let mut x = 0u128;
    for (k, w) in words.iter().enumerate() {
        x |= u128::from(*w) << (32 * k);
    }
    let v = (x >> sh) as u64;
    if width == 64 {
        v
    } else {
        v & ((1 << width) - 1)
    }
}

/// Appends the `width` low bits of `v` as characters, most significant first.
#[doc(hidden)]
pub fn chars_u64(out: &mut Vec<u8>, v: u64, width: u32) {
    out.extend((0..width).rev().map(|i| b'0' + (v >> i & 1) as u8));
}

/// Appends the `width` low bits of little-endian `words` as characters.
#[doc(hidden)]
pub fn chars_words(out: &mut Vec<u8>, words: &[u32], width: u32) {
    out.extend(
        (0..width as usize)
            .rev()
            .map(|i| b'0' + (words[i / 32] >> (i % 32) & 1) as u8),
    );
}

/// Writes a value of `width` (2..=64) bits packed as the format packs
/// two-state vectors, most significant bit first from bit 7 of the first
/// byte, the last byte padded with zeros, at the start of `out`; returns
/// the bytes written.
/// `out` has room for 8 bytes (all written, the bytes past the value's
/// zero).
#[inline]
#[doc(hidden)]
pub fn packed_u64(out: &mut [u8], v: u64, width: u32) -> usize {
    out[..8].copy_from_slice(&(v << (64 - width)).to_be_bytes());
    width.div_ceil(8) as usize
}

/// Appends a value of any width given as little-endian words, packed as
/// [`packed_u64`] packs it.
#[doc(hidden)]
pub fn packed_words(out: &mut Vec<u8>, words: &[u32], width: u32) {
    if width.is_multiple_of(32) {
        // Whole words, most significant first.
        for w in words.iter().rev() {
            out.extend_from_slice(&w.to_be_bytes());
        }
        return;
    }
    let n = width.div_ceil(8) as usize;
    for j in 0..n {
        let mut byte = 0u8;
        for k in 0..8 {
            let pos = 8 * j + k;
            if pos < width as usize {
                let bit = width as usize - 1 - pos;
                byte |= ((words[bit / 32] >> (bit % 32) & 1) as u8) << (7 - k);
            }
        }
        out.push(byte);
    }
}

/// A C string in a field of `len` bytes, cut at a character to fit.
fn fixed_str(out: &mut Vec<u8>, s: &str, len: usize) {
    let mut n = s.len().min(len - 1);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    out.extend_from_slice(&s.as_bytes()[..n]);
    out.resize(out.len() + len - n, 0);
}

/// The current time in UTC, `YYYY-MM-DD hh:mm:ss UTC`.
#[doc(hidden)]
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The name of a variable as `vcd2fst` writes it: `name [msb:0]` for a
/// vector.
fn vector_name(name: &str, width: u32) -> String {
    if width > 1 {
        format!("{name} [{}:0]", width - 1)
    } else {
        name.to_string()
    }
}

/// What the header says once the file is complete.
#[derive(Default)]
struct HeaderInfo {
    start: u64,
    end: u64,
    scopes: u64,
    vars: u64,
    blocks: u64,
}

/// The header block.
fn header(version: &str, date: &str, h: &HeaderInfo) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER_LENGTH as usize + 1);
    b.push(HEADER);
    b.extend_from_slice(&HEADER_LENGTH.to_be_bytes());
    b.extend_from_slice(&h.start.to_be_bytes());
    b.extend_from_slice(&h.end.to_be_bytes());
    // The endianness test: e as a native (little-endian here) double.
    b.extend_from_slice(&std::f64::consts::E.to_le_bytes());
    b.extend_from_slice(&0u64.to_be_bytes()); // memory used by the writer
    b.extend_from_slice(&h.scopes.to_be_bytes());
    b.extend_from_slice(&h.vars.to_be_bytes());
    b.extend_from_slice(&h.vars.to_be_bytes()); // the highest handle
    b.extend_from_slice(&h.blocks.to_be_bytes());
    b.push(-9i8 as u8); // 1 ns
    fixed_str(&mut b, version, VERSION_LEN);
    fixed_str(&mut b, date, DATE_LEN);
    b.push(0); // Verilog
    b.extend_from_slice(&0i64.to_be_bytes()); // time zero
    debug_assert_eq!(b.len() as u64, HEADER_LENGTH + 1);
    b
}

/// The hierarchy, as its entries are written before compression.
#[derive(Default)]
struct Hierarchy {
    bytes: Vec<u8>,
    scopes: u64,
    widths: Vec<u32>,
}

impl Hierarchy {
    fn scope(&mut self, name: &str) {
        self.bytes.extend_from_slice(&[SCOPE, SCOPE_MODULE]);
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.extend_from_slice(&[0, 0]); // name, empty component
        self.scopes += 1;
    }

    fn upscope(&mut self) {
        self.bytes.push(UPSCOPE);
    }

    /// Declares a variable; returns its handle's index.
    fn var(&mut self, kind: u8, name: &str, width: u32) -> usize {
        self.bytes.extend_from_slice(&[kind, DIR_IMPLICIT]);
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.push(0);
        varint(&mut self.bytes, u64::from(width));
        varint(&mut self.bytes, 0); // not an alias
        self.widths.push(width);
        self.widths.len() - 1
    }

    /// The hierarchy block (LZ4) and the geometry block.
    fn blocks(&self) -> Vec<u8> {
        let mut b = vec![HIERARCHY_LZ4];
        let packed = lz4_flex::block::compress(&self.bytes);
        b.extend_from_slice(&(16 + packed.len() as u64).to_be_bytes());
        b.extend_from_slice(&(self.bytes.len() as u64).to_be_bytes());
        b.extend_from_slice(&packed);
        let mut geom = Vec::new();
        for w in &self.widths {
            // Width 0: a variable-length (string) variable.
            let g = if *w == 0 { u32::MAX } else { *w };
            varint(&mut geom, u64::from(g));
        }
        b.push(GEOMETRY);
        b.extend_from_slice(&(24 + geom.len() as u64).to_be_bytes());
        b.extend_from_slice(&(geom.len() as u64).to_be_bytes());
        b.extend_from_slice(&(self.widths.len() as u64).to_be_bytes());
        b.extend_from_slice(&geom);
        b
    }
}

/// One variable of a port.
struct FVar {
    handle: usize,
    /// Bit offset of the variable in its buffer.
    bit: usize,
    width: u32,
    /// The words of its buffer it lies in.
    words: std::ops::Range<usize>,
}

/// A port of one group: its words and its variables.
struct FPort {
    group: Group,
    offset: usize,
    words: usize,
    /// Its variables: its own (`vars.start..own_end`), then its decoded
    /// lanes.
    vars: std::ops::Range<usize>,
    own_end: usize,
    /// Per bit of the port's words, the handle of its decoded lane, if it
    /// has one (empty: no decoded lanes).
    lanes: Vec<Option<usize>>,
    /// For an RTL output port: whether it has been equal to the model's
    /// port since the block started, its variables' changes those of the
    /// model's and so not recorded (the block aliases them).
    twin: bool,
}

/// A computed decoded signal.
struct FComp {
    handle: usize,
    kind: Kind,
    /// Its value of the decoder.
    n: usize,
    last: Option<Held>,
}

/// The characters of a decoded value of `kind` in a block's start values
/// (nothing for a text, which has no room there).
fn held_chars(out: &mut Vec<u8>, held: &Held, kind: Kind) {
    let w = kind.width();
    match held {
        Held::Num(v) => chars_u64(out, *v, w),
        Held::Unknown => out.extend(std::iter::repeat_n(b'x', w as usize)),
        Held::Text(_) => {}
    }
}

/// Frames on their way to the encoding thread.
struct Batch {
    cycles: Vec<u64>,
    words: Vec<u32>,
}

/// Encodes frames into blocks and writes them (on its own thread).
struct Encoder {
    out: BufWriter<File>,
    version: String,
    date: String,
    info: HeaderInfo,
    widths: Vec<u32>,
    vars: Vec<FVar>,
    ports: Vec<FPort>,
    /// Per output port: handle, offset and words.
    mism: Vec<(usize, usize, usize)>,
    any: usize,
    clk: usize,
    cycle: usize,
    in_words: usize,
    out_words: usize,
    /// The previous frame: cycle, buffers, mismatch bits (per port, then
    /// `any`).
    prev_cycle: Option<u64>,
    prev: [Vec<u32>; 3],
    prev_mism: Vec<bool>,
    mism_now: Vec<bool>,
    /// The block being filled: its start, the values then (characters, by
    /// handle), its time steps, and each variable's changes and the time
    /// step of its last change.
    block_start: u64,
    frame: Vec<u8>,
    times: Vec<u64>,
    changes: Vec<Vec<u8>>,
    last_step: Vec<u32>,
    /// The current time step of the block (`times.len() - 1`).
    step: u32,
    held: usize,
    /// Per variable, the model's variable an RTL output variable is
    /// compared with.
    partner: Vec<Option<usize>>,
    /// The computed decoded signals, their decoder and their values as
    /// last written (`None` before the first frame).
    comps: Vec<FComp>,
    decoding: Option<Decoding>,
    /// The texts are written again at the next time step (the first of a
    /// block: a block's start values have no room for them).
    texts_again: bool,
    /// Scratch for a block's bytes and one variable's compressed changes.
    scratch: Vec<u8>,
    lz4: Vec<u8>,
}

impl Encoder {
    /// The values of every variable (characters, by handle) for `bufs`,
    /// the clock at `clk` and the cycle `cycle`.
    fn snapshot(&self, bufs: [&[u32]; 3], clk: bool, cycle: u64, mism: &[bool]) -> Vec<u8> {
        let mut s = Vec::with_capacity(self.widths.iter().sum::<u32>() as usize);
        let mut vals: Vec<Option<&[u8]>> = vec![None; self.widths.len()];
        let clk_c = [b'0' + u8::from(clk)];
        vals[self.clk] = Some(&clk_c);
        let mut cyc = Vec::with_capacity(64);
        chars_u64(&mut cyc, cycle, 64);
        vals[self.cycle] = Some(&cyc);
        let bits: Vec<[u8; 1]> = mism.iter().map(|m| [b'0' + u8::from(*m)]).collect();
        for (k, (h, _, _)) in self.mism.iter().enumerate() {
            vals[*h] = Some(&bits[k]);
        }
        vals[self.any] = Some(&bits[self.mism.len()]);
        let mut var_of = vec![None; self.widths.len()];
        for p in &self.ports {
            for v in &self.vars[p.vars.clone()] {
                var_of[v.handle] = Some((p.group, v));
            }
        }
        let mut comp_of = vec![None; self.widths.len()];
        for c in &self.comps {
            comp_of[c.handle] = Some(c);
        }
        for (h, w) in self.widths.iter().enumerate() {
            if let Some(c) = vals[h] {
                s.extend_from_slice(c);
            } else if let Some(c) = comp_of[h] {
                let unknown = Held::Unknown;
                held_chars(&mut s, c.last.as_ref().unwrap_or(&unknown), c.kind);
            } else if let Some((g, v)) = var_of[h] {
                let buf = bufs[g as usize];
                if *w <= 64 {
                    chars_u64(&mut s, get_bits(buf, v.bit, v.width), v.width);
                } else {
                    let from = v.bit / 32;
                    chars_words(&mut s, &buf[from..from + w.div_ceil(32) as usize], v.width);
                }
            }
        }
        s
    }

    /// Marks the RTL ports equal to the model's in `start`, the values at
    /// the start of a block, as twins.
    fn start_twins(&mut self, start: [&[u32]; 3]) {
        let (vars, partner) = (&self.vars, &self.partner);
        for p in &mut self.ports {
            let span = p.offset..p.offset + p.words;
            p.twin = p.group == Group::Rtl
                && start[1][span.clone()] == start[2][span]
                && vars[p.vars.clone()]
                    .iter()
                    .all(|v| partner[v.handle].is_some());
        }
    }

    /// A new time step.
    #[inline]
    fn time(&mut self, t: u64) {
        self.times.push(t);
        self.step = self.times.len() as u32 - 1;
    }

    /// Records a change of variable `h` at the current time step: `value`
    /// appends its packed bits.
    #[inline]
    fn change(&mut self, h: usize, one_bit: Option<bool>, value: impl FnOnce(&mut Vec<u8>)) {
        let step = self.step;
        let delta = u64::from(step - self.last_step[h]);
        self.last_step[h] = step;
        let c = &mut self.changes[h];
        let before = c.len();
        match one_bit {
            Some(b) => varint(c, delta << 2 | u64::from(b) << 1),
            None => {
                varint(c, delta << 1);
                value(c);
            }
        }
        self.held += c.len() - before;
    }

    /// Records a change of variable `h` at the current time step: `head`
    /// makes the varint from the time delta, `body` appends what follows.
    fn change_with(&mut self, h: usize, head: impl FnOnce(u64) -> u64, body: &[u8]) {
        let step = self.step;
        let delta = u64::from(step - self.last_step[h]);
        self.last_step[h] = step;
        let c = &mut self.changes[h];
        let before = c.len();
        varint(c, head(delta));
        c.extend_from_slice(body);
        self.held += c.len() - before;
    }

    /// Records the change of a computed signal to `held`.
    fn change_held(&mut self, h: usize, held: &Held, kind: Kind) {
        let w = kind.width();
        match held {
            Held::Num(v) if w == 1 => self.change(h, Some(*v & 1 != 0), |_| {}),
            Held::Num(v) => self.change_u64(h, *v, w),
            // One bit: code 0 of the nine-valued ones (`x`).
            Held::Unknown if w == 1 => self.change_with(h, |d| d << 4 | 1, &[]),
            Held::Unknown => {
                let xs = vec![b'x'; w as usize];
                self.change_with(h, |d| d << 1 | 1, &xs)
            }
            Held::Text(t) => {
                let mut body = Vec::with_capacity(t.len() + 2);
                varint(&mut body, t.len() as u64);
                body.extend_from_slice(t);
                self.change_with(h, |d| d << 1, &body)
            }
        }
    }

    /// Decodes frame `cur` and records the changes of the computed signals
    /// at the current time step. In the first frame the values are only
    /// kept (the numbers go to the block's start values).
    fn decoded(&mut self, cur: [&[u32]; 3], first: bool) {
        let Some(mut d) = self.decoding.take() else {
            return;
        };
        let values = d.run(cur[0], cur[1], cur[2]);
        let again = std::mem::take(&mut self.texts_again);
        for i in 0..self.comps.len() {
            let c = &self.comps[i];
            let (h, kind) = (c.handle, c.kind);
            let Some(v) = values.get(c.n) else {
                continue;
            };
            let next = match (v, &c.last) {
                (Value::Keep, Some(_)) => None,
                (Value::Keep, None) => Some(Held::of(&Value::Unknown, kind)),
                (v, Some(l)) if l.same(v, kind) => None,
                (v, _) => Some(Held::of(v, kind)),
            };
            let text = kind == Kind::Text;
            if let Some(n) = next {
                if !first {
                    self.change_held(h, &n, kind);
                }
                self.comps[i].last = Some(n);
            } else if text && again {
                if let Some(l) = self.comps[i].last.clone() {
                    self.change_held(h, &l, kind);
                }
            }
        }
        self.decoding = Some(d);
    }

    /// Records a change of variable `h` (2 to 64 bits wide) to `v`, with one
    /// append.
    #[inline]
    fn change_u64(&mut self, h: usize, v: u64, width: u32) {
        let step = self.step;
        let mut d = u64::from(step - self.last_step[h]) << 1;
        self.last_step[h] = step;
        let mut buf = [0u8; 24];
        let mut n = 0;
        while d >= 0x80 {
            buf[n] = d as u8 | 0x80;
            d >>= 7;
            n += 1;
        }
        buf[n] = d as u8;
        n += 1;
        n += packed_u64(&mut buf[n..], v, width);
        // A copy of fixed size, then cut: quicker than one of `n` bytes.
        let c = &mut self.changes[h];
        let len = c.len();
        c.extend_from_slice(&buf);
        c.truncate(len + n);
        self.held += n;
    }

    /// Encodes the frames of a batch.
    fn batch(&mut self, b: &Batch) -> io::Result<()> {
        let (iw, ow) = (self.in_words, self.out_words);
        let stride = iw + 2 * ow;
        fn split(f: &[u32], iw: usize, ow: usize) -> [&[u32]; 3] {
            let (i, o) = f.split_at(iw);
            let (m, r) = o.split_at(ow);
            [i, m, r]
        }
        // Each frame is compared with the one before it in the batch, the
        // first with the last of the batch before.
        let kept = std::mem::take(&mut self.prev);
        let mut r = Ok(());
        for (k, &c) in b.cycles.iter().enumerate() {
            let cur = split(&b.words[k * stride..(k + 1) * stride], iw, ow);
            let prev = if k == 0 {
                [&kept[0][..], &kept[1][..], &kept[2][..]]
            } else {
                split(&b.words[(k - 1) * stride..k * stride], iw, ow)
            };
            r = self.frame(c, cur, prev);
            if r.is_err() {
                break;
            }
        }
        self.prev = kept;
        if let Some(last) = b.cycles.len().checked_sub(1) {
            let f = split(&b.words[last * stride..(last + 1) * stride], iw, ow);
            for (p, f) in self.prev.iter_mut().zip(f) {
                p.copy_from_slice(f);
            }
        }
        r
    }

    /// Encodes one frame, `prev` the frame before it.
    fn frame(&mut self, cycle: u64, cur: [&[u32]; 3], prev: [&[u32]; 3]) -> io::Result<()> {
        let [_, model, rtl] = cur;
        let t = cycle * 10;
        let n = self.mism.len();
        for (k, (_, off, words)) in self.mism.iter().enumerate() {
            self.mism_now[k] = model[*off..*off + *words] != rtl[*off..*off + *words];
        }
        self.mism_now[n] = self.mism_now[..n].iter().any(|m| *m);
        let Some(prev_cycle) = self.prev_cycle else {
            // The first frame: the first block's values at its start. The
            // texts have no room there, and readers ignore those values if
            // anything changes at the start: the texts are set at the
            // first rising edge.
            self.info.start = t;
            self.block_start = t;
            self.decoded(cur, true);
            let mism = self.mism_now.clone();
            self.frame = self.snapshot(cur, false, cycle, &mism);
            self.start_twins(cur);
            self.rise(cycle)?;
            for i in 0..self.comps.len() {
                if let (Kind::Text, Some(l)) = (self.comps[i].kind, self.comps[i].last.clone()) {
                    self.change_held(self.comps[i].handle, &l, Kind::Text);
                }
            }
            return Ok(());
        };
        if self.held >= BLOCK_BYTES {
            self.write_block()?;
            // The next block starts with the values before this frame.
            let mism = std::mem::take(&mut self.prev_mism);
            self.frame = self.snapshot(prev, true, prev_cycle, &mism);
            self.prev_mism = mism;
            self.block_start = t;
            self.start_twins(prev);
        }
        // An RTL port that stops being the model's twin: its changes so far
        // in the block are the model's (before this frame's).
        for p in self.ports.iter_mut().filter(|p| p.twin) {
            let span = p.offset..p.offset + p.words;
            if rtl[span.clone()] != model[span] {
                p.twin = false;
                for v in &self.vars[p.vars.clone()] {
                    let m = self.partner[v.handle].expect("an RTL variable has a twin");
                    let copy = self.changes[m].clone();
                    self.held += copy.len();
                    self.changes[v.handle] = copy;
                    self.last_step[v.handle] = self.last_step[m];
                }
            }
        }
        self.time(t);
        self.change(self.clk, Some(false), |_| {});
        self.change_u64(self.cycle, cycle, 64);
        for pi in 0..self.ports.len() {
            let p = &self.ports[pi];
            let g = p.group as usize;
            let (cur, old) = (cur[g], prev[g]);
            let span = p.offset..p.offset + p.words;
            if p.twin || cur[span.clone()] == old[span] {
                continue;
            }
            let has_lanes = !p.lanes.is_empty();
            for vi in p.vars.start..p.own_end {
                let v = &self.vars[vi];
                let (h, bit, width) = (v.handle, v.bit, v.width);
                let ws = v.words.clone();
                let (now, was) = (&cur[ws.clone()], &old[ws]);
                // One to three words: a loop, not a call to `memcmp`.
                if now.iter().zip(was).all(|(a, b)| a == b) {
                    continue;
                }
                if width <= 64 {
                    let sh = (bit % 32) as u32;
                    let val = bits_at(now, sh, width);
                    if val == bits_at(was, sh, width) {
                        // Only a neighbour's bits of the words changed.
                        continue;
                    }
                    if width == 1 {
                        self.change(h, Some(val != 0), |_| {});
                    } else {
                        self.change_u64(h, val, width);
                    }
                } else {
                    let span = bit / 32..bit / 32 + width.div_ceil(32) as usize;
                    self.change(h, None, |c| packed_words(c, &cur[span], width));
                }
            }
            // The decoded lanes: only the bits that changed.
            if has_lanes {
                let offset = self.ports[pi].offset;
                for w in 0..self.ports[pi].words {
                    let (a, b) = (cur[offset + w], old[offset + w]);
                    let mut diff = a ^ b;
                    while diff != 0 {
                        let i = diff.trailing_zeros() as usize;
                        diff &= diff - 1;
                        if let Some(h) = self.ports[pi].lanes[32 * w + i] {
                            self.change(h, Some(a >> i & 1 != 0), |_| {});
                        }
                    }
                }
            }
        }
        for k in 0..=n {
            if self.mism_now[k] != self.prev_mism[k] {
                let h = if k < n { self.mism[k].0 } else { self.any };
                self.change(h, Some(self.mism_now[k]), |_| {});
            }
        }
        self.decoded(cur, false);
        self.rise(cycle)
    }

    /// The rising edge of `cycle`.
    fn rise(&mut self, cycle: u64) -> io::Result<()> {
        self.time(cycle * 10 + 5);
        self.change(self.clk, Some(true), |_| {});
        self.prev_mism.copy_from_slice(&self.mism_now);
        self.prev_cycle = Some(cycle);
        Ok(())
    }

    /// Writes the block held (a value change block whose changes are
    /// compressed per variable, identical ones aliased) and starts afresh.
    fn write_block(&mut self) -> io::Result<()> {
        let Some(&end) = self.times.last() else {
            return Ok(());
        };
        let b = &mut self.scratch;
        b.clear();
        b.push(VC_DATA_DYNAMIC_ALIAS2);
        let start = b.len();
        b.extend_from_slice(&[0; 8]); // the section's length, below
        b.extend_from_slice(&self.block_start.to_be_bytes());
        b.extend_from_slice(&end.to_be_bytes());
        let mem_at = b.len();
        b.extend_from_slice(&[0; 8]); // memory to read it, below
                                      // The values at the start, compressed when that is smaller.
        let zipped = miniz_oxide::deflate::compress_to_vec_zlib(&self.frame, 1);
        let frame = if zipped.len() < self.frame.len() {
            &zipped
        } else {
            &self.frame
        };
        varint(b, self.frame.len() as u64);
        varint(b, frame.len() as u64);
        varint(b, self.widths.len() as u64);
        b.extend_from_slice(frame);
        varint(b, self.widths.len() as u64);
        let vc_start = b.len();
        b.push(PACK_LZ4);
        let mut chain = Vec::new();
        let mut memory = 0u64;
        // The variables of twin ports: their changes are their twins'.
        let mut twin_of = vec![None; self.widths.len()];
        for p in self.ports.iter().filter(|p| p.twin) {
            for v in &self.vars[p.vars.clone()] {
                twin_of[v.handle] = self.partner[v.handle];
            }
        }
        let (mut zeros, mut prev_at) = (0u64, vc_start);
        for (h, data) in self.changes.iter().enumerate() {
            let data = twin_of[h].map_or(data, |m| &self.changes[m]);
            if data.is_empty() {
                zeros += 1;
                continue;
            }
            if zeros > 0 {
                varint(&mut chain, zeros << 1);
                zeros = 0;
            }
            // Readers unpack an alias's changes again, so they count too.
            memory += data.len() as u64;
            // The RTL's output where it agrees with the model's all block
            // long: an alias of the model's.
            let twin = twin_of[h].or(self.partner[h].filter(|m| self.changes[*m] == *data));
            if let Some(m) = twin {
                svarint(&mut chain, -(m as i64 + 1) << 1 | 1);
                continue;
            }
            let at = b.len();
            let packed = if data.len() >= 32 {
                let lz4 = &mut self.lz4;
                lz4.resize(lz4_flex::block::get_maximum_output_size(data.len()), 0);
                let n = lz4_flex::block::compress_into(data, lz4)
                    .map_err(|e| io::Error::other(e.to_string()))?;
                (n < data.len()).then_some(&lz4[..n])
            } else {
                None
            };
            match packed {
                Some(p) => {
                    varint(b, data.len() as u64);
                    b.extend_from_slice(p);
                }
                None => {
                    varint(b, 0);
                    b.extend_from_slice(data);
                }
            }
            svarint(&mut chain, ((at - prev_at) as i64) << 1 | 1);
            prev_at = at;
        }
        if zeros > 0 {
            varint(&mut chain, zeros << 1);
        }
        b.extend_from_slice(&chain);
        b.extend_from_slice(&(chain.len() as u64).to_be_bytes());
        let mut table = Vec::with_capacity(self.times.len() * 2);
        let mut last = 0;
        for t in &self.times {
            varint(&mut table, t - last);
            last = *t;
        }
        let zipped = miniz_oxide::deflate::compress_to_vec_zlib(&table, 3);
        let stored = if zipped.len() < table.len() {
            &zipped
        } else {
            &table
        };
        b.extend_from_slice(stored);
        b.extend_from_slice(&(table.len() as u64).to_be_bytes());
        b.extend_from_slice(&(stored.len() as u64).to_be_bytes());
        b.extend_from_slice(&(self.times.len() as u64).to_be_bytes());
        let len = (b.len() - start) as u64;
        b[start..start + 8].copy_from_slice(&len.to_be_bytes());
        b[mem_at..mem_at + 8].copy_from_slice(&memory.to_be_bytes());
        self.out.write_all(b)?;
        self.info.blocks += 1;
        self.info.end = end;
        self.times.clear();
        for c in &mut self.changes {
            c.clear();
        }
        self.last_step.iter_mut().for_each(|s| *s = 0);
        self.held = 0;
        self.texts_again = true;
        Ok(())
    }

    /// Writes the last block and the final header.
    fn finish(mut self) -> io::Result<()> {
        self.write_block()?;
        self.out.seek(SeekFrom::Start(0))?;
        let h = header(&self.version, &self.date, &self.info);
        self.out.write_all(&h)?;
        self.out.flush()
    }
}

/// Streams frames into an FST file: the same variables, names, widths and
/// timing as [`VcdWriter`](crate::VcdWriter), encoded on a second thread.
pub struct FstWriter {
    path: PathBuf,
    /// The temporary file written; removed unless renamed into place.
    tmp: Option<tempfile::TempPath>,
    in_words: usize,
    out_words: usize,
    batch: Batch,
    to_encoder: Option<SyncSender<Batch>>,
    spent: Receiver<Batch>,
    encoder: Option<JoinHandle<io::Result<()>>>,
    last_cycle: Option<u64>,
}

impl FstWriter {
    /// Starts the FST of `table`'s ports at `path`: the header and the
    /// hierarchy go to a temporary file in `path`'s directory (created if
    /// need be), renamed to `path` by [`finish`](Self::finish). The first
    /// line of `meta` is the file's version text (what wrote it; the format
    /// has room for 127 bytes).
    pub fn create(path: &Path, table: &PortTable, meta: &Meta) -> io::Result<FstWriter> {
        FstWriter::with_layout(path, &Layout::new(table), meta)
    }

    /// [`FstWriter::create`] for the variables of `layout`: its ports and
    /// its decoded signals (declared in the scope of their group, as in the
    /// VCD; a text is a variable-length string variable).
    pub fn with_layout(path: &Path, layout: &Layout, meta: &Meta) -> io::Result<FstWriter> {
        let (file, tmp) = crate::temp_file_for(path)?.into_parts();
        let table = layout.table();
        let mut h = Hierarchy::default();
        h.scope("tb");
        let clk = h.var(VAR_WIRE, "clk", 1);
        let cycle = h.var(VAR_INTEGER, "cycle", 64);
        // Handles of the port variables and of the decoded signals.
        let mut var_handle = vec![0; layout.vars.len()];
        let mut derived_handle = vec![0; layout.derived.len()];
        fn declare(h: &mut Hierarchy, layout: &Layout, nodes: &[Node], handles: &mut [usize]) {
            for n in nodes {
                match n {
                    Node::Scope(name, children) => {
                        h.scope(name);
                        declare(h, layout, children, handles);
                        h.upscope();
                    }
                    Node::Signal(k) => {
                        let s = &layout.derived[*k];
                        handles[*k] = match s.kind {
                            Kind::Bits(w) => h.var(VAR_WIRE, &vector_name(&s.name, w), w),
                            Kind::Int(w) => h.var(VAR_INTEGER, &s.name, w),
                            Kind::Text => h.var(VAR_GEN_STRING, &s.name, 0),
                        };
                    }
                }
            }
        }
        for group in [Group::In, Group::Model, Group::Rtl] {
            let tree = layout.derived_tree(group);
            let mine: Vec<usize> = (0..layout.vars.len())
                .filter(|k| layout.vars[*k].group == group)
                .collect();
            if mine.is_empty() && tree.is_empty() {
                continue;
            }
            h.scope(group.scope());
            for k in mine {
                let v = &layout.vars[k];
                var_handle[k] = h.var(VAR_WIRE, &vector_name(&v.name(), v.width), v.width);
            }
            declare(&mut h, layout, &tree, &mut derived_handle);
            h.upscope();
        }
        h.scope("mismatch");
        let any = h.var(VAR_WIRE, "any", 1);
        let mism: Vec<(usize, usize, usize)> = layout
            .outputs
            .iter()
            .map(|(name, offset, words)| (h.var(VAR_WIRE, name, 1), *offset, *words))
            .collect();
        h.upscope();
        h.upscope();
        // The variables port by port: a port's own, then its decoded bits
        // (the lanes of a mask), so that a port whose words did not change
        // is skipped whole.
        let resolved = layout.resolved();
        let mut vars: Vec<FVar> = Vec::with_capacity(layout.vars.len() + layout.derived.len());
        let mut ports: Vec<FPort> = Vec::new();
        // Per variable: the key pairing an RTL variable with its model twin.
        let mut keys: Vec<(Group, String, usize)> = Vec::new();
        let mut bits_done = vec![false; layout.derived.len()];
        let mut k = 0;
        while k < layout.vars.len() {
            let v0 = &layout.vars[k];
            let first = vars.len();
            let mut end = k;
            while end < layout.vars.len()
                && layout.vars[end].group == v0.group
                && layout.vars[end].offset == v0.offset
            {
                let v = &layout.vars[end];
                let bit = v.offset * 32 + v.lsb;
                vars.push(FVar {
                    handle: var_handle[end],
                    bit,
                    width: v.width,
                    words: bit / 32..(bit + v.width as usize).div_ceil(32),
                });
                keys.push((v.group, v.name(), bit));
                end += 1;
            }
            let words = table.find(v0.port).map_or(1, |(_, p)| p.words());
            let own_end = vars.len();
            let mut lanes = Vec::new();
            for (d, r) in resolved.iter().enumerate() {
                if let Resolved::Bit { group, bit, port } = *r {
                    if group == v0.group && port.0 == v0.offset {
                        vars.push(FVar {
                            handle: derived_handle[d],
                            bit,
                            width: 1,
                            words: bit / 32..bit / 32 + 1,
                        });
                        keys.push((group, layout.derived[d].local_path(), bit));
                        bits_done[d] = true;
                        if lanes.is_empty() {
                            lanes = vec![None; 32 * words];
                        }
                        lanes[bit - 32 * v0.offset] = Some(derived_handle[d]);
                    }
                }
            }
            ports.push(FPort {
                group: v0.group,
                offset: v0.offset,
                words,
                vars: first..vars.len(),
                own_end,
                lanes,
                twin: false,
            });
            k = end;
        }
        let comps: Vec<FComp> = resolved
            .iter()
            .enumerate()
            .filter_map(|(d, r)| match r {
                Resolved::Computed(n) => Some(FComp {
                    handle: derived_handle[d],
                    kind: layout.derived[d].kind,
                    n: *n,
                    last: None,
                }),
                Resolved::Bit { .. } => None,
            })
            .collect();
        debug_assert!(layout
            .derived
            .iter()
            .zip(&bits_done)
            .all(|(s, done)| *done || matches!(s.source, crate::Source::Computed(_))));
        let version = meta
            .comments
            .first()
            .cloned()
            .unwrap_or_else(|| "gpucosim".into());
        let date = utc_now();
        let info = HeaderInfo {
            scopes: h.scopes,
            vars: h.widths.len() as u64,
            ..HeaderInfo::default()
        };
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&header(&version, &date, &info))?;
        out.write_all(&h.blocks())?;
        let (iw, ow) = (table.in_words(), table.out_words());
        let n = h.widths.len();
        // An RTL variable's twin: the model's variable of the same name
        // and bit.
        let mut partner = vec![None; n];
        let model_of: std::collections::HashMap<(&str, usize), usize> = keys
            .iter()
            .zip(&vars)
            .filter(|(key, _)| key.0 == Group::Model)
            .map(|(key, v)| ((key.1.as_str(), key.2), v.handle))
            .collect();
        for (key, v) in keys.iter().zip(&vars) {
            if key.0 == Group::Rtl {
                partner[v.handle] = model_of.get(&(key.1.as_str(), key.2)).copied();
            }
        }
        let decoding = if comps.is_empty() {
            None
        } else {
            Decoding::new(layout)
        };
        let nm = mism.len();
        let enc = Encoder {
            out,
            version,
            date,
            info,
            widths: h.widths,
            vars,
            ports,
            mism,
            any,
            clk,
            cycle,
            in_words: iw,
            out_words: ow,
            prev_cycle: None,
            prev: [vec![0; iw], vec![0; ow], vec![0; ow]],
            prev_mism: vec![false; nm + 1],
            mism_now: vec![false; nm + 1],
            block_start: 0,
            frame: Vec::new(),
            times: Vec::new(),
            changes: vec![Vec::new(); n],
            last_step: vec![0; n],
            step: 0,
            held: 0,
            partner,
            comps,
            decoding,
            texts_again: false,
            scratch: Vec::new(),
            lz4: Vec::new(),
        };
        // Room for the frames that arrive while a block is written.
        let queue = (QUEUE_BYTES / (4 * BATCH * (iw + 2 * ow)).max(1)).max(2);
        let (to_encoder, batches) = sync_channel::<Batch>(queue);
        let (give_back, spent) = sync_channel::<Batch>(queue + 2);
        let encoder = std::thread::Builder::new()
            .name("fst-writer".into())
            .spawn(move || {
                let mut enc = enc;
                for mut b in batches {
                    enc.batch(&b)?;
                    b.cycles.clear();
                    b.words.clear();
                    let _ = give_back.try_send(b);
                }
                enc.finish()
            })?;
        let stride = iw + 2 * ow;
        Ok(FstWriter {
            path: path.to_path_buf(),
            tmp: Some(tmp),
            in_words: iw,
            out_words: ow,
            batch: Batch {
                cycles: Vec::with_capacity(BATCH),
                words: Vec::with_capacity(BATCH * stride),
            },
            to_encoder: Some(to_encoder),
            spent,
            encoder: Some(encoder),
            last_cycle: None,
        })
    }

    /// The path the file is renamed to by [`finish`](Self::finish).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one cycle: values at `10 * cycle`, the rising edge at `+5`.
    /// Cycles must increase from frame to frame.
    #[inline]
    pub fn frame(&mut self, f: &Frame<'_>) -> io::Result<()> {
        if self.last_cycle.is_some_and(|c| f.cycle <= c) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "FST frames out of order: cycle {} after {:?}",
                    f.cycle, self.last_cycle
                ),
            ));
        }
        self.last_cycle = Some(f.cycle);
        let b = &mut self.batch;
        b.cycles.push(f.cycle);
        b.words.extend_from_slice(&f.inputs[..self.in_words]);
        b.words.extend_from_slice(&f.model[..self.out_words]);
        b.words.extend_from_slice(&f.rtl[..self.out_words]);
        if b.cycles.len() == BATCH {
            self.send()?;
        }
        Ok(())
    }

    /// Hands the batch to the encoder and takes a spent one (or a new one).
    #[cold]
    fn send(&mut self) -> io::Result<()> {
        let next = self.spent.try_recv().unwrap_or_else(|_| Batch {
            cycles: Vec::with_capacity(BATCH),
            words: Vec::with_capacity(self.batch.words.capacity()),
        });
        let full = std::mem::replace(&mut self.batch, next);
        let sent = match &self.to_encoder {
            Some(tx) => tx.send(full).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            // The encoder stopped: its error says why.
            self.to_encoder = None;
            Err(self
                .join()
                .err()
                .unwrap_or_else(|| io::Error::other("the FST encoder stopped before the end")))
        }
    }

    /// Waits for the encoder to end.
    fn join(&mut self) -> io::Result<()> {
        match self.encoder.take() {
            Some(h) => h
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the FST encoder panicked"))),
            None => Err(io::Error::other("the FST writer failed before")),
        }
    }

    /// Writes what is held, completes the file and renames it into place.
    pub fn finish(mut self) -> io::Result<()> {
        if !self.batch.cycles.is_empty() {
            self.send()?;
        }
        self.to_encoder = None;
        self.join()?;
        let tmp = self.tmp.take().expect("kept until finish");
        tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Drop for FstWriter {
    fn drop(&mut self) {
        // Unfinished: stop the encoder; the temporary file goes with `tmp`.
        self.to_encoder = None;
        let _ = self.encoder.take().map(JoinHandle::join);
    }
}
