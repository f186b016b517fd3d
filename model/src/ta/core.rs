//! Transaction level: what the unit does with one buffer instruction
//! (SPEC §1.1–§1.5 and the decisions of `docs/ta.md`), as pure functions used
//! both by the cycle model and by `gpucosim eval`.
//!
//! Nothing here allocates: results go into caller-owned fixed-size buffers.

use super::cover::{Bin, Events};
use super::formats::{gfx11_format, GFX9_DFMT};
use crate::profile::Profile;

/// Lanes of a wave64.
pub const LANES: usize = 64;
/// Dword slots per lane.
pub const SLOTS: usize = 4;
/// Most pieces one instruction can produce (every slot crossing a line).
pub const MAX_PIECES: usize = LANES * SLOTS * 2;
/// Byte addresses are 48 bits.
pub const ADDR_MASK: u64 = (1 << 48) - 1;

/// How a profile encodes its V# and checks ranges (a row of the profile table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaParams {
    /// Swizzle fields of the V#.
    pub swizzle: SwizzleEncoding,
    /// Format field of the V# (used by MUBUF `*_FORMAT_*`) and of MTBUF.
    pub format: FormatEncoding,
    /// Range-check rule (SPEC §1.4).
    pub range: RangeRule,
}

/// V# swizzle encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwizzleEncoding {
    /// gfx9: swizzle_en [63], element size `2 << elem_size[116:115]`.
    EnableBitElemSize,
    /// gfx11: swizzle_enable [63:62]: 0 off, 1 = 4-byte, 3 = 16-byte
    /// elements, 2 reserved (treated as off).
    EnableEs,
}

/// Format encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatEncoding {
    /// gfx9: V# dfmt [114:111]; MTBUF `{nfmt[6:4], dfmt[3:0]}`.
    DfmtNfmt,
    /// gfx11: V# FORMAT [113:108]; MTBUF the unified code (7 bits).
    Unified,
}

/// Range-check rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeRule {
    /// gfx9 (seed `002`, CLRX): stride == 0 / stride != 0 rules.
    Gfx9,
    /// gfx11: OOB_SELECT [125:124] picks one of four rules.
    OobSelect,
}

/// Instruction kind (`kind_i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// MUBUF non-format (size from the opcode).
    Mubuf,
    /// MUBUF `*_FORMAT_*` (format from the V#).
    MubufFormat,
    /// MTBUF (format from the instruction).
    Mtbuf,
}

impl Kind {
    /// From the 2-bit `kind_i` (3, which the contract leaves open, is taken
    /// as MTBUF: bit 1 means "format from the instruction").
    pub const fn from_bits(b: u32) -> Kind {
        match b & 3 {
            0 => Kind::Mubuf,
            1 => Kind::MubufFormat,
            _ => Kind::Mtbuf,
        }
    }
}

/// Operation (`op_i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Load.
    Load = 0,
    /// Store.
    Store = 1,
    /// Atomic without return.
    Atomic = 2,
    /// Atomic with return.
    AtomicRet = 3,
}

impl Op {
    /// From the 2-bit `op_i`.
    pub const fn from_bits(b: u32) -> Op {
        match b & 3 {
            0 => Op::Load,
            1 => Op::Store,
            2 => Op::Atomic,
            _ => Op::AtomicRet,
        }
    }
    /// Atomic (with or without return).
    pub const fn is_atomic(self) -> bool {
        matches!(self, Op::Atomic | Op::AtomicRet)
    }
}

/// One buffer instruction, as presented on the request ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    /// The 128-bit V#.
    pub vsharp: u128,
    /// Kind.
    pub kind: Kind,
    /// Operation.
    pub op: Op,
    /// `size_i` (bytes of a non-format access or atomic).
    pub size: u32,
    /// `fmt_i` (MTBUF format).
    pub fmt: u32,
    /// offen.
    pub offen: bool,
    /// idxen.
    pub idxen: bool,
    /// 12-bit instruction offset.
    pub inst_offset: u32,
    /// SGPR offset.
    pub soffset: u32,
    /// SH_MEM_CONFIG.alignment_mode (0 DWORD, 1 DWORD_STRICT, 2 STRICT, 3 UNALIGNED).
    pub align_mode: u32,
    /// Wave64 (ignored on profiles without wave32).
    pub wave64: bool,
    /// Exec mask.
    pub exec: u64,
    /// Per-lane index VGPR.
    pub vindex: [u32; LANES],
    /// Per-lane offset VGPR.
    pub voffset: [u32; LANES],
}

