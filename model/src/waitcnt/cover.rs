//! Functional-coverage bins of the `waitcnt` unit (listed in
//! `docs/waitcnt.md`). The bins of a class are declared in class-code
//! order and those of a counter in counter order, so the model counts the
//! bin of class or counter `k` as the `k`-th after the first
//! ([`Recorder::hit_nth`](crate::cover::Recorder::hit_nth)).

use super::params::WaitcntParams;
use crate::profile::Profile;

/// Profiles with VS_CNT (and `s_waitcnt_vscnt`).
fn has_vs(p: Profile) -> bool {
    WaitcntParams::of(p).has_vs()
}

/// Profiles without VS_CNT, where `s_waitcnt_vscnt` is illegal.
fn no_vs(p: Profile) -> bool {
    !has_vs(p)
}

/// Profiles with LDS_PARAM_LOAD and LDS_DIRECT_LOAD.
fn lds_param_load(p: Profile) -> bool {
    WaitcntParams::of(p).lds_param_load
}

crate::bins! {
    /// A coverage bin of the `waitcnt` unit.
    pub enum Bin {
        IssueVmemLoad = "issue_vmem_load",
        IssueVmemStore = "issue_vmem_store",
        IssueFlatLoad = "issue_flat_load",
        IssueFlatStore = "issue_flat_store",
        IssueLds = "issue_lds",
        IssueGds = "issue_gds",
        IssueSmem1 = "issue_smem1",
        IssueSmem2 = "issue_smem2",
        IssueSendmsg = "issue_sendmsg",
        IssueExport = "issue_export",
        IssueLdsParam = "issue_lds_param" if lds_param_load,
        IssueLdsDirect = "issue_lds_direct" if lds_param_load,
        RetVmemLoad = "ret_vmem_load",
        RetVmemStore = "ret_vmem_store",
        RetFlatLoad = "ret_flat_load",
        RetFlatStore = "ret_flat_store",
        RetLds = "ret_lds",
        RetGds = "ret_gds",
        RetSmem1 = "ret_smem1",
        RetSmem2 = "ret_smem2",
        RetSendmsg = "ret_sendmsg",
        RetExport = "ret_export",
        RetLdsParam = "ret_lds_param" if lds_param_load,
        RetLdsDirect = "ret_lds_direct" if lds_param_load,
        SatVm = "sat_vm",
        SatLgkm = "sat_lgkm",
        SatExp = "sat_exp",
        SatVs = "sat_vs" if has_vs,
        CntMaxVm = "cnt_max_vm",
        CntMaxLgkm = "cnt_max_lgkm",
        CntMaxExp = "cnt_max_exp",
        CntMaxVs = "cnt_max_vs" if has_vs,
        WaitImmediate = "wait_immediate",
        WaitStall = "wait_stall",
        WaitReleaseAfterStall = "wait_release_after_stall",
        WaitVscnt = "wait_vscnt" if has_vs,
        RetMulti = "ret_multi_same_counter",
        IssueAndRet = "issue_and_ret_same_counter",
        LgkmOoo = "lgkm_out_of_order",
        SmemOoo = "smem_out_of_order",
        GdsExpOoo = "gds_exp_out_of_order",
        SatExpGds = "sat_exp_gds",
        ErrIllegal = "err_illegal",
        ErrBusy = "err_busy",
        ErrDual = "err_dual",
        ErrUnderflow = "err_underflow",
        ErrIllegalIssue = "err_illegal_issue",
        ErrIllegalReturn = "err_illegal_return",
        ErrIllegalVscnt = "err_illegal_vscnt" if no_vs,
        ErrBusyIssue = "err_busy_issue",
        ErrBusyWait = "err_busy_wait",
        ErrUnderflowNonzero = "err_underflow_nonzero",
        ErrUnderflowOtherCounts = "err_underflow_other_counts",
        ErrMultiOneWave = "err_multi_one_wave",
        ErrMultiKindsOneWave = "err_multi_kinds_one_wave",
        ErrMultiWaves = "err_multi_waves",
        ErrIllegalDualIssue = "err_illegal_dual_issue",
        ErrIllegalBusyWait = "err_illegal_busy_wait" if no_vs,
        ErrIllegalDualWait = "err_illegal_dual_wait" if no_vs,
        ErrIllegalBusyDual = "err_illegal_busy_dual",
        ErrIllegalUnderflow = "err_illegal_underflow",
    }
}
