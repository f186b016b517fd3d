use gpucosim_model::profile::Profile;
use gpucosim_model::waitcnt::isa::Class;
use gpucosim_model::waitcnt::tlm::*;

#[test]
fn no_increment_passes_max_incr() {
    for &(p, _) in gpucosim_model::profile::PROFILES {
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
    use gpucosim_model::waitcnt::isa::Counter::*;
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