impl Default for Instr {
    fn default() -> Self {
        Instr {
            vsharp: 0,
            kind: Kind::Mubuf,
            op: Op::Load,
            size: 4,
            fmt: 0,
            offen: false,
            idxen: false,
            inst_offset: 0,
            soffset: 0,
            align_mode: 0,
            wave64: true,
            exec: 0,
            vindex: [0; LANES],
            voffset: [0; LANES],
        }
    }
}

/// The V# fields the unit uses, decoded per profile (SPEC §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vsharp {
    /// base [47:0].
    pub base: u64,
    /// stride [61:48].
    pub stride: u32,
    /// num_records [95:64].
    pub num_records: u32,
    /// Swizzle element size in bytes when swizzling is on.
    pub swizzle_es: Option<u32>,
    /// Index stride in elements (8, 16, 32, 64).
    pub index_stride: u32,
    /// add_tid [119].
    pub add_tid: bool,
    /// Format element size from the V# (MUBUF format ops); `None` if invalid.
    pub format_es: Option<u32>,
    /// oob_select [125:124] (gfx11; 0 elsewhere).
    pub oob_select: u32,
    /// type [127:126].
    pub rtype: u32,
}

#[inline]
const fn bits(v: u128, lo: u32, width: u32) -> u32 {
    ((v >> lo) & ((1u128 << width) - 1)) as u32
}

impl Vsharp {
    /// Decodes `v` for `profile`.
    pub fn decode(profile: Profile, v: u128) -> Vsharp {
        let p = profile.params().ta;
        let swizzle_es = match p.swizzle {
            SwizzleEncoding::EnableBitElemSize => {
                (bits(v, 63, 1) == 1).then(|| 2u32 << bits(v, 115, 2))
            }
            SwizzleEncoding::EnableEs => match bits(v, 62, 2) {
                1 => Some(4),
                3 => Some(16),
                _ => None,
            },
        };
        let format_es = match p.format {
            FormatEncoding::DfmtNfmt => GFX9_DFMT[bits(v, 111, 4) as usize].elem_bytes(),
            FormatEncoding::Unified => {
                gfx11_format(bits(v, 108, 6)).and_then(|(d, _)| d.elem_bytes())
            }
        };
        Vsharp {
            base: (v as u64) & ADDR_MASK,
            stride: bits(v, 48, 14),
            num_records: bits(v, 64, 32),
            swizzle_es,
            index_stride: 8 << bits(v, 117, 2),
            add_tid: bits(v, 119, 1) == 1,
            format_es,
            oob_select: match p.range {
                RangeRule::OobSelect => bits(v, 124, 2),
                RangeRule::Gfx9 => 0,
            },
            rtype: bits(v, 126, 2),
        }
    }
}

/// Element size of an MTBUF instruction format `fmt_i` on `profile`.
pub fn mtbuf_es(profile: Profile, fmt: u32) -> Option<u32> {
    match profile.params().ta.format {
        FormatEncoding::DfmtNfmt => GFX9_DFMT[(fmt & 15) as usize].elem_bytes(),
        FormatEncoding::Unified => gfx11_format(fmt & 127).and_then(|(d, _)| d.elem_bytes()),
    }
}

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
    pub addr: [u64; LANES * SLOTS],
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
            addr: [0; LANES * SLOTS],
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

