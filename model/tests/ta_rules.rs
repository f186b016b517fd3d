//! `ta` rules, one test per rule of SPEC §1.3–§1.5 and docs/ta.md, each with
//! expectations computed by hand from the rule's text (shown in comments).

use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::tlm::{buffer_offset, coalesce, compute, get_bit, pieces, Pieces};
use gpucosim_model::ta::TaParams;
use gpucosim_model::ta::{Instr, Kind, LaneResults, Op, Vsharp, VsharpFields};
use gpucosim_model::Profile::{self, Gfx11, Gfx9};

fn run(profile: Profile, i: &Instr) -> LaneResults {
    let mut r = LaneResults::default();
    compute(profile, i, &mut r, &mut Events::default());
    r
}

/// A dword load of lane 0 only, offen, with the given V#.
fn load(profile: Profile, vs: VsharpFields, size: u32) -> Instr {
    Instr {
        vsharp: vs.encode(profile),
        size,
        offen: true,
        exec: 1,
        ..Instr::default()
    }
}

fn inr(r: &LaneResults, lane: usize) -> [bool; 4] {
    [0, 1, 2, 3].map(|d| get_bit(&r.inrange, 4 * lane + d))
}

fn acc(r: &LaneResults, lane: usize) -> [bool; 4] {
    [0, 1, 2, 3].map(|d| get_bit(&r.access, 4 * lane + d))
}

#[test]
fn seed001_swizzle_example_index_stride_8_element_size_4() {
    // Seed 001: IS = 8, ES = 4, stride 16, index 10, offset 8:
    // (10/8*16 + 8/4*4)*8 + 10%8*4 + 8%4 = (16 + 8)*8 + 8 + 0 = 200.
    for profile in [Gfx9, Gfx11] {
        let vs = VsharpFields {
            base: 0x1000,
            stride: 16,
            num_records: 100,
            // gfx9: swizzle_en = 1, ES = 2 << elem_size(1) = 4;
            // gfx11: swizzle_enable = 1 means 4-byte elements (elem_size ignored).
            swizzle: 1,
            elem_size: 1,
            index_stride: 0, // 8 << 0 = 8
            ..Default::default()
        };
        let d = Vsharp::decode(profile, vs.encode(profile));
        assert_eq!((d.swizzle_es, d.index_stride), (Some(4), 8));
        assert_eq!(buffer_offset(&d, 10, 8), (200, false));
        let mut i = load(profile, vs, 4);
        i.idxen = true;
        i.vindex[0] = 10;
        i.voffset[0] = 8;
        i.soffset = 0x20;
        // address = base + soffset + buffer_offset (soffset is not part of offset).
        assert_eq!(run(profile, &i).addr[0], 0x1000 + 0x20 + 200);
    }
}

#[test]
fn linear_address_and_multi_dword_slots() {
    // SPEC §1.3: 3*16 + (4 + 8) = 60; dword d at offset + 4d.
    let vs = VsharpFields {
        base: 0x10000,
        stride: 16,
        num_records: 10,
        ..Default::default()
    };
    let mut i = load(Gfx9, vs, 16);
    i.idxen = true;
    i.vindex[0] = 3;
    i.voffset[0] = 4;
    i.inst_offset = 8;
    i.soffset = 0x100;
    let r = run(Gfx9, &i);
    // 0x10000 + 0x100 + 60 = 0x1013C, then + 4 per dword.
    assert_eq!(&r.addr[..4], &[0x1013C, 0x10140, 0x10144, 0x10148]);
    // gfx9 stride rule with idxen: offsets 12 in; 16, 20, 24 >= stride out.
    assert_eq!(inr(&r, 0), [true, false, false, false]);
}

#[test]
fn gfx9_stride0_range_includes_soffset() {
    // gfx9, stride == 0: out iff buffer_offset + soffset >= num_records.
    let vs = VsharpFields {
        num_records: 100,
        ..Default::default()
    };
    let mut i = load(Gfx9, vs, 4);
    i.voffset[0] = 96;
    assert_eq!(inr(&run(Gfx9, &i), 0), [true, false, false, false]);
    i.voffset[0] = 100;
    assert_eq!(inr(&run(Gfx9, &i), 0), [false; 4]);
    i.voffset[0] = 96;
    i.soffset = 4; // 96 + 4 >= 100
    assert_eq!(inr(&run(Gfx9, &i), 0), [false; 4]);
    // Per dword: dwordx2 at 96 → dword 0 (96) in, dword 1 (100) out and dropped.
    let mut i = load(Gfx9, vs, 8);
    i.voffset[0] = 96;
    let r = run(Gfx9, &i);
    assert_eq!(inr(&r, 0), [true, false, false, false]);
    assert_eq!(acc(&r, 0), [true, false, false, false]);
}

