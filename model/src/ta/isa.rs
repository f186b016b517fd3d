//! The buffer instructions as the unit sees them (SPEC §1.1, §1.2): the
//! request's kind and op, the instruction, the V# in both directions, and
//! the data formats.
//!
//! Data formats are data. gfx9 names a format by `dfmt` (4 bits, the data
//! format) and `nfmt` (3 bits, the number format); only `dfmt` sets the
//! memory footprint. gfx11 replaces both by one unified FORMAT code whose
//! table is LLVM's (`llvm-mc -arch=amdgcn -mcpu=gfx1100`);
//! `model/tests/ta_formats_llvm.rs` checks [`GFX11_FORMATS`] and
//! [`GFX9_DFMT`] against the committed record of what `llvm-mc` 19 prints,
//! and that record against `llvm-mc` when it is installed.
//! A code without an entry (gfx11 codes 64 and up, which the 7-bit MTBUF field
//! can carry) is an invalid format.

use super::params::{FormatEncoding, SwizzleEncoding, TaParams};
use crate::profile::Profile;
use serde::{Deserialize, Serialize};

/// Lanes of a wave64.
pub const LANES: usize = 64;
/// Bits of a byte address.
pub const ADDR_W: u32 = 48;
/// Byte addresses are 48 bits.
pub const ADDR_MASK: u64 = (1 << ADDR_W) - 1;

/// `SH_MEM_CONFIG.alignment_mode` values (`align_mode_i`), by code.
pub const ALIGN_MODES: [&str; 4] = ["dword", "dword_strict", "strict", "unaligned"];

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

/// Serialised as its `kind_i` code.
impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(*self as u8)
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        u8::deserialize(d).map(|b| Kind::from_bits(b.into()))
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

/// Serialised as its `op_i` code.
impl Serialize for Op {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(*self as u8)
    }
}

impl<'de> Deserialize<'de> for Op {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Op, D::Error> {
        u8::deserialize(d).map(|b| Op::from_bits(b.into()))
    }
}

/// One buffer instruction, as presented on the request ports (serialised
/// as the `ta` transactions of repro bundles carry it: `kind` and `op` by
/// their port codes, the V# as hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instr {
    /// The 128-bit V#.
    #[serde(with = "crate::serde_fmt::hex128")]
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
    #[serde(with = "crate::serde_fmt::lanes")]
    pub vindex: [u32; LANES],
    /// Per-lane offset VGPR.
    #[serde(with = "crate::serde_fmt::lanes")]
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
    /// base \[47:0\].
    pub base: u64,
    /// stride \[61:48\].
    pub stride: u32,
    /// num_records \[95:64\].
    pub num_records: u32,
    /// Swizzle element size in bytes when swizzling is on.
    pub swizzle_es: Option<u32>,
    /// Index stride in elements (8, 16, 32, 64).
    pub index_stride: u32,
    /// add_tid \[119\].
    pub add_tid: bool,
    /// Format element size from the V# (MUBUF format ops); `None` if invalid.
    pub format_es: Option<u32>,
    /// oob_select \[125:124\] (gfx11; 0 elsewhere).
    pub oob_select: u32,
    /// type \[127:126\].
    pub rtype: u32,
}

/// A field of the V# (SPEC §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VsField {
    /// base.
    Base,
    /// stride.
    Stride,
    /// gfx9 cache_swizzle.
    CacheSwizzle,
    /// gfx9 swizzle_en; gfx11 swizzle_enable.
    Swizzle,
    /// num_records.
    NumRecords,
    /// dst_sel_x/y/z/w (3 bits each, x lowest).
    DstSel,
    /// gfx9 nfmt.
    Nfmt,
    /// gfx9 dfmt; gfx11 FORMAT.
    Format,
    /// gfx9 elem_size.
    ElemSize,
    /// index_stride.
    IndexStride,
    /// add_tid.
    AddTid,
    /// gfx11 oob_select.
    OobSelect,
    /// type.
    Type,
}

impl VsField {
    /// Every field, in [`VsLayout`] order.
    pub const ALL: [VsField; 13] = [
        VsField::Base,
        VsField::Stride,
        VsField::CacheSwizzle,
        VsField::Swizzle,
        VsField::NumRecords,
        VsField::DstSel,
        VsField::Nfmt,
        VsField::Format,
        VsField::ElemSize,
        VsField::IndexStride,
        VsField::AddTid,
        VsField::OobSelect,
        VsField::Type,
    ];

