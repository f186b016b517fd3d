//! Every deliberately broken RTL variant in `tests/fixtures/broken/` must be
//! caught: `gpucosim run --rtl <patched copy>` exits 1, names the
//! divergence and writes a VCD whose mismatch bit rises at that cycle. And
//! the same seeds on the unpatched RTL pass, so the catch is the bug's.

use gpucosim_tests::{gpucosim_bin, quick, BrokenFixture, Vcd};
use std::process::Command;

fn check(name: &str, f: &BrokenFixture) {
    let dir = tempfile::tempdir().unwrap();
    let rtl = f.apply(dir.path());
    let waves = dir.path().join("waves");
    let out = quick(Command::new(gpucosim_bin()))
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
        .arg(&waves)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "fixture {name} ({}) was not caught:\n{stdout}\n{stderr}",
        f.description
    );
    let cycle: u64 = stdout
        .lines()
        .find_map(|l| l.split("at cycle ").nth(1))
        .and_then(|r| r.split(':').next())
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name}: no divergence cycle in:\n{stdout}"));
    assert!(
        stdout.contains("reproduce: gpucosim run"),
        "{name}: {stdout}"
    );
    let vcd = Vcd::read(&waves.join(format!("{}.{}.{}.vcd", f.unit, f.profile, f.seed)));
    assert!(
        vcd.stamps().contains(&(cycle * 10)),
        "{name}: cycle {cycle} not in the VCD"
    );
    assert_eq!(
        vcd.change_at("tb.mismatch.any", cycle * 10),
        Some("1"),
        "{name}: mismatch.any does not rise at cycle {cycle}"
    );
}

#[test]
fn every_broken_rtl_fixture_is_caught_with_a_waveform() {
    let fixtures = BrokenFixture::all();
    let mut per_unit = std::collections::BTreeMap::<String, usize>::new();
    for (_, f) in &fixtures {
        *per_unit.entry(f.unit.clone()).or_default() += 1;
    }
    // Two at a time: each is a Verilator build of its own.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((name, f)) = fixtures.get(i) else {
                    break;
                };
                check(name, f);
            });
        }
    });
    // The same seeds pass on the clean RTL: each catch is its bug's.
    let mut clean: Vec<(String, String, u64, u64)> = fixtures
        .iter()
        .map(|(_, f)| (f.unit.clone(), f.profile.clone(), f.seed, f.cycles))
        .collect();
    clean.sort();
    clean.dedup();
    for (unit, profile, seed, cycles) in clean {
        let out = quick(Command::new(gpucosim_bin()))
            .args(["run", "--unit", &unit, "--profile", &profile])
            .args(["--seed", &seed.to_string(), "--cycles", &cycles.to_string()])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{unit}.{profile}.{seed} fails on the clean RTL:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    for u in gpucosim::units::UNITS {
        let n = per_unit.get(*u).copied().unwrap_or(0);
        if gpucosim::units::is_registered(u) {
            assert!(
                n >= 2,
                "unit {u} has {n} broken-RTL fixtures; at least 2 are required"
            );
        }
    }
}
