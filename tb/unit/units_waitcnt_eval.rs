use crate::units::eval_str;
use gpucosim_model::Profile;
use gpucosim_tb::units::waitcnt::eval::*;
use serde_json::{json, Value};

fn trace(p: Profile, cycles: Value) -> Vec<Value> {
    let r = eval_str("waitcnt", p, &json!({ "trace": cycles })).unwrap();
    r["trace"].as_array().unwrap().clone()
}

#[test]
fn decode_waitcnt_text_examples() {
    assert_eq!(
        decode_waitcnt_text(Profile::Gfx9, "0xBF8C0070").unwrap(),
        "s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0070 vmcnt=0 expcnt=7 lgkmcnt=0"
    );
    assert_eq!(
        decode_waitcnt_text(Profile::Gfx11, "0xBF890007").unwrap(),
        "s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0007 vmcnt=0 expcnt=7 lgkmcnt=0"
    );
    assert!(decode_waitcnt_text(Profile::Gfx11, "0xFFF7")
        .unwrap()
        .starts_with("s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)"));
    let e = decode_waitcnt_text(Profile::Gfx9, "0xBF890007").unwrap_err();
    assert!(e.contains("not an s_waitcnt"), "{e}");
    assert!(decode_waitcnt_text(Profile::Gfx9, "zz").is_err());
    assert!(decode_waitcnt_text(Profile::Gfx9, "0x1BF8C0070").is_err());
}

