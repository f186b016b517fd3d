//! The wait decoders against LLVM 19's disassembler (SPEC §3.2): every one of
//! the 65,536 `s_waitcnt` immediates per profile, and every
//! `s_waitcnt_vscnt null, imm` word `0xBC7C0000 | imm`.
//!
//! What `llvm-mc` says is recorded in `goldens/llvm19_waitcnt.txt`: for each
//! profile, the imm16 bits each counter field is read from, and how the
//! instruction is printed. The model is checked against every immediate of
//! that record on any machine; where `llvm-mc` is present, the record is
//! also checked line by line against `llvm-mc`'s disassembly of all 65,536
//! words (see `llvm/mod.rs` for the policy and the command that rewrites
//! the record).

mod llvm;

use gpucosim_model::waitcnt::{
    decode, decode_wait_word, decode_word, Thresholds, Wait, WaitcntParams,
};
use gpucosim_model::Profile;
use std::path::Path;

const GOLDEN: &str = "llvm19_waitcnt.txt";

/// How `llvm-mc` reads `s_waitcnt` on one profile: the fields in the order
/// it prints them, each with the imm16 bits it is read from, most
/// significant first.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    profile: Profile,
    mcpu: String,
    opcode: u32,
    fields: Vec<(String, Vec<u32>)>,
}

impl Layout {
    /// The value of each field for `imm`.
    fn values(&self, imm: u16) -> Vec<u32> {
        self.fields
            .iter()
            .map(|(_, bits)| bits.iter().fold(0, |v, &b| v << 1 | (imm as u32 >> b & 1)))
            .collect()
    }

    /// The line `llvm-mc` prints for `imm`: the fields not at their
    /// maximum, or all of them when every one is.
    fn text(&self, imm: u16) -> String {
        let vals = self.values(imm);
        let at_max: Vec<bool> = self
            .fields
            .iter()
            .zip(&vals)
            .map(|((_, bits), v)| *v == (1 << bits.len()) - 1)
            .collect();
        let all = at_max.iter().all(|&m| m);
        let mut s = "s_waitcnt".to_string();
        for (((name, _), v), m) in self.fields.iter().zip(&vals).zip(&at_max) {
            if all || !m {
                s.push_str(&format!(" {name}({v})"));
            }
        }
        s
    }
}

/// How `llvm-mc` handles `s_waitcnt_vscnt null, imm` words on one profile.
#[derive(Debug, Clone, PartialEq)]
struct Vscnt {
    profile: Profile,
    mcpu: String,
    opcode: u32,
    /// Printed as `s_waitcnt_vscnt null, 0x<imm>` (else: not an
    /// instruction of the target).
    printed: bool,
}

/// The record.
#[derive(Debug, Clone, PartialEq)]
struct Golden {
    llvm: String,
    layouts: Vec<Layout>,
    vscnt: Vec<Vscnt>,
}

fn profile(name: &str) -> Result<Profile, String> {
    name.parse().map_err(|_| format!("unknown profile {name}"))
}

fn hex(s: &str) -> Result<u32, String> {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|_| format!("bad opcode {s}"))
}

impl Golden {
    fn parse(text: &str) -> Result<Golden, String> {
        let mut g = Golden {
            llvm: String::new(),
            layouts: Vec::new(),
            vscnt: Vec::new(),
        };
        for line in llvm::golden_lines(text) {
            let w: Vec<&str> = line.split_whitespace().collect();
            match w.as_slice() {
                ["llvm", rest @ ..] => g.llvm = rest.join(" "),
                ["s_waitcnt", p, mcpu, op] => g.layouts.push(Layout {
                    profile: profile(p)?,
                    mcpu: mcpu.to_string(),
                    opcode: hex(op)?,
                    fields: Vec::new(),
                }),
                ["s_waitcnt_vscnt", p, mcpu, op, how] => g.vscnt.push(Vscnt {
                    profile: profile(p)?,
                    mcpu: mcpu.to_string(),
                    opcode: hex(op)?,
                    printed: match *how {
                        "printed" => true,
                        "invalid" => false,
                        _ => return Err(format!("bad line {line:?}")),
                    },
                }),
                [field, bits @ ..] if line.starts_with(' ') && !bits.is_empty() => {
                    let l = g
                        .layouts
                        .last_mut()
                        .ok_or_else(|| format!("field before a profile: {line:?}"))?;
                    let bits = bits
                        .iter()
                        .map(|b| b.parse::<u32>().map_err(|_| format!("bad bit in {line:?}")))
                        .collect::<Result<Vec<_>, _>>()?;
                    l.fields.push((field.to_string(), bits));
                }
                _ => return Err(format!("bad line {line:?}")),
            }
        }
        Ok(g)
    }

