//! Transaction level: what the unit does with one buffer instruction
//! (SPEC §1.1–§1.5 and the decisions of `docs/ta.md`), as pure functions used
//! both by the cycle model and by `gpucosim eval`.
//!
//! Nothing here allocates: results go into caller-owned fixed-size buffers.

use super::cover::{Bin, Events};
use super::isa::{mtbuf_es, Instr, Kind, Op, VsField, Vsharp, ADDR_MASK, ADDR_W, LANES};
use super::params::{RangeRule, SwizzleEncoding, TaParams};
use crate::profile::Profile;

/// Dword slots per lane.
pub const SLOTS: usize = 4;
/// Slots of a wave, `SLOTS * lane + d`.
pub const NSLOTS: usize = LANES * SLOTS;
/// Most pieces one instruction can produce (every slot crossing a line).
pub const MAX_PIECES: usize = NSLOTS * 2;
/// Words of the packed addresses of all slots (48 bits each).
const ADDR_WORDS: usize = NSLOTS * ADDR_W as usize / 32;
// The slot sets (`[u64; 4]`, `interleave`) and the address packing of
// `addresses` are written for 64 lanes of 4 slots of 48-bit addresses.
const _: () = assert!(LANES == 64 && SLOTS == 4 && ADDR_W == 48);

/// Class of an access, which sets its slots, range granularity and alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// MUBUF non-format load/store: per-dword range checks.
    NonFormat,
    /// MUBUF format or MTBUF: all-or-nothing.
    Format,
    /// Atomic: all-or-nothing.
    Atomic,
}

/// The shape of one lane's access (docs/ta.md "The access's slots").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Class.
    pub class: Class,
    /// Bytes of the whole access (non-format size, format element size, 4/8
    /// for atomics; 0 for an invalid format).
    pub bytes: u32,
    /// Dword slots (0 for an invalid format).
    pub slots: u32,
    /// Bytes per slot.
    pub slot_bytes: u32,
}

impl Access {
    /// The access of `instr` given its decoded V#.
    pub fn of(profile: Profile, instr: &Instr, vs: &Vsharp) -> Access {
        let (class, bytes) = match instr.kind {
            Kind::MubufFormat => (Class::Format, vs.format_es.unwrap_or(0)),
            Kind::Mtbuf => (Class::Format, mtbuf_es(profile, instr.fmt).unwrap_or(0)),
            Kind::Mubuf if instr.op.is_atomic() => {
                (Class::Atomic, if instr.size == 8 { 8 } else { 4 })
            }
            Kind::Mubuf => (
                Class::NonFormat,
                match instr.size {
                    1 | 2 | 4 | 8 | 12 | 16 => instr.size,
                    _ => 4,
                },
            ),
        };
        Access {
            class,
            bytes,
            slots: bytes.div_ceil(4),
            slot_bytes: bytes.min(4),
        }
    }

    /// Alignment the final address of slot 0 must have (1 = none), SPEC §1.5.
    pub fn align_req(&self, align_mode: u32) -> u32 {
        match self.class {
            Class::Format => self.slot_bytes.max(1),
            Class::Atomic => self.bytes,
            Class::NonFormat => match align_mode & 3 {
                1 => self.slot_bytes,
                2 if self.bytes == 12 => 4,
                2 => self.bytes,
                _ => 1,
            },
        }
    }

    /// Low address bits cleared in alignment mode 0 (a mask of the bits kept).
    pub fn clear_mask(&self, align_mode: u32) -> u64 {
        if self.class == Class::NonFormat && align_mode & 3 == 0 {
            !(self.slot_bytes as u64 - 1)
        } else {
            !0
        }
    }
}

/// Per-lane results of one instruction (the `lane_*` outputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneResults {
    /// Byte address of slot d of lane l at `4*l + d`.
    pub addr: [u64; NSLOTS],
    /// `addr` packed as the words of `lane_addr_o` (48 bits an element),
    /// filled by [`compute`] with it, for the cycle model.
    pub(crate) addr_words: [u32; ADDR_WORDS],
    /// In-range bit `4*l + d`.
    pub inrange: [u64; 4],
    /// Access bit `4*l + d`.
    pub access: [u64; 4],
    /// MEMVIOL bit per lane.
    pub memviol: u64,
    /// Lanes active (exec and wave size).
    pub active: u64,
    /// The access shape.
    pub shape: Access,
}

impl Default for LaneResults {
    fn default() -> Self {
        LaneResults {
            addr: [0; NSLOTS],
            addr_words: [0; ADDR_WORDS],
            inrange: [0; 4],
            access: [0; 4],
            memviol: 0,
            active: 0,
            shape: Access {
                class: Class::NonFormat,
                bytes: 4,
                slots: 1,
                slot_bytes: 4,
            },
        }
    }
}

