//! Version 1 of the `ta` random stimulus, kept unchanged so that bundles
//! and seeds recorded under it replay exactly (`crate::draw`); fresh runs
//! draw version 2 (`super::stimulus::generate`).

use super::stimulus::TaKnobs;
use super::txn::TaTxn;
use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::{FormatEncoding, Instr, Kind, Op, TaParams, VsharpFields};
use gpucosim_model::Profile;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

fn pct(rng: &mut ChaCha8Rng, p: u32) -> bool {
    rng.gen_range(0..100) < p
}

fn pick<T: Copy>(rng: &mut ChaCha8Rng, xs: &[T]) -> T {
    xs[rng.gen_range(0..xs.len())]
}

/// Draws a random transaction of stimulus version 1.
pub fn generate(profile: Profile, k: &TaKnobs, rng: &mut ChaCha8Rng) -> TaTxn {
    let gfx9 = TaParams::of(profile).format == FormatEncoding::DfmtNfmt;
    let mut i = Instr::default();

    // Class and size.
    let r = rng.gen_range(0..100u32);
    let (kind, op, size) = if r < k.atomic_pct {
        (
            Kind::Mubuf,
            pick(rng, &[Op::Atomic, Op::AtomicRet]),
            pick(rng, &[4, 8]),
        )
    } else {
        let op = if pct(rng, k.store_pct) {
            Op::Store
        } else {
            Op::Load
        };
        let r = rng.gen_range(0..100u32);
        let kind = if r < k.format_pct {
            Kind::MubufFormat
        } else if r < k.format_pct + k.mtbuf_pct {
            Kind::Mtbuf
        } else {
            Kind::Mubuf
        };
        (kind, op, pick(rng, &[1, 2, 4, 4, 8, 12, 16]))
    };
    i.kind = kind;
    i.op = op;
    i.size = size;
    let invalid = kind != Kind::Mubuf && pct(rng, k.invalid_format_pct);
    let fmt = match (gfx9, invalid) {
        (true, false) => rng.gen_range(1..15) | rng.gen_range(0..8) << 4,
        (true, true) => pick(rng, &[0, 15]) | rng.gen_range(0..8) << 4,
        (false, false) => rng.gen_range(1..64),
        (false, true) => pick(rng, &[0, 64, 65, 100, 127]),
    };
    i.fmt = if kind == Kind::Mtbuf {
        fmt
    } else {
        rng.gen_range(0..128)
    };
    let elem = match kind {
        Kind::Mubuf => size.min(4),
        _ => 4,
    };

    // V#.
    let wrap = pct(rng, k.wrap_pct);
    let base = if wrap {
        (1u64 << 48) - rng.gen_range(1..0x400)
    } else {
        match rng.gen_range(0..4) {
            0 => 0,
            1 => rng.gen_range(0..64) * 0x1000,
            2 => rng.gen_range(0..1u64 << 48) & !0xFF,
            _ => rng.gen_range(0..1u64 << 48),
        }
    };
    let stride = pick(
        rng,
        &[0, 0, 1, 2, 4, 8, 12, 16, 16, 32, 48, 64, 100, 256, 16383],
    );
    let swizzle = pct(rng, k.swizzle_pct);
    let mut vs = VsharpFields {
        base,
        stride,
        swizzle: match (swizzle, gfx9) {
            (false, _) => 0,
            (true, true) => 1,
            (true, false) => pick(rng, &[1, 1, 3, 3, 2]),
        },
        cache_swizzle: rng.gen_range(0..2),
        elem_size: rng.gen_range(0..4),
        index_stride: rng.gen_range(0..4),
        add_tid: pct(rng, 15),
        format: if kind == Kind::MubufFormat {
            fmt & if gfx9 { 15 } else { 63 }
        } else {
            rng.gen_range(0..64)
        },
        nfmt: rng.gen_range(0..8),
        dst_sel: rng.gen_range(0..1 << 12),
        oob_select: rng.gen_range(0..4),
        rtype: if pct(rng, k.mismatch_pct) {
            rng.gen_range(1..4)
        } else {
            0
        },
        num_records: 0,
    };
    if kind == Kind::MubufFormat && gfx9 {
        vs.nfmt = fmt >> 4;
    }

    // Lanes: index and offset patterns.
    i.idxen = pct(rng, 50);
    i.offen = pct(rng, 70);
    let nr_base = rng.gen_range(1..80u32);
    let edge = pct(rng, k.edge_pct);
    let pattern = rng.gen_range(0..4);
    for l in 0..LANES {
        let lu = l as u32;
        let (vi, vo) = match pattern {
            0 => (lu, lu * elem),
            1 => (nr_base / 2, 4 * (nr_base / 3)),
            2 => (rng.gen_range(0..100), rng.gen_range(0..300)),
            _ => (lu / 4, (lu % 4) * elem),
        };
        let (vi, vo) = if edge {
            let vi = pick(rng, &[nr_base.wrapping_sub(1), nr_base, nr_base + 1, vi]);
            let vo = if stride > 0 {
                pick(
                    rng,
                    &[
                        stride.saturating_sub(size),
                        stride - 1,
                        stride,
                        stride.saturating_sub(4),
                        vo,
                    ],
                )
            } else {
                pick(
                    rng,
                    &[
                        nr_base.saturating_sub(size),
                        nr_base.saturating_sub(1),
                        nr_base,
                        vo,
                    ],
                )
            };
            (vi, vo)
        } else {
            (vi, vo)
        };
        let vo = if wrap && pct(rng, 50) {
            vo.wrapping_sub(rng.gen_range(1..32))
        } else {
            vo
        };
        let vo = if pct(rng, k.misalign_pct) {
            vo.wrapping_add(rng.gen_range(1..4))
        } else {
            vo
        };
        i.vindex[l] = vi;
        i.voffset[l] = vo;
    }
    i.inst_offset = if edge && stride > 0 {
        pick(
            rng,
            &[0, stride.min(4095), stride.saturating_sub(4).min(4095)],
        )
    } else {
        {
            let r = rng.gen_range(0..4096);
            pick(rng, &[0, 0, 4, 16, 64, r, 4095])
        }
    };
    i.soffset = if wrap {
        u32::MAX - rng.gen_range(0..0x100)
    } else {
        let (a, b) = (rng.gen_range(0..0x1000), rng.gen::<u32>());
        pick(rng, &[0, 0, 4, 64, a, b])
    };
    vs.num_records = match rng.gen_range(0..8) {
        0 => 0,
        1 => u32::MAX,
        2 => rng.gen::<u32>(),
        3 => nr_base * stride.max(1),
        _ => nr_base,
    };
    i.vsharp = if pct(rng, k.all_zero_pct) {
        0
    } else {
        vs.encode(profile)
    };

    i.align_mode = rng.gen_range(0..4);
    i.wave64 = !(profile.wave32() && pct(rng, k.wave32_pct));
    i.exec = if pct(rng, k.exec_zero_pct) {
        0
    } else {
        match rng.gen_range(0..5) {
            0 | 1 => u64::MAX,
            2 => rng.gen::<u64>(),
            3 => 1 << rng.gen_range(0..64),
            _ => 0xFFFF_FFFF,
        }
    };
    let mut t = TaTxn::from_instr(&i);
    if pct(rng, k.odd_encoding_pct) {
        match rng.gen_range(0..3) {
            // kind_i 3 decodes as MTBUF (`Kind::from_bits`).
            0 if t.instr.kind == Kind::Mtbuf => t.instr.kind = Kind::from_bits(3),
            1 if t.instr.kind != Kind::Mubuf => {
                t.instr.op = Op::from_bits(rng.gen_range(2..4u8).into())
            }
            _ => t.instr.size = pick(rng, &[0, 3, 5, 6, 20, 31]),
        }
    }
    t.gap = rng.gen_range(0..=k.gap_max);
    if pct(rng, k.stall_pct) {
        t.ready = rng.gen::<u64>() | 1;
        t.ready_len = rng.gen_range(2..40);
    }
    t
}

