//! Testbench of the `ta` unit: seeded random buffer instructions biased to
//! the corners of SPEC §1, directed examples from the seeds, a closed-loop
//! driver honouring `req_valid_i`/`req_ready_o` with backpressure on
//! `line_ready_i`, and the `eval` calculator. Cycle contract: `docs/ta.md`.

use crate::testbench::{Drive, Driver, Testbench, TxnSource};
use gpucosim_model::ports::PortTable;
use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::isa::{gfx11_format_by_name, gfx9_dfmt_by_name};
use gpucosim_model::ta::ports::ta_ports as p;
use gpucosim_model::ta::tlm::{coalesce, compute, get_bit, pieces, Pieces};
use gpucosim_model::ta::{
    write_instr, Class, FormatEncoding, Instr, Kind, LaneResults, Op, TaModel, TaParams,
    VsharpFields,
};
use gpucosim_model::{Profile, Unit};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// One buffer instruction plus how the testbench presents it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaTxn {
    /// The 128-bit V#, as hex.
    #[serde(with = "hex128")]
    pub vsharp: u128,
    /// `kind_i`: 0 MUBUF, 1 MUBUF format, 2 MTBUF.
    pub kind: u8,
    /// `op_i`: 0 load, 1 store, 2 atomic, 3 atomic with return.
    pub op: u8,
    /// `size_i`.
    pub size: u8,
    /// `fmt_i`.
    pub fmt: u8,
    /// offen.
    pub offen: bool,
    /// idxen.
    pub idxen: bool,
    /// 12-bit instruction offset.
    pub inst_offset: u16,
    /// SGPR offset.
    pub soffset: u32,
    /// Alignment mode.
    pub align_mode: u8,
    /// Wave64.
    pub wave64: bool,
    /// Exec mask.
    pub exec: u64,
    /// Index VGPR per lane (64 values).
    pub vindex: Vec<u32>,
    /// Offset VGPR per lane (64 values).
    pub voffset: Vec<u32>,
    /// Cycles the testbench waits after taking the transaction before offering it.
    pub gap: u8,
    /// Backpressure: `line_ready_i` while this instruction runs is bit
    /// `cycle % ready_len` of `ready` (always 1 when `ready_len` ≤ 1).
    pub ready: u64,
    /// Length of the `ready` pattern.
    pub ready_len: u8,
}

mod hex128 {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:#034x}"))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let s = String::deserialize(d)?;
        let t = s.trim_start_matches("0x").replace('_', "");
        u128::from_str_radix(&t, 16).map_err(serde::de::Error::custom)
    }
}

impl TaTxn {
    /// The instruction on the request ports.
    pub fn to_instr(&self, out: &mut Instr) {
        out.vsharp = self.vsharp;
        out.kind = Kind::from_bits(self.kind as u32);
        out.op = Op::from_bits(self.op as u32);
        out.size = self.size as u32;
        out.fmt = self.fmt as u32;
        out.offen = self.offen;
        out.idxen = self.idxen;
        out.inst_offset = self.inst_offset as u32 & 0xFFF;
        out.soffset = self.soffset;
        out.align_mode = self.align_mode as u32 & 3;
        out.wave64 = self.wave64;
        out.exec = self.exec;
        // Lanes missing from the lists are 0.
        for (v, o) in [
            (&self.vindex, &mut out.vindex),
            (&self.voffset, &mut out.voffset),
        ] {
            let n = v.len().min(LANES);
            o[..n].copy_from_slice(&v[..n]);
            o[n..].fill(0);
        }
    }

    fn from_instr(i: &Instr) -> TaTxn {
        TaTxn {
            vsharp: i.vsharp,
            kind: i.kind as u8,
            op: i.op as u8,
            size: i.size as u8,
            fmt: i.fmt as u8,
            offen: i.offen,
            idxen: i.idxen,
            inst_offset: i.inst_offset as u16,
            soffset: i.soffset,
            align_mode: i.align_mode as u8,
            wave64: i.wave64,
            exec: i.exec,
            vindex: i.vindex.to_vec(),
            voffset: i.voffset.to_vec(),
            gap: 0,
            ready: 0,
            ready_len: 0,
        }
    }
}

/// Knobs of the random stimulus (percentages are per instruction).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Knobs {
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

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
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

fn pct(rng: &mut ChaCha8Rng, p: u32) -> bool {
    rng.gen_range(0..100) < p
}

fn pick<T: Copy>(rng: &mut ChaCha8Rng, xs: &[T]) -> T {
    xs[rng.gen_range(0..xs.len())]
}

