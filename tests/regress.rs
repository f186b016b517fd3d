//! Regression machinery on the toy unit: sharding partitions the jobs (and
//! is computed lazily), merging checks that its inputs are complete, JUnit
//! is well formed and lists what did not run, bundles replay exactly and
//! shrink, and stopping keeps every finished result and starts nothing new.

use gpucosim::regress::{
    self, Job, JobList, Plan, RegressConfig, Repro, ResultsFile, Seeds, Shard,
};
use gpucosim_model::Profile;
use gpucosim_tests::{toy_rtl, ToyTestbench, Vcd};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

fn cfg(rtl: &Path, bundles: &Path, shrink: bool) -> RegressConfig {
    RegressConfig {
        cycles: 2000,
        rtl_arg: Some(rtl.to_path_buf()),
        knobs: vec![],
        bundles: bundles.to_path_buf(),
        shrink,
        window: 128,
        timeout: None,
        stall: Some(60.0),
        waves_format: Default::default(),
        mutant: None,
        code_coverage: false,
    }
}

fn toy_plan(seeds: &str) -> Plan {
    Plan {
        kernels: Vec::new(),
        stress: false,
        code_coverage: false,
        stimulus: gpucosim::draw::STIMULUS_VERSION,
        units: vec!["toy".into()],
        profiles: vec![Profile::Gfx9],
        seeds: seeds.parse().unwrap(),
        cycles: 2000,
        knobs: vec![],
    }
}

#[test]
fn shards_partition_the_jobs() {
    let units = vec!["ta".to_string(), "lds".to_string(), "waitcnt".to_string()];
    let profiles: Vec<Profile> = Profile::all().collect();
    let seeds: Seeds = "3..19".parse().unwrap();
    let all = regress::jobs(&units, &profiles, seeds, None);
    assert_eq!(all.len(), 3 * 2 * 17);
    for n in [1u32, 2, 3, 5, 7, 200] {
        let mut union = BTreeSet::new();
        let mut count = 0;
        for k in 1..=n {
            let part = regress::jobs(&units, &profiles, seeds, Some(Shard { k, n }));
            count += part.len();
            union.extend(part);
        }
        assert_eq!(count, all.len(), "shards of {n} overlap");
        assert_eq!(
            union,
            all.iter().cloned().collect::<BTreeSet<_>>(),
            "shards of {n} miss jobs"
        );
    }
    // Deterministic: the same shard twice is the same list.
    let s: Shard = "2/3".parse().unwrap();
    assert_eq!(
        regress::jobs(&units, &profiles, seeds, Some(s)),
        regress::jobs(&units, &profiles, seeds, Some(s))
    );
}

#[test]
fn a_huge_plan_is_sharded_without_listing_it() {
    // 6 × 10^10 jobs; shard 1 of 10^8 holds 600 of them. Building the
    // whole list first would need terabytes.
    let plan = Plan {
        kernels: Vec::new(),
        stress: false,
        code_coverage: false,
        stimulus: gpucosim::draw::STIMULUS_VERSION,
        units: vec!["ta".into(), "lds".into(), "waitcnt".into()],
        profiles: Profile::all().collect(),
        seeds: "1..10000000000".parse().unwrap(),
        cycles: 1,
        knobs: vec![],
    };
    let list = JobList::new(&plan, Some("1/100000000".parse().unwrap())).unwrap();
    assert_eq!(list.plan_total(), 60_000_000_000);
    assert_eq!(list.len(), 600);
    let jobs: Vec<Job> = list.iter().collect();
    assert_eq!(jobs[0].name(), "ta.gfx9.1");
    assert_eq!(jobs[1].name(), "ta.gfx9.100000001");
    assert_eq!(jobs[599].unit, "waitcnt");
    // The last shard of an uneven split.
    let small = toy_plan("1..10");
    assert_eq!(
        JobList::new(&small, Some("3/4".parse().unwrap()))
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        JobList::new(&small, Some("4/4".parse().unwrap()))
            .unwrap()
            .len(),
        2
    );
    let seeds = Seeds {
        first: 0,
        last: u64::MAX,
    };
    let too_many = Plan {
        seeds,
        ..plan.clone()
    };
    assert!(JobList::new(&too_many, None).is_err());
}

