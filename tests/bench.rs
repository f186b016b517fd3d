//! The benchmark machinery on the toy unit: the bare Verilated loop and the
//! shim see the same bits (equal checksums), the recorded inputs follow the
//! engine's reset sequence, and bad requests are clean input errors.

use gpucosim::benchmark::{self, BenchSpec};
use gpucosim::error::Error;
use gpucosim_model::Profile;
use gpucosim_tests::{toy_ports, toy_rtl, ToyTestbench};
use std::path::Path;

fn spec(rtl: &Path, work: &Path, cycles: u64) -> BenchSpec {
    BenchSpec {
        cycles,
        seed: 3,
        repeats: 1,
        rtl_root: rtl.to_path_buf(),
        work_dir: work.to_path_buf(),
    }
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn bare_loop_and_shim_checksums_agree_on_both_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), None);
    for profile in Profile::all() {
        let s = spec(&rtl, &dir.path().join("work"), 3000);
        let f = benchmark::bench_unit::<ToyTestbench>(&s, profile).unwrap();
        let (bare, shim, model) = f.checksums;
        // Fails if the shim and the bare loop move different bits.
        assert_eq!(bare, shim, "{profile}");
        // Model and RTL agree on the toy, so the model folds the same outputs.
        assert_eq!(model, bare, "{profile}");
        assert!(f.agreed);
        assert_eq!(f.lockstep_cycles, 3000);
        for r in [
            f.bare,
            f.shim,
            f.model,
            f.lockstep,
            f.pipelined,
            f.producer,
            f.driver,
        ] {
            assert!(r.is_finite() && r > 0.0, "{f:?}");
        }
        let ceiling = f.one_thread_ceiling();
        assert!(ceiling.is_finite() && ceiling > 0.0, "{f:?}");
        // The toy's model costs next to nothing, so (6) and (7) are timed
        // alike and either may come out ahead: only the arithmetic is held.
        let free = f.free_model_ceiling();
        assert!(free.is_finite() && free > 0.0, "{f:?}");
        let mut cheaper = f.clone();
        cheaper.driver = f.producer * 2.0;
        // Without the model a cycle costs less, so the ceiling is higher.
        assert!(cheaper.free_model_ceiling() > ceiling, "{f:?}");
        cheaper.driver = f.producer;
        assert!((cheaper.free_model_ceiling() - ceiling).abs() < 1e-9 * ceiling);
        assert!(f.vcd_bytes > 0 && f.vcd_ms > 0.0);
        // Whole-run waveforms of the same run, in both formats.
        let d = &f.dump;
        assert_eq!(d.cycles, 3000);
        assert!(d.none_ms > 0.0 && d.vcd_ms > 0.0 && d.fst_ms > 0.0, "{d:?}");
        assert!(0 < d.fst_bytes && d.fst_bytes < d.vcd_bytes, "{d:?}");
        // Every figure has its rounds, the load during them, and extra
        // rounds only while its best rounds disagreed.
        for r in &f.rounds {
            assert_eq!(r.secs.len(), s.repeats + r.extra, "{r:?}");
            assert!(r.extra <= benchmark::EXTRA_ROUNDS);
            assert!(r.extra == 0 || r.first_spread > benchmark::SPREAD, "{r:?}");
            let load = r.load().expect("/proc/stat");
            assert!(load.is_finite() && load >= 0.0, "{r:?}");
        }
        assert!(f.max_load().is_some() && d.load.is_some());
    }
}

#[test]
fn rounds_keep_the_best_and_measure_their_spread() {
    let mut r = benchmark::Rounds::new(3);
    for ms in [100, 150, 100] {
        r.measure(|| Ok(std::time::Duration::from_millis(ms)))
            .unwrap();
    }
    assert!((r.spread() - 0.5).abs() < 1e-9, "{r:?}");
    assert!(r.spread() > benchmark::SPREAD);
    // A fast extra round replaces the slow one among the best three.
    r.measure(|| Ok(std::time::Duration::from_millis(105)))
        .unwrap();
    assert!((r.spread() - 0.05).abs() < 1e-9, "{r:?}");
    assert_eq!(r.best(), std::time::Duration::from_millis(100));
    // A failing round is an error, not a figure.
    assert!(r.measure(|| Err(Error::Env("no".into()))).is_err());
    assert_eq!(r.secs.len(), 4);
    // Sleeping takes no CPU: the load is what other processes took.
    let mut idle = benchmark::Rounds::new(1);
    idle.measure(|| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        Ok(std::time::Duration::from_millis(50))
    })
    .unwrap();
    assert!(idle.load().is_some_and(|l| (0.0..=64.0).contains(&l)));
}