/// Draws a random transaction.
fn generate(profile: Profile, k: &Knobs, rng: &mut ChaCha8Rng) -> TaTxn {
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
            0 if t.kind == Kind::Mtbuf as u8 => t.kind = 3,
            1 if t.kind != Kind::Mubuf as u8 => t.op = rng.gen_range(2..4),
            _ => t.size = pick(rng, &[0, 3, 5, 6, 20, 31]),
        }
    }
    t.gap = rng.gen_range(0..=k.gap_max);
    if pct(rng, k.stall_pct) {
        t.ready = rng.gen::<u64>() | 1;
        t.ready_len = rng.gen_range(2..40);
    }
    t
}

/// Directed transactions: the seeds' worked examples and the SPEC's corners.
fn directed(profile: Profile) -> Vec<TaTxn> {
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
    // Backpressure on the last one.
    if let Some(t) = out.last_mut() {
        t.ready = 0b1_0100_1101;
        t.ready_len = 9;
    }
    out
}

/// Simpler variants of a transaction, simplest first.
fn simplify(t: &TaTxn) -> Vec<TaTxn> {
    let mut v: Vec<TaTxn> = Vec::new();
    let mut push = |f: &dyn Fn(&mut TaTxn)| {
        let mut s = t.clone();
        f(&mut s);
        if s != *t && !v.contains(&s) {
            v.push(s);
        }
    };
    push(&|s| s.exec = s.exec & s.exec.wrapping_neg()); // lowest active lane only
    push(&|s| {
        let n = s.exec.count_ones() / 2;
        let mut e = s.exec;
        for _ in 0..n {
            e &= e - 1;
        }
        s.exec ^= e; // the lower half of the active lanes
    });
    push(&|s| {
        for l in 0..LANES {
            if s.exec >> l & 1 == 0 {
                s.vindex[l] = 0;
                s.voffset[l] = 0;
            }
        }
    });
    push(&|s| {
        s.ready = 0;
        s.ready_len = 0;
        s.gap = 0;
    });
    push(&|s| s.soffset = 0);
    push(&|s| s.inst_offset = 0);
    push(&|s| s.vindex.iter_mut().for_each(|x| *x = 0));
    push(&|s| s.voffset.iter_mut().for_each(|x| *x = 0));
    push(&|s| {
        s.vindex.iter_mut().for_each(|x| *x /= 2);
        s.voffset.iter_mut().for_each(|x| *x /= 2);
    });
    push(&|s| s.align_mode = 3);
    v
}

/// The `ta` testbench.
pub struct TaTestbench;

impl Testbench for TaTestbench {
    type Txn = TaTxn;
    type Knobs = Knobs;
    type Driver = TaDriver;
    const UNIT: &'static str = "ta";

    fn table() -> &'static PortTable {
        &p::TABLE
    }
    fn model(profile: Profile) -> Box<dyn Unit> {
        Box::new(TaModel::new(profile))
    }
    fn generate(profile: Profile, knobs: &Knobs, rng: &mut ChaCha8Rng) -> TaTxn {
        generate(profile, knobs, rng)
    }
    fn directed(profile: Profile) -> Vec<TaTxn> {
        directed(profile)
    }
    fn driver(_profile: Profile, _knobs: &Knobs) -> TaDriver {
        TaDriver::new()
    }
    fn simplify(txn: &TaTxn) -> Vec<TaTxn> {
        simplify(txn)
    }
}

/// The input words of the request ports, `vsharp_i` through `voffset_i`
/// (consecutive in the port table), which [`write_instr`] writes.
const REQUEST_PORTS: std::ops::Range<usize> =
    p::vsharp_i.offset..p::voffset_i.offset + p::voffset_i.words();

/// A transaction taken from the source, with its consumption index.
struct Held {
    idx: usize,
    gap: u8,
    ready: u64,
    ready_len: u8,
}

/// Closed-loop driver: offers one instruction at a time on `req_valid_i`
/// until it sees it accepted (`req_ready_o` in the cycle it was offered),
/// and drives `line_ready_i` from the running instruction's pattern.
pub struct TaDriver {
    instr: Box<Instr>,
    /// Input words with the offered instruction on the request ports
    /// (`REQUEST_PORTS`), written once per transaction and copied into the
    /// inputs in every cycle it is offered.
    image: Vec<u32>,
    offer: Option<Held>,
    active: Option<Held>,
    /// Cycles since the running instruction was accepted, modulo the length
    /// of its `line_ready_i` pattern.
    ready_phase: u32,
    drove_valid: bool,
    taken: usize,
    exhausted: bool,
}

impl TaDriver {
    fn new() -> Self {
        TaDriver {
            instr: Box::default(),
            image: vec![0; p::TABLE.in_words()],
            offer: None,
            active: None,
            ready_phase: 0,
            drove_valid: false,
            taken: 0,
            exhausted: false,
        }
    }
}

