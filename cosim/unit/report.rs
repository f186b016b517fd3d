use gpucosim::engine::Mismatch;
use gpucosim::report::*;
use gpucosim::testbench::Index;

#[test]
fn ranges_and_names() {
    assert_eq!(ranges(&[0, 1, 2, 3, 5, 7, 8], 16), "0-3, 5, 7-8");
    assert_eq!(ranges(&[1, 3, 5], 2), "1, 3, … (3 in all)");
    assert_eq!(
        name_elements(
            Some(Index::LaneDword),
            "a",
            &[20, 21, 22, 23, 24, 25, 26, 27, 41]
        ),
        "lanes 5-6, lane 10 dword 1"
    );
    assert_eq!(name_elements(Some(Index::Wave), "s", &[3]), "wave 3");
    assert_eq!(name_elements(None, "q", &[2, 3]), "q[2-3]");
    assert_eq!(group_hex("0x123456789abcdef01"), "0x1_23456789_abcdef01");
    assert_eq!(group_hex("0xff"), "0xff");
}

#[test]
fn masks_are_decoded_per_lane() {
    let m = Mismatch {
        cycle: 9,
        signal: "grant_lanes_o".into(),
        model: "0xffff".into(),
        rtl: "0xffff0000".into(),
        in_reset: false,
        index: Some(Index::Lane),
        elements: (0..32)
            .map(|i| {
                let m = u32::from(i < 16);
                (i, m.to_string(), (1 - m).to_string())
            })
            .collect(),
    };
    let mut s = String::new();
    describe(&mut s, "", &m);
    assert_eq!(
        s,
        "grant_lanes_o: 32 lanes differ\n  lanes 0-15: model 1, rtl 0\n  lanes 16-31: model 0, rtl 1\n"
    );
    assert_eq!(m.focus(), Some((Index::Lane, 0)));
}

#[test]
fn transactions_wrap_arrays() {
    let v = serde_json::json!({"op": 18, "exec": 7, "addr": (0..20).collect::<Vec<u32>>()});
    let l = wrap_value(&v);
    assert_eq!(l[0], "exec: 7, op: 18");
    assert!(l[1].starts_with("addr:") && l[1].contains("[0]"), "{l:?}");
    assert!(
        l[2].contains("[16]") && l[2].trim_end().ends_with("19"),
        "{l:?}"
    );
}
