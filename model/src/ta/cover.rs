//! Functional-coverage bins of the `ta` unit (listed in `docs/ta.md`).
//!
//! The transaction-level core records the events an instruction exercised in
//! an [`Events`] bit set; the cycle model adds them to its [`Coverage`] once
//! per instruction, plus the per-cycle events (backpressure stalls). Bins that
//! cannot occur on a profile (the other generation's range rules, wave32 on
//! gfx9) are not declared for it, so every hole is a real one.

use super::params::{RangeRule, SwizzleEncoding, TaParams};
use crate::profile::{Profile, PROFILES};
use crate::unit::Coverage;
use std::sync::OnceLock;

/// Which profiles a bin exists on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    All,
    /// Profiles with the gfx9 range rule.
    Gfx9Range,
    /// Profiles with OOB_SELECT.
    Oob,
    /// Profiles with wave32.
    Wave32,
    /// Profiles whose swizzle element size comes from `elem_size` (2/8 bytes possible).
    ElemSize,
}

macro_rules! bins {
    ($($id:ident = $name:literal $scope:ident),* $(,)?) => {
        /// A coverage bin (index into [`BINS`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        #[allow(missing_docs)]
        pub enum Bin { $($id),* }
        const BINS: &[(&str, Scope)] = &[$(($name, Scope::$scope)),*];
    };
}

bins! {
    OpLoad = "op.load" All,
    OpStore = "op.store" All,
    OpAtomic = "op.atomic" All,
    OpAtomicRet = "op.atomic_return" All,
    Size1 = "size.1" All,
    Size2 = "size.2" All,
    Size4 = "size.4" All,
    Size8 = "size.8" All,
    Size12 = "size.12" All,
    Size16 = "size.16" All,
    Atomic32 = "atomic.32bit" All,
    Atomic64 = "atomic.64bit" All,
    MubufFormat = "format.mubuf" All,
    Mtbuf = "format.mtbuf" All,
    FormatInvalid = "format.invalid" All,
    FormatEs1 = "format.es1" All,
    FormatEs2 = "format.es2" All,
    FormatEs4 = "format.es4" All,
    FormatEs8 = "format.es8" All,
    FormatEs12 = "format.es12" All,
    FormatEs16 = "format.es16" All,
    ResourceMismatch = "resource.type_mismatch" All,
    ResourceAllZero = "resource.all_zero" All,
    SwizzleOff = "swizzle.off" All,
    SwizzleEs2 = "swizzle.es2" ElemSize,
    SwizzleEs4 = "swizzle.es4" All,
    SwizzleEs8 = "swizzle.es8" ElemSize,
    SwizzleEs16 = "swizzle.es16" All,
    SwizzleIs8 = "swizzle.is8" All,
    SwizzleIs16 = "swizzle.is16" All,
    SwizzleIs32 = "swizzle.is32" All,
    SwizzleIs64 = "swizzle.is64" All,
    Idxen = "addr.idxen" All,
    Offen = "addr.offen" All,
    IdxenOffen = "addr.idxen_offen" All,
    AddTid = "addr.add_tid" All,
    Wrap32 = "addr.wrap_2^32" All,
    Wrap48 = "addr.wrap_2^48" All,
    Gfx9Stride0In = "range.gfx9.stride0.in" Gfx9Range,
    Gfx9Stride0Out = "range.gfx9.stride0.out" Gfx9Range,
    Gfx9StrideIn = "range.gfx9.stride.in" Gfx9Range,
    Gfx9IndexOut = "range.gfx9.stride.index_out" Gfx9Range,
    Gfx9OffsetOut = "range.gfx9.stride.offset_out" Gfx9Range,
    Oob0In = "range.oob0.in" Oob,
    Oob0Out = "range.oob0.out" Oob,
    Oob1In = "range.oob1.in" Oob,
    Oob1Out = "range.oob1.out" Oob,
    Oob2In = "range.oob2.in" Oob,
    Oob2Out = "range.oob2.out" Oob,
    Oob3SwzIn = "range.oob3.swizzled.in" Oob,
    Oob3SwzOut = "range.oob3.swizzled.out" Oob,
    Oob3LinIn = "range.oob3.linear.in" Oob,
    Oob3LinOut = "range.oob3.linear.out" Oob,
    PerDwordPartial = "range.per_dword.partial" All,
    AllOrNothingOut = "range.all_or_nothing.out" All,
    AlignMode0 = "align.dword" All,
    AlignMode0Cleared = "align.dword.cleared" All,
    AlignMode1Ok = "align.dword_strict.ok" All,
    AlignMode1Memviol = "align.dword_strict.memviol" All,
    AlignMode2Ok = "align.strict.ok" All,
    AlignMode2Memviol = "align.strict.memviol" All,
    AlignStrictMisaligned = "align.strict_modes.misaligned_lane" All,
    AlignMode3 = "align.unaligned" All,
    AlignMode3Misaligned = "align.unaligned.misaligned" All,
    AlignAligned = "align.format_or_atomic.ok" All,
    AlignFormatMemviol = "align.format.memviol" All,
    AlignAtomicMemviol = "align.atomic.memviol" All,
    ExecZero = "exec.zero" All,
    ExecFull = "exec.full" All,
    Wave32 = "wave.32" Wave32,
    LinesNone = "lines.none" All,
    LinesOne = "lines.one" All,
    LinesMulti = "lines.multi" All,
    LinesMax = "lines.more_than_16" All,
    PieceCrossesLine = "lines.piece_crosses_line" All,
    Stall = "lines.backpressure_stall" All,
    BackToBack = "req.back_to_back" All,
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

/// A set of bins hit by one instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Events(pub u128);

impl Events {
    /// Marks `b` hit.
    #[inline]
    pub fn set(&mut self, b: Bin) {
        self.0 |= 1 << b as u8;
    }
    /// Whether `b` is in the set.
    #[inline]
    pub fn has(&self, b: Bin) -> bool {
        self.0 >> b as u8 & 1 != 0
    }
}

fn in_scope(profile: Profile, s: Scope) -> bool {
    let p = TaParams::of(profile);
    match s {
        Scope::All => true,
        Scope::Gfx9Range => p.range == RangeRule::Gfx9,
        Scope::Oob => p.range == RangeRule::OobSelect,
        Scope::Wave32 => profile.wave32(),
        Scope::ElemSize => p.swizzle == SwizzleEncoding::EnableBitElemSize,
    }
}

/// Per profile (table order): the declared bin names, and for every [`Bin`]
/// its index among them (`usize::MAX` when not declared).
type ProfileBins = Vec<(Vec<&'static str>, Vec<usize>)>;

fn tables() -> &'static ProfileBins {
    static T: OnceLock<ProfileBins> = OnceLock::new();
    T.get_or_init(|| {
        PROFILES
            .iter()
            .map(|&(p, _)| {
                let mut names = Vec::new();
                let mut map = Vec::new();
                for &(n, s) in BINS {
                    if in_scope(p, s) {
                        map.push(names.len());
                        names.push(n);
                    } else {
                        map.push(usize::MAX);
                    }
                }
                (names, map)
            })
            .collect()
    })
}

fn row(profile: Profile) -> &'static (Vec<&'static str>, Vec<usize>) {
    let i = PROFILES
        .iter()
        .position(|(p, _)| *p == profile)
        .expect("every profile has a table row");
    &tables()[i]
}

