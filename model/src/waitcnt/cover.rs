//! Functional-coverage bins of the `waitcnt` unit (listed in `docs/waitcnt.md`).

/// Coverage bins of gfx11 (the full list).
pub const BINS_GFX11: &[&str] = &[
    "issue_vmem_load",
    "issue_vmem_store",
    "issue_flat_load",
    "issue_flat_store",
    "issue_lds",
    "issue_gds",
    "issue_smem1",
    "issue_smem2",
    "issue_sendmsg",
    "issue_export",
    "issue_lds_param",
    "issue_lds_direct",
    "ret_vmem_load",
    "ret_vmem_store",
    "ret_flat_load",
    "ret_flat_store",
    "ret_lds",
    "ret_gds",
    "ret_smem1",
    "ret_smem2",
    "ret_sendmsg",
    "ret_export",
    "ret_lds_param",
    "ret_lds_direct",
    "sat_vm",
    "sat_lgkm",
    "sat_exp",
    "sat_vs",
    "cnt_max_vm",
    "cnt_max_lgkm",
    "cnt_max_exp",
    "cnt_max_vs",
    "wait_immediate",
    "wait_stall",
    "wait_release_after_stall",
    "wait_vscnt",
    "ret_multi_same_counter",
    "issue_and_ret_same_counter",
    "lgkm_out_of_order",
    "smem_out_of_order",
    "gds_exp_out_of_order",
    "sat_exp_gds",
    "err_illegal",
    "err_busy",
    "err_dual",
    "err_underflow",
];

/// Coverage bins of gfx9: the gfx11 list without VS and LDS-parameter bins.
pub const BINS_GFX9: &[&str] = &[
    "issue_vmem_load",
    "issue_vmem_store",
    "issue_flat_load",
    "issue_flat_store",
    "issue_lds",
    "issue_gds",
    "issue_smem1",
    "issue_smem2",
    "issue_sendmsg",
    "issue_export",
    "ret_vmem_load",
    "ret_vmem_store",
    "ret_flat_load",
    "ret_flat_store",
    "ret_lds",
    "ret_gds",
    "ret_smem1",
    "ret_smem2",
    "ret_sendmsg",
    "ret_export",
    "sat_vm",
    "sat_lgkm",
    "sat_exp",
    "cnt_max_vm",
    "cnt_max_lgkm",
    "cnt_max_exp",
    "wait_immediate",
    "wait_stall",
    "wait_release_after_stall",
    "ret_multi_same_counter",
    "issue_and_ret_same_counter",
    "lgkm_out_of_order",
    "smem_out_of_order",
    "gds_exp_out_of_order",
    "sat_exp_gds",
    "err_illegal",
    "err_busy",
    "err_dual",
    "err_underflow",
];

// Indices into BINS_GFX11.
pub(crate) const B_ISSUE: usize = 0;
pub(crate) const B_RET: usize = 12;
pub(crate) const B_SAT: usize = 24;
pub(crate) const B_MAX: usize = 28;
pub(crate) const B_WAIT_IMMEDIATE: usize = 32;
pub(crate) const B_WAIT_STALL: usize = 33;
pub(crate) const B_WAIT_RELEASE_AFTER_STALL: usize = 34;
pub(crate) const B_WAIT_VSCNT: usize = 35;
pub(crate) const B_RET_MULTI: usize = 36;
pub(crate) const B_ISSUE_AND_RET: usize = 37;
pub(crate) const B_LGKM_OOO: usize = 38;
pub(crate) const B_SMEM_OOO: usize = 39;
pub(crate) const B_GDS_EXP_OOO: usize = 40;
pub(crate) const B_SAT_EXP_GDS: usize = 41;
pub(crate) const B_ERR: usize = 42;
pub(crate) const NBINS: usize = BINS_GFX11.len();
pub(crate) const NO_BIN: u8 = u8::MAX;
