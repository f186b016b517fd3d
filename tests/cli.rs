//! Bad input gets one clear line and exit code 2, never a panic.

use gpucosim_tests::gpucosim_bin;
use std::process::Command;

fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(gpucosim_bin());
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn expect_error(args: &[&str], env: &[(&str, &str)], needle: &str) {
    let (code, out, err) = run(args, env);
    assert_eq!(code, 2, "{args:?}: exit {code}\n{out}\n{err}");
    assert!(
        err.contains(needle),
        "{args:?}: stderr lacks {needle:?}:\n{err}"
    );
    assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
}

#[test]
fn nonsense_arguments_exit_2_with_a_clear_line() {
    expect_error(
        &["run", "--unit", "nope", "--profile", "gfx9"],
        &[],
        "unknown unit `nope`",
    );
    expect_error(
        &["run", "--unit", "ta", "--profile", "gfx10"],
        &[],
        "unknown profile `gfx10`",
    );
    expect_error(
        &[
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--cycles",
            "lots",
        ],
        &[],
        "invalid value",
    );
    expect_error(
        &[
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--knob",
            "novalue",
        ],
        &[],
        "expected name=value",
    );
    expect_error(&["regress", "--shard", "5/4"], &[], "bad shard `5/4`");
    expect_error(&["regress", "--seeds", "9..2"], &[], "bad seed range");
    expect_error(&["regress", "--unit", "nope"], &[], "unknown unit `nope`");
    expect_error(&["frobnicate"], &[], "unrecognized subcommand");
}

#[test]
fn unreadable_inputs_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let m = missing.to_str().unwrap();
    expect_error(&["replay", m], &[], "cannot read repro bundle");
    expect_error(&["shrink", m], &[], "cannot read repro bundle");
    expect_error(&["merge", m], &[], m);
    let corrupt = dir.path().join("bad.json");
    std::fs::write(&corrupt, "{ not json").unwrap();
    let c = corrupt.to_str().unwrap();
    expect_error(&["merge", c], &[], "is not a gpucosim results file");
    expect_error(&["replay", c], &[], "is not a valid gpucosim repro file");
    expect_error(&["eval", "--unit", "ta", "--profile", "gfx9", m], &[], m);
    expect_error(
        &["eval", "--unit", "ta", "--profile", "gfx9", c],
        &[],
        "eval input is not JSON",
    );
}

#[test]
fn a_missing_rtl_tree_or_verilator_is_an_environment_error() {
    expect_error(
        &["lint", "--rtl", "/nonexistent/rtl"],
        &[],
        "RTL directory /nonexistent/rtl does not exist",
    );
    expect_error(
        &["lint"],
        &[("VERILATOR", "/nonexistent/verilator")],
        "VERILATOR=/nonexistent/verilator is not an executable file",
    );
}

/// SPEC §3.2: `decode-waitcnt` reads gfx11's `s_waitcnt_vscnt null, imm`
/// word and rejects it on gfx9 in one line naming the problem.
#[test]
fn decode_waitcnt_reads_vscnt_words_on_gfx11_only() {
    let (code, out, err) = run(&["decode-waitcnt", "--profile", "gfx11", "0xBC7C0005"], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "s_waitcnt_vscnt null, 0x5   imm=0x0005 vscnt=5\n");
    expect_error(
        &["decode-waitcnt", "--profile", "gfx9", "0xBC7C0005"],
        &[],
        "gfx9 has no VS_CNT",
    );
    let (_, _, err) = run(&["decode-waitcnt", "--profile", "gfx9", "0xBC7C0005"], &[]);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}