    /// The field's name on `profile` (SPEC §1.1): gfx9's `swizzle_en` and
    /// `dfmt` are gfx11's `swizzle_enable` and `format`.
    pub fn name(self, profile: Profile) -> &'static str {
        let p = TaParams::of(profile);
        match self {
            VsField::Base => "base",
            VsField::Stride => "stride",
            VsField::CacheSwizzle => "cache_swizzle",
            VsField::Swizzle => match p.swizzle {
                SwizzleEncoding::EnableBitElemSize => "swizzle_en",
                SwizzleEncoding::EnableEs => "swizzle_enable",
            },
            VsField::NumRecords => "num_records",
            VsField::DstSel => "dst_sel",
            VsField::Nfmt => "nfmt",
            VsField::Format => match p.format {
                FormatEncoding::DfmtNfmt => "dfmt",
                FormatEncoding::Unified => "format",
            },
            VsField::ElemSize => "elem_size",
            VsField::IndexStride => "index_stride",
            VsField::AddTid => "add_tid",
            VsField::OobSelect => "oob_select",
            VsField::Type => "type",
        }
    }
}

/// Where a profile's V# keeps each field: its lowest bit and width, width
/// 0 for a field the profile does not have. One table per profile
/// (`TaParams::vsharp`), read by [`Vsharp::decode`], [`VsharpFields::encode`]
/// and the RTL (`rtl/ta/ta_enc.svh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VsLayout {
    /// (lowest bit, width) per field, in [`VsField::ALL`] order.
    at: [(u8, u8); 13],
}

impl VsLayout {
    /// The layout of the listed fields (the others absent).
    pub const fn new(fields: &[(VsField, u32, u32)]) -> VsLayout {
        let mut at = [(0u8, 0u8); 13];
        let mut i = 0;
        while i < fields.len() {
            let (f, lo, w) = fields[i];
            assert!(lo + w <= 128);
            at[f as usize] = (lo as u8, w as u8);
            i += 1;
        }
        VsLayout { at }
    }
    /// Lowest bit of `f` (0 when absent).
    #[inline]
    pub const fn lo(&self, f: VsField) -> u32 {
        self.at[f as usize].0 as u32
    }
    /// Width of `f` in bits (0 when absent).
    #[inline]
    pub const fn width(&self, f: VsField) -> u32 {
        self.at[f as usize].1 as u32
    }
    /// Field `f` of V# `v` (0 when absent).
    #[inline]
    pub const fn get(&self, v: u128, f: VsField) -> u64 {
        let (lo, w) = self.at[f as usize];
        ((v >> lo) & ((1u128 << w) - 1)) as u64
    }
    /// `x` (truncated to the width) placed in field `f` (0 when absent).
    #[inline]
    pub const fn put(&self, f: VsField, x: u64) -> u128 {
        let (lo, w) = self.at[f as usize];
        ((x as u128) & ((1u128 << w) - 1)) << lo
    }
}

impl Vsharp {
    /// Decodes `v` for `profile`.
    pub fn decode(profile: Profile, v: u128) -> Vsharp {
        TaParams::with(profile, |p| Self::decode_in(p, v))
    }

    #[inline(always)]
    fn decode_in(p: &TaParams, v: u128) -> Vsharp {
        use VsField as F;
        let l = &p.vsharp;
        let get = |f| l.get(v, f) as u32;
        let swizzle_es = match p.swizzle {
            SwizzleEncoding::EnableBitElemSize => {
                (get(F::Swizzle) == 1).then(|| 2u32 << get(F::ElemSize))
            }
            SwizzleEncoding::EnableEs => match get(F::Swizzle) {
                1 => Some(4),
                3 => Some(16),
                _ => None,
            },
        };
        let format_es = match p.format {
            FormatEncoding::DfmtNfmt => GFX9_DFMT[get(F::Format) as usize].elem_bytes(),
            FormatEncoding::Unified => {
                gfx11_format(get(F::Format)).and_then(|(d, _)| d.elem_bytes())
            }
        };
        Vsharp {
            base: l.get(v, F::Base) & ADDR_MASK,
            stride: get(F::Stride),
            num_records: get(F::NumRecords),
            swizzle_es,
            index_stride: 8 << get(F::IndexStride),
            add_tid: get(F::AddTid) == 1,
            format_es,
            oob_select: get(F::OobSelect),
            rtype: get(F::Type),
        }
    }
}

