//! The RTL build cache: a build keeps only what a cached start needs, two
//! processes wanting the same entry on a fresh cache build it once, a cold
//! build says what it did when stderr is no terminal, and `cache --list` /
//! `--prune` on a cache tree made by hand.

use crate::gpucosim_bin;
use gpucosim::cache::{self, Prune};
use gpucosim_tests::quick;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

/// The Verilator found for the shared cache, so that a fresh cache does not
/// provision its own.
fn verilator() -> PathBuf {
    gpucosim::Verilator::locate(&gpucosim::cache_root())
        .expect("Verilator")
        .exe
}

/// `gpucosim` on the fresh cache `cache`, building the quick flavor.
fn gpucosim(cache: &Path, verilator: &Path) -> Command {
    let mut c = quick(Command::new(gpucosim_bin()));
    c.env("GPUCOSIM_CACHE_DIR", cache)
        .env("VERILATOR", verilator)
        .env_remove("GPUCOSIM_LOG");
    c
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Appends edit `n` (a comment) to waitcnt's top in the RTL tree `rtl`, so
/// that it is another design with a build of its own, and builds it for
/// gfx9 with `cmd` (a `gpucosim` with the test's environment), which must
/// succeed (`what` names the build in the failure).
fn build_edited_waitcnt(mut cmd: Command, rtl: &Path, n: usize, what: &str) {
    let top = rtl.join("waitcnt/waitcnt_top.sv");
    let sv = std::fs::read_to_string(&top).unwrap();
    std::fs::write(&top, format!("{sv}// edit {n}\n")).unwrap();
    let o = cmd
        .args(["build", "--unit", "waitcnt", "--profile", "gfx9", "--rtl"])
        .arg(rtl)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{what}: {out}\n{err}");
}

/// What each entry of the cache at `cache` says of its build.
fn entry_metas(cache: &Path) -> Vec<cache::EntryMeta> {
    cache::list(cache)
        .unwrap()
        .iter()
        .map(|e| {
            serde_json::from_str(&std::fs::read_to_string(e.path.join(cache::META_FILE)).unwrap())
                .unwrap()
        })
        .collect()
}

/// A build of lds (whose Verilated C++ is split in files compiled with
/// precompiled headers: 136 MiB of build directory) leaves an entry of the
/// library and its description: nothing else, a few hundred KiB over the
/// library at most. Before entries were slimmed, it kept all of
/// Verilator's build directory.
#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn a_build_keeps_only_what_a_cached_start_needs() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let v = verilator();
    let o = gpucosim(&cache, &v)
        .args(["build", "--unit", "lds", "--profile", "gfx9"])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let lib = PathBuf::from(out.trim());
    let entry = lib.parent().unwrap();
    assert_eq!(names(entry), [".use", "entry.json", "libgcsim.so"]);
    let size = cache::disk_usage(entry);
    let lib_size = cache::disk_usage(&lib);
    assert!(
        size <= lib_size + 64 * 1024 && size < 4 << 20,
        "the entry takes {} for a library of {}",
        cache::human_bytes(size),
        cache::human_bytes(lib_size)
    );
    // Its description says what it is.
    let entries = cache::list(&cache).unwrap();
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert!(e.complete);
    assert_eq!(e.spare_bytes, 0);
    let m = e.meta.as_ref().expect("entry.json");
    assert_eq!(
        (m.unit.as_str(), m.profile.as_str(), e.flavour.as_str()),
        ("lds", "gfx9", "quick")
    );
    assert!(m.rtl_dir.ends_with("rtl/lds"), "{}", m.rtl_dir);
    assert!(
        m.seconds >= m.verilator_seconds + m.cxx_seconds - 0.5,
        "{m:?}"
    );
    // A second start is served from it, and loads it.
    let o = gpucosim(&cache, &v)
        .args([
            "run",
            "--unit",
            "lds",
            "--profile",
            "gfx9",
            "--cycles",
            "200",
        ])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(!err.contains("building"), "{err}");
    // That start is its last use, with the RTL it came from.
    let e = &cache::list(&cache).unwrap()[0];
    let since = e.last_used.and_then(|t| t.elapsed().ok()).unwrap();
    assert!(since < Duration::from_secs(60), "{since:?}");
    assert!(e.rtl_dir.as_deref().unwrap().ends_with("rtl/lds"), "{e:?}");
}