/// Coverage of the `ta` unit on `profile`, every bin at zero.
pub fn coverage(profile: Profile) -> Coverage {
    Coverage::new(row(profile).0.as_slice())
}

/// Adds the events of `ev` to `cov` (bins of `profile`).
#[derive(Debug, Clone)]
pub struct Recorder {
    map: &'static [usize],
}

impl Recorder {
    /// A recorder for `profile`.
    pub fn new(profile: Profile) -> Self {
        Recorder {
            map: &row(profile).1,
        }
    }
    /// Counts every bin in `ev`.
    #[inline]
    pub fn record(&self, ev: Events, cov: &mut Coverage) {
        let mut bits = ev.0;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(&i) = self.map.get(b) {
                if i != usize::MAX {
                    cov.hit(i);
                }
            }
        }
    }
    /// Counts one bin.
    #[inline]
    pub fn hit(&self, b: Bin, cov: &mut Coverage) {
        self.add(b, 1, cov);
    }
    /// Counts `n` hits of one bin.
    #[inline]
    pub fn add(&self, b: Bin, n: u64, cov: &mut Coverage) {
        let i = self.map[b as usize];
        if i != usize::MAX {
            cov.hits[i] += n;
        }
    }
}

/// Names of every bin declared on `profile`.
pub fn names(profile: Profile) -> &'static [&'static str] {
    &row(profile).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_the_event_set() {
        assert!(BINS.len() <= 128, "Events is a u128");
    }

    #[test]
    fn profile_specific_bins_are_declared_only_where_they_exist() {
        let g9 = names(Profile::Gfx9);
        let g11 = names(Profile::Gfx11);
        assert!(g9.contains(&"range.gfx9.stride0.in") && !g11.contains(&"range.gfx9.stride0.in"));
        assert!(g11.contains(&"range.oob3.linear.out") && !g9.contains(&"range.oob0.in"));
        assert!(g11.contains(&"wave.32") && !g9.contains(&"wave.32"));
    }
}
