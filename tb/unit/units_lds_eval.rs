use crate::units::eval_str;
use gpucosim_model::Profile;
use serde_json::json;

#[test]
fn eval_reports_spec_cycle_counts_and_atomics() {
    let v = eval_str(
        "lds",
        Profile::Gfx9,
        &json!({"op": "ds_read_b32", "addr": (0..64).map(|l| 8 * l).collect::<Vec<_>>()}),
    )
    .unwrap();
    assert_eq!(v["cycles"], 4, "stride 2 on 32 banks");
    assert_eq!(v["schedule"].as_array().unwrap().len(), 4);
    let v = eval_str(
        "lds",
        Profile::Gfx11,
        &json!([
            {"op": "ds_write_b32", "addr": 16, "exec": 1, "data0": 7},
            {"op": "ds_cmpstore_rtn_b32", "addr": 16, "exec": 1, "data0": 9, "data1": 7},
            {"op": "ds_read_b32", "addr": 16, "exec": 1, "memory": {"0x20": 5}}
        ]),
    )
    .unwrap();
    assert_eq!(v[1]["lanes"][0]["data"], "0x7");
    assert_eq!(v[2]["lanes"][0]["data"], "0x9");
    assert_eq!(v[2]["cycles"], 1);
}

/// Each cycle of the schedule lists exactly the slots it serves: a
/// two-pass instruction after another one lists no grant of the other
/// pass or of the earlier instruction.
#[test]
fn eval_schedule_lists_only_the_cycles_grants() {
    let stride4: Vec<u32> = (0..64).map(|l| 16 * l).collect();
    let v = eval_str(
        "lds",
        Profile::Gfx9,
        &json!([
            {"op": "ds_read_b32", "addr": stride4},
            {"op": "ds_write_b64", "addr": stride4, "exec": "0xFFFF0000FFFF0000"}
        ]),
    )
    .unwrap();
    for r in v.as_array().unwrap() {
        let mut total = 0;
        for c in r["schedule"].as_array().unwrap() {
            let lanes =
                u64::from_str_radix(c["lanes"].as_str().unwrap().trim_start_matches("0x"), 16)
                    .unwrap();
            let grants = c["grants"].as_array().unwrap();
            let mut seen = 0u64;
            for g in grants {
                seen |= 1 << g["lane"].as_u64().unwrap();
            }
            assert_eq!(seen, lanes, "cycle {}: {grants:?}", c["cycle"]);
            total += grants.len();
        }
        // 64 lanes of one dword, or 32 lanes of two.
        assert_eq!(total, 64, "{}: every slot granted once", r["op"]);
    }
    assert_eq!(v[0]["cycles"], 8, "stride 4 dwords on 32 banks");
}

/// A grant is an object: lane, slot, bank and the relative byte address
/// of the dword; per-lane fields take `{"lane": value}` maps.
#[test]
fn grants_are_objects_and_lanes_may_be_named() {
    let v = eval_str(
        "lds",
        Profile::Gfx9,
        &json!({"op": "ds_read_b64", "exec": "0x10000000000", "addr": {"40": 8}}),
    )
    .unwrap();
    assert_eq!(
        v["schedule"][0]["grants"],
        json!([
            {"lane": 40, "slot": 0, "bank": 2, "addr": "0x8"},
            {"lane": 40, "slot": 1, "bank": 3, "addr": "0xc"}
        ])
    );
    assert_eq!(v["request"], 0);
}

/// `memory` lies within the allocation, `lds_size` within the RAM of
/// the mode, `lds_base` is in bytes (a multiple of 256) below the RAM's
/// end; `dump` shows every non-zero dword of the RAM by physical
/// address.
#[test]
fn allocation_bounds_and_the_ram_dump() {
    for (p, bad, msg) in [
        (
            Profile::Gfx9,
            json!({"lds_size": "0x10004"}),
            "`lds_size`: 0x10004 is out of range (at most 0x10000 bytes, the LDS of gfx9)",
        ),
        (
            Profile::Gfx11,
            json!({"lds_size": "0x10004", "mode": "cu"}),
            "CU mode",
        ),
        (
            Profile::Gfx9,
            json!({"lds_size": 64, "memory": {"0x40": 1}}),
            "`memory[0x40]`",
        ),
        (
            Profile::Gfx9,
            json!({"lds_base": 100}),
            "not a multiple of 256",
        ),
        (
            Profile::Gfx9,
            json!({"lds_base": "0x10000"}),
            "`lds_base`: 0x10000 is out of range",
        ),
        (
            Profile::Gfx11,
            json!({"wave64": false, "addr": {"32": 0}}),
            "`addr`: a value for lane 32",
        ),
        (
            Profile::Gfx11,
            json!({"wave64": false, "exec": "0x1_0000_0000"}),
            "`exec`",
        ),
    ] {
        let mut req = bad.clone();
        req["op"] = json!("ds_read_b32");
        let e = eval_str("lds", p, &req).expect_err(&bad.to_string());
        assert!(e.contains(msg), "{bad}: {e}");
    }
    let v = eval_str(
        "lds",
        Profile::Gfx11,
        &json!([
            {"op": "ds_write_b32", "exec": 3, "addr": [0, 4], "data0": [5, 6], "lds_base": "0x300"},
            {"op": "ds_read_b32", "exec": 1, "lds_base": "0x300", "dump": true}
        ]),
    )
    .unwrap();
    assert!(v[0].get("ram").is_none());
    assert_eq!(v[1]["ram"], json!({"0x300": "0x5", "0x304": "0x6"}));
    assert_eq!(v[1]["lanes"][0]["data"], "0x5");
    assert_eq!(v[1]["request"], 1);
}

#[test]
fn eval_errors_are_one_line() {
    for bad in [
        json!({"op": "ds_nope"}),
        json!({"op": "ds_read_b32", "addr": "zz"}),
        json!({"op": "ds_read_b32", "offset0": 300}),
        json!({"op": "ds_read_b32", "colour": 1}),
        json!({"op": "ds_read_b32", "memory": {"3": 1}}),
        json!(5),
    ] {
        let e = eval_str("lds", Profile::Gfx9, &bad).unwrap_err();
        assert!(!e.is_empty() && !e.contains('\n'), "{e}");
    }
    assert!(eval_str(
        "lds",
        Profile::Gfx9,
        &json!({"op": "ds_read_b32", "wave64": false})
    )
    .is_err());
}
