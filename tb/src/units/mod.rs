//! The units: one folder per unit, `units/<unit>/`, laid out alike —
//! `mod.rs` (the [`Testbench`] implementation), `txn.rs` (the transaction
//! and its simplification), `stimulus.rs` (knobs, random and directed
//! stimulus), `driver.rs` (the driver) and `eval.rs` (the `gpucosim eval`
//! front end), each with its tests — and the registry, [`units!`](crate::units),
//! from which the unit list, the dispatch from a unit name to its testbench
//! and everything else that lists units come.

use crate::error::Error;
pub use crate::testbench::Evaluator;

pub mod input;
use crate::testbench::Testbench;
use gpucosim_model::ports::PortTable;
use gpucosim_model::Profile;

/// The registry of units: one line per unit, `module => testbench type`,
/// in command-line order. Adding a unit is adding its line (and its
/// folders). It hands the list to the macro named first, with the tokens
/// in brackets, which is how the unit list, the modules and
/// [`with_testbench!`](crate::with_testbench) are generated from it; with
/// `@local`, to a macro of the calling crate (the DPI-C library's per-unit
/// entry points).
#[macro_export]
#[doc(hidden)]
macro_rules! units {
    ($then:ident [$($args:tt)*]) => {
        $crate::units! { @call ($crate::$then) [$($args)*] }
    };
    (@local $then:ident [$($args:tt)*]) => {
        $crate::units! { @call ($then) [$($args)*] }
    };
    (@call ($($then:tt)*) [$($args:tt)*]) => {
        $($then)*! { [$($args)*]
            ta => TaTestbench,
            lds => LdsTestbench,
            waitcnt => WaitcntTestbench,
        }
    };
}

/// Declares the units' modules, [`UNITS`] and [`port_tables`] (from
/// [`units!`](crate::units)).
#[macro_export]
#[doc(hidden)]
macro_rules! __declare_units {
    ([] $($unit:ident => $Tb:ident),* $(,)?) => {
        $(pub mod $unit;)*

        /// Unit names, in command-line order.
        pub const UNITS: &[&str] = &[$(stringify!($unit)),*];

        /// The unit names as a sentence lists them: `a, b or c`.
        pub const UNIT_CHOICES: &str = $crate::__unit_choices!($($unit),*);

        /// The port table of every unit, in [`UNITS`] order.
        pub fn port_tables() -> impl Iterator<Item = &'static PortTable> {
            const TABLES: &[fn() -> &'static PortTable] =
                &[$(<$unit::$Tb as Testbench>::table),*];
            TABLES.iter().map(|t| t())
        }

        /// The stress variants of `unit` (none for a unit not registered).
        pub fn variants(unit: &str) -> &'static [$crate::testbench::Variant] {
            match unit {
                $(stringify!($unit) => <$unit::$Tb as Testbench>::variants(),)*
                _ => &[],
            }
        }

        /// Every unit's generated RTL include, `rtl/<unit>/<unit>_enc.svh`:
        /// (unit, text), in [`UNITS`] order.
        pub fn enc_svh_files() -> Vec<(&'static str, String)> {
            vec![$((stringify!($unit), gpucosim_model::$unit::svh::enc_svh())),*]
        }

        /// The knob table of every unit, as its doc shows it: (unit,
        /// Markdown), in [`UNITS`] order.
        pub fn knob_docs() -> Vec<(&'static str, String)> {
            vec![$((stringify!($unit), $crate::testbench::knob_doc::<$unit::$Tb>())),*]
        }

        /// The coverage-bin table of every unit, as its doc shows it:
        /// (unit, Markdown), in [`UNITS`] order.
        pub fn bin_docs() -> Vec<(&'static str, String)> {
            vec![$((stringify!($unit), $crate::testbench::bin_doc::<$unit::$Tb>())),*]
        }
    };
}

crate::units!(__declare_units []);

/// `a, b or c` from `a, b, c` (for [`UNIT_CHOICES`]).
#[macro_export]
#[doc(hidden)]
macro_rules! __unit_choices {
    ($a:ident) => { stringify!($a) };
    ($a:ident, $b:ident) => { concat!(stringify!($a), " or ", stringify!($b)) };
    ($a:ident, $($rest:ident),+) => { concat!(stringify!($a), ", ", $crate::__unit_choices!($($rest),+)) };
}

