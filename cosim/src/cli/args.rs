//! The argument groups several commands share, each option declared once
//! with one help text (flattened into the commands' `Args` structs), and
//! the value parsers of the command line.

use gpucosim::error::{Error, Result};
use gpucosim::{regress, units};
use gpucosim_model::Profile;
use gpucosim_waves::WaveFormat;
use std::path::{Path, PathBuf};

/// Help of `--profile`, from the profile table.
pub(crate) fn profile_help() -> String {
    format!("Profile: {}", Profile::names(", ", " or "))
}

/// Help of `--unit`, from the registry of units.
fn unit_help() -> String {
    format!("Unit: {}", units::UNIT_CHOICES)
}

/// One unit and one profile (`run`, `eval`, `build`).
#[derive(clap::Args, Clone)]
pub(crate) struct Target {
    #[arg(long, help = unit_help())]
    pub unit: String,
    #[arg(long, help = profile_help())]
    pub profile: Profile,
}

/// Units and profiles, each repeatable, all of them by default (`bench`,
/// `regress`, `mutate`).
#[derive(clap::Args)]
pub(crate) struct Selection {
    /// Unit (repeatable); default: every unit.
    #[arg(long = "unit")]
    pub units: Vec<String>,
    /// Profile (repeatable); default: every profile.
    #[arg(long = "profile")]
    pub profiles: Vec<Profile>,
}

impl Selection {
    /// The units and profiles given, or all of them when none is; one
    /// given twice is an error (it would run its jobs twice).
    pub(crate) fn or_all(self) -> Result<(Vec<String>, Vec<Profile>)> {
        if let Some(u) = gpucosim::first_repeat(&self.units) {
            return Err(Error::Input(format!("--unit {u} is given twice")));
        }
        if let Some(p) = gpucosim::first_repeat(&self.profiles) {
            return Err(Error::Input(format!("--profile {p} is given twice")));
        }
        let units = if self.units.is_empty() {
            units::UNITS.iter().map(|u| u.to_string()).collect()
        } else {
            self.units
        };
        let profiles = if self.profiles.is_empty() {
            Profile::all().collect()
        } else {
            self.profiles
        };
        Ok((units, profiles))
    }
}

/// The RTL tree to co-simulate (`--rtl`).
#[derive(clap::Args, Clone)]
pub(crate) struct RtlArg {
    /// Another RTL tree (holding `<unit>/*.sv`) with the same top-level
    /// ports. Default: $GPUCOSIM_RTL, else the built-in rtl/.
    #[arg(long)]
    pub rtl: Option<PathBuf>,
}

impl RtlArg {
    /// The tree: `--rtl`, else $GPUCOSIM_RTL, else the built-in one.
    pub(crate) fn root(&self) -> PathBuf {
        gpucosim::rtl_root(self.rtl.as_deref())
    }
}

/// Where waveforms go (`--waves`), and in which format.
#[derive(clap::Args, Clone)]
pub(crate) struct WavesArgs {
    /// Directory for waveforms: a VCD (or FST) of the window around a
    /// divergence.
    #[arg(long)]
    pub waves: Option<PathBuf>,
    /// Waveform format: `vcd` (text) or `fst` (GTKWave's compressed
    /// format); the file is `<name>.vcd` or `<name>.fst`.
    #[arg(long, value_name = "FORMAT", default_value = "vcd", value_parser = waves_format(), requires = "waves")]
    pub waves_format: WaveFormat,
}

impl WavesArgs {
    /// Checks that the `--waves` directory can be written (before a run).
    pub(crate) fn probe(&self) -> Result<()> {
        if let Some(w) = &self.waves {
            gpucosim::probe_dir(w, "--waves")?;
        }
        Ok(())
    }
}

/// The format of the waveforms written (`--waves-format`).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct WavesFormatArg {
    /// Waveform format: `vcd` (text) or `fst` (GTKWave's compressed
    /// format); the file is `<name>.vcd` or `<name>.fst`.
    #[arg(long, value_name = "FORMAT", default_value = "vcd", value_parser = waves_format())]
    pub waves_format: WaveFormat,
}

/// The cycles of a waveform before a divergence (`--window`).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct WindowArg {
    /// Cycles kept in the waveform ring before a divergence.
    #[arg(allow_negative_numbers = true, value_parser = count::<usize>, long, default_value_t = 1024)]
    pub window: usize,
}

/// The seed of a random stimulus (`run`, `bench`).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct SeedArg {
    /// Seed of the random stimulus.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 1)]
    pub seed: u64,
}