impl Driver<TaTxn> for TaDriver {
    fn drive(
        &mut self,
        prev_out: &[u32],
        inputs: &mut [u32],
        src: &mut dyn TxnSource<TaTxn>,
    ) -> Drive {
        // The unit was IDLE in the previous cycle: whatever ran has finished,
        // and what was offered then was accepted.
        let was_idle = p::req_ready_o.bit(prev_out);
        if was_idle {
            self.active = None;
            if self.drove_valid {
                self.active = self.offer.take();
                self.ready_phase = 0;
            }
        }
        if self.offer.is_none() && !self.exhausted {
            match src.next_txn() {
                Some(t) => {
                    t.to_instr(&mut self.instr);
                    write_instr(&self.instr, &mut self.image);
                    self.offer = Some(Held {
                        idx: self.taken,
                        gap: t.gap,
                        ready: t.ready,
                        ready_len: t.ready_len,
                    });
                    self.taken += 1;
                }
                None => self.exhausted = true,
            }
        }
        self.drove_valid = false;
        if let Some(o) = &mut self.offer {
            if o.gap > 0 {
                o.gap -= 1;
            } else {
                inputs[REQUEST_PORTS].copy_from_slice(&self.image[REQUEST_PORTS]);
                p::req_valid_i.set(inputs, 1);
                self.drove_valid = true;
            }
        }
        let ready = match &self.active {
            Some(a) if a.ready_len > 1 => a.ready >> self.ready_phase & 1 != 0,
            _ => true,
        };
        // The running instruction's cycle modulo its pattern length.
        self.ready_phase = self.ready_phase.wrapping_add(1);
        if let Some(a) = &self.active {
            if self.ready_phase >= a.ready_len as u32 {
                self.ready_phase = 0;
            }
        }
        p::line_ready_i.set(inputs, ready as u64);
        if self.exhausted && self.offer.is_none() && self.active.is_none() && was_idle {
            Drive::Done
        } else {
            Drive::Busy
        }
    }

    fn in_flight(&self) -> Option<usize> {
        self.active.as_ref().or(self.offer.as_ref()).map(|h| h.idx)
    }
}

// ---------------------------------------------------------------------------
// eval

fn num(v: &Value, what: &str, max: u128) -> Result<u128, String> {
    let x = match v {
        Value::Number(n) => n
            .as_u64()
            .map(|x| x as u128)
            .ok_or_else(|| format!("`{what}`: expected a non-negative integer, got {n}"))?,
        Value::String(s) => {
            let t = s.trim().replace('_', "");
            let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => u128::from_str_radix(h, 16),
                None => t.parse::<u128>(),
            };
            r.map_err(|_| format!("`{what}`: `{s}` is not a number (decimal or 0x hex)"))?
        }
        Value::Bool(b) => *b as u128,
        _ => {
            return Err(format!(
                "`{what}`: expected a number or a hex string, got {v}"
            ))
        }
    };
    if x > max {
        return Err(format!("`{what}`: {x:#x} does not fit (max {max:#x})"));
    }
    Ok(x)
}

fn flag(v: &Value, what: &str) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Number(_) => Ok(num(v, what, 1)? == 1),
        _ => Err(format!("`{what}`: expected true/false, got {v}")),
    }
}

