//! Every deliberately broken RTL variant in `tests/fixtures/broken/` must be
//! caught: `gpucosim run --rtl <patched copy>` exits 1, names the
//! divergence decoded per lane, wave, bank or byte with a text waveform,
//! and writes a VCD whose mismatch bit rises at that cycle with GTKWave and
//! Surfer sessions beside it that open there. And the same seeds on the
//! unpatched RTL pass, so the catch is the bug's.

use crate::gpucosim_bin;
use gpucosim::testbench::Testbench;
use gpucosim_tests::{quick, BrokenFixture, Vcd};
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
    let run = format!("{}.{}.{}", f.unit, f.profile, f.seed);
    check_report(name, f, &stdout);
    check_sessions(name, &waves, &run, cycle, &stdout);
    // The text view of the VCD finds the same divergence.
    let text = Command::new(gpucosim_bin())
        .arg("waves")
        .arg(waves.join(format!("{run}.vcd")))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let ports = diverging_ports(&stdout).join(", ");
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.ends_with(&format!("first divergence at cycle {cycle} on {ports}"))),
        "{name}: gpucosim waves says:\n{text}"
    );
    let vcd = Vcd::read(&waves.join(format!("{run}.vcd")));
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

/// The diverging ports the report's first line names.
fn diverging_ports(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .find_map(|l| l.split("model and RTL differ on ").nth(1))
        .map(|r| r.split(", ").map(str::to_string).collect())
        .unwrap_or_default()
}

/// The report names what diverged the way the port is built: the lanes,
/// waves, banks or bytes of a port whose elements or bits are those, the
/// elements of another array, the value of a plain port; no packed hex
/// longer than 16 digits; and a text waveform with each diverging port,
/// model above RTL.
fn check_report(name: &str, f: &BrokenFixture, stdout: &str) {
    // The transaction's structured inputs are decoded under it: ta's V#
    // field by field, lds's op, exec and mode.
    if stdout.contains("  transaction #") {
        let decoded = match f.unit.as_str() {
            "ta" => Some("    V#: base 0x"),
            "lds" => Some(" lanes active, "),
            _ => None,
        };
        if let Some(d) = decoded {
            assert!(stdout.contains(d), "{name}: no `{d}` in:\n{stdout}");
        }
    }
    let ports = diverging_ports(stdout);
    assert!(
        !ports.is_empty(),
        "{name}: no diverging ports in:\n{stdout}"
    );
    for port in &ports {
        let (index, elems) = gpucosim::with_testbench!(f.unit.as_str(), B => Ok((
            B::index(port),
            B::table().find(port).map(|(d, _)| d.elems).unwrap_or(1),
        )))
        .unwrap();
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{port}: ")))
            .unwrap_or_else(|| panic!("{name}: no line for {port} in:\n{stdout}"));
        match index {
            Some(ix) => {
                let one = format!("{} ", ix.noun(false));
                let many = format!("{} ", ix.noun(true));
                assert!(
                    line.contains(" differ"),
                    "{name}: {port} is not decoded per {}: {line}",
                    ix.noun(false)
                );
                let named = stdout.lines().any(|l| {
                    let t = l.trim_start();
                    (t.starts_with(&one) || t.starts_with(&many)) && t.contains(": model ")
                });
                assert!(
                    named,
                    "{name}: the {many}of {port} are not named:\n{stdout}"
                );
            }
            None if elems > 1 => assert!(
                stdout.contains(&format!("{port}[")),
                "{name}: the elements of {port} are not named:\n{stdout}"
            ),
            None => assert!(line.contains(": model 0x"), "{name}: {line}"),
        }
    }
    for word in stdout.split(|c: char| c.is_whitespace() || c == ',') {
        if let Some(hex) = word.strip_prefix("0x") {
            assert!(
                hex.len() <= 16 || hex.contains('_'),
                "{name}: a packed value to read by hand: {word}"
            );
        }
    }
    let wave = stdout
        .split("waveform (model above RTL):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{name}: no text waveform in:\n{stdout}"));
    let wave: String = wave
        .lines()
        .take_while(|l| l.starts_with("    "))
        .map(|l| format!("{l}\n"))
        .collect();
    for port in &ports {
        assert!(
            wave.contains(port.as_str()),
            "{name}: {port} is not in the text waveform:\n{wave}"
        );
    }
}

