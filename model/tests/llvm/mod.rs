//! LLVM's assembler as an outside oracle, through committed goldens.
//!
//! What `llvm-mc` 19 says is recorded once in `model/tests/goldens/`, in a
//! form a reviewer can diff. The tests always check the model against the
//! goldens (no LLVM needed). Where `llvm-mc` is present, they also run it
//! and check that the goldens equal what it says now, so that the model is
//! checked against LLVM itself. Where it is absent, one line says that the
//! goldens were checked and the live cross-check was not — never a silent
//! pass, never a failure for a missing optional tool — unless
//! `GPUCOSIM_REQUIRE_LLVM=1` (as CI sets), which makes its absence a
//! failure.
//!
//! `llvm-mc` is `$GPUCOSIM_LLVM_MC`, else Debian's
//! `/usr/lib/llvm-19/bin/llvm-mc`. Regenerate the goldens with
//! `GPUCOSIM_BLESS=1 cargo test --release -p gpucosim-model --test waitcnt_llvm --test ta_formats_llvm`.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Once;

/// Debian's `llvm-19`.
pub const DEFAULT_LLVM_MC: &str = "/usr/lib/llvm-19/bin/llvm-mc";

/// The `llvm-mc` to use, if there is one.
pub fn llvm_mc() -> Option<PathBuf> {
    let p = std::env::var_os("GPUCOSIM_LLVM_MC")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LLVM_MC));
    if p.is_file() {
        return Some(p);
    }
    if gpucosim_testkit::required("GPUCOSIM_REQUIRE_LLVM") {
        panic!(
            "llvm-mc not found at {} and GPUCOSIM_REQUIRE_LLVM=1: install Debian's llvm-19",
            p.display()
        );
    }
    None
}

/// Says once per test binary, on the terminal (past the test harness's
/// capture), that the live cross-check did not run.
pub fn note_no_live_check(what: &str) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let p = std::env::var("GPUCOSIM_LLVM_MC").unwrap_or_else(|_| DEFAULT_LLVM_MC.into());
        let _ = writeln!(
            std::io::stderr(),
            "note: {what}: the committed llvm-mc goldens were checked; the live llvm-mc cross-check was NOT run ({p} not found)"
        );
    });
}

/// Whether the goldens are to be written from `llvm-mc` instead of read.
pub fn blessing() -> bool {
    std::env::var("GPUCOSIM_BLESS").as_deref() == Ok("1")
}

/// The path of golden `name`.
pub fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("goldens")
        .join(name)
}

/// Golden `name`'s text.
pub fn golden(name: &str) -> String {
    let p = golden_path(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("golden {}: {e}", p.display()))
}

/// Writes golden `name` (when blessing).
pub fn write_golden(name: &str, text: &str) {
    let p = golden_path(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    let _ = writeln!(std::io::stderr(), "wrote {}", p.display());
}

/// `llvm-mc --version`'s first line.
pub fn version(mc: &Path) -> String {
    let out = Command::new(mc)
        .arg("--version")
        .output()
        .expect("llvm-mc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

/// Runs `llvm-mc -arch=amdgcn -mcpu=CPU ARGS` on `input`: (stdout, stderr).
pub fn run(mc: &Path, mcpu: &str, args: &[&str], input: String) -> (String, String) {
    let mut child = Command::new(mc)
        .arg("-arch=amdgcn")
        .arg(format!("-mcpu={mcpu}"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc runs");
    writer.join().unwrap().expect("input written to llvm-mc");
    assert!(
        out.status.success(),
        "llvm-mc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).expect("utf-8 output"),
        String::from_utf8(out.stderr).expect("utf-8 errors"),
    )
}

/// The instruction lines of `llvm-mc`'s output (directives such as `.text`
/// and blank lines left out).
pub fn instruction_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect()
}

/// The lines of a golden that are not comments or blank.
pub fn golden_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim_end())
        .filter(|l| !l.trim().is_empty())
}
