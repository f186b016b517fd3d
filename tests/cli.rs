//! Bad input gets one clear line and exit code 2, never a panic.

use crate::gpucosim_bin;
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
    let errors: Vec<&str> = err.lines().filter(|l| !l.starts_with("warning:")).collect();
    assert_eq!(errors.len(), 1, "{args:?}: not one line:\n{err}");
    assert!(errors[0].starts_with("error: "), "{args:?}:\n{err}");
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
    // Knobs are checked against their ranges before anything is built.
    let no_verilator = [
        ("VERILATOR", "/nonexistent/verilator"),
        ("GPUCOSIM_NO_INSTALL", "1"),
    ];
    for (unit, knob, needle) in [
        (
            "ta",
            "stall_pct=200",
            "knob `stall_pct` of unit ta: `200` is not an integer in 0..=100",
        ),
        (
            "ta",
            "stall_pct=-1",
            "knob `stall_pct` of unit ta: `-1` is not an integer in 0..=100",
        ),
        ("ta", "format_pct=90", "add up to more than 100"),
        (
            "lds",
            "exec=most",
            "knob `exec` of unit lds: `most` is not one of mix|full|random|sparse|zero|upper",
        ),
        (
            "lds",
            "window=0",
            "knob `window` of unit lds: `0` is not an integer in 1..=32768",
        ),
        (
            "waitcnt",
            "waves=17",
            "knob `waves` of unit waitcnt: `17` is not an integer in 1..=16",
        ),
        (
            "waitcnt",
            "lat_min=50",
            "knob `lat_max` 40 is below `lat_min` 50",
        ),
        ("waitcnt", "nope=1", "unknown knob `nope` for unit waitcnt"),
    ] {
        expect_error(
            &["run", "--unit", unit, "--profile", "gfx9", "--knob", knob],
            &no_verilator,
            needle,
        );
        expect_error(
            &["regress", "--unit", unit, "--knob", knob],
            &no_verilator,
            needle,
        );
    }
    expect_error(
        &[
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--knob",
            "gap_max=1",
            "--knob",
            "gap_max=2",
        ],
        &no_verilator,
        "knob `gap_max` is given twice",
    );
    // `kernel run` builds a kernel's stimulus whole: options that would
    // take more memory than a run can use are refused before it is built.
    let saxpy = gpucosim_tests::repo_root().join("tests/fixtures/kernels/saxpy_loop.gfx900.O1.s");
    let saxpy = saxpy.to_str().unwrap();
    for (it, needle) in [
        (
            "0",
            "kernel saxpy_loop: --iterations 0: expected 1 to 10000",
        ),
        ("4294967295", "--iterations 4294967295: expected 1 to 10000"),
    ] {
        expect_error(
            &["kernel", "run", saxpy, "--iterations", it],
            &no_verilator,
            needle,
        );
    }
    expect_error(
        &["kernel", "run", saxpy, "--bundles", "/proc/x/b"],
        &no_verilator,
        "--bundles /proc/x/b: cannot write there",
    );
    // A kernel file for no profile of the run adds no job: an error, not
    // a regression that leaves it out without a word.
    expect_error(
        &["regress", "--profile", "gfx11", "--kernels", saxpy, "--list"],
        &no_verilator,
        &format!("--kernels {saxpy}: its kernels are for gfx9, a profile this run leaves out (--profile): no kernel job is left"),
    );
    // Beside a file that gives jobs, it is left out with a warning naming it.
    let scan = gpucosim_tests::repo_root().join("tests/fixtures/kernels/scan.gfx1100.O3.s");
    let (code, out, err) = run(
        &[
            "regress",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx11",
            "--seeds",
            "1",
            "--list",
            "--kernels",
            saxpy,
            "--kernels",
            scan.to_str().unwrap(),
        ],
        &no_verilator,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "waitcnt.gfx11.1\nwaitcnt.gfx11.scan_block.1\n");
    assert!(
        err.contains(&format!(
            "warning: --kernels {saxpy}: its kernels are for gfx9, a profile this run leaves out"
        )),
        "{err}"
    );
    // An output that is an input, or two outputs naming one file, would
    // replace a file the user has: refused before anything runs.
    let dir = tempfile::tempdir().unwrap();
    let (cl, results) = (dir.path().join("k.cl"), dir.path().join("r.json"));
    std::fs::write(&cl, "kernel void k(global int *a) { a[0] = 1; }\n").unwrap();
    std::fs::write(&results, "{}").unwrap();
    let (cl, results) = (cl.to_str().unwrap(), results.to_str().unwrap());
    let other = dir.path().join("x/../same.out");
    let other = other.to_str().unwrap();
    let same = dir.path().join("same.out");
    let same = same.to_str().unwrap();
    for (args, needle) in [
        (
            &["kernel", "compile", "--profile", "gfx9", "-o", cl, cl][..],
            format!("-o {cl}: is the input {cl}; it would be overwritten"),
        ),
        (
            &["merge", results, "--results", results],
            format!("--results {results}: is the input {results}; it would be overwritten"),
        ),
        (
            &[
                "regress",
                "--unit",
                "waitcnt",
                "--junit",
                same,
                "--results",
                other,
            ],
            format!("--junit {same} and --results {other} name one file"),
        ),
    ] {
        expect_error(args, &no_verilator, &needle);
    }
    assert_eq!(
        std::fs::read_to_string(cl).unwrap(),
        "kernel void k(global int *a) { a[0] = 1; }\n"
    );
    // A listing cut short is no kernel to prove safe.
    let text = std::fs::read_to_string(
        gpucosim_tests::repo_root().join("tests/fixtures/kernels/saxpy_loop.gfx900.O1.s"),
    )
    .unwrap();
    let cut = dir.path().join("cut.s");
    std::fs::write(&cut, &text[..text.find("s_endpgm").unwrap()]).unwrap();
    expect_error(
        &["kernel", "check", cut.to_str().unwrap()],
        &no_verilator,
        "the last instruction of kernel `saxpy_loop`, runs on past its end (no `s_endpgm` or branch): is the file cut short?",
    );
    // A regression's knobs are checked before its plan is listed or run:
    // a `unit.` prefix must name a unit run, and a unit or profile given
    // twice would run its jobs twice.
    let regress = ["regress", "--unit", "waitcnt", "--profile", "gfx9"];
    for (extra, needle) in [
        (
            &["--knob", "bogus.waves=4"][..],
            "--knob bogus.waves=4: `bogus` is not a unit of this run (units: waitcnt)",
        ),
        (
            &["--knob", "lds.stride=abc"],
            "--knob lds.stride=abc: `lds` is not a unit of this run (units: waitcnt)",
        ),
        (
            &["--list", "--knob", "waitcnt.waves=99"],
            "knob `waves` of unit waitcnt: `99` is not an integer in 1..=16",
        ),
        (
            &["--list", "--unit", "waitcnt"],
            "--unit waitcnt is given twice",
        ),
        (
            &["--list", "--profile", "gfx9"],
            "--profile gfx9 is given twice",
        ),
    ] {
        let args: Vec<&str> = regress.iter().chain(extra).copied().collect();
        expect_error(&args, &no_verilator, needle);
    }
    // Negative numbers are values to refuse, not unknown options.
    for (args, opt) in [
        (
            &["run", "--unit", "ta", "--profile", "gfx9", "--seed", "-1"][..],
            "--seed <SEED>",
        ),
        (
            &["run", "--unit", "ta", "--profile", "gfx9", "--cycles", "-5"],
            "--cycles <CYCLES>",
        ),
        (
            &[
                "run",
                "--unit",
                "ta",
                "--profile",
                "gfx9",
                "--timeout",
                "-5",
            ],
            "--timeout <SECONDS>",
        ),
        (&["regress", "--jobs", "-2"], "--jobs <JOBS>"),
        (
            &["regress", "--stall-timeout", "-1"],
            "--stall-timeout <SECONDS>",
        ),
        (
            &["mutate", "--unit", "ta", "--min-kill-rate", "-0.5"],
            "--min-kill-rate <RATE>",
        ),
    ] {
        expect_error(args, &[], &format!("for '{opt}': never negative"));
    }
    expect_error(&["regress", "--shard", "5/4"], &[], "bad shard `5/4`");
    expect_error(&["regress", "--seeds", "9..2"], &[], "bad seed range");
    // A cache variable set but empty is unset (the XDG rule), not a
    // relative path that would put the cache in the working directory.
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_str().unwrap();
    let (code, out, err) = run(
        &["cache"],
        &[
            ("GPUCOSIM_CACHE_DIR", ""),
            ("XDG_CACHE_HOME", ""),
            ("HOME", h),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("in {h}/.cache/gpucosim/rtl")),
        "{out}"
    );
    // Zero is no count to adjust to one, and where the figures go is
    // checked before they are measured.
    expect_error(
        &[
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--max-mismatches",
            "0",
        ],
        &[],
        "--max-mismatches must be at least 1",
    );
    expect_error(
        &["bench", "--unit", "waitcnt", "--write", "/proc/x/b.md"],
        &[],
        "--write /proc/x/b.md: cannot write there",
    );
    expect_error(&["regress", "--unit", "nope"], &[], "unknown unit `nope`");
    expect_error(&["frobnicate"], &[], "unrecognized subcommand");
    for cmd in [
        &["run", "--unit", "ta", "--profile", "gfx9"][..],
        &["regress"],
        &["replay", "some-bundle"],
        &["kernel", "run", "k.s"],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--waves-format", "bogus"]);
        expect_error(
            &args,
            &[],
            "invalid value 'bogus' for '--waves-format <FORMAT>'",
        );
        let (_, _, err) = run(&args, &[]);
        assert!(err.contains("[possible values: vcd, fst]"), "{err}");
    }
    // mutate --list lists (all, or the mutants named) and takes no option
    // of a run; a mutant is named as --list shows it.
    expect_error(
        &["mutate", "--unit", "waitcnt", "--list", "--json", "m.json"],
        &[],
        "'--list' cannot be used with '--json <JSON>'",
    );
    expect_error(
        &["mutate", "--unit", "waitcnt", "--list", "--mutant", "99999"],
        &[],
        "no mutant 99999 of waitcnt: it has mutants 1..",
    );
    expect_error(
        &["mutate", "--unit", "waitcnt", "--mutant", "waitcnt.m1"],
        &[],
        "expected the mutant's number from --list",
    );
    expect_error(
        &[
            "mutate",
            "--unit",
            "waitcnt",
            "--mutant",
            "3",
            "--mutants",
            "5",
        ],
        &[],
        "cannot be used with",
    );
    let (code, out, err) = run(
        &["mutate", "--unit", "waitcnt", "--list", "--mutant", "m3"],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("waitcnt.m3 ["), "{out}");
    assert!(!out.contains("waitcnt.m4 ["), "{out}");
    // bench: --rss takes counts and no option of the figures; a unit of
    // --mutate is checked before measuring.
    expect_error(&["bench", "--rss", "abc"], &[], "expected a whole number");
    expect_error(&["bench", "--rss", "0"], &[], "must be at least 1");
    expect_error(
        &["bench", "--rss", "1000", "--cycles", "5000"],
        &[],
        "cannot be used with",
    );
    expect_error(
        &["bench", "--unit", "waitcnt", "--mutate", "bogus:gfx9:3"],
        &[],
        "unknown unit `bogus`",
    );
    // shrink's --out is checked before any replay (this bundle's RTL tree
    // does not exist: that error would come first otherwise).
    let b = std::env::temp_dir().join(format!("gc-cli-bundle-{}", std::process::id()));
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(
        b.join("repro.json"),
        r#"{"format": 3, "unit": "ta", "profile": "gfx9", "seed": 3, "cycles": 1000, "knobs": [], "rtl_dir": "/nonexistent/rtl", "rtl_hash": "ab12", "first_mismatch": [500, "x"], "transaction_count": 20, "stimulus": 3}"#,
    )
    .unwrap();
    let bs = b.to_str().unwrap();
    expect_error(
        &["shrink", bs, "--out", "/proc/gc-shrunk"],
        &[],
        "--out /proc/gc-shrunk: cannot write there",
    );
    let file = b.join("repro.json");
    expect_error(
        &["shrink", bs, "--out", file.to_str().unwrap()],
        &[],
        "is not a directory",
    );
    let fresh = b.join("fresh");
    expect_error(
        &["shrink", bs, "--out", fresh.to_str().unwrap()],
        &[],
        "/nonexistent/rtl",
    );
    assert!(
        !fresh.exists(),
        "a shrink that failed left its --out behind"
    );
    let _ = std::fs::remove_dir_all(&b);
    // An include directory that is not there.
    let cl = std::env::temp_dir().join(format!("gc-cli-{}.cl", std::process::id()));
    std::fs::write(&cl, "kernel void k(global int *a) { a[0] = 1; }\n").unwrap();
    expect_error(
        &[
            "kernel",
            "compile",
            cl.to_str().unwrap(),
            "--profile",
            "gfx9",
            "-I",
            "/nonexistent/inc",
        ],
        &[],
        "-I /nonexistent/inc: no such directory",
    );
    let _ = std::fs::remove_file(&cl);
    // Options that shape a waveform need one; a window of no cycles, a
    // JSON "file" on standard output and a number past 64 bits are named.
    let ta = ["run", "--unit", "ta", "--profile", "gfx9"];
    for extra in [&["--window", "5"][..], &["--waves-format", "fst"]] {
        let args = [&ta[..], extra].concat();
        expect_error(&args, &[], "required arguments were not provided");
        let (_, _, err) = run(&args, &[]);
        assert!(err.contains("--waves <WAVES>"), "{err}");
    }
    for (cmd, extra) in [
        (&ta[..], &["--waves", "w", "--window", "0"][..]),
        (&["regress"][..], &["--window", "0"][..]),
    ] {
        expect_error(
            &[cmd, extra].concat(),
            &[],
            "'0' for '--window <WINDOW>': must be at least 1",
        );
    }
    expect_error(
        &[&ta[..], &["--json", "-"]].concat(),
        &[],
        "--json -: name a file",
    );
    expect_error(
        &[&ta[..], &["--seed", "18446744073709551616"]].concat(),
        &[],
        "for '--seed <SEED>': too large a number",
    );
    // A run of no cycles would pass having checked nothing.
    expect_error(
        &["run", "--unit", "ta", "--profile", "gfx9", "--cycles", "0"],
        &[],
        "--cycles must be at least 1",
    );
    expect_error(
        &["regress", "--cycles", "0"],
        &[],
        "--cycles must be at least 1",
    );
    expect_error(
        &[
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--timeout",
            "soon",
        ],
        &[],
        "expected a number of seconds",
    );
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
    // A key given twice would lose one of its values: every unit, at any
    // depth (an lds request's `memory`), in an array or a trace.
    let twice = dir.path().join("twice.json");
    for (unit, text, key) in [
        (
            "ta",
            r#"{"op": "buffer_load_dword", "exec": 1, "exec": 3}"#,
            "exec",
        ),
        (
            "lds",
            r#"[{"op": "ds_read_b32", "addr": 16, "exec": 1, "memory": {"0x10": 1, "0x10": 2}}]"#,
            "0x10",
        ),
        (
            "waitcnt",
            r#"{"trace": [{"issue": null, "x": 1, "x": 2}]}"#,
            "x",
        ),
    ] {
        std::fs::write(&twice, text).unwrap();
        let (code, out, err) = run(
            &[
                "eval",
                "--unit",
                unit,
                "--profile",
                "gfx9",
                twice.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(code, 2, "{unit}: {err}");
        assert!(out.is_empty(), "{unit}: {out}");
        assert!(
            err.starts_with(&format!(
                "error: eval input gives key `{key}` twice at line 1"
            )),
            "{unit}: {err}"
        );
    }
}

#[test]
fn a_missing_rtl_tree_or_verilator_is_an_environment_error() {
    expect_error(
        &["lint", "--rtl", "/nonexistent/rtl"],
        &[],
        "RTL directory `/nonexistent/rtl` does not exist",
    );
    expect_error(
        &["lint", "--rtl", "/etc/passwd"],
        &[],
        "RTL directory `/etc/passwd` is not a directory",
    );
    // A tree or cache placed by the environment names its variable: an
    // empty GPUCOSIM_RTL is not the built-in tree.
    let ta = [
        "run",
        "--unit",
        "ta",
        "--profile",
        "gfx9",
        "--cycles",
        "100",
    ];
    expect_error(
        &ta,
        &[("GPUCOSIM_RTL", "")],
        "RTL directory `` (GPUCOSIM_RTL is set, but empty) does not exist",
    );
    expect_error(
        &ta,
        &[("GPUCOSIM_RTL", "/nonexistent/rtl")],
        "RTL directory `/nonexistent/rtl` (from $GPUCOSIM_RTL) does not exist",
    );
    expect_error(
        &ta,
        &[("GPUCOSIM_CACHE_DIR", "/proc/gc-cache")],
        "cannot create the build cache /proc/gc-cache (placed by $GPUCOSIM_CACHE_DIR",
    );
    // An output location that cannot be written is named as given, not by
    // the temporary file tried there.
    let (code, _, err) = run(
        &[
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--json",
            "/proc/run.json",
        ],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--json /proc/run.json: cannot write there"),
        "{err}"
    );
    assert!(!err.contains(".gpucosim-"), "{err}");
    expect_error(
        &[
            "run",
            "--unit",
            "ta",
            "--profile",
            "gfx9",
            "--waves",
            "/etc/passwd",
        ],
        &[],
        "--waves /etc/passwd: is not a directory",
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

/// JSON lines with a syntax error on line 2: line 1's result comes out
/// before the error.
#[test]
fn eval_prints_the_results_before_a_bad_line() {
    for args in [
        &["--unit", "waitcnt", "--profile", "gfx9"][..],
        &["--unit", "waitcnt", "--profile", "gfx9", "--compact"],
    ] {
        let (code, out, err) = eval_with(args, "{\"decode\": 0}\n{\"decode\": \n");
        assert_eq!(code, 2, "{args:?}: {out}\n{err}");
        assert!(err.contains("eval input is not JSON"), "{err}");
        assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert!(v.is_object(), "{out}");
    }
}

fn eval(unit: &str, input: &str) -> (i32, String, String) {
    eval_with(&["--unit", unit, "--profile", "gfx9"], input)
}

fn eval_with(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut c = Command::new(gpucosim_bin())
        .arg("eval")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    let input = input.to_string();
    let w = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let o = c.wait_with_output().unwrap();
    let _ = w.join();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn eval_takes_one_request_an_array_or_json_lines() {
    let req = r#"{"op": "ds_read_b32", "addr": [0, 128]}"#;
    // One request: one pretty result.
    let (code, out, err) = eval("lds", req);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["cycles"], 3, "{out}");
    // An array: an array of results.
    let (code, out, err) = eval("lds", &format!("[{req}, {req}]"));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    let (code, out, _) = eval("lds", "[]");
    assert_eq!((code, out.trim()), (0, "[]"));
    // JSON lines: one compact result per line.
    let (code, out, err) = eval("lds", &format!("{req}\n{req}\n{req}\n"));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for l in lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["cycles"], 3);
    }
}

/// `--compact`: one compact result per line whatever the input's shape,
/// each with its request's index.
#[test]
fn eval_compact_prints_one_result_per_line() {
    let req = r#"{"decode": "0xBF8C0070"}"#;
    for input in [
        format!("[{req}, {req}, {req}]"),
        format!("{req}\n{req}\n{req}"),
    ] {
        let (code, out, err) = eval_with(
            &["--unit", "waitcnt", "--profile", "gfx9", "--compact"],
            &input,
        );
        assert_eq!(code, 0, "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        for (i, l) in lines.iter().enumerate() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["request"], i, "{l}");
            assert_eq!(v["lgkmcnt"], 0, "{l}");
        }
    }
    let (code, out, _) = eval_with(
        &["--unit", "waitcnt", "--profile", "gfx9", "--compact"],
        req,
    );
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1, "{out}");
}

