//! The `ta` unit's parameters per profile: V# encoding, range rule and
//! cache line (SPEC §1, `docs/ta.md`).

use super::isa::{VsField as F, VsLayout};
use crate::profile::{one_row_each, Profile};

/// gfx9's V# (seed `002`, SPEC §1.1).
pub const GFX9_VSHARP: VsLayout = VsLayout::new(&[
    (F::Base, 0, 48),
    (F::Stride, 48, 14),
    (F::CacheSwizzle, 62, 1),
    (F::Swizzle, 63, 1),
    (F::NumRecords, 64, 32),
    (F::DstSel, 96, 12),
    (F::Nfmt, 108, 3),
    (F::Format, 111, 4),
    (F::ElemSize, 115, 2),
    (F::IndexStride, 117, 2),
    (F::AddTid, 119, 1),
    (F::Type, 126, 2),
]);

/// gfx11's V# (SPEC §1.1).
pub const GFX11_VSHARP: VsLayout = VsLayout::new(&[
    (F::Base, 0, 48),
    (F::Stride, 48, 14),
    (F::Swizzle, 62, 2),
    (F::NumRecords, 64, 32),
    (F::DstSel, 96, 12),
    (F::Format, 108, 6),
    (F::IndexStride, 117, 2),
    (F::AddTid, 119, 1),
    (F::OobSelect, 124, 2),
    (F::Type, 126, 2),
]);

/// The parameter table: one row per profile.
pub const PARAMS: &[(Profile, TaParams)] = &[
    (
        Profile::Gfx9,
        TaParams {
            line_bytes: 64,
            vsharp: GFX9_VSHARP,
            swizzle: SwizzleEncoding::EnableBitElemSize,
            format: FormatEncoding::DfmtNfmt,
            range: RangeRule::Gfx9,
        },
    ),
    (
        Profile::Gfx11,
        TaParams {
            line_bytes: 128,
            vsharp: GFX11_VSHARP,
            swizzle: SwizzleEncoding::EnableEs,
            format: FormatEncoding::Unified,
            range: RangeRule::OobSelect,
        },
    ),
];
const _: () = assert!(one_row_each(PARAMS));

/// The largest texture-cache line of any profile, in bytes: the width of
/// `line_mask_o` (a `u128` in the model).
pub const MAX_LINE_BYTES: u32 = {
    let mut m = 0;
    let mut i = 0;
    while i < PARAMS.len() {
        if PARAMS[i].1.line_bytes > m {
            m = PARAMS[i].1.line_bytes;
        }
        i += 1;
    }
    m
};
const _: () = assert!(MAX_LINE_BYTES <= u128::BITS);

impl TaParams {
    /// The row of `profile`.
    #[inline]
    pub const fn of(profile: Profile) -> &'static TaParams {
        profile.row(PARAMS)
    }

    /// `f` of the row of `profile`, with the row a constant in each arm, so
    /// that what `f` reads of it folds where `f` is inlined (the V#'s field
    /// positions become constant shifts).
    #[inline(always)]
    pub fn with<R>(profile: Profile, f: impl FnOnce(&'static TaParams) -> R) -> R {
        match profile {
            Profile::Gfx9 => f(const { TaParams::of(Profile::Gfx9) }),
            Profile::Gfx11 => f(const { TaParams::of(Profile::Gfx11) }),
        }
    }
}

/// What the `ta` unit does differently per profile: its row of [`PARAMS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaParams {
    /// Texture-cache line size in bytes.
    pub line_bytes: u32,
    /// Where the V# keeps each field.
    pub vsharp: VsLayout,
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
    /// gfx9: swizzle_en \[63\], element size `2 << elem_size[116:115]`.
    EnableBitElemSize,
    /// gfx11: swizzle_enable \[63:62\]: 0 off, 1 = 4-byte, 3 = 16-byte
    /// elements, 2 reserved (treated as off).
    EnableEs,
}

/// Format encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatEncoding {
    /// gfx9: V# dfmt \[114:111\]; MTBUF `{nfmt[6:4], dfmt[3:0]}`.
    DfmtNfmt,
    /// gfx11: V# FORMAT \[113:108\]; MTBUF the unified code (7 bits).
    Unified,
}

/// Range-check rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeRule {
    /// gfx9 (seed `002`, CLRX): stride == 0 / stride != 0 rules.
    Gfx9,
    /// gfx11: OOB_SELECT \[125:124\] picks one of four rules.
    OobSelect,
}