/// Runs `$body` with `$B` bound to the testbench type of unit `$unit` (a
/// `&str`); an unknown unit is an input error. `$body` is an expression of
/// type `Result<_>`.
#[macro_export]
macro_rules! with_testbench {
    ($unit:expr, $B:ident => $body:expr) => {
        $crate::units!(__with_testbench [($unit) $B ($body)])
    };
}

/// The expansion of [`with_testbench!`](crate::with_testbench) over the
/// registry.
#[macro_export]
#[doc(hidden)]
macro_rules! __with_testbench {
    ([($name:expr) $B:ident ($body:expr)] $($unit:ident => $Tb:ident),* $(,)?) => {{
        match $name {
            $(
                stringify!($unit) => {
                    #[allow(dead_code)]
                    type $B = $crate::units::$unit::$Tb;
                    $body
                }
            )*
            other => Err($crate::error::Error::Input(format!(
                "unknown unit `{other}` (expected one of: {})",
                $crate::units::UNITS.join(", ")
            ))),
        }
    }};
}

/// The `eval` calculator of a unit.
pub fn evaluator(unit: &str, profile: Profile) -> crate::error::Result<Evaluator> {
    crate::with_testbench!(unit, B => Ok(B::evaluator(profile)))
}

/// A result with the index of its request (`"request": n`, the request's
/// position in a batch or a stream, 0 for a lone request).
pub(crate) fn indexed(v: serde_json::Value, n: usize) -> serde_json::Value {
    match v {
        serde_json::Value::Object(mut m) => {
            m.insert("request".into(), n.into());
            serde_json::Value::Object(m)
        }
        other => serde_json::json!({"request": n, "result": other}),
    }
}

/// Applies `one` to a request, or to each request of an array (in order,
/// naming the failing request's index in the error); each result carries
/// its request's index.
pub(crate) fn each_request(
    input: &serde_json::Value,
    mut one: impl FnMut(&serde_json::Value) -> Result<serde_json::Value, String>,
) -> Result<serde_json::Value, String> {
    match input {
        serde_json::Value::Array(reqs) => reqs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                one(r)
                    .map(|v| indexed(v, i))
                    .map_err(|e| format!("request {i}: {}", clip(&e)))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(serde_json::Value::Array),
        other => one(other).map(|v| indexed(v, 0)).map_err(|e| clip(&e)),
    }
}

/// Whether `unit` is registered.
pub fn is_registered(unit: &str) -> bool {
    UNITS.contains(&unit)
}

/// The `eval` calculator of a unit over a whole input held in memory.
pub fn eval_json(
    unit: &str,
    profile: Profile,
    input: &serde_json::Value,
) -> crate::error::Result<serde_json::Value> {
    let mut e = evaluator(unit, profile)?;
    each_request(input, &mut e).map_err(Error::Input)
}

/// Characters of a quoted value kept in an error message.
pub const QUOTE_MAX: usize = 100;

/// Shortens what an error message quotes: a `backtick span` or a word of
/// more than [`QUOTE_MAX`] characters keeps its start and says how long it
/// was, so a huge offending value never makes a huge "one-line" error.
pub fn clip(msg: &str) -> String {
    fn short(s: &str) -> String {
        let n = s.chars().count();
        if n <= QUOTE_MAX {
            return s.to_string();
        }
        let head: String = s.chars().take(QUOTE_MAX - 20).collect();
        format!("{head}… ({n} characters)")
    }
    let mut out = String::new();
    for (i, part) in msg.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(&short(part));
        } else {
            let words: Vec<String> = part.split(' ').map(short).collect();
            out.push_str(&words.join(" "));
        }
    }
    let line: String = out.replace(['\n', '\r'], " ");
    if line.chars().count() > 10 * QUOTE_MAX {
        let head: String = line.chars().take(10 * QUOTE_MAX).collect();
        return format!("{head}…");
    }
    line
}