/// (kind, op, size) of an instruction name; atomics get `Op::Atomic` here.
fn parse_name(name: &str) -> Result<(Kind, Op, u32), String> {
    let n = name.trim().to_ascii_lowercase();
    let bad = || {
        format!("unknown instruction `{name}` (e.g. buffer_load_dwordx2, buffer_store_byte, buffer_load_format_xyzw, tbuffer_store_format_x, buffer_atomic_add, buffer_atomic_cmpswap_x2, buffer_load_short_d16)")
    };
    if let Some(a) = n.strip_prefix("buffer_atomic_") {
        if a.is_empty() || !a.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Err(bad());
        }
        let wide = a.ends_with("_x2") || a.ends_with("64");
        return Ok((Kind::Mubuf, Op::Atomic, if wide { 8 } else { 4 }));
    }
    let (kind, rest) = if let Some(r) = n.strip_prefix("tbuffer_") {
        (Kind::Mtbuf, r)
    } else if let Some(r) = n.strip_prefix("buffer_") {
        (Kind::Mubuf, r)
    } else {
        return Err(bad());
    };
    let (op, rest) = if let Some(r) = rest.strip_prefix("load_") {
        (Op::Load, r)
    } else if let Some(r) = rest.strip_prefix("store_") {
        (Op::Store, r)
    } else {
        return Err(bad());
    };
    if let Some(c) = rest.strip_prefix("format_") {
        let c = c
            .strip_prefix("d16_hi_")
            .or_else(|| c.strip_prefix("d16_"))
            .unwrap_or(c);
        if !["x", "xy", "xyz", "xyzw"].contains(&c) {
            return Err(bad());
        }
        let kind = if kind == Kind::Mtbuf {
            Kind::Mtbuf
        } else {
            Kind::MubufFormat
        };
        return Ok((kind, op, 0));
    }
    if kind == Kind::Mtbuf {
        return Err(bad());
    }
    let size = match rest {
        "ubyte" | "sbyte" | "u8" | "i8" | "byte" | "b8" | "ubyte_d16" | "ubyte_d16_hi"
        | "sbyte_d16" | "sbyte_d16_hi" | "byte_d16_hi" | "d16_u8" | "d16_i8" | "d16_hi_u8"
        | "d16_hi_i8" | "d16_hi_b8" => 1,
        "ushort" | "sshort" | "u16" | "i16" | "short" | "b16" | "short_d16" | "short_d16_hi"
        | "d16_b16" | "d16_hi_b16" => 2,
        "dword" | "b32" => 4,
        "dwordx2" | "b64" => 8,
        "dwordx3" | "b96" => 12,
        "dwordx4" | "b128" => 16,
        _ => return Err(bad()),
    };
    // Signed/unsigned and store/load spellings must match the direction.
    let load_only = [
        "ubyte", "sbyte", "u8", "i8", "ushort", "sshort", "u16", "i16",
    ];
    let store_only = ["byte", "b8", "short", "b16", "byte_d16_hi", "d16_hi_b8"];
    if (op == Op::Store
        && (load_only.contains(&rest) || rest.contains("byte_d16") && rest != "byte_d16_hi"))
        || (op == Op::Load && store_only.contains(&rest))
    {
        return Err(bad());
    }
    Ok((kind, op, size))
}

fn vsharp_of(profile: Profile, v: &Value) -> Result<u128, String> {
    match v {
        Value::String(_) | Value::Number(_) => num(v, "vsharp", u128::MAX),
        Value::Object(m) => {
            let mut f = VsharpFields::default();
            for (k, x) in m {
                let w = |bits: u32| -> Result<u32, String> {
                    Ok(num(x, &format!("vsharp.{k}"), (1u128 << bits) - 1)? as u32)
                };
                match k.as_str() {
                    "base" => f.base = num(x, "vsharp.base", (1 << 48) - 1)? as u64,
                    "stride" => f.stride = w(14)?,
                    "num_records" => f.num_records = w(32)?,
                    "swizzle_en" | "swizzle_enable" | "swizzle" => {
                        f.swizzle = w(if TaParams::of(profile).format == FormatEncoding::DfmtNfmt { 1 } else { 2 })?
                    }
                    "cache_swizzle" => f.cache_swizzle = w(1)?,
                    "elem_size" => f.elem_size = w(2)?,
                    "index_stride" => f.index_stride = w(2)?,
                    "add_tid" => f.add_tid = flag(x, "vsharp.add_tid")?,
                    "dfmt" | "format" => f.format = format_code(profile, x, true)?,
                    "nfmt" => f.nfmt = w(3)?,
                    "dst_sel" => f.dst_sel = w(12)?,
                    "oob_select" => f.oob_select = w(2)?,
                    "type" => f.rtype = w(2)?,
                    "hash_en" | "heap" => {
                        w(1)?;
                    }
                    _ => return Err(format!("vsharp: unknown field `{k}` (base, stride, num_records, swizzle, cache_swizzle, elem_size, index_stride, add_tid, format/dfmt, nfmt, dst_sel, oob_select, type)")),
                }
            }
            let gfx9 = TaParams::of(profile).format == FormatEncoding::DfmtNfmt;
            if gfx9 && m.contains_key("oob_select") {
                return Err("vsharp.oob_select: gfx9 has no OOB_SELECT".into());
            }
            if !gfx9 && (m.contains_key("elem_size") || m.contains_key("nfmt")) {
                return Err("vsharp: gfx11 has no elem_size/nfmt (swizzle 1 = 4-byte, 3 = 16-byte elements; format is the unified code)".into());
            }
            Ok(f.encode(profile))
        }
        _ => Err("`vsharp`: expected a 128-bit hex string or an object of named fields".into()),
    }
}

