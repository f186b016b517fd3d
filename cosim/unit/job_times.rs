use gpucosim::job_times::*;
use gpucosim::regress::{Job, JobResult, Plan, Status};
use gpucosim::regress::{KernelRef, Seeds};
use gpucosim_model::Profile;

/// Key `k` as this build flavour names it.
fn named(k: &str) -> String {
    format!("{k}{}", flavour_suffix())
}

fn plan(cycles: u64, code_coverage: bool) -> Plan {
    Plan {
        units: vec!["ta".into(), "lds".into()],
        profiles: vec![Profile::Gfx9],
        seeds: Seeds { first: 1, last: 4 },
        cycles,
        knobs: Vec::new(),
        kernels: Vec::new(),
        stress: false,
        code_coverage,
        stimulus: gpucosim::draw::STIMULUS_VERSION,
    }
}

fn job(unit: &str, seed: u64) -> Job {
    Job {
        unit: unit.into(),
        profile: Profile::Gfx9,
        seed,
        kernel: None,
        variant: None,
    }
}

fn kernel_job(seed: u64) -> Job {
    Job {
        kernel: Some(KernelRef {
            file: "/k/reduce.s".into(),
            name: "reduce".into(),
            profile: Profile::Gfx9,
            launch: None,
            unit: "waitcnt".into(),
        }),
        ..job("waitcnt", seed)
    }
}

fn result(job: Job, status: Status, cycles: u64, seconds: f64) -> JobResult {
    JobResult {
        status,
        cycles,
        seconds,
        ..JobResult::new(&job)
    }
}

#[test]
fn keys_name_the_group_the_kernel_and_code_coverage() {
    let p = plan(1000, false);
    assert_eq!(key(&p, &job("ta", 3)), named("ta.gfx9"));
    assert_eq!(key(&p, &kernel_job(1)), named("waitcnt.gfx9.kernel.reduce"));
    assert_eq!(
        key(&plan(1000, true), &job("lds", 1)),
        named("lds.gfx9.code-coverage")
    );
}

/// What a regression measured gives the next one's estimates: seconds
/// a cycle times its cycles, a kernel's at most the cycles its jobs
/// ran; jobs not measured on one CPU to an end of their own count for
/// nothing; a later regression replaces a group's times and keeps the
/// others, unless its jobs were too short to tell.
#[test]
fn measured_jobs_give_the_estimates_of_the_next_regression() {
    let p = plan(20_000, false);
    let mut t = JobTimes::empty();
    let mut pipelined = result(job("ta", 4), Status::Passed, 20_000, 0.01);
    pipelined.pipelined = true;
    let results = vec![
        result(job("ta", 1), Status::Passed, 20_000, 2.0),
        result(job("ta", 2), Status::Diverged, 10_000, 1.5),
        result(job("ta", 3), Status::Timeout, 20_000, 9.0),
        pipelined,
        result(job("lds", 1), Status::Interrupted, 10, 9.0),
        result(job("lds", 2), Status::Error, 0, 0.0),
        result(kernel_job(1), Status::Passed, 200, 0.2),
        result(kernel_job(2), Status::RtlError, 100, 0.1),
    ];
    assert_eq!(t.record(&p, &results), 2);
    assert_eq!(
        t.groups[&named("ta.gfx9")],
        GroupTime {
            seconds: 3.5,
            cycles: 30_000,
            jobs: 2
        }
    );
    assert!(!t.groups.contains_key(&named("lds.gfx9")));
    let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-12);
    assert!(close(
        t.estimate(&p, &job("ta", 9)),
        3.5 / 30_000.0 * 20_000.0
    ));
    assert!(close(t.estimate(&plan(60_000, false), &job("ta", 9)), 7.0));
    assert_eq!(t.estimate(&p, &job("lds", 9)), None);
    assert_eq!(t.estimate(&plan(20_000, true), &job("ta", 9)), None);
    // The kernel's job that passed ran 200 cycles (the one ended by the
    // RTL does not count for a kernel): a budget of 20,000 does not
    // make it longer, one of 100 cuts it short.
    assert!(close(t.estimate(&p, &kernel_job(5)), 0.2));
    assert!(close(t.estimate(&plan(100, false), &kernel_job(5)), 0.1));

    // A later regression replaces a group's times and keeps the others'
    // ...
    let later = vec![result(job("ta", 1), Status::Passed, 20_000, 1.0)];
    assert_eq!(t.record(&p, &later), 1);
    assert!(close(t.estimate(&p, &job("ta", 9)), 1.0));
    assert!(t.groups.contains_key(&named("waitcnt.gfx9.kernel.reduce")));
    // ... but not with jobs too short to tell, unless the group has none.
    let smoke = vec![
        result(job("ta", 1), Status::Passed, 3, 0.001),
        result(job("lds", 1), Status::Passed, 3, 0.001),
    ];
    assert_eq!(t.record(&plan(3, false), &smoke), 1);
    assert!(close(t.estimate(&p, &job("ta", 9)), 1.0));
    assert!(close(
        t.estimate(&p, &job("lds", 9)),
        0.001 / 3.0 * 20_000.0
    ));
    // A kernel's jobs that passed ran its whole program, under
    // MIN_CYCLES here: they always replace its times (its program may
    // have changed, shorter or longer); one that diverged does not
    // count.
    let kernel = |cycles, seconds| vec![result(kernel_job(1), Status::Passed, cycles, seconds)];
    assert_eq!(t.record(&p, &kernel(100, 0.05)), 1);
    assert!(close(t.estimate(&p, &kernel_job(5)), 0.05));
    assert_eq!(t.record(&p, &kernel(600, 0.3)), 1);
    assert!(close(t.estimate(&p, &kernel_job(5)), 0.3));
    let diverged = [result(kernel_job(1), Status::Diverged, 20_000, 9.0)];
    assert_eq!(t.record(&p, &diverged), 0);
    assert!(close(t.estimate(&p, &kernel_job(5)), 0.3));
}