#[test]
fn gfx9_stride_rule_index_and_offset() {
    // gfx9, stride != 0: out iff index >= num_records, or offset >= stride
    // when idxen or add_tid.
    let vs = VsharpFields {
        stride: 16,
        num_records: 4,
        ..Default::default()
    };
    let mut i = load(Gfx9, vs, 4);
    i.idxen = true;
    i.vindex[0] = 3;
    i.voffset[0] = 12;
    assert!(inr(&run(Gfx9, &i), 0)[0]);
    i.vindex[0] = 4;
    assert!(!inr(&run(Gfx9, &i), 0)[0], "index == num_records");
    i.vindex[0] = 3;
    i.voffset[0] = 16;
    assert!(!inr(&run(Gfx9, &i), 0)[0], "offset == stride with idxen");
    i.idxen = false; // no idxen, no add_tid: only index (0) is checked
    assert!(inr(&run(Gfx9, &i), 0)[0]);
    let vs_tid = VsharpFields {
        add_tid: true,
        ..vs
    };
    let mut i = load(Gfx9, vs_tid, 4);
    i.voffset[0] = 16;
    assert!(!inr(&run(Gfx9, &i), 0)[0], "offset == stride with add_tid");
    // dwordx4 at offset 8 with idxen: dwords at 8, 12 in; 16, 20 out.
    let mut i = load(Gfx9, vs, 16);
    i.idxen = true;
    i.voffset[0] = 8;
    assert_eq!(inr(&run(Gfx9, &i), 0), [true, true, false, false]);
}

#[test]
fn gfx9_all_or_nothing_any_dword_out_makes_the_lane_out() {
    // MUBUF format with dfmt 14 (32_32_32_32, ES 16): 4 slots at 4, 8, 12, 16;
    // stride 0, num_records 16: slot 3 (16) is out, so the whole lane is.
    let vs = VsharpFields {
        num_records: 16,
        format: 14,
        ..Default::default()
    };
    let mut i = load(Gfx9, vs, 0);
    i.kind = Kind::MubufFormat;
    i.voffset[0] = 4;
    let r = run(Gfx9, &i);
    assert_eq!(inr(&r, 0), [false; 4]);
    assert_eq!(acc(&r, 0), [false; 4]);
    i.voffset[0] = 0;
    let r = run(Gfx9, &i);
    assert_eq!(inr(&r, 0), [true; 4]);
    assert_eq!(acc(&r, 0), [true; 4]);
}

fn gfx11(oob: u32, stride: u32, nr: u32) -> VsharpFields {
    VsharpFields {
        stride,
        num_records: nr,
        oob_select: oob,
        ..Default::default()
    }
}

#[test]
fn gfx11_oob0_index_and_offset_plus_payload() {
    // mode 0: out iff index >= num_records or offset + payload > stride.
    let mut i = load(Gfx11, gfx11(0, 16, 4), 8);
    i.idxen = true;
    i.vindex[0] = 3;
    i.voffset[0] = 12; // dword 0: 12 + 4 <= 16 in; dword 1: 16 + 4 > 16 out
    assert_eq!(inr(&run(Gfx11, &i), 0), [true, false, false, false]);
    i.vindex[0] = 4;
    assert_eq!(inr(&run(Gfx11, &i), 0), [false; 4]);
    let mut i = load(Gfx11, gfx11(0, 16, 4), 1);
    i.voffset[0] = 15; // 15 + 1 <= 16
    assert!(inr(&run(Gfx11, &i), 0)[0]);
    // Mode 0 applies without idxen too (index 0 < 4), and soffset is excluded.
    i.soffset = 1000;
    assert!(inr(&run(Gfx11, &i), 0)[0]);
}

#[test]
fn gfx11_oob1_index_only() {
    let mut i = load(Gfx11, gfx11(1, 16, 4), 4);
    i.idxen = true;
    i.vindex[0] = 3;
    i.voffset[0] = 1000; // offset not checked
    assert!(inr(&run(Gfx11, &i), 0)[0]);
    i.vindex[0] = 4;
    assert!(!inr(&run(Gfx11, &i), 0)[0]);
}