/// `JobList::groups` splits a list (whole or a shard) into the runs of
/// jobs that share unit, profile and kernel, covering it in order: checked
/// against the jobs themselves for plans with kernels, odd seed counts and
/// shards that leave some groups empty.
#[test]
fn a_job_list_splits_into_runs_of_one_unit_profile_and_kernel() {
    let kernel = |name: &str, unit: &str| regress::KernelRef {
        file: "/k.s".into(),
        name: name.into(),
        profile: Profile::Gfx11,
        launch: None,
        unit: unit.into(),
    };
    for seeds in ["1..1", "1..2", "3..9", "1..32"] {
        let plan = Plan {
            units: vec!["ta".into(), "lds".into(), "waitcnt".into()],
            profiles: Profile::all().collect(),
            kernels: vec![kernel("a", "waitcnt"), kernel("a", "lds")],
            ..toy_plan(seeds)
        };
        for shard in [
            None,
            Some((1, 1)),
            Some((1, 4)),
            Some((3, 4)),
            Some((7, 7)),
            Some((5, 40)),
        ] {
            let shard = shard.map(|(k, n)| Shard { k, n });
            let list = JobList::new(&plan, shard).unwrap();
            let jobs: Vec<Job> = list.iter().collect();
            let key = |j: &Job| {
                (
                    j.unit.clone(),
                    j.profile,
                    j.kernel.as_ref().map(|k| k.unit.clone()),
                )
            };
            let mut expected: Vec<std::ops::Range<u64>> = Vec::new();
            for (i, j) in jobs.iter().enumerate() {
                match expected.last_mut() {
                    Some(r) if key(&jobs[r.start as usize]) == key(j) => r.end = i as u64 + 1,
                    _ => expected.push(i as u64..i as u64 + 1),
                }
            }
            assert_eq!(list.groups(), expected, "seeds {seeds}, shard {shard:?}");
        }
    }
}

#[test]
fn bad_shard_and_seed_specs_are_rejected_clearly() {
    for bad in ["0/3", "4/3", "1/0", "a/b", "3", "1/2/3", ""] {
        let e = bad.parse::<Shard>().unwrap_err();
        assert!(e.contains("bad shard"), "{bad}: {e}");
    }
    for bad in ["0", "5..2", "x", "1..y"] {
        let e = bad.parse::<Seeds>().unwrap_err();
        assert!(e.contains("bad seed range"), "{bad}: {e}");
    }
    assert_eq!("4".parse::<Seeds>().unwrap(), Seeds { first: 1, last: 4 });
    // The message says what is wrong with a range that has the right shape.
    assert_eq!(
        "5..2".parse::<Seeds>().unwrap_err(),
        "bad seed range `5..2`: it starts after it ends (5 > 2)"
    );
    assert_eq!(
        "0".parse::<Seeds>().unwrap_err(),
        "bad seed range `0`: a count of no seeds"
    );
}

fn run_all(
    rtl: &Path,
    bundles: &Path,
    seeds: &str,
    shard: Option<Shard>,
    shrink: bool,
) -> ResultsFile {
    let plan = toy_plan(seeds);
    let list = JobList::new(&plan, shard).unwrap();
    let libs = regress::LibCache::default();
    let c = cfg(rtl, bundles, shrink);
    let stop = AtomicBool::new(false);
    let runner = |j: &Job, p: bool| regress::run_job::<ToyTestbench>(j, &c, &libs, p);
    let mut r = ResultsFile::new(&plan, shard);
    for j in regress::run_jobs(&list, 2, 2, &|_| None, &stop, &runner, &mut |_| {}) {
        r.add(j);
    }
    r
}

#[test]
fn merged_shards_equal_the_whole_run_and_junit_is_well_formed() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("40'd1", "40'd2")));
    let mut parts = Vec::new();
    for k in 1..=3 {
        let r = run_all(
            &rtl,
            &dir.path().join("b"),
            "1..6",
            Some(Shard { k, n: 3 }),
            false,
        );
        let path = dir.path().join(format!("shard{k}.json"));
        std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
        parts.push((path.clone(), ResultsFile::load(&path).unwrap()));
    }
    let (merged, problems) = ResultsFile::merge(parts.clone()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let whole = run_all(&rtl, &dir.path().join("b2"), "1..6", None, false);
    let names = |r: &ResultsFile| {
        r.jobs
            .iter()
            .map(|j| (j.job.name(), j.passed(), j.cycles))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&merged), names(&whole));
    assert_eq!(merged.coverage, whole.coverage);
    // This bug is gfx11-only: gfx9 passes.
    assert_eq!(merged.failures(), 0);
    assert_eq!(merged.exit_code(), 0);
    // A job in two inputs is an error.
    let dup = ResultsFile::merge(vec![parts[0].clone(), parts[0].clone()]).unwrap_err();
    assert!(dup.to_string().contains("appears in both"), "{dup}");

    let junit = merged.junit();
    let doc = roxmltree::Document::parse(&junit).expect("JUnit parses as XML");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 6);
    assert_eq!(cases[0].attribute("name"), Some("toy.gfx9.1"));
    assert_eq!(doc.root_element().attribute("tests"), Some("6"));
    assert_eq!(doc.root_element().attribute("skipped"), Some("0"));
}

