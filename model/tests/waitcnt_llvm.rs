//! Differential test of the `s_waitcnt` decoder against LLVM 19's
//! disassembler: every one of the 65,536 immediates per profile is
//! disassembled by `llvm-mc` in one invocation and the printed thresholds are
//! compared with `waitcnt::decode`. The test fails if any immediate decodes
//! differently, or if `llvm-mc` is missing (unless `GPUCOSIM_SKIP_LLVM=1`).

use gpucosim_model::waitcnt::{decode, decode_word, Thresholds};
use gpucosim_model::Profile;
use std::io::Write;
use std::process::{Command, Stdio};

const LLVM_MC: &str = "/usr/lib/llvm-19/bin/llvm-mc";

fn llvm_mc() -> Option<String> {
    if std::path::Path::new(LLVM_MC).exists() {
        return Some(LLVM_MC.to_string());
    }
    if std::env::var("GPUCOSIM_SKIP_LLVM").as_deref() == Ok("1") {
        eprintln!("llvm-mc not found at {LLVM_MC}; skipped (GPUCOSIM_SKIP_LLVM=1)");
        return None;
    }
    panic!(
        "llvm-mc not found at {LLVM_MC}: install Debian's llvm-19 (as .ci/run does), \
         or set GPUCOSIM_SKIP_LLVM=1 to skip this cross-check"
    );
}

/// Parses `s_waitcnt vmcnt(a) expcnt(b) lgkmcnt(c)` (fields may be missing:
/// missing ones are at their maximum, i.e. taken from `none`).
fn parse(line: &str, none: Thresholds) -> Result<Thresholds, String> {
    let rest = line
        .trim()
        .strip_prefix("s_waitcnt")
        .ok_or_else(|| format!("not an s_waitcnt: {line:?}"))?;
    let mut t = none;
    for tok in rest.split_whitespace() {
        let tok = tok.trim_end_matches(',');
        let (name, val) = tok
            .strip_suffix(')')
            .and_then(|s| s.split_once('('))
            .ok_or_else(|| format!("unexpected token {tok:?} in {line:?}"))?;
        let v: u32 = val.parse().map_err(|_| format!("bad value in {line:?}"))?;
        match name {
            "vmcnt" => t.vm = v,
            "expcnt" => t.exp = v,
            "lgkmcnt" => t.lgkm = v,
            _ => return Err(format!("unknown field {name:?} in {line:?}")),
        }
    }
    Ok(t)
}

fn cross_check(profile: Profile, mcpu: &str) {
    let Some(mc) = llvm_mc() else { return };
    let op = profile.params().waitcnt_opcode;
    let mut input = String::with_capacity(65536 * 20);
    for imm in 0..=0xFFFFu32 {
        let w = op << 16 | imm;
        let b = w.to_le_bytes();
        input.push_str(&format!(
            "0x{:02x},0x{:02x},0x{:02x},0x{:02x}\n",
            b[0], b[1], b[2], b[3]
        ));
    }
    let mut child = Command::new(&mc)
        .args(["-arch=amdgcn", &format!("-mcpu={mcpu}"), "--disassemble"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc runs");
    writer.join().unwrap().expect("input written to llvm-mc");
    assert!(
        out.status.success(),
        "llvm-mc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8 output");
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect();
    assert_eq!(lines.len(), 65536, "one disassembled line per immediate");
    let none = Thresholds::none(profile);
    let mut mismatches = Vec::new();
    for (imm, line) in lines.iter().enumerate() {
        let ours = decode(profile, imm as u16);
        let theirs = parse(line, none).unwrap_or_else(|e| panic!("imm 0x{imm:04X}: {e}"));
        if ours != theirs {
            mismatches.push(format!("0x{imm:04X}: llvm `{line}`, decoder {ours:?}"));
        }
        // The text form is LLVM's too.
        if ours.text(profile) != *line {
            mismatches.push(format!(
                "0x{imm:04X}: llvm `{line}`, text `{}`",
                ours.text(profile)
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches on {profile}, first: {:?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(5)]
    );
}

#[test]
fn gfx9_decoder_matches_llvm_for_all_immediates() {
    cross_check(Profile::Gfx9, "gfx900");
}

#[test]
fn gfx11_decoder_matches_llvm_for_all_immediates() {
    cross_check(Profile::Gfx11, "gfx1100");
}

#[test]
fn spec_3_2_examples() {
    let t = decode_word(Profile::Gfx9, 0xBF8C_0070).unwrap();
    assert_eq!((t.vm, t.lgkm, t.exp), (0, 0, 7));
    assert_eq!(
        decode(Profile::Gfx9, 0xCF7F),
        Thresholds::none(Profile::Gfx9)
    );
    let t = decode_word(Profile::Gfx11, 0xBF89_0007).unwrap();
    assert_eq!((t.vm, t.lgkm, t.exp), (0, 0, 7));
    assert_eq!(
        decode(Profile::Gfx11, 0xFFF7),
        Thresholds::none(Profile::Gfx11)
    );
}

#[test]
fn parser_reads_llvm_forms() {
    let none = Thresholds::none(Profile::Gfx9);
    let t = parse("s_waitcnt vmcnt(15)", none).unwrap();
    assert_eq!((t.vm, t.exp, t.lgkm), (15, 7, 15));
    assert!(parse("s_nop 0", none).is_err());
}
