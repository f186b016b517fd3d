//! FST output: the variables, names, widths and timing of the VCD in
//! GTKWave's compressed format (a fraction of the size, and quick to open
//! in a viewer however long the run).
//!
//! [`FstWriter`] declares what [`VcdWriter`](crate::VcdWriter) declares —
//! scope `tb` with `clk`, the integer `cycle` and the scopes `in`, `model`,
//! `rtl` and `mismatch` — under the same names: a vector is named as GTKWave's
//! `vcd2fst` names it, reference and range (`lane_addr_o[17] [47:0]`, shown
//! as `lane_addr_o[17][47:0]`). Cycle `n` is at time `10n` ns, its rising edge
//! at `10n + 5`. Before the first frame written every variable is unknown
//! (`x`): a window starting at cycle 1000 shows `x` from time 0 to 10000.
//!
//! The file is written to a temporary file beside its path and renamed into
//! place by [`FstWriter::finish`], so a run that is interrupted or fails
//! leaves no partial file. The value changes are kept in memory, packed one
//! bit per bit, until `finish` compresses and writes them (the format's
//! writer writes one block); a run whose changes would exceed
//! [`MAX_CHANGE_BYTES`] gets an error instead of a corrupt file.

use crate::{Frame, Group, Layout, Meta};
use fst_writer::{
    FstBodyWriter, FstFileType, FstInfo, FstScopeType, FstSignalId, FstSignalType, FstVarDirection,
    FstVarType, FstWriteError,
};
use gpucosim_model::ports::{get_bits, PortTable};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

/// The most bytes of value changes one file holds in memory before it is
/// written (the format's writer addresses them with 32-bit offsets).
pub const MAX_CHANGE_BYTES: u64 = 3 << 30;

/// `'0'`/`'1'` for each bit of a byte, most significant first.
static BITS: [[u8; 8]; 256] = {
    let mut t = [[b'0'; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b][i] = b'0' + ((b >> (7 - i)) & 1) as u8;
            i += 1;
        }
        b += 1;
    }
    t
};

/// Writes the `out.len()` low bits of the little-endian `bytes` as
/// characters, most significant first.
#[inline]
fn bits_of(out: &mut [u8], bytes: &[u8]) {
    let w = out.len();
    let (full, rem) = (w / 8, w % 8);
    let mut o = 0;
    if rem > 0 {
        out[..rem].copy_from_slice(&BITS[bytes[full] as usize][8 - rem..]);
        o = rem;
    }
    for b in bytes[..full].iter().rev() {
        out[o..o + 8].copy_from_slice(&BITS[*b as usize]);
        o += 8;
    }
}

/// One variable of a port.
struct FVar {
    id: FstSignalId,
    /// Bit offset of the variable in its buffer.
    bit: usize,
    width: u32,
}

/// A port of one group: its words and its variables.
struct FPort {
    group: Group,
    offset: usize,
    words: usize,
    vars: std::ops::Range<usize>,
}

/// Streams frames into an FST file.
pub struct FstWriter {
    body: Option<FstBodyWriter<BufWriter<File>>>,
    /// The temporary file written; removed unless renamed into place.
    tmp: Option<tempfile::TempPath>,
    path: PathBuf,
    vars: Vec<FVar>,
    ports: Vec<FPort>,
    /// Per output port: signal, offset, words and the last value.
    mism: Vec<(FstSignalId, usize, usize, Option<bool>)>,
    any: FstSignalId,
    any_last: Option<bool>,
    clk: FstSignalId,
    cycle_id: FstSignalId,
    /// The previous frame's buffers, for change detection.
    prev: [Vec<u32>; 3],
    /// Whether a frame was written.
    started: bool,
    /// An upper bound of the bytes of value changes held.
    change_bytes: u64,
    /// Characters of one value.
    chars: Vec<u8>,
    /// Little-endian bytes of one wide value.
    bytes: Vec<u8>,
}

fn fst_err(e: FstWriteError) -> io::Error {
    match e {
        FstWriteError::Io(e) => e,
        e => io::Error::other(e.to_string()),
    }
}

/// The longest prefix of `s` of fewer than `max` bytes, cut at a character.
fn fit(s: &str, max: usize) -> String {
    let mut n = s.len().min(max - 1);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    s[..n].to_string()
}

