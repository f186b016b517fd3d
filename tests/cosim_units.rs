//! Lock-step co-simulation of every unit on both profiles with the built-in
//! RTL: thousands of random cycles per seed must agree. And the regression
//! command end to end: summary, JUnit, coverage, and an interrupted run that
//! keeps its finished results.

use gpucosim_tests::gpucosim_bin;
use std::process::{Command, Stdio};

#[test]
fn every_unit_and_profile_agrees_over_random_seeds() {
    for unit in gpucosim::units::UNITS {
        for profile in ["gfx9", "gfx11"] {
            for seed in [3, 1234] {
                let out = Command::new(gpucosim_bin())
                    .args(["run", "--unit", unit, "--profile", profile])
                    .args(["--seed", &seed.to_string(), "--cycles", "20000"])
                    .output()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{unit}.{profile}.{seed}:\n{stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert!(
                    stdout.starts_with(&format!("PASS {unit}.{profile}.{seed}: 20000 cycles")),
                    "{stdout}"
                );
            }
        }
    }
}

#[test]
fn regress_writes_junit_coverage_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let cov = dir.path().join("cov.json");
    let res = dir.path().join("res.json");
    let out = Command::new(gpucosim_bin())
        .args(["regress", "--seeds", "1..2", "--cycles", "3000", "--quiet"])
        .arg("--junit")
        .arg(&junit)
        .arg("--coverage")
        .arg(&cov)
        .arg("--results")
        .arg(&res)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for g in [
        "ta.gfx9",
        "ta.gfx11",
        "lds.gfx9",
        "lds.gfx11",
        "waitcnt.gfx9",
        "waitcnt.gfx11",
    ] {
        assert!(stdout.contains(g), "summary lacks {g}:\n{stdout}");
    }
    assert!(stdout.contains("12 of 12 seeds run"), "{stdout}");
    let x = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&x).unwrap();
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count(),
        12
    );
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cov).unwrap()).unwrap();
    assert!(c["ta.gfx9"]["total"].as_u64().unwrap() > 10);
    assert!(c["ta.gfx9"]["covered"].as_u64().unwrap() > 0);
    gpucosim::regress::Results::load(&res).unwrap();
}

#[test]
fn an_interrupted_regress_keeps_its_finished_results() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let built = Command::new(gpucosim_bin())
        .args(["build", "--unit", "waitcnt", "--profile", "gfx9"])
        .output()
        .unwrap();
    assert!(built.status.success());
    let child = Command::new(gpucosim_bin())
        .args([
            "regress",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--seeds",
            "1..100000",
        ])
        .args(["--cycles", "20000", "--jobs", "1", "--quiet"])
        .arg("--junit")
        .arg(&junit)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The library is cached: let it finish a few seeds.
    std::thread::sleep(std::time::Duration::from_secs(8));
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let x = std::fs::read_to_string(&junit).expect("JUnit written on interrupt");
    let doc = roxmltree::Document::parse(&x).unwrap();
    let n = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert!((1..100000).contains(&n), "{n} testcases");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{n} of 100000 seeds run")),
        "{stdout}"
    );
}
