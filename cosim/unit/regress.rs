use gpucosim::regress::*;
use gpucosim_model::Profile;
use gpucosim_waves::WaveFormat;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// Set in the copy of this test binary that runs with SIGPIPE at its
/// default action.
const INNER: &str = "GPUCOSIM_TEST_SIGPIPE_INNER";

/// The workers' order: each group's first job in canonical order, then
/// the group whose done jobs took longest on average (a group with
/// jobs running and none done first of all), each job once; one worker
/// in canonical order.
#[test]
fn workers_take_the_longest_jobs_first() {
    let list = plan(
        &["ta", "lds", "waitcnt"],
        &[Profile::Gfx9, Profile::Gfx11],
        4,
    );
    let one: Vec<u64> = {
        let mut d = Dispatch::new(&list, 1, 1, &|_| None);
        std::iter::from_fn(|| d.take().map(|t| t.1)).collect()
    };
    assert_eq!(one, (0..24).collect::<Vec<_>>());
    let mut d = Dispatch::new(&list, 4, 0, &|_| None);
    let mut take = || d.take().map(|(g, k, _)| (g, k)).unwrap();
    // Groups of four seeds: ta gfx9 0..4, ta gfx11 4..8, lds gfx9
    // 8..12, lds gfx11 12..16, waitcnt 16..20, 20..24.
    let first: Vec<(usize, u64)> = (0..6).map(|_| take()).collect();
    assert_eq!(first, (0..6).map(|g| (g, 4 * g as u64)).collect::<Vec<_>>());
    // None done: every group counts as the longest, the first wins.
    assert_eq!(take(), (0, 1));
    // lds gfx11's job took longest; ta gfx9 has one done now too.
    for (g, s) in [(0, 1.0), (1, 1.0), (2, 2.0), (3, 3.0), (4, 0.5), (5, 0.5)] {
        d.done(g, s, false, true);
    }
    let mut take = || d.take().map(|(g, k, _)| (g, k)).unwrap();
    assert_eq!([take(), take(), take()], [(3, 13), (3, 14), (3, 15)]);
    assert_eq!([take(), take(), take()], [(2, 9), (2, 10), (2, 11)]);
    // ta gfx9 (a second job done, faster) against ta gfx11.
    d.done(0, 0.2, false, true);
    let mut take = || d.take().map(|(g, k, _)| (g, k)).unwrap();
    assert_eq!([take(), take(), take()], [(1, 5), (1, 6), (1, 7)]);
    assert_eq!([take(), take()], [(0, 2), (0, 3)]);
    let rest: Vec<u64> = std::iter::from_fn(|| d.take().map(|t| t.1)).collect();
    assert_eq!(rest, vec![17, 18, 19, 21, 22, 23]);
}