#[test]
fn eval_errors_name_the_request_and_quote_little() {
    // A bad request stops the stream, naming its index; the results
    // before it were written.
    let good = r#"{"op": "ds_read_b32", "addr": [0]}"#;
    let (code, out, err) = eval(
        "lds",
        &format!("[{good}, {{\"op\": \"ds_read_b32\", \"exec\": -3}}]"),
    );
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("request 1: `exec`"), "{err}");
    assert!(err.contains("is negative"), "{err}");
    assert!(
        out.starts_with("[\n{"),
        "the first result was not written: {out}"
    );
    // Negative numbers are refused by every unit, as numbers or strings.
    for (unit, req) in [
        ("lds", r#"{"op": "ds_read_b32", "m0": -1}"#),
        ("lds", r#"{"op": "ds_read_b32", "m0": "-1"}"#),
        ("ta", r#"{"instr": "buffer_load_dword", "soffset": -4}"#),
        ("waitcnt", r#"{"decode": -1}"#),
    ] {
        let (code, _, err) = eval(unit, req);
        assert_eq!(code, 2, "{unit} accepted {req}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A huge value is quoted by its start and its length, on one line.
    let name = "x".repeat(1_000_000);
    let (code, _, err) = eval("ta", &format!("{{\"instr\": \"{name}\"}}"));
    assert_eq!(code, 2);
    assert!(
        err.contains("(1000000 characters)"),
        "{}",
        &err[..err.len().min(300)]
    );
    assert!(err.len() < 1200, "an error of {} bytes", err.len());
    assert_eq!(err.trim_end().lines().count(), 1);
}

/// The results file of shard 1 of 2 of a small regression, every job passed.
fn one_of_two_shards(dir: &std::path::Path) -> std::path::PathBuf {
    use gpucosim::regress::{JobList, JobResult, Plan, ResultsFile, Shard, Status};
    let plan = Plan {
        kernels: Vec::new(),
        stress: false,
        code_coverage: false,
        stimulus: gpucosim::draw::STIMULUS_VERSION,
        units: vec!["ta".into()],
        profiles: vec![gpucosim_model::Profile::Gfx9],
        seeds: "1..4".parse().unwrap(),
        cycles: 100,
        knobs: vec![],
    };
    let shard = Shard { k: 1, n: 2 };
    let mut r = ResultsFile::new(&plan, Some(shard));
    for j in JobList::new(&plan, Some(shard)).unwrap().iter() {
        let mut jr = JobResult::new(&j);
        jr.status = Status::Passed;
        r.add(jr);
    }
    let path = dir.join("shard1.json");
    std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
    path
}

#[test]
fn merge_of_some_shards_fails_unless_partial_merges_are_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let path = one_of_two_shards(dir.path());
    let junit = dir.path().join("junit.xml");
    let p = path.to_str().unwrap();
    let j = junit.to_str().unwrap();
    let (code, out, err) = run(&["merge", p, "--junit", j], &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("shard 2/2 is missing"), "{err}");
    // What was there is written all the same, the missing jobs skipped.
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(x.contains("not run: shard 2/2 is missing"), "{x}");
    let (code, _, err) = run(&["merge", p, "--allow-partial"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: partial merge: shard 2/2 is missing"),
        "{err}"
    );
}

/// Diagnostics on stderr follow `-v`, `--quiet` (before or after the
/// command) and GPUCOSIM_LOG; results, outputs and exit codes do not, and
/// `error:` lines are printed whatever the filter.
#[test]
fn diagnostics_follow_verbose_quiet_and_gpucosim_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = one_of_two_shards(dir.path());
    let junit = dir.path().join("junit.xml");
    let (p, j) = (path.to_str().unwrap(), junit.to_str().unwrap());
    let warning = "warning: partial merge: shard 2/2 is missing\n";
    let wrote = format!("debug: gpucosim::outputs: wrote {j} (");
    let merge = |flags: &[&str], log: Option<&str>| {
        let mut c = Command::new(gpucosim_bin());
        c.args(flags)
            .args(["merge", p, "--junit", j, "--allow-partial"])
            .env_remove("GPUCOSIM_LOG");
        if let Some(l) = log {
            c.env("GPUCOSIM_LOG", l);
        }
        let o = c.output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert_eq!(o.status.code(), Some(0), "{flags:?} {log:?}");
        (text(&o.stdout), text(&o.stderr))
    };
    let (results, err) = merge(&[], None);
    assert!(
        results.contains("2 jobs from 1 shard(s), 0 failed"),
        "{results}"
    );
    assert_eq!(err, warning, "notes, warnings and errors by default");
    for (flags, log, expect) in [
        (&["-v"][..], None, "warning and debug"),
        (&["--verbose"], Some("error"), "warning and debug"),
        (&[], Some("debug"), "warning and debug"),
        (&[], Some("warn"), "warning"),
        (&[], Some("error"), "nothing"),
        (&["--quiet"], None, "nothing"),
        (&["-q"], Some("debug"), "nothing"),
        (&[], Some("nonsense[filter"), "invalid filter and warning"),
    ] {
        let (out, err) = merge(flags, log);
        assert_eq!(out, results, "{flags:?} {log:?}: the results changed");
        let what = match (err.contains(warning), err.contains(&wrote)) {
            (true, true) => "warning and debug",
            (true, false) if err.contains("warning: GPUCOSIM_LOG is not a valid filter") => {
                "invalid filter and warning"
            }
            (true, false) if err == warning => "warning",
            (false, false) if err.is_empty() => "nothing",
            _ => "something else",
        };
        assert_eq!(what, expect, "{flags:?} {log:?}:\n{err}");
    }
    // The flags are global: after the command too.
    let o = Command::new(gpucosim_bin())
        .args(["merge", p, "--allow-partial", "--quiet"])
        .output()
        .unwrap();
    assert_eq!((o.status.code(), o.stderr.len()), (Some(0), 0));
    // An error is printed under --quiet, as always.
    let (code, _, err) = run(&["--quiet", "merge", p], &[]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: incomplete merge: shard 2/2 is missing"),
        "{err}"
    );
}

#[test]
fn a_shard_of_a_huge_regression_is_listed_without_listing_the_rest() {
    let (code, out, err) = run(
        &[
            "regress",
            "--seeds",
            "1..10000000000",
            "--shard",
            "1/100000000",
            "--list",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    // 100 seeds of the shard for every unit and profile.
    let groups = gpucosim::units::UNITS.len() * gpucosim_model::Profile::all().count();
    assert_eq!(lines.len(), 100 * groups);
    assert_eq!(lines[0], "ta.gfx9.1");
    assert_eq!(lines[1], "ta.gfx9.100000001");
}

/// A cached start asks no other program where Verilator is: a `python3`
/// first on PATH that records being run is never run.
#[test]
fn a_cached_start_runs_no_other_program() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("python-was-run");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("python3");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The RTL is built and Verilator remembered (or on PATH) first.
    let (code, _, err) = run(
        &["build", "--unit", "waitcnt", "--profile", "gfx9"],
        &[("GPUCOSIM_BUILD", "quick")],
    );
    assert_eq!(code, 0, "{err}");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let t0 = std::time::Instant::now();
    let (code, out, err) = run(
        &[
            "run",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--cycles",
            "10",
        ],
        &[("PATH", &path), ("GPUCOSIM_BUILD", "quick")],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(!marker.exists(), "python3 was run on a cached start");
    assert!(t0.elapsed().as_secs() < 20);
}

/// A VCD of the toy unit whose model and RTL differ on `q_o[2]` from
/// cycle 5, written by the same writer as a run's.
fn toy_vcd(dir: &std::path::Path) -> std::path::PathBuf {
    toy_waveform(dir, gpucosim_waves::WaveFormat::Vcd)
}

/// [`toy_vcd`] in `format`.
fn toy_waveform(dir: &std::path::Path, format: gpucosim_waves::WaveFormat) -> std::path::PathBuf {
    use gpucosim_tests::toy_ports as p;
    let t = &p::TABLE;
    let mut cap = gpucosim_waves::Capture::new(t, 64);
    for c in 0..20u64 {
        let mut inp = vec![0u32; t.in_words()];
        p::rst_ni.set(&mut inp, u64::from(c >= 2));
        p::d_i.set_elem(&mut inp, 1, c);
        let mut m = vec![0u32; t.out_words()];
        p::sum_o.set(&mut m, 3 * c);
        p::q_o.set_elem(&mut m, 2, c);
        let mut r = m.clone();
        if c >= 5 {
            p::q_o.set_elem(&mut r, 2, c + 0x100);
        }
        cap.record(c, &inp, &m, &r);
    }
    let path = dir.join(format!("toy.gfx9.1.{}", format.extension()));
    gpucosim_waves::write_capture(&path, t, &cap, &gpucosim_waves::Meta::default(), format)
        .unwrap();
    path
}

#[test]
fn waves_prints_the_divergence_of_a_vcd_or_a_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = toy_vcd(dir.path());
    let v = vcd.to_str().unwrap();
    let (code, out, err) = run(&["waves", v], &[]);
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].ends_with("first divergence at cycle 5 on q_o"),
        "{out}"
    );
    // Cycles 0..=7 (8 up to the divergence, then 2 more), q_o[2] only.
    assert!(
        lines[1]
            .split_whitespace()
            .eq(["cycle", "0", "1", "2", "3", "4", "5", "6", "7"]),
        "{out}"
    );
    assert!(lines[2].starts_with("q_o[2] model"), "{out}");
    assert!(lines[3].trim_end().ends_with("105*  106*  107*"), "{out}");
    assert_eq!(lines.len(), 4, "{out}");
    // The directory holding it is read the same way.
    let (code, out2, _) = run(&["waves", dir.path().to_str().unwrap()], &[]);
    assert_eq!((code, &out2), (0, &out));
    // And the same capture as an FST.
    let fst_dir = tempfile::tempdir().unwrap();
    let fst = toy_waveform(fst_dir.path(), gpucosim_waves::WaveFormat::Fst);
    let (code, out3, err) = run(&["waves", fst.to_str().unwrap()], &[]);
    let out3 = out3.replace(fst.to_str().unwrap(), v);
    assert_eq!((code, &out3), (0, &out), "{err}");
    // Chosen signals and cycles.
    let (code, out, err) = run(
        &[
            "waves",
            v,
            "--signals",
            "in.d_i[1]",
            "sum_*",
            "--cycles",
            "10..=11",
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].split_whitespace().eq(["cycle", "10", "11"]),
        "{out}"
    );
    assert!(
        lines[2].split_whitespace().eq(["d_i[1]", "in", "a", "b"]),
        "{out}"
    );
    assert!(
        lines[3]
            .split_whitespace()
            .eq(["sum_o", "model", "1e", "21"]),
        "{out}"
    );
    assert!(lines[4].split_whitespace().eq(["rtl", "1e", "21"]), "{out}");
}

/// `gpucosim waves` reads a whole-run FST as the VCD of the same run: the
/// same text, though the FST's changes come in several blocks (a ta run's
/// fill the writer's 4 MB block in about 5,000 cycles) and are read one
/// time step at a time rather than held whole. With two blocks swapped,
/// so that time goes backwards, the FST is refused in one line.
#[test]
#[ignore = "heavy (7,000 cycles of ta with every cycle in the waveform, twice, read back): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn waves_reads_a_whole_run_fst_as_the_vcd_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut texts = Vec::new();
    for format in ["vcd", "fst"] {
        let w = dir.path().join(format);
        let run_args = "run --unit ta --profile gfx9 --cycles 7000 --dump-all --waves";
        let mut args: Vec<&str> = run_args.split(' ').collect();
        args.extend([w.to_str().unwrap(), "--waves-format", format]);
        let (code, out, err) = run(&args, &[("GPUCOSIM_BUILD", "quick")]);
        assert_eq!(code, 0, "{out}{err}");
        let file = w.join(format!("ta.gfx9.1.{format}"));
        let mut seen = Vec::new();
        if format == "fst" {
            let blocks = fst_blocks(&file);
            let changes: Vec<usize> = (0..blocks.len())
                // FST_BL_VCDATA, _DYN_ALIAS, _DYN_ALIAS2.
                .filter(|&k| matches!(blocks[k][0], 1 | 5 | 8))
                .collect();
            assert!(changes.len() >= 2, "{}", file.display());
            let mut swapped = blocks.clone();
            swapped.swap(changes[0], changes[1]);
            let bad = dir.path().join("swapped.fst");
            std::fs::write(&bad, swapped.concat()).unwrap();
            expect_error(
                &["waves", bad.to_str().unwrap()],
                &[],
                "is not a gpucosim FST: not a readable FST: value changes out of time order",
            );
        }
        for cycles in ["0..40", "6950..7000"] {
            let args = [
                "waves",
                file.to_str().unwrap(),
                "--signals",
                "*lane_addr_o[17]",
                "in.exec_i",
                "line_*",
                "--cycles",
                cycles,
            ];
            let (code, out, err) = run(&args, &[]);
            assert_eq!(code, 0, "{format} {cycles}: {out}{err}");
            seen.push(out);
        }
        texts.push(seen);
    }
    assert!(texts[0][1].contains("line_addr_o"), "{}", texts[0][1]);
    assert_eq!(texts[0], texts[1]);
}

/// The blocks of the FST `path`, each whole: a type byte, then a
/// big-endian 64-bit length (the type's byte excluded) and the rest.
fn fst_blocks(path: &std::path::Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).unwrap();
    let mut blocks = Vec::new();
    let mut at = 0;
    while at + 9 <= b.len() {
        let len = u64::from_be_bytes(b[at + 1..at + 9].try_into().unwrap()) as usize;
        blocks.push(b[at..at + 1 + len].to_vec());
        at += 1 + len;
    }
    assert_eq!(
        at,
        b.len(),
        "{}: blocks do not end at the end",
        path.display()
    );
    blocks
}

#[test]
fn waves_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let junk = dir.path().join("junk.vcd");
    std::fs::write(&junk, "not a waveform\n").unwrap();
    let vcd = toy_vcd(dir.path());
    let v = vcd.to_str().unwrap();
    expect_error(
        &["waves", "/nonexistent/x.vcd"],
        &[],
        "no such file: /nonexistent/x.vcd",
    );
    expect_error(
        &["waves", empty.to_str().unwrap()],
        &[],
        "holds no waveform",
    );
    expect_error(
        &["waves", junk.to_str().unwrap()],
        &[],
        "is not a gpucosim VCD",
    );
    let junk_fst = dir.path().join("junk.fst");
    std::fs::write(&junk_fst, "not a waveform\n").unwrap();
    expect_error(
        &["waves", junk_fst.to_str().unwrap()],
        &[],
        "is not a gpucosim FST",
    );
    expect_error(
        &["waves", v, "--signals", "nothing*"],
        &[],
        "no signal matches `nothing*`",
    );
    expect_error(
        &["waves", v, "--cycles", "5..5"],
        &[],
        "the cycle range `5..5` is empty",
    );
    expect_error(
        &["waves", v, "--cycles", "x..3"],
        &[],
        "is not a cycle range",
    );
    expect_error(
        &["waves", v, "--cycles", "100..200"],
        &[],
        "holds no cycle in 100..=199",
    );
    std::fs::copy(&vcd, dir.path().join("other.vcd")).unwrap();
    expect_error(
        &["waves", dir.path().to_str().unwrap()],
        &[],
        "holds several waveforms",
    );
    // An FST whose VCD does not fit on the disk (a file-size limit of
    // 512 bytes fails the write as a full disk does): named as such, not
    // as a bad FST.
    let fst_dir = tempfile::tempdir().unwrap();
    let fst = toy_waveform(fst_dir.path(), gpucosim_waves::WaveFormat::Fst);
    let mut c = Command::new(gpucosim_bin());
    c.arg("waves").arg(&fst).env("TMPDIR", dir.path());
    crate::faults::limit_files(&mut c, 512);
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let want = format!(
        "error: cannot write the VCD of {} to a temporary file ({}/",
        fst.display(),
        dir.path().display()
    );
    assert!(err.starts_with(&want), "{err}");
    assert!(err.contains("File too large"), "{err}");
}

