//! Faults injected into real runs of the command line: an RTL that stops
//! the simulation or never returns, outputs that cannot be written (a
//! location refused up front; a file-size limit, which fails writes the way
//! a full disk does), the umask, and SIGTERM. None of them may lose a
//! result or end green.

use crate::gpucosim_bin;
use gpucosim_tests::{quick, waitcnt_fatal_or_hang, BrokenFixture, Vcd};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gpucosim() -> Command {
    quick(Command::new(gpucosim_bin()))
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `cmd` with writes limited to files of `bytes` (RLIMIT_FSIZE): a write
/// past it fails with EFBIG, as one on a full disk fails with ENOSPC.
pub(crate) fn limit_files(cmd: &mut Command, bytes: u64) {
    limit(cmd, libc::RLIMIT_FSIZE, bytes);
}

/// `cmd` with the resource limit `resource` (soft and hard) at `bytes`.
fn limit(cmd: &mut Command, resource: libc::__rlimit_resource_t, bytes: u64) {
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(resource, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Builds (or finds) the RTL of `unit` in `rtl` first, so that a test's
/// limits apply to the run, not to the build.
fn prebuild(rtl: &Path, unit: &str, profile: &str) {
    let o = gpucosim()
        .args(["build", "--unit", unit, "--profile", profile, "--rtl"])
        .arg(rtl)
        .output()
        .unwrap();
    assert!(o.status.success(), "{:?}", text(&o));
}

/// The number after `at cycle ` in `s`.
fn cycle_in(s: &str) -> u64 {
    s.split("at cycle ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no cycle in:\n{s}"))
}

#[test]
fn an_rtl_fatal_is_its_own_kind_of_failure_with_cycle_message_and_waveform() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = waitcnt_fatal_or_hang(dir.path());
    let waves = dir.path().join("waves");
    let json = dir.path().join("run.json");
    let o = gpucosim()
        .args([
            "run",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--cycles",
            "6000",
        ])
        .arg("--rtl")
        .arg(&rtl)
        .arg("--waves")
        .arg(&waves)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}\n{err}");
    assert!(
        out.starts_with("RTL ERROR in waitcnt.gfx9.1 at cycle "),
        "{out}"
    );
    let at = cycle_in(&out);
    assert!(out.contains("$stop, $error or $fatal at "), "{out}");
    // Verilator's message, with $time the cycle's rising edge.
    assert!(
        out.contains(&format!("[{}] %Fatal: waitcnt_top.sv:", 10 * at + 5)),
        "{out}"
    );
    assert!(
        out.contains(&format!("wave 0 has 4 loads out at {}", 10 * at + 5)),
        "{out}"
    );
    assert!(out.contains("transaction #"), "{out}");
    assert!(out.contains("reproduce: gpucosim run"), "{out}");
    assert!(!out.contains("PASS"), "{out}");
    let vcd = Vcd::read(&waves.join("waitcnt.gfx9.1.vcd"));
    assert_eq!(vcd.stamps().last(), Some(&(10 * at + 5)));
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(j["verdict"], "rtl_error");
    assert_eq!(j["end"]["kind"], "rtl");
    assert_eq!(j["end"]["cycle"], at);
    assert_eq!(j["passed"], false);
}

