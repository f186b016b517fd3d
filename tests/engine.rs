//! The lock-step engine on its own, with a toy unit: builds through the
//! generated shim (ports of 1, 40 and 128 bits), agreement, a divergence
//! caught with its waveform and report, Verilator errors, determinism, and
//! the pipelined engine giving the single-threaded one's outcome exactly.

use gpucosim::engine::{report, RunSpec, Stimulus};
use gpucosim::error::Error;
use gpucosim_model::Profile;
use gpucosim_tests::{toy_ports, toy_rtl, ToyBench};
use std::path::Path;

fn spec(rtl: &Path, waves: Option<&Path>, profile: Profile, cycles: u64) -> RunSpec {
    let mut s = RunSpec::new("toy", profile, 5, cycles);
    s.rtl_arg = Some(rtl.to_path_buf());
    s.waves = waves.map(Path::to_path_buf);
    s.window = 64;
    s.post = 4;
    s.pipeline = true;
    s
}

#[test]
fn toy_model_and_rtl_agree_on_both_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), None);
    for profile in Profile::all() {
        let s = spec(&rtl, None, profile, 3000);
        let (out, _) = gpucosim::simulate::<ToyBench>(&s, Stimulus::Fresh, false).unwrap();
        assert!(out.passed(), "{}", report(&s, &out, &toy_ports::TABLE));
        assert_eq!(out.cycles, 3000);
        assert_eq!(out.coverage.holes(), Vec::<&str>::new());
    }
}

#[test]
fn a_broken_rtl_diverges_with_report_and_waveforms() {
    let dir = tempfile::tempdir().unwrap();
    // Lane 3 is left out of the sum.
    let rtl = toy_rtl(dir.path(), Some(("i < 4", "i < 3")));
    let waves = dir.path().join("waves");
    let s = spec(&rtl, Some(&waves), Profile::Gfx9, 3000);
    let (out, rtl_vcd) = gpucosim::simulate::<ToyBench>(&s, Stimulus::Fresh, true).unwrap();
    assert!(!out.passed());
    let first = &out.mismatches[0];
    // Reset takes 2 cycles; the first (directed) transaction is applied in
    // cycle 2 and its sum shows in cycle 3.
    assert_eq!(first.cycle, 3);
    assert_eq!(first.signal, "sum_o");
    assert_eq!(first.model, "0x3fffffffc");
    assert_eq!(first.rtl, "0x2fffffffd");
    let text = report(&s, &out, &toy_ports::TABLE);
    assert!(
        text.contains("reproduce: gpucosim run --unit toy --profile gfx9 --seed 5"),
        "{text}"
    );
    assert!(text.contains("transaction #0 in flight"), "{text}");
    // The VCD holds the divergence: mismatch.any rises at 10 * cycle.
    let vcd = std::fs::read_to_string(out.vcd.as_ref().unwrap()).unwrap();
    let any_id = vcd
        .lines()
        .find(|l| l.starts_with("$var") && l.ends_with(" any $end"))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap()
        .to_string();
    let at = vcd.find("#30\n").expect("cycle 3 in the waveform");
    let next = vcd[at + 4..].find("\n#").map(|i| at + 4 + i + 1).unwrap();
    assert!(
        vcd[at..next].lines().any(|l| l == format!("1{any_id}")),
        "mismatch.any rises at cycle 3"
    );
    // Stopped `post` cycles after the divergence.
    assert_eq!(out.cycles, 3 + 4 + 1);
    // The RTL's own trace of the same window holds its internal registers.
    let rv = std::fs::read_to_string(rtl_vcd.unwrap()).unwrap();
    assert!(rv.contains("sum_q"));
}

#[test]
fn same_seed_same_waveform() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("40'd1", "40'd3")));
    let mut vcds = Vec::new();
    let waves = dir.path().join("w");
    for _ in 0..2 {
        let mut s = spec(&rtl, Some(&waves), Profile::Gfx11, 500);
        s.max_mismatches = 3;
        let (out, _) = gpucosim::simulate::<ToyBench>(&s, Stimulus::Fresh, false).unwrap();
        assert_eq!(out.mismatches.len(), 3);
        vcds.push(std::fs::read(out.vcd.unwrap()).unwrap());
    }
    assert!(
        vcds[0] == vcds[1],
        "two runs of one seed wrote different VCDs"
    );
}