/// Builds of a unit whose RTL differs behind the same ports compile the
/// shim once: a later one takes its object from the cache and still runs
/// its own RTL (a broken fixture, which diverges where the others pass). A
/// cache where the object cannot be kept builds all the same.
#[test]
fn builds_with_the_same_ports_share_the_shim_object() {
    let dir = tempfile::tempdir().unwrap();
    let cache = gpucosim_tests::fresh_cache(&dir.path().join("cache"));
    let objects = cache.join(cache::USER_OBJECTS);
    if objects.exists() {
        std::fs::remove_dir_all(&objects).unwrap();
    }
    let v = verilator();
    let (name, fixture) = gpucosim_tests::BrokenFixture::all()
        .into_iter()
        .find(|(_, f)| f.unit == "waitcnt")
        .expect("a waitcnt fixture");
    let good = dir.path().join("good/rtl");
    gpucosim_tests::copy_tree(&gpucosim_tests::repo_root().join("rtl"), &good).unwrap();
    // The same design with one more comment: a build of its own.
    let other = dir.path().join("other/rtl");
    gpucosim_tests::copy_tree(&good, &other).unwrap();
    let top = other.join("waitcnt/waitcnt_top.sv");
    let sv = std::fs::read_to_string(&top).unwrap();
    std::fs::write(&top, sv + "// one more comment\n").unwrap();
    let bad = fixture.apply(&dir.path().join("bad"));
    let run = |rtl: &Path| {
        let o = gpucosim(&cache, &v)
            .args(["run", "--unit", "waitcnt", "--profile", &fixture.profile])
            .args(["--seed", &fixture.seed.to_string()])
            .args(["--cycles", &fixture.cycles.to_string(), "-v", "--rtl"])
            .arg(rtl)
            .output()
            .unwrap();
        let (out, err) = text(&o);
        (o.status.code(), format!("{out}\n{err}"))
    };
    // Its directory taken by a file: the object is not kept, and says so.
    std::fs::write(&objects, "").unwrap();
    let (code, log) = run(&good);
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("gc_shim.o: compiled, then kept as"), "{log}");
    assert!(log.contains("gc_shim.o not kept as"), "{log}");
    std::fs::remove_file(&objects).unwrap();
    let (code, log) = run(&other);
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("gc_shim.o: compiled, then kept as"), "{log}");
    assert_eq!(names(&objects).len(), 1, "{log}");
    let (code, log) = run(&bad);
    assert_eq!(code, Some(1), "fixture {name} not caught:\n{log}");
    assert!(log.contains("gc_shim.o: reused from"), "{log}");
    assert!(log.contains("DIVERGENCE"), "{log}");
    assert_eq!(names(&objects).len(), 1, "{log}");
}