/// The seeds of a regression's jobs and their length (`regress`,
/// `mutate`).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct SeedsArgs {
    /// Seeds: `A..B` (inclusive) or a count N meaning 1..N.
    #[arg(long, default_value = "1..16")]
    pub seeds: regress::Seeds,
    /// Cycles per seed.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = REGRESS_JOB_CYCLES)]
    pub cycles: u64,
}

/// Cycles of a regression job by default.
pub(crate) const REGRESS_JOB_CYCLES: u64 = 50_000;

/// Stimulus knobs of several units (`regress`, `mutate`).
#[derive(clap::Args, Clone)]
pub(crate) struct UnitKnobs {
    /// Stimulus knob `name=value` for every unit, or `unit.name=value` for
    /// one unit of the run (checked, as each unit's values, before the
    /// plan is listed or run).
    #[arg(long = "knob", value_parser = parse_kv)]
    pub knobs: Vec<(String, String)>,
}

impl UnitKnobs {
    /// Every `unit.name=value` names a unit of `units` (those run): a knob
    /// for a unit not run, or no unit, would be ignored.
    pub(crate) fn check(&self, units: &[String]) -> Result<()> {
        for (k, v) in &self.knobs {
            if let Some((u, _)) = k.split_once('.') {
                if !units.iter().any(|x| x == u) {
                    return Err(Error::Input(format!(
                        "--knob {k}={v}: `{u}` is not a unit of this run (units: {})",
                        units.join(", ")
                    )));
                }
            }
        }
        Ok(())
    }

    /// The `--knob` pairs that apply to `unit`: plain `name=value`, and
    /// `unit.name=value` for this unit (without its prefix).
    pub(crate) fn for_unit(&self, unit: &str) -> Vec<(String, String)> {
        self.knobs
            .iter()
            .filter_map(|(k, v)| match k.split_once('.') {
                Some((u, name)) if u == unit => Some((name.to_string(), v.clone())),
                Some(_) => None,
                None => Some((k.clone(), v.clone())),
            })
            .collect()
    }
}

/// Whether seeds run with a unit's stress variants (`regress`, `mutate`).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct NoStressArg {
    /// Run every seed with the default knobs: no seed with a unit's stress
    /// variant (by default every seed that is a multiple of 4 runs with
    /// one; docs/regress.md).
    #[arg(long)]
    pub no_stress: bool,
}

/// Where failure bundles go (`regress`, `kernel run`).
#[derive(clap::Args, Clone)]
pub(crate) struct BundlesArg {
    /// Directory for failure bundles (replay them with `gpucosim replay`).
    #[arg(long, default_value = "gpucosim-failures")]
    pub bundles: PathBuf,
}

/// The reports of a regression's results (`regress`, `merge`).
#[derive(clap::Args)]
pub(crate) struct ReportArgs {
    /// Write a JUnit XML report.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write the merged coverage as JSON (with `--code-coverage`, the code
    /// coverage summary too).
    #[arg(long)]
    pub coverage: Option<PathBuf>,
    /// Write the results file (input of `gpucosim merge`).
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Write the RTL's code coverage as an lcov tracefile (lines and
    /// branches; `--code-coverage`).
    #[arg(long, value_name = "FILE")]
    pub lcov: Option<PathBuf>,
    /// Write the RTL's code coverage as Cobertura XML, for CI dashboards.
    #[arg(long, value_name = "FILE")]
    pub cobertura: Option<PathBuf>,
    /// Write every uncovered item of the RTL (file:line, what, the source
    /// line) and a waiver line for each.
    #[arg(long, value_name = "FILE")]
    pub uncovered: Option<PathBuf>,
    /// Write an HTML report of the code coverage into DIR with `genhtml`
    /// (Debian's `lcov`), where it is installed.
    #[arg(long, value_name = "DIR")]
    pub coverage_html: Option<PathBuf>,
}

impl ReportArgs {
    /// Checks that every report asked for can be written (before anything
    /// runs), and that no two name one file (one would replace the other).
    pub(crate) fn probe(&self) -> Result<()> {
        let files = self.files();
        for (i, (p, what)) in files.iter().enumerate() {
            gpucosim::probe_file(p, what)?;
            if let Some((q, other)) = files[..i].iter().find(|(q, _)| gpucosim::same_file(q, p)) {
                return Err(Error::Input(format!(
                    "{other} {} and {what} {} name one file",
                    q.display(),
                    p.display()
                )));
            }
        }
        if let Some(d) = &self.coverage_html {
            gpucosim::probe_dir(d, "--coverage-html")?;
        }
        Ok(())
    }