/// One job of each status in one group, three passes in another, and two
/// jobs that never started: the JUnit report as docs/regress.md lays it out.
#[test]
fn junit_reports_every_status_with_its_counts_type_message_and_text() {
    let plan = Plan {
        profiles: vec![Profile::Gfx9, Profile::Gfx11],
        ..toy_plan("1..8")
    };
    let job = |profile, seed| Job {
        unit: "toy".into(),
        profile,
        seed,
        kernel: None,
        variant: None,
    };
    let mut r = ResultsFile::new(&plan, None);
    let mut add = |profile, seed, status, seconds: f64, message: &str| {
        let mut jr = regress::JobResult::new(&job(profile, seed));
        jr.status = status;
        jr.seconds = seconds;
        jr.message = message.into();
        if status != regress::Status::Passed && status != regress::Status::Interrupted {
            jr.report = format!("report of {seed} <&>\n\tRTL says\n");
            if status != regress::Status::Error {
                jr.reproduce = format!("gpucosim replay b/{seed}");
                jr.bundle = Some(format!("b/{seed}").into());
            }
        }
        r.add(jr)
    };
    use regress::Status::*;
    add(Profile::Gfx9, 1, Passed, 0.1234, "");
    add(
        Profile::Gfx9,
        2,
        Diverged,
        1.5,
        "diverged at cycle 3 on \"sum_o\" & <q_o>",
    );
    add(Profile::Gfx9, 3, RtlError, 0.75, "RTL ERROR at cycle 9");
    add(Profile::Gfx9, 4, Timeout, 1.0, "HANG at cycle 10");
    add(Profile::Gfx9, 5, Error, 1.25, "cannot load");
    add(
        Profile::Gfx9,
        6,
        Interrupted,
        0.3,
        "INTERRUPTED before cycle 12",
    );
    for seed in 1..=3 {
        add(Profile::Gfx11, seed, Passed, 0.001 * seed as f64, "");
    }
    r.jobs[4].lost = vec!["bundle b/5: disk full".into()];
    r.interrupted = true;
    let x = r.junit();
    let doc = roxmltree::Document::parse(&x).unwrap();
    fn counts<'a>(n: roxmltree::Node<'a, '_>) -> [&'a str; 5] {
        ["tests", "failures", "errors", "skipped", "time"].map(|a| n.attribute(a).unwrap())
    }
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("name"), Some("gpucosim"));
    assert_eq!(counts(root), ["16", "1", "3", "8", "4.929"], "{x}");
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    let names: Vec<_> = suites
        .iter()
        .map(|s| s.attribute("name").unwrap())
        .collect();
    assert_eq!(names, ["toy.gfx11", "toy.gfx9"]);
    assert_eq!(counts(suites[0]), ["8", "0", "0", "5", "0.006"]);
    assert_eq!(counts(suites[1]), ["8", "1", "3", "3", "4.923"]);
    let cases: Vec<_> = suites[1].children().filter(|n| n.is_element()).collect();
    let case = |seed: usize| {
        let c = cases[seed - 1];
        assert_eq!(c.attribute("classname"), Some("toy.gfx9"));
        assert_eq!(
            c.attribute("name"),
            Some(format!("toy.gfx9.{seed}").as_str())
        );
        let kids: Vec<_> = c.children().filter(|n| n.is_element()).collect();
        (c.attribute("time").unwrap(), kids.first().copied())
    };
    assert_eq!(case(1), ("0.123", None));
    for (seed, tag, ty, time) in [
        (2, "failure", "divergence", "1.500"),
        (3, "error", "rtl_error", "0.750"),
        (4, "error", "timeout", "1.000"),
        (5, "error", "error", "1.250"),
    ] {
        let (t, e) = case(seed);
        let e = e.unwrap();
        assert_eq!(
            (t, e.tag_name().name(), e.attribute("type")),
            (time, tag, Some(ty))
        );
        assert_eq!(
            e.attribute("message"),
            Some(r.jobs[seed - 1].message.as_str())
        );
        let text = e.text().unwrap();
        // The report (a tab kept as spaces), then bundle and reproduce.
        assert!(
            text.starts_with(&format!("report of {seed} <&>\n        RTL says\n")),
            "{text:?}"
        );
        if seed == 5 {
            assert!(
                text.ends_with("NOT WRITTEN: bundle b/5: disk full\n"),
                "{text:?}"
            );
        } else {
            assert!(
                text.ends_with(&format!(
                    "bundle: b/{seed}\nreproduce: gpucosim replay b/{seed}\n"
                )),
                "{text:?}"
            );
        }
    }
    for (seed, message, time) in [
        (6, "INTERRUPTED before cycle 12", "0.300"),
        (7, "not run: the regression was interrupted", "0.000"),
        (8, "not run: the regression was interrupted", "0.000"),
    ] {
        let (t, e) = case(seed);
        let e = e.unwrap();
        assert_eq!(
            (t, e.tag_name().name(), e.attribute("message")),
            (time, "skipped", Some(message))
        );
    }
}