/// An executable `path` that logs each run's arguments into `log`, waits
/// `pause` seconds and runs `real` with them.
fn logging_wrapper(path: &Path, real: &str, log: &Path, pause: u32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nsleep {pause}\nexec '{real}' \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

/// `$CXX` compiles and links the RTL in place of the compiler Verilator's
/// makefile names (which the makefile's own assignment would otherwise
/// keep, `$CXX` only changing the build key): a wrapper named by it logs
/// each call and hands it to `c++`, and the build goes through it; a `$CXX`
/// that does not exist fails the build, naming it. Two builds started
/// together on the fresh cache compile Verilator's runtime objects once.
#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn the_compiler_cxx_names_builds_the_rtl() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let v = verilator();
    let log = dir.path().join("cxx.log");
    let cxx = logging_wrapper(&dir.path().join("logging-c++"), "c++", &log, 0);
    let build = |unit: &str| {
        gpucosim(&cache, &v)
            .env("CXX", &cxx)
            .args(["build", "--unit", unit, "--profile", "gfx9"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (build("waitcnt"), build("ta"));
    for o in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
    }
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let runtime = calls
        .lines()
        .filter(|l| l.contains("verilated.cpp"))
        .count();
    assert_eq!(
        runtime, 1,
        "Verilator's runtime compiled {runtime} times:\n{calls}"
    );
    assert!(
        calls.lines().any(|l| l.contains("gc_shim.cpp")),
        "the shim was not compiled by $CXX:\n{calls}"
    );
    assert!(
        calls.lines().any(|l| l.contains("-shared")),
        "the library was not linked by $CXX:\n{calls}"
    );
    let missing = dir.path().join("no-such-c++");
    let o = gpucosim(&cache, &v)
        .env("CXX", &missing)
        .args(["build", "--unit", "waitcnt", "--profile", "gfx11"])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}\n{err}");
    assert!(err.contains("no-such-c++"), "{err}");
}

/// A precompiled `verilated.h` is only ever a speed-up: where `$CXX`
/// fails to precompile it, or writes something the compiler then does not
/// read, the build still succeeds, parsing the header's text, its entry
/// says the header was not read, and the runtime's later builds do not try
/// to precompile it again. (A `$CXX` wrapper that fails, or writes garbage,
/// for `-x c++-header` and hands every other call to `c++`.)
#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn a_precompiled_header_the_compiler_cannot_make_or_read_is_not_tried_again() {
    use std::os::unix::fs::PermissionsExt;
    let v = verilator();
    for (mode, act) in [
        ("fails", "exit 1"),
        (
            "writes garbage",
            "out=; prev=; for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n\
             echo garbage > \"$out\"; exit 0",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let log = dir.path().join("headers.log");
        let cxx = dir.path().join("c++");
        std::fs::write(
            &cxx,
            format!(
                "#!/bin/sh\n\
                 case \" $* \" in *\" c++-header \"*)\n\
                 echo \"$*\" >> '{}'\n{act}\n;;\nesac\nexec c++ \"$@\"\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&cxx, std::fs::Permissions::from_mode(0o755)).unwrap();
        let rtl = dir.path().join("rtl");
        gpucosim_tests::copy_tree(&gpucosim_tests::repo_root().join("rtl"), &rtl).unwrap();
        for n in 1..=2 {
            let mut c = gpucosim(&cache, &v);
            c.env("CXX", &cxx);
            build_edited_waitcnt(c, &rtl, n, &format!("{mode}, build {n}"));
            let metas = entry_metas(&cache);
            assert_eq!(metas.len(), n, "{mode}");
            for meta in &metas {
                assert!(!meta.precompiled_header, "{mode}, build {n}: {meta:?}");
            }
            let tries = std::fs::read_to_string(&log).unwrap_or_default();
            assert_eq!(
                tries.lines().count(),
                1,
                "{mode}, build {n}: precompiled more than once:\n{tries}"
            );
            let runtimes = names(&cache.join("runtime"));
            let runtime = runtimes
                .iter()
                .find(|r| !r.starts_with('.'))
                .map(|r| cache.join("runtime").join(r))
                .unwrap_or_else(|| panic!("{mode}: no runtime in {runtimes:?}"));
            let kept = names(&runtime);
            assert!(
                kept.contains(&"gc_verilated.h.unread".to_string()),
                "{mode}: {kept:?}"
            );
            assert!(
                !kept.iter().any(|k| k.ends_with(".gch")),
                "{mode}: {kept:?}"
            );
        }
    }
}

/// Two regressions started together on one fresh cache build the RTL they
/// both need once: one builds, the other says it waits for that process
/// and then starts from the cache. Both pass. (Before the per-entry lock,
/// each built it, the loser discarding its copy.) The build's `make`, a
/// wrapper first on `PATH` that logs it and waits a second, makes sure the
/// two overlap; Verilator is the shared cache's, so that the fresh cache
/// starts with its runtime objects.
#[test]
fn two_concurrent_regress_runs_on_one_fresh_cache_build_once() {
    let dir = tempfile::tempdir().unwrap();
    let cache = gpucosim_tests::fresh_cache(&dir.path().join("cache"));
    let log = dir.path().join("make.log");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let make = std::env::split_paths(&path)
        .map(|d| d.join("make"))
        .find(|m| m.is_file())
        .expect("make on PATH");
    logging_wrapper(&bin.join("make"), &make.display().to_string(), &log, 1);
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).unwrap();
    let v = verilator();
    let start = |n: u32| {
        let cwd = dir.path().join(format!("run{n}"));
        std::fs::create_dir_all(&cwd).unwrap();
        gpucosim(&cache, &v)
            .env("PATH", &path)
            .current_dir(&cwd)
            .args([
                "regress",
                "--unit",
                "waitcnt",
                "--profile",
                "gfx9",
                "--seeds",
                "1..2",
                "--cycles",
                "2000",
                "--jobs",
                "1",
                "--no-stress",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(1), start(2));
    let pids = [a.id(), b.id()];
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let mut all = String::new();
    for o in &outs {
        let (out, err) = text(o);
        assert!(o.status.success(), "{out}\n{err}");
        all.push_str(&err);
    }
    // A model's make names no target; one compiling Verilator's runtime
    // alone (where the shared cache had none to give) names its objects,
    // and one precompiling `verilated.h` its file.
    let runs = std::fs::read_to_string(&log).unwrap_or_default();
    let builds = runs
        .lines()
        .filter(|l| {
            !l.split(' ')
                .any(|a| a.ends_with(".o") || a.ends_with(".gch"))
        })
        .count();
    assert_eq!(builds, 1, "make ran {builds} model builds:\n{runs}\n{all}");
    let building: Vec<&str> = all
        .lines()
        .filter(|l| l.starts_with("building waitcnt RTL"))
        .collect();
    assert_eq!(building.len(), 1, "{all}");
    let waiting: Vec<&str> = all
        .lines()
        .filter(|l| l.starts_with("waiting for another gpucosim building waitcnt gfx9 quick"))
        .collect();
    assert_eq!(waiting.len(), 1, "{all}");
    assert!(
        pids.iter()
            .any(|p| waiting[0].ends_with(&format!("(pid {p})"))),
        "{} names neither {pids:?}",
        waiting[0]
    );
    assert_eq!(cache::list(&cache).unwrap().len(), 1);
}

/// Where stderr is no terminal, a cold build ends with one line saying
/// what was built and how long each phase took; a cached start says
/// nothing.
#[test]
fn a_cold_build_says_how_long_it_took_when_stderr_is_no_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let cache = gpucosim_tests::fresh_cache(&dir.path().join("cache"));
    let v = verilator();
    let build = || {
        let o = gpucosim(&cache, &v)
            .args(["build", "--unit", "waitcnt", "--profile", "gfx11"])
            .output()
            .unwrap();
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        err
    };
    let err = build();
    let built: Vec<&str> = err.lines().filter(|l| l.starts_with("built ")).collect();
    assert_eq!(built.len(), 1, "{err}");
    // built waitcnt gfx11 quick in 2.3 s (verilator 0.6 s, C++ 1.6 s)
    let rest = built[0]
        .strip_prefix("built waitcnt gfx11 quick in ")
        .unwrap_or_else(|| panic!("{}", built[0]));
    let figures: Vec<f64> = rest
        .split([' ', '(', ')', ','])
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(figures.len(), 3, "{}", built[0]);
    assert!(
        rest.contains(" s (verilator ") && rest.contains(" s, C++ ") && rest.ends_with(" s)"),
        "{}",
        built[0]
    );
    assert!(figures[1] + figures[2] <= figures[0] + 0.2, "{}", built[0]);
    // No terminal: no live line (its spinner, its carriage returns).
    assert!(!err.contains('\r'), "{err:?}");
    // A small model, compiled as one unit with `verilated.h` precompiled
    // (the fresh cache's runtime had it, or the build made it): the
    // compiler read it.
    let entries = cache::list(&cache).unwrap();
    assert_eq!(entries.len(), 1);
    let meta: cache::EntryMeta = serde_json::from_str(
        &std::fs::read_to_string(entries[0].path.join(cache::META_FILE)).unwrap(),
    )
    .unwrap();
    assert!(meta.precompiled_header, "{meta:?}");
    let err = build();
    assert!(err.trim().is_empty(), "a cached start said: {err}");
}

/// Quick and optimised builds compile the model's C++ at different
/// levels (`-O1` and `-O3`), so each has a precompiled `verilated.h` of its
/// own, made with its own options: GCC would read either one, but the
/// object would then differ from the one the header's text gives. A quick
/// build, an optimised one and a quick one again in one fresh cache: each
/// reads its flavor's header, and the runtime keeps both.
#[test]
#[ignore = "heavy (an optimised RTL build): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn quick_and_optimised_builds_each_read_a_precompiled_header_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let v = verilator();
    let rtl = dir.path().join("rtl");
    gpucosim_tests::copy_tree(&gpucosim_tests::repo_root().join("rtl"), &rtl).unwrap();
    for (n, flavor) in ["quick", "opt", "quick"].into_iter().enumerate() {
        let mut c = gpucosim(&cache, &v);
        c.env("GPUCOSIM_BUILD", flavor);
        build_edited_waitcnt(c, &rtl, n + 1, flavor);
    }
    let metas = entry_metas(&cache);
    assert_eq!(metas.len(), 3);
    let mut flavors = Vec::new();
    for meta in metas {
        assert!(meta.precompiled_header, "{meta:?}");
        flavors.push(meta.flavor);
    }
    flavors.sort();
    assert_eq!(flavors, ["opt", "quick", "quick"]);
    let runtimes: Vec<String> = names(&cache.join("runtime"))
        .into_iter()
        .filter(|r| !r.starts_with('.'))
        .collect();
    assert_eq!(runtimes.len(), 1, "{runtimes:?}");
    let kept = names(&cache.join("runtime").join(&runtimes[0]));
    let headers: Vec<&String> = kept.iter().filter(|k| k.ends_with(".gch")).collect();
    assert_eq!(
        headers,
        ["gc_verilated.h.gch", "gc_verilated_quick.h.gch"],
        "{kept:?}"
    );
}

/// Sets the modification time of `p` to `days` ago.
fn age(p: &Path, days: u64) {
    let t = SystemTime::now() - Duration::from_secs(days * 86400);
    File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// How a fake entry was built.
#[derive(Clone, Copy)]
enum Made<'a> {
    /// By a gpucosim before entries were slimmed and described: with
    /// Verilator's build directory, without `entry.json` and `.use`.
    Legacy,
    /// By this gpucosim, from (and last used with) the RTL directory given,
    /// instrumented with mutants or not.
    From(&'a Path, bool),
}

/// A fake entry: a library of 100 KiB, made as `made` says, last used
/// `days` ago.
fn fake_entry(rtl: &Path, name: &str, days: u64, made: Made<'_>) -> PathBuf {
    let e = rtl.join(name);
    std::fs::create_dir_all(&e).unwrap();
    std::fs::write(e.join("libgcsim.so"), vec![1u8; 100 * 1024]).unwrap();
    match made {
        Made::Legacy => {
            std::fs::create_dir_all(e.join("obj")).unwrap();
            std::fs::write(e.join("obj/Vlds_top__pch.h.fast.gch"), vec![1u8; 1 << 20]).unwrap();
            std::fs::write(e.join("gc_shim.cpp"), "// shim").unwrap();
            age(&e.join("libgcsim.so"), days);
        }
        Made::From(tree, instrumented) => {
            let parts: Vec<&str> = name.split('-').collect();
            let meta = cache::EntryMeta {
                unit: parts[0].into(),
                profile: parts[1].into(),
                flavor: if name.contains("-quick-") {
                    "quick"
                } else {
                    "opt"
                }
                .into(),
                trace: name.contains("-trace-"),
                artifact: "model".into(),
                instrumented,
                coverage: false,
                key: "0".repeat(64),
                rtl_dir: tree.display().to_string(),
                sources_hash: "ab".repeat(32),
                verilator: "/usr/bin/verilator".into(),
                built_unix: 0,
                seconds: 3.0,
                verilator_seconds: 1.0,
                cxx_seconds: 2.0,
                precompiled_header: false,
            };
            std::fs::write(
                e.join(cache::META_FILE),
                serde_json::to_string(&meta).unwrap(),
            )
            .unwrap();
            std::fs::write(e.join(cache::USE_FILE), format!("{}\n", tree.display())).unwrap();
            age(&e.join(cache::USE_FILE), days);
        }
    }
    e
}

/// Takes `how` (`LOCK_EX`, `LOCK_SH`) on `p` through a file of its own:
/// another process building or using an entry, as far as flock tells.
fn hold(p: &Path, how: i32) -> File {
    let f = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(p)
        .unwrap();
    // SAFETY: flock on a file we own.
    assert_eq!(
        unsafe { libc::flock(f.as_raw_fd(), how | libc::LOCK_NB) },
        0
    );
    f
}

/// `cache --list` and `--prune` on a cache made by hand: the listing shows
/// every entry with its flavour, size, last use and RTL; a prune removes
/// the superseded builds (or those unused for long), never one being built
/// or used, deletes the build files an old entry kept, and what killed
/// builds left; a dry run removes nothing.
#[test]
fn list_and_prune_a_cache_tree() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let rtl = cache_dir.join("rtl");
    let (ta, ta2, lds) = (
        dir.path().join("src/rtl/ta"),
        dir.path().join("variant/ta"),
        dir.path().join("src/rtl/lds"),
    );
    for d in [&ta, &ta2, &lds] {
        std::fs::create_dir_all(d).unwrap();
    }
    let gone = dir.path().join("gpucosim-mutant-x/ta");
    let from = |d| Made::From(d, false);
    let new_ta = fake_entry(&rtl, "ta-gfx9-quick-1111111111111111", 1, from(&ta));
    let old_ta = fake_entry(&rtl, "ta-gfx9-quick-2222222222222222", 5, from(&ta));
    let older_ta = fake_entry(&rtl, "ta-gfx9-quick-3333333333333333", 40, from(&ta));
    // Another RTL tree's build supersedes none of those, nor they it.
    let variant = fake_entry(&rtl, "ta-gfx9-quick-4444444444444444", 8, from(&ta2));
    // A single mutant's build, its tree gone: superseded however new.
    let mutant = fake_entry(&rtl, "ta-gfx9-quick-5555555555555555", 0, from(&gone));
    // The instrumented build's tree is always gone: it stays.
    let inst = fake_entry(
        &rtl,
        "ta-gfx9-quick-6666666666666666",
        3,
        Made::From(&gone, true),
    );
    let ta_opt = fake_entry(&rtl, "ta-gfx9-7777777777777777", 30, from(&ta));
    let legacy = fake_entry(&rtl, "lds-gfx11-8888888888888888", 0, Made::Legacy);
    let used = fake_entry(&rtl, "lds-gfx11-9999999999999999", 20, from(&lds));
    let building = fake_entry(&rtl, "lds-gfx11-aaaaaaaaaaaaaaaa", 25, from(&lds));
    let newer_lds = fake_entry(&rtl, "lds-gfx11-bbbbbbbbbbbbbbbb", 2, from(&lds));
    // A build that died (nobody holds its lock), an orphaned lock file.
    std::fs::create_dir_all(rtl.join(".build-dead")).unwrap();
    std::fs::write(rtl.join(".build-dead/.lock"), "").unwrap();
    std::fs::write(rtl.join(".lds-gfx9-cccccccccccccccc.lock"), "").unwrap();
    std::fs::write(rtl.join("notes.txt"), "not an entry").unwrap();
    let _user = hold(&used.join(cache::USE_FILE), libc::LOCK_SH);
    let _builder = hold(
        &cache::KeyLock::path_of(&rtl, "lds-gfx11-aaaaaaaaaaaaaaaa"),
        libc::LOCK_EX,
    );

    let entries = cache::list(&cache_dir).unwrap();
    let order: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        order,
        [
            // unit, profile, flavour, then the most recently used first
            "lds-gfx11-8888888888888888",
            "lds-gfx11-bbbbbbbbbbbbbbbb",
            "lds-gfx11-9999999999999999",
            "lds-gfx11-aaaaaaaaaaaaaaaa",
            "ta-gfx9-7777777777777777",
            "ta-gfx9-quick-5555555555555555",
            "ta-gfx9-quick-1111111111111111",
            "ta-gfx9-quick-2222222222222222",
            "ta-gfx9-quick-4444444444444444",
            "ta-gfx9-quick-3333333333333333",
            "ta-gfx9-quick-6666666666666666",
        ]
    );
    assert!(entries[0].meta.is_none() && entries[0].rtl_dir.is_none());
    assert!(entries[0].spare_bytes >= 1 << 20);
    assert!(entries[1..]
        .iter()
        .all(|e| e.spare_bytes == 0 && e.complete));
    assert_eq!(entries[10].flavour, "quick instrumented");
    assert!(entries[5].rtl_gone() && !entries[6].rtl_gone());
    let text = cache::format_list(&cache_dir, &entries);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 13, "{text}");
    assert!(lines[0].starts_with("UNIT"), "{text}");
    let line = |name: &str| *lines.iter().find(|l| l.ends_with(name)).unwrap();
    let l = line("ta-gfx9-quick-2222222222222222");
    let tree = format!("{} (abababababab)", ta.display());
    for w in ["ta", "gfx9", "quick", " KiB", "5 days ago", &tree] {
        assert!(l.contains(w), "{w} not in {l}");
    }
    assert!(line("ta-gfx9-quick-5555555555555555").contains(" (gone)"));
    assert!(lines[12].starts_with("11 entries, "), "{text}");
    assert!(lines[12].contains("--prune"), "{text}");

    // A dry run says what it would do and does nothing.
    let r = cache::prune(&cache_dir, Prune::Superseded, true).unwrap();
    assert_eq!((r.removed.len(), r.busy.len(), r.slimmed.len()), (3, 2, 1));
    assert!(old_ta.exists() && legacy.join("obj").exists());
    assert!(cache::format_prune(&r).contains("would remove"));

    // Superseded: the newest of each unit, profile, flavour and RTL tree
    // stays, but not one whose tree is gone.
    let r = cache::prune(&cache_dir, Prune::Superseded, false).unwrap();
    let text = cache::format_prune(&r);
    let removed: Vec<&str> = r.removed.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        removed,
        [
            "ta-gfx9-quick-5555555555555555",
            "ta-gfx9-quick-2222222222222222",
            "ta-gfx9-quick-3333333333333333",
        ],
        "{text}"
    );
    let busy: Vec<(&str, cache::Busy)> =
        r.busy.iter().map(|(e, b)| (e.name.as_str(), *b)).collect();
    assert_eq!(
        busy,
        [
            ("lds-gfx11-9999999999999999", cache::Busy::InUse),
            ("lds-gfx11-aaaaaaaaaaaaaaaa", cache::Busy::Building),
        ],
        "{text}"
    );
    assert!(!old_ta.exists() && !older_ta.exists() && !mutant.exists());
    for kept in [
        &new_ta, &variant, &inst, &ta_opt, &used, &building, &newer_lds,
    ] {
        assert!(kept.exists(), "{} was removed", kept.display());
    }
    // The old entry kept is slimmed to its library.
    assert_eq!(names(&legacy), ["libgcsim.so"]);
    assert_eq!(r.slimmed.len(), 1, "{text}");
    // Leftovers: the dead build, the orphaned lock file.
    assert_eq!(r.leftovers, 2, "{text}");
    assert!(!rtl.join(".build-dead").exists());
    assert!(!rtl.join(".lds-gfx9-cccccccccccccccc.lock").exists());
    assert!(rtl.join("notes.txt").exists());
    assert!(
        text.contains("kept lds-gfx11-9999999999999999: a running gpucosim started from it"),
        "{text}"
    );
    assert!(
        text.contains("kept lds-gfx11-aaaaaaaaaaaaaaaa: a running gpucosim is building it"),
        "{text}"
    );
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("removed 3 entries, freed "),
        "{text}"
    );

    // Unused for 10 days: the newest of its kind goes too.
    let r = cache::prune(
        &cache_dir,
        Prune::UnusedFor(Duration::from_secs(10 * 86400)),
        false,
    )
    .unwrap();
    let removed: Vec<&str> = r.removed.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(removed, ["ta-gfx9-7777777777777777"]);
    assert_eq!(r.busy.len(), 2);
    assert!(new_ta.exists() && variant.exists() && legacy.exists() && !ta_opt.exists());
}
