//! The SystemVerilog integration (docs/dpi.md): each unit's example
//! testbench, `<unit>_top` and the generated `<unit>_ref` side by side on
//! gpucosim's stimulus, built by Verilator with `libgpucosim_dpi`, passes on
//! the built-in RTL for every profile, and catches every deliberately
//! broken RTL variant of `tests/fixtures/broken/` with an `$error` naming
//! the diverging port.

use gpucosim_tests::sv_bench::{build_tb, dpi_lib, lint_tb, run_tb};
use gpucosim_tests::{repo_root, BrokenFixture};
use std::sync::Mutex;

/// Runs `jobs` on two threads (the builds are the cost).
fn parallel<T: Send>(jobs: Vec<T>, f: impl Fn(T) -> Option<String> + Sync) -> Vec<String> {
    let queue = Mutex::new(jobs);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some(job) = queue.lock().unwrap().pop() else {
                    break;
                };
                if let Some(e) = f(job) {
                    failures.lock().unwrap().push(e);
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn example_testbenches_pass_on_the_builtin_rtl() {
    let mut jobs = Vec::new();
    for unit in gpucosim::units::UNITS {
        for gfx in [9, 11] {
            jobs.push((*unit, gfx));
        }
    }
    let failures = parallel(jobs, |(unit, gfx)| {
        let exe = match build_tb(unit, gfx, &repo_root().join("rtl")) {
            Ok(e) => e,
            Err(e) => return Some(format!("{unit} gfx{gfx}: {e}")),
        };
        let out = run_tb(&exe, &["+seed=2".into(), "+cycles=5000".into()]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let want = format!("{unit}_tb: gfx{gfx} seed 2: 5000 cycles, ");
        let line = stdout.lines().find(|l| l.starts_with(&want));
        let ok = out.status.success()
            && line.is_some_and(|l| {
                l.contains(", 0 mismatches; ") && l.contains(&format!("{unit} gfx{gfx}: covered "))
            });
        (!ok).then(|| {
            format!(
                "{unit} gfx{gfx}: {:?}\n{stdout}{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        })
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn example_testbenches_catch_every_broken_fixture() {
    let fixtures = BrokenFixture::all();
    assert!(fixtures.len() >= 10, "fixtures: {}", fixtures.len());
    let failures = parallel(fixtures, |(name, f)| {
        let dir = tempfile::tempdir().unwrap();
        let rtl = f.apply(&dir.path().join("rtl"));
        let gfx = f
            .profile
            .parse::<gpucosim_model::Profile>()
            .expect("a fixture's profile")
            .gfx();
        let exe = match build_tb(&f.unit, gfx, &rtl) {
            Ok(e) => e,
            Err(e) => return Some(format!("{name}: {e}")),
        };
        let out = run_tb(
            &exe,
            &[format!("+seed={}", f.seed), format!("+cycles={}", f.cycles)],
        );
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let prefix = format!("{} {} seed {} cycle ", f.unit, f.profile, f.seed);
        let caught = !out.status.success()
            && text.lines().any(|l| {
                l.contains("%Error")
                    && l.contains(&prefix)
                    && l.contains(": DUT ")
                    && l.contains(", model ")
                    && l.contains("reproduce: +seed=")
            });
        (!caught).then(|| {
            format!(
                "{name} ({}) not caught: {:?}\n{text}",
                f.description, out.status
            )
        })
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The generated package, reference modules and testbenches are clean
/// under `verilator --lint-only -Wall`, as the RTL is.
#[test]
fn generated_sv_is_lint_clean() {
    for unit in gpucosim::units::UNITS {
        for gfx in [9, 11] {
            if let Err(e) = lint_tb(unit, gfx, &repo_root().join("rtl")) {
                panic!("{unit} gfx{gfx}: {e}");
            }
        }
    }
}

/// The C ABI from C, through the header: `dpi/examples/step.c` compiles
/// against `include/gpucosim.h` without warnings, steps every unit and
/// profile on gpucosim's stimulus with `step` and with `eval`/`tick`
/// alike, and reports a bad unit as a one-line error with exit 2.
#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn c_example_steps_every_unit() {
    let lib = dpi_lib();
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("step");
    let dpi = repo_root().join("dpi");
    let out = std::process::Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", dpi.join("include").display()))
        .arg(dpi.join("examples/step.c"))
        .arg(format!("-L{}", lib.parent().unwrap().display()))
        .arg("-lgpucosim_dpi")
        .arg(format!("-Wl,-rpath,{}", lib.parent().unwrap().display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("cc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for unit in gpucosim::units::UNITS {
        for profile in ["gfx9", "gfx11"] {
            let out = std::process::Command::new(&exe)
                .args([unit, profile, "3", "3000"])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && stdout.starts_with(&format!("{unit} {profile}: covered ")),
                "{unit} {profile}: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let out = std::process::Command::new(&exe)
        .args(["tex", "gfx9", "1", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr.trim(),
        "step: model: gpucosim_model_new: unknown unit `tex` (expected ta, lds or waitcnt)"
    );
}