#[inline]
fn set_bit(w: &mut [u64; 4], i: usize) {
    w[i / 64] |= 1 << (i % 64);
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
/// coverage events it exercised in `ev`.
pub fn compute(profile: Profile, instr: &Instr, out: &mut LaneResults, ev: &mut Events) {
    let params = profile.params();
    let vs = Vsharp::decode(profile, instr.vsharp);
    let acc = Access::of(profile, instr, &vs);
    let wave64 = instr.wave64 || !params.wave32;
    let active = if wave64 {
        instr.exec
    } else {
        instr.exec & 0xFFFF_FFFF
    };
    let align_req = acc.align_req(instr.align_mode) as u64;
    let keep = acc.clear_mask(instr.align_mode);
    let can_access = vs.rtype == 0 && acc.slots > 0;
    let per_dword = acc.class == Class::NonFormat;

    out.inrange = [0; 4];
    out.access = [0; 4];
    out.memviol = 0;
    out.active = active;
    out.shape = acc;

    let nr = vs.num_records as u64;
    let stride = vs.stride as u64;
    for l in 0..LANES {
        let index = (if instr.idxen { instr.vindex[l] } else { 0 }) as u64
            + if vs.add_tid { l as u64 } else { 0 };
        let offset =
            (if instr.offen { instr.voffset[l] } else { 0 }) as u64 + instr.inst_offset as u64;
        let lane_on = active >> l & 1 != 0;
        if lane_on && (index > u32::MAX as u64 || offset > u32::MAX as u64) {
            ev.set(Bin::Wrap32);
        }
        let index = index as u32;
        let offset = offset as u32;
        let mut lane_oor = false;
        for d in 0..SLOTS {
            let off_d = offset.wrapping_add(4 * d as u32);
            let (bo, wrapped) = buffer_offset(&vs, index, off_d);
            let full = vs.base + instr.soffset as u64 + bo as u64;
            let in_access = (d as u32) < acc.slots;
            if lane_on && in_access {
                if wrapped || (offset as u64 + 4 * d as u64) > u32::MAX as u64 {
                    ev.set(Bin::Wrap32);
                }
                if full > ADDR_MASK {
                    ev.set(Bin::Wrap48);
                }
            }
            let raw = full & ADDR_MASK;
            out.addr[4 * l + d] = raw & keep;
            if d == 0 && lane_on && can_access && raw % align_req != 0 {
                out.memviol |= 1 << l;
            }
            if lane_on && d == 0 && per_dword && raw % acc.slot_bytes as u64 != 0 {
                ev.set(match instr.align_mode & 3 {
                    0 => Bin::AlignMode0Cleared,
                    3 => Bin::AlignMode3Misaligned,
                    _ => Bin::AlignStrictMisaligned,
                });
            }
            if !in_access {
                continue;
            }
            // Range check of this slot (SPEC §1.4, docs/ta.md decisions).
            let oor = match params.ta.range {
                RangeRule::Gfx9 => {
                    let (oor, bin) = if stride == 0 {
                        let o = bo as u64 + instr.soffset as u64 >= nr;
                        (
                            o,
                            if o {
                                Bin::Gfx9Stride0Out
                            } else {
                                Bin::Gfx9Stride0In
                            },
                        )
                    } else if index as u64 >= nr {
                        (true, Bin::Gfx9IndexOut)
                    } else if (instr.idxen || vs.add_tid) && off_d as u64 >= stride {
                        (true, Bin::Gfx9OffsetOut)
                    } else {
                        (false, Bin::Gfx9StrideIn)
                    };
                    if lane_on {
                        ev.set(bin);
                    }
                    oor
                }
                RangeRule::OobSelect => {
                    if !per_dword && d > 0 {
                        lane_oor
                    } else {
                        let payload = if per_dword { acc.slot_bytes } else { acc.bytes } as u64;
                        let mode0 = index as u64 >= nr || off_d as u64 + payload > stride;
                        let (oor, bin_in) = match vs.oob_select {
                            0 => (mode0, Bin::Oob0In),
                            1 => (index as u64 >= nr, Bin::Oob1In),
                            2 => (nr == 0, Bin::Oob2In),
                            _ if vs.swizzle_es.is_some() && stride != 0 => (mode0, Bin::Oob3SwzIn),
                            _ => (bo as u64 + payload > nr, Bin::Oob3LinIn),
                        };
                        if lane_on {
                            ev.set(bin_in.out_if(oor));
                        }
                        oor
                    }
                }
            };
            lane_oor |= oor;
            if !oor {
                set_bit(&mut out.inrange, 4 * l + d);
            }
        }
        if !per_dword && acc.slots > 0 {
            // All-or-nothing: every slot of the access carries one verdict.
            for d in 0..acc.slots as usize {
                if lane_oor {
                    out.inrange[(4 * l + d) / 64] &= !(1 << ((4 * l + d) % 64));
                } else {
                    set_bit(&mut out.inrange, 4 * l + d);
                }
            }
            if lane_on && lane_oor {
                ev.set(Bin::AllOrNothingOut);
            }
        } else if lane_on && acc.slots > 1 {
            let m = (out.inrange[l / 16] >> (4 * (l % 16))) & ((1 << acc.slots) - 1);
            if m != 0 && m != (1 << acc.slots) - 1 {
                ev.set(Bin::PerDwordPartial);
            }
        }
        if lane_on && can_access && out.memviol >> l & 1 == 0 {
            for d in 0..acc.slots as usize {
                if get_bit(&out.inrange, 4 * l + d) {
                    set_bit(&mut out.access, 4 * l + d);
                }
            }
        }
    }
    instr_events(profile, instr, &vs, &acc, out, ev);
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
    let params = profile.params();
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
    if vs.rtype != 0 {
        ev.set(Bin::ResourceMismatch);
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
    if params.wave32 && !instr.wave64 {
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
    let lb = line_bytes as u64;
    let lines_mod = (ADDR_MASK + 1) / lb;
    let sb = res.shape.slot_bytes;
    let mut crossed = false;
    out.len = 0;
    for i in 0..LANES * SLOTS {
        if !get_bit(&res.access, i) {
            continue;
        }
        let a = res.addr[i];
        let line = a / lb;
        let off = (a % lb) as u32;
        if off + sb <= line_bytes {
            out.buf[out.len] = Piece {
                line,
                mask: byte_mask(off, sb),
            };
            out.len += 1;
        } else {
            crossed = true;
            out.buf[out.len] = Piece {
                line,
                mask: byte_mask(off, line_bytes - off),
            };
            out.buf[out.len + 1] = Piece {
                line: (line + 1) % lines_mod,
                mask: byte_mask(0, off + sb - line_bytes),
            };
            out.len += 2;
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

/// The V# by named fields, for building descriptors (tests, `eval`).
/// Fields a profile does not have are ignored when encoding for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VsharpFields {
    /// base [47:0].
    pub base: u64,
    /// stride [61:48] (14 bits).
    pub stride: u32,
    /// num_records [95:64].
    pub num_records: u32,
    /// gfx9 swizzle_en [63] (0/1); gfx11 swizzle_enable [63:62] (0..3).
    pub swizzle: u32,
    /// gfx9 cache_swizzle [62].
    pub cache_swizzle: u32,
    /// gfx9 elem_size [116:115] (element size `2 << elem_size`).
    pub elem_size: u32,
    /// index_stride [118:117] (index stride `8 << index_stride`).
    pub index_stride: u32,
    /// add_tid [119].
    pub add_tid: bool,
    /// gfx9 dfmt [114:111]; gfx11 FORMAT [113:108].
    pub format: u32,
    /// gfx9 nfmt [110:108].
    pub nfmt: u32,
    /// dst_sel_x/y/z/w [107:96] (3 bits each, x lowest).
    pub dst_sel: u32,
    /// gfx11 oob_select [125:124].
    pub oob_select: u32,
    /// type [127:126].
    pub rtype: u32,
}

impl VsharpFields {
    /// Encodes the fields as a 128-bit V# for `profile`.
    pub fn encode(&self, profile: Profile) -> u128 {
        let put = |x: u64, lo: u32, w: u32| ((x as u128) & ((1u128 << w) - 1)) << lo;
        let p = profile.params().ta;
        let mut v = put(self.base, 0, 48)
            | put(self.stride as u64, 48, 14)
            | put(self.num_records as u64, 64, 32)
            | put(self.dst_sel as u64, 96, 12)
            | put(self.index_stride as u64, 117, 2)
            | put(self.add_tid as u64, 119, 1)
            | put(self.rtype as u64, 126, 2);
        v |= match p.swizzle {
            SwizzleEncoding::EnableBitElemSize => {
                put(self.swizzle as u64, 63, 1)
                    | put(self.cache_swizzle as u64, 62, 1)
                    | put(self.elem_size as u64, 115, 2)
            }
            SwizzleEncoding::EnableEs => put(self.swizzle as u64, 62, 2),
        };
        v |= match p.format {
            FormatEncoding::DfmtNfmt => {
                put(self.format as u64, 111, 4) | put(self.nfmt as u64, 108, 3)
            }
            FormatEncoding::Unified => put(self.format as u64, 108, 6),
        };
        if p.range == RangeRule::OobSelect {
            v |= put(self.oob_select as u64, 124, 2);
        }
        v
    }
}
