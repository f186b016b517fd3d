use gpucosim_tb::json::*;
use serde_json::json;

#[test]
fn a_key_given_twice_is_refused_at_any_depth() {
    let v = from_str(r#"{"a": [1, {"b": null, "c": "x"}], "d": -2.5, "e": true}"#).unwrap();
    assert_eq!(
        v,
        json!({"a": [1, {"b": null, "c": "x"}], "d": -2.5, "e": true})
    );
    for text in [
        r#"{"a": 1, "a": 2}"#,
        r#"[{"m": {"0x10": 1, "0x10": 2}}]"#,
        r#"{"x": {"a": 1}, "y": [{"k": 1, "k": 1}]}"#,
    ] {
        let e = from_str(text).unwrap_err().to_string();
        assert!(
            e.contains("gives key `") && e.contains("column"),
            "{text}: {e}"
        );
    }
    let e = from_str(r#"{"a": 1, "a": 2}"#).unwrap_err();
    assert_eq!(what_is_wrong(&e), "gives key `a` twice at line 1 column 12");
    let e = from_str("{").unwrap_err();
    assert!(what_is_wrong(&e).starts_with("is not JSON: EOF"), "{e}");
    // Keys that differ only in spelling are distinct to JSON.
    assert!(from_str(r#"{"0x10": 1, "16": 2}"#).is_ok());
    // Large and negative numbers keep their kind.
    let v = from_str("[18446744073709551615, -9223372036854775808, 1e300]").unwrap();
    assert_eq!(v, json!([u64::MAX, i64::MIN, 1e300]));
}
