//! The data-format tables of `model/src/ta/isa.rs` against LLVM 19's
//! assembler (SPEC §1.1, §1.2).
//!
//! What `llvm-mc` prints for `tbuffer_load_format_x ... format:N` (gfx11,
//! every 7-bit code) and `... dfmt:N, nfmt:1` (gfx9, every 4-bit dfmt) is
//! recorded in `goldens/llvm19_buffer_formats.txt`. The tables are checked
//! against that record on any machine; where `llvm-mc` is present, the
//! record is also checked against what it prints now, and each named gfx11
//! format is assembled to check its code (see `llvm/mod.rs` for the policy
//! and the command that rewrites the record).

mod llvm;

use gpucosim_model::ta::isa::{gfx11_format, GFX11_FORMATS, GFX9_DFMT};
use std::path::Path;

const GOLDEN: &str = "llvm19_buffer_formats.txt";
const INSN: &str = "tbuffer_load_format_x v1, off, s[0:3], 0";

/// One recorded line: profile, code, and the format operand as `llvm-mc`
/// prints it (`None`: it prints none).
type Entry = (String, u32, Option<String>);

fn source(profile: &str, code: u32) -> String {
    match profile {
        "gfx11" => format!("{INSN} format:{code}\n"),
        _ => format!("tbuffer_load_format_x v1, off, s[0:3], dfmt:{code}, nfmt:1, 0\n"),
    }
}

fn mcpu(profile: &str) -> &'static str {
    if profile == "gfx11" {
        "gfx1100"
    } else {
        "gfx900"
    }
}

/// What `llvm-mc` prints for every code of `profile`.
fn disassemble(mc: &Path, profile: &str) -> Vec<Entry> {
    let n = if profile == "gfx11" { 128 } else { 16 };
    let src: String = (0..n).map(|c| source(profile, c)).collect();
    let (out, _) = llvm::run(mc, mcpu(profile), &[], src);
    let lines = llvm::instruction_lines(&out);
    assert_eq!(lines.len(), n as usize, "one line per code:\n{out}");
    lines
        .iter()
        .enumerate()
        .map(|(c, l)| {
            let rest = l
                .strip_prefix(INSN)
                .unwrap_or_else(|| panic!("unexpected line {l:?}"))
                .trim();
            (
                profile.to_string(),
                c as u32,
                (!rest.is_empty()).then(|| rest.to_string()),
            )
        })
        .collect()
}

fn parse(text: &str) -> Result<Vec<Entry>, String> {
    llvm::golden_lines(text)
        .filter(|l| !l.starts_with("llvm "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                [p @ ("gfx9" | "gfx11"), c, f] => Ok((
                    p.to_string(),
                    c.parse().map_err(|_| format!("bad code in {l:?}"))?,
                    (*f != "-").then(|| f.to_string()),
                )),
                _ => Err(format!("bad line {l:?}")),
            }
        })
        .collect()
}

fn write(version: &str, entries: &[Entry]) -> String {
    let mut s = String::from(
        "# What llvm-mc prints for the format of `tbuffer_load_format_x v1, off,\n\
         # s[0:3], 0 format:CODE` (gfx11, gfx1100, every 7-bit code) and of\n\
         # `... dfmt:CODE, nfmt:1, 0` (gfx9, gfx900, every dfmt): PROFILE CODE\n\
         # PRINTED, `-` when it prints no format (the default). Recorded by\n\
         #   GPUCOSIM_BLESS=1 cargo test --release -p gpucosim-model --test ta_formats_llvm\n",
    );
    s.push_str(&format!("llvm {version}\n"));
    for (p, c, f) in entries {
        s.push_str(&format!("{p} {c} {}\n", f.as_deref().unwrap_or("-")));
    }
    s
}

/// The names inside `format:[...]`, if it is symbolic.
fn symbolic(f: &str) -> Option<Vec<&str>> {
    f.strip_prefix("format:[")?
        .strip_suffix(']')
        .map(|s| s.split(',').collect())
}