/// A format code: gfx9 the dfmt (V#) or `{nfmt, dfmt}` (MTBUF), gfx11 the
/// unified code; by number or LLVM name.
fn format_code(profile: Profile, v: &Value, vsharp: bool) -> Result<u32, String> {
    let gfx9 = TaParams::of(profile).format == FormatEncoding::DfmtNfmt;
    let what = if vsharp { "vsharp.format" } else { "format" };
    match v {
        Value::String(s) if !s.trim_start().starts_with(|c: char| c.is_ascii_digit()) => {
            let found = if gfx9 {
                gfx9_dfmt_by_name(s)
            } else {
                gfx11_format_by_name(s)
            };
            found.ok_or_else(|| {
                format!(
                    "`{what}`: unknown format `{s}` on {profile} (e.g. {})",
                    if gfx9 {
                        "BUF_DATA_FORMAT_32"
                    } else {
                        "BUF_FMT_32_FLOAT"
                    }
                )
            })
        }
        Value::Object(m) if gfx9 && !vsharp => {
            let mut code = 0;
            for (k, x) in m {
                match k.as_str() {
                    "dfmt" => code |= format_code(profile, x, true)?,
                    "nfmt" => code |= (num(x, "format.nfmt", 7)? as u32) << 4,
                    _ => return Err(format!("`format`: unknown field `{k}` (dfmt, nfmt)")),
                }
            }
            Ok(code)
        }
        _ => {
            let max = match (gfx9, vsharp) {
                (true, true) => 15,
                (false, true) => 63,
                _ => 127,
            };
            Ok(num(v, what, max)? as u32)
        }
    }
}

fn lane_values(v: Option<&Value>, what: &str) -> Result<[u32; LANES], String> {
    let mut out = [0u32; LANES];
    match v {
        None => {}
        Some(Value::Array(a)) => {
            if a.len() > LANES {
                return Err(format!("`{what}`: {} values for at most 64 lanes", a.len()));
            }
            for (l, x) in a.iter().enumerate() {
                out[l] = num(x, &format!("{what}[{l}]"), u32::MAX as u128)? as u32;
            }
        }
        Some(x) => out = [num(x, what, u32::MAX as u128)? as u32; LANES],
    }
    Ok(out)
}

fn hex(x: u64) -> Value {
    Value::String(format!("{x:#x}"))
}