/// Element size of an MTBUF instruction format `fmt_i` on `profile`.
pub fn mtbuf_es(profile: Profile, fmt: u32) -> Option<u32> {
    match TaParams::of(profile).format {
        FormatEncoding::DfmtNfmt => GFX9_DFMT[(fmt & 15) as usize].elem_bytes(),
        FormatEncoding::Unified => gfx11_format(fmt & 127).and_then(|(d, _)| d.elem_bytes()),
    }
}

/// The V# by named fields, for building descriptors (tests, `eval`).
/// Fields a profile does not have are ignored when encoding for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VsharpFields {
    /// base \[47:0\].
    pub base: u64,
    /// stride \[61:48\] (14 bits).
    pub stride: u32,
    /// num_records \[95:64\].
    pub num_records: u32,
    /// gfx9 swizzle_en \[63\] (0/1); gfx11 swizzle_enable \[63:62\] (0..3).
    pub swizzle: u32,
    /// gfx9 cache_swizzle \[62\].
    pub cache_swizzle: u32,
    /// gfx9 elem_size \[116:115\] (element size `2 << elem_size`).
    pub elem_size: u32,
    /// index_stride \[118:117\] (index stride `8 << index_stride`).
    pub index_stride: u32,
    /// add_tid \[119\].
    pub add_tid: bool,
    /// gfx9 dfmt \[114:111\]; gfx11 FORMAT \[113:108\].
    pub format: u32,
    /// gfx9 nfmt \[110:108\].
    pub nfmt: u32,
    /// dst_sel_x/y/z/w \[107:96\] (3 bits each, x lowest).
    pub dst_sel: u32,
    /// gfx11 oob_select \[125:124\].
    pub oob_select: u32,
    /// type \[127:126\].
    pub rtype: u32,
}

impl VsharpFields {
    /// Encodes the fields as a 128-bit V# for `profile` (a field the
    /// profile does not have is dropped).
    pub fn encode(&self, profile: Profile) -> u128 {
        TaParams::with(profile, |p| self.encode_in(p))
    }

    /// The encoder's body, inlined by force into the closure of
    /// [`TaParams::with`] (as [`Vsharp::decode`]'s is): as the closure's own
    /// body it could stay a call, in which no shift is a constant.
    #[inline(always)]
    fn encode_in(&self, p: &TaParams) -> u128 {
        // Every field by name (`VsField::ALL`, which a test holds to), so
        // that with the layout a constant each is a constant shift.
        use VsField as F;
        let put = |f, x: u64| p.vsharp.put(f, x);
        put(F::Base, self.base)
            | put(F::Stride, self.stride.into())
            | put(F::CacheSwizzle, self.cache_swizzle.into())
            | put(F::Swizzle, self.swizzle.into())
            | put(F::NumRecords, self.num_records.into())
            | put(F::DstSel, self.dst_sel.into())
            | put(F::Nfmt, self.nfmt.into())
            | put(F::Format, self.format.into())
            | put(F::ElemSize, self.elem_size.into())
            | put(F::IndexStride, self.index_stride.into())
            | put(F::AddTid, self.add_tid.into())
            | put(F::OobSelect, self.oob_select.into())
            | put(F::Type, self.rtype.into())
    }

    /// The value of field `f`.
    pub fn get(&self, f: VsField) -> u64 {
        match f {
            VsField::Base => self.base,
            VsField::Stride => self.stride.into(),
            VsField::CacheSwizzle => self.cache_swizzle.into(),
            VsField::Swizzle => self.swizzle.into(),
            VsField::NumRecords => self.num_records.into(),
            VsField::DstSel => self.dst_sel.into(),
            VsField::Nfmt => self.nfmt.into(),
            VsField::Format => self.format.into(),
            VsField::ElemSize => self.elem_size.into(),
            VsField::IndexStride => self.index_stride.into(),
            VsField::AddTid => self.add_tid.into(),
            VsField::OobSelect => self.oob_select.into(),
            VsField::Type => self.rtype.into(),
        }
    }
}

