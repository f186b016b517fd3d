//! Instruction classes and the counters they count on (SPEC §3.1).

use super::params::WaitcntParams;
use crate::profile::Profile;
use serde::{Deserialize, Serialize};

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

/// Every counter, in index order.
pub const COUNTERS: [Counter; 4] = [Counter::Vm, Counter::Lgkm, Counter::Exp, Counter::Vs];

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
        let p = WaitcntParams::of(profile);
        match self {
            Counter::Vm => p.cnt_vm,
            Counter::Lgkm => p.cnt_lgkm,
            Counter::Exp => p.cnt_exp,
            Counter::Vs => p.cnt_vs,
        }
    }
    /// Largest value of this counter on `profile` (0 if the profile has none).
    #[inline]
    pub fn max(self, profile: Profile) -> u32 {
        (1u32 << self.width(profile)) - 1
    }
}

/// Increments of one instruction, per counter (index = [`Counter`] as usize).
pub type Incr = [u8; 4];

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

    /// The class of a 4-bit code, if it is one.
    #[inline]
    pub fn from_code(code: u32) -> Option<Class> {
        Class::ALL.get(code as usize).copied()
    }

    /// The 4-bit code.
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

    /// Whether `profile` has this class.
    #[inline]
    pub fn legal(self, profile: Profile) -> bool {
        match self {
            Class::LdsParam | Class::LdsDirect => WaitcntParams::of(profile).lds_param_load,
            _ => true,
        }
    }

    /// Whether the class counts on LGKM_CNT.
    #[inline]
    pub fn is_lgkm(self) -> bool {
        matches!(
            self,
            Class::FlatLoad
                | Class::FlatStore
                | Class::Lds
                | Class::Gds
                | Class::Smem1
                | Class::Smem2
                | Class::Sendmsg
        )
    }

    /// What one instruction of this class adds to each counter on `profile`
    /// (and what its return takes away). All zero for an illegal class.
    #[inline]
    pub fn incr(self, profile: Profile) -> Incr {
        let p = WaitcntParams::of(profile);
        let stores_on_vs = p.cnt_vs > 0;
        let (vm, lgkm, exp, vs) = match self {
            Class::VmemLoad => (1, 0, 0, 0),
            Class::VmemStore if stores_on_vs => (0, 0, 0, 1),
            Class::VmemStore => (1, 0, 0, 0),
            Class::FlatLoad => (1, 1, 0, 0),
            Class::FlatStore if stores_on_vs => (0, 1, 0, 1),
            Class::FlatStore => (1, 1, 0, 0),
            Class::Lds | Class::Smem1 | Class::Sendmsg => (0, 1, 0, 0),
            Class::Gds => (0, 1, u8::from(p.gds_on_exp), 0),
            Class::Smem2 => (0, 2, 0, 0),
            Class::Export => (0, 0, 1, 0),
            Class::LdsParam | Class::LdsDirect if p.lds_param_load => (0, 0, 1, 0),
            Class::LdsParam | Class::LdsDirect => (0, 0, 0, 0),
        };
        [vm, lgkm, exp, vs]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_names_are_unique() {
        for c in Class::ALL {
            assert_eq!(Class::from_code(c.code()), Some(c));
            assert_eq!(Class::from_name(c.name()), Some(c));
        }
        assert_eq!(Class::from_code(12), None);
    }

    #[test]
    fn serde_names_are_the_documented_names() {
        for c in Class::ALL {
            let j = serde_json::to_string(&c).unwrap();
            assert_eq!(j, format!("\"{}\"", c.name()));
            assert_eq!(serde_json::from_str::<Class>(&j).unwrap(), c);
        }
    }

    #[test]
    fn spec_3_1_counting_rules() {
        use Profile::*;
        // gfx9: stores and atomics count on VM; FLAT on VM and LGKM.
        assert_eq!(Class::VmemStore.incr(Gfx9), [1, 0, 0, 0]);
        assert_eq!(Class::FlatStore.incr(Gfx9), [1, 1, 0, 0]);
        // gfx11: stores count on VS instead.
        assert_eq!(Class::VmemStore.incr(Gfx11), [0, 0, 0, 1]);
        assert_eq!(Class::FlatStore.incr(Gfx11), [0, 1, 0, 1]);
        // SMEM weights.
        assert_eq!(Class::Smem1.incr(Gfx9), [0, 1, 0, 0]);
        assert_eq!(Class::Smem2.incr(Gfx11), [0, 2, 0, 0]);
        // GDS on LGKM and EXP on both profiles (Decided: LLVM 19 counts GDS
        // on EXP_CNT for every target before gfx12); LDS param loads on EXP
        // only on gfx11.
        assert_eq!(Class::Gds.incr(Gfx9), [0, 1, 1, 0]);
        assert_eq!(Class::Gds.incr(Gfx11), [0, 1, 1, 0]);
        assert_eq!(Class::LdsParam.incr(Gfx11), [0, 0, 1, 0]);
        assert!(!Class::LdsDirect.legal(Gfx9));
        assert_eq!(Class::LdsDirect.incr(Gfx9), [0, 0, 0, 0]);
    }

    #[test]
    fn counter_maxima_follow_the_profile_widths() {
        assert_eq!(Counter::Lgkm.max(Profile::Gfx9), 15);
        assert_eq!(Counter::Lgkm.max(Profile::Gfx11), 63);
        assert_eq!(Counter::Vs.max(Profile::Gfx9), 0);
        assert_eq!(Counter::Exp.max(Profile::Gfx11), 7);
    }
}