pub(crate) fn eval_one(profile: Profile, req: &Value) -> Result<Value, String> {
    let m = req
        .as_object()
        .ok_or_else(|| "each request must be a JSON object".to_string())?;
    const KEYS: &[&str] = &[
        "instr",
        "format",
        "vsharp",
        "offen",
        "idxen",
        "offset",
        "inst_offset",
        "soffset",
        "vindex",
        "voffset",
        "exec",
        "wave64",
        "align_mode",
        "return",
        "glc",
        "lanes",
    ];
    if let Some(k) = m.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown request field `{k}` (known: {})",
            KEYS.join(", ")
        ));
    }
    let name = m.get("instr").and_then(Value::as_str).ok_or_else(|| {
        "missing `instr` (an instruction name, e.g. \"buffer_load_dword\")".to_string()
    })?;
    let (kind, mut op, size) = parse_name(name)?;
    let ret = m.get("return").or_else(|| m.get("glc"));
    if let Some(r) = ret {
        if !op.is_atomic() {
            return Err(format!(
                "`return`/`glc` applies to atomics only, not `{name}`"
            ));
        }
        if flag(r, "return")? {
            op = Op::AtomicRet;
        }
    }
    let fmt = match (kind, m.get("format")) {
        (Kind::Mtbuf, Some(f)) => format_code(profile, f, false)?,
        (Kind::Mtbuf, None) => {
            return Err(format!(
                "`{name}` needs `format` (the instruction's format)"
            ))
        }
        (_, Some(_)) => {
            return Err(format!(
            "`format` is for tbuffer (MTBUF) instructions; `{name}` takes its format from the V#"
        ))
        }
        (_, None) => 0,
    };
    let vsharp = vsharp_of(
        profile,
        m.get("vsharp")
            .ok_or_else(|| "missing `vsharp` (hex string or named fields)".to_string())?,
    )?;
    let get_flag = |k: &str| {
        m.get(k)
            .map(|v| flag(v, k))
            .transpose()
            .map(|b| b.unwrap_or(false))
    };
    let align_mode = match m.get("align_mode") {
        None => 0,
        Some(Value::String(s)) if !s.starts_with(|c: char| c.is_ascii_digit()) => {
            match s.to_ascii_lowercase().as_str() {
                "dword" => 0,
                "dword_strict" => 1,
                "strict" => 2,
                "unaligned" => 3,
                _ => {
                    return Err(format!(
                        "`align_mode`: `{s}` is not dword, dword_strict, strict or unaligned"
                    ))
                }
            }
        }
        Some(v) => num(v, "align_mode", 3)? as u32,
    };
    let wave64 = match m.get("wave64") {
        None => true,
        Some(v) => flag(v, "wave64")?,
    };
    if !wave64 && !profile.wave32() {
        return Err(format!("{profile} has no wave32"));
    }
    let exec_default = if wave64 { u64::MAX } else { 0xFFFF_FFFF };
    let instr = Instr {
        vsharp,
        kind,
        op,
        size,
        fmt,
        offen: get_flag("offen")?,
        idxen: get_flag("idxen")?,
        inst_offset: match m.get("offset").or_else(|| m.get("inst_offset")) {
            Some(v) => num(v, "offset", 4095)? as u32,
            None => 0,
        },
        soffset: match m.get("soffset") {
            Some(v) => num(v, "soffset", u32::MAX as u128)? as u32,
            None => 0,
        },
        align_mode,
        wave64,
        exec: match m.get("exec") {
            Some(v) => num(v, "exec", u64::MAX as u128)? as u64,
            None => exec_default,
        },
        vindex: lane_values(m.get("vindex"), "vindex")?,
        voffset: lane_values(m.get("voffset"), "voffset")?,
    };
    let all_lanes = match m.get("lanes").map(|v| v.as_str()) {
        None | Some(Some("active")) => false,
        Some(Some("all")) => true,
        _ => return Err("`lanes`: \"active\" (default) or \"all\"".into()),
    };

    let mut r = LaneResults::default();
    compute(profile, &instr, &mut r, &mut Events::default());
    let lb = TaParams::of(profile).line_bytes;
    let mut pcs = Pieces::default();
    pieces(&r, lb, &mut pcs);
    let reqs = coalesce(pcs.as_slice(), lb);

    let nlanes = if wave64 { 64 } else { 32 };
    let mut lanes = Vec::new();
    for l in 0..nlanes {
        let active = r.active >> l & 1 != 0;
        if !active && !all_lanes {
            continue;
        }
        let s = r.shape.slots as usize;
        let mut o = Map::new();
        o.insert("lane".into(), json!(l));
        o.insert("active".into(), json!(active));
        o.insert(
            "addr".into(),
            Value::Array((0..s.max(1)).map(|d| hex(r.addr[4 * l + d])).collect()),
        );
        o.insert(
            "in_range".into(),
            json!((0..s)
                .map(|d| get_bit(&r.inrange, 4 * l + d))
                .collect::<Vec<_>>()),
        );
        o.insert(
            "access".into(),
            json!((0..s)
                .map(|d| get_bit(&r.access, 4 * l + d))
                .collect::<Vec<_>>()),
        );
        o.insert("memviol".into(), json!(r.memviol >> l & 1 != 0));
        lanes.push(Value::Object(o));
    }
    let class = match r.shape.class {
        Class::NonFormat => "non-format",
        Class::Format => "format",
        Class::Atomic => "atomic",
    };
    let lines: Vec<Value> = reqs
        .iter()
        .map(|q| json!({"addr": hex(q.addr), "mask": format!("{:#x}", q.mask), "last": q.last}))
        .collect();
    Ok(json!({
        "instr": name,
        "profile": profile.name(),
        "access": {
            "class": class,
            "bytes": r.shape.bytes,
            "dwords": r.shape.slots,
            "dword_bytes": r.shape.slot_bytes,
            "valid_format": r.shape.slots > 0,
        },
        "lanes": lanes,
        "lines": lines,
        "cycles": reqs.len().max(1) + 1,
    }))
}