#[test]
fn gfx11_oob2_num_records_zero_only() {
    let mut i = load(Gfx11, gfx11(2, 16, 1), 4);
    i.idxen = true;
    i.vindex[0] = 0xFFFF_FFFF;
    assert!(inr(&run(Gfx11, &i), 0)[0]);
    let i = load(Gfx11, gfx11(2, 16, 0), 4);
    assert!(!inr(&run(Gfx11, &i), 0)[0]);
}

#[test]
fn gfx11_oob3_linear_and_swizzled() {
    // Linear: out iff buffer_offset + payload > num_records.
    let mut i = load(Gfx11, gfx11(3, 0, 8), 16);
    let r = run(Gfx11, &i);
    assert_eq!(inr(&r, 0), [true, true, false, false]);
    i.soffset = 64; // soffset excluded
    assert_eq!(inr(&run(Gfx11, &i), 0), [true, true, false, false]);
    // Swizzled with stride != 0: the mode-0 rule (offset + 4 > stride = 4 for dword 1).
    let vs = VsharpFields {
        swizzle: 1,
        ..gfx11(3, 4, 8)
    };
    let i = load(Gfx11, vs, 8);
    assert_eq!(inr(&run(Gfx11, &i), 0), [true, false, false, false]);
    // Reserved swizzle_enable 2 is off: linear rule, 0+4 <= 8 and 4+4 <= 8.
    let vs = VsharpFields {
        swizzle: 2,
        ..gfx11(3, 4, 8)
    };
    let i = load(Gfx11, vs, 8);
    assert_eq!(inr(&run(Gfx11, &i), 0), [true, true, false, false]);
}

#[test]
fn gfx11_all_or_nothing_checked_once_with_the_whole_payload() {
    // 64-bit atomic, oob 3 linear: 8 + 8 <= 16 in; with num_records 15 out.
    let mut i = load(Gfx11, gfx11(3, 0, 16), 8);
    i.op = Op::Atomic;
    i.voffset[0] = 8;
    let r = run(Gfx11, &i);
    assert_eq!(inr(&r, 0), [true, true, false, false]);
    assert_eq!(acc(&r, 0), [true, true, false, false]);
    i.vsharp = gfx11(3, 0, 15).encode(Gfx11);
    let r = run(Gfx11, &i);
    assert_eq!(inr(&r, 0), [false; 4]);
    // MTBUF 32_32_32 (FORMAT 60, ES 12), oob 0 stride 12: 0 + 12 <= 12 in.
    let mut i = load(Gfx11, gfx11(0, 12, 1), 0);
    i.kind = Kind::Mtbuf;
    i.fmt = 60;
    assert_eq!(inr(&run(Gfx11, &i), 0), [true, true, true, false]);
    i.voffset[0] = 4; // 4 + 12 > 12: whole lane out
    assert_eq!(inr(&run(Gfx11, &i), 0), [false; 4]);
}

#[test]
fn alignment_mode_dword_clears_low_bits_and_checks_the_unclear_offset() {
    // Mode 0: dword-or-wider ops ignore address bits [1:0]; no MEMVIOL.
    let vs = VsharpFields {
        base: 0x1000,
        num_records: 8,
        ..Default::default()
    };
    let mut i = load(Gfx9, vs, 8);
    i.voffset[0] = 2;
    let r = run(Gfx9, &i);
    assert_eq!(&r.addr[..2], &[0x1000, 0x1004]);
    assert_eq!(r.memviol, 0);
    // Range on unclear offsets: 2 + 0 < 8 in, 6 < 8 in.
    assert_eq!(inr(&r, 0), [true, true, false, false]);
    i.voffset[0] = 6; // dword 1 at 10 >= 8: out even though its cleared address is 0x1008
    assert_eq!(inr(&run(Gfx9, &i), 0), [true, false, false, false]);
    // 2-byte op: bit 0 cleared only; 1-byte op untouched.
    let mut i = load(Gfx9, vs, 2);
    i.voffset[0] = 3;
    assert_eq!(run(Gfx9, &i).addr[0], 0x1002);
    i.size = 1;
    assert_eq!(run(Gfx9, &i).addr[0], 0x1003);
}

