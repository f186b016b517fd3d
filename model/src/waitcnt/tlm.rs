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