/// An `--rtl` tree of one unit co-simulates that unit and runs the others
/// on the built-in RTL, saying so in one line: a kernel's traffic through
/// the LDS and TA units, and a regression over every unit. Naming the
/// missing unit with `--unit` is still an error.
#[test]
fn an_rtl_tree_of_one_unit_runs_that_unit_and_the_built_in_others() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("rtl");
    let ta = tree.join("ta");
    std::fs::create_dir_all(&ta).unwrap();
    for e in std::fs::read_dir(gpucosim_tests::repo_root().join("rtl/ta")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, ta.join(p.file_name().unwrap())).unwrap();
    }
    let t = tree.to_str().unwrap();
    let emu = gpucosim_tests::repo_root().join("tests/fixtures/kernels/emu");
    let kernel = emu.join("transpose.gfx900.s");
    let launch = emu.join("transpose.launch.json");
    let quick = [("GPUCOSIM_BUILD", "quick")];
    let (code, out, err) = run(
        &[
            "kernel",
            "run",
            kernel.to_str().unwrap(),
            "--launch",
            launch.to_str().unwrap(),
            "--rtl",
            t,
            "--bundles",
            dir.path().join("b").to_str().unwrap(),
        ],
        &quick,
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let note = format!("note: {t} has RTL for ta but not for lds: lds runs on the built-in RTL");
    assert_eq!(err.matches(&note).count(), 1, "{err}");
    assert!(
        out.contains("PASS lds.gfx9.transpose32.1") && out.contains("PASS ta.gfx9.transpose32.1"),
        "{out}"
    );
    let (code, out, err) = run(
        &[
            "regress",
            "--rtl",
            t,
            "--seeds",
            "1",
            "--cycles",
            "2000",
            "--no-stress",
            "--quiet",
            "--bundles",
            dir.path().join("r").to_str().unwrap(),
        ],
        &quick,
    );
    assert_eq!(code, 0, "{out}\n{err}");
    for unit in ["lds", "waitcnt"] {
        assert!(
            err.contains(&format!(
                "has RTL for ta but not for {unit}: {unit} runs on the built-in RTL"
            )),
            "{err}"
        );
    }
    expect_error(
        &["regress", "--rtl", t, "--unit", "lds", "--seeds", "1"],
        &quick,
        "no RTL for unit `lds`",
    );
}