#[test]
fn merge_refuses_missing_shards_interrupted_inputs_and_other_regressions() {
    let plan = toy_plan("1..6");
    let shard = |k| Some(Shard { k, n: 3 });
    let ran = |k| {
        let mut r = ResultsFile::new(&plan, shard(k));
        for j in JobList::new(&plan, shard(k)).unwrap().iter() {
            let mut jr = regress::JobResult::new(&j);
            jr.status = regress::Status::Passed;
            r.add(jr);
        }
        r
    };
    let p = |k: u32| std::path::PathBuf::from(format!("s{k}.json"));
    // Shard 2 of 3 is missing: its jobs are reported and listed as skipped.
    let (m, problems) = ResultsFile::merge(vec![(p(1), ran(1)), (p(3), ran(3))]).unwrap();
    assert_eq!(problems, vec!["shard 2/3 is missing".to_string()]);
    assert_eq!(m.missing_shards, vec![Shard { k: 2, n: 3 }]);
    assert_eq!(m.counts(), (4, 0, 2));
    let doc_text = m.junit();
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    let skipped: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("skipped"))
        .map(|n| n.attribute("message").unwrap().to_string())
        .collect();
    assert_eq!(skipped.len(), 2, "{doc_text}");
    assert!(skipped.iter().all(|s| s.contains("shard 2/3 is missing")));
    // An interrupted shard: its unrun jobs are skipped, and it is a problem.
    let mut half = ran(2);
    half.jobs.truncate(1);
    half.interrupted = true;
    let (m, problems) =
        ResultsFile::merge(vec![(p(1), ran(1)), (p(2), half), (p(3), ran(3))]).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("interrupted"), "{problems:?}");
    assert!(m.interrupted);
    assert_eq!(m.counts(), (5, 0, 1));
    // Shards of different regressions do not merge.
    let mut other = ran(2);
    other.plan.cycles = 3000;
    let e = ResultsFile::merge(vec![(p(1), ran(1)), (p(2), other)]).unwrap_err();
    assert!(e.to_string().contains("different regressions"), "{e}");
    // Nor shards of different counts.
    let mut four = ResultsFile::new(&plan, Some(Shard { k: 2, n: 4 }));
    four.jobs.clear();
    let e = ResultsFile::merge(vec![(p(1), ran(1)), (p(2), four)]).unwrap_err();
    assert!(e.to_string().contains("sharded differently"), "{e}");
}

#[test]
fn an_interrupted_run_lists_its_unrun_jobs_as_skipped() {
    let plan = toy_plan("1..5");
    let mut r = ResultsFile::new(&plan, None);
    for seed in [1, 2] {
        let mut jr = regress::JobResult::new(&Job {
            unit: "toy".into(),
            profile: Profile::Gfx9,
            seed,
            kernel: None,
            variant: None,
        });
        jr.status = regress::Status::Passed;
        r.add(jr);
    }
    let mut stopped = regress::JobResult::new(&Job {
        unit: "toy".into(),
        profile: Profile::Gfx9,
        seed: 3,
        kernel: None,
        variant: None,
    });
    stopped.status = regress::Status::Interrupted;
    stopped.message = "INTERRUPTED before cycle 12: stopped by SIGTERM".into();
    r.add(stopped);
    r.interrupted = true;
    let x = r.junit();
    let doc = roxmltree::Document::parse(&x).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("tests"), Some("5"), "{x}");
    assert_eq!(root.attribute("skipped"), Some("3"), "{x}");
    assert_eq!(root.attribute("failures"), Some("0"), "{x}");
    let skipped: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("skipped"))
        .filter_map(|n| n.attribute("message"))
        .collect();
    assert!(skipped.contains(&"INTERRUPTED before cycle 12: stopped by SIGTERM"));
    assert_eq!(
        skipped
            .iter()
            .filter(|m| m.contains("not run: the regression was interrupted"))
            .count(),
        2
    );
    // The results file says so, and survives a round trip.
    let back: ResultsFile = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert!(back.interrupted);
    assert_eq!(back.counts(), (2, 1, 2));
}

