use gpucosim_model::lds::isa::Kind;
use gpucosim_model::lds::svh::*;
use gpucosim_model::lds::tlm::{LANES, NSLOTS, PASS_SLOTS, RAM_AW, RAM_DWORDS, SLOTS};

#[test]
fn every_code_has_a_row() {
    let t = enc_svh();
    assert_eq!(t.matches(": o = '{kind:").count(), 64);
    assert!(t.contains("6'd53: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd5};"));
    assert_eq!(kind_code(Kind::Bpermute), 5);
}

#[test]
fn sizes_keep_their_relations() {
    assert_eq!(NSLOTS, LANES * SLOTS);
    assert_eq!(PASS_SLOTS, NSLOTS / 2);
    assert_eq!(1 << RAM_AW, RAM_DWORDS);
    assert_eq!(gpucosim_model::svh::clog2(RAM_DWORDS as u64), RAM_AW);
    let t = enc_svh();
    assert!(
        t.contains("localparam int unsigned RamDwords    = 32768;"),
        "{t}"
    );
    assert!(
        t.contains("localparam int unsigned MaxBanks     = 64;"),
        "{t}"
    );
}
