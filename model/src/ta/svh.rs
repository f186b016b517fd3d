//! `rtl/ta/ta_enc.svh`: the geometry (lanes, slots, address and line-mask
//! widths), the request encodings (`kind_i`, `op_i`, `align_mode_i`), each
//! profile's row (line size, wave32, V# layout, range rule, format table),
//! the V# field positions and the format tables' element sizes, rendered
//! from [`isa`](super::isa), [`tlm`](super::tlm) and
//! [`PARAMS`](super::params::PARAMS) for the RTL package (`crate::svh`).

use super::isa::{gfx11_format, Kind, Op, VsField, ADDR_W, ALIGN_MODES, GFX9_DFMT, LANES};
use super::params::{FormatEncoding, RangeRule, SwizzleEncoding, TaParams, MAX_LINE_BYTES};
use super::tlm::{NSLOTS, SLOTS};
use crate::profile::Profile;
use crate::svh::{bit, camel, clog2, lit, Svh};

/// Bits of a slot index (`SlotW`).
#[doc(hidden)]
pub const SLOT_W: u32 = clog2(NSLOTS as u64);
const _: () = assert!(1 << SLOT_W >= NSLOTS && 1 << (SLOT_W - 1) < NSLOTS);

/// `case` items grouping the codes (of `width` bits) with the same value.
fn grouped(width: u32, codes: impl Iterator<Item = (u32, u32)>, var: &str) -> Vec<String> {
    let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
    for (code, v) in codes {
        match groups.iter_mut().find(|g| g.0 == v) {
            Some(g) => g.1.push(code),
            None => groups.push((v, vec![code])),
        }
    }
    let mut out = Vec::new();
    for (v, codes) in groups {
        let labels: Vec<String> = codes.iter().map(|&c| lit(width, c.into())).collect();
        let chunks: Vec<String> = labels.chunks(8).map(|c| c.join(", ")).collect();
        out.push(format!(
            "{}: {var} = {};",
            chunks.join(",\n  "),
            lit(5, v.into())
        ));
    }
    out
}

/// A function `signature` returning the element size in bytes of each
/// code of `arg` (`width` bits), from `(code, bytes)` pairs.
fn byte_table(
    s: &mut Svh,
    comment: &str,
    signature: &str,
    arg: &str,
    width: u32,
    codes: impl Iterator<Item = (u32, u32)>,
) {
    s.comment(comment);
    s.line(format!("function automatic logic [4:0] {signature};"));
    s.line("  logic [4:0] b;");
    s.line(format!("  unique case ({arg})"));
    for r in grouped(width, codes, "b") {
        for l in r.lines() {
            s.line(format!("    {l}"));
        }
    }
    s.line("    default: b = 5'd0;");
    s.line("  endcase");
    s.line("  return b;");
    s.line("endfunction");
}