#[test]
fn failures_get_bundles_that_replay_exactly_and_shrink() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("i < 4", "i < 3")));
    let bundles = dir.path().join("bundles");
    let r = run_all(&rtl, &bundles, "7..8", None, true);
    assert_eq!(r.failures(), 2);
    assert_eq!(r.exit_code(), 1);
    let j = &r.jobs[0];
    let bundle = j.bundle.as_ref().unwrap();
    assert!(bundle.join("repro.json").is_file());
    assert!(bundle.join("report.txt").is_file());
    assert!(bundle.join("toy.gfx9.7.vcd").is_file());
    assert!(j.reproduce.starts_with("gpucosim replay "));
    // The bundle's own report and waveform header point at the bundle.
    let report = std::fs::read_to_string(bundle.join("report.txt")).unwrap();
    assert!(
        report.contains(&format!("reproduce: gpucosim replay {}", bundle.display())),
        "{report}"
    );
    assert!(
        report.contains(&bundle.join("toy.gfx9.7.vcd").display().to_string()),
        "{report}"
    );
    let vcd = Vcd::read(&bundle.join("toy.gfx9.7.vcd"));
    let replay = format!("reproduce: gpucosim replay {}", bundle.display());
    assert!(
        vcd.comments().iter().any(|c| c.contains(&replay)),
        "VCD header does not name the bundle: {:?}",
        vcd.comments()
    );
    let junit = r.junit();
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(failure
        .text()
        .unwrap()
        .contains("reproduce: gpucosim replay"));

    // The bundle names its seed and count, not the transactions.
    let repro = Repro::load(bundle).unwrap();
    assert!(repro.transactions.is_none());
    assert!(repro.transaction_count > 0);
    // Replay reproduces the recorded divergence.
    let libs = regress::LibCache::default();
    let (lib, _) = libs.get::<ToyTestbench>(&rtl, Profile::Gfx9).unwrap();
    let out = regress::replay::<ToyTestbench>(
        &repro,
        &lib,
        repro.stimulus::<ToyTestbench>().unwrap(),
        None,
    )
    .unwrap();
    let m = &out.mismatches[0];
    assert_eq!(Some((m.cycle, m.signal.clone())), repro.first_mismatch);
    assert!(repro.same_failure(&out));

    // Shrinking reached a single transaction that still diverges, and the
    // shrunk bundle reproduces as itself.
    let shrunk_dir = j.shrunk.as_ref().unwrap();
    let shrunk = Repro::load(shrunk_dir).unwrap();
    assert_eq!(
        shrunk.transactions.as_ref().unwrap().len(),
        1,
        "{}",
        j.report
    );
    let out = regress::replay::<ToyTestbench>(
        &shrunk,
        &lib,
        shrunk.stimulus::<ToyTestbench>().unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(out.mismatches[0].signal, "sum_o");
    let sreport = std::fs::read_to_string(shrunk_dir.join("report.txt")).unwrap();
    assert!(
        sreport.contains(&format!(
            "reproduce: gpucosim replay {}",
            shrunk_dir.display()
        )),
        "{sreport}"
    );
    let svcd = Vcd::read(&shrunk_dir.join("toy.gfx9.7.vcd"));
    let replay = format!("reproduce: gpucosim replay {}", shrunk_dir.display());
    assert!(
        svcd.comments().iter().any(|c| c.contains(&replay)),
        "the shrunk VCD names another bundle or a temporary directory: {:?}",
        svcd.comments()
    );
    let root = std::env::temp_dir().display().to_string();
    let header = [&svcd.header.date, &svcd.header.version]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .chain(svcd.comments())
        .collect::<Vec<_>>()
        .join("\n");
    for (i, _) in header.match_indices(&root) {
        assert!(
            header[i..].starts_with(&shrunk_dir.display().to_string()),
            "the shrunk VCD names a path outside its bundle:\n{header}"
        );
    }

    // The RTL changes: replay refuses unless forced.
    let top = rtl.join("toy/toy_top.sv");
    let mut s = std::fs::read_to_string(&top).unwrap();
    s.push_str("// changed\n");
    std::fs::write(&top, s).unwrap();
    let e = regress::check_rtl_hash::<ToyTestbench>(&repro, &rtl, false).unwrap_err();
    assert!(
        e.to_string()
            .contains("has changed since the bundle was written"),
        "{e}"
    );
    assert!(regress::check_rtl_hash::<ToyTestbench>(&repro, &rtl, true).is_ok());
}

