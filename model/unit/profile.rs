use gpucosim_model::profile::*;

#[test]
fn a_table_needs_one_row_per_profile() {
    assert!(one_row_each(&[(Profile::Gfx11, ()), (Profile::Gfx9, ())]));
    assert!(!one_row_each(&[(Profile::Gfx9, ())]));
    assert!(!one_row_each(&[(Profile::Gfx9, ()), (Profile::Gfx9, ())]));
}

#[test]
fn names_are_listed_in_table_order() {
    assert_eq!(Profile::names(", ", " or "), "gfx9 or gfx11");
    assert_eq!(
        "gfx10".parse::<Profile>().unwrap_err().to_string(),
        "unknown profile `gfx10` (expected one of: gfx9, gfx11)"
    );
}

#[test]
fn names_parse_back() {
    for p in Profile::all() {
        assert_eq!(p.name().parse::<Profile>().unwrap(), p);
        assert_eq!(p.to_string(), p.name());
    }
}
