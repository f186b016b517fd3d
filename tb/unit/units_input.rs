use gpucosim_tb::units::input::*;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Inner {
    n: U<4>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Outer {
    list: Option<Vec<Inner>>,
    lanes: Option<Lanes<8>>,
    flag: Option<bool>,
}

fn err(v: serde_json::Value) -> String {
    from_value::<Outer>(&v, "").unwrap_err()
}

#[test]
fn errors_name_the_innermost_field() {
    assert_eq!(
        err(json!({"list": [{"n": 1}, {"n": 16}]})),
        "`list[1].n`: 16 is out of range (at most 15, 4 bits)"
    );
    assert_eq!(
        err(json!({"list": [{"m": 1}]})),
        "`list[0]`: unknown field `m` (known: n)"
    );
    assert_eq!(err(json!({"list": [{}]})), "`list[0]`: missing `n`");
    assert_eq!(
        err(json!({"flag": null})),
        "`flag`: expected a boolean, got null"
    );
    assert_eq!(
        err(json!({"lanes": {"40": 256}})),
        "`lanes[40]`: 256 is out of range (at most 255, 8 bits)"
    );
    assert!(err(json!(3)).starts_with("a request is a JSON object"));
}

#[test]
fn the_number_rule() {
    for (s, v) in [
        ("0", 0),
        ("0x1F", 31),
        ("0X1f", 31),
        ("1_000", 1000),
        ("0xf_f", 255),
    ] {
        assert_eq!(U::<16>::parse(s).unwrap().get(), v, "{s}");
    }
    for s in [
        "", "_1", "1_", "0x", "0x_1", " 1", "1 ", "+1", "-0", "1e3", "0b1", "x1",
    ] {
        assert!(U::<16>::parse(s).is_err(), "{s}");
    }
    assert!(U::<8>::parse("256").is_err());
    assert_eq!(
        U::<128>::parse(&format!("{:#x}", u128::MAX)).unwrap().get(),
        u128::MAX
    );
    assert!(U::<128>::parse("0x1_0000_0000_0000_0000_0000_0000_0000_0000").is_err());
    // Past 128 bits, the limit named is the field's.
    assert_eq!(
        U::<32>::parse(&format!("0x1{}", "0".repeat(40))).unwrap_err(),
        format!(
            "`0x1{}` is out of range (at most 0xffffffff, 32 bits)",
            "0".repeat(40)
        )
    );
    // A JSON number with a fraction or exponent is not an integer,
    // whether or not its value is one.
    let n = |v: serde_json::Value| serde_json::from_value::<U<32>>(v).unwrap_err().to_string();
    assert_eq!(
        n(json!(1e3)),
        "an integer written with a fraction or an exponent (`4.0`, `1e3`): write it as 1000"
    );
    assert!(n(json!(1.5)).contains("1.5 is not an integer"));
    assert!(n(json!(1e20)).contains("too large for a JSON number"));
}

#[test]
fn lanes_take_one_value_an_array_or_a_map() {
    let get = |v: serde_json::Value, n: usize| -> Result<Vec<u128>, String> {
        let o: Outer = from_value(&json!({ "lanes": v }), "")?;
        o.lanes
            .unwrap()
            .resolve(n, "lanes")
            .map(|a| a[..n].to_vec())
    };
    assert_eq!(get(json!(3), 4).unwrap(), [3, 3, 3, 3]);
    assert_eq!(get(json!([1, 2]), 4).unwrap(), [1, 2, 0, 0]);
    assert_eq!(get(json!({"2": 5, "0x0": 1}), 4).unwrap(), [1, 0, 5, 0]);
    assert!(get(json!({"2": 5, "0x2": 1}), 4)
        .unwrap_err()
        .contains("lane 2 is given twice"));
    assert!(get(json!({"64": 1}), 64)
        .unwrap_err()
        .contains("`64` is not a lane"));
    assert!(get(json!(vec![0; 65]), 64)
        .unwrap_err()
        .contains("at most 64 lanes"));
    assert!(get(json!({"32": 1}), 32)
        .unwrap_err()
        .contains("a wave32 has lanes 0–31"));
}