/// Bit `i` of a 256-bit set.
#[inline]
pub fn get_bit(w: &[u64; 4], i: usize) -> bool {
    w[i / 64] >> (i % 64) & 1 != 0
}

/// The buffer offset of SPEC §1.3 (u32, wrapping) and whether it wrapped.
#[inline]
pub fn buffer_offset(vs: &Vsharp, index: u32, offset: u32) -> (u32, bool) {
    let stride = vs.stride as u64;
    let (index, offset) = (index as u64, offset as u64);
    let full = match vs.swizzle_es {
        None => index * stride + offset,
        Some(es) => {
            let (es, is) = (es as u64, vs.index_stride as u64);
            (index / is * stride + offset / es * es) * is + (index % is) * es + offset % es
        }
    };
    (full as u32, full > u32::MAX as u64)
}

/// Computes every lane's results for `instr` into `out`, and records the
/// coverage events it exercised in `ev` ([`compute_in`] with working
/// storage of its own).
pub fn compute(profile: Profile, instr: &Instr, out: &mut LaneResults, ev: &mut Events) {
    compute_in(profile, instr, out, ev, &mut Scratch::default());
}

/// The datapath's per-lane working storage, kept by a caller that computes
/// many instructions (the cycle model) so that it is not cleared for each:
/// [`compute_in`] writes every part of it that it reads.
#[derive(Debug, Clone, Default)]
pub struct Scratch(Lanes);

crate::hot_copies! {
    /// [`compute`] in the working storage `scratch`.
    ///
    /// On x86-64 CPUs with AVX2 (x86-64-v3) or AVX-512 (x86-64-v4) this runs a
    /// copy of the datapath compiled for those instructions ([`crate::cpu`]):
    /// its 64-bit lane arithmetic and comparisons vectorise there and not with
    /// the baseline's SSE2 (AVX-512 takes eight lanes an instruction and turns
    /// comparisons into lane masks directly). All copies give the same results
    /// (`tests/unit/ta_tlm.rs`).
    pub fn compute_in(
        profile: Profile,
        instr: &Instr,
        out: &mut LaneResults,
        ev: &mut Events,
        scratch: &mut Scratch,
    ) = compute_body;
    copies compute_baseline, compute_x86_64_v3, compute_x86_64_v4, all in compute_copies;
}

#[inline(always)]
fn compute_body(
    profile: Profile,
    instr: &Instr,
    out: &mut LaneResults,
    ev: &mut Events,
    scratch: &mut Scratch,
) {
    let vs = Vsharp::decode(profile, instr.vsharp);
    let acc = Access::of(profile, instr, &vs);
    let wave64 = instr.wave64 || !profile.wave32();
    let active = if wave64 {
        instr.exec
    } else {
        instr.exec & 0xFFFF_FFFF
    };
    out.active = active;
    out.shape = acc;
    let s = Setup::new(TaParams::of(profile).range, instr, &vs, &acc, active);
    // The datapath in two passes over the lanes (addresses, then range
    // checks), each compiled once per address mode and range rule so that
    // these per-instruction choices are not made again in every slot.
    let lanes = &mut scratch.0;
    if s.swizzle {
        addresses::<true>(&s, instr, out, lanes);
    } else {
        addresses::<false>(&s, instr, out, lanes);
    }
    match s.rule {
        Rule::Gfx9Stride0 => ranges::<G9_STRIDE0>(&s, out, lanes),
        Rule::Gfx9Stride => ranges::<G9_STRIDE>(&s, out, lanes),
        Rule::IndexAndOffset => ranges::<OOB_INDEX_OFFSET>(&s, out, lanes),
        Rule::Index => ranges::<OOB_INDEX>(&s, out, lanes),
        Rule::NoRecords => ranges::<OOB_NO_RECORDS>(&s, out, lanes),
        Rule::Linear => ranges::<OOB_LINEAR>(&s, out, lanes),
    }
    lanes.record(&s, instr, ev);
    instr_events(profile, instr, &vs, &acc, out, ev);
}

/// The range-check rule of an instruction (SPEC §1.4, docs/ta.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// gfx9, stride == 0: `buffer_offset + soffset` against num_records.
    Gfx9Stride0,
    /// gfx9, stride != 0: index against num_records, and with idxen or
    /// add_tid the offset against the stride.
    Gfx9Stride,
    /// gfx11 OOB_SELECT 0, or 3 with swizzle and a stride: index against
    /// num_records, `offset + payload` against the stride.
    IndexAndOffset,
    /// OOB_SELECT 1: index against num_records.
    Index,
    /// OOB_SELECT 2: out iff num_records == 0.
    NoRecords,
    /// OOB_SELECT 3 otherwise: `buffer_offset + payload` against num_records.
    Linear,
}

// `Rule` as the const parameter of `ranges`.
const G9_STRIDE0: u8 = 0;
const G9_STRIDE: u8 = 1;
const OOB_INDEX_OFFSET: u8 = 2;
const OOB_INDEX: u8 = 3;
const OOB_NO_RECORDS: u8 = 4;
const OOB_LINEAR: u8 = 5;

