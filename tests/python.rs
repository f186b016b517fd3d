//! The Python package (docs/python.md): built by maturin into a wheel,
//! installed into a virtualenv with the pinned tools of
//! `python/requirements-dev.txt`, its API tests pass
//! (`python/tests/test_api.py`), and each unit's cocotb example
//! (`python/examples/cocotb/`) passes on the built-in RTL for both profiles
//! under Verilator and fails, naming the port, on a broken RTL.
//!
//! The virtualenv is `$GPUCOSIM_PYENV` (CI prepares it), or one made under
//! the target directory with `GPUCOSIM_PYENV=auto` (or
//! `GPUCOSIM_REQUIRE_COCOTB=1`). Without either, or where the pinned
//! packages cannot be installed (no network), the test says so in one line
//! and does not run; `GPUCOSIM_REQUIRE_COCOTB=1` (CI) makes that a failure.

use gpucosim_tests::{repo_root, BrokenFixture};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

fn skip(why: &str) {
    gpucosim_testkit::skip(
        "GPUCOSIM_REQUIRE_COCOTB",
        "python",
        &format!("the Python package and its cocotb examples: {why}"),
    );
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// target/<profile>.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// A virtualenv with the pinned packages, or why there is none.
fn pyenv() -> Result<PathBuf, String> {
    let reqs = repo_root().join("python/requirements-dev.txt");
    let has_all = |env: &Path| {
        Command::new(env.join("bin/python"))
            .args(["-c", "import cocotb, cocotb_tools.runner; import maturin"])
            .output()
            .is_ok_and(|o| o.status.success())
            && env.join("bin/maturin").is_file()
    };
    let asked = std::env::var_os("GPUCOSIM_PYENV");
    let required = gpucosim_testkit::required("GPUCOSIM_REQUIRE_COCOTB");
    if asked.is_none() && !required {
        return Err(
            "no Python environment was asked for: GPUCOSIM_PYENV=DIR names a virtualenv with python/requirements-dev.txt, GPUCOSIM_PYENV=auto makes one under target/".into(),
        );
    }
    if let Some(p) = asked.filter(|p| p != "auto") {
        let p = PathBuf::from(p);
        return if has_all(&p) {
            Ok(p)
        } else {
            Err(format!(
                "GPUCOSIM_PYENV={} lacks the packages of {}",
                p.display(),
                reqs.display()
            ))
        };
    }
    let env = profile_dir().join("pyenv");
    if has_all(&env) {
        return Ok(env);
    }
    let o = Command::new("python3")
        .args(["-m", "venv", "--clear"])
        .arg(&env)
        .output()
        .map_err(|e| format!("python3 -m venv: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "python3 -m venv failed: {}",
            text(&o).lines().last().unwrap_or("")
        ));
    }
    let o = Command::new(env.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(&reqs)
        .output()
        .map_err(|e| format!("pip: {e}"))?;
    if !o.status.success() || !has_all(&env) {
        let why = text(&o);
        let why = why.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!(
            "the pinned packages of {} could not be installed ({why})",
            reqs.display()
        ));
    }
    Ok(env)
}

/// Builds the wheel with the workspace's target directory and installs it.
fn install_wheel(env: &Path, out: &Path) {
    let target = profile_dir().parent().unwrap().to_path_buf();
    let mut cmd = Command::new(env.join("bin/maturin"));
    cmd.args(["build", "-q", "-m"])
        .arg(repo_root().join("python/Cargo.toml"))
        .arg("--out")
        .arg(out)
        .arg("--interpreter")
        .arg(env.join("bin/python"))
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO", env!("CARGO"));
    if profile_dir().file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let o = cmd.output().expect("maturin");
    assert!(o.status.success(), "maturin build failed:\n{}", text(&o));
    let wheel = std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel");
    let o = Command::new(env.join("bin/python"))
        .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
        .args(["--force-reinstall", "--no-deps"])
        .arg(&wheel)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "installing {}:\n{}",
        wheel.display(),
        text(&o)
    );
}

/// PATH with Verilator's directory first (cocotb runs `verilator`).
fn path_with_verilator() -> std::ffi::OsString {
    let v = gpucosim::Verilator::locate(&gpucosim::cache_root()).expect("Verilator");
    let exe = v.command().get_program().to_owned();
    let dir = Path::new(&exe).parent().unwrap().to_path_buf();
    let old = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(&old))).unwrap()
}