    fn write(&self) -> String {
        let mut s = String::from(
            "# What llvm-mc disassembles for s_waitcnt and s_waitcnt_vscnt (SPEC §3.2),\n\
             # recorded by\n\
             #   GPUCOSIM_BLESS=1 cargo test --release -p gpucosim-model --test waitcnt_llvm\n\
             # `s_waitcnt PROFILE MCPU OPCODE`: the word OPCODE << 16 | imm16. Each field\n\
             # line lists the imm16 bits it is read from, most significant first, in the\n\
             # order llvm-mc prints the fields. Every immediate prints as `s_waitcnt`\n\
             # then `field(value)` for each field not at its maximum (every field when\n\
             # all are at their maximum).\n\
             # `s_waitcnt_vscnt PROFILE MCPU OPCODE printed`: every immediate prints as\n\
             # `s_waitcnt_vscnt null, 0x<imm16 in hex>`; `invalid`: no immediate is an\n\
             # instruction of that target.\n",
        );
        s.push_str(&format!("llvm {}\n", self.llvm));
        for l in &self.layouts {
            s.push_str(&format!(
                "s_waitcnt {} {} 0x{:04x}\n",
                l.profile, l.mcpu, l.opcode
            ));
            for (name, bits) in &l.fields {
                let b: Vec<String> = bits.iter().map(|b| b.to_string()).collect();
                s.push_str(&format!("  {name} {}\n", b.join(" ")));
            }
        }
        for v in &self.vscnt {
            s.push_str(&format!(
                "s_waitcnt_vscnt {} {} 0x{:04x} {}\n",
                v.profile,
                v.mcpu,
                v.opcode,
                if v.printed { "printed" } else { "invalid" }
            ));
        }
        s
    }
}

/// Parses `s_waitcnt vmcnt(a) expcnt(b) lgkmcnt(c)` into (name, value) pairs.
fn parse_fields(line: &str) -> Result<Vec<(String, u32)>, String> {
    let rest = line
        .trim()
        .strip_prefix("s_waitcnt")
        .ok_or_else(|| format!("not an s_waitcnt: {line:?}"))?;
    rest.split_whitespace()
        .map(|tok| {
            let tok = tok.trim_end_matches(',');
            let (name, val) = tok
                .strip_suffix(')')
                .and_then(|s| s.split_once('('))
                .ok_or_else(|| format!("unexpected token {tok:?} in {line:?}"))?;
            let v = val.parse().map_err(|_| format!("bad value in {line:?}"))?;
            Ok((name.to_string(), v))
        })
        .collect()
}

/// The 32-bit words `op << 16 | imm` for every imm16, as `llvm-mc` byte
/// lists (little-endian), one per line.
fn byte_lines(op: u32) -> String {
    let mut input = String::with_capacity(65536 * 20);
    for imm in 0..=0xFFFFu32 {
        let b = (op << 16 | imm).to_le_bytes();
        input.push_str(&format!(
            "0x{:02x},0x{:02x},0x{:02x},0x{:02x}\n",
            b[0], b[1], b[2], b[3]
        ));
    }
    input
}

/// `llvm-mc`'s lines for every immediate of `op` on `mcpu`, and how many
/// words it rejected.
fn disassemble_all(mc: &Path, mcpu: &str, op: u32) -> (Vec<String>, usize) {
    let (out, err) = llvm::run(mc, mcpu, &["--disassemble"], byte_lines(op));
    let lines = llvm::instruction_lines(&out)
        .into_iter()
        .map(str::to_string)
        .collect();
    (lines, err.matches("invalid instruction encoding").count())
}