// Range-check bins as bit positions of `Lanes::range`: gfx9 (stride 0:
// `0 + out`; stride: 2 in, 3 index out, 4 offset out) …
const G9_BINS: &[Bin] = &[
    Bin::Gfx9Stride0In,
    Bin::Gfx9Stride0Out,
    Bin::Gfx9StrideIn,
    Bin::Gfx9IndexOut,
    Bin::Gfx9OffsetOut,
];
// … and OOB_SELECT: `2 * rule + out`, rules 0 … 2 the modes, 3 mode 3
// swizzled, 4 mode 3 linear.
const OOB_BINS: &[Bin] = &[
    Bin::Oob0In,
    Bin::Oob0Out,
    Bin::Oob1In,
    Bin::Oob1Out,
    Bin::Oob2In,
    Bin::Oob2Out,
    Bin::Oob3SwzIn,
    Bin::Oob3SwzOut,
    Bin::Oob3LinIn,
    Bin::Oob3LinOut,
];

/// The per-instruction constants of the slot datapath.
struct Setup {
    active: u64,
    /// `base + soffset` (not wrapped: the sum may pass 2^48).
    base_soffset: u64,
    /// The least buffer offset whose address passes 2^48:
    /// `2^48 - (base + soffset)`, 0 if that sum is already past it.
    wrap48_from: u64,
    soffset: u64,
    stride: u32,
    num_records: u64,
    /// All ones with idxen, else 0 (ANDed with vindex).
    vindex_mask: u32,
    /// All ones with offen, else 0 (ANDed with voffset).
    voffset_mask: u32,
    /// All ones with add_tid, else 0 (ANDed with the lane number).
    tid_mask: u32,
    inst_offset: u32,
    swizzle: bool,
    /// log2 of the swizzle element size and of the index stride: both are
    /// powers of two (element size 2, 4, 8, 16; index stride 8 … 64), so
    /// the divisions and remainders of SPEC §1.3 are shifts and masks.
    es_shift: u32,
    is_shift: u32,
    /// Address bits kept: the 48 bits, low bits cleared in alignment mode 0.
    keep: u64,
    /// `align_req - 1`: slot 0's address bits that must be zero (align_req
    /// is 1, 2, 4, 8 or 16).
    align_low: u32,
    /// `slot_bytes - 1`: slot 0's address bits that make it misaligned to
    /// its slot size (1, 2 or 4 bytes).
    slot_low: u32,
    slots: usize,
    /// Slots range-checked on their own: all of the access's, except that
    /// gfx11 judges an all-or-nothing access once, at slot 0.
    judged: usize,
    per_dword: bool,
    can_access: bool,
    rule: Rule,
    /// gfx9: idxen or add_tid (the offset is checked against the stride).
    index_mode: bool,
    /// Bytes checked against a limit: a slot's (per dword) or the whole
    /// access's (all-or-nothing).
    payload: u64,
    /// Bit position of the rule's "in" bin in `G9_BINS` / `OOB_BINS`.
    code: u32,
}

impl Setup {
    fn new(rule: RangeRule, instr: &Instr, vs: &Vsharp, acc: &Access, active: u64) -> Setup {
        let align_req = acc.align_req(instr.align_mode);
        let es = vs.swizzle_es.unwrap_or(1);
        debug_assert!(align_req.is_power_of_two() && acc.slot_bytes.is_power_of_two());
        debug_assert!(es.is_power_of_two() && vs.index_stride.is_power_of_two());
        let per_dword = acc.class == Class::NonFormat;
        let slots = acc.slots as usize;
        let swizzle = vs.swizzle_es.is_some();
        let (rule, code) = match (rule, vs.oob_select) {
            (RangeRule::Gfx9, _) if vs.stride == 0 => (Rule::Gfx9Stride0, 0),
            (RangeRule::Gfx9, _) => (Rule::Gfx9Stride, 2),
            (_, 0) => (Rule::IndexAndOffset, 0),
            (_, 1) => (Rule::Index, 2),
            (_, 2) => (Rule::NoRecords, 4),
            _ if swizzle && vs.stride != 0 => (Rule::IndexAndOffset, 6),
            _ => (Rule::Linear, 8),
        };
        let gfx11 = !matches!(rule, Rule::Gfx9Stride0 | Rule::Gfx9Stride);
        let base_soffset = vs.base + instr.soffset as u64;
        Setup {
            active,
            base_soffset,
            wrap48_from: (ADDR_MASK + 1).saturating_sub(base_soffset),
            soffset: instr.soffset as u64,
            stride: vs.stride,
            num_records: vs.num_records as u64,
            vindex_mask: if instr.idxen { !0 } else { 0 },
            voffset_mask: if instr.offen { !0 } else { 0 },
            tid_mask: if vs.add_tid { !0 } else { 0 },
            inst_offset: instr.inst_offset,
            swizzle,
            es_shift: es.trailing_zeros(),
            is_shift: vs.index_stride.trailing_zeros(),
            keep: ADDR_MASK & acc.clear_mask(instr.align_mode),
            align_low: align_req - 1,
            slot_low: acc.slot_bytes - 1,
            slots,
            judged: if gfx11 && !per_dword {
                slots.min(1)
            } else {
                slots
            },
            per_dword,
            can_access: vs.rtype == 0 && acc.slots > 0,
            rule,
            index_mode: instr.idxen || vs.add_tid,
            payload: if per_dword { acc.slot_bytes } else { acc.bytes } as u64,
            code,
        }
    }