/// A row of figures as `bench_unit` makes one, its rounds measured and
/// agreeing (rates in cycles per second): what the report is made of,
/// without the builds and runs of a real row (the heavy tests above, in
/// the full suite, make real ones).
fn synthetic_row(unit: &str, profile: Profile) -> benchmark::UnitFigures {
    let cycles = 3000;
    // Figures (1)–(7) in that order: each round took cycles ÷ rate.
    let rates = [1.0e6, 1.05e6, 9.0e6, 0.8e6, 1.1e6, 8.0e6, 20.0e6];
    let rounds = rates.map(|r| {
        let mut k = benchmark::Rounds::new(3);
        let t = cycles as f64 / r;
        k.secs = vec![t, t * 1.01, t * 1.02];
        k.other_cpu = Some(0.01);
        k.wall = 3.1 * t;
        k
    });
    benchmark::UnitFigures {
        unit: unit.into(),
        profile,
        cycles,
        words: (4, 3),
        bare: rates[0],
        shim: rates[1],
        model: rates[2],
        lockstep: rates[3],
        pipelined: rates[4],
        producer: rates[5],
        driver: rates[6],
        lockstep_cycles: cycles,
        agreed: true,
        checksums: (7, 7, 7),
        vcd_ms: 1.5,
        vcd_bytes: 40_000,
        dump: benchmark::DumpFigures {
            cycles,
            none_ms: 10.0,
            vcd_ms: 30.0,
            fst_ms: 15.0,
            vcd_bytes: 2_000_000,
            fst_bytes: 250_000,
            load: Some(0.02),
        },
        rounds,
        pinning: benchmark::Pinning::Cpus(1, 0),
    }
}

#[test]
fn the_report_shows_load_repeats_memory_and_cocotb() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec(dir.path(), &dir.path().join("work"), 3000);
    let mut f = synthetic_row("toy", Profile::Gfx9);
    // Rounds that still disagree after their extra rounds are named.
    f.rounds[3].secs = vec![1.0, 2.0, 1.5];
    f.rounds[3].repeats = 2;
    f.rounds[3].extra = 1;
    f.rounds[3].first_spread = 1.0;
    let report = benchmark::BenchReport {
        machine: benchmark::Machine::describe(),
        command: "gpucosim bench".into(),
        release: true,
        spec: s.clone(),
        rows: vec![f],
        starts: Vec::new(),
        regress: Ok(benchmark::Scaling {
            jobs: 192,
            cycles: 50_000,
            runs: vec![
                benchmark::ScalingRun {
                    workers: 1,
                    wall: std::time::Duration::from_secs(10),
                    rate: 960_000.0,
                    loops: 9.5,
                    cpu: Ok(1.0),
                },
                benchmark::ScalingRun {
                    workers: 2,
                    wall: std::time::Duration::from_millis(5500),
                    rate: 1_745_455.0,
                    loops: 10.0,
                    cpu: Ok(0.97),
                },
            ],
            per_job: std::time::Duration::from_millis(3),
        }),
        load_after: benchmark::load_average(),
        mutate: None,
        rss: Ok(vec![benchmark::RssFigures {
            unit: "toy".into(),
            profile: Profile::Gfx9,
            short: (1000, 10.0, 0.1),
            long: (10_000, 15.0, 1.0),
        }]),
        cocotb: Some(vec![benchmark::CocotbFigures {
            unit: "toy".into(),
            profile: Profile::Gfx9,
            cycles: 3000,
            with_model: Err("run.py failed: no cocotb".into()),
            without_model: Ok(12_000.0),
        }]),
    };
    let md = report.markdown();
    for want in [
        "## Load and agreement of the rounds",
        "(4) lock-step: best 2 rounds 100 % apart, 1 more round → 50 % apart: STILL DISAGREE",
        "## Peak memory",
        "| +5.0 MB | NO |",
        "peak RSS 10.0 MB after 1000 cycles, 15.0 MB after 10000 (+5.0 MB; target ≤ +2 MB, flat in run length): NOT MET",
        "## cocotb",
        "| toy | gfx9 | 3000 | 12.0 k | failed | – |",
        "## Regression scaling",
        "| 1 | 10.00 s | 960.0 k | 1.00× | 100 % | 1.00 | 95 % | 1.00 |",
        "| 2 | 5.50 s | 1.75 M | 1.82× | 91 % | 0.95 | 91 % | 0.97 |",
        "(192 jobs;",
        "A job costs 3.0 ms besides its cycles",
        "- `regress --jobs 2` ÷ `--jobs 1`: 1.82×, 91 % of linear on 192 jobs (target ≥ 90 % up to the machine's CPUs): met; \
         with 2 workers the jobs' cycle loops ran at 0.95 of their speed with one and an integer loop on each CPU at 0.97 of its speed alone, \
         and the workers spent 91 % of the wall time in cycle loops (95 % with one)",
        "- a regression job's overhead: 3.0 ms, 5.8 % of a job of 50000 cycles (target ≤ 5 %): NOT MET",
        "- toy gfx9 with the model: run.py failed: no cocotb",
        " on one thread (target ≥ 0.9): ",
        " pipelined (target ≥ 1.0): ",
        " CPU |",
        "toy gfx9 (1)–(4), (6) and (7) on CPU ",
        "## Where a cycle on one thread goes",
        "| (4) − (2) − (6): the engine |",
        "| (6) − (7): the model |",
        "| with a model at no cost: (1) ÷ ((2) + (7)) |",
        "(6) driver + model | (7) driver |",
    ] {
        assert!(md.contains(want), "no `{want}` in:\n{md}");
    }
}