/// The current time in UTC, `YYYY-MM-DD hh:mm:ss UTC`.
fn utc_now() -> String {
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

impl FstWriter {
    /// Starts the FST of `table`'s ports at `path`: the header and the
    /// hierarchy go to a temporary file in `path`'s directory (created if
    /// need be), renamed to `path` by [`finish`](Self::finish). The first
    /// line of `meta` is the file's version text (what wrote it), cut to
    /// the format's 127 bytes.
    pub fn create(path: &Path, table: &PortTable, meta: &Meta) -> io::Result<FstWriter> {
        let tmp = crate::temp_file_for(path)?.into_temp_path();
        let info = FstInfo {
            start_time: 0,
            timescale_exponent: -9,
            version: fit(meta.comments.first().map_or("gpucosim", |s| s), 128),
            date: utc_now(),
            file_type: FstFileType::Verilog,
        };
        let mut h = fst_writer::open_fst(&tmp, &info).map_err(fst_err)?;
        let layout = Layout::new(table);
        let wire = |h: &mut fst_writer::FstHeaderWriter<_>, name: &str, width: u32| {
            h.var(
                vector_name(name, width),
                FstSignalType::bit_vec(width),
                FstVarType::Wire,
                FstVarDirection::Implicit,
                None,
            )
        };
        h.scope("tb", "", FstScopeType::Module).map_err(fst_err)?;
        let clk = wire(&mut h, "clk", 1).map_err(fst_err)?;
        let cycle_id = h
            .var(
                "cycle",
                FstSignalType::bit_vec(64),
                FstVarType::Integer,
                FstVarDirection::Implicit,
                None,
            )
            .map_err(fst_err)?;
        let mut vars = Vec::with_capacity(layout.vars.len());
        let mut ports: Vec<FPort> = Vec::new();
        let mut scope = None;
        for v in &layout.vars {
            if scope != Some(v.group) {
                if scope.is_some() {
                    h.up_scope().map_err(fst_err)?;
                }
                h.scope(v.group.scope(), "", FstScopeType::Module)
                    .map_err(fst_err)?;
                scope = Some(v.group);
            }
            let id = wire(&mut h, &v.name(), v.width).map_err(fst_err)?;
            match ports.last_mut() {
                Some(p) if p.group == v.group && p.offset == v.offset => p.vars.end += 1,
                _ => {
                    let words = table.find(v.port).map_or(1, |(_, p)| p.words());
                    ports.push(FPort {
                        group: v.group,
                        offset: v.offset,
                        words,
                        vars: vars.len()..vars.len() + 1,
                    });
                }
            }
            vars.push(FVar {
                id,
                bit: v.offset * 32 + v.lsb,
                width: v.width,
            });
        }
        if scope.is_some() {
            h.up_scope().map_err(fst_err)?;
        }
        h.scope("mismatch", "", FstScopeType::Module)
            .map_err(fst_err)?;
        let any = wire(&mut h, "any", 1).map_err(fst_err)?;
        let mut mism = Vec::new();
        for (name, offset, words) in &layout.outputs {
            let id = wire(&mut h, name, 1).map_err(fst_err)?;
            mism.push((id, *offset, *words, None));
        }
        h.up_scope().map_err(fst_err)?;
        h.up_scope().map_err(fst_err)?;
        let body = h.finish().map_err(fst_err)?;
        let widest = layout.vars.iter().map(|v| v.width).max().unwrap_or(64);
        Ok(FstWriter {
            body: Some(body),
            tmp: Some(tmp),
            path: path.to_path_buf(),
            vars,
            ports,
            mism,
            any,
            any_last: None,
            clk,
            cycle_id,
            prev: [
                vec![0; table.in_words()],
                vec![0; table.out_words()],
                vec![0; table.out_words()],
            ],
            started: false,
            change_bytes: 0,
            chars: Vec::with_capacity(widest.max(64) as usize),
            bytes: Vec::with_capacity(widest.div_ceil(8) as usize + 8),
        })
    }

    /// The path the file is renamed to by [`finish`](Self::finish).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one cycle: values at `10 * cycle`, the rising edge at `+5`.
    /// Cycles must increase from frame to frame.
    pub fn frame(&mut self, f: &Frame<'_>) -> io::Result<()> {
        let body = self
            .body
            .as_mut()
            .ok_or_else(|| io::Error::other("the FST writer failed before"))?;
        let t = f.cycle * 10;
        body.time_change(t).map_err(fst_err)?;
        let first = !self.started;
        self.started = true;
        let mut bytes = 0u64;
        body.signal_change(self.clk, b"0").map_err(fst_err)?;
        let chars = &mut self.chars;
        chars.clear();
        chars.resize(64, b'0');
        bits_of(chars, &f.cycle.to_le_bytes());
        body.signal_change(self.cycle_id, chars).map_err(fst_err)?;
        bytes += 8 + 16;
        let [pi, pm, pr] = &self.prev;
        for p in &self.ports {
            let (cur, prev) = match p.group {
                Group::In => (f.inputs, pi),
                Group::Model => (f.model, pm),
                Group::Rtl => (f.rtl, pr),
            };
            let span = p.offset..p.offset + p.words;
            if !first && cur[span.clone()] == prev[span] {
                continue;
            }
            for v in &self.vars[p.vars.clone()] {
                let w = v.width as usize;
                chars.clear();
                chars.resize(w, b'0');
                if v.width <= 64 {
                    let val = get_bits(cur, v.bit, v.width);
                    if !first && val == get_bits(prev, v.bit, v.width) {
                        continue;
                    }
                    bits_of(chars, &val.to_le_bytes());
                } else {
                    let words = &cur[v.bit / 32..v.bit / 32 + w.div_ceil(32)];
                    if !first && *words == prev[v.bit / 32..v.bit / 32 + w.div_ceil(32)] {
                        continue;
                    }
                    self.bytes.clear();
                    self.bytes
                        .extend(words.iter().flat_map(|x| x.to_le_bytes()));
                    bits_of(chars, &self.bytes);
                }
                body.signal_change(v.id, chars).map_err(fst_err)?;
                bytes += 16 + w.div_ceil(8) as u64;
            }
        }
        let mut any = false;
        for (id, off, n, last) in &mut self.mism {
            let m = f.model[*off..*off + *n] != f.rtl[*off..*off + *n];
            any |= m;
            if *last != Some(m) {
                *last = Some(m);
                body.signal_change(*id, if m { b"1" } else { b"0" })
                    .map_err(fst_err)?;
                bytes += 16;
            }
        }
        if self.any_last != Some(any) {
            self.any_last = Some(any);
            body.signal_change(self.any, if any { b"1" } else { b"0" })
                .map_err(fst_err)?;
        }
        body.time_change(t + 5).map_err(fst_err)?;
        body.signal_change(self.clk, b"1").map_err(fst_err)?;
        self.change_bytes += bytes + 32;
        self.prev[0].copy_from_slice(f.inputs);
        self.prev[1].copy_from_slice(f.model);
        self.prev[2].copy_from_slice(f.rtl);
        if self.change_bytes > MAX_CHANGE_BYTES {
            self.body = None;
            return Err(io::Error::other(format!(
                "the FST writer keeps a file's value changes in memory, at most {} GiB; cycle {} is past that (write fewer cycles, or a VCD)",
                MAX_CHANGE_BYTES >> 30,
                f.cycle
            )));
        }
        Ok(())
    }

    /// Compresses and writes the value changes, then renames the file into
    /// place.
    pub fn finish(mut self) -> io::Result<()> {
        let body = self
            .body
            .take()
            .ok_or_else(|| io::Error::other("the FST writer failed before"))?;
        body.finish().map_err(fst_err)?;
        let tmp = self
            .tmp
            .take()
            .expect("the temporary file is kept until finish");
        tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_written_most_significant_first() {
        let mut out = vec![0u8; 12];
        bits_of(&mut out, &0xa5cu64.to_le_bytes());
        assert_eq!(out, b"101001011100");
        let mut one = [0u8; 1];
        bits_of(&mut one, &[1]);
        assert_eq!(&one, b"1");
        let mut wide = vec![0u8; 72];
        let mut bytes = [0u8; 9];
        bytes[8] = 0x80;
        bytes[0] = 1;
        bits_of(&mut wide, &bytes);
        let want = format!("1{}1", "0".repeat(70));
        assert_eq!(String::from_utf8(wide).unwrap(), want);
    }

    #[test]
    fn utc_dates_are_civil() {
        let s = utc_now();
        assert_eq!(s.len(), "2026-01-01 00:00:00 UTC".len(), "{s}");
        assert!(s.starts_with("20"), "{s}");
    }
}