    /// [`buffer_offset`] wrapped at 2^32, in u32 arithmetic that may wrap
    /// (sums, products and left shifts keep their low 32 bits exact).
    #[inline(always)]
    fn slot_offset<const SWIZZLE: bool>(&self, index: u32, offset: u32) -> u32 {
        if SWIZZLE {
            let (es, is) = (self.es_shift, self.is_shift);
            let (es_low, is_low) = ((1u32 << es) - 1, (1u32 << is) - 1);
            ((index >> is)
                .wrapping_mul(self.stride)
                .wrapping_add(offset & !es_low)
                << is)
                .wrapping_add((index & is_low) << es)
                .wrapping_add(offset & es_low)
        } else {
            index.wrapping_mul(self.stride).wrapping_add(offset)
        }
    }

    /// [`buffer_offset`] before the wrap at 2^32.
    #[inline(always)]
    fn full_offset<const SWIZZLE: bool>(&self, index: u32, offset: u32) -> u64 {
        let (index, offset, stride) = (index as u64, offset as u64, self.stride as u64);
        if SWIZZLE {
            let (es, is) = (self.es_shift, self.is_shift);
            let (es_low, is_low) = ((1u64 << es) - 1, (1u64 << is) - 1);
            ((((index >> is) * stride) + (offset & !es_low)) << is)
                + ((index & is_low) << es)
                + (offset & es_low)
        } else {
            index * stride + offset
        }
    }
}

/// Per-lane values passed between the two passes, and what the lanes
/// exercised, as lane masks (bit = lane, computed for every lane; coverage
/// counts the active ones).
#[derive(Debug, Clone)]
struct Lanes {
    /// Index and offset of each lane, wrapped at 2^32.
    index: [u32; LANES],
    offset: [u32; LANES],
    /// Buffer offset of each slot (slot-major), wrapped at 2^32; only slot
    /// 0's for linear addressing (see [`Lanes::bo`]).
    bo: [[u32; LANES]; SLOTS],
    linear: bool,
    /// Some slot of the access (or the lane's index or offset) wraps at 2^32.
    wrap32: u64,
    /// Some slot of the access wraps at 2^48.
    wrap48: u64,
    /// Slot 0 misaligned to its slot size.
    misaligned_slot: u64,
    /// Per-dword access with some slots in range and some out.
    partial: u64,
    /// All-or-nothing access out of range.
    all_or_nothing_out: u64,
    /// Range bins hit by the slots of active lanes: bit `i` is bin
    /// `range_bins[i]`.
    range: u32,
    range_bins: &'static [Bin],
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes {
            index: [0; LANES],
            offset: [0; LANES],
            bo: [[0; LANES]; SLOTS],
            linear: true,
            wrap32: 0,
            wrap48: 0,
            misaligned_slot: 0,
            partial: 0,
            all_or_nothing_out: 0,
            range: 0,
            range_bins: &[],
        }
    }
}

impl Lanes {
    /// The buffer offset of slot `d` of lane `l`: with linear addressing,
    /// slot 0's plus `4d` (wrapping at 2^32).
    #[inline(always)]
    fn bo(&self, d: usize, l: usize) -> u32 {
        if self.linear {
            self.bo[0][l].wrapping_add(4 * d as u32)
        } else {
            self.bo[d][l]
        }
    }

    fn record(&self, s: &Setup, instr: &Instr, ev: &mut Events) {
        let hit = |lanes: u64| lanes & s.active != 0;
        if hit(self.wrap32) {
            ev.set(Bin::Wrap32);
        }
        if hit(self.wrap48) {
            ev.set(Bin::Wrap48);
        }
        if s.per_dword && hit(self.misaligned_slot) {
            ev.set(match instr.align_mode & 3 {
                0 => Bin::AlignMode0Cleared,
                3 => Bin::AlignMode3Misaligned,
                _ => Bin::AlignStrictMisaligned,
            });
        }
        if hit(self.all_or_nothing_out) {
            ev.set(Bin::AllOrNothingOut);
        }
        if hit(self.partial) {
            ev.set(Bin::PerDwordPartial);
        }
        let mut bits = self.range;
        while bits != 0 {
            ev.set(self.range_bins[bits.trailing_zeros() as usize]);
            bits &= bits - 1;
        }
    }
}

