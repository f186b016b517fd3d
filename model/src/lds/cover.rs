//! Functional-coverage bins of the `lds` unit (listed in `docs/lds.md`).

/// Coverage bins. The last two (`mode_*`) exist on profiles with a CU mode
/// only; gfx9 uses the list without them.
pub const COVERAGE_BINS: &[&str] = &[
    "op_load",
    "op_load_subdword_signed",
    "op_load_two_addr",
    "op_load_addtid",
    "op_store",
    "op_store_subdword",
    "op_store_two_addr",
    "op_store_addtid",
    "op_atomic",
    "op_atomic_rtn",
    "op_permute",
    "op_bpermute",
    "op_invalid",
    "exec_zero",
    "two_passes",
    "pass_skipped",
    "pass_1_cycle",
    "pass_2_cycles",
    "pass_3_to_8_cycles",
    "pass_9_plus_cycles",
    "broadcast",
    "write_merge_same_cycle",
    "atomic_serialised_same_dword",
    "oor_slot",
    "oor_partial_lane",
    "memviol",
    "unaligned_straddle",
    "back_to_back",
    "wave32",
    "mode_cu",
    "mode_wgp",
];

pub(crate) const BINS_GFX9: usize = COVERAGE_BINS.len() - 3;

pub(crate) mod bin {
    pub const LOAD: usize = 0;
    pub const LOAD_SIGNED: usize = 1;
    pub const LOAD_TWO: usize = 2;
    pub const LOAD_ADDTID: usize = 3;
    pub const STORE: usize = 4;
    pub const STORE_SUB: usize = 5;
    pub const STORE_TWO: usize = 6;
    pub const STORE_ADDTID: usize = 7;
    pub const ATOMIC: usize = 8;
    pub const ATOMIC_RTN: usize = 9;
    pub const PERMUTE: usize = 10;
    pub const BPERMUTE: usize = 11;
    pub const INVALID: usize = 12;
    pub const EXEC_ZERO: usize = 13;
    pub const TWO_PASSES: usize = 14;
    pub const PASS_SKIPPED: usize = 15;
    pub const PASS_LEN: usize = 16;
    pub const BROADCAST: usize = 20;
    pub const WRITE_MERGE: usize = 21;
    pub const ATOMIC_SERIAL: usize = 22;
    pub const OOR: usize = 23;
    pub const OOR_PARTIAL: usize = 24;
    pub const MEMVIOL: usize = 25;
    pub const STRADDLE: usize = 26;
    pub const BACK_TO_BACK: usize = 27;
    pub const WAVE32: usize = 28;
    pub const MODE_CU: usize = 29;
    pub const MODE_WGP: usize = 30;
}