#[test]
fn corrupt_or_missing_bundles_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = Repro::load(&dir.path().join("nope")).unwrap_err();
    assert!(e.to_string().contains("cannot read repro bundle"), "{e}");
    std::fs::write(dir.path().join("repro.json"), "{\"format\": 1, \"unit\": ").unwrap();
    let e = Repro::load(dir.path()).unwrap_err();
    assert!(
        e.to_string().contains("is not a valid gpucosim repro file"),
        "{e}"
    );
    let e = ResultsFile::load(&dir.path().join("repro.json")).unwrap_err();
    assert!(
        e.to_string().contains("is not a gpucosim results file"),
        "{e}"
    );
    std::fs::write(
        dir.path().join("old.json"),
        "{\"format\": 1, \"plan\": {}, \"jobs\": []}",
    )
    .unwrap();
    let e = ResultsFile::load(&dir.path().join("old.json")).unwrap_err();
    assert!(e.to_string().contains("results format 1"), "{e}");
    // Another of gpucosim's files, with a format of its own, is named as
    // not a results file.
    std::fs::write(
        dir.path().join("times.json"),
        "{\"format\": 1, \"groups\": {}}",
    )
    .unwrap();
    let e = ResultsFile::load(&dir.path().join("times.json")).unwrap_err();
    assert!(
        e.to_string().contains("is not a gpucosim results file"),
        "{e}"
    );
    // Stimulus versions: a bundle without one was recorded under version
    // 1, others replay the version they name; one this build does not
    // generate is refused, naming it, unless it lists its transactions.
    let repro = |extra: &str| {
        format!(
            "{{\"format\": 2, \"unit\": \"ta\", \"profile\": \"gfx9\", \"seed\": 3, \"cycles\": 1000, \"knobs\": [], \"rtl_dir\": \"/r\", \"rtl_hash\": \"ab12\", \"first_mismatch\": null, \"transaction_count\": 200{extra}}}"
        )
    };
    let b = dir.path().join("b");
    std::fs::create_dir(&b).unwrap();
    std::fs::write(b.join("repro.json"), repro("")).unwrap();
    let v1 = Repro::load(&b).unwrap();
    assert_eq!(v1.stimulus, 1);
    assert_eq!(v1.spec(None).stimulus, 1);
    // Its transactions are version 1's, which differ from the current ones.
    use gpucosim::units::ta::TaTestbench;
    let txns = |v: u32| {
        let t = gpucosim::engine::fresh_txns::<TaTestbench>(v, Profile::Gfx9, 3, &[], 200).unwrap();
        serde_json::to_string(&t).unwrap()
    };
    let json = |r: &Repro| serde_json::to_string(&r.txns::<TaTestbench>().unwrap()).unwrap();
    assert_eq!(json(&v1), txns(1));
    std::fs::write(b.join("repro.json"), repro(", \"stimulus\": 2")).unwrap();
    let v2 = Repro::load(&b).unwrap();
    assert_eq!(json(&v2), txns(2));
    assert_ne!(txns(1), txns(2));
    std::fs::write(b.join("repro.json"), repro(", \"stimulus\": 3")).unwrap();
    let v3 = Repro::load(&b).unwrap();
    assert_eq!(json(&v3), txns(3));
    assert_ne!(txns(2), txns(3));
    std::fs::write(b.join("repro.json"), repro(", \"stimulus\": 99")).unwrap();
    let e = Repro::load(&b).unwrap_err().to_string();
    assert!(
        e.contains("stimulus version 99") && e.contains("repro.json"),
        "{e}"
    );
    std::fs::write(
        b.join("repro.json"),
        repro(", \"stimulus\": 99, \"transactions\": []"),
    )
    .unwrap();
    assert_eq!(Repro::load(&b).unwrap().transaction_count, 0);
    // What no run writes is refused, naming the file and the problem.
    for (extra, why) in [
        (", \"stimulus\": 3, \"sead\": 4", "unknown field `sead`"),
        (", \"label\": \"../../x\"", "cannot be part of a file name"),
        (", \"label\": \"\"", "cannot be part of a file name"),
        (", \"end_cycle\": 1001", "cycle 1001, past the run's 1000"),
    ] {
        std::fs::write(b.join("repro.json"), repro(extra)).unwrap();
        let e = Repro::load(&b).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("repro.json"), "{extra}: {e}");
    }
    let text = repro("").replace(
        "\"transaction_count\": 200",
        "\"transaction_count\": 999999999",
    );
    std::fs::write(b.join("repro.json"), text).unwrap();
    let e = Repro::load(&b).unwrap_err().to_string();
    assert!(
        e.contains("999999999 is more than a run of 1000 cycles"),
        "{e}"
    );
    let text = repro("").replace("ab12", "h\u{e9}llo");
    std::fs::write(b.join("repro.json"), text).unwrap();
    let e = Repro::load(&b).unwrap_err().to_string();
    assert!(e.contains("is not a hash"), "{e}");
}

