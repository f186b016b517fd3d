use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::Class;
use gpucosim_model::Profile;
use gpucosim_tb::units::waitcnt::driver::*;

/// SPEC §3.1 ordering classes, as the testbench's memory system honours
/// them: an older instruction with latency 20 and a younger one with
/// latency 1 of one wave; the younger overtakes iff the two are not in
/// one in-order class. Fails if the memory system returns an in-order
/// class out of order (e.g. gfx9 loads and stores apart, gfx11 loads and
/// stores together) or never exercises an order the SPEC allows.
#[test]
fn memory_system_honours_the_spec_ordering_classes() {
    use Class::*;
    fn younger_overtakes(p: Profile, older: Class, younger: Class) -> bool {
        let mut d = WaitcntDriver::new(p);
        d.now = 1;
        d.mem_push(0, older, 20, 0);
        d.mem_push(0, younger, 1, 1);
        let mut inp = vec![0u32; P::TABLE.in_words()];
        for _ in 0..100 {
            inp.fill(0);
            d.returns(&mut inp, 0);
            if P::ret_valid_i.get(&inp) != 0 {
                // The first return: the younger one alone, before the
                // older one is due, or the older one at its due cycle.
                return d.now < 20;
            }
            d.now += 1;
        }
        panic!("{p}: nothing returned");
    }
    // (older, younger, gfx9 overtakes, gfx11 overtakes)
    let cases = [
        // gfx9: loads, stores and atomics in order together; gfx11:
        // loads among loads, VS_CNT events among themselves.
        (VmemLoad, VmemStore, false, true),
        (VmemStore, VmemLoad, false, true),
        (VmemLoad, VmemLoad, false, false),
        (VmemStore, VmemStore, false, false),
        // FLAT is vector memory: its VM / VS part in order as above.
        (VmemLoad, FlatLoad, false, false),
        (FlatStore, VmemStore, false, false),
        (FlatLoad, VmemStore, false, true),
        // LDS in order among LDS; exports among exports.
        (Lds, Lds, false, false),
        (Export, Export, false, false),
        // SMEM, s_sendmsg, GDS and FLAT's LGKM part in any order
        // relative to each other and to LDS; SMEM among itself too.
        (Smem1, Smem1, true, true),
        (Smem2, Smem1, true, true),
        (Lds, Smem1, true, true),
        (Smem1, Lds, true, true),
        (Lds, Gds, true, true),
        (Sendmsg, Lds, true, true),
        (FlatLoad, Lds, true, true),
        (Lds, FlatStore, true, true),
        // GDS's EXP_CNT count in any order with exports.
        (Export, Gds, true, true),
        (Gds, Export, true, true),
    ];
    for (older, younger, g9, g11) in cases {
        assert_eq!(
            younger_overtakes(Profile::Gfx9, older, younger),
            g9,
            "gfx9 {older:?} then {younger:?}"
        );
        assert_eq!(
            younger_overtakes(Profile::Gfx11, older, younger),
            g11,
            "gfx11 {older:?} then {younger:?}"
        );
    }
}