/// `gpucosim eval`: reads requests from `input` one at a time — one JSON
/// value, a JSON array of them, or a sequence of them (JSON lines) — and
/// writes each result to `out` as soon as it is computed, so neither side
/// is ever held in memory whole. Each result carries its request's index
/// (`"request"`). A bad request stops the stream with an error naming its
/// index (the results before it are written).
///
/// Output: one request's result is printed indented, an array's results
/// as an indented array, JSON lines as one compact result per line; with
/// `compact`, every result is one compact line whatever the input's shape.
pub fn eval_stream(
    unit: &str,
    profile: gpucosim_model::Profile,
    input: impl std::io::Read,
    out: &mut dyn std::io::Write,
    compact: bool,
) -> crate::error::Result<()> {
    use crate::error::Error;
    use serde::de::{Deserializer as _, Error as _, SeqAccess, Visitor};
    use std::io::BufRead;
    let mut e = evaluator(unit, profile)?;
    let mut input = std::io::BufReader::with_capacity(1 << 16, input);
    let io = |err: std::io::Error| Error::Env(format!("eval output: {err}"));
    // The first byte that is not white space tells the shape.
    let first = loop {
        let buf = input
            .fill_buf()
            .map_err(|err| Error::Input(format!("cannot read the eval input: {err}")))?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let b = buf[i];
                input.consume(i);
                break Some(b);
            }
            None if buf.is_empty() => break None,
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    };
    let Some(first) = first else {
        return Err(Error::Input(
            "eval input is empty: expected a JSON request".into(),
        ));
    };
    let bad_json = |err: serde_json::Error| {
        Error::Input(clip(&format!(
            "eval input {}",
            crate::json::what_is_wrong(&err)
        )))
    };
    if first == b'[' {
        struct Each<'a> {
            e: &'a mut Evaluator,
            out: &'a mut dyn std::io::Write,
            n: usize,
            compact: bool,
            failed: Option<Error>,
        }
        impl<'de> Visitor<'de> for &mut Each<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of requests")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
                while let Some(crate::json::Strict(req)) = seq.next_element()? {
                    let r = (self.e)(&req)
                        .map_err(|m| Error::Input(format!("request {}: {}", self.n, clip(&m))));
                    let w = r.and_then(|v| {
                        let v = indexed(v, self.n);
                        let written = if self.compact {
                            let text = serde_json::to_string(&v).expect("JSON values serialise");
                            writeln!(self.out, "{text}").and_then(|()| self.out.flush())
                        } else {
                            let sep = if self.n == 0 { "[\n" } else { ",\n" };
                            let text =
                                serde_json::to_string_pretty(&v).expect("JSON values serialise");
                            write!(self.out, "{sep}{text}")
                        };
                        written.map_err(|err| Error::Env(format!("eval output: {err}")))
                    });
                    if let Err(err) = w {
                        self.failed = Some(err);
                        return Err(A::Error::custom("stopped"));
                    }
                    self.n += 1;
                }
                Ok(())
            }
        }
        let mut each = Each {
            e: &mut e,
            out,
            n: 0,
            compact,
            failed: None,
        };
        let mut de = serde_json::Deserializer::from_reader(input);
        let r = (&mut de).deserialize_seq(&mut each);
        if let Some(err) = each.failed.take() {
            let _ = each.out.flush();
            return Err(err);
        }
        r.and_then(|()| de.end()).map_err(bad_json)?;
        let close = match (compact, each.n) {
            (true, _) => "",
            (false, 0) => "[]\n",
            (false, _) => "\n]\n",
        };
        each.out.write_all(close.as_bytes()).map_err(io)?;
        return each.out.flush().map_err(io);
    }
    if unit == "waitcnt" {
        return eval_stream_waitcnt(profile, input, out, compact);
    }
    let mut values = serde_json::Deserializer::from_reader(input)
        .into_iter::<crate::json::Strict>()
        .map(|v| v.map(|s| s.0));
    // One value in: its result pretty-printed. Several (JSON lines): one
    // compact result per line, each written when computed.
    let mut lines = compact;
    let mut pending: Option<serde_json::Value> = None;
    let mut n = 0usize;
    loop {
        let next = match values.next().transpose() {
            Ok(next) => next,
            Err(err) => {
                // More input came, so the results are JSON lines: the one
                // held back goes out before the error.
                if let Some(prev) = pending.take() {
                    let text = serde_json::to_string(&prev).expect("JSON values serialise");
                    writeln!(out, "{text}").map_err(io)?;
                }
                let _ = out.flush();
                return Err(bad_json(err));
            }
        };
        if let Some(prev) = pending.take() {
            lines |= next.is_some();
            let text = if lines {
                serde_json::to_string(&prev)
            } else {
                serde_json::to_string_pretty(&prev)
            };
            writeln!(out, "{}", text.expect("JSON values serialise")).map_err(io)?;
        }
        let Some(req) = next else { break };
        let r = e(&req).map_err(|m| {
            if n == 0 {
                Error::Input(clip(&m))
            } else {
                Error::Input(format!("request {n}: {}", clip(&m)))
            }
        });
        match r {
            // Compact output needs no look-ahead: the result goes out now.
            Ok(v) if compact => {
                let text = serde_json::to_string(&indexed(v, n)).expect("JSON values serialise");
                writeln!(out, "{text}").map_err(io)?;
            }
            Ok(v) => pending = Some(indexed(v, n)),
            Err(err) => {
                let _ = out.flush();
                return Err(err);
            }
        }
        n += 1;
        if lines {
            out.flush().map_err(io)?;
        }
    }
    out.flush().map_err(io)
}