#[test]
fn a_row_whose_lock_step_beats_its_own_ceiling_is_named_unreliable() {
    let dir = tempfile::tempdir().unwrap();
    let report = |lockstep: f64| {
        let mut f = synthetic_row("toy", Profile::Gfx9);
        f.lockstep = lockstep;
        benchmark::BenchReport {
            machine: benchmark::Machine::describe(),
            command: "gpucosim bench".into(),
            release: true,
            spec: spec(dir.path(), &dir.path().join("work"), 3000),
            rows: vec![f],
            starts: Vec::new(),
            regress: Err("not run".into()),
            load_after: String::new(),
            mutate: None,
            rss: Err("not run".into()),
            cocotb: None,
        }
    };
    // The synthetic row leaves lock-step at most 0.93 of the bare loop:
    // (1) 1.0 M, (2) 1.05 M and (6) 8.0 M cycles/s.
    let ceiling = synthetic_row("toy", Profile::Gfx9).one_thread_ceiling();
    assert!((ceiling - 0.9282).abs() < 1e-3, "{ceiling}");
    let named = "toy gfx9: lock-step on one thread ran at";
    // Below its ceiling, and a little above it (what the shim's call and
    // checksum in (2) can account for): nothing said.
    for lockstep in [0.8e6, 0.95e6] {
        let r = report(lockstep);
        assert!(!r.rows[0].beats_its_ceiling(), "{lockstep}");
        let t = r.targets();
        assert!(!t.contains(named), "{lockstep}: {t}");
    }
    // Faster than the RTL alone and the model's side leave possible.
    let r = report(1.17e6);
    assert!(r.rows[0].beats_its_ceiling());
    let t = r.targets();
    assert!(
        t.contains(
            "- toy gfx9: lock-step on one thread ran at 1.17 of the bare loop, 26 % above the 0.93 that \
             the RTL through the shim (2) and driver, stimulus and model (6), measured apart, leave it: \
             the row's figures contradict each other"
        ),
        "{t}"
    );
    assert!(t.contains("its ratios are unreliable"), "{t}");
    // The verdict on the target itself stays as measured.
    assert!(
        t.contains("lock-step ÷ bare 1.17 on one thread (target ≥ 0.9): met"),
        "{t}"
    );
}