#[test]
fn a_hang_is_aborted_and_a_regression_with_rtl_errors_and_hangs_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = waitcnt_fatal_or_hang(dir.path());
    // One run: the hang is reported with its cycle and waveform, exit 4.
    let waves = dir.path().join("waves");
    let o = gpucosim()
        .args([
            "run",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx11",
            "--cycles",
            "6000",
        ])
        .args(["--stall-timeout", "1"])
        .arg("--rtl")
        .arg(&rtl)
        .arg("--waves")
        .arg(&waves)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(4), "{out}\n{err}");
    assert!(
        out.starts_with("HANG in waitcnt.gfx11.1 at cycle "),
        "{out}"
    );
    let at = cycle_in(&out);
    let vcd = Vcd::read(&waves.join("waitcnt.gfx11.1.vcd"));
    assert_eq!(vcd.stamps().last(), Some(&(10 * at + 5)));

    // A regression: ta passes, waitcnt stops on gfx9 and hangs on gfx11;
    // every job is reported and every output written.
    let junit = dir.path().join("junit.xml");
    let results = dir.path().join("results.json");
    let cov = dir.path().join("cov.json");
    let bundles = dir.path().join("bundles");
    let o = gpucosim()
        .args([
            "regress", "--unit", "ta", "--unit", "waitcnt", "--seeds", "1..2",
        ])
        .args(["--cycles", "6000", "--stall-timeout", "1", "--jobs", "2"])
        .arg("--rtl")
        .arg(&rtl)
        .arg("--junit")
        .arg(&junit)
        .arg("--results")
        .arg(&results)
        .arg("--coverage")
        .arg(&cov)
        .arg("--bundles")
        .arg(&bundles)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(4),
        "timeouts come first:\n{out}\n{err}"
    );
    assert!(out.contains("8 of 8 seeds run"), "{out}");
    let x = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&x).unwrap();
    let errors = |ty: &str| {
        doc.descendants()
            .filter(|n| n.has_tag_name("error") && n.attribute("type") == Some(ty))
            .count()
    };
    assert_eq!(errors("rtl_error"), 2, "{x}");
    assert_eq!(errors("timeout"), 2, "{x}");
    let e = doc
        .descendants()
        .find(|n| n.has_tag_name("error") && n.attribute("type") == Some("rtl_error"))
        .unwrap();
    assert!(
        e.attribute("message")
            .unwrap()
            .starts_with("RTL ERROR at cycle "),
        "{x}"
    );
    assert!(e.text().unwrap().contains("%Fatal"), "{x}");
    assert_eq!(doc.root_element().attribute("failures"), Some("0"));
    assert!(cov.is_file());
    let r = gpucosim::regress::ResultsFile::load(&results).unwrap();
    assert_eq!(r.jobs.len(), 8);
    // The RTL error's bundle replays as itself (exit 3).
    let b = bundles.join("waitcnt.gfx9.1");
    assert!(b.join("waitcnt.gfx9.1.vcd").is_file());
    let o = gpucosim().arg("replay").arg(&b).output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}\n{err}");
    assert!(out.contains("reproduced exactly as recorded"), "{out}");

    // A one-job regression on two workers runs its job pipelined on the
    // spare CPU: the RTL's fatal error and its hang end that job as on one
    // CPU, an RTL error and a timeout.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (profile, status) in [("gfx9", "rtl_error"), ("gfx11", "timeout")] {
        let results = dir.path().join(format!("lent-{profile}.json"));
        let o = gpucosim()
            .args(["regress", "--unit", "waitcnt", "--profile", profile])
            .args(["--seeds", "1..1", "--no-stress", "--cycles", "6000"])
            .args(["--stall-timeout", "1", "--jobs", "2", "--quiet"])
            .arg("--rtl")
            .arg(&rtl)
            .arg("--results")
            .arg(&results)
            .arg("--bundles")
            .arg(dir.path().join(format!("lent-{profile}")))
            .output()
            .unwrap();
        let (out, err) = text(&o);
        assert!(o.status.code().unwrap_or(0) > 1, "{profile}: {out}\n{err}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
        let job = &v["jobs"][0];
        assert_eq!(job["status"], status, "{profile}: {job}");
        assert_eq!(
            job.get("pipelined").is_some(),
            cpus >= 2,
            "{profile}: {job}"
        );
    }
}

#[test]
fn output_locations_that_cannot_be_written_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("waves");
    let u = under_file.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "run",
                "--unit",
                "ta",
                "--profile",
                "gfx9",
                "--waves",
                "/proc/gpucosim-waves",
            ],
            "--waves /proc/gpucosim-waves",
        ),
        (
            vec!["run", "--unit", "ta", "--profile", "gfx9", "--waves", u],
            "--waves",
        ),
        (
            vec![
                "run",
                "--unit",
                "ta",
                "--profile",
                "gfx9",
                "--waves-format",
                "fst",
                "--waves",
                "/proc/gpucosim-waves",
            ],
            "--waves /proc/gpucosim-waves",
        ),
        (
            vec![
                "run",
                "--unit",
                "ta",
                "--profile",
                "gfx9",
                "--json",
                "/proc/run.json",
            ],
            "--json /proc/run.json",
        ),
        (
            vec!["regress", "--junit", "/proc/j.xml"],
            "--junit /proc/j.xml",
        ),
        (
            vec!["regress", "--results", "/proc/r.json"],
            "--results /proc/r.json",
        ),
        (
            vec!["regress", "--coverage", "/proc/c.json"],
            "--coverage /proc/c.json",
        ),
        (vec!["regress", "--bundles", u], "--bundles"),
    ];
    for (args, needle) in cases {
        let t0 = std::time::Instant::now();
        let o = gpucosim()
            .args(&args)
            .env("GPUCOSIM_CACHE_DIR", dir.path().join("no-cache"))
            .env("GPUCOSIM_NO_INSTALL", "1")
            .env("VERILATOR", "/nonexistent/verilator")
            .output()
            .unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}:\n{out}\n{err}");
        // Refused before Verilator is even looked for.
        assert!(
            err.contains(needle) && err.contains("cannot write there"),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("VERILATOR"),
            "{args:?} looked for Verilator first: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(t0.elapsed().as_secs() < 10);
    }
}

fn fixture(name: &str) -> BrokenFixture {
    BrokenFixture::all()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
        .1
}