    /// The report files asked for, each with its option.
    pub(crate) fn files(&self) -> Vec<(&Path, &'static str)> {
        [
            (&self.junit, "--junit"),
            (&self.coverage, "--coverage"),
            (&self.results, "--results"),
            (&self.lcov, "--lcov"),
            (&self.cobertura, "--cobertura"),
            (&self.uncovered, "--uncovered"),
        ]
        .into_iter()
        .filter_map(|(p, what)| Some((p.as_deref()?, what)))
        .collect()
    }

    /// The code coverage reports asked for without code coverage to report
    /// on: an error naming them.
    pub(crate) fn check_code_coverage(&self, have: bool) -> Result<()> {
        let asked: Vec<&str> = [
            (self.lcov.is_some(), "--lcov"),
            (self.cobertura.is_some(), "--cobertura"),
            (self.uncovered.is_some(), "--uncovered"),
            (self.coverage_html.is_some(), "--coverage-html"),
        ]
        .into_iter()
        .filter_map(|(on, n)| on.then_some(n))
        .collect();
        if !have && !asked.is_empty() {
            return Err(gpucosim::error::Error::Input(format!(
                "{} report(s) code coverage, which this run has none of (run the regression with --code-coverage)",
                asked.join(", ")
            )));
        }
        Ok(())
    }

    /// Writes each report that is asked for; one that cannot be written
    /// does not keep the others from being written. Returns whether any was
    /// lost (each is named on stderr).
    pub(crate) fn write(
        &self,
        r: &regress::ResultsFile,
        require_coverage: bool,
        code: Option<&gpucosim::codecov::Checked>,
    ) -> bool {
        let mut lost = false;
        let mut write = |p: Option<&Path>, what: &str, body: &dyn Fn() -> String| {
            if let Some(p) = p {
                if let Err(e) = gpucosim::write_atomic(p, body().as_bytes()) {
                    eprintln!("error: {what} was not written: {e}");
                    lost = true;
                }
            }
        };
        write(self.junit.as_deref(), "--junit", &|| {
            r.junit_checked(require_coverage, code)
        });
        write(self.coverage.as_deref(), "--coverage", &|| {
            let mut j = r.coverage_json();
            if let (Some(c), serde_json::Value::Object(m)) = (code, &mut j) {
                m.insert("code_coverage".into(), c.report.json());
            }
            serde_json::to_string_pretty(&j).expect("JSON")
        });
        write(self.results.as_deref(), "--results", &|| {
            serde_json::to_string_pretty(r).expect("JSON")
        });
        if let Some(c) = code {
            write(self.lcov.as_deref(), "--lcov", &|| c.report.lcov(None));
            write(self.cobertura.as_deref(), "--cobertura", &|| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                c.report.cobertura(now)
            });
            write(self.uncovered.as_deref(), "--uncovered", &|| {
                c.report.uncovered_text(&r.code_coverage)
            });
            if let Some(d) = &self.coverage_html {
                match c.report.html(d) {
                    Ok(Some(index)) => eprintln!("code coverage HTML report: {}", index.display()),
                    Ok(None) => eprintln!(
                        "note: --coverage-html: genhtml (Debian's lcov) is not installed; no HTML report (the --lcov tracefile holds the same)"
                    ),
                    Err(e) => {
                        eprintln!("error: --coverage-html was not written: {e}");
                        lost = true;
                    }
                }
            }
        }
        lost
    }
}

/// Whether a coverage bin never hit fails (`regress`, `merge`), and the
/// code coverage floors and waivers.
#[derive(clap::Args, Clone)]
pub(crate) struct RequireCoverage {
    /// Fail (exit 1, a failed JUnit test case `coverage.UNIT.PROFILE`)
    /// when a coverage bin of a unit and profile that ran was never hit.
    #[arg(long)]
    pub require_coverage: bool,
    /// Fail (exit 1, a failed JUnit test case `code-coverage.UNIT.PROFILE`)
    /// when a unit and profile's code coverage is below a floor, in
    /// percent: `line=95,branch=90,toggle=80` (metrics: line, branch,
    /// expr, toggle), listing what is uncovered; a stale or needless
    /// waiver fails too (`code-coverage.waivers`).
    #[arg(long, value_name = "METRIC=PERCENT,...")]
    pub require_code_coverage: Option<gpucosim::codecov::Floors>,
    /// Reviewed exclusions of code coverage items (docs/regress.md "Code
    /// coverage"): waived items count neither as covered nor coverable.
    #[arg(long, value_name = "FILE")]
    pub code_coverage_waivers: Option<PathBuf>,
}

impl RequireCoverage {
    /// The waivers, read (before anything runs).
    pub(crate) fn waivers(&self) -> Result<Vec<gpucosim::codecov::Waiver>> {
        match &self.code_coverage_waivers {
            Some(p) => gpucosim::codecov::load_waivers(p),
            None => Ok(Vec::new()),
        }
    }