#[test]
fn scaling_splits_into_cycle_loop_speed_and_busy_workers() {
    let run = |workers, ms, loops| benchmark::ScalingRun {
        workers,
        wall: std::time::Duration::from_millis(ms),
        rate: 9.6e9 / ms as f64,
        loops,
        cpu: Err("1 CPU(s) allowed".into()),
    };
    let sc = benchmark::Scaling {
        jobs: 192,
        cycles: 50_000,
        runs: vec![run(1, 10_000, 9.5), run(4, 3_000, 11.0)],
        per_job: std::time::Duration::from_millis(1),
    };
    let (j, e) = sc.efficiency().unwrap();
    assert_eq!(j, 4);
    let split = sc.loop_speed(4).unwrap() * sc.busy(4).unwrap() / sc.busy(1).unwrap();
    assert!((e - split).abs() < 1e-9, "{e} vs {split}");
    assert!((sc.loop_speed(4).unwrap() - 9.5 / 11.0).abs() < 1e-9);
    assert!((sc.busy(4).unwrap() - 11.0 / 12.0).abs() < 1e-9);
    // A CPU's speed with one thread busy is its own; with two, each CPU's
    // rate against its own alone: a finite ratio near 1 on an idle
    // machine, wide bounds for a busy test machine.
    assert_eq!(benchmark::cpu_speed(1), Ok(1.0));
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    match benchmark::cpu_speed(2) {
        Ok(two) => assert!(cpus >= 2 && (0.05..=4.0).contains(&two), "{two}"),
        Err(why) => assert!(cpus < 2 && why.contains("CPU(s) allowed"), "{why}"),
    }
    // One that could not be measured says why, in the table and the target.
    let md = sc.markdown();
    assert!(
        md.contains("| 92 % | not measured: 1 CPU(s) allowed |"),
        "{md}"
    );
}

#[test]
fn cocotb_needs_an_interpreter_with_cocotb() {
    // A missing interpreter is one line naming it.
    match benchmark::check_cocotb(Path::new("/nonexistent/python3")) {
        Err(e) => {
            let m = e.to_string();
            assert!(
                m.contains("/nonexistent/python3") && !m.contains('\n'),
                "{m}"
            );
        }
        Ok(()) => panic!("a missing interpreter passed"),
    }
    // With an interpreter that has cocotb and the package: tests/python.rs
    // (it installs the package first).
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn the_checksum_sees_every_output_bit() {
    // Lane 3 left out of the RTL's sum: bare loop and shim still agree with
    // each other, but no longer with the model.
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("i < 4", "i < 3")));
    let s = spec(&rtl, &dir.path().join("work"), 2000);
    let f = benchmark::bench_unit::<ToyTestbench>(&s, Profile::Gfx9).unwrap();
    assert_eq!(f.checksums.0, f.checksums.1);
    assert_ne!(f.checksums.0, f.checksums.2);
    assert!(!f.agreed);
    assert!(f.lockstep_cycles < 2000);
}

#[test]
fn recorded_inputs_follow_the_engine_reset_sequence() {
    let rec = gpucosim::engine::record_inputs::<ToyTestbench>(Profile::Gfx9, 3, 10).unwrap();
    let iw = toy_ports::TABLE.in_words();
    assert_eq!(rec.len(), 10 * iw);
    let cycles: Vec<&[u32]> = rec.chunks(iw).collect();
    for (c, inp) in cycles.iter().enumerate() {
        let rst = toy_ports::rst_ni.bit(inp);
        assert_eq!(rst, c as u64 >= gpucosim::engine::RESET_CYCLES, "cycle {c}");
    }
    // The directed transaction (all lanes ones) comes first after reset.
    assert_eq!(toy_ports::d_i.elem(cycles[2], 3), u32::MAX as u64);
    // Same seed, same stimulus.
    assert_eq!(
        rec,
        gpucosim::engine::record_inputs::<ToyTestbench>(Profile::Gfx9, 3, 10).unwrap()
    );
}

#[test]
fn bad_requests_are_one_line_input_errors() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), None);
    let mut s = spec(&rtl, dir.path(), 100);
    match benchmark::bench_unit::<ToyTestbench>(&s, Profile::Gfx9) {
        Err(Error::Input(m)) => assert!(m.contains("--cycles") && !m.contains('\n'), "{m}"),
        other => panic!("expected an input error, got {:?}", other.map(|_| ())),
    }
    s.cycles = 5000;
    s.repeats = 0;
    assert!(matches!(s.validate(), Err(Error::Input(m)) if m.contains("--repeats")));
    s.repeats = 1;
    s.rtl_root = dir.path().join("missing");
    assert!(matches!(
        benchmark::bench_unit::<ToyTestbench>(&s, Profile::Gfx9),
        Err(Error::Input(_))
    ));
    let r: gpucosim::error::Result<()> = gpucosim::with_testbench!("nope", B => Ok(()));
    match r {
        Err(Error::Input(m)) => assert!(m.contains("unknown unit `nope`") && !m.contains('\n')),
        other => panic!("{other:?}"),
    }
}

