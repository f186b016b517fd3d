//! The `waitcnt` unit's instructions (SPEC §3.1, §3.2): the counters, the
//! instruction classes as `issue_class_i` / `ret_class_i` carry them, and the
//! `s_waitcnt` immediate of each profile ([`decode`], [`encode`], LLVM-style
//! text) and the wait instruction words ([`decode_wait_word`]: `s_waitcnt`,
//! gfx11 `s_waitcnt_vscnt`).
//!
//! | | vmcnt | expcnt | lgkmcnt | unused |
//! |---|---|---|---|---|
//! | gfx9 | \[3:0\] + \[15:14\] | \[6:4\] | \[11:8\] | 7, 13:12 |
//! | gfx11 | \[15:10\] | \[2:0\] | \[9:4\] | 3 |
//!
//! ```
//! use gpucosim_model::waitcnt::{decode, encode, Thresholds};
//! use gpucosim_model::Profile;
//! let t = decode(Profile::Gfx9, 0x0070);
//! assert_eq!((t.vm, t.exp, t.lgkm), (0, 7, 0));
//! assert_eq!(encode(Profile::Gfx11, &t), 0x0007);
//! assert_eq!(t.text(Profile::Gfx9), "s_waitcnt vmcnt(0) lgkmcnt(0)");
//! ```

use super::params::{WaitcntParams, PARAMS};
use crate::profile::Profile;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The four counters, in the order of [`COUNTERS`] and of every per-counter
/// array in this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counter {
    /// VM_CNT.
    Vm = 0,
    /// LGKM_CNT.
    Lgkm = 1,
    /// EXP_CNT.
    Exp = 2,
    /// VS_CNT (gfx11).
    Vs = 3,
}

/// Number of counters.
pub const NUM_COUNTERS: usize = 4;

/// Every counter, in index order.
pub const COUNTERS: [Counter; NUM_COUNTERS] =
    [Counter::Vm, Counter::Lgkm, Counter::Exp, Counter::Vs];

/// Width of the widest counter of any profile (the RTL's counter registers).
pub const CNT_W: u32 = {
    let mut w = 0;
    let mut i = 0;
    while i < NUM_COUNTERS {
        if COUNTERS[i].widest() > w {
            w = COUNTERS[i].widest();
        }
        i += 1;
    }
    w
};

/// Width of a class code (`issue_class_i`, `ret_class_i`).
pub const CLASS_W: u32 = 4;

impl Counter {
    /// Lower-case name (`vm`, `lgkm`, `exp`, `vs`).
    pub fn name(self) -> &'static str {
        match self {
            Counter::Vm => "vm",
            Counter::Lgkm => "lgkm",
            Counter::Exp => "exp",
            Counter::Vs => "vs",
        }
    }
    /// Width of this counter on `profile` (0 if the profile has none).
    #[inline]
    pub fn width(self, profile: Profile) -> u32 {
        WaitcntParams::of(profile).cnt_width(self)
    }
    /// Width of this counter on the profile where it is widest: the element
    /// width of its output port.
    pub const fn widest(self) -> u32 {
        let mut w = 0;
        let mut i = 0;
        while i < PARAMS.len() {
            if PARAMS[i].1.cnt_width(self) > w {
                w = PARAMS[i].1.cnt_width(self);
            }
            i += 1;
        }
        w
    }
    /// Largest value of this counter on `profile` (0 if the profile has none).
    #[inline]
    pub fn max(self, profile: Profile) -> u32 {
        (1u32 << self.width(profile)) - 1
    }
}

/// An instruction class as carried by `issue_class_i` / `ret_class_i`.
/// Serialised by [`Class::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Vector memory load or atomic with return (MUBUF/MTBUF/MIMG/global/scratch).
    VmemLoad = 0,
    /// Vector memory store or atomic without return.
    VmemStore = 1,
    /// FLAT load or atomic with return.
    FlatLoad = 2,
    /// FLAT store or atomic without return.
    FlatStore = 3,
    /// LDS instruction.
    Lds = 4,
    /// GDS instruction.
    Gds = 5,
    /// 1-dword scalar memory load.
    Smem1 = 6,
    /// Wider scalar memory load, or `s_memtime`.
    Smem2 = 7,
    /// `s_sendmsg`.
    Sendmsg = 8,
    /// Export.
    Export = 9,
    /// LDS_PARAM_LOAD (gfx11).
    LdsParam = 10,
    /// LDS_DIRECT_LOAD (gfx11).
    LdsDirect = 11,
}

