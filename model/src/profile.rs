//! Profiles (SPEC §0): the GPU generations a model can be built for.
//!
//! This module is a leaf: it knows a profile's name, its `GFX` number and
//! whether it has wave32, nothing about any unit. Everything a unit does
//! differently per generation is a row of that unit's parameter table
//! (`<unit>/params.rs`, a `&[(Profile, …)]` looked up with
//! [`Profile::row`]), so a third generation is a variant here, a row of
//! [`PROFILES`] and a row per unit table; a table without the row does not
//! compile ([`one_row_each`]).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A GPU generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// GCN5 / Vega.
    Gfx9,
    /// RDNA3.
    Gfx11,
}

/// What every unit may ask of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileInfo {
    /// Name on the command line.
    pub name: &'static str,
    /// Value of the RTL's `GFX` parameter.
    pub gfx: u32,
    /// Whether wave32 exists (for every unit with a wave size).
    pub wave32: bool,
}

/// The profile table.
pub const PROFILES: &[(Profile, ProfileInfo)] = &[
    (
        Profile::Gfx9,
        ProfileInfo {
            name: "gfx9",
            gfx: 9,
            wave32: false,
        },
    ),
    (
        Profile::Gfx11,
        ProfileInfo {
            name: "gfx11",
            gfx: 11,
            wave32: true,
        },
    ),
];
const _: () = assert!(one_row_each(PROFILES));

/// Whether `table` has exactly one row for every profile of [`PROFILES`]
/// (and no other): every per-profile table asserts it at compile time,
/// `const _: () = assert!(one_row_each(TABLE));`.
pub const fn one_row_each<T>(table: &[(Profile, T)]) -> bool {
    if table.len() != PROFILES.len() {
        return false;
    }
    let mut i = 0;
    while i < PROFILES.len() {
        let mut n = 0;
        let mut j = 0;
        while j < table.len() {
            if table[j].0 as u8 == PROFILES[i].0 as u8 {
                n += 1;
            }
            j += 1;
        }
        if n != 1 {
            return false;
        }
        i += 1;
    }
    true
}

impl Profile {
    /// Every profile, in table order.
    pub fn all() -> impl Iterator<Item = Profile> {
        PROFILES.iter().map(|(p, _)| *p)
    }
    /// This profile's row of a per-profile table (one that satisfies
    /// [`one_row_each`]).
    ///
    /// A `const fn`, so that code specialised per profile can name a row as
    /// a constant (`const { TaParams::of(Profile::Gfx9) }`) and have its
    /// fields folded.
    #[inline]
    pub const fn row<T>(self, table: &'static [(Profile, T)]) -> &'static T {
        let mut i = 0;
        while i < table.len() {
            if table[i].0 as u8 == self as u8 {
                return &table[i].1;
            }
            i += 1;
        }
        panic!("every profile has a row in every table")
    }
    /// This profile's row of [`PROFILES`].
    #[inline]
    pub fn info(self) -> &'static ProfileInfo {
        self.row(PROFILES)
    }
    /// Name on the command line.
    pub fn name(self) -> &'static str {
        self.info().name
    }
    /// Value of the RTL's `GFX` parameter.
    pub fn gfx(self) -> u32 {
        self.info().gfx
    }
    /// Whether wave32 exists.
    #[inline]
    pub fn wave32(self) -> bool {
        self.info().wave32
    }
    /// Every profile's name, in table order, separated by `sep` and the
    /// last two by `last` (`names(", ", " or ")`: `gfx9 or gfx11`).
    pub fn names(sep: &str, last: &str) -> String {
        let n = PROFILES.len();
        let mut s = String::new();
        for (i, (_, p)) in PROFILES.iter().enumerate() {
            if i > 0 {
                s.push_str(if i + 1 == n { last } else { sep });
            }
            s.push_str(p.name);
        }
        s
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown profile name.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown profile `{0}` (expected one of: {known})", known = Profile::names(", ", ", "))]
pub struct UnknownProfile(pub String);

impl FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PROFILES
            .iter()
            .find(|(_, p)| p.name.eq_ignore_ascii_case(s))
            .map(|(p, _)| *p)
            .ok_or_else(|| UnknownProfile(s.to_string()))
    }
}