/// A data format: the layout of one element in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    /// Invalid (code 0): the access is dropped.
    Invalid,
    /// 8.
    F8,
    /// 16.
    F16,
    /// 8_8.
    F8_8,
    /// 32.
    F32,
    /// 16_16.
    F16_16,
    /// 10_11_11.
    F10_11_11,
    /// 11_11_10.
    F11_11_10,
    /// 10_10_10_2.
    F10_10_10_2,
    /// 2_10_10_10.
    F2_10_10_10,
    /// 8_8_8_8.
    F8_8_8_8,
    /// 32_32.
    F32_32,
    /// 16_16_16_16.
    F16_16_16_16,
    /// 32_32_32.
    F32_32_32,
    /// 32_32_32_32.
    F32_32_32_32,
    /// Reserved (gfx9 dfmt 15): the access is dropped.
    Reserved,
}

impl DataFormat {
    /// Element size in bytes (SPEC §1.2 table); `None` for invalid and reserved.
    pub const fn elem_bytes(self) -> Option<u32> {
        use DataFormat::*;
        match self {
            Invalid | Reserved => None,
            F8 => Some(1),
            F16 | F8_8 => Some(2),
            F32 | F16_16 | F10_11_11 | F11_11_10 | F10_10_10_2 | F2_10_10_10 | F8_8_8_8 => Some(4),
            F32_32 | F16_16_16_16 => Some(8),
            F32_32_32 => Some(12),
            F32_32_32_32 => Some(16),
        }
    }

    /// The name LLVM uses after `BUF_DATA_FORMAT_` (gfx9) / `BUF_FMT_` (gfx11).
    pub const fn name(self) -> &'static str {
        use DataFormat::*;
        match self {
            Invalid => "INVALID",
            F8 => "8",
            F16 => "16",
            F8_8 => "8_8",
            F32 => "32",
            F16_16 => "16_16",
            F10_11_11 => "10_11_11",
            F11_11_10 => "11_11_10",
            F10_10_10_2 => "10_10_10_2",
            F2_10_10_10 => "2_10_10_10",
            F8_8_8_8 => "8_8_8_8",
            F32_32 => "32_32",
            F16_16_16_16 => "16_16_16_16",
            F32_32_32 => "32_32_32",
            F32_32_32_32 => "32_32_32_32",
            Reserved => "RESERVED_15",
        }
    }
}

/// A number format: how the element's bits are interpreted (no effect on
/// addressing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumFormat {
    /// Unsigned normalised.
    Unorm,
    /// Signed normalised.
    Snorm,
    /// Unsigned scaled.
    Uscaled,
    /// Signed scaled.
    Sscaled,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Floating point.
    Float,
}

impl NumFormat {
    /// LLVM's name suffix.
    pub const fn name(self) -> &'static str {
        match self {
            NumFormat::Unorm => "UNORM",
            NumFormat::Snorm => "SNORM",
            NumFormat::Uscaled => "USCALED",
            NumFormat::Sscaled => "SSCALED",
            NumFormat::Uint => "UINT",
            NumFormat::Sint => "SINT",
            NumFormat::Float => "FLOAT",
        }
    }
}

use DataFormat as D;
use NumFormat as N;

/// gfx9 `dfmt` → data format (SPEC §1.2, seed `002`).
pub const GFX9_DFMT: [DataFormat; 16] = [
    D::Invalid,
    D::F8,
    D::F16,
    D::F8_8,
    D::F32,
    D::F16_16,
    D::F10_11_11,
    D::F11_11_10,
    D::F10_10_10_2,
    D::F2_10_10_10,
    D::F8_8_8_8,
    D::F32_32,
    D::F16_16_16_16,
    D::F32_32_32,
    D::F32_32_32_32,
    D::Reserved,
];