/// With estimates from earlier regressions the workers take the
/// longest group first from the start, with no job of each group
/// taken to measure it first; a group without an estimate still has
/// its first job taken first; an estimate gives way to the mean of the
/// group's jobs that passed on one CPU once one has, and is scaled by
/// how this regression's such jobs compare with their estimates.
#[test]
fn estimates_of_earlier_regressions_order_the_jobs_from_the_start() {
    let list = plan(
        &["ta", "lds", "waitcnt"],
        &[Profile::Gfx9, Profile::Gfx11],
        2,
    );
    // Groups of two seeds: ta gfx9 0..2, ta gfx11 2..4, lds gfx9 4..6,
    // lds gfx11 6..8, waitcnt gfx9 8..10, waitcnt gfx11 10..12.
    let est = |j: &Job| -> Option<f64> {
        match (j.unit.as_str(), j.profile) {
            ("ta", Profile::Gfx9) => Some(0.036),
            ("ta", Profile::Gfx11) => Some(0.040),
            ("lds", Profile::Gfx9) => Some(0.077),
            ("lds", Profile::Gfx11) => Some(0.085),
            ("waitcnt", Profile::Gfx9) => Some(0.033),
            _ => Some(0.035),
        }
    };
    // Eight workers, twelve jobs: the eight taken at once are those of
    // lds and ta, the shortest (waitcnt) wait; without the estimates
    // each group's first job and then ta's second ones would start,
    // and lds's second jobs would wait behind waitcnt's first.
    let mut d = Dispatch::new(&list, 8, 0, &est);
    let first: Vec<u64> = (0..8).map(|_| d.take().unwrap().1).collect();
    assert_eq!(first, vec![6, 7, 4, 5, 2, 3, 0, 1]);
    let mut d = Dispatch::new(&list, 8, 0, &|_| None);
    let first: Vec<u64> = (0..8).map(|_| d.take().unwrap().1).collect();
    assert_eq!(first, vec![0, 2, 4, 6, 8, 10, 1, 3]);

    // No estimate for lds gfx11 (a kernel never run before, say): its
    // first job is taken first, to measure it, and it counts as the
    // longest until then.
    let some = |j: &Job| {
        (j.unit != "lds" || j.profile != Profile::Gfx11)
            .then(|| est(j))
            .flatten()
    };
    let mut d = Dispatch::new(&list, 5, 0, &some);
    let mut take = || d.take().map(|(g, k, _)| (g, k)).unwrap();
    assert_eq!(
        [take(), take(), take(), take(), take()],
        [(3, 6), (3, 7), (2, 4), (2, 5), (1, 2)]
    );
    // Jobs of this regression take longer than their estimates: lds
    // gfx9's first twice its estimate, ta gfx11's 0.058 s against 0.040.
    // The groups still on estimates are scaled by (0.154 + 0.058) /
    // (0.077 + 0.040) = 1.81, which puts even waitcnt gfx9 (0.033 s,
    // 0.060 scaled) before ta gfx11's measured 0.058; unscaled, ta
    // gfx11's second job would be next.
    d.done(2, 0.154, false, true);
    d.done(1, 0.058, false, true);
    let rest: Vec<(usize, u64)> = std::iter::from_fn(|| d.take().map(|(g, k, _)| (g, k))).collect();
    assert_eq!(
        rest,
        vec![(0, 0), (0, 1), (5, 10), (5, 11), (4, 8), (4, 9), (1, 3)]
    );

    // Only jobs that passed on one CPU (whole jobs, as estimated) scale
    // the estimates and stand for their group: lds gfx11's first job
    // passed in twice its estimate (scale 2), lds gfx9's diverged after
    // 0.05 s, so lds gfx9 stays at its estimate scaled (0.154) and goes
    // first. Counted, the diverged job would make the scale (0.05 +
    // 0.17) / (0.077 + 0.085) = 1.36 and lds gfx9's mean 0.05, behind
    // ta gfx11 (0.054).
    let mut d = Dispatch::new(&list, 3, 0, &est);
    let mut take = || d.take().map(|(g, k, _)| (g, k)).unwrap();
    assert_eq!([take(), take(), take()], [(3, 6), (3, 7), (2, 4)]);
    d.done(3, 0.17, false, true);
    d.done(2, 0.05, false, false);
    let rest: Vec<(usize, u64)> = std::iter::from_fn(|| d.take().map(|(g, k, _)| (g, k))).collect();
    assert_eq!(
        rest,
        vec![
            (2, 5),
            (1, 2),
            (1, 3),
            (0, 0),
            (0, 1),
            (5, 10),
            (5, 11),
            (4, 8),
            (4, 9)
        ]
    );

    // An estimate that is no number is none; one worker keeps the
    // canonical order whatever the estimates.
    let mut d = Dispatch::new(&list, 4, 0, &|_| Some(f64::NAN));
    let first: Vec<u64> = (0..6).map(|_| d.take().unwrap().1).collect();
    assert_eq!(first, vec![0, 2, 4, 6, 8, 10]);
    let mut d = Dispatch::new(&list, 1, 0, &est);
    let all: Vec<u64> = std::iter::from_fn(|| d.take().map(|t| t.1)).collect();
    assert_eq!(all, (0..12).collect::<Vec<_>>());
}

/// The jobs of seeds `1..=seeds` of `units` on `profiles`.
fn plan(units: &[&str], profiles: &[Profile], seeds: u64) -> JobList {
    let plan = Plan {
        units: units.iter().map(|u| u.to_string()).collect(),
        profiles: profiles.to_vec(),
        seeds: Seeds {
            first: 1,
            last: seeds,
        },
        cycles: 10,
        knobs: Vec::new(),
        kernels: Vec::new(),
        stress: false,
        code_coverage: false,
        stimulus: gpucosim::draw::STIMULUS_VERSION,
    };
    JobList::new(&plan, None).unwrap()
}

/// The plan of `seeds` seeds of ta on gfx9 and gfx11.
fn ta_plan(seeds: u64) -> JobList {
    plan(&["ta"], &[Profile::Gfx9, Profile::Gfx11], seeds)
}

/// Whether each job taken runs pipelined, none finishing meanwhile.
fn pipelined(list: &JobList, threads: usize, cpus: usize) -> Vec<bool> {
    let mut d = Dispatch::new(list, threads, cpus, &|_| None);
    std::iter::from_fn(|| d.take().map(|t| t.2)).collect()
}