/// The lanes (bit = lane) for which `f(lane)` holds.
///
/// The conditions go to a byte per lane first and are then packed eight at
/// a time, which lets the compiler evaluate `f` for several lanes at once
/// (a loop of `mask |= (f(l) as u64) << l` does not vectorise).
#[inline(always)]
fn lanes_where(f: impl Fn(usize) -> bool) -> u64 {
    let mut b = [0u8; LANES];
    for (l, x) in b.iter_mut().enumerate() {
        *x = f(l) as u8;
    }
    pack_bytes(&b)
}

/// The lanes whose `x(lane)` is at least `t`, a threshold that may exceed
/// every u32.
#[inline(always)]
fn at_least(t: u64, x: impl Fn(usize) -> u32) -> u64 {
    match u32::try_from(t) {
        Ok(t) => lanes_where(|l| x(l) >= t),
        Err(_) => 0,
    }
}

/// Bit `i` set iff byte `i` (0 or 1) is 1.
#[inline]
fn pack_bytes(b: &[u8; LANES]) -> u64 {
    b.chunks_exact(8).enumerate().fold(0, |m, (i, c)| {
        let x = u64::from_le_bytes(c.try_into().expect("eight bytes"));
        // Byte j (0 or 1, at bit 8j) times the multiplier lands on bit 56 + j,
        // and no two products overlap or carry.
        m | (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i)
    })
}

/// First pass: every lane's index and offset, the buffer offsets and
/// addresses of its four slots (SPEC §1.3), the wraps, and the alignment of
/// slot 0. Loops over the lanes without data-dependent branches.
#[inline(always)]
fn addresses<const SWIZZLE: bool>(s: &Setup, instr: &Instr, out: &mut LaneResults, v: &mut Lanes) {
    v.linear = !SWIZZLE;
    let lanes = v.index.iter_mut().zip(v.offset.iter_mut()).enumerate();
    for (l, (index, offset)) in lanes {
        *index = (instr.vindex[l] & s.vindex_mask).wrapping_add(l as u32 & s.tid_mask);
        *offset = (instr.voffset[l] & s.voffset_mask).wrapping_add(s.inst_offset);
    }
    // Upper bounds of the indices and offsets before the sums (the OR of
    // the lanes' values is at least each of them): when they show that
    // nothing can wrap at 2^32 (the common case), the lanes need not be
    // checked one by one.
    let or = |v: &[u32; LANES], mask: u32| (v.iter().fold(0, |m, &x| m | x) & mask) as u64;
    let vindex_max = or(&instr.vindex, s.vindex_mask);
    let voffset_max = or(&instr.voffset, s.voffset_mask);
    let index_max = vindex_max + (LANES as u64 - 1) * (s.tid_mask & 1) as u64;
    let offset_max = voffset_max + s.inst_offset as u64;
    let lane_sums_fit = index_max <= u32::MAX as u64 && offset_max <= u32::MAX as u64;
    // The lane's index or offset wraps at 2^32: the u32 sums carried.
    let lane_wrap = if lane_sums_fit {
        0
    } else {
        lanes_where(|l| {
            (v.index[l] < instr.vindex[l] & s.vindex_mask)
                | (v.offset[l] < instr.voffset[l] & s.voffset_mask)
        })
    };
    // Slot d's offset is `offset + 4d`, wrapping at 2^32; linear buffer
    // offsets are `index * stride + offset + 4d`.
    let words = &mut out.addr_words;
    for (l, addr) in out.addr.chunks_exact_mut(SLOTS).enumerate() {
        let (index, offset) = (v.index[l], v.offset[l]);
        let bo: [u32; SLOTS] = if SWIZZLE {
            [0u32, 1, 2, 3].map(|d| s.slot_offset::<true>(index, offset.wrapping_add(4 * d)))
        } else {
            let b0 = s.slot_offset::<false>(index, offset);
            [0u32, 1, 2, 3].map(|d| b0.wrapping_add(4 * d))
        };
        let a = [0, 1, 2, 3].map(|d| (s.base_soffset + bo[d] as u64) & s.keep);
        addr.copy_from_slice(&a);
        // Linear offsets of the other slots follow from slot 0's (`Lanes::bo`).
        if SWIZZLE {
            for (d, bo) in bo.iter().enumerate() {
                v.bo[d][l] = *bo;
            }
        } else {
            v.bo[0][l] = bo[0];
        }
        // The lane's four 48-bit addresses fill three u64s of the port.
        let q = [
            a[0] | a[1] << 48,
            a[1] >> 16 | a[2] << 32,
            a[2] >> 32 | a[3] << 16,
        ];
        for (i, q) in q.iter().enumerate() {
            words[6 * l + 2 * i] = *q as u32;
            words[6 * l + 2 * i + 1] = (*q >> 32) as u32;
        }
    }
    // A slot of the access wraps at 2^32 when its offset or its buffer
    // offset does. The buffer offset grows with the offset (in both modes),
    // so without an offset wrap the last slot's is the largest; with one,
    // the lane wraps anyway.
    let last = 4 * s.slots.max(1) as u64 - 4;
    // An upper bound of the last slot's buffer offset over all lanes (each
    // term of SPEC §1.3's sum at its largest), valid when the lanes' sums
    // fit.
    let bound = {
        let (o, stride) = (offset_max + last, s.stride as u64);
        if SWIZZLE {
            let (es, is) = (s.es_shift, s.is_shift);
            (((index_max >> is) * stride + o) << is) + (((1 << is) - 1) << es) + (1 << es) - 1
        } else {
            index_max * stride + o
        }
    };
    let slot_wrap = if s.slots > 0 && !(lane_sums_fit && bound <= u32::MAX as u64) {
        lanes_where(|l| {
            let o = v.offset[l] as u64 + last;
            (o > u32::MAX as u64)
                | (s.full_offset::<SWIZZLE>(v.index[l], o as u32) > u32::MAX as u64)
        })
    } else {
        0
    };
    v.wrap32 = lane_wrap | slot_wrap;
    // Slot d of the access wraps at 2^48 when its buffer offset reaches
    // `wrap48_from` (never if that is beyond any u32).
    v.wrap48 = match u32::try_from(s.wrap48_from) {
        Ok(from) => (0..s.slots).fold(0, |m, d| m | lanes_where(|l| v.bo(d, l) >= from)),
        Err(_) => 0,
    };
    // Slot 0's low address bits (before the alignment-mode-0 clearing): the
    // low bits of `base + soffset + bo`.
    let low0 = |l: usize| (s.base_soffset as u32).wrapping_add(v.bo[0][l]);
    let misaligned_req = lanes_where(|l| low0(l) & s.align_low != 0);
    v.misaligned_slot = lanes_where(|l| low0(l) & s.slot_low != 0);
    out.memviol = if s.can_access {
        misaligned_req & s.active
    } else {
        0
    };
}

