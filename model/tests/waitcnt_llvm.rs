//! Differential test of the wait decoders against LLVM 19's disassembler:
//! every one of the 65,536 `s_waitcnt` immediates per profile, and every
//! `s_waitcnt_vscnt null, imm` word `0xBC7C0000 | imm` (SPEC §3.2), is
//! disassembled by `llvm-mc` in one invocation per profile and instruction,
//! and the printed result is compared with `waitcnt::decode` /
//! `waitcnt::decode_wait_word`. The test fails if any word decodes
//! differently, or if `llvm-mc` is missing (unless `GPUCOSIM_SKIP_LLVM=1`).

use gpucosim_model::waitcnt::{decode, decode_wait_word, decode_word, Thresholds, Wait};
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

/// Parses `s_waitcnt_vscnt null, 0x5`: the printed immediate.
fn parse_vscnt(line: &str) -> Result<u16, String> {
    let imm = line
        .trim()
        .strip_prefix("s_waitcnt_vscnt null,")
        .ok_or_else(|| format!("not an s_waitcnt_vscnt null: {line:?}"))?
        .trim();
    let hex = imm
        .strip_prefix("0x")
        .ok_or_else(|| format!("immediate not in hex in {line:?}"))?;
    u16::from_str_radix(hex, 16).map_err(|_| format!("bad immediate in {line:?}"))
}

/// The instruction lines of `llvm-mc`'s output (directives such as `.text`
/// and blank lines left out).
fn instruction_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect()
}

/// How many words `llvm-mc` rejected (one warning each on stderr).
fn invalid_encodings(stderr: &str) -> usize {
    stderr.matches("invalid instruction encoding").count()
}

/// The 32-bit words `op << 16 | imm` for every imm16, as `llvm-mc` byte
/// lists (little-endian), one per line.
fn byte_lines(op: u32) -> String {
    let mut input = String::with_capacity(65536 * 20);
    for imm in 0..=0xFFFFu32 {
        let w = op << 16 | imm;
        let b = w.to_le_bytes();
        input.push_str(&format!(
            "0x{:02x},0x{:02x},0x{:02x},0x{:02x}\n",
            b[0], b[1], b[2], b[3]
        ));
    }
    input
}

/// Disassembles `input` with `llvm-mc` for `mcpu`: (stdout, stderr).
fn disassemble(mc: &str, mcpu: &str, input: String) -> (String, String) {
    let mut child = Command::new(mc)
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
    (
        String::from_utf8(out.stdout).expect("utf-8 output"),
        String::from_utf8(out.stderr).expect("utf-8 errors"),
    )
}

fn cross_check(profile: Profile, mcpu: &str) {
    let Some(mc) = llvm_mc() else { return };
    let op = profile.params().waitcnt_opcode;
    let (text, _) = disassemble(&mc, mcpu, byte_lines(op));
    let lines = instruction_lines(&text);
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

/// SPEC §3.2: gfx11 `s_waitcnt_vscnt null, imm` is `0xBC7C0000 | imm`; LLVM
/// prints the whole immediate, the threshold is its bits [5:0]. Every word is
/// decoded as LLVM reads it, with LLVM's text.
#[test]
fn gfx11_vscnt_words_match_llvm_for_all_immediates() {
    let Some(mc) = llvm_mc() else { return };
    let (text, _) = disassemble(&mc, "gfx1100", byte_lines(0xBC7C));
    let lines = instruction_lines(&text);
    assert_eq!(lines.len(), 65536, "one disassembled line per immediate");
    let mut mismatches = Vec::new();
    for (imm, line) in lines.iter().enumerate() {
        let word = 0xBC7C_0000 | imm as u32;
        let theirs = parse_vscnt(line).unwrap_or_else(|e| panic!("imm 0x{imm:04X}: {e}"));
        match decode_wait_word(Profile::Gfx11, word) {
            Ok(w) => {
                if w != (Wait {
                    vscnt: true,
                    imm: theirs,
                }) {
                    mismatches.push(format!("0x{word:08X}: llvm `{line}`, decoder {w:?}"));
                }
                if w.text(Profile::Gfx11) != *line {
                    mismatches.push(format!(
                        "0x{word:08X}: llvm `{line}`, text `{}`",
                        w.text(Profile::Gfx11)
                    ));
                }
                let t = decode_word(Profile::Gfx11, word).unwrap();
                if t.vs != u32::from(theirs & 0x3F) {
                    mismatches.push(format!("0x{word:08X}: llvm `{line}`, threshold {}", t.vs));
                }
            }
            Err(e) => mismatches.push(format!("0x{word:08X}: llvm `{line}`, decoder error {e}")),
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first: {:?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(5)]
    );
}

/// gfx9 has no `s_waitcnt_vscnt`: LLVM rejects every `0xBC7C0000 | imm` word
/// for gfx900, and so does the decoder, saying why.
#[test]
fn gfx9_rejects_every_vscnt_word_as_llvm_does() {
    let Some(mc) = llvm_mc() else { return };
    let (text, errors) = disassemble(&mc, "gfx900", byte_lines(0xBC7C));
    assert_eq!(instruction_lines(&text), Vec::<&str>::new());
    assert_eq!(invalid_encodings(&errors), 65536);
    for imm in 0..=0xFFFFu32 {
        let e = decode_wait_word(Profile::Gfx9, 0xBC7C_0000 | imm).unwrap_err();
        assert!(e.contains("gfx9 has no VS_CNT"), "0x{imm:04X}: {e}");
    }
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
    assert_eq!(parse_vscnt("s_waitcnt_vscnt null, 0xffc5"), Ok(0xFFC5));
    assert_eq!(parse_vscnt("\ts_waitcnt_vscnt null, 0x0"), Ok(0));
    assert!(parse_vscnt("s_waitcnt_vscnt m0, 0x5").is_err());
    assert!(parse_vscnt("s_waitcnt_vscnt null, 5").is_err());
    assert_eq!(instruction_lines("\t.text\n\ts_nop 0\n\n"), vec!["s_nop 0"]);
    assert_eq!(
        invalid_encodings("<stdin>:1:1: warning: invalid instruction encoding\n"),
        1
    );
}