/// Reads the layout of `s_waitcnt` off `llvm-mc`'s lines for every
/// immediate: the all-ones immediate names the fields and their widths,
/// each one-bit immediate the bit it sets.
fn derive_layout(
    profile: Profile,
    mcpu: &str,
    op: u32,
    lines: &[String],
) -> Result<Layout, String> {
    let top = parse_fields(&lines[0xFFFF])?;
    let widths: Vec<u32> = top
        .iter()
        .map(|(_, max)| 32 - max.leading_zeros())
        .collect();
    let mut fields: Vec<(String, Vec<Option<u32>>)> = top
        .iter()
        .zip(&widths)
        .map(|((n, _), w)| (n.clone(), vec![None; *w as usize]))
        .collect();
    for bit in 0..16u32 {
        let got = parse_fields(&lines[1 << bit])?;
        for (f, (name, slots)) in fields.iter_mut().enumerate() {
            let max = top[f].1;
            let v = got.iter().find(|(n, _)| n == name).map_or(max, |(_, v)| *v);
            if v != 0 && v != max {
                if v.count_ones() != 1 {
                    return Err(format!("imm bit {bit} sets {name} to {v}"));
                }
                let j = v.trailing_zeros() as usize;
                let w = slots.len();
                slots[w - 1 - j] = Some(bit);
            }
        }
    }
    let fields = fields
        .into_iter()
        .map(|(n, slots)| {
            let bits: Option<Vec<u32>> = slots.into_iter().collect();
            bits.map(|b| (n.clone(), b))
                .ok_or_else(|| format!("a bit of {n} is read from no imm bit"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let layout = Layout {
        profile,
        mcpu: mcpu.to_string(),
        opcode: op,
        fields,
    };
    // The layout must say everything llvm-mc said.
    compare(&layout, lines)?;
    Ok(layout)
}

/// Whether `layout` expands to exactly `lines`.
fn compare(layout: &Layout, lines: &[String]) -> Result<(), String> {
    if lines.len() != 65536 {
        return Err(format!(
            "{} lines from llvm-mc, expected 65536",
            lines.len()
        ));
    }
    let bad: Vec<String> = (0..=0xFFFFu16)
        .filter(|&imm| layout.text(imm) != lines[imm as usize])
        .take(5)
        .map(|imm| {
            format!(
                "0x{imm:04X}: llvm-mc `{}`, golden `{}`",
                lines[imm as usize],
                layout.text(imm)
            )
        })
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("{} on {}: {bad:?}", layout.mcpu, layout.profile))
    }
}

/// The model against the record, every immediate: thresholds and text.
fn check_model(g: &Golden) -> Result<(), String> {
    if g.layouts.len() != 2 || g.vscnt.len() != 2 {
        return Err("the record does not cover both profiles".into());
    }
    for l in &g.layouts {
        let p = l.profile;
        if WaitcntParams::of(p).waitcnt_opcode != l.opcode {
            return Err(format!(
                "{p}: s_waitcnt opcode 0x{:04x} in the record",
                l.opcode
            ));
        }
        for imm in 0..=0xFFFFu16 {
            let t = decode(p, imm);
            let want = l.values(imm);
            for ((name, _), v) in l.fields.iter().zip(&want) {
                let ours = match name.as_str() {
                    "vmcnt" => t.vm,
                    "expcnt" => t.exp,
                    "lgkmcnt" => t.lgkm,
                    _ => return Err(format!("unknown field {name}")),
                };
                if ours != *v {
                    return Err(format!("{p} imm 0x{imm:04X}: {name} {ours}, llvm-mc {v}"));
                }
            }
            if t.text(p) != l.text(imm) {
                return Err(format!(
                    "{p} imm 0x{imm:04X}: `{}`, llvm-mc `{}`",
                    t.text(p),
                    l.text(imm)
                ));
            }
        }
    }
    for v in &g.vscnt {
        for imm in 0..=0xFFFFu16 {
            let word = v.opcode << 16 | imm as u32;
            match (v.printed, decode_wait_word(v.profile, word)) {
                (true, Ok(w)) => {
                    let text = format!("s_waitcnt_vscnt null, 0x{imm:x}");
                    if w != (Wait { vscnt: true, imm }) || w.text(v.profile) != text {
                        return Err(format!(
                            "0x{word:08X}: {w:?} `{}`, llvm-mc `{text}`",
                            w.text(v.profile)
                        ));
                    }
                    // SPEC §3.2: the threshold is imm[5:0].
                    let t = decode_word(v.profile, word).map_err(|e| e.to_string())?;
                    if t.vs != u32::from(imm & 0x3F) {
                        return Err(format!("0x{word:08X}: threshold {}", t.vs));
                    }
                }
                (false, Err(_)) => {}
                (printed, r) => {
                    return Err(format!(
                        "{} 0x{word:08X}: llvm-mc {}, decoder {r:?}",
                        v.profile,
                        if printed { "decodes it" } else { "rejects it" }
                    ))
                }
            }
        }
    }
    Ok(())
}

/// The record against `llvm-mc` itself, every word.
fn check_live(g: &Golden, mc: &Path) -> Result<(), String> {
    for l in &g.layouts {
        let (lines, _) = disassemble_all(mc, &l.mcpu, l.opcode);
        compare(l, &lines)?;
    }
    for v in &g.vscnt {
        let (lines, invalid) = disassemble_all(mc, &v.mcpu, v.opcode);
        let want: Vec<String> = if v.printed {
            (0..=0xFFFFu32)
                .map(|i| format!("s_waitcnt_vscnt null, 0x{i:x}"))
                .collect()
        } else {
            Vec::new()
        };
        if lines != want || invalid != if v.printed { 0 } else { 65536 } {
            let first = lines.iter().zip(&want).find(|(a, b)| a != b);
            return Err(format!(
                "s_waitcnt_vscnt on {}: llvm-mc printed {} lines ({invalid} invalid), the record says {}; first difference {first:?}",
                v.mcpu,
                lines.len(),
                if v.printed { "65536" } else { "none" }
            ));
        }
    }
    Ok(())
}

/// Writes the record from `llvm-mc`.
fn bless(mc: &Path) -> Golden {
    let mut g = Golden {
        llvm: llvm::version(mc),
        layouts: Vec::new(),
        vscnt: Vec::new(),
    };
    for (p, mcpu) in [(Profile::Gfx9, "gfx900"), (Profile::Gfx11, "gfx1100")] {
        let op = WaitcntParams::of(p).waitcnt_opcode;
        let (lines, _) = disassemble_all(mc, mcpu, op);
        g.layouts
            .push(derive_layout(p, mcpu, op, &lines).unwrap_or_else(|e| panic!("{mcpu}: {e}")));
    }
    for (p, mcpu) in [(Profile::Gfx11, "gfx1100"), (Profile::Gfx9, "gfx900")] {
        let (lines, invalid) = disassemble_all(mc, mcpu, 0xBC7C);
        g.vscnt.push(Vscnt {
            profile: p,
            mcpu: mcpu.into(),
            opcode: 0xBC7C,
            printed: !lines.is_empty() && invalid == 0,
        });
    }
    llvm::write_golden(GOLDEN, &g.write());
    g
}

/// Everything: the model against the record, and the record against
/// `llvm-mc` when it is given.
fn check(text: &str, mc: Option<&Path>) -> Result<(), String> {
    let g = Golden::parse(text)?;
    check_model(&g)?;
    if let Some(mc) = mc {
        check_live(&g, mc)?;
    }
    Ok(())
}

#[test]
fn every_wait_word_decodes_as_llvm_mc_says() {
    let mc = llvm::llvm_mc();
    if llvm::blessing() {
        bless(
            mc.as_deref()
                .expect("llvm-mc is needed to rewrite the goldens"),
        );
    }
    if mc.is_none() {
        llvm::note_no_live_check("waitcnt_llvm");
    }
    check(&llvm::golden(GOLDEN), mc.as_deref()).unwrap();
}

/// The goldens are checked without `llvm-mc`, and a golden that is edited
/// (one bit moved, one rule changed) fails the check.
#[test]
fn the_record_is_checked_without_llvm_and_an_edit_fails() {
    let text = llvm::golden(GOLDEN);
    check(&text, None).unwrap();
    let moved = text.replacen("  vmcnt 15 14 3 2 1 0", "  vmcnt 15 14 3 2 0 1", 1);
    assert_ne!(
        moved, text,
        "the gfx9 vmcnt line is not where the test expects it"
    );
    assert!(check(&moved, None).is_err(), "a moved bit was not noticed");
    let rule = text.replacen("0xbc7c invalid", "0xbc7c printed", 1);
    assert_ne!(rule, text);
    assert!(
        check(&rule, None).is_err(),
        "a changed rule was not noticed"
    );
    let g = Golden::parse(&text).unwrap();
    assert_eq!(
        Golden::parse(&g.write()).unwrap(),
        g,
        "the record does not round-trip"
    );
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
    // gfx9 has no s_waitcnt_vscnt.
    let e = decode_wait_word(Profile::Gfx9, 0xBC7C_0005).unwrap_err();
    assert!(e.contains("gfx9 has no VS_CNT"), "{e}");
}

#[test]
fn llvm_output_is_parsed_and_layouts_print_as_llvm_does() {
    assert_eq!(
        parse_fields("s_waitcnt vmcnt(15) lgkmcnt(0)").unwrap(),
        vec![("vmcnt".to_string(), 15), ("lgkmcnt".to_string(), 0)]
    );
    assert!(parse_fields("s_nop 0").is_err());
    let l = Layout {
        profile: Profile::Gfx9,
        mcpu: "gfx900".into(),
        opcode: 0xBF8C,
        fields: vec![
            ("vmcnt".into(), vec![15, 14, 3, 2, 1, 0]),
            ("expcnt".into(), vec![6, 5, 4]),
            ("lgkmcnt".into(), vec![11, 10, 9, 8]),
        ],
    };
    assert_eq!(l.text(0x0070), "s_waitcnt vmcnt(0) lgkmcnt(0)");
    assert_eq!(l.text(0xCF7F), "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)");
    assert_eq!(l.values(0x4000), vec![16, 0, 0]);
    assert_eq!(
        llvm::instruction_lines("\t.text\n\ts_nop 0\n\n"),
        vec!["s_nop 0"]
    );
}