/// Bit `i` of the low 16 bits of `x` moved to bit `4 * i`.
#[inline]
fn spread4(x: u64) -> u64 {
    let x = x & 0xFFFF;
    let x = (x | x << 24) & 0x0000_00FF_0000_00FF;
    let x = (x | x << 12) & 0x000F_000F_000F_000F;
    let x = (x | x << 6) & 0x0303_0303_0303_0303;
    (x | x << 3) & 0x1111_1111_1111_1111
}

/// The 256-bit slot set (bit `4 * lane + slot`) of per-slot lane masks.
#[inline]
fn interleave(slots: &[u64]) -> [u64; 4] {
    let mut w = [0u64; 4];
    for (d, m) in slots.iter().enumerate() {
        for (i, w) in w.iter_mut().enumerate() {
            *w |= spread4(m >> (16 * i)) << d;
        }
    }
    w
}

/// Second pass: the range check of every judged slot (SPEC §1.4, docs/ta.md
/// decisions) for one `Rule` (`RULE`), as a lane mask per slot; from them
/// the `lane_inrange_o` and `lane_access_o` bits and the range coverage.
/// The checks are written as `x >= threshold` on u32s (the sums they stand
/// for never wrap).
#[inline(always)]
fn ranges<const RULE: u8>(s: &Setup, out: &mut LaneResults, v: &mut Lanes) {
    let nr = s.num_records;
    let active = s.active;
    // Lanes out of range, per judged slot.
    let mut outs = [0u64; SLOTS];
    let index_out = lanes_where(|l| v.index[l] >= nr as u32);
    let off = |l: usize, d: usize| v.offset[l].wrapping_add(4 * d as u32);
    let mut range = 0u32;
    if RULE == G9_STRIDE {
        v.range_bins = G9_BINS;
        for (d, o) in outs.iter_mut().enumerate().take(s.judged) {
            let offset_out = if s.index_mode {
                lanes_where(|l| off(l, d) >= s.stride)
            } else {
                0
            };
            *o = index_out | offset_out;
            // in 2, index out 3, offset out 4.
            range |= ((active & !*o != 0) as u32) << 2
                | ((active & index_out != 0) as u32) << 3
                | ((active & offset_out & !index_out != 0) as u32) << 4;
        }
    } else {
        v.range_bins = if RULE == G9_STRIDE0 {
            G9_BINS
        } else {
            OOB_BINS
        };
        for (d, o) in outs.iter_mut().enumerate().take(s.judged) {
            *o = match RULE {
                // bo + soffset >= num_records
                G9_STRIDE0 => at_least(nr.saturating_sub(s.soffset), |l| v.bo(d, l)),
                // bo + payload > num_records
                OOB_LINEAR => at_least((nr + 1).saturating_sub(s.payload), |l| v.bo(d, l)),
                // index >= num_records or offset + payload > stride
                OOB_INDEX_OFFSET => {
                    let t = (s.stride as u64 + 1).saturating_sub(s.payload);
                    index_out | at_least(t, |l| off(l, d))
                }
                OOB_INDEX => index_out,
                _ => {
                    if nr == 0 {
                        !0
                    } else {
                        0
                    }
                }
            };
            range |= ((active & !*o != 0) as u32) << s.code
                | ((active & *o != 0) as u32) << (s.code + 1);
        }
    }
    v.range = range;
    // In range, per slot of the access.
    let mut ins = [0u64; SLOTS];
    let slots = s.slots;
    if s.per_dword {
        for d in 0..slots {
            ins[d] = !outs[d];
        }
        let any_in = ins.iter().fold(0, |a, m| a | m);
        let any_out = outs.iter().fold(0, |a, m| a | m);
        v.partial = any_in & any_out;
        v.all_or_nothing_out = 0;
    } else {
        // All-or-nothing: every slot of the access carries the lane's
        // verdict (an invalid format has no slots).
        let lane_out = outs.iter().fold(0, |a, m| a | m);
        for i in ins.iter_mut().take(slots) {
            *i = !lane_out;
        }
        v.all_or_nothing_out = lane_out;
        v.partial = 0;
    }
    out.inrange = interleave(&ins[..slots]);
    let accessing = if s.can_access {
        active & !out.memviol
    } else {
        0
    };
    for i in ins.iter_mut() {
        *i &= accessing;
    }
    out.access = interleave(&ins[..slots]);
}