/// gfx11 unified FORMAT code → (data format, number format), codes 1..=63
/// (index = code - 1; code 0 is `BUF_FMT_INVALID`). From LLVM 19.
pub const GFX11_FORMATS: [(DataFormat, NumFormat); 63] = [
    (D::F8, N::Unorm),             // 1
    (D::F8, N::Snorm),             // 2
    (D::F8, N::Uscaled),           // 3
    (D::F8, N::Sscaled),           // 4
    (D::F8, N::Uint),              // 5
    (D::F8, N::Sint),              // 6
    (D::F16, N::Unorm),            // 7
    (D::F16, N::Snorm),            // 8
    (D::F16, N::Uscaled),          // 9
    (D::F16, N::Sscaled),          // 10
    (D::F16, N::Uint),             // 11
    (D::F16, N::Sint),             // 12
    (D::F16, N::Float),            // 13
    (D::F8_8, N::Unorm),           // 14
    (D::F8_8, N::Snorm),           // 15
    (D::F8_8, N::Uscaled),         // 16
    (D::F8_8, N::Sscaled),         // 17
    (D::F8_8, N::Uint),            // 18
    (D::F8_8, N::Sint),            // 19
    (D::F32, N::Uint),             // 20
    (D::F32, N::Sint),             // 21
    (D::F32, N::Float),            // 22
    (D::F16_16, N::Unorm),         // 23
    (D::F16_16, N::Snorm),         // 24
    (D::F16_16, N::Uscaled),       // 25
    (D::F16_16, N::Sscaled),       // 26
    (D::F16_16, N::Uint),          // 27
    (D::F16_16, N::Sint),          // 28
    (D::F16_16, N::Float),         // 29
    (D::F10_11_11, N::Float),      // 30
    (D::F11_11_10, N::Float),      // 31
    (D::F10_10_10_2, N::Unorm),    // 32
    (D::F10_10_10_2, N::Snorm),    // 33
    (D::F10_10_10_2, N::Uint),     // 34
    (D::F10_10_10_2, N::Sint),     // 35
    (D::F2_10_10_10, N::Unorm),    // 36
    (D::F2_10_10_10, N::Snorm),    // 37
    (D::F2_10_10_10, N::Uscaled),  // 38
    (D::F2_10_10_10, N::Sscaled),  // 39
    (D::F2_10_10_10, N::Uint),     // 40
    (D::F2_10_10_10, N::Sint),     // 41
    (D::F8_8_8_8, N::Unorm),       // 42
    (D::F8_8_8_8, N::Snorm),       // 43
    (D::F8_8_8_8, N::Uscaled),     // 44
    (D::F8_8_8_8, N::Sscaled),     // 45
    (D::F8_8_8_8, N::Uint),        // 46
    (D::F8_8_8_8, N::Sint),        // 47
    (D::F32_32, N::Uint),          // 48
    (D::F32_32, N::Sint),          // 49
    (D::F32_32, N::Float),         // 50
    (D::F16_16_16_16, N::Unorm),   // 51
    (D::F16_16_16_16, N::Snorm),   // 52
    (D::F16_16_16_16, N::Uscaled), // 53
    (D::F16_16_16_16, N::Sscaled), // 54
    (D::F16_16_16_16, N::Uint),    // 55
    (D::F16_16_16_16, N::Sint),    // 56
    (D::F16_16_16_16, N::Float),   // 57
    (D::F32_32_32, N::Uint),       // 58
    (D::F32_32_32, N::Sint),       // 59
    (D::F32_32_32, N::Float),      // 60
    (D::F32_32_32_32, N::Uint),    // 61
    (D::F32_32_32_32, N::Sint),    // 62
    (D::F32_32_32_32, N::Float),   // 63
];

/// gfx11 FORMAT code → (data format, number format); `None` for code 0
/// (`BUF_FMT_INVALID`) and codes without a table entry.
pub const fn gfx11_format(code: u32) -> Option<(DataFormat, NumFormat)> {
    if code == 0 || code as usize > GFX11_FORMATS.len() {
        None
    } else {
        Some(GFX11_FORMATS[code as usize - 1])
    }
}

/// gfx11 FORMAT code by LLVM name (`BUF_FMT_32_FLOAT` or `32_FLOAT`).
pub fn gfx11_format_by_name(name: &str) -> Option<u32> {
    let n = name.strip_prefix("BUF_FMT_").unwrap_or(name);
    if n.eq_ignore_ascii_case("INVALID") {
        return Some(0);
    }
    GFX11_FORMATS
        .iter()
        .position(|(d, f)| n.eq_ignore_ascii_case(&format!("{}_{}", d.name(), f.name())))
        .map(|i| i as u32 + 1)
}

/// gfx9 dfmt by LLVM name (`BUF_DATA_FORMAT_32` or `32`).
pub fn gfx9_dfmt_by_name(name: &str) -> Option<u32> {
    let n = name.strip_prefix("BUF_DATA_FORMAT_").unwrap_or(name);
    GFX9_DFMT
        .iter()
        .position(|d| d.name().eq_ignore_ascii_case(n))
        .map(|i| i as u32)
}