#[test]
fn a_waveform_that_cannot_be_written_keeps_the_report_and_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("waitcnt_release_early");
    let rtl = f.apply(dir.path());
    prebuild(&rtl, &f.unit, &f.profile);
    let waves = dir.path().join("waves");
    let json = dir.path().join("run.json");
    let mut cmd = gpucosim();
    cmd.args(["run", "--unit", &f.unit, "--profile", &f.profile])
        .args([
            "--seed",
            &f.seed.to_string(),
            "--cycles",
            &f.cycles.to_string(),
        ])
        .arg("--rtl")
        .arg(&rtl)
        .arg("--waves")
        .arg(&waves)
        .arg("--json")
        .arg(&json);
    limit_files(&mut cmd, 4 * 1024);
    let o = cmd.output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the exit code says divergence:\n{out}\n{err}"
    );
    assert!(
        out.starts_with("DIVERGENCE in waitcnt.gfx9.1 at cycle"),
        "{out}"
    );
    assert!(out.contains("waveform NOT written:"), "{out}");
    assert!(
        err.contains("error: the waveform was not written:"),
        "{err}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(j["verdict"], "diverged");
    assert!(j["vcd_error"]
        .as_str()
        .unwrap()
        .contains("waitcnt.gfx9.1.vcd"));
    // No partial waveform is left behind.
    assert!(!waves.join("waitcnt.gfx9.1.vcd").exists());
}

/// Sizes of the three reports of a small waitcnt regression.
fn regress_outputs(dir: &Path, rtl: &Path, limit: Option<u64>) -> (Output, [PathBuf; 3]) {
    let files = [
        dir.join("junit.xml"),
        dir.join("coverage.json"),
        dir.join("results.json"),
    ];
    for f in &files {
        let _ = std::fs::remove_file(f);
    }
    let mut cmd = gpucosim();
    cmd.args([
        "regress",
        "--unit",
        "waitcnt",
        "--profile",
        "gfx9",
        "--seeds",
        "1..12",
    ])
    .args(["--cycles", "2000", "--quiet", "--rtl"])
    .arg(rtl)
    .arg("--junit")
    .arg(&files[0])
    .arg("--coverage")
    .arg(&files[1])
    .arg("--results")
    .arg(&files[2])
    .arg("--bundles")
    .arg(dir.join("bundles"));
    if let Some(l) = limit {
        limit_files(&mut cmd, l);
    }
    (cmd.output().unwrap(), files)
}

#[test]
fn a_regression_writes_every_output_it_can_and_names_each_it_could_not() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = gpucosim_tests::repo_root().join("rtl");
    let (o, files) = regress_outputs(dir.path(), &rtl, None);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .collect();
    let (lo, hi) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
    assert!(lo < hi, "{sizes:?}");
    // A limit between the smallest and the largest: some fit, some do not.
    let (o, files) = regress_outputs(dir.path(), &rtl, Some((lo + hi) / 2));
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    let mut lost = 0;
    for ((f, what), size) in files
        .iter()
        .zip(["--junit", "--coverage", "--results"])
        .zip(&sizes)
    {
        if *size <= (lo + hi) / 2 {
            assert!(f.is_file(), "{what} fits but was not written: {err}");
        } else {
            lost += 1;
            assert!(!f.exists(), "{what}: a partial file is left");
            assert!(
                err.contains(&format!("error: {what} was not written")),
                "{what}: {err}"
            );
        }
    }
    assert!(lost >= 1);
    // The summary is printed all the same.
    assert!(out.contains("12 of 12 seeds run"), "{out}");
}

#[test]
fn a_bundle_that_cannot_be_written_keeps_its_failure_report() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("waitcnt_release_early");
    let rtl = f.apply(dir.path());
    prebuild(&rtl, &f.unit, &f.profile);
    let regress = |bundles: &Path, limit: Option<u64>| {
        let junit = dir.path().join("junit.xml");
        let _ = std::fs::remove_file(&junit);
        let mut cmd = gpucosim();
        cmd.args(["regress", "--unit", &f.unit, "--profile", &f.profile])
            .args([
                "--seeds",
                &format!("{0}..{0}", f.seed),
                "--cycles",
                &f.cycles.to_string(),
            ])
            .arg("--rtl")
            .arg(&rtl)
            .arg("--junit")
            .arg(&junit)
            .arg("--bundles")
            .arg(bundles);
        if let Some(l) = limit {
            limit_files(&mut cmd, l);
        }
        let o = cmd.output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "a lost output:\n{out}\n{err}");
        let x = std::fs::read_to_string(&junit).unwrap();
        let doc = roxmltree::Document::parse(&x).unwrap();
        let failure = doc
            .descendants()
            .find(|n| n.has_tag_name("failure"))
            .unwrap_or_else(|| panic!("the divergence became something else:\n{x}"));
        let body = failure.text().unwrap().to_string();
        assert!(
            body.contains("DIVERGENCE in waitcnt.gfx9.1 at cycle"),
            "{body}"
        );
        (body, err)
    };
    // A file where the bundle should go: the bundle cannot be written.
    let bundles = dir.path().join("bundles");
    std::fs::create_dir_all(&bundles).unwrap();
    std::fs::write(bundles.join("waitcnt.gfx9.1"), "in the way").unwrap();
    let (body, err) = regress(&bundles, None);
    assert!(err.contains("error: not written: bundle"), "{err}");
    assert!(body.contains("NOT WRITTEN: bundle"), "{body}");
    // Without the bundle, the reproduce command reruns the seed.
    assert!(
        body.contains("reproduce: gpucosim run --unit waitcnt"),
        "{body}"
    );
    // A full disk: the waveform does not fit, the report and JUnit do.
    let bundles = dir.path().join("bundles2");
    let (body, err) = regress(&bundles, Some(4 * 1024));
    assert!(err.contains("error: not written: waveform"), "{err}");
    assert!(body.contains("NOT WRITTEN: waveform"), "{body}");
    assert!(bundles.join("waitcnt.gfx9.1/repro.json").is_file());
}