/// The exit codes `--help` lists are the table README shows, row for row.
#[test]
fn exit_codes_in_help_and_readme_are_one_table() {
    let (code, out, err) = run(&["--help"], &[]);
    assert_eq!(code, 0, "{err}");
    let help: Vec<(String, String)> = out
        .split("Exit codes (every command):\n")
        .nth(1)
        .expect("--help lists the exit codes")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let (c, m) = l.trim().split_at(8.min(l.trim().len()));
            (c.trim().to_string(), m.trim().to_string())
        })
        .collect();
    let readme = std::fs::read_to_string(gpucosim_tests::repo_root().join("README.md")).unwrap();
    let table: Vec<(String, String)> = readme
        .split("Exit codes (every command):\n")
        .nth(1)
        .expect("README lists the exit codes")
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").collect();
            (cells[0].trim().to_string(), cells[1].trim().to_string())
        })
        .collect();
    assert_eq!(help.len(), 6, "{out}");
    assert_eq!(help, table, "--help and README's exit codes differ");
}

/// A listing whose reader goes away (`gpucosim cache | head -0`) ends as
/// `ls` does, by SIGPIPE, never with a panic; so does `regress --list`.
#[test]
fn listings_end_quietly_when_the_reader_goes_away() {
    use std::os::unix::process::ExitStatusExt;
    let cache = tempfile::tempdir().unwrap();
    // An entry to list: its metadata is what `cache --list` reads.
    std::fs::create_dir_all(cache.path().join("builds")).unwrap();
    for args in [&["cache"][..], &["cache", "--list"], &["regress", "--list"]] {
        let mut c = Command::new(gpucosim_bin())
            .args(args)
            .env("GPUCOSIM_CACHE_DIR", cache.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(c.stdout.take());
        let o = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            o.status.success() || o.status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {:?}\n{err}",
            o.status
        );
    }
}

