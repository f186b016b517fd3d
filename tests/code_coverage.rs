//! `--code-coverage`: the RTL's line, branch, expression and toggle
//! coverage, merged over shards exactly as one run, reported as lcov,
//! Cobertura, JUnit properties and a text list, held to floors, with
//! reviewed waivers that go stale.

use crate::coverage::run;
use gpucosim::regress::ResultsFile;

const BASE: &[&str] = &[
    "regress",
    "--unit",
    "waitcnt",
    "--profile",
    "gfx9",
    "--seeds",
    "1..8",
    "--cycles",
    "3000",
    "--code-coverage",
];

/// The code coverage of a regression run in 4 shards and merged equals
/// that of the regression run at once, point for point, and so do its
/// lcov and Cobertura reports; floors fail with the uncovered lines
/// listed (file:line and source), in the output and the JUnit report;
/// a waiver takes its item out, and a stale or needless one fails.
#[test]
#[ignore = "heavy (a coverage build of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn code_coverage_merges_over_shards_as_one_run_and_is_held_to_floors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut args = BASE.to_vec();
    args.extend([
        "--results",
        "all.json",
        "--lcov",
        "all.info",
        "--uncovered",
        "all.txt",
    ]);
    let (code, out, err) = run(d, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("code coverage") && out.contains("waitcnt/waitcnt_top.sv"),
        "{out}"
    );
    let all = ResultsFile::load(&d.join("all.json")).unwrap();
    let cov = &all.code_coverage["waitcnt.gfx9"];
    assert!(cov.points.len() > 100, "{}", cov.points.len());
    assert!(cov.points.values().any(|&n| n > 0) && cov.points.values().any(|&n| n == 0));
    assert!(cov.sources.contains_key("waitcnt/waitcnt_top.sv"));
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let results = format!("s{k}.json");
        let mut a = BASE.to_vec();
        a.extend(["--shard", &shard, "--results", &results]);
        let (code, out, err) = run(d, &a);
        assert_eq!(code, 0, "{out}\n{err}");
    }
    let shards = ["s1.json", "s2.json", "s3.json", "s4.json"];
    let mut m = vec!["merge"];
    m.extend(shards);
    m.extend([
        "--results",
        "merged.json",
        "--lcov",
        "merged.info",
        "--cobertura",
        "merged.xml",
        "--coverage-html",
        "html",
    ]);
    let (code, out, err) = run(d, &m);
    assert_eq!(code, 0, "{out}\n{err}");
    // genhtml's report where Debian's lcov is installed, one line where not.
    assert!(
        d.join("html/index.html").is_file()
            || err.contains("note: --coverage-html: genhtml (Debian's lcov) is not installed"),
        "{err}"
    );
    let merged = ResultsFile::load(&d.join("merged.json")).unwrap();
    assert_eq!(merged.code_coverage, all.code_coverage);
    let info = std::fs::read_to_string(d.join("merged.info")).unwrap();
    assert_eq!(info, std::fs::read_to_string(d.join("all.info")).unwrap());
    assert!(info.contains("/waitcnt/waitcnt_top.sv\nDA:"), "{info}");
    let xml = std::fs::read_to_string(d.join("merged.xml")).unwrap();
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&xml, opts).unwrap();
    assert!(doc
        .descendants()
        .any(|n| n.has_tag_name("class")
            && n.attribute("filename") == Some("waitcnt/waitcnt_top.sv")));

    // A floor the run does not reach fails, listing what is uncovered.
    let mut m = vec!["merge"];
    m.extend(shards);
    m.extend([
        "--require-code-coverage",
        "line=100,toggle=99",
        "--junit",
        "j.xml",
    ]);
    let (code, out, _) = run(d, &m);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAIL code-coverage.waitcnt.gfx9: toggle"),
        "{out}"
    );
    assert!(
        !out.contains("FAIL code-coverage.waitcnt.gfx9: line"),
        "{out}"
    );
    assert!(
        out.contains("waitcnt/waitcnt_ports.svh:") && out.contains("never seen: "),
        "{out}"
    );
    let junit = std::fs::read_to_string(d.join("j.xml")).unwrap();
    let jd = roxmltree::Document::parse(&junit).unwrap();
    let case = jd
        .descendants()
        .find(|n| {
            n.has_tag_name("testcase") && n.attribute("name") == Some("code-coverage.waitcnt.gfx9")
        })
        .unwrap();
    assert!(
        case.children().any(|c| c.has_tag_name("failure")),
        "{junit}"
    );
    assert!(jd
        .descendants()
        .any(|n| n.has_tag_name("property")
            && n.attribute("name") == Some("code-coverage.toggle.total")));

    // A waiver (the line the uncovered list suggests) takes its item out;
    // a stale one and one that waives nothing are findings that fail.
    let listing = std::fs::read_to_string(d.join("all.txt")).unwrap();
    let suggested = listing
        .lines()
        .find_map(|l| l.strip_prefix("# gfx9 waitcnt/waitcnt_top.sv:"))
        .expect("a suggested waiver");
    let good = format!(
        "gfx9 waitcnt/waitcnt_top.sv:{}",
        suggested.replace("<why it cannot or need not be covered>", "reviewed")
    );
    std::fs::write(d.join("w.txt"), format!("{good}\n")).unwrap();
    let mut m = vec!["merge"];
    m.extend(shards);
    m.extend([
        "--code-coverage-waivers",
        "w.txt",
        "--require-code-coverage",
        "line=0",
        "--uncovered",
        "w-listing.txt",
    ]);
    let (code, out, err) = run(d, &m);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("(1 uncovered items waived)"), "{out}");
    assert!(std::fs::read_to_string(d.join("w-listing.txt"))
        .unwrap()
        .contains("waived (waiver line 1)"));
    let place = good.split_whitespace().nth(1).unwrap().to_string();
    std::fs::write(
        d.join("w.txt"),
        format!(
            "{good}\nall {place} line 0000000000000000 stale\nall waitcnt/waitcnt_top.sv:1 line {} covered\n",
            gpucosim::codecov::key(
                "waitcnt/waitcnt_top.sv",
                all.code_coverage["waitcnt.gfx9"]
                    .source_line("waitcnt/waitcnt_top.sv", 1)
                    .unwrap()
            )
        ),
    )
    .unwrap();
    let (code, out, _) = run(d, &m);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("stale waiver at line 2") && out.contains("line 3 waives nothing"),
        "{out}"
    );

    // Another tree of the same RTL shares the cached build: its counts are
    // named under that tree all the same.
    let copy = d.join("rtl-copy");
    gpucosim_tests::copy_tree(
        &gpucosim_tests::repo_root().join("rtl/waitcnt"),
        &copy.join("waitcnt"),
    )
    .unwrap();
    let mut a = BASE.to_vec();
    a.extend([
        "--rtl",
        copy.to_str().unwrap(),
        "--results",
        "copy.json",
        "--lcov",
        "copy.info",
    ]);
    let (code, out, err) = run(d, &a);
    assert_eq!(code, 0, "{out}\n{err}");
    let c = &ResultsFile::load(&d.join("copy.json"))
        .unwrap()
        .code_coverage["waitcnt.gfx9"];
    assert!(
        c.sources.contains_key("waitcnt/waitcnt_top.sv"),
        "{:?}",
        c.sources.keys()
    );
    assert_eq!(c.points, cov.points);
    let info = std::fs::read_to_string(d.join("copy.info")).unwrap();
    assert!(
        info.contains(&format!(
            "SF:{}",
            std::fs::canonicalize(&copy)
                .unwrap()
                .join("waitcnt/waitcnt_top.sv")
                .display()
        )),
        "{info}"
    );

    // Counts that cannot be returned (no temporary directory for the
    // shim's coverage file) fail the job, an error, and keep its run.
    let mut c = gpucosim_tests::quick(std::process::Command::new(crate::gpucosim_bin()));
    let mut a = BASE.to_vec();
    a.extend(["--results", "lost.json"]);
    let o = c
        .current_dir(d)
        .args(&a)
        .env("TMPDIR", d.join("no-such-dir"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the run passed, but its code coverage was lost"),
        "{err}"
    );
    let lost = ResultsFile::load(&d.join("lost.json")).unwrap();
    assert_eq!(lost.jobs.len(), 8);
    assert!(lost.jobs.iter().all(|j| j.cycles == 3000 && !j.passed()));
    assert!(lost.code_coverage.is_empty());
    assert!(!d.join("gpucosim-failures").exists());

    // Code coverage reports or floors without code coverage are refused.
    let (code, _, err) = run(
        d,
        &[
            "regress", "--unit", "waitcnt", "--seeds", "1..1", "--lcov", "x.info",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--lcov") && err.contains("--code-coverage"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// Every shipped waiver of the built-in RTL's code coverage names a line
/// of that RTL as it is now (its key matches): an RTL change under a
/// waiver fails here until the waiver is reviewed again.
#[test]
fn the_shipped_code_coverage_waivers_name_lines_of_the_builtin_rtl() {
    let root = gpucosim_tests::repo_root().join("rtl");
    let path = root.join("code-coverage-waivers.txt");
    let waivers = gpucosim::codecov::load_waivers(&path).unwrap();
    assert!(waivers.len() > 20, "{}", waivers.len());
    for w in &waivers {
        let text = std::fs::read_to_string(root.join(&w.file)).unwrap();
        let line = text.lines().nth(w.line as usize - 1).unwrap();
        assert_eq!(
            gpucosim::codecov::key(&w.file, line),
            w.key,
            "waiver at line {} is stale: {}:{} is now `{}`",
            w.at,
            w.file,
            w.line,
            line.trim()
        );
        assert!(
            !w.reason.contains('<'),
            "waiver at line {} has no reason",
            w.at
        );
    }
}