#[test]
fn python_package_and_cocotb_examples() {
    let env = match pyenv() {
        Ok(e) => e,
        Err(why) => return skip(&why),
    };
    let wheels = tempfile::tempdir().unwrap();
    install_wheel(&env, wheels.path());
    let python = env.join("bin/python");

    // The API.
    let o = Command::new(&python)
        .arg(repo_root().join("python/tests/test_api.py"))
        .arg(crate::gpucosim_bin())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "python/tests/test_api.py:\n{}",
        text(&o)
    );

    // The type stubs say what the module has: mypy's stubtest compares
    // gpucosim.pyi with the installed module (exceptions, with reasons, in
    // python/stubtest-allowlist.txt).
    let o = Command::new(&python)
        .args(["-m", "mypy.stubtest", "gpucosim", "--allowlist"])
        .arg(repo_root().join("python/stubtest-allowlist.txt"))
        .current_dir(wheels.path())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "python/gpucosim.pyi does not match the module:\n{}",
        text(&o)
    );

    // The cocotb examples: every unit and profile on the built-in RTL,
    // and the first broken fixture of each unit.
    let examples = repo_root().join("python/examples/cocotb");
    let path = path_with_verilator();
    // Kept between runs: Verilator skips regenerating an unchanged design
    // and make is then up to date.
    let build = profile_dir().join("cocotb");
    let rtl = repo_root().join("rtl");
    let mut jobs: Vec<(String, String, PathBuf, u64, u64, bool)> = Vec::new();
    for unit in gpucosim::units::UNITS {
        for profile in ["gfx9", "gfx11"] {
            jobs.push((unit.to_string(), profile.into(), rtl.clone(), 2, 1500, true));
        }
    }
    let fixtures = BrokenFixture::all();
    let broken = tempfile::tempdir().unwrap();
    for unit in gpucosim::units::UNITS {
        let (name, f) = fixtures
            .iter()
            .find(|(_, f)| f.unit == *unit)
            .expect("a fixture per unit");
        let tree = f.apply(&broken.path().join(name));
        jobs.push((
            f.unit.clone(),
            f.profile.clone(),
            tree,
            f.seed,
            f.cycles,
            false,
        ));
    }
    let runtime = tempfile::tempdir().unwrap();
    let runtime = runtime.path();
    let queue = Mutex::new(jobs);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some((unit, profile, tree, seed, cycles, pass)) = queue.lock().unwrap().pop()
                else {
                    break;
                };
                let tag = if pass { "ok" } else { "broken" };
                // Verilator's runtime objects of an earlier build: the same
                // for every build.
                let root = build.join(format!("{tag}-{unit}-{profile}"));
                let obj = root.join(format!("{unit}-{profile}"));
                let _ = std::fs::create_dir_all(&obj);
                let _ = gpucosim_tests::sv_bench::copy_objects(runtime, &obj);
                let o = Command::new(&python)
                    .arg(examples.join("run.py"))
                    .args(["--unit", &unit, "--profile", &profile])
                    .args(["--seed", &seed.to_string(), "--cycles", &cycles.to_string()])
                    .arg("--rtl")
                    .arg(&tree)
                    .arg("--build-dir")
                    .arg(&root)
                    .env("PATH", &path)
                    .current_dir(&examples)
                    .output()
                    .unwrap();
                let out = text(&o);
                let _ = gpucosim_tests::sv_bench::copy_objects(&obj, runtime);
                let ok = if pass {
                    o.status.success()
                        && out.contains(&format!("{unit} {profile} seed {seed}: {cycles} cycles, "))
                        && out.contains("no mismatch")
                } else {
                    o.status.code() == Some(1)
                        && out.contains(&format!("{unit} {profile} seed {seed} cycle "))
                        && out.contains(": DUT ")
                        && out.contains("reproduce: python ")
                        // The reproduce command names the RTL it ran.
                        && out.contains(&format!(
                            "--rtl {} ",
                            tree.canonicalize().unwrap().display()
                        ))
                };
                if !ok {
                    failures.lock().unwrap().push(format!(
                        "{unit} {profile} ({tag} RTL): {:?}\n{out}",
                        o.status
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    // `gpucosim bench --cocotb`: both rates of a unit, and a run that fails
    // is a one-line reason.
    use gpucosim::benchmark;
    use gpucosim_model::Profile;
    let dir = tempfile::tempdir().unwrap();
    // In the example's build of the same design above, which make finds
    // up to date.
    let rows = benchmark::bench_cocotb(
        &python,
        &["waitcnt".to_string()],
        Profile::Gfx9,
        1,
        300,
        &rtl,
        &build.join("ok-waitcnt-gfx9"),
    )
    .unwrap();
    let c = &rows[0];
    for r in [&c.with_model, &c.without_model] {
        assert!(r.as_ref().is_ok_and(|v| *v > 0.0), "{c:?}");
    }
    let bad = benchmark::cocotb_rate(
        &python,
        "waitcnt",
        Profile::Gfx9,
        1,
        300,
        true,
        &dir.path().join("no-rtl"),
        dir.path(),
    );
    assert!(matches!(&bad, Err(m) if !m.contains('\n')), "{bad:?}");
}