#[test]
fn alignment_strict_modes_raise_memviol_and_drop_the_lane() {
    let vs = VsharpFields {
        base: 0x1000,
        num_records: 1000,
        ..Default::default()
    };
    let case = |mode: u32, size: u32, off: u32| {
        let mut i = load(Gfx9, vs, size);
        i.align_mode = mode;
        i.voffset[0] = off;
        let r = run(Gfx9, &i);
        assert_eq!(
            r.memviol != 0,
            r.access[0] & 1 == 0,
            "MEMVIOL drops the access"
        );
        r.memviol != 0
    };
    // DWORD_STRICT: aligned to min(size, 4).
    assert!(case(1, 4, 2));
    assert!(!case(1, 1, 1));
    assert!(case(1, 2, 1));
    assert!(!case(1, 16, 4));
    // STRICT: the access size; 12 bytes need 4.
    assert!(case(2, 8, 4));
    assert!(!case(2, 12, 4));
    assert!(case(2, 16, 8));
    assert!(!case(2, 16, 16));
    // UNALIGNED: anything goes, address kept.
    assert!(!case(3, 16, 3));
    let mut i = load(Gfx9, vs, 4);
    i.align_mode = 3;
    i.voffset[0] = 3;
    assert_eq!(run(Gfx9, &i).addr[0], 0x1003);
}

#[test]
fn format_and_atomic_alignment_in_every_mode() {
    let vs = VsharpFields {
        base: 0x1000,
        num_records: 1000,
        format: 2, // gfx9 dfmt 16: ES 2
        ..Default::default()
    };
    for mode in 0..4 {
        let mut i = load(Gfx9, vs, 0);
        i.kind = Kind::MubufFormat;
        i.align_mode = mode;
        i.voffset[0] = 1;
        let r = run(Gfx9, &i);
        assert_eq!(
            (r.memviol, r.addr[0]),
            (1, 0x1001),
            "format, mode {mode}: no clearing"
        );
        i.voffset[0] = 2;
        assert_eq!(run(Gfx9, &i).memviol, 0);
        let mut a = load(Gfx9, vs, 8);
        a.op = Op::AtomicRet;
        a.align_mode = mode;
        a.voffset[0] = 4;
        assert_eq!(run(Gfx9, &a).memviol, 1, "64-bit atomic at 4, mode {mode}");
        a.size = 4;
        assert_eq!(run(Gfx9, &a).memviol, 0, "32-bit atomic at 4, mode {mode}");
    }
}

#[test]
fn mismatched_resource_accesses_nothing_and_raises_no_memviol() {
    // oob_select 3 (linear rule on gfx11): 2 + 4 <= 100 is in range.
    let vs = VsharpFields {
        rtype: 2,
        ..gfx11(3, 0, 100)
    };
    for profile in [Gfx9, Gfx11] {
        let mut i = load(profile, vs, 4);
        i.align_mode = 1;
        i.voffset[0] = 2;
        i.exec = u64::MAX;
        let r = run(profile, &i);
        assert_eq!((r.access, r.memviol), ([0; 4], 0));
        assert!(get_bit(&r.inrange, 0), "range results are still computed");
    }
}

#[test]
fn all_zero_vsharp_drops_every_access() {
    for profile in [Gfx9, Gfx11] {
        for (kind, size) in [(Kind::Mubuf, 4), (Kind::Mubuf, 16), (Kind::MubufFormat, 0)] {
            let mut i = load(profile, VsharpFields::default(), size);
            i.kind = kind;
            i.exec = u64::MAX;
            let r = run(profile, &i);
            assert_eq!(
                (r.inrange, r.access),
                ([0; 4], [0; 4]),
                "{profile} {kind:?}"
            );
        }
    }
}

#[test]
fn invalid_formats_have_no_slots() {
    // gfx9 dfmt 0 and 15; gfx11 code 0 and MTBUF codes past the table.
    for (profile, fmt) in [(Gfx9, 0), (Gfx9, 15), (Gfx11, 0), (Gfx11, 64), (Gfx11, 127)] {
        let mut i = load(profile, gfx11(1, 0, 1000), 4);
        i.kind = Kind::Mtbuf;
        i.fmt = fmt;
        i.align_mode = 1;
        i.voffset[0] = 1;
        let r = run(profile, &i);
        assert_eq!(
            (r.inrange, r.access, r.memviol),
            ([0; 4], [0; 4], 0),
            "{profile} {fmt}"
        );
    }
}

#[test]
fn wave32_lanes_above_31_are_inactive() {
    let mut i = load(Gfx11, gfx11(1, 0, 1000), 4);
    i.exec = u64::MAX;
    i.wave64 = false;
    let r = run(Gfx11, &i);
    assert_eq!(
        r.access,
        [0x1111_1111_1111_1111, 0x1111_1111_1111_1111, 0, 0]
    );
    // gfx9 ignores wave64_i: always wave64.
    let mut i = load(
        Gfx9,
        VsharpFields {
            num_records: 1000,
            ..Default::default()
        },
        4,
    );
    i.exec = u64::MAX;
    i.wave64 = false;
    assert_eq!(run(Gfx9, &i).active, u64::MAX);
}

