use gpucosim_model::svh::*;

#[test]
fn names_and_literals() {
    assert_eq!(camel("vmem_load"), "VmemLoad");
    assert_eq!(camel("lds"), "Lds");
    assert_eq!(lit(6, 63), "6'd63");
}

#[test]
fn widths_as_systemverilog_computes_them() {
    let c: Vec<u32> = [0, 1, 2, 3, 4, 5, 255, 256, 257, 384, 32768]
        .map(clog2)
        .into();
    assert_eq!(c, [0, 0, 1, 2, 2, 3, 8, 8, 9, 9, 15]);
    let b: Vec<u32> = [0, 1, 2, 3, 7, 8, 63, 64].map(bits).into();
    assert_eq!(b, [1, 1, 2, 2, 3, 4, 6, 7]);
}

#[test]
fn sizes_are_aligned_with_their_sources() {
    let mut s = Svh::new("x", "y");
    s.sizes(&[("Lanes", 64, "LANES"), ("NumSlots", 384, "NSLOTS")]);
    let t = s.finish();
    assert!(
        t.contains(
            "  localparam int unsigned Lanes    = 64;   // LANES\n  \
             localparam int unsigned NumSlots = 384;  // NSLOTS\n"
        ),
        "{t}"
    );
}

#[test]
fn per_profile_has_a_row_per_profile_and_a_default() {
    let mut s = Svh::new("x", "y");
    s.per_profile("f", "logic", "", "r", &[], |p| {
        vec![format!("r = {};", bit(p.wave32()))]
    });
    let t = s.finish();
    assert!(t.contains("default: begin  // gfx9"), "{t}");
    assert!(t.contains("11: begin  // gfx11"), "{t}");
    assert!(t.contains("r = 1'b1;"), "{t}");
}