/// The toy unit's figures, for comparing build flags before the real units
/// are registered: `GPUCOSIM_TOY_CYCLES=2000000 cargo test --release
/// --workspace -- bench::toy_figures --ignored --nocapture` (the full
/// suite runs it with 200,000 cycles, enough to check that it works).
/// Fails if the lock-step run diverges.
#[test]
#[ignore = "a measurement, not a check; run it from a release build"]
fn toy_figures() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), None);
    let cycles = std::env::var("GPUCOSIM_TOY_CYCLES")
        .ok()
        .map(|c| {
            c.parse()
                .expect("GPUCOSIM_TOY_CYCLES is a number of cycles")
        })
        .unwrap_or(200_000);
    for profile in Profile::all() {
        let mut s = spec(&rtl, &dir.path().join("work"), cycles);
        s.repeats = 3;
        let f = benchmark::bench_unit::<ToyTestbench>(&s, profile).unwrap();
        assert!(f.agreed);
        println!(
            "toy {profile}: bare {:.2} M, shim {:.2} M, model {:.2} M, lock-step {:.2} M cycles/s; 4/1 {:.2}; 3/2 {:.1}; VCD {:.2} ms",
            f.bare / 1e6,
            f.shim / 1e6,
            f.model / 1e6,
            f.lockstep / 1e6,
            f.ratio(),
            f.model_speedup(),
            f.vcd_ms
        );
    }
}

