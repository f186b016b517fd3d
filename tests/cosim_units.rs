//! Lock-step co-simulation of every registered unit on every profile with
//! the built-in RTL: thousands of random cycles per seed must agree, with a
//! floor on the coverage they reach (idle traffic would pass but not
//! cover). And the regression command end to end: summary, JUnit, coverage,
//! and stopping by SIGINT or SIGTERM, which keeps the finished results,
//! lists the rest as skipped and makes `merge` refuse the partial run.

use crate::gpucosim_bin;
use gpucosim_model::Profile;
use gpucosim_tests::quick;
use std::io::BufRead;
use std::process::{Command, Stdio};

/// Every unit × profile, as registered.
fn groups() -> Vec<(&'static str, Profile)> {
    gpucosim::units::UNITS
        .iter()
        .flat_map(|u| Profile::all().map(move |p| (*u, p)))
        .collect()
}

#[test]
fn every_unit_and_profile_agrees_over_random_seeds() {
    let dir = tempfile::tempdir().unwrap();
    for (unit, profile) in groups() {
        for seed in [3, 1234] {
            let json = dir.path().join(format!("{unit}.{profile}.{seed}.json"));
            let out = quick(Command::new(gpucosim_bin()))
                .args(["run", "--unit", unit, "--profile", profile.name()])
                .args(["--seed", &seed.to_string(), "--cycles", "20000"])
                .arg("--json")
                .arg(&json)
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
            let j: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let bins = j["coverage"].as_object().unwrap();
            let hit = bins.values().filter(|h| h.as_u64() > Some(0)).count();
            // Every bin but those only the stress variants' knobs reach
            // (waitcnt's protocol errors, err_pct; lds's wrap at 2^32,
            // wrap) within 20,000 cycles of one seed.
            let errors = bins
                .keys()
                .filter(|k| k.starts_with("err_") || *k == "addr_wrap_2^32")
                .count();
            assert!(
                hit + errors >= bins.len() && hit > 0,
                "{unit}.{profile}.{seed}: {hit} of {} bins hit: {bins:?}",
                bins.len()
            );
            assert!(j["transactions"].as_u64().unwrap() > 100, "{j}");
        }
    }
}

#[test]
fn regress_writes_junit_coverage_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let cov = dir.path().join("cov.json");
    let res = dir.path().join("res.json");
    let out = quick(Command::new(gpucosim_bin()))
        .args(["regress", "--seeds", "1..2", "--cycles", "3000", "--quiet"])
        .arg("--junit")
        .arg(&junit)
        .arg("--coverage")
        .arg(&cov)
        .arg("--results")
        .arg(&res)
        .arg("--bundles")
        .arg(dir.path().join("bundles"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let n = 2 * groups().len();
    for (u, p) in groups() {
        assert!(
            stdout.contains(&format!("{u}.{p}")),
            "summary lacks {u}.{p}:\n{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!("{n} of {n} seeds run")),
        "{stdout}"
    );
    let x = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&x).unwrap();
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count(),
        n
    );
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cov).unwrap()).unwrap();
    for (u, p) in groups() {
        let g = &c[format!("{u}.{p}")];
        assert!(g["total"].as_u64().unwrap() > 10, "{u}.{p}: {g}");
        assert!(g["covered"].as_u64().unwrap() > 0, "{u}.{p}: {g}");
    }
    let r = gpucosim::regress::ResultsFile::load(&res).unwrap();
    assert!(!r.interrupted);
    assert_eq!(r.jobs.len(), n);
}

/// Starts a long regression, waits until it has finished a job (it prints
/// a line per job when stderr is not a terminal), then sends `signal`.
fn interrupt_regress(signal: i32) {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let results = dir.path().join("results.json");
    let mut child = quick(Command::new(gpucosim_bin()))
        .args(["regress", "--unit", "waitcnt", "--profile", "gfx9"])
        .args(["--seeds", "1..100000", "--cycles", "5000", "--jobs", "1"])
        .arg("--junit")
        .arg(&junit)
        .arg("--results")
        .arg(&results)
        .arg("--bundles")
        .arg(dir.path().join("bundles"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut log = String::new();
    loop {
        let mut line = String::new();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "regress ended before finishing a job:\n{log}"
        );
        log.push_str(&line);
        if line.starts_with("[1/100000] PASS") {
            break;
        }
    }
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + signal), "{log}{rest}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let x = std::fs::read_to_string(&junit).expect("JUnit written on interrupt");
    let doc = roxmltree::Document::parse(&x).unwrap();
    let root = doc.root_element();
    let cases = |f: &dyn Fn(roxmltree::Node) -> bool| {
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase") && f(*n))
            .count()
    };
    let passed = cases(&|n| n.first_element_child().is_none());
    assert!(passed >= 1, "{x}");
    assert!(
        stdout.contains(&format!("{passed} of 100000 seeds run")),
        "{stdout}"
    );
    // The unrun seeds are skipped, not green.
    assert_eq!(root.attribute("failures"), Some("0"));
    assert!(
        root.attribute("skipped").unwrap().parse::<u64>().unwrap() >= 1000,
        "{}",
        &x[..x.len().min(2000)]
    );
    let r = gpucosim::regress::ResultsFile::load(&results).unwrap();
    assert!(r.interrupted);
    // merge refuses the partial run, and names why.
    let merged = Command::new(gpucosim_bin())
        .arg("merge")
        .arg(&results)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&merged.stderr);
    assert_eq!(merged.status.code(), Some(2), "{e}");
    assert!(e.contains("interrupted"), "{e}");
    let partial = Command::new(gpucosim_bin())
        .args(["merge", "--allow-partial"])
        .arg(&results)
        .output()
        .unwrap();
    assert_eq!(
        partial.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&partial.stderr)
    );
}

#[test]
fn sigint_stops_a_regress_and_keeps_its_finished_results() {
    interrupt_regress(libc::SIGINT);
}

#[test]
fn sigterm_stops_a_regress_and_keeps_its_finished_results() {
    interrupt_regress(libc::SIGTERM);
}