impl Class {
    /// Every class, in code order.
    pub const ALL: [Class; 12] = [
        Class::VmemLoad,
        Class::VmemStore,
        Class::FlatLoad,
        Class::FlatStore,
        Class::Lds,
        Class::Gds,
        Class::Smem1,
        Class::Smem2,
        Class::Sendmsg,
        Class::Export,
        Class::LdsParam,
        Class::LdsDirect,
    ];

    /// The class of a code ([`CLASS_W`] bits), if it is one.
    #[inline]
    pub fn from_code(code: u32) -> Option<Class> {
        Class::ALL.get(code as usize).copied()
    }

    /// The code ([`CLASS_W`] bits).
    #[inline]
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Name used in docs, eval and transactions.
    pub fn name(self) -> &'static str {
        match self {
            Class::VmemLoad => "vmem_load",
            Class::VmemStore => "vmem_store",
            Class::FlatLoad => "flat_load",
            Class::FlatStore => "flat_store",
            Class::Lds => "lds",
            Class::Gds => "gds",
            Class::Smem1 => "smem1",
            Class::Smem2 => "smem2",
            Class::Sendmsg => "sendmsg",
            Class::Export => "export",
            Class::LdsParam => "lds_param",
            Class::LdsDirect => "lds_direct",
        }
    }

    /// The class of a name.
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.iter().copied().find(|c| c.name() == name)
    }
}

/// The thresholds of one wait: the wave proceeds once every counter is at or
/// below its threshold. A threshold at the counter's maximum does not wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Thresholds {
    /// VM_CNT threshold.
    pub vm: u32,
    /// LGKM_CNT threshold.
    pub lgkm: u32,
    /// EXP_CNT threshold.
    pub exp: u32,
    /// VS_CNT threshold (the maximum for `s_waitcnt`, which does not wait on VS;
    /// 0 on profiles without VS_CNT).
    pub vs: u32,
}

impl Thresholds {
    /// The thresholds that wait for nothing.
    pub fn none(profile: Profile) -> Thresholds {
        Thresholds {
            vm: Counter::Vm.max(profile),
            lgkm: Counter::Lgkm.max(profile),
            exp: Counter::Exp.max(profile),
            vs: Counter::Vs.max(profile),
        }
    }

    /// As an array indexed by [`Counter`].
    pub fn as_array(&self) -> [u32; NUM_COUNTERS] {
        [self.vm, self.lgkm, self.exp, self.vs]
    }

    /// The wait in LLVM's assembly syntax: `s_waitcnt vmcnt(0) lgkmcnt(0)`.
    /// Fields at their maximum are left out, unless all three are (then all
    /// are printed), as `llvm-mc` does. VS is not part of `s_waitcnt`.
    pub fn text(&self, profile: Profile) -> String {
        let fields = [
            ("vmcnt", self.vm, Counter::Vm.max(profile)),
            ("expcnt", self.exp, Counter::Exp.max(profile)),
            ("lgkmcnt", self.lgkm, Counter::Lgkm.max(profile)),
        ];
        let all_max = fields.iter().all(|(_, v, m)| v == m);
        let mut s = String::from("s_waitcnt");
        for (name, v, m) in fields {
            if all_max || v != m {
                let _ = write!(s, " {name}({v})");
            }
        }
        s
    }
}

/// Decodes an `s_waitcnt` immediate on `profile`. Unused bits are ignored;
/// the VS threshold is the maximum (no wait).
pub fn decode(profile: Profile, imm16: u16) -> Thresholds {
    let p = WaitcntParams::of(profile);
    let v = imm16 as u32;
    Thresholds {
        vm: p.wait_vm_lo.get(v) | p.wait_vm_hi.get(v) << p.wait_vm_lo.width,
        lgkm: p.wait_lgkm.get(v),
        exp: p.wait_exp.get(v),
        vs: Counter::Vs.max(profile),
    }
}

