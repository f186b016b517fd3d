use gpucosim_model::lds::isa::*;
use gpucosim_model::Profile;

#[test]
fn every_named_code_round_trips() {
    for p in Profile::all() {
        for code in 0..64u8 {
            match name_of(code, p) {
                Some(n) => assert_eq!(code_of(&n), Some(code), "{n}"),
                None => assert_eq!(OpInfo::decode(code).kind, Kind::Invalid, "{code}"),
            }
        }
    }
    assert_eq!(code_of("ds_cmpst_b32"), code_of("ds_cmpstore_b32"));
    assert_eq!(code_of("ds_min_rtn_i32"), Some(48 + 5));
    assert_eq!(code_of("ds_bogus"), None);
    for (gfx11, gfx9) in [
        ("ds_load_b128", "ds_read_b128"),
        ("ds_store_b96", "ds_write_b96"),
        ("ds_load_2addr_stride64_b64", "ds_read2st64_b64"),
        ("ds_store_2addr_b32", "ds_write2_b32"),
        ("ds_load_u16", "ds_read_u16"),
        ("ds_storexchg_rtn_b32", "ds_wrxchg_rtn_b32"),
    ] {
        assert_eq!(code_of(gfx11), code_of(gfx9), "{gfx11}");
        assert!(code_of(gfx9).is_some(), "{gfx9}");
    }
}

#[test]
fn inc_dec_follow_the_spec() {
    assert_eq!(Atomic::Inc.apply(5, 5, 0, false), 0);
    assert_eq!(Atomic::Inc.apply(4, 5, 0, false), 5);
    assert_eq!(Atomic::Dec.apply(0, 7, 0, false), 7);
    assert_eq!(Atomic::Dec.apply(9, 7, 0, false), 7);
    assert_eq!(Atomic::Dec.apply(7, 7, 0, false), 6);
}

#[test]
fn cmpst_operand_order_is_per_profile() {
    // gfx9 ds_cmpst_b32: compare DATA0, store DATA1.
    assert_eq!(Atomic::Cmpst.apply(3, 3, 9, false), 9);
    assert_eq!(Atomic::Cmpst.apply(3, 9, 3, false), 3);
    // gfx11 ds_cmpstore_b32: store DATA0, compare DATA1.
    assert_eq!(Atomic::Cmpst.apply(3, 9, 3, true), 9);
    assert_eq!(Atomic::Cmpst.apply(3, 3, 9, true), 3);
}