/// The promise of stopping: once a worker sees the flag, it starts no job;
/// every job that finished is returned. The runner itself sets the flag,
/// so nothing here depends on timing.
#[test]
fn stopping_starts_no_new_job_and_keeps_every_finished_one() {
    let plan = toy_plan("1..40");
    let list = JobList::new(&plan, None).unwrap();
    let passed = |j: &Job| {
        let mut r = regress::JobResult::new(j);
        r.status = regress::Status::Passed;
        r
    };
    // One worker: job 5 sets the flag, so exactly jobs 1..5 ran.
    let stop = AtomicBool::new(false);
    let runner = |j: &Job, _: bool| {
        if j.seed == 5 {
            stop.store(true, Ordering::SeqCst);
        }
        passed(j)
    };
    let done = regress::run_jobs(&list, 1, 1, &|_| None, &stop, &runner, &mut |_| {});
    let seeds: Vec<u64> = done.iter().map(|r| r.job.seed).collect();
    assert_eq!(seeds, (1..=5).collect::<Vec<_>>());
    // Several workers: job 1 sets the flag and every other job returns only
    // once it is set, so no worker can come back for a job past the first
    // `threads`; each job that started is kept.
    for threads in [2, 4] {
        let stop = AtomicBool::new(false);
        let started = Mutex::new(BTreeSet::new());
        let runner = |j: &Job, _: bool| {
            started.lock().unwrap().insert(j.seed);
            if j.seed == 1 {
                stop.store(true, Ordering::SeqCst);
            } else {
                let t0 = std::time::Instant::now();
                while !stop.load(Ordering::SeqCst) {
                    assert!(t0.elapsed().as_secs() < 60, "job 1 never ran");
                    std::thread::yield_now();
                }
            }
            passed(j)
        };
        let done = regress::run_jobs(
            &list,
            threads,
            threads,
            &|_| None,
            &stop,
            &runner,
            &mut |_| {},
        );
        let started = started.into_inner().unwrap();
        let finished: BTreeSet<u64> = done.iter().map(|r| r.job.seed).collect();
        assert_eq!(
            started, finished,
            "{threads} workers: a finished job was lost"
        );
        assert!(finished.contains(&1));
        assert!(
            finished.iter().all(|&s| s <= threads as u64),
            "{threads} workers: a job started after the stop: {finished:?}"
        );
    }
}

/// More workers than jobs (`--jobs` is not bounded by the plan) start a
/// thread for each job at most, not one for each worker named, and every
/// job runs once.
#[test]
fn workers_beyond_the_jobs_start_no_thread() {
    let list = JobList::new(&toy_plan("1..6"), None).unwrap();
    let threads = Mutex::new(BTreeSet::new());
    let runner = |j: &Job, _: bool| {
        threads
            .lock()
            .unwrap()
            .insert(format!("{:?}", std::thread::current().id()));
        let mut r = regress::JobResult::new(j);
        r.status = regress::Status::Passed;
        r
    };
    let stop = AtomicBool::new(false);
    let done = regress::run_jobs(&list, usize::MAX, 2, &|_| None, &stop, &runner, &mut |_| {});
    let seeds: Vec<u64> = done.iter().map(|r| r.job.seed).collect();
    assert_eq!(seeds, (1..=6).collect::<Vec<_>>());
    assert!(threads.into_inner().unwrap().len() <= 6);
}

/// Jobs that run pipelined on the CPUs of workers without a job end as
/// they do on one CPU: the same status, cycles, transactions, first
/// divergence and coverage, the diverging ones (a gfx11-only bug) too.
#[test]
fn jobs_on_lent_cpus_end_as_on_one() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("40'd1", "40'd2")));
    let plan = Plan {
        profiles: vec![Profile::Gfx9, Profile::Gfx11],
        ..toy_plan("1..2")
    };
    let list = JobList::new(&plan, None).unwrap();
    let libs = regress::LibCache::default();
    let run = |cpus: usize, bundles: &str| {
        let c = cfg(&rtl, &dir.path().join(bundles), false);
        let modes = Mutex::new(Vec::new());
        let runner = |j: &Job, p: bool| {
            modes.lock().unwrap().push(p);
            regress::run_job::<ToyTestbench>(j, &c, &libs, p)
        };
        let stop = AtomicBool::new(false);
        let done = regress::run_jobs(&list, 8, cpus, &|_| None, &stop, &runner, &mut |_| {});
        let ends: Vec<_> = done
            .iter()
            .map(|r| {
                (
                    r.job.name(),
                    r.status,
                    r.cycles,
                    r.transactions,
                    r.first_mismatch.clone(),
                    r.coverage.clone(),
                )
            })
            .collect();
        // The modes the jobs were given are the ones they ran in.
        let mut given = modes.into_inner().unwrap();
        let mut ran: Vec<bool> = done.iter().map(|r| r.pipelined).collect();
        given.sort();
        ran.sort();
        assert_eq!(given, ran);
        (ends, given)
    };
    let (one, modes) = run(0, "one");
    assert_eq!(modes, [false; 4]);
    // Four jobs, eight workers: each job on two CPUs.
    let (two, modes) = run(8, "two");
    assert_eq!(modes, [true; 4]);
    assert_eq!(one, two);
    assert_eq!(
        one.iter()
            .filter(|e| e.1 == regress::Status::Diverged)
            .count(),
        2,
        "{one:?}"
    );
}