#[test]
fn result_files_honour_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("waitcnt_release_early");
    let rtl = f.apply(dir.path());
    let out = dir.path().join("out");
    let run = |args: &[&str]| {
        let mut cmd = gpucosim();
        cmd.args(args).current_dir(&out);
        // SAFETY: umask is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::umask(0o027);
                Ok(())
            });
        }
        cmd.output().unwrap()
    };
    std::fs::create_dir_all(&out).unwrap();
    let r = rtl.to_str().unwrap();
    let seed = f.seed.to_string();
    let o = run(&[
        "run",
        "--unit",
        &f.unit,
        "--profile",
        &f.profile,
        "--seed",
        &seed,
        "--cycles",
        "20000",
        "--rtl",
        r,
        "--waves",
        "waves",
        "--json",
        "run.json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let o = run(&[
        "regress",
        "--unit",
        &f.unit,
        "--profile",
        &f.profile,
        "--seeds",
        &format!("{seed}..{seed}"),
        "--cycles",
        "20000",
        "--rtl",
        r,
        "--junit",
        "junit.xml",
        "--results",
        "results.json",
        "--coverage",
        "cov.json",
        "--bundles",
        "bundles",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let mode = |p: &str| std::fs::metadata(out.join(p)).unwrap().permissions().mode() & 0o777;
    for file in [
        "waves/waitcnt.gfx9.1.vcd",
        "run.json",
        "junit.xml",
        "results.json",
        "cov.json",
        "bundles/waitcnt.gfx9.1/repro.json",
        "bundles/waitcnt.gfx9.1/waitcnt.gfx9.1.vcd",
    ] {
        assert_eq!(mode(file), 0o640, "{file}");
    }
    assert_eq!(mode("bundles/waitcnt.gfx9.1"), 0o750);
}

/// Waits until process `pid` catches SIGTERM (its handler is installed).
fn wait_for_handler(pid: u32) {
    for _ in 0..2000 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .unwrap_or(0);
        if caught & (1 << (libc::SIGTERM - 1)) != 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("process {pid} never caught SIGTERM");
}

#[test]
fn sigterm_ends_a_run_with_143_after_writing_its_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    prebuild(&gpucosim_tests::repo_root().join("rtl"), "waitcnt", "gfx9");
    let child = gpucosim()
        .args([
            "run",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--cycles",
            "1000000000000",
        ])
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_handler(child.id());
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(143), "{out}\n{err}");
    assert!(
        out.starts_with("INTERRUPTED waitcnt.gfx9.1 before cycle"),
        "{out}"
    );
    assert!(out.contains("by SIGTERM"), "{out}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(j["verdict"], "interrupted");
    assert_eq!(j["end"]["signal"], 15);
}

#[test]
fn a_broken_build_left_behind_is_cleaned_up_by_the_next_build() {
    let dir = tempfile::tempdir().unwrap();
    // A cache of its own (with the Verilator already found), so that the
    // build below is not served from the shared cache.
    let cache = gpucosim_tests::fresh_cache(&dir.path().join("cache"));
    let verilator = gpucosim::Verilator::locate(&gpucosim::cache_root())
        .unwrap()
        .exe;
    let stale = cache.join("rtl").join(".build-dead");
    std::fs::create_dir_all(stale.join("obj")).unwrap();
    // The lock file of a build whose process is gone: nobody holds it.
    std::fs::write(stale.join(".lock"), "").unwrap();
    // A build that is running holds its lock: it must stay.
    let live = cache.join("rtl").join(".build-live");
    std::fs::create_dir_all(&live).unwrap();
    let lock = std::fs::File::create(live.join(".lock")).unwrap();
    // SAFETY: flock on a file we own.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) },
        0
    );
    let o = gpucosim()
        .args(["build", "--unit", "waitcnt", "--profile", "gfx9"])
        .env("GPUCOSIM_CACHE_DIR", &cache)
        .env("VERILATOR", &verilator)
        .output()
        .unwrap();
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(!stale.exists(), "the stale build directory is still there");
    assert!(live.exists(), "a live build's directory was removed");
    drop(lock);
}