/// The tables against the record.
fn check_model(entries: &[Entry]) -> Result<(), String> {
    let count = |p: &str| entries.iter().filter(|e| e.0 == p).count();
    if count("gfx11") != 128 || count("gfx9") != 16 {
        return Err("the record does not cover every code".into());
    }
    for (p, c, f) in entries {
        if p == "gfx11" {
            let ours = gfx11_format(*c).map(|(d, n)| format!("BUF_FMT_{}_{}", d.name(), n.name()));
            let ok = match f.as_deref() {
                // LLVM leaves out the default format, BUF_FMT_8_UNORM = 1.
                None => *c == 1 && ours.as_deref() == Some("BUF_FMT_8_UNORM"),
                Some(f) => match symbolic(f) {
                    Some(names) if *c == 0 => names == ["BUF_FMT_INVALID"] && ours.is_none(),
                    Some(names) => names.len() == 1 && ours.as_deref() == Some(names[0]),
                    // A code LLVM has no name for is one the model has none for.
                    None => ours.is_none(),
                },
            };
            if !ok {
                return Err(format!("gfx11 code {c}: llvm-mc {f:?}, table {ours:?}"));
            }
        } else {
            let data = f
                .as_deref()
                .and_then(symbolic)
                .and_then(|n| n.iter().find_map(|s| s.strip_prefix("BUF_DATA_FORMAT_")))
                // LLVM leaves out the default data format, BUF_DATA_FORMAT_8 = 1.
                .unwrap_or("8");
            let ours = GFX9_DFMT[*c as usize].name();
            if ours != data {
                return Err(format!("gfx9 dfmt {c}: llvm-mc {f:?}, table {ours}"));
            }
        }
    }
    Ok(())
}

/// The record against `llvm-mc`, and the assembly direction.
fn check_live(entries: &[Entry], mc: &Path) -> Result<(), String> {
    for p in ["gfx11", "gfx9"] {
        let now = disassemble(mc, p);
        let rec: Vec<&Entry> = entries.iter().filter(|e| e.0 == p).collect();
        for (a, b) in now.iter().zip(&rec) {
            if a != *b {
                return Err(format!("llvm-mc now prints {a:?}, the record says {b:?}"));
            }
        }
    }
    // Each named format assembles to its code (bits [25:19] of the first
    // dword).
    let src: String = GFX11_FORMATS
        .iter()
        .map(|(d, n)| format!("{INSN} format:[BUF_FMT_{}_{}]\n", d.name(), n.name()))
        .collect();
    let (out, _) = llvm::run(mc, "gfx1100", &["-show-encoding"], src);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("tbuffer_load_format_x"))
        .collect();
    if lines.len() != GFX11_FORMATS.len() {
        return Err(format!(
            "{} encodings for {} formats",
            lines.len(),
            GFX11_FORMATS.len()
        ));
    }
    for (i, line) in lines.iter().enumerate() {
        let enc = line
            .split("encoding: [")
            .nth(1)
            .ok_or("no encoding shown")?;
        let b: Vec<u32> = enc
            .trim_end_matches(']')
            .split(',')
            .take(4)
            .map(|x| u32::from_str_radix(x.trim().trim_start_matches("0x"), 16).unwrap())
            .collect();
        let w0 = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24;
        if (w0 >> 19) & 0x7F != i as u32 + 1 {
            return Err(format!("format {} assembles to {line}", i + 1));
        }
    }
    Ok(())
}

fn check(text: &str, mc: Option<&Path>) -> Result<(), String> {
    let entries = parse(text)?;
    check_model(&entries)?;
    if let Some(mc) = mc {
        check_live(&entries, mc)?;
    }
    Ok(())
}

#[test]
fn the_format_tables_are_llvm_mcs() {
    let mc = llvm::llvm_mc();
    if llvm::blessing() {
        let mc = mc
            .as_deref()
            .expect("llvm-mc is needed to rewrite the goldens");
        let mut all = disassemble(mc, "gfx11");
        all.extend(disassemble(mc, "gfx9"));
        llvm::write_golden(GOLDEN, &write(&llvm::version(mc), &all));
    }
    if mc.is_none() {
        llvm::note_no_live_check("ta_formats_llvm");
    }
    check(&llvm::golden(GOLDEN), mc.as_deref()).unwrap();
}

/// The record is checked without `llvm-mc`, and an edited record fails.
#[test]
fn the_record_is_checked_without_llvm_and_an_edit_fails() {
    let text = llvm::golden(GOLDEN);
    check(&text, None).unwrap();
    let edited = text.replacen(
        "gfx11 2 format:[BUF_FMT_8_SNORM]",
        "gfx11 2 format:[BUF_FMT_8_UNORM]",
        1,
    );
    assert_ne!(
        edited, text,
        "the gfx11 code 2 line is not where the test expects it"
    );
    assert!(
        check(&edited, None).is_err(),
        "an edited format name was not noticed"
    );
    let dropped = text.replacen("gfx9 15 ", "gfx9 14 ", 1);
    assert!(
        check(&dropped, None).is_err(),
        "an edited gfx9 line was not noticed"
    );
}
