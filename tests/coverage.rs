//! Stress variants and `--require-coverage`: a share of the seeds runs with
//! each unit's stress knobs (named in the job, user knobs winning), and a
//! regression or merge that asks for it fails on a bin never hit.

use crate::gpucosim_bin;
use gpucosim::regress::{self, ResultsFile};
use gpucosim_tests::quick;
use std::path::Path;
use std::process::Command;

/// Runs gpucosim (RTL built quick) in `dir`: exit code, stdout, stderr.
pub(crate) fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut c = quick(Command::new(gpucosim_bin()));
    c.current_dir(dir).args(args);
    let o = c.output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
    (o.status.code().unwrap_or(-1), out, err)
}

/// The `<testcase>` of JUnit report `xml` named `name`.
fn testcase<'a>(doc: &'a roxmltree::Document<'a>, name: &str) -> Option<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
}

/// Every fourth seed runs with its unit's variant, named in the job; the
/// others, and every seed with `--no-stress`, run plain. Fails if the
/// share moves (seeds 1-3 are the broken-RTL fixtures' and must stay
/// plain) or a unit lacks a variant.
#[test]
fn variants_run_on_every_fourth_seed_and_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(dir.path(), &["regress", "--seeds", "1..12", "--list"]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = out.lines().collect();
    let groups = gpucosim::units::UNITS.len() * gpucosim_model::Profile::all().count();
    assert_eq!(names.len(), groups * 12);
    for unit in ["ta", "lds", "waitcnt"] {
        let v = if unit == "waitcnt" {
            "errors"
        } else {
            "stress"
        };
        for p in ["gfx9", "gfx11"] {
            for seed in 1..=12 {
                let want = if seed % 4 == 0 {
                    format!("{unit}.{p}.{v}.{seed}")
                } else {
                    format!("{unit}.{p}.{seed}")
                };
                assert!(names.contains(&want.as_str()), "{want} not listed:\n{out}");
            }
        }
    }
    let (code, out, _) = run(
        dir.path(),
        &["regress", "--seeds", "1..12", "--list", "--no-stress"],
    );
    assert_eq!(code, 0);
    assert!(!out.contains("stress") && !out.contains("errors"), "{out}");
    assert_eq!(regress::variant_of("waitcnt", 8).unwrap().name, "errors");
    assert!(regress::variant_of("waitcnt", 3).is_none());
    assert!(regress::variant_of("toy", 4).is_none());
}