/// Peak resident memory of `cmd` (a child waited for with `wait4`), in
/// kilobytes, and whether it exited 0.
// The child is waited for with wait4, which `Child` cannot do.
#[allow(clippy::zombie_processes)]
fn peak_kb(mut cmd: Command) -> (bool, i64) {
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, not waited for elsewhere.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    assert_eq!(pid, child.id() as i32);
    (
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        ru.ru_maxrss,
    )
}

/// A run ten times longer needs no more memory: what it consumed is
/// counted, not kept (it used to keep every transaction, ~150 bytes a cycle
/// on ta: 65 MB more here).
#[test]
fn memory_does_not_grow_with_run_length() {
    prebuild(&gpucosim_tests::repo_root().join("rtl"), "ta", "gfx9");
    let run = |cycles: &str| {
        let mut c = gpucosim();
        c.args([
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--cycles",
            cycles,
        ]);
        let (ok, kb) = peak_kb(c);
        assert!(ok, "ta.gfx9 {cycles} cycles did not pass");
        kb
    };
    let short = run("50000");
    let long = run("500000");
    assert!(
        long - short < 8 * 1024,
        "peak RSS {short} kB for 50,000 cycles, {long} kB for 500,000"
    );
}

/// Per handle of an FST, its changes (time, characters).
type Changes = BTreeMap<usize, Vec<(u64, String)>>;

/// The variables of an FST (full path → handle) and their changes.
fn read_fst(path: &Path) -> (BTreeMap<String, usize>, Changes) {
    use fst_reader::{FstFilter, FstHierarchyEntry, FstReader, FstSignalValue};
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut r = FstReader::open_and_read_time_table(f).unwrap();
    let (mut scope, mut vars) = (Vec::new(), BTreeMap::new());
    r.read_hierarchy(|e| match e {
        FstHierarchyEntry::Scope { name, .. } => scope.push(name),
        FstHierarchyEntry::UpScope => {
            scope.pop();
        }
        FstHierarchyEntry::Var { name, handle, .. } => {
            vars.insert(format!("{}.{name}", scope.join(".")), handle.get_index());
        }
        _ => {}
    })
    .unwrap();
    let mut changes = Changes::new();
    r.read_signals(&FstFilter::all(), |t, h, v| {
        if let FstSignalValue::String(s) = v {
            let s = String::from_utf8_lossy(s).into_owned();
            changes.entry(h.get_index()).or_default().push((t, s));
        }
    })
    .unwrap();
    (vars, changes)
}

