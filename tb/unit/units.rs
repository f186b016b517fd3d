use gpucosim_model::Profile;
use gpucosim_tb::units::*;
use serde_json::json;

/// Each unit doc's knob table is the one its KNOBS table renders, and
/// its coverage-bin table the one its `bins!` declaration renders
/// (`GPUCOSIM_BLESS=1` rewrites a stale one).
#[test]
fn tables_in_the_docs_are_generated() {
    let bless = std::env::var_os("GPUCOSIM_BLESS").is_some_and(|v| v == "1");
    let blocks = [
        (KNOB_DOC_BEGIN, KNOB_DOC_END, knob_docs()),
        (BIN_DOC_BEGIN, BIN_DOC_END, bin_docs()),
    ];
    let mut stale = Vec::new();
    for (begin, end, docs) in blocks {
        for (unit, table) in docs {
            let path =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../docs/{unit}.md"));
            let doc = std::fs::read_to_string(&path).unwrap();
            let (a, rest) = doc
                .split_once(&format!("{begin}\n"))
                .unwrap_or_else(|| panic!("{}: no `{begin}` line", path.display()));
            let (old, b) = rest
                .split_once(&format!("{end}\n"))
                .unwrap_or_else(|| panic!("{}: no `{end}` line", path.display()));
            if old == table {
                continue;
            }
            if bless {
                std::fs::write(&path, format!("{a}{begin}\n{table}{end}\n{b}")).unwrap();
            } else {
                stale.push(format!("{} ({end})", path.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated tables: {}; GPUCOSIM_BLESS=1 cargo test -p gpucosim-tests --test tb_unit tables_in_the_docs rewrites them",
        stale.join(", ")
    );
}

/// `eval` of a unit on an input held in memory, the error as its text.
pub(crate) fn eval_str(
    unit: &str,
    profile: Profile,
    input: &serde_json::Value,
) -> Result<serde_json::Value, String> {
    eval_json(unit, profile, input).map_err(|e| e.to_string())
}

/// A number field of each unit, as a request with the value `v`.
fn requests(v: serde_json::Value) -> [(&'static str, serde_json::Value, &'static str); 3] {
    [
        (
            "ta",
            json!({"instr": "buffer_load_dword", "vsharp": "0x0", "soffset": v}),
            "`soffset`: ",
        ),
        ("lds", json!({"op": "ds_read_b32", "m0": v}), "`m0`: "),
        ("waitcnt", json!({"decode": v}), "`decode`: "),
    ]
}

/// Every unit reads numbers by the one rule, with the same messages:
/// decimal and `0x` strings and JSON numbers are numbers; negative
/// numbers, fractions, booleans, `null` and malformed strings are
/// refused alike.
#[test]
fn every_unit_reads_numbers_alike() {
    for good in [json!(7), json!("7"), json!("0x7"), json!("0X0_7")] {
        for (unit, req, _) in requests(good.clone()) {
            for &(p, _) in gpucosim_model::profile::PROFILES {
                eval_json(unit, p, &req).unwrap_or_else(|e| panic!("{unit} {good}: {e}"));
            }
        }
    }
    for bad in [
        json!(-1),
        json!("-1"),
        json!(1.5),
        json!(true),
        json!(null),
        json!("0xzz"),
        json!("1_"),
        json!(""),
        json!([1]),
        json!("0x1_0000_0000"),
    ] {
        let mut msgs = Vec::new();
        for (unit, req, prefix) in requests(bad.clone()) {
            let e = eval_json(unit, Profile::Gfx9, &req)
                .unwrap_err()
                .to_string();
            let rest = e.split_once(prefix).map(|x| x.1.to_string());
            msgs.push(rest.unwrap_or_else(|| panic!("{unit} {bad}: {e}")));
        }
        assert!(msgs.iter().all(|m| *m == msgs[0]), "{bad}: {msgs:?}");
    }
}

/// Results carry their request's index.
#[test]
fn results_carry_their_index() {
    let r = eval_json(
        "waitcnt",
        Profile::Gfx9,
        &json!([{"decode": 1}, {"decode": 2}]),
    )
    .unwrap();
    assert_eq!((&r[0]["request"], &r[1]["request"]), (&json!(0), &json!(1)));
    let e = eval_json(
        "waitcnt",
        Profile::Gfx9,
        &json!([{"decode": 1}, {"decode": -2}]),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("request 1: "), "{e}");
}