/// An update reads the file again and adds this regression's groups to
/// what is there now (another regression's groups written since stay);
/// with nothing measured it writes nothing.
#[test]
fn an_update_keeps_the_groups_written_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE);
    let p = plan(20_000, false);
    assert_eq!(JobTimes::update(&path, &p, &[]).unwrap(), 0);
    assert!(!path.exists());
    let mut other = JobTimes::empty();
    other.record(&p, &[result(job("lds", 1), Status::Passed, 20_000, 0.5)]);
    other.save(&path).unwrap();
    let ours = [result(job("ta", 1), Status::Passed, 20_000, 0.2)];
    assert_eq!(JobTimes::update(&path, &p, &ours).unwrap(), 1);
    let (t, w) = JobTimes::load(&path);
    assert_eq!(w, None);
    assert_eq!(
        t.groups.keys().cloned().collect::<Vec<_>>(),
        [named("lds.gfx9"), named("ta.gfx9")]
    );
    assert!(dir.path().join(format!("{FILE}.lock")).exists());
}

/// An update waits for another holder of the lock and then writes;
/// one held past the wait (a regression stopped while it holds it) is
/// given up, and the update writes without it.
#[test]
fn an_update_waits_for_the_lock_and_not_forever() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE);
    let p = plan(20_000, false);
    let ours = [result(job("ta", 1), Status::Passed, 20_000, 0.2)];
    let held = FileLock::take(&lock_path(&path), Duration::ZERO);
    assert!(held.is_held());
    let started = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let t = s.spawn(|| {
            started.store(true, std::sync::atomic::Ordering::SeqCst);
            JobTimes::update_waiting(&path, &p, &ours, Duration::from_secs(60))
        });
        while !started.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(300));
        assert!(!path.exists(), "written while the lock was held");
        drop(held);
        assert_eq!(t.join().unwrap().unwrap(), 1);
    });
    assert!(path.exists());
    std::fs::remove_file(&path).unwrap();
    let _held = FileLock::take(&lock_path(&path), Duration::ZERO);
    let t0 = Instant::now();
    let n = JobTimes::update_waiting(&path, &p, &ours, Duration::from_millis(200)).unwrap();
    assert_eq!(n, 1);
    assert!(path.exists());
    assert!(
        t0.elapsed() >= Duration::from_millis(200),
        "{:?}",
        t0.elapsed()
    );
}

/// The file: written atomically and read back equal; none yet is empty
/// without a word; a broken one, or one of another format, is empty
/// with a warning naming it; an unreadable one too.
#[test]
fn the_file_round_trips_and_a_bad_one_is_empty_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache").join(FILE);
    assert_eq!(JobTimes::load(&path), (JobTimes::empty(), None));
    let mut t = JobTimes::empty();
    t.record(
        &plan(1000, false),
        &[result(job("lds", 1), Status::Passed, 20_000, 0.5)],
    );
    t.save(&path).unwrap();
    assert_eq!(JobTimes::load(&path), (t, None));

    for (text, says) in [
        (
            "{\"format\": 1, \"groups\": {\"ta.gfx9\": {\"seconds\": \"x\"}}}",
            "are not valid",
        ),
        ("not json", "are not valid"),
        ("{\"format\": 7, \"groups\": {}}", "are of format 7, not 1"),
    ] {
        std::fs::write(&path, text).unwrap();
        let (t, w) = JobTimes::load(&path);
        assert_eq!(t, JobTimes::empty());
        let w = w.expect("a warning");
        assert!(
            w.contains(says) && w.contains(&path.display().to_string()),
            "{w}"
        );
        assert!(!w.contains('\n'), "{w}");
    }
    // A directory where the file should be: cannot be read, nor written.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    let (t, w) = JobTimes::load(&path);
    assert_eq!(t, JobTimes::empty());
    assert!(w.expect("a warning").contains("cannot read"));
    assert!(t.save(&path).is_err());
    // An update leaves a file it cannot read as it is, and says so.
    let measured = [result(job("lds", 1), Status::Passed, 20_000, 0.5)];
    let e = JobTimes::update(&path, &plan(20_000, false), &measured).unwrap_err();
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
    assert!(path.is_dir());
}