#[test]
fn an_fst_waveform_is_written_for_a_divergence_or_its_loss_reported() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("waitcnt_release_early");
    let rtl = f.apply(dir.path());
    prebuild(&rtl, &f.unit, &f.profile);
    let run = |waves: &Path, json: Option<&Path>, limit: Option<u64>| {
        let mut cmd = gpucosim();
        cmd.args(["run", "--unit", &f.unit, "--profile", &f.profile])
            .args([
                "--seed",
                &f.seed.to_string(),
                "--cycles",
                &f.cycles.to_string(),
            ])
            .args(["--waves-format", "fst", "--rtl"])
            .arg(&rtl)
            .arg("--waves")
            .arg(waves);
        if let Some(j) = json {
            cmd.arg("--json").arg(j);
        }
        if let Some(l) = limit {
            limit_files(&mut cmd, l);
        }
        cmd.output().unwrap()
    };
    // Written: `<name>.fst`, the window around the divergence, named in the
    // report, the JSON and the command that reproduces it.
    let (waves, json) = (dir.path().join("waves"), dir.path().join("run.json"));
    let o = run(&waves, Some(&json), None);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let at = cycle_in(&out);
    let fst = waves.join("waitcnt.gfx9.1.fst");
    assert!(
        out.contains(&format!("waveform: {} (cycles ", fst.display())),
        "{out}"
    );
    assert!(out.contains("--waves-format fst"), "{out}");
    let mut names: Vec<_> = std::fs::read_dir(&waves)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    // With its viewer sessions, which name it.
    assert_eq!(
        names,
        [
            "waitcnt.gfx9.1.fst",
            "waitcnt.gfx9.1.gtkw",
            "waitcnt.gfx9.1.sucl"
        ]
    );
    let gtkw = std::fs::read_to_string(waves.join("waitcnt.gfx9.1.gtkw")).unwrap();
    assert!(gtkw.contains("[dumpfile] \"waitcnt.gfx9.1.fst\""), "{gtkw}");
    names_existing_waveforms("run", &out, &[]);
    // `gpucosim waves` reads the FST as it reads the VCD of the same run.
    let vcd_dir = dir.path().join("waves-vcd");
    let o = gpucosim()
        .args(["run", "--unit", &f.unit, "--profile", &f.profile])
        .args([
            "--seed",
            &f.seed.to_string(),
            "--cycles",
            &f.cycles.to_string(),
        ])
        .arg("--rtl")
        .arg(&rtl)
        .arg("--waves")
        .arg(&vcd_dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let view = |p: &Path| {
        let o = gpucosim().arg("waves").arg(p).output().unwrap();
        assert!(o.status.success(), "{:?}", text(&o));
        text(&o)
            .0
            .replace(&fst.display().to_string(), "WAVEFORM")
            .replace(&p.display().to_string(), "WAVEFORM")
    };
    let from_vcd = view(&vcd_dir.join("waitcnt.gfx9.1.vcd"));
    assert!(from_vcd.contains("first divergence at cycle"), "{from_vcd}");
    assert_eq!(view(&fst), from_vcd);
    // A bundle or folder holding an FST is read the same way.
    assert_eq!(view(&waves), from_vcd);
    assert!(
        out.contains(&format!(
            "session: surfer {} -c {}",
            fst.display(),
            waves.join("waitcnt.gfx9.1.sucl").display()
        )),
        "{out}"
    );
    // A regression's bundle, its report and the JUnit report name the
    // bundle's FST; so does the bundle `shrink` makes of it, in FST too.
    let (bundles, junit) = (dir.path().join("bundles"), dir.path().join("junit.xml"));
    let o = gpucosim()
        .args([
            "regress",
            "--unit",
            &f.unit,
            "--profile",
            &f.profile,
            "--no-stress",
        ])
        .args([
            "--seeds",
            &format!("{0}..{0}", f.seed),
            "--cycles",
            &f.cycles.to_string(),
        ])
        .args(["--waves-format", "fst", "--rtl"])
        .arg(&rtl)
        .arg("--bundles")
        .arg(&bundles)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let bundle = bundles.join(format!("waitcnt.gfx9.{}", f.seed));
    let report = std::fs::read_to_string(bundle.join("report.txt")).unwrap();
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(
        out.contains(&format!("gpucosim replay {}", bundle.display())),
        "{out}\n{err}"
    );
    for (what, text) in [("report.txt", &report), ("junit", &junit)] {
        let named = names_existing_waveforms(what, text, &[]);
        assert!(
            named
                .iter()
                .any(|p| p.starts_with(&bundle) && p.extension().unwrap() == "fst"),
            "{what}: {text}"
        );
    }
    let shrunk = dir.path().join("shrunk");
    let o = gpucosim()
        .arg("shrink")
        .arg(&bundle)
        .arg("--out")
        .arg(&shrunk)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let report = std::fs::read_to_string(shrunk.join("report.txt")).unwrap();
    let named = names_existing_waveforms("shrunk report.txt", &report, &[]);
    assert!(
        named.iter().any(|p| p.extension().unwrap() == "fst"),
        "{report}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(j["vcd"], fst.display().to_string());
    let (vars, changes) = read_fst(&fst);
    let any = vars["tb.mismatch.any"];
    let first_rise = changes[&any].iter().find(|(_, v)| v == "1").map(|c| c.0);
    assert_eq!(first_rise, Some(10 * at), "{:?}", changes[&any]);
    assert!(vars.contains_key("tb.cycle"), "{vars:?}");
    assert!(vars.keys().any(|k| k.starts_with("tb.rtl.")), "{vars:?}");

    // Not written (a file-size limit of half its size, as a full disk): the
    // divergence is reported all the same (exit 1), the loss in one line,
    // and nothing is left.
    let size = std::fs::metadata(&fst).unwrap().len();
    let waves = dir.path().join("waves2");
    let o = run(&waves, None, Some(size / 2));
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("waveform NOT written:"), "{out}");
    let lost: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("the waveform was not written"))
        .collect();
    assert_eq!(lost.len(), 1, "{err}");
    assert!(lost[0].contains("waitcnt.gfx9.1.fst"), "{err}");
    assert_eq!(std::fs::read_dir(&waves).unwrap().count(), 0);
}