    /// The code coverage of `r` checked, when it has any; asking for code
    /// coverage floors or waivers of results without is an error.
    pub(crate) fn check(
        &self,
        r: &regress::ResultsFile,
        waivers: &[gpucosim::codecov::Waiver],
    ) -> Result<Option<gpucosim::codecov::Checked>> {
        if !r.plan.code_coverage {
            let mut asked = Vec::new();
            if self.require_code_coverage.is_some() {
                asked.push("--require-code-coverage");
            }
            if self.code_coverage_waivers.is_some() {
                asked.push("--code-coverage-waivers");
            }
            if !asked.is_empty() {
                return Err(gpucosim::error::Error::Input(format!(
                    "{} need code coverage, which this run has none of (run the regression with --code-coverage)",
                    asked.join(", ")
                )));
            }
            return Ok(None);
        }
        Ok(Some(gpucosim::codecov::Checked {
            report: gpucosim::codecov::report(&r.code_coverage, waivers),
            floors: self.require_code_coverage.clone(),
        }))
    }
}

/// Time limits of a run (or of each job of a regression).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct LimitArgs {
    /// End the run after this many seconds (exit 4, with its report and
    /// waveform).
    #[arg(allow_negative_numbers = true, long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Count the run as hung when one cycle takes longer than this many
    /// seconds (0: never); the RTL's step is aborted and reported (exit 4).
    #[arg(allow_negative_numbers = true, long, value_name = "SECONDS", value_parser = parse_seconds, default_value_t = 60.0)]
    pub stall_timeout: f64,
}

impl LimitArgs {
    pub(crate) fn limits(self) -> gpucosim::Limits {
        let d = std::time::Duration::from_secs_f64;
        gpucosim::Limits {
            timeout: self.timeout.map(d),
            stall: (self.stall_timeout > 0.0).then(|| d(self.stall_timeout)),
        }
    }
}

/// A whole number of the type `T`; a negative one is "never negative"
/// (the options that take numbers accept a leading `-`, so that `--seed -1`
/// gets this message instead of clap's "unexpected argument").
pub(crate) fn whole<T: std::str::FromStr>(s: &str) -> std::result::Result<T, String> {
    if s.trim_start().starts_with('-') {
        return Err("never negative".into());
    }
    let t = s.trim();
    t.parse().map_err(|_| {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            "too large a number".to_string()
        } else {
            "expected a whole number".to_string()
        }
    })
}

/// A whole number of at least 1 (a count of something that must be there).
pub(crate) fn count<T: std::str::FromStr + PartialEq + From<u8>>(
    s: &str,
) -> std::result::Result<T, String> {
    let n: T = whole(s)?;
    if n == T::from(0) {
        return Err("must be at least 1".into());
    }
    Ok(n)
}

/// A number of seconds, from 0 up to a billion.
pub(crate) fn parse_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x < 0.0 => Err("never negative".into()),
        Ok(x) if (0.0..1e9).contains(&x) => Ok(x),
        _ => Err(format!("expected a number of seconds, got `{s}`")),
    }
}

/// A rate from 0 to 1 (`--min-kill-rate`).
pub(crate) fn parse_rate(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x < 0.0 => Err("never negative".into()),
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err("expected a rate between 0 and 1, e.g. 0.95".into()),
    }
}

/// `vcd` or `fst`, as listed in `--help`.
pub(crate) fn waves_format() -> impl clap::builder::TypedValueParser<Value = WaveFormat> {
    use clap::builder::TypedValueParser;
    let names = WaveFormat::ALL.map(WaveFormat::extension);
    clap::builder::PossibleValuesParser::new(names)
        .map(|s| s.parse::<WaveFormat>().expect("a listed format"))
}

/// `name=value`, with a name.
pub(crate) fn parse_kv(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected name=value, got `{s}`")),
    }
}

/// `A..B` (B excluded) or `A..=B`, as an inclusive range.
pub(crate) fn parse_cycles(s: &str) -> std::result::Result<(u64, u64), String> {
    let bad = || format!("`{s}` is not a cycle range (A..B or A..=B)");
    let (a, b, inclusive) = match s.split_once("..=") {
        Some((a, b)) => (a, b, true),
        None => {
            let (a, b) = s.split_once("..").ok_or_else(bad)?;
            (a, b, false)
        }
    };
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    let last = if inclusive { Some(b) } else { b.checked_sub(1) };
    match last {
        Some(l) if l >= a => Ok((a, l)),
        _ => Err(format!("the cycle range `{s}` is empty")),
    }
}
