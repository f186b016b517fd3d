//! Functional-coverage bins of the `ta` unit (listed in `docs/ta.md`).
//!
//! The transaction level records the events an instruction exercised in an
//! [`Events`] bit set; the cycle model adds them to its coverage once
//! per instruction, plus the per-cycle events (backpressure stalls). Bins
//! that cannot occur on a profile (the other generation's range rules,
//! wave32 on gfx9) are not declared for it, so every hole is a real one.

use super::params::{RangeRule, SwizzleEncoding, TaParams};
use crate::cover::Bins;
use crate::profile::Profile;

/// Profiles with the gfx9 range rule.
fn gfx9_range(p: Profile) -> bool {
    TaParams::of(p).range == RangeRule::Gfx9
}

/// Profiles with OOB_SELECT.
fn oob_select(p: Profile) -> bool {
    TaParams::of(p).range == RangeRule::OobSelect
}

/// Profiles whose 2-bit swizzle_enable has a reserved code (2, taken as
/// linear, SPEC §1.1).
fn swizzle_reserved(p: Profile) -> bool {
    TaParams::of(p).swizzle == SwizzleEncoding::EnableEs
}

/// Profiles whose swizzle element size comes from `elem_size` (2 and 8
/// bytes possible).
fn elem_size(p: Profile) -> bool {
    TaParams::of(p).swizzle == SwizzleEncoding::EnableBitElemSize
}

crate::bins! {
    /// A coverage bin of the `ta` unit.
    pub enum Bin {
        OpLoad = "op.load",
        OpStore = "op.store",
        OpAtomic = "op.atomic",
        OpAtomicRet = "op.atomic_return",
        Size1 = "size.1",
        Size2 = "size.2",
        Size4 = "size.4",
        Size8 = "size.8",
        Size12 = "size.12",
        Size16 = "size.16",
        Atomic32 = "atomic.32bit",
        Atomic64 = "atomic.64bit",
        OddSize = "encoding.odd_size",
        FormatAtomic = "encoding.format_atomic",
        MubufFormat = "format.mubuf",
        Mtbuf = "format.mtbuf",
        FormatInvalid = "format.invalid",
        FormatEs1 = "format.es1",
        FormatEs2 = "format.es2",
        FormatEs4 = "format.es4",
        FormatEs8 = "format.es8",
        FormatEs12 = "format.es12",
        FormatEs16 = "format.es16",
        ResourceMismatch = "resource.type_mismatch",
        ResourceAllZero = "resource.all_zero",
        SwizzleOff = "swizzle.off",
        SwizzleEs2 = "swizzle.es2" if elem_size,
        SwizzleEs4 = "swizzle.es4",
        SwizzleEs8 = "swizzle.es8" if elem_size,
        SwizzleEs16 = "swizzle.es16",
        SwizzleReserved = "swizzle.reserved" if swizzle_reserved,
        SwizzleIs8 = "swizzle.is8",
        SwizzleIs16 = "swizzle.is16",
        SwizzleIs32 = "swizzle.is32",
        SwizzleIs64 = "swizzle.is64",
        Idxen = "addr.idxen",
        Offen = "addr.offen",
        IdxenOffen = "addr.idxen_offen",
        AddTid = "addr.add_tid",
        Wrap32 = "addr.wrap_2^32",
        Wrap48 = "addr.wrap_2^48",
        Gfx9Stride0In = "range.gfx9.stride0.in" if gfx9_range,
        Gfx9Stride0Out = "range.gfx9.stride0.out" if gfx9_range,
        Gfx9StrideIn = "range.gfx9.stride.in" if gfx9_range,
        Gfx9IndexOut = "range.gfx9.stride.index_out" if gfx9_range,
        Gfx9OffsetOut = "range.gfx9.stride.offset_out" if gfx9_range,
        Oob0In = "range.oob0.in" if oob_select,
        Oob0Out = "range.oob0.out" if oob_select,
        Oob1In = "range.oob1.in" if oob_select,
        Oob1Out = "range.oob1.out" if oob_select,
        Oob2In = "range.oob2.in" if oob_select,
        Oob2Out = "range.oob2.out" if oob_select,
        Oob3SwzIn = "range.oob3.swizzled.in" if oob_select,
        Oob3SwzOut = "range.oob3.swizzled.out" if oob_select,
        Oob3LinIn = "range.oob3.linear.in" if oob_select,
        Oob3LinOut = "range.oob3.linear.out" if oob_select,
        PerDwordPartial = "range.per_dword.partial",
        AllOrNothingOut = "range.all_or_nothing.out",
        AlignMode0 = "align.dword",
        AlignMode0Cleared = "align.dword.cleared",
        AlignMode1Ok = "align.dword_strict.ok",
        AlignMode1Memviol = "align.dword_strict.memviol",
        AlignMode2Ok = "align.strict.ok",
        AlignMode2Memviol = "align.strict.memviol",
        AlignStrictMisaligned = "align.strict_modes.misaligned_lane",
        AlignMode3 = "align.unaligned",
        AlignMode3Misaligned = "align.unaligned.misaligned",
        AlignAligned = "align.format_or_atomic.ok",
        AlignFormatMemviol = "align.format.memviol",
        AlignAtomicMemviol = "align.atomic.memviol",
        ExecZero = "exec.zero",
        ExecFull = "exec.full",
        Wave32 = "wave.32" if Profile::wave32,
        LinesNone = "lines.none",
        LinesOne = "lines.one",
        LinesMulti = "lines.multi",
        LinesMax = "lines.more_than_16",
        PieceCrossesLine = "lines.piece_crosses_line",
        Stall = "lines.backpressure_stall",
        BackToBack = "req.back_to_back",
    }
}

impl Bin {
    /// The "out of range" twin of an OOB_SELECT "in range" bin when `oor`.
    pub fn out_if(self, oor: bool) -> Bin {
        match (self, oor) {
            (Bin::Oob0In, true) => Bin::Oob0Out,
            (Bin::Oob1In, true) => Bin::Oob1Out,
            (Bin::Oob2In, true) => Bin::Oob2Out,
            (Bin::Oob3SwzIn, true) => Bin::Oob3SwzOut,
            (Bin::Oob3LinIn, true) => Bin::Oob3LinOut,
            (b, _) => b,
        }
    }
}

/// A set of bins hit by one instruction (bit = [`Bins::index`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Events(pub u128);

impl Events {
    /// Marks `b` hit.
    #[inline]
    pub fn set(&mut self, b: Bin) {
        self.0 |= 1 << b.index();
    }
    /// Whether `b` is in the set.
    #[inline]
    pub fn has(&self, b: Bin) -> bool {
        self.0 >> b.index() & 1 != 0
    }
}
