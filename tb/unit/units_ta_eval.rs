use crate::units::eval_str;
use gpucosim_model::ta::VsharpFields;
use gpucosim_model::Profile;
use serde_json::{json, Value};

#[test]
fn eval_seed001_swizzle_example() {
    let req = json!({
        "instr": "buffer_load_dword",
        "vsharp": {"base": "0x1000", "stride": 16, "num_records": 100, "swizzle": 1,
                   "elem_size": 1, "index_stride": 0},
        "idxen": true, "offen": true, "soffset": "0x20",
        "vindex": [10], "voffset": [8], "exec": "0x1"
    });
    let r = eval_str("ta", Profile::Gfx9, &req).unwrap();
    // (10/8*16 + 8/4*4)*8 + 10%8*4 + 8%4 = 200; + base + soffset.
    assert_eq!(r["lanes"][0]["addr"][0], "0x10e8");
    assert_eq!(r["lanes"][0]["in_range"][0], true);
    assert_eq!(r["lines"][0]["addr"], "0x10c0");
    assert_eq!(r["lines"][0]["mask"], format!("{:#x}", 0xFu128 << 40));
    assert_eq!(r["cycles"], 2);
}

#[test]
fn eval_accepts_names_hex_vsharp_and_arrays() {
    let vs = VsharpFields {
        base: 0x4000,
        num_records: 64,
        oob_select: 3,
        ..Default::default()
    };
    let hexv = format!("{:#x}", vs.encode(Profile::Gfx11));
    let req = json!([
        {"instr": "buffer_load_dwordx2", "vsharp": hexv, "offen": true, "voffset": [0, 8, 56, 60], "exec": "0xf"},
        {"instr": "tbuffer_store_format_xyzw", "format": "BUF_FMT_32_32_32_32_FLOAT", "vsharp": hexv, "exec": 1},
        {"instr": "buffer_atomic_cmpswap_x2", "return": true, "vsharp": hexv, "exec": 1},
        {"instr": "buffer_load_short_d16", "vsharp": hexv, "wave64": false}
    ]);
    let r = eval_str("ta", Profile::Gfx11, &req).unwrap();
    // dwordx2 at 60: dword 0 (60+4 <= 64) in, dword 1 (64+4 > 64) out.
    assert_eq!(r[0]["lanes"][3]["in_range"], json!([true, false]));
    assert_eq!(r[0]["lines"].as_array().unwrap().len(), 1);
    assert_eq!(r[1]["access"]["bytes"], 16);
    assert_eq!(r[2]["access"]["class"], "atomic");
    assert_eq!(r[2]["access"]["bytes"], 8);
    assert_eq!(r[3]["lanes"].as_array().unwrap().len(), 32);
    assert_eq!(r[3]["access"]["bytes"], 2);
}

