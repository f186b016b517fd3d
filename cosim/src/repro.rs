//! The commands that reproduce a run: one type, [`ReproCommand`], renders
//! every one gpucosim prints (a report's `reproduce:` line, a waveform's
//! header, a regression's results and JUnit, `kernel run`'s and `mutate`'s
//! hints), each argument quoted for a POSIX shell by [`shell_quote`].

use gpucosim_model::Profile;
use gpucosim_waves::WaveFormat;
use std::fmt;
use std::path::{Path, PathBuf};

/// Quotes `s` for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A path quoted for a POSIX shell.
fn quote_path(p: &Path) -> String {
    shell_quote(&p.display().to_string())
}

/// A command line that reproduces a run (or reruns a job, a kernel, a
/// mutant), rendered by its `Display`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum ReproCommand {
    /// `gpucosim run` of one seed of a unit's random stimulus.
    Run {
        /// Unit.
        unit: String,
        /// Profile.
        profile: Profile,
        /// Seed.
        seed: u64,
        /// Cycle budget.
        cycles: u64,
        /// `--rtl`, as given.
        rtl: Option<PathBuf>,
        /// `--knob` pairs, in order.
        knobs: Vec<(String, String)>,
        /// `--waves` (none: `waves`, a directory to name).
        waves: Option<PathBuf>,
        /// `--waves-format` (left out for VCD, the default).
        waves_format: WaveFormat,
    },
    /// `gpucosim replay BUNDLE`.
    Replay {
        /// The bundle directory.
        bundle: PathBuf,
    },
    /// `gpucosim replay <bundle of NAME>`: the replay of a bundle whose
    /// directory is not known (a repro file read from elsewhere).
    ReplayOf {
        /// The run's name.
        name: String,
    },
    /// `gpucosim kernel run` of one kernel: its waves through the waitcnt unit, or with
    /// `launch` the launch's traffic through the LDS and TA units.
    KernelRun {
        /// The kernel's file.
        file: PathBuf,
        /// `--launch`.
        launch: Option<PathBuf>,
        /// Profile.
        profile: Profile,
        /// Seed.
        seed: u64,
        /// The kernel's symbol.
        kernel: String,
        /// `--wave-count` and `--iterations` (left out: the defaults).
        waitcnt_stim: Option<(u8, u32)>,
        /// `--cycles` (left out: the default budget).
        cycles: Option<u64>,
        /// `--rtl`, as given.
        rtl: Option<PathBuf>,
    },
    /// `gpucosim regress` of one seed of one unit and profile.
    Regress {
        /// Unit.
        unit: String,
        /// Profile.
        profile: Profile,
        /// Seed.
        seed: u64,
        /// Cycles per job.
        cycles: u64,
        /// `--rtl`, as given.
        rtl: Option<PathBuf>,
    },
    /// `gpucosim mutate` of one mutant.
    Mutate {
        /// Unit.
        unit: String,
        /// Profile.
        profile: Profile,
        /// The mutant's id.
        mutant: u32,
        /// Seeds, first and last (inclusive).
        seeds: (u64, u64),
        /// Cycles per job.
        cycles: u64,
        /// `--knob` pairs, in order.
        knobs: Vec<(String, String)>,
        /// Whether stress variants ran (else `--no-stress`).
        stress: bool,
        /// `--rtl`, as given.
        rtl: Option<PathBuf>,
    },
}

impl fmt::Display for ReproCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rtl = |f: &mut fmt::Formatter<'_>, r: &Option<PathBuf>| match r {
            Some(r) => write!(f, " --rtl {}", quote_path(r)),
            None => Ok(()),
        };
        let knobs = |f: &mut fmt::Formatter<'_>, k: &[(String, String)]| {
            k.iter()
                .try_for_each(|(k, v)| write!(f, " --knob {}", shell_quote(&format!("{k}={v}"))))
        };
        match self {
            ReproCommand::Run {
                unit,
                profile,
                seed,
                cycles,
                rtl: r,
                knobs: k,
                waves,
                waves_format,
            } => {
                write!(
                    f,
                    "gpucosim run --unit {unit} --profile {profile} --seed {seed} --cycles {cycles}"
                )?;
                rtl(f, r)?;
                knobs(f, k)?;
                match waves {
                    Some(w) => write!(f, " --waves {}", quote_path(w))?,
                    None => write!(f, " --waves waves")?,
                }
                if *waves_format != WaveFormat::Vcd {
                    write!(f, " --waves-format {waves_format}")?;
                }
                Ok(())
            }
            ReproCommand::Replay { bundle } => write!(f, "gpucosim replay {}", quote_path(bundle)),
            ReproCommand::ReplayOf { name } => write!(f, "gpucosim replay <bundle of {name}>"),
            ReproCommand::KernelRun {
                file,
                launch,
                profile,
                seed,
                kernel,
                waitcnt_stim,
                cycles,
                rtl: r,
            } => {
                write!(f, "gpucosim kernel run {}", quote_path(file))?;
                if let Some(l) = launch {
                    write!(f, " --launch {}", quote_path(l))?;
                }
                write!(
                    f,
                    " --profile {profile} --seed {seed} --kernel {}",
                    shell_quote(kernel)
                )?;
                if let Some((waves, iterations)) = waitcnt_stim {
                    write!(f, " --wave-count {waves} --iterations {iterations}")?;
                }
                if let Some(c) = cycles {
                    write!(f, " --cycles {c}")?;
                }
                rtl(f, r)
            }
            ReproCommand::Regress {
                unit,
                profile,
                seed,
                cycles,
                rtl: r,
            } => {
                write!(
                    f,
                    "gpucosim regress --unit {unit} --profile {profile} --seeds {seed}..{seed} --cycles {cycles}"
                )?;
                rtl(f, r)
            }
            ReproCommand::Mutate {
                unit,
                profile,
                mutant,
                seeds: (first, last),
                cycles,
                knobs: k,
                stress,
                rtl: r,
            } => {
                write!(
                    f,
                    "gpucosim mutate --unit {unit} --profile {profile} --mutant {mutant} --seeds {first}..{last} --cycles {cycles}"
                )?;
                knobs(f, k)?;
                if !stress {
                    write!(f, " --no-stress")?;
                }
                rtl(f, r)
            }
        }
    }
}