/// SPEC §3.2: gfx11 `s_waitcnt_vscnt null, imm` = `0xBC7C0000 | imm`,
/// threshold imm[5:0]; gfx9 has no such instruction and says so in one
/// line. Fails if the word is rejected on gfx11, accepted on gfx9, or
/// bits [15:6] reach the threshold.
#[test]
fn decode_waitcnt_text_vscnt() {
    assert_eq!(
        decode_waitcnt_text(Profile::Gfx11, "0xBC7C0005").unwrap(),
        "s_waitcnt_vscnt null, 0x5   imm=0x0005 vscnt=5"
    );
    // imm 0xFFC5: bits [15:6] ignored, threshold 0b000101.
    assert_eq!(
        decode_waitcnt_text(Profile::Gfx11, "0xBC7CFFC5").unwrap(),
        "s_waitcnt_vscnt null, 0xffc5   imm=0xFFC5 vscnt=5"
    );
    let e = decode_waitcnt_text(Profile::Gfx9, "0xBC7C0005").unwrap_err();
    assert!(
        e.contains("s_waitcnt_vscnt") && e.contains("gfx9 has no VS_CNT"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
}

/// The eval's `decode` of the SPEC §3.2 words: `s_waitcnt` fields, or
/// gfx11 `s_waitcnt_vscnt` with only `vscnt`; gfx9 rejects the vscnt word.
#[test]
fn eval_decodes_vscnt_words() {
    let r = eval_str(
        "waitcnt",
        Profile::Gfx11,
        &json!([{"decode": "0xBC7C0005"}, {"decode": "0xBF890007"}]),
    )
    .unwrap();
    assert_eq!(
        r[0],
        json!({"imm": 5, "vmcnt": null, "expcnt": null, "lgkmcnt": null,
               "vscnt": 5, "text": "s_waitcnt_vscnt null, 0x5", "request": 0})
    );
    assert_eq!(
        r[1],
        json!({"imm": 7, "vmcnt": 0, "expcnt": 7, "lgkmcnt": 0,
               "vscnt": null, "text": "s_waitcnt vmcnt(0) lgkmcnt(0)", "request": 1})
    );
    let r = eval_str(
        "waitcnt",
        Profile::Gfx11,
        &json!({"decode": 0xBC7C_FFC0u32}),
    )
    .unwrap();
    assert_eq!(r["vscnt"], json!(0), "bits [15:6] are ignored");
    let e = eval_str("waitcnt", Profile::Gfx9, &json!({"decode": "0xBC7C0005"})).unwrap_err();
    assert!(
        e.starts_with("`decode`: ") && e.contains("gfx9 has no VS_CNT"),
        "{e}"
    );
}

/// A trace's `wait` takes the field form and 32-bit words, as `decode`
/// does, and they wait as the immediates they stand for.
#[test]
fn eval_wait_forms() {
    // gfx9, wave 0 with VM 1 and LGKM 1: lgkmcnt(0) alone stalls,
    // vmcnt(1) lgkmcnt(1) does not.
    let setup = |wait: Value| {
        vec![
            json!({"issue": {"wave": 0, "class": "lds"}}),
            json!({"issue": {"wave": 0, "class": "vmem_load"}}),
            json!({ "wait": wait }),
        ]
    };
    for (wait, stalls) in [
        (json!({"wave": 0, "lgkmcnt": 0}), true),
        (json!({"wave": 0, "vmcnt": 1, "lgkmcnt": 1}), false),
        (json!({"wave": 0, "expcnt": 0}), false),
        (json!({"wave": 0, "vmcnt": 0}), true),
        // s_waitcnt lgkmcnt(0) as a word: 0xBF8C0000 | 0xC07F.
        (json!({"wave": 0, "imm": "0xBF8CC07F"}), true),
        (json!({"wave": 0, "imm": "0xBF8CCF7F"}), false),
        (json!({"wave": 0, "imm": "0xC07F"}), true),
    ] {
        let r = trace(Profile::Gfx9, Value::Array(setup(wait.clone())));
        let want = if stalls { json!([0]) } else { json!([]) };
        assert_eq!(r[2]["stall"], want, "{wait}");
    }
    // gfx11, wave 1 with VS 1 (a store) and VM 0.
    let setup =
        |wait: Value| json!([{"issue": {"wave": 1, "class": "vmem_store"}}, { "wait": wait }]);
    for (wait, stalls) in [
        (json!({"wave": 1, "vscnt": 0}), true),
        (json!({"wave": 1, "vscnt": 1}), false),
        (json!({"wave": 1, "imm": "0xBC7C0000"}), true),
        (json!({"wave": 1, "imm": "0xBC7CFFC1"}), false),
        (json!({"wave": 1, "imm": 0, "vscnt": true}), true),
        // A plain s_waitcnt never waits on VS_CNT (SPEC §3.2).
        (
            json!({"wave": 1, "vmcnt": 0, "expcnt": 0, "lgkmcnt": 0}),
            false,
        ),
        (json!({"wave": 1, "imm": "0xBF890000"}), false),
    ] {
        let r = trace(Profile::Gfx11, setup(wait.clone()));
        let want = if stalls { json!([1]) } else { json!([]) };
        assert_eq!(r[1]["stall"], want, "{wait}");
    }
    for (p, bad) in [
        (Profile::Gfx9, json!({"wave": 0, "lgkmcnt": 16})),
        (Profile::Gfx11, json!({"wave": 0, "vmcnt": 64})),
        (Profile::Gfx9, json!({"wave": 0, "vscnt": 0})),
        (Profile::Gfx9, json!({"wave": 0, "imm": "0xBC7C0000"})),
        (Profile::Gfx11, json!({"wave": 0, "vmcnt": 0, "vscnt": 0})),
        (Profile::Gfx11, json!({"wave": 0, "imm": 0, "lgkmcnt": 0})),
        (
            Profile::Gfx11,
            json!({"wave": 0, "imm": "0xBF890000", "vscnt": true}),
        ),
        (Profile::Gfx11, json!({"wave": 0, "vscnt": true})),
        (Profile::Gfx11, json!({"wave": 0})),
        (Profile::Gfx11, json!({"wave": 0, "imm": "0xBF8C0000"})),
    ] {
        let e = eval_str("waitcnt", p, &json!({"trace": [{ "wait": bad }]})).unwrap_err();
        assert!(e.starts_with("`trace[0].wait"), "{bad}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
}

/// `issue_sat` names the counters that are full; `errors` lists every
/// error raised on a wave in the cycle, not only the lowest code.
#[test]
fn eval_names_full_counters_and_every_error() {
    // gfx9 wave 0: 7 exports fill EXP_CNT; a GDS is held back by EXP only.
    let mut cycles: Vec<Value> = (0..7)
        .map(|_| json!({"issue": {"wave": 0, "class": "export"}}))
        .collect();
    cycles.push(json!({"issue": {"wave": 0, "class": "gds"}}));
    cycles.push(json!({"issue": {"wave": 0, "class": "lds"}}));
    let r = trace(Profile::Gfx9, Value::Array(cycles));
    assert_eq!(r[6]["issue_sat"], json!([]));
    assert_eq!(r[7]["issue_sat"], json!(["exp"]));
    assert_eq!(r[7]["issue_ack"], json!(false));
    assert_eq!(r[8]["issue_sat"], json!([]));
    // Both full: 15 LDS and 7 exports on gfx9, then a GDS.
    let mut cycles: Vec<Value> = (0..15)
        .map(|_| json!({"issue": {"wave": 3, "class": "lds"}}))
        .collect();
    cycles.extend((0..7).map(|_| json!({"issue": {"wave": 3, "class": "export"}})));
    cycles.push(json!({"issue": {"wave": 3, "class": "gds"}}));
    let r = trace(Profile::Gfx9, Value::Array(cycles));
    assert_eq!(r[22]["issue_sat"], json!(["lgkm", "exp"]));
    // Wave 2 waits on a load; in one cycle it is offered an illegal
    // class (illegal and busy) and underflows LDS: three errors.
    let r = trace(
        Profile::Gfx9,
        json!([
            {"issue": {"wave": 2, "class": "vmem_load"}},
            {"wait": {"wave": 2, "vmcnt": 0}},
            {"issue": {"wave": 2, "class": 12},
             "returns": [{"wave": 2, "class": "lds"}, {"wave": 5, "class": 13}]}
        ]),
    );
    assert_eq!(
        r[2]["errors"],
        json!([
            {"wave": 2, "code": 1, "name": "illegal"},
            {"wave": 2, "code": 2, "name": "busy"},
            {"wave": 2, "code": 4, "name": "underflow"},
            {"wave": 5, "code": 1, "name": "illegal"}
        ])
    );
}

#[test]
fn eval_trace_follows_the_worked_example() {
    let req: Value = serde_json::from_str(
        r#"{"trace": [
              {"issue": {"wave": 0, "class": "lds"}},
              {"issue": {"wave": 0, "class": "vmem_load"}},
              {"wait": {"wave": 0, "imm": "0x0070"}},
              {"returns": [{"wave": 0, "class": "lds"}]},
              {},
              {"returns": [{"wave": 0, "class": "vmem_load"}]},
              {}
            ]}"#,
    )
    .unwrap();
    let r = eval_str("waitcnt", Profile::Gfx9, &req).unwrap();
    let r = r["trace"].as_array().unwrap();
    assert_eq!(r.len(), 7);
    assert_eq!(r[0]["issue_ack"], json!(true));
    assert_eq!(r[2]["stall"], json!([0]));
    assert_eq!(
        r[2]["counters"],
        json!([{"wave": 0, "vm": 1, "lgkm": 1, "exp": 0}])
    );
    assert_eq!(r[5]["stall"], json!([0]));
    assert_eq!(r[6]["release"], json!([0]));
    assert_eq!(r[6]["counters"], json!([]));
}

#[test]
fn eval_decode_and_errors() {
    let r = eval_str(
        "waitcnt",
        Profile::Gfx9,
        &json!([{"decode": "0xBF8C0070"}, {"decode": 0xCF7F}]),
    )
    .unwrap();
    assert_eq!(r[0]["text"], json!("s_waitcnt vmcnt(0) lgkmcnt(0)"));
    assert_eq!(r[1]["lgkmcnt"], json!(15));
    for bad in [
        json!({"decode": "0xBF890000"}),
        json!({"trace": [{"issue": {"wave": 16, "class": "lds"}}]}),
        json!({"trace": [{"issue": {"wave": 0, "class": "nope"}}]}),
        json!({"trace": [{"bogus": 1}]}),
        json!({"trace": 3}),
        json!({"decode": 1, "trace": []}),
        json!(7),
    ] {
        let e = eval_str("waitcnt", Profile::Gfx9, &bad).unwrap_err();
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let r = eval_str(
        "waitcnt",
        Profile::Gfx9,
        &json!({"trace": [{"returns": [{"wave": 2, "class": "lds"}]}]}),
    )
    .unwrap();
    assert_eq!(
        r["trace"][0]["errors"],
        json!([{"wave": 2, "code": 4, "name": "underflow"}])
    );
}
