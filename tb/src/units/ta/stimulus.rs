//! The `ta` stimulus: seeded random buffer instructions biased to the
//! corners of SPEC §1 by knobs, and directed examples from the seeds.

use super::txn::TaTxn;
use crate::testbench::{Knob, KnobValues, PERCENT};
use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::{FormatEncoding, Instr, Kind, Op, TaParams, VsharpFields};
use gpucosim_model::Profile;
use crate::draw::Draw;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Knobs of the random stimulus (percentages are per instruction).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaKnobs {
    /// MUBUF `*_FORMAT_*` instructions.
    pub format_pct: u32,
    /// MTBUF instructions.
    pub mtbuf_pct: u32,
    /// Atomics.
    pub atomic_pct: u32,
    /// Stores among non-atomic instructions.
    pub store_pct: u32,
    /// Swizzled V#s.
    pub swizzle_pct: u32,
    /// Indices and offsets placed at range edges (num_records - 1 / num_records,
    /// stride - size / stride) instead of spread.
    pub edge_pct: u32,
    /// Bases and offsets near 2^48 / 2^32, so that addresses wrap.
    pub wrap_pct: u32,
    /// Misaligned offsets.
    pub misalign_pct: u32,
    /// Invalid or reserved formats on format instructions.
    pub invalid_format_pct: u32,
    /// V#s with type != 0.
    pub mismatch_pct: u32,
    /// All-zero V#s.
    pub all_zero_pct: u32,
    /// Exec = 0.
    pub exec_zero_pct: u32,
    /// Wave32 (profiles with wave32 only).
    pub wave32_pct: u32,
    /// Instructions run under backpressure on `line_ready_i`.
    pub stall_pct: u32,
    /// Most idle cycles before an instruction is offered.
    pub gap_max: u8,
    /// Encodings no real instruction has but the contract defines (docs/ta.md):
    /// `kind_i = 3`, a format kind with an atomic `op_i`, `size_i` outside
    /// 1/2/4/8/12/16 (and atomic sizes other than 4/8).
    pub odd_encoding_pct: u32,
}

/// The knobs, their values and meanings (docs/ta.md "Stimulus knobs" is
/// generated from it).
pub const KNOBS: &[Knob] = &[
    Knob { name: "format_pct", values: PERCENT, help: "MUBUF `*_FORMAT_*` instructions among non-atomic ones" },
    Knob { name: "mtbuf_pct", values: PERCENT, help: "MTBUF instructions among non-atomic ones (with `format_pct`, at most 100)" },
    Knob { name: "atomic_pct", values: PERCENT, help: "atomics" },
    Knob { name: "store_pct", values: PERCENT, help: "stores among non-atomic instructions" },
    Knob { name: "swizzle_pct", values: PERCENT, help: "swizzled V#s" },
    Knob { name: "edge_pct", values: PERCENT, help: "indices at num_records - 1 / num_records, offsets at the stride or num_records edge, instead of spread" },
    Knob { name: "wrap_pct", values: PERCENT, help: "bases near 2^48, offsets and soffset near 2^32, so that addresses wrap" },
    Knob { name: "misalign_pct", values: PERCENT, help: "misaligned offsets" },
    Knob { name: "invalid_format_pct", values: PERCENT, help: "invalid or reserved formats on format instructions" },
    Knob { name: "mismatch_pct", values: PERCENT, help: "V#s with type != 0" },
    Knob { name: "all_zero_pct", values: PERCENT, help: "all-zero V#s" },
    Knob { name: "exec_zero_pct", values: PERCENT, help: "exec = 0" },
    Knob { name: "wave32_pct", values: PERCENT, help: "wave32 instructions (profiles with wave32 only)" },
    Knob { name: "stall_pct", values: PERCENT, help: "instructions run under a `line_ready_i` backpressure pattern" },
    Knob { name: "gap_max", values: KnobValues::Int(0, 255), help: "most idle cycles before an instruction is offered" },
    Knob { name: "odd_encoding_pct", values: PERCENT, help: "`kind_i = 3`, a format kind with an atomic `op_i`, `size_i` outside 1/2/4/8/12/16" },
];

