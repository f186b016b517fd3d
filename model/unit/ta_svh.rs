use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::svh::*;
use gpucosim_model::ta::tlm::{NSLOTS, SLOTS};

#[test]
fn geometry_keeps_its_relations() {
    assert_eq!(NSLOTS, LANES * SLOTS);
    assert_eq!(SLOT_W, 8);
    let t = enc_svh();
    assert!(t.contains("localparam int unsigned NumSlots = 256;"), "{t}");
    assert!(t.contains("localparam int unsigned MaskW    = 128;"), "{t}");
}

#[test]
fn tables_render_every_code() {
    let t = enc_svh();
    assert!(t.contains("KindMubufFormat = 2'd1"), "{t}");
    assert!(t.contains("AlignDwordStrict = 2'd1"), "{t}");
    assert!(t.contains("4'd13: b = 5'd12;"), "{t}");
    assert!(t.contains("VsOobSelect: r = 124;"), "{t}");
    assert!(
        t.contains("7'd127: b = 5'd0;") || t.contains(", 7'd127"),
        "{t}"
    );
}