/// Per-instruction coverage events.
fn instr_events(
    profile: Profile,
    instr: &Instr,
    vs: &Vsharp,
    acc: &Access,
    out: &LaneResults,
    ev: &mut Events,
) {
    ev.set(match instr.op {
        Op::Load => Bin::OpLoad,
        Op::Store => Bin::OpStore,
        Op::Atomic => Bin::OpAtomic,
        Op::AtomicRet => Bin::OpAtomicRet,
    });
    match acc.class {
        Class::NonFormat => ev.set(match acc.bytes {
            1 => Bin::Size1,
            2 => Bin::Size2,
            4 => Bin::Size4,
            8 => Bin::Size8,
            12 => Bin::Size12,
            _ => Bin::Size16,
        }),
        Class::Atomic => ev.set(if acc.bytes == 8 {
            Bin::Atomic64
        } else {
            Bin::Atomic32
        }),
        Class::Format => {
            ev.set(if instr.kind == Kind::Mtbuf {
                Bin::Mtbuf
            } else {
                Bin::MubufFormat
            });
            ev.set(match acc.bytes {
                0 => Bin::FormatInvalid,
                1 => Bin::FormatEs1,
                2 => Bin::FormatEs2,
                4 => Bin::FormatEs4,
                8 => Bin::FormatEs8,
                12 => Bin::FormatEs12,
                _ => Bin::FormatEs16,
            });
        }
    }
    // Encodings no real instruction has but the contract defines
    // (docs/ta.md): a size_i outside the sizes of the access's class, and
    // a format kind with an atomic op_i.
    let odd_size = match acc.class {
        Class::Atomic => !matches!(instr.size, 4 | 8),
        Class::NonFormat => !matches!(instr.size, 1 | 2 | 4 | 8 | 12 | 16),
        Class::Format => false,
    };
    if odd_size {
        ev.set(Bin::OddSize);
    }
    if instr.kind != Kind::Mubuf && instr.op.is_atomic() {
        ev.set(Bin::FormatAtomic);
    }
    if vs.rtype != 0 {
        ev.set(Bin::ResourceMismatch);
    }
    // SPEC §1.1: gfx11's swizzle_enable 2 is reserved, taken as linear.
    let params = TaParams::of(profile);
    if params.swizzle == SwizzleEncoding::EnableEs
        && params.vsharp.get(instr.vsharp, VsField::Swizzle) == 2
    {
        ev.set(Bin::SwizzleReserved);
    }
    if instr.vsharp == 0 {
        ev.set(Bin::ResourceAllZero);
    }
    ev.set(match vs.swizzle_es {
        None => Bin::SwizzleOff,
        Some(2) => Bin::SwizzleEs2,
        Some(4) => Bin::SwizzleEs4,
        Some(8) => Bin::SwizzleEs8,
        _ => Bin::SwizzleEs16,
    });
    if vs.swizzle_es.is_some() {
        ev.set(match vs.index_stride {
            8 => Bin::SwizzleIs8,
            16 => Bin::SwizzleIs16,
            32 => Bin::SwizzleIs32,
            _ => Bin::SwizzleIs64,
        });
    }
    match (instr.idxen, instr.offen) {
        (true, true) => ev.set(Bin::IdxenOffen),
        (true, false) => ev.set(Bin::Idxen),
        (false, true) => ev.set(Bin::Offen),
        (false, false) => {}
    }
    if vs.add_tid {
        ev.set(Bin::AddTid);
    }
    if out.active == 0 {
        ev.set(Bin::ExecZero);
    } else if out.active == u64::MAX {
        ev.set(Bin::ExecFull);
    }
    if profile.wave32() && !instr.wave64 {
        ev.set(Bin::Wave32);
    }
    if acc.slots > 0 && vs.rtype == 0 {
        let viol = out.memviol != 0;
        ev.set(match (acc.class, instr.align_mode & 3, viol) {
            (Class::Format, _, true) => Bin::AlignFormatMemviol,
            (Class::Atomic, _, true) => Bin::AlignAtomicMemviol,
            (Class::NonFormat, 0, _) => Bin::AlignMode0,
            (Class::NonFormat, 1, false) => Bin::AlignMode1Ok,
            (Class::NonFormat, 1, true) => Bin::AlignMode1Memviol,
            (Class::NonFormat, 2, false) => Bin::AlignMode2Ok,
            (Class::NonFormat, 2, true) => Bin::AlignMode2Memviol,
            (Class::NonFormat, _, _) => Bin::AlignMode3,
            (_, _, false) => Bin::AlignAligned,
        });
    }
}