/// Decodes an `s_waitcnt_vscnt` immediate: only VS waits (`imm[5:0]` on
/// gfx11); `None` on a profile without VS_CNT.
pub fn decode_vscnt(profile: Profile, imm16: u16) -> Option<Thresholds> {
    let p = WaitcntParams::of(profile);
    if p.cnt_vs == 0 {
        return None;
    }
    Some(Thresholds {
        vs: p.wait_vscnt.get(imm16 as u32),
        ..Thresholds::none(profile)
    })
}

/// Encodes thresholds as the canonical `s_waitcnt` immediate of `profile`
/// (unused bits 0; each threshold truncated to its field; VS ignored).
pub fn encode(profile: Profile, t: &Thresholds) -> u16 {
    let p = WaitcntParams::of(profile);
    let v = p.wait_vm_lo.put(t.vm)
        | p.wait_vm_hi.put(t.vm >> p.wait_vm_lo.width)
        | p.wait_lgkm.put(t.lgkm)
        | p.wait_exp.put(t.exp);
    v as u16
}

/// A wait instruction: `s_waitcnt imm16`, or gfx11's `s_waitcnt_vscnt null,
/// imm16` (SPEC §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wait {
    /// `s_waitcnt_vscnt null, imm` rather than `s_waitcnt imm`.
    pub vscnt: bool,
    /// The 16-bit immediate.
    pub imm: u16,
}

impl Wait {
    /// The thresholds the unit applies: [`decode`] for `s_waitcnt` (VS at its
    /// maximum: a plain `s_waitcnt` never waits on VS_CNT), [`decode_vscnt`]
    /// for `s_waitcnt_vscnt` (`None` on a profile without VS_CNT).
    pub fn thresholds(&self, profile: Profile) -> Option<Thresholds> {
        if self.vscnt {
            decode_vscnt(profile, self.imm)
        } else {
            Some(decode(profile, self.imm))
        }
    }

    /// The instruction in LLVM's assembly syntax: `s_waitcnt vmcnt(0)` or
    /// `s_waitcnt_vscnt null, 0x5` (the whole immediate in hex, as `llvm-mc`
    /// prints it).
    pub fn text(&self, profile: Profile) -> String {
        if self.vscnt {
            format!("s_waitcnt_vscnt null, {:#x}", self.imm)
        } else {
            decode(profile, self.imm).text(profile)
        }
    }
}

/// Decodes a full 32-bit wait instruction word: `s_waitcnt` (bits \[31:16\] the
/// profile's `waitcnt_opcode`) or, on a profile with VS_CNT,
/// `s_waitcnt_vscnt null, imm` (`vscnt_opcode`). Any other word is an error;
/// an `s_waitcnt_vscnt` on a profile without VS_CNT says so.
pub fn decode_wait_word(profile: Profile, word: u32) -> Result<Wait, String> {
    let p = WaitcntParams::of(profile);
    let op = word >> 16;
    let imm = word as u16;
    if op == p.waitcnt_opcode {
        return Ok(Wait { vscnt: false, imm });
    }
    if p.vscnt_opcode != 0 && op == p.vscnt_opcode {
        return Ok(Wait { vscnt: true, imm });
    }
    if let Some(other) = Profile::all().find(|o| {
        let v = WaitcntParams::of(*o).vscnt_opcode;
        v != 0 && v == op
    }) {
        return Err(format!(
            "0x{word:08X} is s_waitcnt_vscnt null, {imm:#x} ({other}), \
             which {profile} does not have: {profile} has no VS_CNT"
        ));
    }
    let expected = if p.vscnt_opcode != 0 {
        format!(
            "0x{:04X}xxxx, or 0x{:04X}xxxx for s_waitcnt_vscnt null",
            p.waitcnt_opcode, p.vscnt_opcode
        )
    } else {
        format!("0x{:04X}xxxx", p.waitcnt_opcode)
    };
    Err(format!(
        "0x{word:08X} is not an s_waitcnt on {profile} (expected {expected})"
    ))
}

/// Decodes a full 32-bit `s_waitcnt` or `s_waitcnt_vscnt null, imm` word into
/// the thresholds the unit applies ([`decode_wait_word`]); a word of another
/// opcode is an error.
pub fn decode_word(profile: Profile, word: u32) -> Result<Thresholds, String> {
    let w = decode_wait_word(profile, word)?;
    w.thresholds(profile)
        .ok_or_else(|| format!("0x{word:08X}: {profile} has no VS_CNT"))
}
