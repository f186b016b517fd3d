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

impl LdsParams {
    /// The row of `profile`.
    #[inline]
    pub fn of(profile: Profile) -> &'static LdsParams {
        profile.row(PARAMS)
    }
}