/// A GTKWave and a Surfer session beside the VCD, each naming it, with the
/// marker on the divergence and the first diverging port first.
fn check_sessions(name: &str, waves: &std::path::Path, run: &str, cycle: u64, stdout: &str) {
    let first = diverging_ports(stdout).remove(0);
    let gtkw = std::fs::read_to_string(waves.join(format!("{run}.gtkw")))
        .unwrap_or_else(|e| panic!("{name}: no GTKWave session: {e}"));
    assert!(
        gtkw.contains(&format!("[dumpfile] \"{run}.vcd\"")),
        "{name}:\n{gtkw}"
    );
    let marker = gtkw
        .lines()
        .find_map(|l| l.strip_prefix('*'))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|m| m.parse::<u64>().ok());
    assert_eq!(
        marker,
        Some(cycle * 10),
        "{name}: the GTKWave marker:\n{gtkw}"
    );
    let first_group = gtkw
        .lines()
        .skip_while(|l| !l.starts_with("@800200") && !l.starts_with("@c00200"))
        .nth(1);
    assert_eq!(
        first_group,
        Some(format!("-{first}").as_str()),
        "{name}:\n{gtkw}"
    );
    let sucl = std::fs::read_to_string(waves.join(format!("{run}.sucl")))
        .unwrap_or_else(|e| panic!("{name}: no Surfer session: {e}"));
    assert!(
        sucl.lines()
            .any(|l| l == format!("cursor_set {}", cycle * 10)),
        "{name}: the Surfer cursor:\n{sucl}"
    );
    let first_divider = sucl.lines().find_map(|l| l.strip_prefix("divider_add "));
    assert_eq!(first_divider, Some(first.as_str()), "{name}:\n{sucl}");
    assert!(
        stdout.contains(&format!(
            "session: gtkwave {}",
            waves.join(format!("{run}.gtkw")).display()
        )),
        "{name}: the report does not say how to open the session:\n{stdout}"
    );
}

/// One test case per fixture of `tests/fixtures/broken/`, so that one
/// failure hides no other; `every_fixture_has_its_test_case` keeps the
/// list equal to the folder. One fixture of each unit runs by default; the
/// others (an RTL build each) run in the full suite,
/// `cargo test --release --workspace -- --include-ignored`.
macro_rules! fixtures {
    (default: $($name:ident),* ; heavy: $($heavy:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                caught_and_clean(stringify!($name));
            }
        )*
        $(
            #[test]
            #[ignore = "heavy (an RTL build of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
            fn $heavy() {
                caught_and_clean(stringify!($heavy));
            }
        )*
        /// The fixtures with a test case.
        const LISTED: &[&str] = &[$(stringify!($name)),* , $(stringify!($heavy)),*];
    };
}

fixtures!(
    default:
    lds_range_off_by_one,
    ta_swizzle_index_lsb_term,
    waitcnt_release_early;
    heavy:
    lds_arb_highest_wins,
    lds_atomic_broadcast,
    lds_b128_data_halves_swapped,
    lds_cu_mode_64_banks,
    ta_coalesce_ignores_ready,
    ta_gfx11_oob0_payload_ge,
    ta_gfx9_stride0_range_gt,
    ta_line_cross_part1_line,
    waitcnt_gfx11_expcnt_field,
    waitcnt_gfx11_gds_no_expcnt,
    waitcnt_gfx11_vscnt_high_bits,
    waitcnt_gfx9_lgkm_limit,
);

/// Fixture `name` is caught with a waveform, and its seed passes on the
/// clean RTL: the catch is its bug's.
fn caught_and_clean(name: &str) {
    let fixtures = BrokenFixture::all();
    let (_, f) = fixtures
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no fixture tests/fixtures/broken/{name}.json"));
    check(name, f);
    let out = quick(Command::new(gpucosim_bin()))
        .args(["run", "--unit", &f.unit, "--profile", &f.profile])
        .args([
            "--seed",
            &f.seed.to_string(),
            "--cycles",
            &f.cycles.to_string(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}.{}.{} fails on the clean RTL:\n{}",
        f.unit,
        f.profile,
        f.seed,
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Every fixture has its test case, and every unit at least two fixtures.
#[test]
fn every_fixture_has_its_test_case() {
    let fixtures = BrokenFixture::all();
    let mut names: Vec<&str> = fixtures.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    let mut listed = LISTED.to_vec();
    listed.sort();
    assert_eq!(
        names, listed,
        "tests/fixtures/broken/ and the fixtures! list in tests/broken_rtl.rs differ"
    );
    let mut per_unit = std::collections::BTreeMap::<String, usize>::new();
    for (_, f) in &fixtures {
        *per_unit.entry(f.unit.clone()).or_default() += 1;
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