/// A regression whose executable is replaced on disk while it runs (a
/// rebuild, a cache restore) finishes every job with the binary it started
/// with: jobs start from the running executable, not from its path.
#[test]
fn a_regression_outlives_its_binary_being_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("gpucosim");
    std::fs::copy(gpucosim_bin(), &exe).unwrap();
    prebuild(&gpucosim_tests::repo_root().join("rtl"), "waitcnt", "gfx9");
    let results = dir.path().join("results.json");
    let child = quick(Command::new(&exe))
        .args([
            "regress",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--seeds",
            "1..6",
            "--jobs",
            "1",
            "--cycles",
            "20000",
            "--no-stress",
        ])
        .arg("--results")
        .arg(&results)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The regression is about to start its jobs once it catches SIGTERM.
    wait_for_handler(child.id());
    std::fs::remove_file(&exe).unwrap();
    std::fs::write(&exe, "#!/bin/sh\nexit 9\n").unwrap();
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        !format!("{out}{err}").contains("cannot start"),
        "{out}\n{err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 6, "{r}");
    assert!(jobs.iter().all(|j| j["status"] == "passed"), "{r}");
}

/// A waitcnt trace of hundreds of thousands of cycles is answered in the
/// memory of one cycle: read, run and written out as it goes (it used to
/// be parsed whole and its result built in memory, gigabytes for millions
/// of cycles).
#[test]
fn a_long_eval_trace_streams_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let trace = |n: usize| {
        let path = dir.path().join(format!("trace{n}.json"));
        let mut s = String::from("{\"trace\": [");
        for i in 0..n {
            if i > 0 {
                s.push(',');
            }
            s.push_str(match i % 5 {
                0 => r#"{"issue": {"wave": 3, "class": "lds"}}"#,
                1 => r#"{"returns": [{"wave": 3, "class": "lds"}]}"#,
                _ => "{}",
            });
        }
        s.push_str("]}");
        std::fs::write(&path, s).unwrap();
        path
    };
    let peak = |path: &Path, compact: bool| {
        let mut cmd = gpucosim();
        cmd.args(["eval", "--unit", "waitcnt", "--profile", "gfx11"]);
        if compact {
            cmd.arg("--compact");
        }
        cmd.stdin(std::fs::File::open(path).unwrap());
        let (ok, kb) = peak_kb(cmd);
        assert!(ok, "eval of {} failed", path.display());
        kb
    };
    let (short, long) = (trace(10_000), trace(400_000));
    for compact in [true, false] {
        let (a, b) = (peak(&short, compact), peak(&long, compact));
        assert!(
            b < a + 8 * 1024,
            "compact {compact}: 10,000 cycles peak at {a} kB, 400,000 at {b} kB"
        );
    }
}

/// The waveform and session files `text` names (paths ending in `.vcd`,
/// `.fst`, `.gtkw` or `.sucl`): each must exist, and none be a VCD unless
/// listed in `vcds`. Returns them.
fn names_existing_waveforms(what: &str, text: &str, vcds: &[&Path]) -> Vec<PathBuf> {
    let mut named = Vec::new();
    for word in text
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '(' | ')' | ','))
    {
        let p = Path::new(word);
        let Some(ext) = p.extension().and_then(|e| e.to_str()) else {
            continue;
        };
        if !matches!(ext, "vcd" | "fst" | "gtkw" | "sucl") || !word.contains('/') {
            continue;
        }
        assert!(
            p.exists(),
            "{what} names {word}, which does not exist:\n{text}"
        );
        assert!(
            ext != "vcd" || vcds.contains(&p),
            "{what} names a VCD, {word}:\n{text}"
        );
        named.push(p.to_path_buf());
    }
    assert!(!named.is_empty(), "{what} names no waveform:\n{text}");
    named
}

/// The regression's worker processes among the children of `pid`
/// (`gpucosim job`).
fn workers_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // The parent is the second field after the command in parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
        if ppid == Some(pid) && cmdline.ends_with(b"gpucosim\0job\0") {
            out.push(child);
        }
    }
    out
}

