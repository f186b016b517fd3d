//! `gpucosim mutate`: mutants come from the syntax tree (every operator on
//! the built-in RTL, nothing in generated files, constant contexts or
//! initial blocks), the hand-written broken-RTL fixtures are among them,
//! the instrumented build with a mutant selected behaves exactly as that
//! mutant built alone, and a campaign kills, reports survivors (text, JSON,
//! JUnit), gates on a kill-rate floor and refuses RTL that fails unmutated.

use crate::gpucosim_bin;
use gpucosim::mutate::{self, gen::Operator};
use gpucosim_tests::{quick, repo_root, rtl_with, BrokenFixture};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let mut cmd = quick(Command::new(gpucosim_bin()));
    let out = cmd.args(args).output().expect("gpucosim runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The mutants of the built-in RTL of `unit`, scanned once per test
/// process (the SystemVerilog parser takes 0.5–0.9 s a unit, and several
/// tests ask for the same unit).
fn builtin(unit: &str) -> mutate::gen::Unit {
    static SCANNED: std::sync::Mutex<BTreeMap<String, mutate::gen::Unit>> =
        std::sync::Mutex::new(BTreeMap::new());
    let mut scanned = SCANNED.lock().unwrap_or_else(|e| e.into_inner());
    scanned
        .entry(unit.to_string())
        .or_insert_with(|| scan_builtin(unit))
        .clone()
}

/// The mutants of the built-in RTL of `unit`, scanned now.
fn scan_builtin(unit: &str) -> mutate::gen::Unit {
    mutate::scan_unit(Some(&repo_root().join("rtl")), unit).unwrap()
}

/// The id of the mutant of `unit` with `operator` whose diff has `line`.
fn find(unit: &mutate::gen::Unit, operator: Operator, original: &str, mutated: &str) -> u32 {
    unit.mutants
        .iter()
        .find(|m| {
            m.operator == operator
                && mutate::diff(unit, m).contains(&format!("-{original}"))
                && mutate::diff(unit, m).contains(&format!("+{mutated}"))
        })
        .unwrap_or_else(|| panic!("no {operator} mutant turning {original:?} into {mutated:?}"))
        .id
}

#[test]
fn mutants_cover_every_operator_and_skip_what_cannot_run() {
    let mut ops = BTreeSet::new();
    for u in ["ta", "lds", "waitcnt"] {
        let unit = builtin(u);
        assert!(
            unit.mutants.len() > 100,
            "{u}: {} mutants",
            unit.mutants.len()
        );
        for m in &unit.mutants {
            ops.insert(m.operator);
            // Generated files and includes are never mutated.
            assert!(m.file.ends_with(".sv"), "{u}.m{} in {}", m.id, m.file);
            assert!(!unit.generated.contains(&m.file));
            let src = &unit.files[&m.file];
            let line = src.lines().nth(m.line - 1).unwrap();
            // Not in a `for` header, a declaration or a system call's
            // arguments.
            assert!(
                !line.trim_start().starts_with("for ("),
                "{u}.m{}: {line}",
                m.id
            );
            assert!(!line.contains("localparam"), "{u}.m{}: {line}", m.id);
            for e in &m.edits {
                for (at, _) in src.match_indices('$') {
                    let open = at + src[at..].find('(').unwrap();
                    let mut depth = 0;
                    let close = open
                        + src[open..]
                            .char_indices()
                            .find(|&(_, c)| {
                                depth += (c == '(') as i32 - (c == ')') as i32;
                                depth == 0
                            })
                            .unwrap()
                            .0;
                    assert!(
                        !(open < e.start && e.end <= close),
                        "{u}.m{} edits inside {}",
                        m.id,
                        &src[at..=close]
                    );
                }
            }
            // Ids are 1-based and dense.
            assert_eq!(unit.mutant(m.id).unwrap().id, m.id);
        }
        // The generated includes are listed apart.
        assert!(unit.files.keys().any(|f| f.ends_with("_ports.svh")));
    }
    let missing: Vec<_> = Operator::ALL.iter().filter(|o| !ops.contains(o)).collect();
    assert!(missing.is_empty(), "operators never generated: {missing:?}");
    // The LDS RAM's initial block (its memory image) is not mutated.
    let lds = builtin("lds");
    let ram = &lds.files["lds_ram.sv"];
    let initial = ram.lines().position(|l| l.contains("initial")).unwrap() + 1;
    assert!(lds
        .mutants
        .iter()
        .filter(|m| m.file == "lds_ram.sv")
        .all(|m| m.line < initial || m.line > initial + 4));
    // Mutant numbering is a function of the sources: scanning twice agrees.
    let again = scan_builtin("lds");
    assert_eq!(
        lds.mutants
            .iter()
            .map(|m| (&m.file, m.line, m.operator, &m.mutated))
            .collect::<Vec<_>>(),
        again
            .mutants
            .iter()
            .map(|m| (&m.file, m.line, m.operator, &m.mutated))
            .collect::<Vec<_>>()
    );
}

#[test]
fn broken_rtl_fixtures_are_among_the_mutants() {
    // Hand-written bugs of the kinds the operators model must be generated.
    let mut found = Vec::new();
    // Each unit's RTL is parsed once.
    let mut units = std::collections::BTreeMap::new();
    for (name, f) in BrokenFixture::all() {
        let unit = units
            .entry(f.unit.clone())
            .or_insert_with(|| builtin(&f.unit));
        let file = Path::new(&f.file).file_name().unwrap().to_str().unwrap();
        let broken = unit.files[file].replace(&f.find, &f.replace);
        // A mutant's replacement is parenthesised; the fixtures are not.
        let bare = |m: &mutate::gen::Mutant| {
            let mut m = m.clone();
            for e in &mut m.edits {
                if let Some(inner) = e.text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
                    e.text = inner.to_string();
                }
            }
            let src = &unit.files[file];
            let mut out = src.clone();
            for e in m.edits.iter().rev() {
                out.replace_range(e.start..e.end, &e.text);
            }
            out
        };
        if unit
            .mutants
            .iter()
            .any(|m| m.file == file && (unit.apply(m.id)[file] == broken || bare(m) == broken))
        {
            found.push(name);
        }
    }
    for must in ["lds_range_off_by_one", "ta_gfx9_stride0_range_gt"] {
        assert!(
            found.iter().any(|f| f == must),
            "{must} is not a mutant; found {found:?}"
        );
    }
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn instrumented_build_behaves_as_each_mutant_built_alone() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    let (code, out, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--mutants",
        "3",
        "--verify",
        "3",
        "--seeds",
        "1..1",
        "--cycles",
        "3000",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(code == 0, "exit {code}\n{out}\n{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let verified = v["groups"][0]["verified"].as_array().unwrap();
    assert_eq!(verified.len(), 3, "{v}");
    for x in verified {
        assert!(
            x["differs_at"].is_null(),
            "instrumented and separate builds differ: {x}"
        );
        assert_eq!(x["cycles"], 3000);
    }
    assert!(out.contains("instrumented vs built alone: same outputs for 3000 cycles"));
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn the_output_comparison_catches_a_different_build() {
    // The check above can fail: the RTL as written against a separately
    // built mutant that the regression kills differs within the run.
    let unit = builtin("waitcnt");
    let id = find(
        &unit,
        Operator::StuckAt1,
        "    err       = '0;",
        "    err       = (('0) | 1'b1);",
    );
    let differs =
        mutate::compare_with_separate_build::<gpucosim::units::waitcnt::WaitcntTestbench>(
            &unit,
            gpucosim_model::Profile::Gfx9,
            id,
            0,
            1,
            2000,
        )
        .unwrap();
    assert!(
        differs.is_some(),
        "mutant {id} built alone matched the unmutated RTL"
    );
    let same = mutate::compare_with_separate_build::<gpucosim::units::waitcnt::WaitcntTestbench>(
        &unit,
        gpucosim_model::Profile::Gfx9,
        id,
        id,
        1,
        2000,
    )
    .unwrap();
    assert_eq!(same, None);
}

/// The key of mutant `id` of `unit`.
fn key_of(unit: &mutate::gen::Unit, id: u32) -> String {
    let m = unit.mutant(id).unwrap();
    mutate::waivers::key(&m.file, m.operator.name(), &mutate::diff(unit, m))
}

/// The reviewed dispositions shipped for the built-in RTL are live: each
/// names a mutant the sources have (a change of the RTL under one makes
/// this fail until the waiver is reviewed again).
#[test]
fn the_shipped_waivers_name_mutants_of_the_builtin_rtl() {
    let path = repo_root().join("rtl/mutation-waivers.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let w = mutate::waivers::parse(&text, "rtl/mutation-waivers.txt").unwrap();
    assert!(!w.is_empty());
    // Each unit scanned once: the keys of all its mutants.
    let mut keys_of: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for x in &w {
        let keys = keys_of.entry(x.unit.clone()).or_insert_with(|| {
            let unit = builtin(&x.unit);
            unit.mutants.iter().map(|m| key_of(&unit, m.id)).collect()
        });
        assert!(
            keys.contains(&x.key),
            "rtl/mutation-waivers.txt line {} ({} {}) is stale: no mutant has key {}",
            x.line,
            x.unit,
            x.place,
            x.key
        );
    }
}

/// `--waivers`: a reviewed survivor is waived (apart in the report, out of
/// the kill rate and the JUnit failures); a waiver whose mutant is killed,
/// and a stale one, are listed and fail the JUnit `waivers` testcase; a
/// malformed file is a one-line error.
#[test]
#[ignore = "heavy (four campaigns): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn reviewed_waivers_take_survivors_and_report_wrong_ones() {
    let dir = tempfile::tempdir().unwrap();
    let unit = builtin("waitcnt");
    let killed = find(
        &unit,
        Operator::StuckAt1,
        "    err       = '0;",
        "    err       = (('0) | 1'b1);",
    );
    let dead = find(
        &unit,
        Operator::StuckAt1,
        "    stall     = '0;",
        "    stall     = (('0) | 1'b1);",
    );
    let shipped = repo_root().join("rtl/mutation-waivers.txt");
    let base = |waivers: &Path, junit: &Path| -> Vec<String> {
        [
            "mutate",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--mutant",
            &killed.to_string(),
            "--mutant",
            &dead.to_string(),
            "--seeds",
            "1..2",
            "--cycles",
            "2000",
            "--min-kill-rate",
            "0.9",
            "--waivers",
            waivers.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let junit = dir.path().join("m.xml");
    let args = base(&shipped, &junit);
    let (code, out, err) = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    // The shipped waiver takes the overwritten default: 1 of 1 killed.
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("100.0 %"), "{out}");
    assert!(!out.contains("SURVIVORS"), "{out}");
    assert!(
        out.contains("Waived (survived; a reviewed waiver calls it equivalent):"),
        "{out}"
    );
    assert!(
        out.contains(&format!("waitcnt.gfx9.m{dead} [stuck-at-1] waitcnt_top.sv")),
        "{out}"
    );
    assert!(!out.contains("WAIVERS FOUND WRONG"), "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(!xml.contains("<failure"), "{xml}");
    assert!(xml.contains("waived (line"), "{xml}");
    assert!(xml.contains("waitcnt.gfx9.waivers"), "{xml}");
    // A waiver on the killed mutant, and a stale one.
    let wrong = dir.path().join("wrong.txt");
    std::fs::write(
        &wrong,
        format!(
            "{}waitcnt gfx9 waitcnt_top.sv:1 {} not really equivalent\nwaitcnt all waitcnt_top.sv:2 0123456789abcdef the RTL changed under it\n",
            std::fs::read_to_string(&shipped).unwrap(),
            key_of(&unit, killed)
        ),
    )
    .unwrap();
    let args = base(&wrong, &junit);
    let (code, out, err) = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("WAIVERS FOUND WRONG"), "{out}");
    assert!(
        out.contains(&format!("killed: m{killed} diverged in waitcnt.gfx9.1")),
        "{out}"
    );
    assert!(
        out.contains("stale: no mutant of the sources has its key"),
        "{out}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failed: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.children().any(|x| x.has_tag_name("failure")))
        .map(|c| c.attribute("name").unwrap())
        .collect();
    assert_eq!(failed, ["waitcnt.gfx9.waivers"], "{xml}");
    // Without waivers the survivor is one again (the key is printed); the
    // same mutants and seeds, so the same instrumented build.
    let (code, out, _) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--mutant",
        &killed.to_string(),
        "--mutant",
        &dead.to_string(),
        "--seeds",
        "1..2",
        "--cycles",
        "2000",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("waiver, once reviewed: waitcnt gfx9 waitcnt_top.sv:"),
        "{out}"
    );
    assert!(out.contains(&key_of(&unit, dead)), "{out}");
    // A malformed file.
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "waitcnt all waitcnt_top.sv:3 0123456789abcdef\n").unwrap();
    let (code, _, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--waivers",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("bad.txt:1: a waiver needs its reason"),
        "{err}"
    );
    // An unreadable one.
    let missing = dir.path().join("missing.txt");
    let (code, _, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--waivers",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("missing.txt: cannot read the waivers"),
        "{err}"
    );
}

#[test]
fn campaign_reports_kills_survivors_and_gates_on_a_floor() {
    let dir = tempfile::tempdir().unwrap();
    let (json, junit) = (dir.path().join("m.json"), dir.path().join("m.xml"));
    let unit = builtin("waitcnt");
    let killed = find(
        &unit,
        Operator::StuckAt1,
        "    err       = '0;",
        "    err       = (('0) | 1'b1);",
    );
    // A default the loop below it overwrites on every wave: equivalent,
    // and beyond the cheap proofs, so it survives.
    let dead = find(
        &unit,
        Operator::StuckAt1,
        "    stall     = '0;",
        "    stall     = (('0) | 1'b1);",
    );
    // Setting bit 0 of a merged error code whose bit 0 every merge with
    // ErrIllegal already sets: it runs, but never changes a value there,
    // so it is never activated.
    let inert = find(
        &unit,
        Operator::StuckAt1,
        "          err[ret_wave_i[k]] = merge_err(err[ret_wave_i[k]], ErrIllegal);",
        "          err[ret_wave_i[k]] = ((merge_err(err[ret_wave_i[k]], ErrIllegal)) | 1'b1);",
    );
    let (code, out, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--mutant",
        &killed.to_string(),
        "--mutant",
        &dead.to_string(),
        "--mutant",
        &inert.to_string(),
        "--seeds",
        "1..2",
        "--cycles",
        "2000",
        "--min-kill-rate",
        "0.9",
        "--json",
        json.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    // The overwritten default and the inert bit survive: one of three
    // killed is below 90 %; of the activated ones, one of two.
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("kill rate below 90.0 %: waitcnt.gfx9 33.3 %"),
        "{err}"
    );
    assert!(out.contains("SURVIVORS"), "{out}");
    assert!(
        out.contains(&format!("waitcnt.gfx9.m{dead} [stuck-at-1] waitcnt_top.sv")),
        "{out}"
    );
    // The default is overwritten after it changed a value: activated, not
    // detected. The inert bit never changed one: not activated.
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("waitcnt.gfx9.m{dead} "))
                && l.ends_with(
                    "ACTIVATED, NOT DETECTED (a checking gap, or an equivalent mutant)"
                )),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("waitcnt.gfx9.m{inert} "))
                && l.contains(" NOT ACTIVATED (a stimulus gap")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("waitcnt.gfx9 ")
            && l.contains("33.3 %")
            && l.contains("50.0 %")),
        "{out}"
    );
    assert!(out.contains(&format!(
        "run again: gpucosim mutate --unit waitcnt --profile gfx9 --mutant {dead} --seeds 1..2 --cycles 2000"
    )));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ms = v["groups"][0]["mutants"].as_array().unwrap();
    let k = ms.iter().find(|m| m["id"] == killed).unwrap();
    assert_eq!(k["fate"], "killed", "{k}");
    assert_eq!(k["seed"], 1);
    assert!(k["signal"].as_str().unwrap().starts_with("err_o"), "{k}");
    assert!(k["cycles_to_kill"].as_u64().unwrap() < 100, "{k}");
    let s = ms.iter().find(|m| m["id"] == dead).unwrap();
    assert_eq!(s["fate"], "survived");
    assert_eq!(s["cycles"], 4000);
    assert_eq!(s["activated"], true);
    let i = ms.iter().find(|m| m["id"] == inert).unwrap();
    assert_eq!(
        (&i["fate"], &i["activated"]),
        (&"survived".into(), &false.into()),
        "{i}"
    );
    assert_eq!(v["summaries"][0]["counts"]["not_activated"], 1);
    assert_eq!(v["summaries"][0]["activated_kill_rate"], 0.5);
    assert!((v["summaries"][0]["kill_rate"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    // JUnit: the survivor fails with its diff, the kill passes, and the
    // floor is a testcase of its own.
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 4, "{xml}");
    let failed: Vec<&str> = cases
        .iter()
        .filter(|c| c.children().any(|x| x.has_tag_name("failure")))
        .map(|c| c.attribute("name").unwrap())
        .collect();
    assert_eq!(failed.len(), 3, "{xml}");
    assert!(failed
        .iter()
        .any(|n| n.starts_with(&format!("waitcnt.gfx9.m{dead} "))));
    assert!(failed.contains(&"waitcnt.gfx9.kill-rate"));
    assert!(
        xml.contains("+    stall     = ((&apos;0) | 1&apos;b1);")
            || xml.contains("+    stall     = (('0) | 1'b1);"),
        "{xml}"
    );
    // Without the survivor the floor holds.
    let (code, out, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--mutant",
        &killed.to_string(),
        "--seeds",
        "1..1",
        "--cycles",
        "2000",
        "--min-kill-rate",
        "1",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("100.0 %"), "{out}");
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn parameter_only_changes_are_proven_equivalent() {
    // A condition on the profile parameter alone: on gfx9 `GFX > 11` and
    // `GFX >= 11` are both false, so that mutant is equivalent there.
    let dir = tempfile::tempdir().unwrap();
    let root = rtl_with(
        dir.path(),
        "waitcnt/waitcnt_top.sv",
        "    wait_legal = !wait_vscnt_i || HasVs;",
        "    wait_legal = !wait_vscnt_i || HasVs || (GFX > 11);",
    );
    let unit = mutate::scan_unit(Some(&root), "waitcnt").unwrap();
    let id = find(
        &unit,
        Operator::Relational,
        "    wait_legal = !wait_vscnt_i || HasVs || (GFX > 11);",
        "    wait_legal = !wait_vscnt_i || HasVs || ((GFX >= 11));",
    );
    let (code, out, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--rtl",
        root.to_str().unwrap(),
        "--mutant",
        &id.to_string(),
        "--seeds",
        "1..1",
        "--cycles",
        "1000",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Equivalent"), "{out}");
    assert!(out.contains("both evaluate to 0 with GFX=9"), "{out}");
}

#[test]
fn bad_input_and_failing_rtl_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    // RTL that already fails the regression: mutation testing means nothing.
    let f = BrokenFixture::all()
        .into_iter()
        .find(|(n, _)| n == "lds_range_off_by_one")
        .unwrap()
        .1;
    let root = f.apply(dir.path());
    let (code, out, err) = run(&[
        "mutate",
        "--unit",
        "lds",
        "--profile",
        "gfx9",
        "--rtl",
        root.to_str().unwrap(),
        "--mutants",
        "2",
        "--seeds",
        "3..3",
        "--cycles",
        "20000",
    ]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("fails the regression without a mutant"),
        "{err}"
    );
    assert!(err.contains("fix that first"), "{err}");
    // Unparsable SystemVerilog.
    let bad = rtl_with(
        &dir.path().join("syntax"),
        "waitcnt/waitcnt_top.sv",
        "    waiting_d = stall;",
        "    waiting_d = = stall;",
    );
    let (code, _, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--rtl",
        bad.to_str().unwrap(),
        "--list",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot parse") && err.contains("waitcnt_top.sv:"),
        "{err}"
    );
    for (args, says) in [
        (
            &[
                "mutate",
                "--unit",
                "waitcnt",
                "--profile",
                "gfx9",
                "--mutant",
                "100000",
            ][..],
            "no mutant 100000",
        ),
        (
            &["mutate", "--unit", "waitcnt", "--min-kill-rate", "2"][..],
            "for '--min-kill-rate <RATE>': expected a rate between 0 and 1",
        ),
        (&["mutate", "--unit", "nope"][..], "unknown unit"),
        (
            &["mutate", "--unit", "waitcnt", "--mutants", "0"][..],
            "--mutants must be at least 1",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {out}\n{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn a_stopped_campaign_keeps_what_ran() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    let mut child = quick(Command::new(gpucosim_bin()))
        .args([
            "mutate",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--mutants",
            "150",
            "--jobs",
            "1",
            "--seeds",
            "1..2",
            "--cycles",
            "20000",
            "--json",
            json.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stop it once a few mutants are done.
    let err = child.stderr.take().unwrap();
    let mut lines = BufReader::new(err).lines();
    let mut seen = Vec::new();
    for l in lines.by_ref() {
        let l = l.unwrap();
        let done = l.contains("[3/150]");
        seen.push(l);
        if done {
            break;
        }
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let rest: Vec<String> = lines.map_while(|l| l.ok()).collect();
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(143), "{seen:?} {rest:?}");
    assert!(
        rest.iter()
            .any(|l| l.contains("interrupted; the report covers the mutants that ran")),
        "{rest:?}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ms = v["groups"][0]["mutants"].as_array().unwrap();
    assert_eq!(ms.len(), 150);
    let ran = ms.iter().filter(|m| m["fate"] != "not-run").count();
    assert!((3..150).contains(&ran), "{ran} ran");
    assert!(ms.iter().any(|m| m["fate"] == "not-run"));
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn mutants_that_do_not_compile_are_left_out_and_named() {
    // A stuck-at on an enum-typed assignment is not legal SystemVerilog
    // (no implicit conversion to an enum): Verilator rejects it, the
    // campaign leaves it out of the build and the rate, and says why.
    let dir = tempfile::tempdir().unwrap();
    let root = rtl_with(
        dir.path(),
        "waitcnt/waitcnt_top.sv",
        "  // Outputs. Everything combinational is forced to 0 while in reset.",
        "  typedef enum logic [1:0] { ModeA, ModeB } mode_e;
  mode_e mode;
  always_comb mode = ModeB;
  // Outputs. Everything combinational is forced to 0 while in reset.",
    );
    let unit = mutate::scan_unit(Some(&root), "waitcnt").unwrap();
    let bad = find(
        &unit,
        Operator::StuckAt0,
        "  always_comb mode = ModeB;",
        "  always_comb mode = (((ModeB) >> 1) << 1);",
    );
    let json = dir.path().join("m.json");
    let id = bad.to_string();
    let args = [
        "mutate",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--rtl",
        root.to_str().unwrap(),
        "--mutant",
        &id,
        "--seeds",
        "1..1",
        "--cycles",
        "300",
        "--json",
        json.to_str().unwrap(),
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let m = &v["groups"][0]["mutants"][0];
    assert_eq!(m["fate"], "not-built", "{m}");
    assert_eq!(m["operator"], "stuck-at-0");
    assert!(m["reason"].as_str().unwrap().contains("enum"), "{m}");
    assert!(!m["reason"].as_str().unwrap().contains("/tmp"), "{m}");
    assert_eq!(v["summaries"][0]["counts"]["not_built"], 1);
    assert!(v["summaries"][0]["kill_rate"].is_null());
    // Again: which mutants Verilator rejects comes from the cache, the
    // same.
    let mut cmd = quick(Command::new(gpucosim_bin()));
    let o = cmd
        .env("GPUCOSIM_LOG", "debug")
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("the mutants Verilator rejects are known from an earlier campaign"),
        "{err}"
    );
    let again: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(again["groups"][0]["mutants"], v["groups"][0]["mutants"]);
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn changes_the_optimiser_folds_away_are_proven_equivalent() {
    // On gfx11 `HasVs` is 1, so `!wait_vscnt_i || HasVs` is 1 whatever
    // the input: dropping the input's term changes nothing, and Verilator
    // makes the same C++ of both. On gfx9 (`HasVs` = 0) the same mutant is
    // killed.
    let unit = builtin("waitcnt");
    let id = find(
        &unit,
        Operator::DropTerm,
        "    wait_legal = !wait_vscnt_i || HasVs;",
        "    wait_legal = (HasVs);",
    );
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    let (code, out, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--mutant",
        &id.to_string(),
        "--seeds",
        "1..4",
        "--cycles",
        "5000",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let fate = |p: &str| {
        let g = v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["profile"] == p)
            .unwrap();
        g["mutants"][0].clone()
    };
    assert_eq!(fate("gfx9")["fate"], "killed", "{v}");
    let m = fate("gfx11");
    assert_eq!(m["fate"], "equivalent", "{m}");
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .contains("Verilator's optimiser"),
        "{m}"
    );
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn a_mutant_that_stops_the_rtl_is_killed_and_reported_apart() {
    // The RTL as written never reaches its `$fatal` (GFX is never 99); the
    // mutant that flips that comparison stops the simulation at once.
    let dir = tempfile::tempdir().unwrap();
    let root = rtl_with(
        dir.path(),
        "waitcnt/waitcnt_top.sv",
        "  // Outputs. Everything combinational is forced to 0 while in reset.",
        "  always_ff @(posedge clk_i) begin
    if (rst_ni && (GFX == 99)) $fatal(1, \"unreachable\");
  end
  // Outputs. Everything combinational is forced to 0 while in reset.",
    );
    let unit = mutate::scan_unit(Some(&root), "waitcnt").unwrap();
    let id = find(
        &unit,
        Operator::Equality,
        "    if (rst_ni && (GFX == 99)) $fatal(1, \"unreachable\");",
        "    if (rst_ni && ((GFX != 99))) $fatal(1, \"unreachable\");",
    );
    let json = dir.path().join("m.json");
    let (code, out, err) = run(&[
        "mutate",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--rtl",
        root.to_str().unwrap(),
        "--mutant",
        &id.to_string(),
        "--seeds",
        "1..2",
        "--cycles",
        "500",
        "--json",
        json.to_str().unwrap(),
        "--min-kill-rate",
        "1",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let m = &v["groups"][0]["mutants"][0];
    assert_eq!(m["fate"], "rtl-error", "{m}");
    assert_eq!(m["seed"], 1);
    assert!(
        m["message"].as_str().unwrap().contains("$fatal")
            || m["message"].as_str().unwrap().contains("$stop"),
        "{m}"
    );
    assert_eq!(v["summaries"][0]["counts"]["rtl_errors"], 1);
    assert_eq!(v["summaries"][0]["kill_rate"], 1.0);
    // A text report row counts it apart from divergences.
    let row = out.lines().find(|l| l.starts_with("waitcnt.gfx9")).unwrap();
    assert_eq!(
        row.split_whitespace().take(5).collect::<Vec<_>>(),
        ["waitcnt.gfx9", "1", "0", "1", "0"],
        "{out}"
    );
}

/// The instrumented build of every unit, with all its mutants in, compiles
/// on both profiles and runs a mutant: no mutant the generator makes may
/// break Verilator's C++ (a stuck-at on a whole unpacked array once did).
#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn every_units_instrumented_build_compiles() {
    for unit in gpucosim::units::UNITS {
        for profile in ["gfx9", "gfx11"] {
            let (code, out, err) = run(&[
                "mutate",
                "--unit",
                unit,
                "--profile",
                profile,
                "--mutant",
                "1",
                "--seeds",
                "1",
                "--cycles",
                "300",
                "--no-stress",
            ]);
            assert!(
                code == 0
                    && out.contains(&format!("{unit}.{profile} "))
                    && err.contains(&format!("mutate {unit}.{profile}: [1/1] m1 ")),
                "{unit} {profile}: exit {code}\n{out}\n{}",
                err.lines().rev().take(15).collect::<Vec<_>>().join("\n")
            );
        }
    }
}