/// Workers that will find no job lend their CPUs: a job runs pipelined
/// when it, its second CPU, the running jobs with theirs and one CPU
/// for each job still to start fit in the regression's CPUs (at most
/// one a worker); no CPU is ever counted twice.
#[test]
fn workers_without_a_job_lend_their_cpus_to_the_first_jobs() {
    // Two jobs, four workers: both pipelined (four CPUs).
    assert_eq!(pipelined(&ta_plan(1), 4, 4), [true, true]);
    // Three jobs, four CPUs: the first on two, the others on one each.
    let three = plan(&["ta", "lds", "waitcnt"], &[Profile::Gfx9], 1);
    assert_eq!(pipelined(&three, 4, 4), [true, false, false]);
    // As many jobs as workers, or more: none.
    assert_eq!(pipelined(&ta_plan(2), 4, 4), [false; 4]);
    assert_eq!(pipelined(&ta_plan(8), 4, 4), [false; 16]);
    // No CPUs to lend (--no-pipeline), one worker, or CPUs beyond the
    // workers (which do not count).
    assert_eq!(pipelined(&ta_plan(1), 4, 0), [false, false]);
    assert_eq!(pipelined(&ta_plan(1), 1, 16), [false, false]);
    assert_eq!(pipelined(&ta_plan(1), 3, 16), [true, false]);
    // One job at a time, each done before the next is taken: the queue
    // keeps the workers busy until its last jobs.
    let list = ta_plan(12);
    let mut d = Dispatch::new(&list, 4, 4, &|_| None);
    let mut seen = Vec::new();
    while let Some((g, _, p)) = d.take() {
        seen.push(p);
        d.done(g, 0.1, p, true);
    }
    let mut want = vec![false; 21];
    want.extend([true; 3]);
    assert_eq!(seen, want);
    // Any order of takes and finishes by up to four workers: whenever
    // a CPU is lent, the running jobs, their second CPUs and the jobs
    // still to start fit in the CPUs; every job is taken once.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200 {
        let list = ta_plan(1 + rnd() % 5);
        let cpus = (rnd() % 6) as usize;
        let mut d = Dispatch::new(&list, 4, cpus, &|_| None);
        let mut running: Vec<(usize, bool)> = Vec::new();
        let mut taken = 0u64;
        loop {
            let finish = running.len() == 4 || (!running.is_empty() && rnd() % 2 == 0);
            if finish {
                let (g, p) = running.swap_remove((rnd() % running.len() as u64) as usize);
                d.done(g, 0.1, p, true);
                continue;
            }
            let Some((g, _, p)) = d.take() else {
                break;
            };
            taken += 1;
            running.push((g, p));
            let lent = running.iter().filter(|r| r.1).count();
            let left = (list.len() - taken) as usize;
            assert!(lent == 0 || running.len() + lent + left <= cpus.min(4));
            assert_eq!((d.running, d.lent), (running.len(), lent));
        }
        assert_eq!(taken, list.len());
    }
}

/// A worker process that ends without reading its job spec is that
/// job's error (after a second, fresh worker fails alike), even when
/// the process runs with SIGPIPE's default action (as `gpucosim eval`
/// does): the spec's write fails with EPIPE instead of killing the
/// regression. Runs in a copy of this test binary, so the
/// disposition changes no other test.
#[test]
fn a_job_process_that_never_reads_its_spec_is_that_jobs_error() {
    if std::env::var_os(INNER).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "regress::a_job_process_that_never_reads_its_spec_is_that_jobs_error",
                "--nocapture",
            ])
            .env(INNER, "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{:?}\n{text}", out.status);
        assert!(text.contains("1 passed"), "{text}");
        return;
    }
    // SAFETY: this process runs this one test only.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("quits");
    std::fs::write(&exe, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A spec larger than a pipe holds: its write is still going on
    // when the child has gone.
    let cfg = RegressConfig {
        cycles: 100,
        rtl_arg: None,
        knobs: (0..20_000).map(|i| (format!("k{i}"), "1".into())).collect(),
        bundles: dir.path().to_path_buf(),
        shrink: false,
        window: 16,
        timeout: None,
        stall: None,
        waves_format: WaveFormat::default(),
        mutant: None,
        code_coverage: false,
    };
    let spec = JobSpec {
        job: Job {
            unit: "ta".into(),
            profile: Profile::Gfx9,
            seed: 1,
            kernel: None,
            variant: None,
        },
        cfg,
        root: dir.path().to_path_buf(),
        lib: dir.path().join("none.so"),
        hash: String::new(),
        pipeline: false,
    };
    let r = Worker::new(&exe).run(&spec, &AtomicBool::new(false));
    assert_eq!(r.status, Status::Error, "{r:?}");
    assert!(
        r.message.contains("exited with code 3 without a result")
            && r.message.contains("could not be written"),
        "{}",
        r.message
    );
}

/// Job processes start from this process's own executable, which stays
/// startable when the file it was started from is replaced.
#[test]
fn jobs_start_from_the_running_executable() {
    let exe = own_exe().unwrap();
    assert_eq!(exe, Path::new("/proc/self/exe"));
}