/// A results file edited or cut short is refused when it is read, naming
/// what cannot be, rather than merged or reported as complete; one that a
/// regression wrote reads back.
#[test]
fn results_that_no_regression_writes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let plan = toy_plan("1..6");
    let shard = Shard { k: 2, n: 3 };
    let mut good = ResultsFile::new(&plan, Some(shard));
    for j in JobList::new(&plan, Some(shard)).unwrap().iter() {
        let mut r = regress::JobResult::new(&j);
        r.status = regress::Status::Passed;
        r.seconds = 0.5;
        good.add(r);
    }
    let path = dir.path().join("r.json");
    let read = |r: &ResultsFile| {
        std::fs::write(&path, serde_json::to_string(r).unwrap()).unwrap();
        ResultsFile::load(&path).map(|_| ())
    };
    read(&good).unwrap();
    let refused = |edit: &dyn Fn(&mut ResultsFile), why: &str| {
        let mut r = good.clone();
        edit(&mut r);
        let e = read(&r).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("r.json"), "{why}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    };
    refused(&|r| r.jobs.clear(), "holds 0 of its 2 jobs");
    refused(&|r| r.jobs[0].job.seed = 99, "toy.gfx9.99 is not one of");
    refused(&|r| r.jobs[0].job.unit = "other".into(), "not one of");
    refused(&|r| r.jobs[0].job.seed = 1, "belongs to shard 1/3");
    refused(
        &|r| {
            let j = r.jobs[0].clone();
            r.jobs.push(j)
        },
        "listed twice",
    );
    refused(&|r| r.jobs[0].seconds = -1.0, "took -1 seconds");
    refused(&|r| r.shards[0].k = 4, "shard 4/3 is not one of 3 shards");
    refused(&|r| r.missing_shards.push(shard), "listed twice");
    refused(
        &|r| r.jobs[0].status = regress::Status::Interrupted,
        "not marked interrupted",
    );
    refused(
        &|r| r.plan.units.push("toy".into()),
        "names unit `toy` twice",
    );
    refused(&|r| r.plan.stimulus = 99, "stimulus version 99");
    refused(
        &|r| {
            r.coverage.insert("toy.gfx11".into(), Default::default());
        },
        "coverage of `toy.gfx11`, which no job",
    );
    // A launched kernel is a job on each unit its traffic reaches: the same
    // kernel on two units is two jobs, the same on one unit twice is not.
    let kernel = |unit: &str| regress::KernelRef {
        file: "/k/dynlocal.gfx900.s".into(),
        name: "dynlocal".into(),
        profile: Profile::Gfx9,
        launch: Some("/k/dynlocal.launch.json".into()),
        unit: unit.into(),
    };
    let launched = Plan {
        kernels: vec![kernel("lds"), kernel("ta")],
        ..toy_plan("1..2")
    };
    let mut r = ResultsFile::new(&launched, None);
    for j in JobList::new(&launched, None).unwrap().iter() {
        r.add(regress::JobResult::new(&j));
    }
    r.check().unwrap();
    r.plan.kernels[1].unit = "lds".into();
    let e = r.check().unwrap_err();
    assert!(
        e.contains("names kernel `dynlocal` (") && e.contains("on lds.gfx9 twice"),
        "{e}"
    );
    // An interrupted run may hold fewer jobs.
    let mut cut = good.clone();
    cut.jobs.truncate(1);
    cut.interrupted = true;
    read(&cut).unwrap();
    // A field no gpucosim writes.
    let mut v = serde_json::to_value(&good).unwrap();
    v["jobs"][0]["job"]["sead"] = 3.into();
    std::fs::write(&path, v.to_string()).unwrap();
    let e = ResultsFile::load(&path).unwrap_err().to_string();
    assert!(e.contains("unknown field `sead`"), "{e}");

    // The bins are the units': each group holds exactly its unit's.
    let real = Plan {
        units: vec!["waitcnt".into()],
        ..toy_plan("1..2")
    };
    let mut r = ResultsFile::new(&real, None);
    for j in JobList::new(&real, None).unwrap().iter() {
        let mut jr = regress::JobResult::new(&j);
        jr.status = regress::Status::Passed;
        jr.coverage = regress::unit_bins("waitcnt", Profile::Gfx9)
            .unwrap()
            .into_iter()
            .map(|b| (b.to_string(), 1))
            .collect();
        r.add(jr);
    }
    r.check().unwrap();
    r.check_bins(regress::unit_bins).unwrap();
    let mut extra = r.clone();
    let g = extra.coverage.get_mut("waitcnt.gfx9").unwrap();
    g.bins.insert("no_such_bin".into(), 1);
    let e = extra.check_bins(regress::unit_bins).unwrap_err();
    assert!(
        e.contains("bin `no_such_bin`, which waitcnt does not have"),
        "{e}"
    );
    let mut lacking = r.clone();
    let g = lacking.coverage.get_mut("waitcnt.gfx9").unwrap();
    let first = g.bins.keys().next().unwrap().clone();
    g.bins.remove(&first);
    let e = lacking.check_bins(regress::unit_bins).unwrap_err();
    assert!(e.contains(&format!("lacks bin `{first}`")), "{e}");
    let e = good.check_bins(regress::unit_bins).unwrap_err();
    assert!(
        e.contains("unit `toy`, which this gpucosim does not have"),
        "{e}"
    );
}
