//! Profiles (SPEC §0): everything that differs between GPU generations is a
//! row of [`PROFILES`], so a third generation is a table entry.

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

/// A bit field `[hi:lo]` of an encoding.
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

/// The generation-specific parameters of all three units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileParams {
    /// Name on the command line.
    pub name: &'static str,
    /// Value of the RTL's `GFX` parameter.
    pub gfx: u32,
    /// Whether wave32 exists.
    pub wave32: bool,
    /// Texture-cache line size in bytes.
    pub ta_line_bytes: u32,
    /// Texture-cache address unit: V# encoding and range rule.
    pub ta: crate::ta::TaParams,
    /// LDS bytes per allocation unit in the default mode (WGP on gfx11).
    pub lds_bytes: u32,
    /// LDS banks in the default mode (WGP on gfx11).
    pub lds_banks: u32,
    /// LDS bytes and banks in CU mode, where the profile has one.
    pub lds_cu_mode: Option<(u32, u32)>,
    /// LDS cmpst: DATA0 is the value stored and DATA1 the comparand (gfx11
    /// `ds_cmpstore_b32`); false: DATA0 compared, DATA1 stored (gfx9 `ds_cmpst_b32`).
    pub lds_cmpst_store_data0: bool,
    /// Counter widths in bits: VM, LGKM, EXP, VS (0 = no such counter).
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
    /// Bits [31:16] of an `s_waitcnt` instruction word (SOPP opcode).
    pub waitcnt_opcode: u32,
    /// Bits [31:16] of an `s_waitcnt_vscnt null, imm` instruction word (SOPK
    /// opcode and the `null` destination); 0 on profiles without VS_CNT.
    pub vscnt_opcode: u32,
    /// GDS instructions count on EXP_CNT as well as LGKM_CNT (SPEC §3.1:
    /// LLVM 19 does so for every target before gfx12).
    pub gds_on_exp: bool,
    /// LDS_PARAM_LOAD / LDS_DIRECT_LOAD exist (and count on EXP_CNT).
    pub lds_param_load: bool,
}

/// The profile table.
pub const PROFILES: &[(Profile, ProfileParams)] = &[
    (
        Profile::Gfx9,
        ProfileParams {
            name: "gfx9",
            gfx: 9,
            wave32: false,
            ta_line_bytes: 64,
            ta: crate::ta::TaParams {
                swizzle: crate::ta::SwizzleEncoding::EnableBitElemSize,
                format: crate::ta::FormatEncoding::DfmtNfmt,
                range: crate::ta::RangeRule::Gfx9,
            },
            lds_bytes: 64 * 1024,
            lds_banks: 32,
            lds_cu_mode: None,
            lds_cmpst_store_data0: false,
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
        ProfileParams {
            name: "gfx11",
            gfx: 11,
            wave32: true,
            ta_line_bytes: 128,
            ta: crate::ta::TaParams {
                swizzle: crate::ta::SwizzleEncoding::EnableEs,
                format: crate::ta::FormatEncoding::Unified,
                range: crate::ta::RangeRule::OobSelect,
            },
            lds_bytes: 128 * 1024,
            lds_banks: 64,
            lds_cu_mode: Some((64 * 1024, 32)),
            lds_cmpst_store_data0: true,
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

impl Profile {
    /// Every profile, in table order.
    pub fn all() -> impl Iterator<Item = Profile> {
        PROFILES.iter().map(|(p, _)| *p)
    }
    /// This profile's parameters.
    #[inline]
    pub fn params(self) -> &'static ProfileParams {
        &PROFILES
            .iter()
            .find(|(p, _)| *p == self)
            .expect("every profile has a table row")
            .1
    }
    /// Name on the command line.
    pub fn name(self) -> &'static str {
        self.params().name
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown profile name.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown profile `{0}` (expected one of: gfx9, gfx11)")]
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