/// `bench/scripts/replay_schedule.py` on made-up job times whose makespans
/// are known: lending with no speed-up changes nothing; one job of 1 s on
/// two workers at 2× ends in 0.5 s lent at its start; with jobs of 1 and
/// 2 s on two workers nothing is lent at a start (each worker has a job),
/// and lent mid-job the 2 s job's last second runs at 2× once the 1 s job
/// is done (1 + 0.5 = 1.5 s instead of 2); with the job times known
/// beforehand the long jobs start at once.
#[test]
fn the_schedule_replay_lends_cpus_as_its_rules_say() {
    let dir = tempfile::tempdir().unwrap();
    let replay = |name: &str, jobs: &[(&str, u64, f64)], args: &[&str]| {
        let results = serde_json::json!({
            "plan": {"units": ["ta", "lds", "waitcnt"], "profiles": ["gfx9"], "cycles": 1000},
            "jobs": jobs.iter().map(|(unit, seed, seconds)| serde_json::json!({
                "job": {"unit": unit, "profile": "gfx9", "seed": seed},
                "seconds": seconds,
            })).collect::<Vec<_>>(),
        });
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, results.to_string()).unwrap();
        let o = std::process::Command::new("python3")
            .arg(gpucosim_tests::repo_root().join("bench/scripts/replay_schedule.py"))
            .arg(&path)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // The last line: workers and the shares of linear speed-up.
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let last = out.lines().last().unwrap().to_string();
        last.split_whitespace()
            .map(|x| x.parse::<f64>().unwrap())
            .collect::<Vec<f64>>()
    };
    // (workers, canonical, longest first, lent at start, lent mid-job,
    // times known); without `--pipelined` the lending columns are left
    // out. A job's time is its seconds plus 1.2 ms of overhead.
    let share = |total: f64, workers: f64, makespan: f64| total / (workers * makespan);
    let t = 1.0012;
    let one = replay("one", &[("ta", 1, 1.0)], &["2", "--pipelined", "ta=2"]);
    assert_eq!(one[0], 2.0);
    assert!((one[2] - share(t, 2.0, t)).abs() < 1e-3, "{one:?}");
    assert!((one[3] - share(t, 2.0, t / 2.0)).abs() < 1e-3, "{one:?}");
    assert!((one[4] - one[3]).abs() < 1e-9, "{one:?}");
    let flat = replay("flat", &[("ta", 1, 1.0)], &["2", "--pipelined", "ta=1"]);
    assert!((flat[3] - flat[2]).abs() < 1e-9 && (flat[4] - flat[2]).abs() < 1e-9);
    let two = replay(
        "two",
        &[("ta", 1, 1.0), ("lds", 1, 2.0)],
        &["2", "--pipelined", "ta=1,lds=2"],
    );
    let total = 1.0012 + 2.0012;
    assert!((two[2] - share(total, 2.0, 2.0012)).abs() < 1e-3, "{two:?}");
    assert!((two[3] - two[2]).abs() < 1e-9, "{two:?}");
    assert!((two[4] - share(total, 2.0, 1.5012)).abs() < 1e-3, "{two:?}");
    // Times known beforehand: two lds jobs of 3 s and two ta jobs of 1 s
    // on three workers. Measuring first starts ta's second job before
    // lds's (4 s in all, as in canonical order); known times start both
    // lds jobs at once (3 s).
    let two_each = [
        ("ta", 1, 1.0),
        ("ta", 2, 1.0),
        ("lds", 1, 3.0),
        ("lds", 2, 3.0),
    ];
    let known = replay("known", &two_each, &["3"]);
    let total = 2.0 * 1.0012 + 2.0 * 3.0012;
    let near = |got: &[f64], i: usize, makespan: f64| {
        let want = share(total, 3.0, makespan);
        assert!((got[i] - want).abs() < 1e-3, "{got:?}: [{i}] is not {want}");
    };
    assert_eq!(known.len(), 4, "{known:?}");
    near(&known, 1, 4.0024);
    near(&known, 2, 4.0024);
    near(&known, 3, 3.0012);
    // The estimates of a job-times file (`--times`) in place of the
    // results' own means: times that have ta's jobs longer than lds's
    // start both ta jobs first (4 s), as a regression after a run in
    // which lds was the shorter would.
    let times = dir.path().join("times.json");
    std::fs::write(
        &times,
        serde_json::json!({"format": 1, "groups": {
            "ta.gfx9": {"seconds": 5.0, "cycles": 1000, "jobs": 1},
            "lds.gfx9": {"seconds": 0.5, "cycles": 1000, "jobs": 1},
        }})
        .to_string(),
    )
    .unwrap();
    let upside_down = replay(
        "known",
        &two_each,
        &["3", "--times", times.to_str().unwrap()],
    );
    near(&upside_down, 3, 4.0024);
    // A job of ta and of waitcnt (1 s) and two of lds (3 s) on three
    // workers: measuring first starts ta, lds and waitcnt, and lds's
    // second job after 1 s (4 s); known times start lds's two and ta's
    // at once, waitcnt's after 1 s (3 s).
    let known = replay(
        "known3",
        &[
            ("ta", 1, 1.0),
            ("lds", 1, 3.0),
            ("lds", 2, 3.0),
            ("waitcnt", 1, 1.0),
        ],
        &["3"],
    );
    near(&known, 2, 4.0024);
    near(&known, 3, 3.0012);
    // A bad speed-up is a one-line error.
    let o = std::process::Command::new("python3")
        .arg(gpucosim_tests::repo_root().join("bench/scripts/replay_schedule.py"))
        .arg(dir.path().join("one.json"))
        .args(["--pipelined", "ta=0.5"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("speed-up 0.5 is below 1") && err.lines().count() == 1,
        "{err}"
    );
    // So is a job-times file that is not one: a results file, another
    // format, a time that is no number.
    let bad = dir.path().join("bad-times.json");
    for text in [
        std::fs::read_to_string(dir.path().join("one.json")).unwrap(),
        r#"{"format": 7, "groups": {}}"#.to_string(),
        r#"{"format": 1, "groups": {"ta.gfx9": {"seconds": "NaN", "cycles": 1, "jobs": 1}}}"#
            .to_string(),
    ] {
        std::fs::write(&bad, &text).unwrap();
        let o = std::process::Command::new("python3")
            .arg(gpucosim_tests::repo_root().join("bench/scripts/replay_schedule.py"))
            .arg(dir.path().join("one.json"))
            .args(["--times", bad.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{text}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("is not a gpucosim job-times file") && err.lines().count() == 1,
            "{text}: {err}"
        );
    }
    // So is a unit the results file has no job of (a typo is not a 1×).
    let o = std::process::Command::new("python3")
        .arg(gpucosim_tests::repo_root().join("bench/scripts/replay_schedule.py"))
        .arg(dir.path().join("one.json"))
        .args(["--pipelined", "ta=1.3,lsd=1.15"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no job of unit `lsd`") && err.lines().count() == 1,
        "{err}"
    );
}