/// The rules between knobs.
pub fn rules(k: &TaKnobs) -> Result<(), String> {
    if k.format_pct + k.mtbuf_pct > 100 {
        return Err(format!(
            "knobs `format_pct` {} and `mtbuf_pct` {} add up to more than 100",
            k.format_pct, k.mtbuf_pct
        ));
    }
    Ok(())
}

impl Default for TaKnobs {
    fn default() -> Self {
        TaKnobs {
            format_pct: 15,
            mtbuf_pct: 15,
            atomic_pct: 12,
            store_pct: 30,
            swizzle_pct: 30,
            edge_pct: 40,
            wrap_pct: 8,
            misalign_pct: 20,
            invalid_format_pct: 8,
            mismatch_pct: 3,
            all_zero_pct: 3,
            exec_zero_pct: 3,
            wave32_pct: 30,
            stall_pct: 30,
            gap_max: 2,
            odd_encoding_pct: 3,
        }
    }
}

/// The 16-bit values below which a field is drawn `p` times in 100 (the
/// same decision as [`Draw::pct`] makes).
fn threshold16(p: u32) -> u64 {
    (u64::from(p) << 16).div_ceil(100)
}

/// 32 random bits for each lane (two lanes to a 64-bit word): in
/// version 2 a word of the generator for every two lanes, from version 3
/// one word of it as the key of them all ([`Draw::keyed`]). Inlined, so
/// that each copy of the generator computes the keyed words with its own
/// instructions (called, it was compiled for the baseline alone).
#[inline(always)]
fn lane_words(d: &mut Draw, version: u32) -> [u32; LANES] {
    let words: [u64; LANES / 2] = if version >= 3 {
        d.keyed()
    } else {
        std::array::from_fn(|_| d.u64())
    };
    let mut w = [0u32; LANES];
    for (pair, x) in w.chunks_exact_mut(2).zip(words) {
        (pair[0], pair[1]) = (x as u32, (x >> 32) as u32);
    }
    w
}

/// All ones if `b`, else 0.
#[inline(always)]
fn is(b: bool) -> u32 {
    0u32.wrapping_sub(u32::from(b))
}

/// `xs[c]`, or 0 for `c >= 4`, by masks (no branch, no load through an
/// index).
#[inline(always)]
fn pick4(c: u32, xs: [u32; 4]) -> u32 {
    xs[0] & is(c == 0) | xs[1] & is(c == 1) | xs[2] & is(c == 2) | xs[3] & is(c == 3)
}

/// Draws a random transaction of the current stimulus version (3).
pub fn generate(profile: Profile, k: &TaKnobs, rng: &mut ChaCha8Rng) -> TaTxn {
    generate_version(crate::STIMULUS_VERSION, profile, k, rng)
}

gpucosim_model::hot_copies! {
    /// Draws a random transaction of stimulus version 2 or 3: the
    /// distribution of version 1 (`stimulus_v1.rs`), its fields cut from
    /// fewer random words ([`Draw`]); version 3 draws the per-lane words from
    /// one key ([`Draw::keyed`]).
    ///
    /// On x86-64 CPUs with AVX2 or AVX-512 this runs a copy compiled for
    /// x86-64-v3 or v4 (`gpucosim_model::cpu`), where its loops over the 64
    /// lanes vectorise two or four times as wide; every copy draws the same
    /// transactions (`tests/unit/units_ta_stimulus.rs`).
    pub fn generate_version(version: u32, profile: Profile, k: &TaKnobs, rng: &mut ChaCha8Rng) -> TaTxn
        = generate_body;
    copies generate_baseline, generate_x86_64_v3, generate_x86_64_v4, all in generate_copies;
}

