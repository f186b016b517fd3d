//! FST read back as VCD text, for `gpucosim waves`: the text view reads a
//! VCD, and an FST that gpucosim wrote (`--waves-format fst`) holds the same
//! scopes, variables and value changes. The bit vectors are transcoded
//! (scalars and vectors as VCD writes them, aliases sharing their code);
//! string and real variables, which the text view does not show, are left
//! out.

use fst_reader::{FstFilter, FstHierarchyEntry, FstReader, FstSignalValue, FstVarType};
use std::io::{self, Write};
use std::path::Path;

/// A VCD identifier code for signal `n` (printable ASCII, base 94).
#[doc(hidden)]
pub fn code(mut n: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((b'!' + (n % 94) as u8) as char);
        n /= 94;
        if n == 0 {
            return s;
        }
        n -= 1;
    }
}

/// `1ns`, `10ps`, … for a timescale of 10^`exp` seconds.
#[doc(hidden)]
pub fn timescale(exp: i8) -> String {
    let units = [
        (0, "s"),
        (-3, "ms"),
        (-6, "us"),
        (-9, "ns"),
        (-12, "ps"),
        (-15, "fs"),
    ];
    for (e, u) in units {
        if exp >= e && exp < e + 3 {
            return format!("{}{u}", 10u32.pow((exp - e) as u32));
        }
    }
    "1fs".into()
}

fn bad(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("not a readable FST: {e}"),
    )
}

/// A variable of the VCD: its width and identifier code.
struct Var {
    width: u32,
    code: String,
}

/// The value changes of one time step: each variable's handle and its
/// value's bytes in `bits`.
#[derive(Default)]
struct Step {
    changes: Vec<(usize, std::ops::Range<usize>)>,
    bits: Vec<u8>,
}

impl Step {
    fn push(&mut self, h: usize, bits: &[u8]) {
        let at = self.bits.len();
        self.bits.extend_from_slice(bits);
        self.changes.push((h, at..self.bits.len()));
    }

    /// Writes the changes of time step `now` (none before the first) to
    /// `out`, in declaration order, and empties the step.
    fn write(
        &mut self,
        out: &mut dyn Write,
        now: Option<u64>,
        vars: &[Option<Var>],
    ) -> io::Result<()> {
        let Some(t) = now else { return Ok(()) };
        self.changes.sort_by_key(|c| c.0);
        writeln!(out, "#{t}")?;
        for (h, r) in self.changes.drain(..) {
            let v = vars[h].as_ref().expect("a change of a declared variable");
            if v.width != 1 {
                out.write_all(b"b")?;
            }
            out.write_all(&self.bits[r])?;
            if v.width != 1 {
                out.write_all(b" ")?;
            }
            out.write_all(v.code.as_bytes())?;
            out.write_all(b"\n")?;
        }
        self.bits.clear();
        Ok(())
    }
}

/// What stopped [`fst_to_vcd`].
#[derive(Debug)]
pub enum TranscodeError {
    /// The FST could not be read, or is not one gpucosim writes.
    Read(io::Error),
    /// The VCD could not be written (a full disk, say).
    Write(io::Error),
}

/// `out`, noting whether a write to it failed.
struct Noted<'a> {
    out: &'a mut dyn Write,
    failed: bool,
}

impl Write for Noted<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.out.write(buf);
        self.failed |= r.is_err();
        r
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.out.flush();
        self.failed |= r.is_err();
        r
    }
}

/// Writes the FST `path` as VCD text to `out`.
pub fn fst_to_vcd(path: &Path, out: &mut dyn Write) -> Result<(), TranscodeError> {
    let mut noted = Noted { out, failed: false };
    match transcode(path, &mut noted) {
        Ok(()) => Ok(()),
        Err(e) if noted.failed => Err(TranscodeError::Write(e)),
        Err(e) => Err(TranscodeError::Read(e)),
    }
}

fn transcode(path: &Path, out: &mut dyn Write) -> io::Result<()> {
    let f = io::BufReader::new(std::fs::File::open(path)?);
    let mut r = FstReader::open_and_read_time_table(f).map_err(bad)?;
    let exp = r.get_header().timescale_exponent;
    writeln!(out, "$timescale {} $end", timescale(exp))?;
    // Declarations, in the FST's order; each handle's code and width.
    let mut decl = String::new();
    // By handle (the FST's handles are dense, from 0).
    let mut vars: Vec<Option<Var>> = Vec::new();
    let mut failed: Option<io::Error> = None;
    r.read_hierarchy(|e| match e {
        FstHierarchyEntry::Scope { name, .. } => {
            decl.push_str(&format!("$scope module {name} $end\n"));
        }
        FstHierarchyEntry::UpScope => decl.push_str("$upscope $end\n"),
        FstHierarchyEntry::Var {
            tpe,
            name,
            length,
            handle,
            ..
        } => {
            if matches!(
                tpe,
                FstVarType::GenericString
                    | FstVarType::Real
                    | FstVarType::RealParameter
                    | FstVarType::RealTime
                    | FstVarType::ShortReal
            ) {
                return;
            }
            // `name` or `name [msb:lsb]`, as VCD declares them.
            let mut parts = name.split_whitespace();
            let ok =
                parts.next().is_some() && parts.all(|p| p.starts_with('[') && p.ends_with(']'));
            if !ok {
                failed = Some(bad(format!("variable name `{name}`")));
                return;
            }
            let h = handle.get_index();
            let c = code(h);
            decl.push_str(&format!("$var wire {length} {c} {name} $end\n"));
            if vars.len() <= h {
                vars.resize_with(h + 1, || None);
            }
            vars[h] = Some(Var {
                width: length,
                code: c,
            });
        }
        _ => {}
    })
    .map_err(bad)?;
    if let Some(e) = failed {
        return Err(e);
    }
    out.write_all(decl.as_bytes())?;
    writeln!(out, "$enddefinitions $end")?;
    // Value changes stream out one time step at a time: the reader gives
    // them in time order (block by block, each block's steps in order), so
    // only the current step's are held, however long the run the FST
    // holds. Within a step they go out in declaration order, as gpucosim's
    // VCD writes a step; a later change of one variable in the same step
    // (a block's first values, then its changes) stays after the earlier.
    let mut step = Step::default();
    let mut now: Option<u64> = None;
    let mut failed: Option<io::Error> = None;
    r.read_signals(&FstFilter::all(), |t, h, v| {
        if failed.is_some() {
            return;
        }
        let h = h.get_index();
        let (Some(Some(_)), FstSignalValue::String(bits)) = (vars.get(h), v) else {
            return;
        };
        match now {
            Some(n) if t < n => {
                failed = Some(bad(format!(
                    "value changes out of time order ({t} after {n})"
                )));
                return;
            }
            Some(n) if t == n => {}
            _ => {
                if let Err(e) = step.write(out, now, &vars) {
                    failed = Some(e);
                    return;
                }
                now = Some(t);
            }
        }
        step.push(h, bits);
    })
    .map_err(bad)?;
    if let Some(e) = failed {
        return Err(e);
    }
    step.write(out, now, &vars)?;
    out.flush()
}
