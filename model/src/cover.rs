//! Coverage bins, declared one way for every unit: the [`bins!`](crate::bins)
//! macro lists a unit's bins in order, each with the profiles it exists on,
//! and a [`Recorder`] counts hits into the unit's [`Coverage`].
//!
//! A bin that cannot occur on a profile (the other generation's range rule,
//! a counter the profile lacks) is not declared for it, so every hole of a
//! coverage report is a real one. The bins of a profile keep the order of
//! the declaration.
//!
//! ```
//! use gpucosim_model::cover::{coverage, Recorder};
//! use gpucosim_model::Profile;
//!
//! fn wave32(p: Profile) -> bool {
//!     p.wave32()
//! }
//! gpucosim_model::bins! {
//!     /// Bins of an example unit.
//!     pub enum Bin {
//!         Load = "op.load",
//!         Store = "op.store",
//!         Wave32 = "wave.32" if wave32,
//!     }
//! }
//! let mut cov = coverage::<Bin>(Profile::Gfx9);
//! assert_eq!(cov.names, ["op.load", "op.store"]);
//! let rec = Recorder::<Bin>::new(Profile::Gfx9);
//! rec.hit(Bin::Store, &mut cov);
//! rec.hit(Bin::Wave32, &mut cov); // not a bin of gfx9: not counted
//! assert_eq!(cov.hits, [0, 1]);
//! assert_eq!(coverage::<Bin>(Profile::Gfx11).names.len(), 3);
//! ```

use crate::profile::{Profile, PROFILES};
use crate::unit::Coverage;
use std::marker::PhantomData;

/// One declared bin: its name, and the profiles it exists on (`None`: all).
#[derive(Debug, Clone, Copy)]
pub struct BinDecl {
    /// Name in reports.
    pub name: &'static str,
    /// Whether the bin exists on a profile.
    pub on: Option<fn(Profile) -> bool>,
}

/// Most bins a unit may declare (a `u128` set holds any of them).
pub const MAX_BINS: usize = 128;

/// Index of a bin that a profile does not declare.
const ABSENT: u16 = u16::MAX;

/// Where each declared bin counts on one profile: its index among the
/// profile's bins, or [`ABSENT`]; padded to [`MAX_BINS`] so that a bin's
/// entry is found without a bounds check.
type BinMap = [u16; MAX_BINS];

/// A unit's bins per profile: the names declared, and where each bin of the
/// declaration counts.
#[derive(Debug)]
pub struct BinTable {
    /// Per profile, in [`PROFILES`] order: the names of the profile's bins,
    /// and where each declared bin counts.
    rows: Vec<(Vec<&'static str>, Box<BinMap>)>,
}

impl BinTable {
    /// The table of a declaration.
    pub fn new(decl: &[BinDecl]) -> BinTable {
        let rows = PROFILES
            .iter()
            .map(|&(p, _)| {
                assert!(decl.len() <= MAX_BINS, "at most {MAX_BINS} bins per unit");
                let mut names = Vec::new();
                let mut map = Box::new([ABSENT; MAX_BINS]);
                for (b, d) in decl.iter().enumerate() {
                    if d.on.is_none_or(|on| on(p)) {
                        map[b] = names.len() as u16;
                        names.push(d.name);
                    }
                }
                (names, map)
            })
            .collect();
        BinTable { rows }
    }

    fn row(&self, profile: Profile) -> &(Vec<&'static str>, Box<BinMap>) {
        let i = PROFILES
            .iter()
            .position(|(p, _)| *p == profile)
            .expect("every profile has a table row");
        &self.rows[i]
    }

    /// Names of the bins of `profile`, in declaration order.
    pub fn names(&self, profile: Profile) -> &[&'static str] {
        &self.row(profile).0
    }
}

/// A unit's bin type, as the [`bins!`](crate::bins) macro declares it.
pub trait Bins: Copy + 'static {
    /// Every bin, in declaration order (the enum's discriminant order).
    const DECL: &'static [BinDecl];
    /// The bins per profile, built once.
    fn table() -> &'static BinTable;
    /// Position in [`Bins::DECL`].
    fn index(self) -> usize;
}

