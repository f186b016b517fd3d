//! Functional-coverage bins of the `lds` unit (listed in `docs/lds.md`).

use super::params::LdsParams;
use crate::profile::Profile;

/// Profiles with a CU mode beside the WGP mode.
fn cu_mode(p: Profile) -> bool {
    LdsParams::of(p).cu_mode.is_some()
}

crate::bins! {
    /// A coverage bin of the `lds` unit.
    pub enum Bin {
        Load = "op_load",
        LoadSigned = "op_load_subdword_signed",
        LoadTwo = "op_load_two_addr",
        LoadAddtid = "op_load_addtid",
        LoadWide = "op_load_b96_b128",
        Store = "op_store",
        StoreSub = "op_store_subdword",
        StoreTwo = "op_store_two_addr",
        StoreAddtid = "op_store_addtid",
        StoreWide = "op_store_b96_b128",
        Atomic = "op_atomic",
        AtomicRtn = "op_atomic_rtn",
        Permute = "op_permute",
        Bpermute = "op_bpermute",
        Invalid = "op_invalid",
        ExecZero = "exec_zero",
        TwoPasses = "two_passes",
        PassSkipped = "pass_skipped",
        Pass1Cycle = "pass_1_cycle",
        Pass2Cycles = "pass_2_cycles",
        Pass3To8Cycles = "pass_3_to_8_cycles",
        Pass9PlusCycles = "pass_9_plus_cycles",
        Broadcast = "broadcast",
        WriteMerge = "write_merge_same_cycle",
        AtomicSerial = "atomic_serialised_same_dword",
        Oor = "oor_slot",
        OorPartial = "oor_partial_lane",
        Memviol = "memviol",
        Straddle = "unaligned_straddle",
        FiveDwords = "unaligned_b128_five_dwords",
        BackToBack = "back_to_back",
        AddtidM0Low = "addtid_m0_low_bits",
        DwordAlignedDown = "dword_mode_aligned_down",
        AddrWrap = "addr_wrap_2^32",
        PermuteCollision = "permute_collision",
        BpermuteInactive = "bpermute_inactive_source",
        Wave32 = "wave32" if Profile::wave32,
        ModeCu = "mode_cu" if cu_mode,
        ModeWgp = "mode_wgp" if cu_mode,
    }
}