/// `gpucosim eval --unit ta`: one request object or an array of them (schema
/// in `docs/ta.md`, section "eval"). Errors are one line naming the problem.
pub fn eval_json(profile: Profile, input: &Value) -> Result<Value, String> {
    super::each_request(input, |r| eval_one(profile, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Runs `txns` through the driver and the model alone (no RTL); returns
    /// the model and the cycles taken.
    fn run_model(profile: Profile, txns: Vec<TaTxn>) -> (Box<dyn Unit>, u64) {
        let mut m = TaTestbench::model(profile);
        let mut d = TaTestbench::driver(profile, &Knobs::default());
        let mut src = txns.into_iter();
        let mut inp = vec![0u32; p::TABLE.in_words()];
        let mut out = vec![0u32; p::TABLE.out_words()];
        for _ in 0..3 {
            m.step(&inp, &mut out);
        }
        let mut prev = vec![0u32; out.len()];
        for cycle in 0..2_000_000u64 {
            inp.fill(0);
            p::rst_ni.set(&mut inp, 1);
            let done = d.drive(&prev, &mut inp, &mut src);
            m.step(&inp, &mut out);
            prev.copy_from_slice(&out);
            if done == Drive::Done {
                return (m, cycle);
            }
        }
        panic!("the driver never finished");
    }

    fn random(profile: Profile, seed: u64, n: usize, k: &Knobs) -> Vec<TaTxn> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| TaTestbench::generate(profile, k, &mut rng))
            .collect()
    }

    #[test]
    fn generation_is_deterministic_per_seed() {
        let k = Knobs::default();
        assert_eq!(
            random(Profile::Gfx11, 7, 50, &k),
            random(Profile::Gfx11, 7, 50, &k)
        );
        assert_ne!(
            random(Profile::Gfx11, 7, 50, &k),
            random(Profile::Gfx11, 8, 50, &k)
        );
    }

    #[test]
    fn transactions_round_trip_through_json() {
        for t in random(Profile::Gfx9, 1, 20, &Knobs::default()) {
            let s = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<TaTxn>(&s).unwrap(), t);
        }
    }

    #[test]
    fn random_and_directed_stimulus_cover_every_bin() {
        for profile in Profile::all() {
            let mut txns = TaTestbench::directed(profile);
            txns.extend(random(profile, 1, 3000, &Knobs::default()));
            let n = txns.len() as u64;
            let (m, cycles) = run_model(profile, txns);
            let holes = m.coverage().holes();
            assert!(holes.is_empty(), "{profile}: bins never hit: {holes:?}");
            assert!(cycles > n, "every instruction takes at least one cycle");
        }
    }

    #[test]
    fn extreme_knobs_drive_to_completion() {
        let all = Knobs {
            format_pct: 50,
            mtbuf_pct: 50,
            atomic_pct: 100,
            store_pct: 100,
            swizzle_pct: 100,
            edge_pct: 100,
            wrap_pct: 100,
            misalign_pct: 100,
            invalid_format_pct: 100,
            mismatch_pct: 100,
            all_zero_pct: 100,
            exec_zero_pct: 100,
            wave32_pct: 100,
            stall_pct: 100,
            gap_max: 255,
            odd_encoding_pct: 100,
        };
        let none: Knobs = serde_json::from_value(json!({
            "format_pct": 0, "mtbuf_pct": 0, "atomic_pct": 0, "store_pct": 0, "swizzle_pct": 0,
            "edge_pct": 0, "wrap_pct": 0, "misalign_pct": 0, "invalid_format_pct": 0,
            "mismatch_pct": 0, "all_zero_pct": 0, "exec_zero_pct": 0, "wave32_pct": 0,
            "stall_pct": 0, "gap_max": 0, "odd_encoding_pct": 0
        }))
        .unwrap();
        for profile in Profile::all() {
            for k in [&all, &none] {
                run_model(profile, random(profile, 11, 300, k));
            }
        }
    }

    #[test]
    fn driver_offers_each_transaction_once_and_in_order() {
        // Instructions accepted = transactions taken: the model counts them.
        let profile = Profile::Gfx9;
        let txns = random(profile, 3, 200, &Knobs::default());
        let mut want = Vec::new();
        for t in &txns {
            let mut i = Instr::default();
            t.to_instr(&mut i);
            want.push(i);
        }
        let mut m = TaModel::new(profile);
        let mut d = TaDriver::new();
        let mut src = txns.into_iter();
        let mut inp = vec![0u32; p::TABLE.in_words()];
        let mut out = vec![0u32; p::TABLE.out_words()];
        m.step(&inp, &mut out);
        let mut got = Vec::new();
        loop {
            let prev = out.clone();
            inp.fill(0);
            p::rst_ni.set(&mut inp, 1);
            let done = d.drive(&prev, &mut inp, &mut src);
            // The unit is IDLE this cycle iff a probe step shows req_ready_o.
            let was_idle_now = {
                let mut probe = m.clone();
                let mut o = out.clone();
                probe.step(&inp, &mut o);
                p::req_ready_o.bit(&o)
            };
            if was_idle_now && p::req_valid_i.bit(&inp) {
                let mut i = Instr::default();
                gpucosim_model::ta::read_instr(&inp, &mut i);
                got.push(i);
            }
            m.step(&inp, &mut out);
            if done == Drive::Done {
                break;
            }
        }
        assert_eq!(got.len(), want.len());
        assert!(
            got == want,
            "instructions accepted differ from those generated"
        );
    }

    #[test]
    fn write_instr_writes_just_the_request_ports() {
        // Every request port lies in REQUEST_PORTS, nothing else does.
        for (d, port) in p::TABLE.of(gpucosim_model::ports::Dir::In) {
            let inside = port.offset >= REQUEST_PORTS.start
                && port.offset + port.words() <= REQUEST_PORTS.end;
            let request = !matches!(d.name, "rst_ni" | "req_valid_i" | "line_ready_i");
            assert_eq!(inside, request, "{}", d.name);
        }
        let i = Instr {
            vsharp: u128::MAX,
            exec: u64::MAX,
            vindex: [u32::MAX; LANES],
            voffset: [u32::MAX; LANES],
            ..Instr::default()
        };
        let mut inp = vec![0u32; p::TABLE.in_words()];
        write_instr(&i, &mut inp);
        for (w, x) in inp.iter().enumerate() {
            assert!(REQUEST_PORTS.contains(&w) || *x == 0, "word {w}");
        }
    }

    #[test]
    fn eval_seed001_swizzle_example() {
        let req = json!({
            "instr": "buffer_load_dword",
            "vsharp": {"base": "0x1000", "stride": 16, "num_records": 100, "swizzle": 1,
                       "elem_size": 1, "index_stride": 0},
            "idxen": true, "offen": true, "soffset": "0x20",
            "vindex": [10], "voffset": [8], "exec": "0x1"
        });
        let r = eval_json(Profile::Gfx9, &req).unwrap();
        // (10/8*16 + 8/4*4)*8 + 10%8*4 + 8%4 = 200; + base + soffset.
        assert_eq!(r["lanes"][0]["addr"][0], "0x10e8");
        assert_eq!(r["lanes"][0]["in_range"][0], true);
        assert_eq!(r["lines"][0]["addr"], "0x10c0");
        assert_eq!(r["lines"][0]["mask"], format!("{:#x}", 0xFu128 << 40));
        assert_eq!(r["cycles"], 2);
    }

    #[test]
    fn eval_accepts_names_hex_vsharp_and_arrays() {
        let vs = VsharpFields {
            base: 0x4000,
            num_records: 64,
            oob_select: 3,
            ..Default::default()
        };
        let hexv = format!("{:#x}", vs.encode(Profile::Gfx11));
        let req = json!([
            {"instr": "buffer_load_dwordx2", "vsharp": hexv, "offen": true, "voffset": [0, 8, 56, 60], "exec": "0xf"},
            {"instr": "tbuffer_store_format_xyzw", "format": "BUF_FMT_32_32_32_32_FLOAT", "vsharp": hexv, "exec": 1},
            {"instr": "buffer_atomic_cmpswap_x2", "return": true, "vsharp": hexv, "exec": 1},
            {"instr": "buffer_load_short_d16", "vsharp": hexv, "wave64": false}
        ]);
        let r = eval_json(Profile::Gfx11, &req).unwrap();
        // dwordx2 at 60: dword 0 (60+4 <= 64) in, dword 1 (64+4 > 64) out.
        assert_eq!(r[0]["lanes"][3]["in_range"], json!([true, false]));
        assert_eq!(r[0]["lines"].as_array().unwrap().len(), 1);
        assert_eq!(r[1]["access"]["bytes"], 16);
        assert_eq!(r[2]["access"]["class"], "atomic");
        assert_eq!(r[2]["access"]["bytes"], 8);
        assert_eq!(r[3]["lanes"].as_array().unwrap().len(), 32);
        assert_eq!(r[3]["access"]["bytes"], 2);
    }

    #[test]
    fn eval_errors_are_one_line() {
        let cases = [
            json!({"instr": "buffer_load_qword", "vsharp": "0x0"}),
            json!({"instr": "tbuffer_load_format_x", "vsharp": "0x0"}),
            json!({"instr": "buffer_load_dword", "vsharp": {"bogus": 1}}),
            json!({"instr": "buffer_load_dword", "vsharp": "0xzz"}),
            json!({"instr": "buffer_load_dword", "vsharp": "0x0", "voffset": [-1]}),
            json!({"instr": "buffer_load_dword", "vsharp": "0x0", "offset": 4096}),
            json!({"instr": "buffer_load_dword", "vsharp": "0x0", "wave64": false}),
            json!({"instr": "buffer_load_dword", "vsharp": {"oob_select": 1}}),
            json!({"instr": "buffer_store_ubyte", "vsharp": "0x0"}),
            json!({"vsharp": "0x0"}),
            json!(3),
            json!([{"instr": "buffer_load_dword", "vsharp": "0x0", "typo": 1}]),
        ];
        for c in cases {
            let e = eval_json(Profile::Gfx9, &c).expect_err(&c.to_string());
            assert!(!e.is_empty() && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn simplify_yields_distinct_simpler_variants() {
        for t in random(Profile::Gfx11, 5, 20, &Knobs::default()) {
            let s = simplify(&t);
            assert!(s.iter().all(|x| *x != t));
            for v in &s {
                assert!(v.exec & !t.exec == 0, "simplifying never enables lanes");
            }
        }
    }
}