/// One piece of an accessed slot, within one line (docs/ta.md "Line requests").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Piece {
    /// Line number (address / line size).
    pub line: u64,
    /// Byte mask within the line.
    pub mask: u128,
}

/// The pieces of one instruction, in `(lane, slot, part)` order.
#[derive(Debug, Clone)]
pub struct Pieces {
    /// Storage (only `..len` is meaningful).
    pub buf: [Piece; MAX_PIECES],
    /// Number of pieces.
    pub len: usize,
}

impl Default for Pieces {
    fn default() -> Self {
        Pieces {
            buf: [Piece::default(); MAX_PIECES],
            len: 0,
        }
    }
}

impl Pieces {
    /// The pieces.
    pub fn as_slice(&self) -> &[Piece] {
        &self.buf[..self.len]
    }
}

#[inline]
fn byte_mask(lo: u32, n: u32) -> u128 {
    (if n >= 128 { !0 } else { (1u128 << n) - 1 }) << lo
}

/// Splits every accessed slot of `res` into pieces for lines of `line_bytes`.
/// Returns whether any piece crossed a line boundary.
pub fn pieces(res: &LaneResults, line_bytes: u32, out: &mut Pieces) -> bool {
    out.len = 0;
    for_each_piece(res, line_bytes, |p| {
        out.buf[out.len] = p;
        out.len += 1;
    })
}

/// Calls `f` with every piece of the accessed slots of `res`, in `(lane,
/// slot, part)` order, for lines of `line_bytes` (a power of two, at most
/// 128). Returns whether any piece crossed a line boundary.
#[inline]
pub fn for_each_piece(res: &LaneResults, line_bytes: u32, mut f: impl FnMut(Piece)) -> bool {
    assert!(line_bytes.is_power_of_two() && line_bytes <= 128);
    let shift = line_bytes.trailing_zeros();
    let low = line_bytes as u64 - 1;
    // Line numbers wrap with the address at 2^48.
    let line_wrap = ADDR_MASK >> shift;
    let sb = res.shape.slot_bytes;
    let mut crossed = false;
    for (w, &word) in res.access.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let i = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let a = res.addr[i];
            let line = a >> shift;
            let off = (a & low) as u32;
            if off + sb <= line_bytes {
                f(Piece {
                    line,
                    mask: byte_mask(off, sb),
                });
            } else {
                crossed = true;
                f(Piece {
                    line,
                    mask: byte_mask(off, line_bytes - off),
                });
                f(Piece {
                    line: (line + 1) & line_wrap,
                    mask: byte_mask(0, off + sb - line_bytes),
                });
            }
        }
    }
    crossed
}

/// One cache-line request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineReq {
    /// Line-aligned byte address.
    pub addr: u64,
    /// Byte mask within the line.
    pub mask: u128,
    /// Last request of the instruction.
    pub last: bool,
}

/// Transaction-level coalescer: one request per distinct line, in the order
/// of each line's first piece, with the union of its pieces' bytes.
pub fn coalesce(pieces: &[Piece], line_bytes: u32) -> Vec<LineReq> {
    let mut reqs: Vec<LineReq> = Vec::new();
    for p in pieces {
        let addr = p.line * line_bytes as u64;
        match reqs.iter_mut().find(|r| r.addr == addr) {
            Some(r) => r.mask |= p.mask,
            None => reqs.push(LineReq {
                addr,
                mask: p.mask,
                last: false,
            }),
        }
    }
    if let Some(r) = reqs.last_mut() {
        r.last = true;
    }
    reqs
}
