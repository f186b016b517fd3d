//! What the tests of every gpucosim crate share about the outside tools
//! some of them need (llvm-mc, GTKWave, pywellen, Slurm, actionlint,
//! cocotb).
//!
//! A test whose tool is missing does not pass silently and does not fail
//! on a newcomer's machine: it says, in one line on the terminal, what was
//! not run and why ([`skip`]). Where the tool must be there (CI sets
//! `GPUCOSIM_REQUIRE_<TOOL>=1`), its absence is a failure instead. `1` is
//! the only value that requires; unset, empty or `0` do not.

use std::io::Write;

/// Whether the environment variable `var` (`GPUCOSIM_REQUIRE_LLVM`, ...)
/// requires its tool: it is `1`.
pub fn required(var: &str) -> bool {
    std::env::var(var).as_deref() == Ok("1")
}

/// The test `test` cannot run here because of `why` (a missing tool): a
/// failure when `var` requires the tool ([`required`]); otherwise one line
/// on standard error, written past the test harness's capture (libtest
/// captures `print!` and `eprint!`, not writes to the stream), saying that
/// it was skipped and why.
#[track_caller]
pub fn skip(var: &str, test: &str, why: &str) {
    skip_to(&mut std::io::stderr(), var, test, why);
}

/// [`skip`], its line written to `out`.
#[track_caller]
fn skip_to(out: &mut dyn Write, var: &str, test: &str, why: &str) {
    assert!(!required(var), "{var}=1 but {why}");
    let _ = writeln!(
        out,
        "note: {test}: SKIPPED, not run: {why} ({var}=1 makes this a failure)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_requires() {
        let var = "GPUCOSIM_REQUIRE_TESTKIT_UNSET";
        assert!(!required(var));
        let mut out = Vec::new();
        skip_to(&mut out, var, "only_one_requires", "nothing is missing");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "note: only_one_requires: SKIPPED, not run: nothing is missing \
             (GPUCOSIM_REQUIRE_TESTKIT_UNSET=1 makes this a failure)\n"
        );
        // std serialises its own reads and writes of the environment, and
        // the names are these tests' alone.
        std::env::set_var("GPUCOSIM_REQUIRE_TESTKIT_ZERO", "0");
        assert!(!required("GPUCOSIM_REQUIRE_TESTKIT_ZERO"));
    }

    #[test]
    #[should_panic(expected = "GPUCOSIM_REQUIRE_TESTKIT_ONE=1 but the tool is missing")]
    fn a_required_tool_that_is_missing_fails() {
        std::env::set_var("GPUCOSIM_REQUIRE_TESTKIT_ONE", "1");
        skip(
            "GPUCOSIM_REQUIRE_TESTKIT_ONE",
            "a_required_tool_that_is_missing_fails",
            "the tool is missing",
        );
    }
}