/// A variant job runs with the variant's knobs, a plain one with none; a
/// `--knob` (plain or `unit.name=`) wins over the variant's. The knobs
/// are in the job's reproduce command, and the variant in its JUnit
/// test case. Fails if the knobs go to the wrong seeds or a user knob is
/// overridden.
#[test]
fn variant_knobs_reach_their_seeds_and_user_knobs_win() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = [
        "regress",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--seeds",
        "3..4",
        "--cycles",
        "300",
        "--quiet",
    ];
    let mut args = base.to_vec();
    args.extend(["--results", "r.json", "--junit", "j.xml"]);
    let (code, out, err) = run(d, &args);
    assert_eq!(code, 0, "{out}{err}");
    let r = ResultsFile::load(&d.join("r.json")).unwrap();
    let repro = |r: &ResultsFile, name: &str| {
        r.jobs
            .iter()
            .find(|j| j.job.name() == name)
            .unwrap_or_else(|| panic!("no job {name}"))
            .reproduce
            .clone()
    };
    let plain = repro(&r, "waitcnt.gfx9.3");
    assert!(!plain.contains("--knob"), "{plain}");
    let v = repro(&r, "waitcnt.gfx9.errors.4");
    for k in ["err_pct=12", "waves=6", "lat_max=12"] {
        assert!(v.contains(&format!("--knob {k}")), "{k} not in {v}");
    }
    assert!(v.contains("--seed 4"), "{v}");
    let xml = std::fs::read_to_string(d.join("j.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert!(testcase(&doc, "waitcnt.gfx9.errors.4").is_some(), "{xml}");
    assert!(testcase(&doc, "waitcnt.gfx9.3").is_some(), "{xml}");

    for knob in ["err_pct=3", "waitcnt.err_pct=3"] {
        let mut args = base.to_vec();
        args.extend(["--knob", knob, "--results", "u.json"]);
        let (code, out, err) = run(d, &args);
        assert_eq!(code, 0, "{out}{err}");
        let r = ResultsFile::load(&d.join("u.json")).unwrap();
        let v = repro(&r, "waitcnt.gfx9.errors.4");
        assert!(
            v.contains("--knob err_pct=3") && !v.contains("err_pct=12"),
            "{v}"
        );
        assert!(
            v.contains("--knob waves=6"),
            "the variant's other knobs stay: {v}"
        );
        assert!(repro(&r, "waitcnt.gfx9.3").contains("--knob err_pct=3"));
    }
}

/// `--require-coverage` on a regression too short to hit every bin: exit
/// 1, the unhit bins named on stdout, and a failed JUnit test case
/// `coverage.waitcnt.gfx9` naming them; without it the same run passes and
/// has no coverage test case. `merge --require-coverage` of its results
/// fails alike.
#[test]
fn require_coverage_fails_on_unhit_bins() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = [
        "regress",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--seeds",
        "1",
        "--cycles",
        "300",
        "--junit",
        "j.xml",
        "--results",
        "r.json",
    ];
    let (code, out, err) = run(d, &base);
    assert_eq!(code, 0, "{out}{err}");
    let xml = std::fs::read_to_string(d.join("j.xml")).unwrap();
    assert!(!xml.contains("coverage.waitcnt"), "{xml}");

    let mut args = base.to_vec();
    args.push("--require-coverage");
    let (code, out, err) = run(d, &args);
    assert_eq!(code, 1, "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.contains("FAIL coverage.waitcnt.gfx9: "))
        .unwrap_or_else(|| panic!("no coverage failure line:\n{out}"));
    assert!(
        line.contains("err_multi_one_wave") && line.contains("err_illegal_vscnt"),
        "{line}"
    );
    let xml = std::fs::read_to_string(d.join("j.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let case = testcase(&doc, "coverage.waitcnt.gfx9").expect("a coverage test case");
    let failure = case
        .children()
        .find(|n| n.has_tag_name("failure"))
        .expect("a failed coverage test case");
    assert_eq!(failure.attribute("type"), Some("coverage"));
    assert!(failure
        .attribute("message")
        .unwrap()
        .contains("err_multi_one_wave"));

    let (code, out, _) = run(d, &["merge", "r.json"]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = run(
        d,
        &["merge", "r.json", "--require-coverage", "--junit", "m.xml"],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL coverage.waitcnt.gfx9: "), "{out}");
    let xml = std::fs::read_to_string(d.join("m.xml")).unwrap();
    assert!(xml.contains("type=\"coverage\""), "{xml}");
}

/// Where every bin is hit (waitcnt on gfx9, eight seeds: two of them with
/// the `errors` variant) `--require-coverage` passes, with a passing
/// coverage test case; without the variant the protocol-error bins are
/// never hit and it fails. Fails if a bin cannot be hit on the profile.
#[test]
fn require_coverage_passes_where_every_bin_is_hit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = [
        "regress",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--seeds",
        "1..8",
        "--cycles",
        "20000",
        "--require-coverage",
        "--junit",
        "j.xml",
    ];
    let (code, out, err) = run(d, &base);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("FAIL"), "{out}");
    let xml = std::fs::read_to_string(d.join("j.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let case = testcase(&doc, "coverage.waitcnt.gfx9").expect("a coverage test case");
    assert!(case.children().all(|n| !n.has_tag_name("failure")), "{xml}");

    let mut args = base.to_vec();
    args.push("--no-stress");
    let (code, out, _) = run(d, &args);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("err_underflow"), "{out}");
}