/// [`eval_stream`] of the waitcnt unit outside an array: each request read
/// and answered in one pass ([`waitcnt::eval::stream_request`]), so that a
/// trace of millions of cycles needs the memory of one cycle. Each result
/// is held in a temporary file until it is complete (a failing request
/// prints nothing, as with the other units); the output is the one the
/// other units give (one request: pretty-printed; JSON lines or
/// `--compact`: one compact result a line, each when complete).
fn eval_stream_waitcnt(
    profile: gpucosim_model::Profile,
    input: impl std::io::Read,
    out: &mut dyn std::io::Write,
    compact: bool,
) -> crate::error::Result<()> {
    use crate::error::Error;
    use std::io::{Seek, SeekFrom, Write};
    use waitcnt::eval::{stream_request, Streamed};
    let io = |err: std::io::Error| Error::Env(format!("eval output: {err}"));
    let held_err = |err: std::io::Error| {
        Error::Env(format!(
            "eval: cannot hold a result in a temporary file: {err}"
        ))
    };
    let mut held = tempfile::tempfile().map_err(held_err)?;
    let copy_out = |held: &mut std::fs::File, out: &mut dyn Write| -> crate::error::Result<()> {
        held.seek(SeekFrom::Start(0)).map_err(held_err)?;
        std::io::copy(held, out).map_err(io)?;
        writeln!(out).map_err(io)?;
        out.flush().map_err(io)
    };
    let mut de = serde_json::Deserializer::from_reader(input);
    // Request 0's result, printed once the input's shape is known.
    let mut pending = false;
    let mut lines = compact;
    let mut n = 0usize;
    loop {
        let more = de.end().is_err();
        if pending && more {
            lines = true;
            pending = false;
            copy_out(&mut held, out)?;
        }
        if !more {
            break;
        }
        held.set_len(0).map_err(held_err)?;
        held.seek(SeekFrom::Start(0)).map_err(held_err)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut held);
        let r = stream_request(profile, &mut de, n, &mut w);
        w.flush().map_err(held_err)?;
        drop(w);
        match r {
            Ok(()) if lines => copy_out(&mut held, out)?,
            Ok(()) => pending = true,
            Err(Streamed::Request(m)) => {
                let _ = out.flush();
                return Err(Error::Input(if n == 0 {
                    clip(&m)
                } else {
                    format!("request {n}: {}", clip(&m))
                }));
            }
            Err(Streamed::Json(m)) => {
                let _ = out.flush();
                return Err(Error::Input(clip(&format!("eval input {m}"))));
            }
            Err(Streamed::Output(e)) => return Err(held_err(e)),
        }
        n += 1;
    }
    if pending {
        held.seek(SeekFrom::Start(0)).map_err(held_err)?;
        let mut src = serde_json::Deserializer::from_reader(std::io::BufReader::new(&mut held));
        let mut dst = serde_json::Serializer::pretty(&mut *out);
        serde_transcode::transcode(&mut src, &mut dst)
            .map_err(|e| Error::Env(format!("eval output: {e}")))?;
        writeln!(out).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// The line before a unit doc's generated knob table.
pub const KNOB_DOC_BEGIN: &str =
    "<!-- knobs: generated from the unit's KNOBS table; GPUCOSIM_BLESS=1 cargo test -p gpucosim-tests --test tb_unit tables_in_the_docs rewrites it -->";
/// The line after it.
pub const KNOB_DOC_END: &str = "<!-- end of knobs -->";
/// The line before a unit doc's generated coverage-bin table.
pub const BIN_DOC_BEGIN: &str =
    "<!-- bins: generated from the unit's bins! declaration; GPUCOSIM_BLESS=1 cargo test -p gpucosim-tests --test tb_unit tables_in_the_docs rewrites it -->";
/// The line after it.
pub const BIN_DOC_END: &str = "<!-- end of bins -->";