#[test]
fn verilator_errors_reach_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(
        dir.path(),
        Some(("assign q_o   = q_q;", "assign q_o = no_such_signal;")),
    );
    let s = spec(&rtl, None, Profile::Gfx9, 10);
    match gpucosim::simulate::<ToyBench>(&s, Stimulus::Fresh, false) {
        Err(Error::Build { message, .. }) => {
            assert!(message.contains("%Error"), "{message}");
            assert!(message.contains("no_such_signal"), "{message}");
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("broken RTL built"),
    }
}

#[test]
fn missing_rtl_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec(&dir.path().join("nope"), None, Profile::Gfx9, 10);
    match gpucosim::simulate::<ToyBench>(&s, Stimulus::Fresh, false) {
        Err(Error::Input(m)) => assert!(m.contains("does not exist"), "{m}"),
        other => panic!("expected an input error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn replaying_the_consumed_transactions_reproduces_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("i < 4", "i < 3")));
    let mut s = spec(&rtl, None, Profile::Gfx9, 3000);
    s.seed = 11;
    // Directed transaction first: skip past it by making lane 3 matter only later.
    let (a, _) = gpucosim::simulate::<ToyBench>(&s, Stimulus::Fresh, false).unwrap();
    let (b, _) = gpucosim::simulate::<ToyBench>(&s, Stimulus::Prefix(a.txn_count), false).unwrap();
    assert_eq!(a.mismatches[0].cycle, b.mismatches[0].cycle);
    assert_eq!(a.mismatches[0].rtl, b.mismatches[0].rtl);
}

/// Everything a run reports, in a comparable form.
fn summary(out: &gpucosim::engine::Outcome<gpucosim_tests::ToyTxn>) -> String {
    format!(
        "cycles {} txns {} mismatches {:?} in flight {:?} state {:?} end {:?} coverage {:?} vcd {:?}",
        out.cycles,
        out.txn_count,
        out.mismatches
            .iter()
            .map(|m| (m.cycle, &m.signal, &m.model, &m.rtl, &m.elements))
            .collect::<Vec<_>>(),
        out.in_flight,
        out.state,
        out.end,
        out.coverage.hits,
        out.vcd.as_ref().map(|p| std::fs::read(p).unwrap()),
    )
}

#[test]
fn the_pipeline_changes_nothing_but_speed() {
    let dir = tempfile::tempdir().unwrap();
    let good = toy_rtl(&dir.path().join("good"), None);
    let bad = toy_rtl(&dir.path().join("bad"), Some(("i < 4", "i < 3")));
    // A pass, divergences early, late (the post-cycles reach past the end)
    // and in the middle of a chunk, collecting several, and replays.
    let cases: &[(&Path, u64, u64, usize)] = &[
        (&good, 5, 3000, 1),
        (&good, 6, 1, 1),
        (&bad, 5, 3000, 1),
        (&bad, 11, 3000, 3),
        (&bad, 11, 600, 50),
        (&bad, 7, 4, 1),
    ];
    for &(rtl, seed, cycles, max) in cases {
        let mut runs = Vec::new();
        for pipeline in [false, true] {
            let waves = dir.path().join("w");
            let mut s = spec(rtl, Some(&waves), Profile::Gfx9, cycles);
            s.seed = seed;
            s.max_mismatches = max;
            s.pipeline = pipeline;
            let (out, _) = gpucosim::simulate::<ToyBench>(&s, Stimulus::Fresh, false).unwrap();
            let fresh = summary(&out);
            let txns =
                gpucosim::engine::fresh_txns::<ToyBench>(Profile::Gfx9, seed, &[], out.txn_count)
                    .unwrap();
            let (re, _) =
                gpucosim::simulate::<ToyBench>(&s, Stimulus::Replay(txns), false).unwrap();
            runs.push((fresh, summary(&re)));
        }
        assert_eq!(
            runs[0], runs[1],
            "seed {seed}, {cycles} cycles, {max} mismatch(es): pipelined and single-threaded runs differ"
        );
    }
}