/// The interface follows the profile: a V# field the profile lacks is
/// an error, a wave32 takes neither exec bits nor lane values above
/// lane 31, a tbuffer format error names `format`, flags are booleans
/// and V# fields numbers, and an invalid format has no slot anywhere.
#[test]
fn eval_follows_the_profile_and_one_rule() {
    let load = |extra: Value| {
        let mut r = json!({"instr": "buffer_load_dword", "vsharp": {"num_records": 64}});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        r
    };
    for (p, req, msg) in [
        (
            Profile::Gfx11,
            load(json!({"vsharp": {"cache_swizzle": 1}})),
            "`vsharp.cache_swizzle`: gfx11's V# has no cache_swizzle",
        ),
        (
            Profile::Gfx11,
            load(json!({"vsharp": {"elem_size": 1}})),
            "`vsharp.elem_size`",
        ),
        (
            Profile::Gfx11,
            load(json!({"vsharp": {"hash_en": 0}})),
            "`vsharp.hash_en`",
        ),
        (
            Profile::Gfx9,
            load(json!({"vsharp": {"oob_select": 1}})),
            "`vsharp.oob_select`: gfx9's V# has no oob_select",
        ),
        (
            Profile::Gfx9,
            load(json!({"vsharp": {"swizzle": 2}})),
            "`vsharp.swizzle`: 2 is out of range (at most 1 on gfx9)",
        ),
        (
            Profile::Gfx11,
            load(json!({"wave64": false, "exec": "0x1_0000_0000"})),
            "`exec`: 0x100000000 is out of range (at most 0xffffffff for a wave32)",
        ),
        (
            Profile::Gfx11,
            load(json!({"wave64": false, "vindex": (0..33).collect::<Vec<_>>()})),
            "`vindex`: a value for lane 32, but a wave32 has lanes 0–31",
        ),
        (
            Profile::Gfx11,
            load(json!({"wave64": false, "voffset": {"40": 1}})),
            "`voffset`: a value for lane 40",
        ),
        (
            Profile::Gfx9,
            load(json!({"offen": "1"})),
            "`offen`: expected a boolean, got the string `1` (a flag is true or false)",
        ),
        (
            Profile::Gfx9,
            load(json!({"offen": 1})),
            "(a flag is true or false)",
        ),
        (
            Profile::Gfx9,
            load(json!({"vsharp": {"add_tid": true}})),
            "`vsharp.add_tid`: expected a non-negative integer",
        ),
        (
            Profile::Gfx9,
            load(json!({"soffset": true})),
            "(a boolean is not a number)",
        ),
        (
            Profile::Gfx9,
            json!({"instr": "tbuffer_load_format_x", "vsharp": "0x0", "format": {"dfmt": "BUF_FMT_NOPE"}}),
            "`format.dfmt`: unknown format",
        ),
        (
            Profile::Gfx9,
            json!({"instr": "tbuffer_load_format_x", "vsharp": "0x0", "format": {"dfmt": 16}}),
            "`format.dfmt`: 16 is out of range",
        ),
        (
            Profile::Gfx9,
            json!({"instr": "tbuffer_load_format_x", "vsharp": "0x0", "format": "BUF_FMT_NOPE"}),
            "`format`: unknown format",
        ),
    ] {
        let e = eval_str("ta", p, &req).expect_err(&req.to_string());
        assert!(e.contains(msg), "{req}: {e}");
    }
    // add_tid as a number, offen as a flag, lane 40 by name.
    let r = eval_str(
        "ta",
        Profile::Gfx9,
        &load(
            json!({"vsharp": {"num_records": 64, "add_tid": "1"}, "offen": true,
                     "exec": "0x100_0000_0000", "voffset": {"40": 8}}),
        ),
    )
    .unwrap();
    assert_eq!(r["lanes"][0]["lane"], 40);
    // An invalid format: no slot in addr, in_range or access.
    let r = eval_str("ta", 
        Profile::Gfx9,
        &json!({"instr": "buffer_load_format_x", "vsharp": {"format": 0, "num_records": 8}, "exec": 1}),
    )
    .unwrap();
    assert_eq!(r["access"]["valid_format"], false);
    let lane = &r["lanes"][0];
    assert_eq!(
        (&lane["addr"], &lane["in_range"], &lane["access"]),
        (&json!([]), &json!([]), &json!([]))
    );
}

#[test]
fn eval_errors_are_one_line() {
    let cases = [
        json!({"instr": "buffer_load_qword", "vsharp": "0x0"}),
        json!({"instr": "tbuffer_load_format_x", "vsharp": "0x0"}),
        json!({"instr": "buffer_load_dword", "vsharp": {"bogus": 1}}),
        json!({"instr": "buffer_load_dword", "vsharp": "0xzz"}),
        json!({"instr": "buffer_load_dword", "vsharp": "0x0", "voffset": [-1]}),
        json!({"instr": "buffer_load_dword", "vsharp": "0x0", "offset": 4096}),
        json!({"instr": "buffer_load_dword", "vsharp": "0x0", "wave64": false}),
        json!({"instr": "buffer_load_dword", "vsharp": {"oob_select": 1}}),
        json!({"instr": "buffer_store_ubyte", "vsharp": "0x0"}),
        json!({"vsharp": "0x0"}),
        json!(3),
        json!([{"instr": "buffer_load_dword", "vsharp": "0x0", "typo": 1}]),
    ];
    for c in cases {
        let e = eval_str("ta", Profile::Gfx9, &c).expect_err(&c.to_string());
        assert!(!e.is_empty() && !e.contains('\n'), "{e}");
    }
}