/// The text of `rtl/ta/ta_enc.svh`.
pub fn enc_svh() -> String {
    let mut s = Svh::new(
        "ta",
        "model/src/ta (isa.rs LANES, ADDR_W, Kind, Op, ALIGN_MODES, VsField, format tables; \
         tlm.rs SLOTS, NSLOTS; params.rs PARAMS, MAX_LINE_BYTES)",
    );
    s.comment("Geometry.");
    s.sizes(&[
        ("NumLanes", LANES as u64, "LANES"),
        ("NumDw", SLOTS as u64, "SLOTS: dword slots per lane"),
        ("NumSlots", NSLOTS as u64, "NSLOTS = NumLanes * NumDw"),
        ("SlotW", SLOT_W.into(), "$clog2(NumSlots)"),
        ("AddrW", ADDR_W.into(), "ADDR_W: bits of a byte address"),
        (
            "MaskW",
            MAX_LINE_BYTES.into(),
            "MAX_LINE_BYTES: width of line_mask_o",
        ),
    ]);
    s.line("");
    s.comment("Instruction kind (kind_i; 3 is taken as MTBUF).");
    s.line("typedef enum logic [1:0] {");
    let kinds = [Kind::Mubuf, Kind::MubufFormat, Kind::Mtbuf];
    for (i, k) in kinds.iter().enumerate() {
        assert_eq!(Kind::from_bits(i as u32), *k);
        let comma = if i + 1 < kinds.len() { "," } else { "" };
        s.line(format!("  Kind{k:?} = {}{comma}", lit(2, i as u64)));
    }
    s.line("} kind_e;");
    s.line("");
    s.comment("Operation (op_i).");
    s.line("typedef enum logic [1:0] {");
    let ops = [Op::Load, Op::Store, Op::Atomic, Op::AtomicRet];
    for (i, o) in ops.iter().enumerate() {
        let comma = if i + 1 < ops.len() { "," } else { "" };
        s.line(format!("  Op{o:?} = {}{comma}", lit(2, *o as u64)));
    }
    s.line("} op_e;");
    s.line("");
    s.comment("SH_MEM_CONFIG.alignment_mode (align_mode_i).");
    s.line("typedef enum logic [1:0] {");
    for (i, m) in ALIGN_MODES.iter().enumerate() {
        let comma = if i + 1 < ALIGN_MODES.len() { "," } else { "" };
        s.line(format!("  Align{} = {}{comma}", camel(m), lit(2, i as u64)));
    }
    s.line("} align_mode_e;");
    s.line("");
    s.comment("The profile table: the GFX parameter selects a row; other values take gfx9's.");
    s.per_profile("profile_of", "profile_t", "", "p", &[], |p: Profile| {
        let t = TaParams::of(p);
        let vsharp = match t.swizzle {
            SwizzleEncoding::EnableBitElemSize => "VsGfx9",
            SwizzleEncoding::EnableEs => "VsGfx11",
        };
        let range = match t.range {
            RangeRule::Gfx9 => "RangeGfx9",
            RangeRule::OobSelect => "RangeGfx11",
        };
        let fmt = match t.format {
            FormatEncoding::DfmtNfmt => "FmtGfx9",
            FormatEncoding::Unified => "FmtGfx11",
        };
        vec![format!(
            "p = '{{line_lg: {}, wave32: {}, vsharp: {vsharp}, range: {range}, fmt: {fmt}}};",
            lit(4, t.line_bytes.trailing_zeros().into()),
            bit(p.wave32())
        )]
    });
    s.comment("V# fields: lowest bit and width per profile (width 0: the profile has none).");
    s.line("typedef enum logic [3:0] {");
    for (i, f) in VsField::ALL.iter().enumerate() {
        let comma = if i + 1 < VsField::ALL.len() { "," } else { "" };
        s.line(format!("  Vs{f:?} = {}{comma}", lit(4, *f as u64)));
    }
    s.line("} vs_field_e;");
    s.line("");
    for (name, get) in [
        (
            "vs_lo",
            (|l: &super::isa::VsLayout, f| l.lo(f)) as fn(&super::isa::VsLayout, VsField) -> u32,
        ),
        ("vs_width", |l, f| l.width(f)),
    ] {
        s.per_profile(
            name,
            "int unsigned",
            "vs_field_e f",
            "r",
            &["r = 0;".into()],
            |p| {
                let l = &TaParams::of(p).vsharp;
                let mut v = vec!["unique case (f)".to_string()];
                for f in VsField::ALL {
                    v.push(format!("  Vs{f:?}: r = {};", get(l, f)));
                }
                v.push("  default: r = 0;".into());
                v.push("endcase".into());
                v
            },
        );
    }
    byte_table(
        &mut s,
        "gfx9 data format (dfmt): element size in bytes, 0 = invalid or reserved.",
        "gfx9_dfmt_bytes(logic [3:0] dfmt)",
        "dfmt",
        4,
        GFX9_DFMT
            .iter()
            .enumerate()
            .map(|(c, d)| (c as u32, d.elem_bytes().unwrap_or(0))),
    );
    s.line("");
    byte_table(
        &mut s,
        "gfx11 unified FORMAT: element size in bytes, 0 = invalid (0, and 64..127,\n\
         which have no symbolic name).",
        "gfx11_fmt_bytes(logic [6:0] fmt)",
        "fmt",
        7,
        (0..128u32).map(|c| {
            (
                c,
                gfx11_format(c)
                    .and_then(|(d, _)| d.elem_bytes())
                    .unwrap_or(0),
            )
        }),
    );
    s.finish()
}
