//! The `lds` unit's parameters per profile: RAM size, banks, modes and
//! the cmpst operand order (SPEC §2, `docs/lds.md`).

use crate::profile::{one_row_each, Profile};

/// What the `lds` unit does differently per profile: its row of [`PARAMS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LdsParams {
    /// Bytes per allocation unit in the default mode (WGP on gfx11).
    pub bytes: u32,
    /// Banks in the default mode (WGP on gfx11).
    pub banks: u32,
    /// Bytes and banks in CU mode, where the profile has one.
    pub cu_mode: Option<(u32, u32)>,
    /// cmpst: DATA0 is the value stored and DATA1 the comparand (gfx11
    /// `ds_cmpstore_b32`); false: DATA0 compared, DATA1 stored (gfx9 `ds_cmpst_b32`).
    pub cmpst_store_data0: bool,
}

/// The parameter table: one row per profile.
pub const PARAMS: &[(Profile, LdsParams)] = &[
    (
        Profile::Gfx9,
        LdsParams {
            bytes: 64 * 1024,
            banks: 32,
            cu_mode: None,
            cmpst_store_data0: false,
        },
    ),
    (
        Profile::Gfx11,
        LdsParams {
            bytes: 128 * 1024,
            banks: 64,
            cu_mode: Some((64 * 1024, 32)),
            cmpst_store_data0: true,
        },
    ),
];
const _: () = assert!(one_row_each(PARAMS));

/// The largest RAM of any profile and mode, in bytes.
pub const MAX_BYTES: u32 = widest(false);
/// The most banks of any profile and mode (`grant_banks_o`'s width).
pub const MAX_BANKS: u32 = widest(true);

/// The most banks (`banks`) or bytes of any row and mode.
const fn widest(banks: bool) -> u32 {
    let mut m = 0;
    let mut i = 0;
    while i < PARAMS.len() {
        let p = &PARAMS[i].1;
        let (bytes, nbanks) = match p.cu_mode {
            Some(cu) => cu,
            None => (0, 0),
        };
        let (a, b) = if banks {
            (p.banks, nbanks)
        } else {
            (p.bytes, bytes)
        };
        if a > m {
            m = a;
        }
        if b > m {
            m = b;
        }
        i += 1;
    }
    m
}

impl LdsParams {
    /// The row of `profile`.
    #[inline]
    pub fn of(profile: Profile) -> &'static LdsParams {
        profile.row(PARAMS)
    }
}