#[inline(always)]
fn generate_body(version: u32, profile: Profile, k: &TaKnobs, rng: &mut ChaCha8Rng) -> TaTxn {
    debug_assert!(version >= 2, "version 1 is stimulus_v1.rs");
    let d = &mut Draw::new(rng);
    let gfx9 = TaParams::of(profile).format == FormatEncoding::DfmtNfmt;
    // Built in place: the instruction is 600 bytes.
    let mut t = TaTxn::default();
    let i = &mut t.instr;

    // Class and size.
    let r = d.below(100) as u32;
    let (kind, op, size) = if r < k.atomic_pct {
        (
            Kind::Mubuf,
            d.pick(&[Op::Atomic, Op::AtomicRet]),
            d.pick(&[4, 8]),
        )
    } else {
        let op = if d.pct(k.store_pct) {
            Op::Store
        } else {
            Op::Load
        };
        let r = d.below(100) as u32;
        let kind = if r < k.format_pct {
            Kind::MubufFormat
        } else if r < k.format_pct + k.mtbuf_pct {
            Kind::Mtbuf
        } else {
            Kind::Mubuf
        };
        (kind, op, d.pick(&[1, 2, 4, 4, 8, 12, 16]))
    };
    i.kind = kind;
    i.op = op;
    i.size = size;
    let invalid = kind != Kind::Mubuf && d.pct(k.invalid_format_pct);
    let fmt = match (gfx9, invalid) {
        (true, false) => d.range32(1, 15) | (d.bits(3) as u32) << 4,
        (true, true) => d.pick(&[0, 15]) | (d.bits(3) as u32) << 4,
        (false, false) => d.range32(1, 64),
        (false, true) => d.pick(&[0, 64, 65, 100, 127]),
    };
    i.fmt = if kind == Kind::Mtbuf {
        fmt
    } else {
        d.bits(7) as u32
    };
    let elem = match kind {
        Kind::Mubuf => size.min(4),
        _ => 4,
    };

    // V#.
    let wrap = d.pct(k.wrap_pct);
    let base = if wrap {
        (1u64 << 48) - d.range(1, 0x400)
    } else {
        match d.bits(2) {
            0 => 0,
            1 => d.bits(6) * 0x1000,
            2 => d.bits(48) & !0xFF,
            _ => d.bits(48),
        }
    };
    let stride = d.pick(&[0, 0, 1, 2, 4, 8, 12, 16, 16, 32, 48, 64, 100, 256, 16383]);
    let swizzle = d.pct(k.swizzle_pct);
    let mut vs = VsharpFields {
        base,
        stride,
        swizzle: match (swizzle, gfx9) {
            (false, _) => 0,
            (true, true) => 1,
            (true, false) => d.pick(&[1, 1, 3, 3, 2]),
        },
        cache_swizzle: d.bits(1) as u32,
        elem_size: d.bits(2) as u32,
        index_stride: d.bits(2) as u32,
        add_tid: d.pct(15),
        format: if kind == Kind::MubufFormat {
            fmt & if gfx9 { 15 } else { 63 }
        } else {
            d.bits(6) as u32
        },
        nfmt: d.bits(3) as u32,
        dst_sel: d.bits(12) as u32,
        oob_select: d.bits(2) as u32,
        rtype: if d.pct(k.mismatch_pct) {
            d.range32(1, 4)
        } else {
            0
        },
        num_records: 0,
    };
    if kind == Kind::MubufFormat && gfx9 {
        vs.nfmt = fmt >> 4;
    }

    // Lanes: index and offset patterns. Each lane's fields come from one
    // 64-bit word (and a second one at range edges or wrapping): no
    // branch in the loop depends on a random bit.
    i.idxen = d.bits(1) == 1;
    i.offen = d.pct(70);
    let nr_base = d.range32(1, 80);
    let edge = d.pct(k.edge_pct);
    let pattern = d.bits(2);
    let edge_vi = [nr_base.wrapping_sub(1), nr_base, nr_base + 1];
    let edge_vo = if stride > 0 {
        [
            stride.saturating_sub(size),
            stride - 1,
            stride,
            stride.saturating_sub(4),
        ]
    } else {
        [
            nr_base.saturating_sub(size),
            nr_base.saturating_sub(1),
            nr_base,
            0,
        ]
    };
    // The last choice of an edge index or offset is the pattern's own.
    let edge_choices: u32 = if stride > 0 { 5 } else { 4 };
    let misalign = threshold16(k.misalign_pct);
    // A value in `0..n` from the 16-bit field of `w` at `at`.
    let field = |w: u32, at: u32, n: u32| (((w >> at) & 0xFFFF) * n) >> 16;
    let (vindex, voffset) = (&mut i.vindex, &mut i.voffset);
    // 32 bits a lane: whether its offset is misaligned, and by how much.
    let words = &lane_words(d, version);
    match pattern {
        0 => {
            for l in 0..LANES {
                (vindex[l], voffset[l]) = (l as u32, l as u32 * elem);
            }
        }
        1 => {
            vindex.fill(nr_base / 2);
            voffset.fill(4 * (nr_base / 3));
        }
        2 => {
            let spread = lane_words(d, version);
            for l in 0..LANES {
                (vindex[l], voffset[l]) = (field(spread[l], 0, 100), field(spread[l], 16, 300));
            }
        }
        _ => {
            for l in 0..LANES {
                let lu = l as u32;
                (vindex[l], voffset[l]) = (lu / 4, (lu % 4) * elem);
            }
        }
    }
    if edge || wrap {
        // Choices by masks, the lane's own value last: no branch on a
        // random bit, no load through an index, so that the loop
        // vectorises. The lane's own offset is choice 4 (and 3 when stride
        // is 0).
        //
        // `edge` and `wrap` are applied by masks too, not by branches in
        // the loop: as branches, the compiler made each lane's stores to
        // `voffset` masked stores (`vpmaskmovd`) under the two conditions,
        // and the second condition's masked load of the words the first
        // had just stored cannot take them from the store buffer, which
        // stalled every iteration: driver and stimulus took 10-12 % longer
        // (docs/benchmarks.md, the optimisation log).
        let own = if stride > 0 { 4 } else { 3 };
        let (edge_m, wrap_m) = (is(edge), u32::from(wrap));
        let picks = lane_words(d, version);
        for ((vi, vo), e) in vindex.iter_mut().zip(voffset.iter_mut()).zip(picks) {
            let c = e & 3;
            let vi_edge = pick4(c, [edge_vi[0], edge_vi[1], edge_vi[2], *vi]);
            *vi = vi_edge & edge_m | *vi & !edge_m;
            let c = (((e >> 2) & 0x3FFF) * edge_choices) >> 14;
            let vo_edge = pick4(c, edge_vo) & !is(c >= own) | *vo & is(c >= own);
            let vo_own = vo_edge & edge_m | *vo & !edge_m;
            let m = (e >> 16) & wrap_m;
            *vo = vo_own.wrapping_sub(m * (1 + (((e >> 17) * 31) >> 15)));
        }
    }
    for (vo, &w) in voffset.iter_mut().zip(words) {
        let m = u32::from(u64::from(w & 0xFFFF) < misalign);
        *vo = vo.wrapping_add(m * (1 + field(w, 16, 3)));
    }
    i.inst_offset = if edge && stride > 0 {
        d.pick(&[0, stride.min(4095), stride.saturating_sub(4).min(4095)])
    } else {
        match d.below(7) {
            0 | 1 => 0,
            2 => 4,
            3 => 16,
            4 => 64,
            5 => d.bits(12) as u32,
            _ => 4095,
        }
    };
    i.soffset = if wrap {
        u32::MAX - d.bits(8) as u32
    } else {
        match d.below(6) {
            0 | 1 => 0,
            2 => 4,
            3 => 64,
            4 => d.bits(12) as u32,
            _ => d.u32(),
        }
    };
    vs.num_records = match d.bits(3) {
        0 => 0,
        1 => u32::MAX,
        2 => d.u32(),
        3 => nr_base * stride.max(1),
        _ => nr_base,
    };
    i.vsharp = if d.pct(k.all_zero_pct) {
        0
    } else {
        vs.encode(profile)
    };

    i.align_mode = d.bits(2) as u32;
    i.wave64 = !(profile.wave32() && d.pct(k.wave32_pct));
    i.exec = if d.pct(k.exec_zero_pct) {
        0
    } else {
        match d.below(5) {
            0 | 1 => u64::MAX,
            2 => d.u64(),
            3 => 1 << d.bits(6),
            _ => 0xFFFF_FFFF,
        }
    };
    if d.pct(k.odd_encoding_pct) {
        match d.below(3) {
            // kind_i 3 decodes as MTBUF (`Kind::from_bits`).
            0 if t.instr.kind == Kind::Mtbuf => t.instr.kind = Kind::from_bits(3),
            1 if t.instr.kind != Kind::Mubuf => {
                t.instr.op = Op::from_bits(d.range32(2, 4))
            }
            _ => t.instr.size = d.pick(&[0, 3, 5, 6, 20, 31]),
        }
    }
    t.gap = d.below(u64::from(k.gap_max) + 1) as u8;
    if d.pct(k.stall_pct) {
        t.ready = d.u64() | 1;
        t.ready_len = d.range32(2, 40) as _;
    }
    t
}