/// Coverage of unit bins `B` on `profile`, every bin at zero.
pub fn coverage<B: Bins>(profile: Profile) -> Coverage {
    Coverage::new(B::table().names(profile))
}

/// Names of the bins of `B` declared on `profile`.
pub fn names<B: Bins>(profile: Profile) -> &'static [&'static str] {
    B::table().names(profile)
}

/// Counts hits of bins `B` on one profile into a [`Coverage`] made by
/// [`coverage`] for the same profile; a bin the profile does not have is
/// not counted.
#[derive(Debug, Clone, Copy)]
pub struct Recorder<B> {
    map: &'static BinMap,
    bins: PhantomData<B>,
}

impl<B: Bins> Recorder<B> {
    /// A recorder for `profile`.
    pub fn new(profile: Profile) -> Self {
        Recorder {
            map: &B::table().row(profile).1,
            bins: PhantomData,
        }
    }
    /// Counts one hit of `b`.
    #[inline]
    pub fn hit(&self, b: B, cov: &mut Coverage) {
        self.add_at(b.index(), 1, cov);
    }
    /// Counts `n` hits of `b`.
    #[inline]
    pub fn add(&self, b: B, n: u64, cov: &mut Coverage) {
        self.add_at(b.index(), n, cov);
    }
    /// Counts one hit of the bin declared `k` places after `first` (of a
    /// run of bins declared in the order of some code: a class, a counter).
    #[inline]
    pub fn hit_nth(&self, first: B, k: usize, cov: &mut Coverage) {
        debug_assert!(first.index() + k < B::DECL.len());
        self.add_at(first.index() + k, 1, cov);
    }
    /// Counts one hit of every bin whose bit (bit = declaration index) is
    /// set in `set`.
    #[inline]
    pub fn hit_set(&self, set: u128, cov: &mut Coverage) {
        let mut bits = set;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.add_at(b, 1, cov);
        }
    }
    #[inline]
    fn add_at(&self, b: usize, n: u64, cov: &mut Coverage) {
        let i = self.map[b % MAX_BINS];
        if i != ABSENT {
            cov.hits[usize::from(i)] += n;
        }
    }
}

/// Declares a unit's coverage bins: an enum of the bins in declaration
/// order, each `Variant = "name"`, optionally followed by `if f` where
/// `f: fn(Profile) -> bool` says on which profiles the bin exists (without
/// it, on every profile). The enum implements [`Bins`]; count its hits
/// with a [`Recorder`] into a [`coverage`] of the same profile. At most
/// [`MAX_BINS`] bins.
#[macro_export]
macro_rules! bins {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Bin:ident {
            $($(#[$vmeta:meta])* $id:ident = $name:literal $(if $on:expr)?),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        #[allow(missing_docs)]
        $vis enum $Bin { $($(#[$vmeta])* $id),* }

        impl $crate::cover::Bins for $Bin {
            const DECL: &'static [$crate::cover::BinDecl] = &[$(
                $crate::cover::BinDecl {
                    name: $name,
                    on: $crate::bins!(@on $($on)?),
                }
            ),*];
            fn table() -> &'static $crate::cover::BinTable {
                static TABLE: ::std::sync::OnceLock<$crate::cover::BinTable> =
                    ::std::sync::OnceLock::new();
                TABLE.get_or_init(|| $crate::cover::BinTable::new(Self::DECL))
            }
            #[inline]
            fn index(self) -> usize {
                self as usize
            }
        }

        const _: () = assert!(
            <$Bin as $crate::cover::Bins>::DECL.len() <= $crate::cover::MAX_BINS,
            "too many bins for one unit"
        );
    };
    (@on) => { None };
    (@on $on:expr) => { Some($on) };
}