#[test]
fn address_wraps_at_2_48_and_offset_at_2_32() {
    let vs = VsharpFields {
        base: 0xFFFF_FFFF_FFF0,
        num_records: 0xFFFF_FFFF,
        ..Default::default()
    };
    let mut i = load(Gfx9, vs, 4);
    i.soffset = 0x20;
    assert_eq!(run(Gfx9, &i).addr[0], 0x10);
    // offset = voffset + inst_offset wraps at 2^32, and so does offset + 4d.
    let vs = VsharpFields {
        base: 0x1000,
        num_records: 0xFFFF_FFFF,
        ..Default::default()
    };
    let mut i = load(Gfx9, vs, 8);
    i.voffset[0] = 0xFFFF_FFFC;
    i.inst_offset = 0;
    let r = run(Gfx9, &i);
    assert_eq!(&r.addr[..2], &[0x1000 + 0xFFFF_FFFC, 0x1000]);
}

#[test]
fn lines_coalesce_per_line_in_first_piece_order() {
    // 64 lanes, dword, stride-4 offsets from 0: 256 bytes = 4 lines of 64 on
    // gfx9 (full masks), 2 lines of 128 on gfx11.
    for (profile, lines, mask) in [(Gfx9, 4usize, u64::MAX as u128), (Gfx11, 2, u128::MAX)] {
        let mut i = load(profile, gfx11(1, 0, 10_000), 4);
        if profile == Gfx9 {
            i.vsharp = VsharpFields {
                num_records: 10_000,
                ..Default::default()
            }
            .encode(Gfx9);
        }
        i.exec = u64::MAX;
        for l in 0..64 {
            i.voffset[l] = 4 * (63 - l as u32); // descending: lane 0 in the last line
        }
        let r = run(profile, &i);
        let mut p = Pieces::default();
        pieces(&r, TaParams::of(profile).line_bytes, &mut p);
        let reqs = coalesce(p.as_slice(), TaParams::of(profile).line_bytes);
        assert_eq!(reqs.len(), lines);
        let lb = TaParams::of(profile).line_bytes as u64;
        for (k, q) in reqs.iter().enumerate() {
            assert_eq!(q.addr, (lines - 1 - k) as u64 * lb, "lane 0's line first");
            assert_eq!(q.mask, mask);
            assert_eq!(q.last, k + 1 == lines);
        }
    }
}

#[test]
fn unaligned_dword_crossing_a_line_makes_two_pieces() {
    // UNALIGNED dword at 62 on 64-byte lines: bytes 62,63 of line 0, 0,1 of line 1.
    let mut i = load(
        Gfx9,
        VsharpFields {
            num_records: 1000,
            ..Default::default()
        },
        4,
    );
    i.align_mode = 3;
    i.voffset[0] = 62;
    let r = run(Gfx9, &i);
    let mut p = Pieces::default();
    assert!(pieces(&r, 64, &mut p));
    let reqs = coalesce(p.as_slice(), 64);
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        (reqs[0].addr, reqs[0].mask, reqs[0].last),
        (0, 0b11 << 62, false)
    );
    assert_eq!((reqs[1].addr, reqs[1].mask, reqs[1].last), (64, 0b11, true));
}

/// SPEC §1.1 (**Decided**): gfx11 `swizzle_enable = 2` (reserved) is
/// treated as 0, linear. gfx11, stride 16, IS 8, index 10, offset 20:
/// linear 10*16 + 20 = 180; swizzle 1 (ES 4) gives
/// (10/8*16 + 20/4*4)*8 + 10%8*4 + 20%4 = 288 + 8 = 296, swizzle 3 (ES 16)
/// (10/8*16 + 20/16*16)*8 + 10%8*16 + 20%16 = 256 + 32 + 4 = 292. Fails if
/// 2 is read as a swizzled mode.
#[test]
fn spec_1_1_gfx11_reserved_swizzle_enable_2_is_linear() {
    let vs = |swizzle| VsharpFields {
        base: 0x4000,
        stride: 16,
        num_records: 100,
        swizzle,
        oob_select: 1,
        ..Default::default()
    };
    let addr = |swizzle| {
        let mut i = load(Gfx11, vs(swizzle), 4);
        i.idxen = true;
        i.vindex[0] = 10;
        i.voffset[0] = 20;
        run(Gfx11, &i).addr[0]
    };
    assert_eq!(Vsharp::decode(Gfx11, vs(2).encode(Gfx11)).swizzle_es, None);
    assert_eq!(addr(0), 0x4000 + 180);
    assert_eq!(addr(2), 0x4000 + 180, "reserved 2 behaves as 0");
    assert_eq!(addr(1), 0x4000 + 296, "1: 4-byte elements");
    assert_eq!(addr(3), 0x4000 + 292, "3: 16-byte elements");
}