/// A regression's jobs run one after another in a worker process per
/// thread; a worker that dies in the middle of a job (killed here from
/// outside, as a crash in the RTL's C++ would end it) fails that job alone,
/// with how it died, and the next job starts a fresh worker: every other
/// job passes and every job is in the results.
#[test]
fn a_worker_that_dies_fails_its_job_alone() {
    let dir = tempfile::tempdir().unwrap();
    prebuild(&gpucosim_tests::repo_root().join("rtl"), "waitcnt", "gfx9");
    let results = dir.path().join("results.json");
    let child = gpucosim()
        .args([
            "regress",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--seeds",
            "1..3",
            "--jobs",
            "1",
            "--cycles",
            "600000",
            "--no-stress",
            "--quiet",
        ])
        .arg("--results")
        .arg(&results)
        .arg("--bundles")
        .arg(dir.path().join("bundles"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    let first = loop {
        if let Some(&w) = workers_of(child.id()).first() {
            break w;
        }
        assert!(t0.elapsed().as_secs() < 60, "no worker process started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    // Well inside the first job (600,000 cycles take a good part of a second).
    std::thread::sleep(std::time::Duration::from_millis(100));
    // SAFETY: kills a process of this test's own making.
    unsafe { libc::kill(first as libc::pid_t, libc::SIGKILL) };
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    let r = gpucosim::regress::ResultsFile::load(&results).unwrap();
    assert_eq!(r.jobs.len(), 3, "{out}\n{err}");
    let failed: Vec<_> = r.jobs.iter().filter(|j| !j.passed()).collect();
    assert_eq!(failed.len(), 1, "{out}\n{err}");
    assert_eq!(failed[0].job.seed, 1);
    assert!(
        failed[0]
            .message
            .contains("the job process was killed by signal 9 without a result"),
        "{}",
        failed[0].message
    );
    assert!(
        failed[0].report.contains("the job's last output"),
        "{}",
        failed[0].report
    );
    assert_ne!(o.status.code(), Some(0), "{out}\n{err}");
}

/// A waveform window that does not fit in memory (an address-space limit,
/// RLIMIT_AS, below what the window's frames need) loses the waveform
/// alone: the run ends with its own report and exit code, the JSON is
/// written, and one line names the window and the bytes it needs.
#[test]
#[ignore = "heavy (a 3-second ta run under a memory limit): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn a_window_that_does_not_fit_in_memory_keeps_the_report() {
    prebuild(&gpucosim_tests::repo_root().join("rtl"), "ta", "gfx9");
    let dir = tempfile::tempdir().unwrap();
    let mut c = gpucosim();
    c.current_dir(dir.path()).args([
        "run",
        "--unit",
        "ta",
        "--profile",
        "gfx9",
        "--cycles",
        "100000000",
        "--timeout",
        "3",
        "--window",
        "100000000",
        "--waves",
        "w",
        "--no-pipeline",
        "--json",
        "r.json",
    ]);
    limit(&mut c, libc::RLIMIT_AS, 1536 << 20);
    let o = c.output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(4), "{out}\n{err}");
    assert!(out.contains("TIMEOUT ta.gfx9.1 before cycle "), "{out}");
    assert!(
        out.contains("waveform NOT written: w/ta.gfx9.1.vcd: a waveform window of "),
        "{out}"
    );
    let line = err
        .lines()
        .find(|l| l.starts_with("error: the waveform was not written: "))
        .unwrap_or_else(|| panic!("no error line:\n{err}"));
    assert!(line.ends_with(" bytes of memory"), "{line}");
    assert!(!dir.path().join("w/ta.gfx9.1.vcd").exists());
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    assert!(json.to_string().contains("a waveform window of "), "{json}");
}

/// The job times cannot be written at the end of a regression (a file-size
/// limit below the file's size, as a full disk): a one-line warning naming
/// the file, which keeps its old content whole; the results and the exit
/// code are those of the same regression without the limit.
#[test]
fn job_times_that_cannot_be_written_leave_the_regression_whole() {
    let dir = tempfile::tempdir().unwrap();
    let times = dir.path().join("times.json");
    // The groups of many kernels: a file larger than the results.
    let groups: serde_json::Map<String, serde_json::Value> = (0..100)
        .map(|k| {
            (
                format!("waitcnt.gfx9.kernel.k{k}"),
                serde_json::json!({"seconds": 0.1, "cycles": 1000, "jobs": 1}),
            )
        })
        .collect();
    let old = serde_json::json!({"format": 1, "groups": groups}).to_string();
    let run = |name: &str, limit: Option<u64>| {
        std::fs::write(&times, &old).unwrap();
        let results = dir.path().join(format!("{name}.json"));
        let mut cmd = gpucosim();
        cmd.args([
            "regress",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--seeds",
            "1..2",
            "--cycles",
            "10000",
            "--no-stress",
            "--jobs",
            "1",
            "-q",
        ])
        .arg("--results")
        .arg(&results)
        .arg("--bundles")
        .arg(dir.path().join(format!("{name}-bundles")))
        .arg("--job-times")
        .arg(&times);
        if let Some(l) = limit {
            limit_files(&mut cmd, l);
        }
        let o = cmd.output().unwrap();
        let (_, err) = text(&o);
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
        let jobs: Vec<_> = r["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| (j["job"].clone(), j["status"].clone(), j["cycles"].clone()))
            .collect();
        (o.status.code(), err, jobs)
    };
    let (code, err, free) = run("free", None);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(std::fs::read_to_string(&times)
        .unwrap()
        .contains("\"waitcnt.gfx9.quick\""));
    assert!(old.len() > 6 * 1024);
    let (code, err, full) = run("full", Some(6 * 1024));
    assert_eq!(code, Some(0), "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("warning: cannot keep this regression's job times")
            && warnings[0].contains(times.to_str().unwrap()),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&times).unwrap(), old);
    assert_eq!(free, full);
    let stray: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}
