//! The `waitcnt` unit's parameters per profile: counter widths, the
//! `s_waitcnt` immediate's fields, the wait instruction opcodes and which
//! classes count where (SPEC §3, `docs/waitcnt.md`).

use super::isa::Counter;
use crate::profile::{one_row_each, Profile};

/// A bit field `[lo + width - 1 : lo]` of an encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Lowest bit.
    pub lo: u32,
    /// Width in bits.
    pub width: u32,
}

impl Field {
    /// Extracts the field from `v`.
    pub const fn get(&self, v: u32) -> u32 {
        (v >> self.lo) & ((1u32 << self.width) - 1)
    }
    /// Places `x` (truncated to the width) in the field.
    pub const fn put(&self, x: u32) -> u32 {
        (x & ((1u32 << self.width) - 1)) << self.lo
    }
}

/// What the `waitcnt` unit does differently per profile: its row of
/// [`PARAMS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitcntParams {
    /// VM counter width in bits.
    pub cnt_vm: u32,
    /// LGKM counter width.
    pub cnt_lgkm: u32,
    /// EXP counter width.
    pub cnt_exp: u32,
    /// VS counter width (0 on profiles without it).
    pub cnt_vs: u32,
    /// s_waitcnt imm16: vmcnt low field.
    pub wait_vm_lo: Field,
    /// s_waitcnt imm16: vmcnt high field (width 0 when absent).
    pub wait_vm_hi: Field,
    /// s_waitcnt imm16: expcnt field.
    pub wait_exp: Field,
    /// s_waitcnt imm16: lgkmcnt field.
    pub wait_lgkm: Field,
    /// `s_waitcnt_vscnt` immediate: vscnt field (width 0 when absent).
    pub wait_vscnt: Field,
    /// Bits \[31:16\] of an `s_waitcnt` instruction word (SOPP opcode).
    pub waitcnt_opcode: u32,
    /// Bits \[31:16\] of an `s_waitcnt_vscnt null, imm` instruction word (SOPK
    /// opcode and the `null` destination); 0 on profiles without VS_CNT.
    pub vscnt_opcode: u32,
    /// GDS instructions count on EXP_CNT as well as LGKM_CNT (SPEC §3.1:
    /// LLVM 19 does so for every target before gfx12).
    pub gds_on_exp: bool,
    /// LDS_PARAM_LOAD / LDS_DIRECT_LOAD exist (and count on EXP_CNT).
    pub lds_param_load: bool,
}

/// The parameter table: one row per profile.
pub const PARAMS: &[(Profile, WaitcntParams)] = &[
    (
        Profile::Gfx9,
        WaitcntParams {
            cnt_vm: 6,
            cnt_lgkm: 4,
            cnt_exp: 3,
            cnt_vs: 0,
            wait_vm_lo: Field { lo: 0, width: 4 },
            wait_vm_hi: Field { lo: 14, width: 2 },
            wait_exp: Field { lo: 4, width: 3 },
            wait_lgkm: Field { lo: 8, width: 4 },
            wait_vscnt: Field { lo: 0, width: 0 },
            waitcnt_opcode: 0xBF8C,
            vscnt_opcode: 0,
            gds_on_exp: true,
            lds_param_load: false,
        },
    ),
    (
        Profile::Gfx11,
        WaitcntParams {
            cnt_vm: 6,
            cnt_lgkm: 6,
            cnt_exp: 3,
            cnt_vs: 6,
            wait_vm_lo: Field { lo: 10, width: 6 },
            wait_vm_hi: Field { lo: 16, width: 0 },
            wait_exp: Field { lo: 0, width: 3 },
            wait_lgkm: Field { lo: 4, width: 6 },
            wait_vscnt: Field { lo: 0, width: 6 },
            waitcnt_opcode: 0xBF89,
            vscnt_opcode: 0xBC7C,
            gds_on_exp: true,
            lds_param_load: true,
        },
    ),
];
const _: () = assert!(one_row_each(PARAMS));

impl WaitcntParams {
    /// The row of `profile`.
    #[inline]
    pub fn of(profile: Profile) -> &'static WaitcntParams {
        profile.row(PARAMS)
    }
    /// Width of counter `c` (0 if the profile has none).
    #[inline]
    pub const fn cnt_width(&self, c: Counter) -> u32 {
        match c {
            Counter::Vm => self.cnt_vm,
            Counter::Lgkm => self.cnt_lgkm,
            Counter::Exp => self.cnt_exp,
            Counter::Vs => self.cnt_vs,
        }
    }
    /// Whether the profile has VS_CNT (and `s_waitcnt_vscnt`).
    #[inline]
    pub fn has_vs(&self) -> bool {
        self.cnt_vs > 0
    }
}