/// Directed transactions: the seeds' worked examples and the SPEC's corners.
pub fn directed(profile: Profile) -> Vec<TaTxn> {
    let gfx9 = TaParams::of(profile).format == FormatEncoding::DfmtNfmt;
    let mut out = Vec::new();
    let mut add = |vs: VsharpFields, f: &dyn Fn(&mut Instr)| {
        let mut i = Instr {
            vsharp: vs.encode(profile),
            exec: u64::MAX,
            offen: true,
            ..Instr::default()
        };
        for l in 0..LANES {
            i.vindex[l] = l as u32;
            i.voffset[l] = 4 * l as u32;
        }
        f(&mut i);
        out.push(TaTxn::from_instr(&i));
    };
    // Seed 001: swizzle with index stride 8 and element size 4, stride 16:
    // lane l reads dword (l % 4) of record l / 4... here every lane reads
    // record l at offset 4 * (l % 4).
    let swz = VsharpFields {
        base: 0x10_0000,
        stride: 16,
        num_records: 64,
        swizzle: 1,
        elem_size: 1,
        index_stride: 0,
        oob_select: 3,
        ..Default::default()
    };
    add(swz, &|i| {
        i.idxen = true;
        for l in 0..LANES {
            i.voffset[l] = 4 * (l as u32 % 4);
        }
    });
    // Linear stride-4 dword loads: full lines.
    let lin = VsharpFields {
        base: 0x2000,
        num_records: 256,
        oob_select: 3,
        ..Default::default()
    };
    add(lin, &|_| {});
    // Stride 0 range edge: dwordx4 across num_records (per-dword partial).
    add(
        VsharpFields {
            num_records: 250,
            ..lin
        },
        &|i| i.size = 16,
    );
    // Stride != 0: index at num_records - 1 and num_records, offsets at the stride edge.
    let rec = VsharpFields {
        base: 0x8000,
        stride: 16,
        num_records: 32,
        ..Default::default()
    };
    for oob in 0..4 {
        add(
            VsharpFields {
                oob_select: oob,
                ..rec
            },
            &|i| {
                i.idxen = true;
                i.size = 8;
                for l in 0..LANES {
                    i.vindex[l] = 31 + (l as u32 % 2);
                    i.voffset[l] = [0, 8, 12, 16][l / 2 % 4];
                }
            },
        );
    }
    // Every alignment mode with misaligned dwordx2 loads.
    for mode in 0..4 {
        add(lin, &|i| {
            i.size = 8;
            i.align_mode = mode;
            for l in 0..LANES {
                i.voffset[l] = 8 * l as u32 + (l as u32 % 4);
            }
        });
    }
    // Format load xyzw from the V# format (32_32_32_32) and MTBUF store of 32_32_32.
    let fmt = VsharpFields {
        format: if gfx9 { 14 } else { 63 },
        num_records: 1024,
        oob_select: 3,
        base: 0x4000,
        ..Default::default()
    };
    add(fmt, &|i| {
        i.kind = Kind::MubufFormat;
        for l in 0..LANES {
            i.voffset[l] = 16 * l as u32;
        }
    });
    add(fmt, &|i| {
        i.kind = Kind::Mtbuf;
        i.op = Op::Store;
        i.fmt = if gfx9 { 13 } else { 60 };
        for l in 0..LANES {
            i.voffset[l] = 12 * l as u32;
        }
    });
    // Atomic cmpswap_x2 with return, one lane misaligned.
    add(fmt, &|i| {
        i.op = Op::AtomicRet;
        i.size = 8;
        i.voffset[5] = 44;
    });
    // All-zero V#, mismatched type, invalid format.
    add(VsharpFields::default(), &|_| {});
    add(VsharpFields { rtype: 2, ..lin }, &|_| {});
    add(VsharpFields { format: 0, ..fmt }, &|i| {
        i.kind = Kind::MubufFormat
    });
    // Wrap at 2^48 and at 2^32.
    add(
        VsharpFields {
            base: (1 << 48) - 0x80,
            num_records: u32::MAX,
            ..lin
        },
        &|i| i.size = 16,
    );
    add(
        VsharpFields {
            num_records: u32::MAX,
            ..lin
        },
        &|i| {
            for l in 0..LANES {
                i.voffset[l] = u32::MAX - 4 * l as u32;
            }
        },
    );
    // Exec 0, wave32 (where it exists), unaligned dwords crossing lines.
    add(lin, &|i| i.exec = 0);
    add(lin, &|i| i.wave64 = false);
    add(lin, &|i| {
        i.align_mode = 3;
        for l in 0..LANES {
            i.voffset[l] = 62 * l as u32;
        }
    });
    // Odd access sizes (3 bytes, and 0) on linear loads.
    for size in [3, 0] {
        add(lin, &|i| i.size = size);
    }
    // Wave32 (where it exists) with exec bits above lane 31, which it
    // ignores, and a sparse low half.
    add(lin, &|i| {
        i.wave64 = false;
        i.exec = 0xFFFF_0000_8001_0011;
    });
    // Every format code of the profile, as MTBUF loads: every slot size
    // and count.
    for code in 0..if gfx9 { 16 } else { 64 } {
        add(fmt, &|i| {
            i.kind = Kind::Mtbuf;
            i.fmt = code;
            for l in 0..LANES {
                i.voffset[l] = 16 * l as u32 + 4 * (l as u32 % 3);
            }
        });
    }
    // oob_select 3 on a swizzled buffer with stride 0 and with a stride,
    // indexes and offsets across the edge.
    for stride in [0, 12] {
        add(
            VsharpFields {
                stride,
                swizzle: 1,
                index_stride: 1,
                oob_select: 3,
                ..rec
            },
            &|i| {
                i.idxen = true;
                i.size = 8;
                for l in 0..LANES {
                    i.vindex[l] = 28 + (l as u32 % 8);
                    i.voffset[l] = [0, 4, 8, 12][l % 4];
                }
            },
        );
    }
    // Backpressure on the last one.
    if let Some(t) = out.last_mut() {
        t.ready = 0b1_0100_1101;
        t.ready_len = 9;
    }
    out
}
