//! Properties of the `ta` model: addressing against formulas computed
//! independently in u128, the coalescer's coverage of bytes, and the cycle
//! model's request stream and timing under any backpressure (docs/ta.md).

use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::isa::ADDR_MASK;
use gpucosim_model::ta::ports::ta_ports as p;
use gpucosim_model::ta::tlm::{coalesce, compute, get_bit, pieces, Pieces};
use gpucosim_model::ta::TaParams;
use gpucosim_model::ta::{
    write_instr, Instr, Kind, LaneResults, LineReq, Op, TaModel, VsharpFields,
};
use gpucosim_model::{Profile, Unit};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn profile() -> impl Strategy<Value = Profile> {
    prop_oneof![Just(Profile::Gfx9), Just(Profile::Gfx11)]
}

fn run(profile: Profile, i: &Instr) -> LaneResults {
    let mut r = LaneResults::default();
    compute(profile, i, &mut r, &mut Events::default());
    r
}

/// A random instruction whose lanes cluster, so that lines are shared.
fn instr(profile: Profile) -> impl Strategy<Value = Instr> {
    (
        (
            0u64..1 << 48,
            0u32..64,
            0u32..300,
            0u32..4,
            0u32..4,
            0u32..4,
            any::<bool>(),
        ),
        (0u32..4, 0u32..3, 0u32..64, 0u32..4, 0u32..4, 0u32..32),
        (
            any::<bool>(),
            any::<bool>(),
            0u32..4096,
            0u32..256,
            any::<u64>(),
            any::<bool>(),
        ),
        prop::collection::vec(0u32..40, 64),
        prop::collection::vec(0u32..80, 64),
    )
        .prop_map(
            move |(
                (base, stride, nr, swz, es, is, tid),
                (oob, kind, fmt, op, align, size_sel),
                (offen, idxen, inst_offset, soffset, exec, wave64),
                vindex,
                voffset,
            )| {
                let vs = VsharpFields {
                    base,
                    stride,
                    num_records: nr,
                    swizzle: swz,
                    elem_size: es,
                    index_stride: is,
                    add_tid: tid,
                    format: fmt,
                    oob_select: oob,
                    ..Default::default()
                };
                let mut i = Instr {
                    vsharp: vs.encode(profile),
                    kind: match kind {
                        0 => Kind::Mubuf,
                        1 => Kind::MubufFormat,
                        _ => Kind::Mtbuf,
                    },
                    op: [Op::Load, Op::Store, Op::Atomic, Op::AtomicRet][op as usize],
                    size: [1, 2, 4, 8, 12, 16, 4, 8][(size_sel % 8) as usize],
                    fmt,
                    offen,
                    idxen,
                    inst_offset,
                    soffset,
                    align_mode: align,
                    wave64,
                    exec,
                    ..Instr::default()
                };
                if i.kind != Kind::Mubuf && i.op.is_atomic() {
                    i.op = Op::Load;
                }
                i.vindex.copy_from_slice(&vindex);
                i.voffset.copy_from_slice(&voffset);
                i
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Property: linear addresses equal base + soffset + (index*stride + offset + 4d)
    /// with the 2^32 and 2^48 wraps, computed in u128.
    #[test]
    fn linear_addressing_matches_the_u128_formula(
        prof in profile(), base in 0u64..1 << 48, stride in 0u32..1 << 14,
        vindex in any::<u32>(), voffset in any::<u32>(), inst in 0u32..4096,
        soffset in any::<u32>(), tid in any::<bool>(), lane in 0usize..64,
    ) {
        let vs = VsharpFields { base, stride, num_records: 1, add_tid: tid, ..Default::default() };
        let mut i = Instr { vsharp: vs.encode(prof), size: 16, offen: true, idxen: true,
            inst_offset: inst, soffset, align_mode: 3, exec: u64::MAX, ..Instr::default() };
        i.vindex[lane] = vindex;
        i.voffset[lane] = voffset;
        let r = run(prof, &i);
        let m32 = (1u128 << 32) - 1;
        let index = (vindex as u128 + if tid { lane as u128 } else { 0 }) & m32;
        for d in 0..4u128 {
            let off = (voffset as u128 + inst as u128 + 4 * d) & m32;
            let bo = (index * stride as u128 + off) & m32;
            let want = (base as u128 + soffset as u128 + bo) & ADDR_MASK as u128;
            prop_assert_eq!(r.addr[4 * lane + d as usize] as u128, want);
        }
    }

    /// Property: swizzled addresses follow seed 001's formula, computed in u128.
    #[test]
    fn swizzled_addressing_matches_the_u128_formula(
        prof in profile(), base in 0u64..1 << 48, stride in 0u32..1 << 14,
        vindex in any::<u32>(), voffset in any::<u32>(), es_sel in 0u32..4, is_sel in 0u32..4,
        soffset in any::<u32>(),
    ) {
        let (swizzle, es) = match prof {
            Profile::Gfx9 => (1, 2u128 << es_sel),
            Profile::Gfx11 => if es_sel % 2 == 0 { (1, 4) } else { (3, 16) },
        };
        let vs = VsharpFields { base, stride, num_records: 1, swizzle, elem_size: es_sel,
            index_stride: is_sel, ..Default::default() };
        let mut i = Instr { vsharp: vs.encode(prof), size: 4, offen: true, idxen: true,
            soffset, align_mode: 3, exec: 1, ..Instr::default() };
        i.vindex[0] = vindex;
        i.voffset[0] = voffset;
        let r = run(prof, &i);
        let is = 8u128 << is_sel;
        let (index, offset) = (vindex as u128, voffset as u128);
        let bo = ((index / is * stride as u128 + offset / es * es) * is
            + (index % is) * es + offset % es) & ((1 << 32) - 1);
        prop_assert_eq!(r.addr[0] as u128, (base as u128 + soffset as u128 + bo) & ADDR_MASK as u128);
    }

    /// Property: each distinct line is requested exactly once, and every byte
    /// accessed appears in exactly one request's mask (and no other byte does).
    #[test]
    fn coalescer_requests_each_line_once_and_covers_every_byte_once(
        (prof, i) in profile().prop_flat_map(|p| (Just(p), instr(p))),
    ) {
        let lb = TaParams::of(prof).line_bytes as u64;
        let r = run(prof, &i);
        let mut pc = Pieces::default();
        pieces(&r, lb as u32, &mut pc);
        let reqs = coalesce(pc.as_slice(), lb as u32);
        let lines: BTreeSet<u64> = reqs.iter().map(|q| q.addr).collect();
        prop_assert_eq!(lines.len(), reqs.len(), "a line requested twice");
        let mut want = BTreeSet::new();
        for s in 0..256 {
            if get_bit(&r.access, s) {
                for k in 0..r.shape.slot_bytes as u64 {
                    want.insert((r.addr[s] + k) & ADDR_MASK);
                }
            }
        }
        let mut got = BTreeSet::new();
        for q in &reqs {
            prop_assert_eq!(q.addr % lb, 0);
            if lb < 128 {
                prop_assert_eq!(q.mask >> lb, 0, "mask bit above the line size");
            }
            for b in 0..lb {
                if q.mask >> b & 1 != 0 {
                    prop_assert!(got.insert(q.addr + b), "byte in two requests");
                }
            }
        }
        prop_assert_eq!(got, want);
        prop_assert_eq!(reqs.iter().filter(|q| q.last).count(), usize::from(!reqs.is_empty()));
    }

    /// Property: under any backpressure the cycle model emits exactly the
    /// transaction-level coalescer's requests in order, stalls only delay them,
    /// and the instruction occupies requests + stalls + 1 cycles.
    #[test]
    fn cycle_stream_equals_coalescer_under_any_backpressure(
        (prof, i) in profile().prop_flat_map(|p| (Just(p), instr(p))),
        ready in any::<u64>(), ready_len in 1u32..64,
    ) {
        let lb = TaParams::of(prof).line_bytes;
        let r = run(prof, &i);
        let mut pc = Pieces::default();
        pieces(&r, lb, &mut pc);
        let want = coalesce(pc.as_slice(), lb);

        let mut m = TaModel::new(prof);
        let mut inp = vec![0u32; p::TABLE.in_words()];
        let mut out = vec![0u32; p::TABLE.out_words()];
        m.step(&inp, &mut out); // reset
        prop_assert!(p::req_ready_o.bit(&out));
        p::rst_ni.set(&mut inp, 1);
        write_instr(&i, &mut inp);
        p::req_valid_i.set(&mut inp, 1);
        m.step(&inp, &mut out); // t: accepted
        prop_assert!(p::req_ready_o.bit(&out));
        // Every piece pending until the first request is taken.
        let pending = format!(", {} piece(s) pending", pc.len);
        prop_assert!(m.in_flight().ends_with(&pending), "{}", m.in_flight());
        p::req_valid_i.set(&mut inp, 0);
        let mut got: Vec<LineReq> = Vec::new();
        let mut cycles: usize = 1;
        let mut stalls = 0;
        loop {
            let rdy = ready_len == 1 || (ready | 1) >> (cycles % ready_len as usize) & 1 != 0;
            p::line_ready_i.set(&mut inp, rdy as u64);
            m.step(&inp, &mut out);
            if p::req_ready_o.bit(&out) { break; }
            prop_assert_eq!(p::lane_valid_o.bit(&out), cycles == 1);
            if cycles == 1 {
                for s in 0..256 {
                    prop_assert_eq!(p::lane_addr_o.elem(&out, s), r.addr[s]);
                    prop_assert_eq!(p::lane_access_o.get_bit(&out, s), get_bit(&r.access, s));
                    prop_assert_eq!(p::lane_inrange_o.get_bit(&out, s), get_bit(&r.inrange, s));
                }
                prop_assert_eq!(p::lane_memviol_o.get(&out), r.memviol);
            }
            let valid = p::line_valid_o.bit(&out);
            prop_assert_eq!(valid, got.len() < want.len());
            if valid {
                prop_assert_eq!(p::line_op_o.get(&out), i.op as u64);
                if rdy {
                    let mask = p::line_mask_o.slice(&out).iter().rev().fold(0u128, |a, w| a << 32 | *w as u128);
                    got.push(LineReq { addr: p::line_addr_o.get(&out), mask, last: p::line_last_o.bit(&out) });
                } else {
                    stalls += 1;
                }
            } else {
                prop_assert_eq!(p::line_addr_o.get(&out), 0);
                prop_assert_eq!(p::line_last_o.get(&out), 0);
            }
            cycles += 1;
            prop_assert!(cycles < 100_000, "never returned to IDLE");
        }
        prop_assert_eq!(&got, &want);
        // t+1 .. t+n+stalls ACTIVE; (at least one ACTIVE cycle).
        prop_assert_eq!(cycles - 1, (want.len() + stalls).max(1));
        // Lane results hold after the instruction.
        prop_assert_eq!(p::lane_valid_o.bit(&out), false);
        prop_assert_eq!(p::lane_memviol_o.get(&out), r.memviol);
    }
}