/// A regression with fewer jobs than workers runs them pipelined on the
/// spare workers' CPUs (the results file says so, and the job ends as on
/// one CPU); `--no-pipeline` keeps each on one; `--jobs 1` lends nothing.
#[test]
fn a_small_regression_runs_its_jobs_on_the_spare_workers_cpus() {
    let dir = tempfile::tempdir().unwrap();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // One waitcnt job: (pipelined, cycles, transactions).
    let regress = |name: &str, extra: &[&str]| {
        let results = dir.path().join(format!("{name}.json"));
        let bundles = dir.path().join(format!("{name}-bundles"));
        let mut args = vec![
            "regress",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx9",
            "--seeds",
            "1..1",
            "--cycles",
            "3000",
            "--no-stress",
            "--quiet",
            "--results",
            results.to_str().unwrap(),
            "--bundles",
            bundles.to_str().unwrap(),
        ];
        args.extend(extra);
        let (code, out, err) = run(&args, &[("GPUCOSIM_BUILD", "quick")]);
        assert_eq!(code, 0, "{out}{err}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
        let job = &v["jobs"][0];
        assert_eq!(job["status"], "passed", "{job}");
        (
            job.get("pipelined").map(|p| p.as_bool().unwrap()),
            job["cycles"].clone(),
            job["transactions"].clone(),
        )
    };
    let lent = regress("lent", &["--jobs", "2"]);
    let one = regress("one", &["--jobs", "2", "--no-pipeline"]);
    let single = regress("single", &["--jobs", "1"]);
    // The field is written only when true.
    assert_eq!(lent.0, (cpus >= 2).then_some(true), "{cpus} CPUs");
    assert_eq!((one.0, single.0), (None, None));
    assert_eq!((&lent.1, &lent.2), (&one.1, &one.2));
    assert_eq!((&single.1, &single.2), (&one.1, &one.2));
}

/// The job times of earlier regressions order the jobs from the start:
/// times that make waitcnt the longest group start both its jobs first
/// on two workers, where without times each group's first job starts
/// first; the regression then replaces them with what it measured. A
/// broken file is reported and replaced without changing the exit code; a
/// `--job-times` that cannot be written is refused up front (one that
/// fails at the end: `faults::job_times_that_cannot_be_written_leave_the_regression_whole`).
#[test]
fn earlier_job_times_order_a_regressions_jobs_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let times = dir.path().join("times.json");
    let results = dir.path().join("results.json");
    let bundles = dir.path().join("bundles");
    // (exit code, the first two jobs started, stderr).
    let regress = |times: &std::path::Path| {
        let args = [
            "regress",
            "--unit",
            "lds",
            "--unit",
            "waitcnt",
            "--profile",
            "gfx11",
            "--seeds",
            "1..2",
            "--cycles",
            "10000",
            "--no-stress",
            "--jobs",
            "2",
            "--no-pipeline",
            "-v",
            "--job-times",
            times.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
            "--bundles",
            bundles.to_str().unwrap(),
        ];
        let (code, out, err) = run(&args, &[("GPUCOSIM_BUILD", "quick")]);
        let mut first: Vec<String> = err
            .lines()
            .filter_map(|l| l.strip_suffix(": started"))
            .filter_map(|l| l.rsplit(' ').next())
            .take(2)
            .map(str::to_string)
            .collect();
        first.sort();
        assert!(!err.contains("panicked"), "{out}{err}");
        (code, first, err)
    };
    let (code, first, err) = regress(&times);
    assert_eq!(code, 0, "{err}");
    assert_eq!(first, ["lds.gfx11.1", "waitcnt.gfx11.1"], "{err}");
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&times).unwrap()).unwrap();
    // Quick builds (GPUCOSIM_BUILD=quick) have groups of their own.
    for g in ["lds.gfx11.quick", "waitcnt.gfx11.quick"] {
        assert_eq!(kept["groups"][g]["cycles"], 20000, "{kept}");
        assert_eq!(kept["groups"][g]["jobs"], 2, "{kept}");
    }

    let upside_down = r#"{"format": 1, "groups": {
        "lds.gfx11.quick": {"seconds": 0.001, "cycles": 1000, "jobs": 1},
        "ta.gfx9.quick": {"seconds": 7.0, "cycles": 1000, "jobs": 1},
        "waitcnt.gfx11": {"seconds": 0.001, "cycles": 1000, "jobs": 1},
        "waitcnt.gfx11.quick": {"seconds": 1.0, "cycles": 1000, "jobs": 1}}}"#;
    std::fs::write(&times, upside_down).unwrap();
    let (code, first, err) = regress(&times);
    assert_eq!(code, 0, "{err}");
    assert_eq!(first, ["waitcnt.gfx11.1", "waitcnt.gfx11.2"], "{err}");
    assert!(err.contains("2 of 2 job groups have times"), "{err}");
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&times).unwrap()).unwrap();
    assert_eq!(
        kept["groups"]["waitcnt.gfx11.quick"]["cycles"], 20000,
        "{kept}"
    );
    // Groups this regression did not run keep their times: another
    // unit's, and the default build's of the same unit.
    assert_eq!(kept["groups"]["ta.gfx9.quick"]["seconds"], 7.0, "{kept}");
    assert_eq!(kept["groups"]["waitcnt.gfx11"]["seconds"], 0.001, "{kept}");

    std::fs::write(&times, "{ not json").unwrap();
    let (code, first, err) = regress(&times);
    assert_eq!(code, 0, "{err}");
    assert_eq!(first, ["lds.gfx11.1", "waitcnt.gfx11.1"], "{err}");
    let warning = err
        .lines()
        .find(|l| l.starts_with("warning: "))
        .unwrap_or_default();
    assert!(
        warning.contains("are not valid") && warning.contains(times.to_str().unwrap()),
        "{err}"
    );
    serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&times).unwrap())
        .expect("the broken file replaced");

    // A `--job-times` that cannot be written, under a regular file or a
    // directory itself, is refused before anything runs.
    let before = std::fs::read_to_string(&results).unwrap();
    for bad in [results.join("times.json"), dir.path().to_path_buf()] {
        let (code, _, err) = regress(&bad);
        assert_eq!(code, 2, "{err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(last.starts_with("error: --job-times "), "{err}");
        assert!(!err.contains(": started"), "{err}");
        assert_eq!(std::fs::read_to_string(&results).unwrap(), before);
    }
}
