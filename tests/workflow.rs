//! The GitHub Actions workflow users copy (`dist/ci/cosim.yml`) passes
//! `actionlint`, the GitHub Actions linter (`$GPUCOSIM_ACTIONLINT`, else
//! `actionlint` on PATH; `.ci/run` installs it from PyPI). Without it the
//! lint is skipped, saying so in one line, unless
//! `GPUCOSIM_REQUIRE_ACTIONLINT=1` (CI) makes that a failure.

use gpucosim_tests::repo_root;
use std::path::PathBuf;
use std::process::Command;

fn workflow() -> PathBuf {
    repo_root().join("dist/ci/cosim.yml")
}

fn actionlint() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GPUCOSIM_ACTIONLINT") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("actionlint"))
        .find(|p| p.is_file())
}

/// `actionlint FILE`: its exit code and output.
fn lint(exe: &PathBuf, file: &std::path::Path) -> (Option<i32>, String) {
    let out = Command::new(exe)
        .arg("-no-color")
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn the_ci_workflow_passes_actionlint() {
    let Some(exe) = actionlint() else {
        gpucosim_testkit::skip(
            "GPUCOSIM_REQUIRE_ACTIONLINT",
            "the_ci_workflow_passes_actionlint",
            "dist/ci/cosim.yml was not linted: actionlint is neither $GPUCOSIM_ACTIONLINT nor on PATH",
        );
        return;
    };
    let (code, text) = lint(&exe, &workflow());
    assert_eq!(
        code,
        Some(0),
        "actionlint finds fault with dist/ci/cosim.yml:\n{text}"
    );
    assert!(text.trim().is_empty(), "{text}");
    // The same linter does read the file: a merge job that needs a job the
    // workflow lacks is refused.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("cosim.yml");
    let yml = std::fs::read_to_string(workflow()).unwrap();
    assert_eq!(yml.matches("needs: shard\n").count(), 1);
    std::fs::write(&bad, yml.replace("needs: shard\n", "needs: shards\n")).unwrap();
    let (code, text) = lint(&exe, &bad);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(r#"needs job "shards" which does not exist"#),
        "{text}"
    );
}

/// What docs/regress.md says of the workflow, in its text: every shard
/// runs and uploads whatever happens, N is the matrix's size, and the
/// merge runs after any end of the shards, judging coverage when asked.
#[test]
fn the_ci_workflow_shards_merges_and_publishes_as_documented() {
    let yml = std::fs::read_to_string(workflow()).unwrap();
    for needle in [
        "fail-fast: false",
        "SHARD: ${{ matrix.shard }}/${{ strategy.job-total }}",
        "gpucosim regress --seeds \"$SEEDS\" --shard \"$SHARD\"",
        "--results \"out/results-$K.json\" --junit \"out/junit-$K.xml\"",
        "--bundles out/failures",
        "needs: shard\n    if: always()",
        "gpucosim merge \"${results[@]}\" --junit junit.xml",
        "args+=(--require-coverage)",
        "report_paths: junit.xml",
        "out/failures/",
    ] {
        assert!(yml.contains(needle), "dist/ci/cosim.yml lacks {needle:?}");
    }
    // Every upload survives a failing step.
    let uploads = yml.matches("uses: actions/upload-artifact@").count();
    let guarded = yml
        .match_indices("uses: actions/upload-artifact@")
        .filter(|(i, _)| {
            yml[..*i]
                .rsplit("- name:")
                .next()
                .unwrap()
                .contains("if: always()")
        })
        .count();
    assert_eq!((uploads, guarded), (2, 2));
}