/// SPEC §1.2 (**Decided**): an invalid (0) or reserved (gfx9 dfmt 15)
/// format drops the access — nothing in range, nothing accessed — and
/// raises no MEMVIOL, even where a valid format's alignment rule would
/// (a format op at offset 1 in DWORD_STRICT mode; with dfmt 4 = 32, ES 4,
/// it raises MEMVIOL). Covers MUBUF format ops (format from the V#) and
/// MTBUF (format from the instruction). Fails if an invalid format
/// accesses memory or raises MEMVIOL.
#[test]
fn spec_1_2_invalid_or_reserved_format_drops_without_memviol() {
    // (profile, V#/instruction format code, valid?)
    let cases = [
        (Gfx9, 0, false),  // dfmt 0: invalid
        (Gfx9, 15, false), // dfmt 15: reserved
        (Gfx9, 4, true),   // dfmt 4: 32, ES 4
        (Gfx11, 0, false), // FORMAT 0: invalid
        (Gfx11, 20, true), // FORMAT 20: 32_UINT, ES 4
    ];
    for (profile, fmt, valid) in cases {
        for kind in [Kind::MubufFormat, Kind::Mtbuf] {
            let vs = VsharpFields {
                num_records: 1000,
                format: if kind == Kind::MubufFormat { fmt } else { 0 },
                oob_select: 1,
                ..Default::default()
            };
            let mut i = load(profile, vs, 0);
            i.kind = kind;
            i.fmt = fmt;
            i.align_mode = 1;
            i.voffset[0] = 1;
            let r = run(profile, &i);
            let what = format!("{profile} {kind:?} format {fmt}");
            if valid {
                assert_eq!(r.memviol, 1, "{what}: misaligned valid format");
            } else {
                assert_eq!(r.memviol, 0, "{what}: no MEMVIOL");
                assert_eq!((r.inrange, r.access), ([0; 4], [0; 4]), "{what}");
                // Aligned, it is dropped all the same.
                i.voffset[0] = 0;
                let r = run(profile, &i);
                assert_eq!((r.access, r.memviol), ([0; 4], 0), "{what} aligned");
            }
        }
    }
}

/// SPEC §1.3 (**Decided**): on a swizzled buffer each dword of a
/// multi-dword access goes through the formula at its own offset
/// `offset + 4*d`. ES 4, IS 8, stride 16, index 1, offset 0:
/// (1/8*16 + 4d/4*4)*8 + 1%8*4 + 4d%4 = 32d + 4, so a dwordx4 lands at
/// 4, 36, 68, 100 (four elements); with ES 16 the access fits one element:
/// (0 + 4d/16*16)*8 + 1*16 + 4d%16 = 16 + 4d, i.e. 16, 20, 24, 28. Fails if
/// the formula is applied once and the dwords follow at +4.
#[test]
fn spec_1_3_each_dword_is_swizzled_on_its_own_offset() {
    for (profile, swizzle, elem_size, want) in [
        // gfx9: swizzle_en, ES = 2 << elem_size; gfx11: swizzle_enable 1 / 3.
        (Gfx9, 1, 1, [4u64, 36, 68, 100]),
        (Gfx11, 1, 0, [4, 36, 68, 100]),
        (Gfx9, 1, 3, [16, 20, 24, 28]),
        (Gfx11, 3, 0, [16, 20, 24, 28]),
    ] {
        let vs = VsharpFields {
            base: 0x8000,
            stride: 16,
            num_records: 100,
            swizzle,
            elem_size,
            index_stride: 0,
            oob_select: 1,
            ..Default::default()
        };
        let mut i = load(profile, vs, 16);
        i.idxen = true;
        i.offen = false;
        i.vindex[0] = 1;
        let r = run(profile, &i);
        assert_eq!(
            &r.addr[..4],
            &want.map(|a| 0x8000 + a),
            "{profile} swizzle {swizzle} elem_size {elem_size}"
        );
    }
}
