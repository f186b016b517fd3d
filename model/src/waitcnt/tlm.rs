//! What one instruction of each class does to the counters on each profile
//! (SPEC §3.1): whether the profile has the class, and what its issue adds
//! to each counter (and its return takes away).

use super::isa::{Class, NUM_COUNTERS};
use super::params::WaitcntParams;
use crate::profile::Profile;

/// Increments of one instruction, per counter (index = [`Counter`](super::isa::Counter) as usize).
pub type Incr = [u8; NUM_COUNTERS];

/// The most one instruction adds to one counter (`s_load` of more than a
/// dword on LGKM_CNT).
pub const MAX_INCR: u8 = 2;

impl Class {
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

/// A group of instructions that return in issue order among themselves on
/// one counter (SPEC §3.1's ordering classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Vector memory on VM_CNT: gfx9 loads, stores and atomics together;
    /// gfx11 loads and atomics with return.
    Vm,
    /// gfx11 VS_CNT: stores and atomics without return.
    Vs,
    /// LDS on LGKM_CNT.
    Lds,
    /// Exports on EXP_CNT.
    Exp,
}

impl Class {
    /// The group this class returns in order with on `counter`, or `None`
    /// when its returns on that counter may come in any order relative to
    /// every other instruction (SMEM, `s_sendmsg`, GDS, FLAT's LGKM part,
    /// and, as the SPEC does not order them, gfx11's LDS parameter loads),
    /// or when it does not count on `counter`.
    pub fn order(self, counter: super::isa::Counter, profile: Profile) -> Option<Order> {
        use super::isa::Counter;
        if self.incr(profile)[counter as usize] == 0 {
            return None;
        }
        match (self, counter) {
            (
                Class::VmemLoad | Class::VmemStore | Class::FlatLoad | Class::FlatStore,
                Counter::Vm,
            ) => Some(Order::Vm),
            (Class::VmemStore | Class::FlatStore, Counter::Vs) => Some(Order::Vs),
            (Class::Lds, Counter::Lgkm) => Some(Order::Lds),
            (Class::Export, Counter::Exp) => Some(Order::Exp),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_increment_passes_max_incr() {
        for &(p, _) in crate::profile::PROFILES {
            let most = Class::ALL.iter().flat_map(|c| c.incr(p)).max();
            assert_eq!(most, Some(MAX_INCR), "{p}");
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
    fn spec_3_1_ordering_classes() {
        use super::super::isa::Counter::*;
        use Profile::*;
        // gfx9: vector memory in one order on VM; gfx11: stores apart on VS.
        assert_eq!(Class::VmemStore.order(Vm, Gfx9), Some(Order::Vm));
        assert_eq!(Class::FlatLoad.order(Vm, Gfx11), Some(Order::Vm));
        assert_eq!(Class::VmemStore.order(Vm, Gfx11), None);
        assert_eq!(Class::FlatStore.order(Vs, Gfx11), Some(Order::Vs));
        // LGKM: LDS in order among LDS; SMEM, messages, GDS and FLAT any order.
        assert_eq!(Class::Lds.order(Lgkm, Gfx9), Some(Order::Lds));
        for c in [
            Class::Smem1,
            Class::Smem2,
            Class::Sendmsg,
            Class::Gds,
            Class::FlatLoad,
        ] {
            assert_eq!(c.order(Lgkm, Gfx11), None, "{c:?}");
        }
        // EXP: exports in order; GDS in any order with them.
        assert_eq!(Class::Export.order(Exp, Gfx9), Some(Order::Exp));
        assert_eq!(Class::Gds.order(Exp, Gfx9), None);
    }
}
