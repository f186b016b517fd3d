//! The `gpucosim` command line.

mod fst_vcd;

use clap::{Parser, Subcommand};
use gpucosim::engine::{self, RunSpec, Stimulus, Verdict, EXIT_INPUT};
use gpucosim::error::{Error, Result};
use gpucosim::{outputs, regress, rtlbuild, units, watchdog, with_testbench};
use gpucosim_model::Profile;
use gpucosim_waves::WaveFormat;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gpucosim",
    version,
    about = "Lock-step co-simulation of AMD GPU unit reference models against Verilated RTL",
    after_help = after_help()
)]
struct Cli {
    #[command(flatten)]
    log: LogArgs,
    #[command(subcommand)]
    cmd: Cmd,
}

/// The exit codes of every command: (code, meaning). The one table that
/// `--help` shows and README's "Exit codes" repeats (a test keeps them
/// equal).
const EXIT_CODES: &[(&str, &str)] = &[
    ("0", "model and RTL agree; the command succeeded"),
    ("1", "divergence (reported with its cycle, signal, values, transaction, waveform and repro command, also when a waveform or `--json` could not be written); `lint` findings; a `kernel check` hazard; for `regress`/`merge --require-coverage` also a coverage bin never hit; for `mutate --min-kill-rate` a kill rate below the floor"),
    ("2", "bad input or environment, one line `error: ...`, before anything runs (an output location that cannot be written included); a run that passed but lost an output; a kernel's traffic that its cycle budget did not finish; for `regress`/`merge` also an output lost late or an incomplete merge"),
    ("3", "the RTL ended the simulation: `$finish`, `$stop`, `$error`, `$fatal`, or a Verilator runtime error such as a combinational loop that does not converge (reported with its cycle, Verilator's message and the waveform up to it)"),
    ("4", "time limit (`--timeout`) or no progress (`--stall-timeout`, default 60 s): the run is ended, or its RTL step aborted, and reported with its cycle and waveform"),
    ("130, 143", "stopped by SIGINT, SIGTERM, after writing what was done"),
];

/// The text after `--help`'s options: the exit codes, and where output goes.
fn after_help() -> String {
    let mut s = String::from("Exit codes (every command):\n");
    for (code, meaning) in EXIT_CODES {
        s.push_str(&format!("  {code:<8} {meaning}\n"));
    }
    s.push_str(
        "\nResults go to stdout; diagnostics (notes, warnings, errors) to stderr, filtered by \
         -v, -vv or --quiet, else by GPUCOSIM_LOG (e.g. `warn`, `debug`, \
         `info,gpucosim::rtlbuild=trace`), else at `info`.",
    );
    s
}

/// Help of `--profile`, from the profile table.
fn profile_help() -> String {
    format!("Profile: {}", Profile::names(", ", " or "))
}

/// Help of `--unit`, from the registry of units.
fn unit_help() -> String {
    format!("Unit: {}", units::UNIT_CHOICES)
}

/// What goes to stderr besides results and errors (every command).
#[derive(clap::Args, Clone, Copy)]
struct LogArgs {
    /// More diagnostics on stderr: -v debug, -vv trace. Takes precedence
    /// over GPUCOSIM_LOG.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// No diagnostics but errors, and no progress (regress's bar and lines
    /// per job). Results and `error:` lines are printed as always. Takes
    /// precedence over GPUCOSIM_LOG.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
}

/// The environment variable holding a diagnostics filter
/// (`tracing_subscriber::EnvFilter` syntax, e.g. `debug` or
/// `info,gpucosim::rtlbuild=trace`); without it, and without `-v` or
/// `--quiet`, notes, warnings and errors are shown.
const LOG_ENV: &str = "GPUCOSIM_LOG";

/// Diagnostics on stderr, one line each: `error: …`, `warning: …`, notes
/// as they are, `debug: TARGET: …` and `trace: TARGET: …`.
struct LogLine;

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for LogLine
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut w: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let meta = event.metadata();
        match *meta.level() {
            tracing::Level::ERROR => write!(w, "error: ")?,
            tracing::Level::WARN => write!(w, "warning: ")?,
            tracing::Level::INFO => {}
            tracing::Level::DEBUG => write!(w, "debug: {}: ", meta.target())?,
            tracing::Level::TRACE => write!(w, "trace: {}: ", meta.target())?,
        }
        tracing_subscriber::fmt::FormatFields::format_fields(ctx, w.by_ref(), event)?;
        writeln!(w)
    }
}

/// Sends diagnostics to stderr, filtered by `-v`/`--quiet`, else by
/// `GPUCOSIM_LOG`, else at `info`.
fn init_logging(log: LogArgs) {
    use tracing_subscriber::EnvFilter;
    let from_env = std::env::var(LOG_ENV).ok().filter(|v| !v.trim().is_empty());
    let mut bad_env = None;
    let filter = match (log.quiet, log.verbose) {
        (true, _) => EnvFilter::new("error"),
        (false, 1) => EnvFilter::new("info,gpucosim=debug"),
        (false, 2..) => EnvFilter::new("info,gpucosim=trace"),
        (false, 0) => match from_env.as_deref().map(EnvFilter::try_new) {
            Some(Ok(f)) => f,
            Some(Err(e)) => {
                bad_env = Some(e);
                EnvFilter::new("info")
            }
            None => EnvFilter::new("info"),
        },
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .event_format(LogLine)
        .with_writer(std::io::stderr)
        .init();
    if let Some(e) = bad_env {
        tracing::warn!("{LOG_ENV} is not a valid filter ({e}); showing notes, warnings and errors");
    }
}

#[derive(clap::Args, Clone)]
struct Target {
    #[arg(long, help = unit_help())]
    unit: String,
    #[arg(long, help = profile_help())]
    profile: Profile,
}

#[derive(Subcommand)]
enum Cmd {
    /// Co-simulate one unit and profile with one seed.
    Run {
        #[command(flatten)]
        target: Target,
        /// Seed of the random stimulus.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 1)]
        seed: u64,
        /// Cycles to simulate (reset included).
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 100_000)]
        cycles: u64,
        /// Another RTL tree (holding `<unit>/*.sv`) with the same top-level
        /// ports. Default: $GPUCOSIM_RTL, else the built-in rtl/.
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Directory for waveforms: a VCD (or FST) of the window around a
        /// divergence.
        #[arg(long)]
        waves: Option<PathBuf>,
        /// Waveform format: `vcd` (text) or `fst` (GTKWave's compressed
        /// format); the file is `<name>.vcd` or `<name>.fst`.
        #[arg(long, value_name = "FORMAT", default_value = "vcd", value_parser = waves_format())]
        waves_format: WaveFormat,
        /// Cycles kept in the waveform ring before a divergence.
        #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 1024)]
        window: usize,
        /// Cycles recorded past the divergence.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 8)]
        post: u64,
        /// Write the whole run to the waveform, not only the window.
        #[arg(long, requires = "waves")]
        dump_all: bool,
        /// Diverging cycles to report before stopping.
        #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 1)]
        max_mismatches: usize,
        /// Stimulus knob, `name=value` (repeatable).
        #[arg(long = "knob", value_parser = parse_kv)]
        knobs: Vec<(String, String)>,
        /// On divergence, re-run on a tracing build of the RTL and write its
        /// internal signals over the same window to `<name>.rtl.vcd`.
        #[arg(long, requires = "waves")]
        trace_rtl: bool,
        /// Write the result as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Run driver and model on a second thread ahead of the RTL (the
        /// outcome is the same, bit for bit). Default: when a second CPU is
        /// idle at the start (the one-minute load average leaves one and a
        /// half CPUs free); see BENCHMARKS.md, columns 4 and 5.
        #[arg(long, overrides_with = "no_pipeline")]
        pipeline: bool,
        /// Run driver, model and RTL on one thread.
        #[arg(long)]
        no_pipeline: bool,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// What would the hardware do? Reads JSON requests (FILE or stdin) and
    /// prints the model's JSON results.
    Eval {
        #[command(flatten)]
        target: Target,
        /// Input file; `-` or absent for stdin.
        file: Option<PathBuf>,
        /// One compact JSON result per line, whatever the input's shape
        /// (for scripts).
        #[arg(long)]
        compact: bool,
    },
    /// Measure co-simulation speed against a bare Verilator loop (see
    /// docs/benchmarks.md). Run it from a release build.
    Bench {
        /// Unit (repeatable); default: every unit.
        #[arg(long = "unit")]
        units: Vec<String>,
        /// Profile (repeatable); default: every profile.
        #[arg(long = "profile")]
        profiles: Vec<Profile>,
        /// Cycles per measurement (reset included).
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 200_000)]
        cycles: u64,
        /// Seed of the stimulus.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 1)]
        seed: u64,
        /// Measurements per figure; the best is kept.
        #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 3)]
        repeats: usize,
        /// Another RTL tree. Default: $GPUCOSIM_RTL, else the built-in rtl/.
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Regenerate this Markdown file (atomically) with the figures.
        #[arg(long)]
        write: Option<PathBuf>,
        /// Measure only the peak memory of `gpucosim run` at these cycle
        /// counts (comma-separated, e.g. 1000000,10000000), per unit and
        /// profile.
        #[arg(long, value_delimiter = ',', conflicts_with = "write")]
        rss: Vec<u64>,
        /// Also time a mutation campaign of N mutants of one unit and
        /// profile (`UNIT:PROFILE:N`), its instrumented model built afresh,
        /// against building 3 of the mutants separately.
        #[arg(long, value_name = "UNIT:PROFILE:N", value_parser = parse_mutate_bench)]
        mutate: Option<(String, Profile, usize)>,
        /// Also run each unit's cocotb example (python/examples/cocotb) with
        /// and without the model under this Python interpreter (one with
        /// cocotb and the gpucosim package installed), on gfx9 (or the
        /// first profile benched), against `gpucosim run`.
        #[arg(long, value_name = "PYTHON")]
        cocotb: Option<PathBuf>,
        /// Cycles of each cocotb run.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 3000, requires = "cocotb")]
        cocotb_cycles: u64,
    },
    /// Decode an `s_waitcnt` instruction word (e.g. 0xBF8C0070), a gfx11
    /// `s_waitcnt_vscnt null, imm` word (e.g. 0xBC7C0005) or an `s_waitcnt`
    /// 16-bit immediate into the counter thresholds.
    DecodeWaitcnt {
        #[arg(long, help = profile_help())]
        profile: Profile,
        /// The instruction word or immediate (hex with 0x, or decimal).
        word: String,
    },
    /// Compiled kernels through the waitcnt rules (docs/kernels.md).
    #[command(subcommand)]
    Kernel(KernelCmd),
    /// Lint the RTL of every unit (or one) for every profile with
    /// `verilator --lint-only -Wall`. Exit 1 on any finding.
    Lint {
        /// Only this unit.
        #[arg(long)]
        unit: Option<String>,
        /// Another RTL tree.
        #[arg(long)]
        rtl: Option<PathBuf>,
    },
    /// Run many seeds across units and profiles in parallel, with a summary
    /// table, JUnit, merged coverage, failure bundles and optional shrinking.
    Regress(RegressArgs),
    /// Mutation testing: mutate a unit's RTL and count the mutants the
    /// regression kills (one instrumented build runs every mutant;
    /// docs/mutate.md).
    Mutate(MutateArgs),
    /// Combine the results files of shards into one report.
    Merge {
        /// Results files written by `regress --results`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the merged JUnit XML report.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// Write the merged coverage as JSON.
        #[arg(long)]
        coverage: Option<PathBuf>,
        /// Write the merged results file.
        #[arg(long)]
        results: Option<PathBuf>,
        /// Accept a partial merge (a missing shard, an interrupted input):
        /// report it but exit by the jobs' results alone.
        #[arg(long)]
        allow_partial: bool,
        /// Fail (exit 1, a failed JUnit test case `coverage.UNIT.PROFILE`)
        /// when a coverage bin of a unit and profile that ran was never hit.
        #[arg(long)]
        require_coverage: bool,
    },
    /// The RTL build cache: list its entries (the default) or prune it.
    Cache {
        /// Each entry: unit, profile, flavour, size, last use, the RTL
        /// directory it was last used with, its directory; then the total.
        #[arg(long, conflicts_with = "prune")]
        list: bool,
        /// Remove the entries superseded by a newer build of the same unit,
        /// profile, flavour and RTL directory, and those whose RTL directory
        /// is gone; never one a running gpucosim builds or started from.
        /// Also deletes the build files older entries kept.
        #[arg(long)]
        prune: bool,
        /// With --prune: remove instead every entry not used for DAYS days.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, value_name = "DAYS", requires = "prune")]
        older_than: Option<u64>,
        /// With --prune: say what would be removed, remove nothing.
        #[arg(long, requires = "prune")]
        dry_run: bool,
    },
    /// Run one job of a regression (used by `regress`, which starts one
    /// process per job): a job spec as JSON on stdin, its result as one JSON
    /// line on stdout.
    #[command(hide = true)]
    Job,
    /// Re-run a failure bundle's exact stimulus.
    Replay {
        /// Bundle directory (or its repro.json).
        bundle: PathBuf,
        /// Replay even though the RTL changed since the bundle was written.
        #[arg(long)]
        force: bool,
        /// Replay on another RTL tree instead of the bundle's.
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Write the waveform of the replay here.
        #[arg(long)]
        waves: Option<PathBuf>,
        /// Waveform format: `vcd` or `fst`.
        #[arg(long, value_name = "FORMAT", default_value = "vcd", value_parser = waves_format())]
        waves_format: WaveFormat,
    },
    /// Minimise a failure bundle's stimulus to one that still diverges.
    Shrink {
        /// Bundle directory (or its repro.json).
        bundle: PathBuf,
        /// Where to write the shrunk bundle (default: BUNDLE.shrunk).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Shrink even though the RTL changed since the bundle was written.
        #[arg(long)]
        force: bool,
    },
    /// Print a text waveform from a VCD gpucosim wrote (or a failure
    /// bundle's): by default the diverging ports, model above RTL, over the
    /// cycles up to the first divergence.
    Waves {
        /// A VCD, or a bundle directory holding one.
        file: PathBuf,
        /// Signals to show, as patterns on their names without `tb.`
        /// (`model.grant_lanes_o`, `*lane_addr_o[17]`, `in.*`; `*`
        /// matches anything); an output's name alone shows model and RTL.
        #[arg(long, num_args = 1..)]
        signals: Vec<String>,
        /// Cycles to show: `A..B` (B excluded) or `A..=B`.
        #[arg(allow_negative_numbers = true, long, value_parser = parse_cycles)]
        cycles: Option<(u64, u64)>,
    },
    /// Build (or find in the cache) a unit's RTL and print the library path.
    Build {
        #[command(flatten)]
        target: Target,
        /// Another RTL tree.
        #[arg(long)]
        rtl: Option<PathBuf>,
    },
}

/// Time limits of a run (or of each job of a regression).
#[derive(clap::Args, Clone, Copy)]
struct LimitArgs {
    /// End the run after this many seconds (exit 4, with its report and
    /// waveform).
    #[arg(allow_negative_numbers = true, long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// Count the run as hung when one cycle takes longer than this many
    /// seconds (0: never); the RTL's step is aborted and reported (exit 4).
    #[arg(allow_negative_numbers = true, long, value_name = "SECONDS", value_parser = parse_seconds, default_value_t = 60.0)]
    stall_timeout: f64,
}

impl LimitArgs {
    fn limits(self) -> gpucosim::watchdog::Limits {
        let d = std::time::Duration::from_secs_f64;
        gpucosim::watchdog::Limits {
            timeout: self.timeout.map(d),
            stall: (self.stall_timeout > 0.0).then(|| d(self.stall_timeout)),
        }
    }
}

#[derive(Subcommand)]
enum KernelCmd {
    /// Prove that each kernel's waits are enough (SPEC §3.3): every RAW and
    /// WAW hazard on any path, under every return order SPEC §3.1 allows,
    /// and the waits that could wait less. Exit 1 on a hazard.
    Check {
        /// Assembly (`clang -S` or `llvm-objdump -d` output) or a code
        /// object (read through llvm-objdump).
        file: PathBuf,
        /// The profile; default: the one the file's target names.
        #[arg(long, help = profile_help())]
        profile: Option<Profile>,
        /// Also write the report as JSON to this file (`-` for stdout
        /// instead of the text).
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Emulate a launch of a kernel (`--launch`, docs/kernels.md "The
    /// launch") and profile its LDS bank conflicts and buffer cache-line
    /// requests, from the units' models (no RTL is run).
    Profile {
        /// The kernel's assembler output (`clang -S`).
        file: PathBuf,
        /// The launch description (JSON).
        #[arg(long)]
        launch: PathBuf,
        /// The profile; default: the one the file's target names.
        #[arg(long, help = profile_help())]
        profile: Option<Profile>,
        /// The kernel (default: the launch's `kernel`, else the file's only one).
        #[arg(long)]
        kernel: Option<String>,
        /// Seed of random fills and samples (default: the launch's, else 1).
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long)]
        seed: Option<u64>,
        /// Also write the profile as JSON to this file (`-` for stdout
        /// instead of the text).
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write a bar chart of conflict cycles per instruction (SVG).
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Write each buffer argument's contents after the run (JSON:
        /// dwords as hex, `null` where symbolic).
        #[arg(long)]
        buffers: Option<PathBuf>,
    },
    /// Replay each kernel through the waitcnt unit, model and RTL in
    /// lock-step: several waves run it at once along seeded paths, with
    /// seeded latencies and every legal return order. With `--launch`,
    /// instead emulate the launch and run its LDS and buffer instructions
    /// through the LDS and TA units in lock-step. Exit codes as `run`.
    Run {
        /// Assembly or a code object, as for `kernel check`.
        file: PathBuf,
        /// Emulate this launch (JSON) and run its traffic through the LDS
        /// and TA units instead of the waitcnt replay.
        #[arg(long)]
        launch: Option<PathBuf>,
        /// The profile; default: the one the file's target names.
        #[arg(long, help = profile_help())]
        profile: Option<Profile>,
        /// Seed of the paths, latencies and interleaving.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 1)]
        seed: u64,
        /// Only the kernel of this name (default: every kernel).
        #[arg(long)]
        kernel: Option<String>,
        /// Waves running the kernel at once (1-16).
        #[arg(allow_negative_numbers = true, long = "wave-count", default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=16))]
        wave_count: u8,
        /// The most times a backward branch is taken on one path.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u32>, long, default_value_t = 4)]
        iterations: u32,
        /// Cycle budget per kernel and unit (reset included). Default:
        /// 1000000 for the waitcnt replay; with `--launch`, twice what the
        /// traffic needs at the models' cycle counts.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long)]
        cycles: Option<u64>,
        /// RTL directory. Default: $GPUCOSIM_RTL, else the built-in rtl/.
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Write waveforms here (on a divergence, the window around it).
        #[arg(long)]
        waves: Option<PathBuf>,
        /// Waveform format: `vcd` or `fst`.
        #[arg(long, value_name = "FORMAT", default_value = "vcd", value_parser = waves_format())]
        waves_format: WaveFormat,
        /// Directory for failure bundles (replay them with `gpucosim replay`).
        #[arg(long, default_value = "gpucosim-failures")]
        bundles: PathBuf,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

/// A whole number of the type `T`; a negative one is "never negative"
/// (the options that take numbers accept a leading `-`, so that `--seed -1`
/// gets this message instead of clap's "unexpected argument").
fn whole<T: std::str::FromStr>(s: &str) -> std::result::Result<T, String> {
    if s.trim_start().starts_with('-') {
        return Err("never negative".into());
    }
    s.trim()
        .parse()
        .map_err(|_| "expected a whole number".to_string())
}

fn parse_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x < 0.0 => Err("never negative".into()),
        Ok(x) if (0.0..1e9).contains(&x) => Ok(x),
        _ => Err(format!("expected a number of seconds, got `{s}`")),
    }
}

/// A rate from 0 to 1 (`--min-kill-rate`).
fn parse_rate(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x < 0.0 => Err("never negative".into()),
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err("expected a rate between 0 and 1, e.g. 0.95".into()),
    }
}

/// `vcd` or `fst`, as listed in `--help`.
fn waves_format() -> impl clap::builder::TypedValueParser<Value = WaveFormat> {
    use clap::builder::TypedValueParser;
    let names = WaveFormat::ALL.map(WaveFormat::extension);
    clap::builder::PossibleValuesParser::new(names)
        .map(|s| s.parse::<WaveFormat>().expect("a listed format"))
}

fn parse_kv(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected name=value, got `{s}`")),
    }
}

impl Cmd {
    /// A command that only streams its results to standard output (no
    /// child processes, no pipes but stdout): like other command-line
    /// tools it ends quietly when the reader goes away (`gpucosim eval … |
    /// head`). Every other command keeps SIGPIPE ignored, so that a pipe
    /// to a child that ended (a regression's job process) is that child's
    /// error, never the end of the whole command.
    fn streams(&self) -> bool {
        match self {
            Cmd::Eval { .. } | Cmd::DecodeWaitcnt { .. } => true,
            Cmd::Kernel(KernelCmd::Check { .. }) => true,
            Cmd::Regress(a) => a.list,
            Cmd::Mutate(a) => a.list,
            _ => false,
        }
    }
}

fn main() -> ExitCode {
    // A file-size limit (`ulimit -f`) makes a write fail like a full disk
    // does, instead of killing the process with everything unwritten.
    // SAFETY: called before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = Cli::parse();
    if cli.cmd.streams() {
        // SAFETY: called before any other thread exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    init_logging(cli.log);
    match dispatch(cli.cmd, cli.log) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cmd: Cmd, log: LogArgs) -> Result<ExitCode> {
    match cmd {
        Cmd::Run {
            target,
            seed,
            cycles,
            rtl,
            waves,
            waves_format,
            window,
            post,
            dump_all,
            max_mismatches,
            knobs,
            trace_rtl,
            json,
            pipeline,
            no_pipeline,
            limits,
        } => {
            if cycles == 0 {
                return Err(Error::Input("--cycles must be at least 1".into()));
            }
            let mut spec = RunSpec::new(&target.unit, target.profile, seed, cycles);
            spec.rtl_arg = rtl;
            spec.waves = waves;
            spec.waves_format = waves_format;
            spec.window = window;
            spec.post = post;
            spec.dump_all = dump_all;
            spec.max_mismatches = max_mismatches.max(1);
            spec.knobs = knobs;
            spec.pipeline = pipeline || (!no_pipeline && engine::second_cpu_idle());
            tracing::debug!(
                "driver and model {} (load average {})",
                if spec.pipeline {
                    "on a second thread"
                } else {
                    "on the RTL's thread"
                },
                gpucosim::benchmark::load_average()
            );
            spec.limits = limits.limits();
            // The knobs and every output location are checked before the
            // run starts.
            with_testbench!(target.unit.as_str(), B => engine::parse_knobs::<B>(&spec.knobs).map(drop))?;
            if let Some(w) = &spec.waves {
                outputs::probe_dir(w, "--waves")?;
            }
            if let Some(j) = &json {
                outputs::probe_file(j, "--json")?;
            }
            watchdog::catch_stop_signals();
            with_testbench!(target.unit.as_str(), B => run_one::<B>(&spec, trace_rtl, json.as_deref()))
        }
        Cmd::Eval {
            target,
            file,
            compact,
        } => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let (unit, profile) = (&target.unit, target.profile);
            match file.as_deref() {
                Some(p) if p.as_os_str() != "-" => {
                    let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
                    units::eval_stream(unit, profile, f, &mut out, compact)?
                }
                _ => units::eval_stream(unit, profile, std::io::stdin().lock(), &mut out, compact)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Bench {
            units,
            profiles,
            rtl,
            rss,
            ..
        } if !rss.is_empty() => bench_rss(units, profiles, &rss, rtl),
        Cmd::Bench {
            units,
            profiles,
            cycles,
            seed,
            repeats,
            rtl,
            write,
            rss: _,
            mutate,
            cocotb,
            cocotb_cycles,
        } => bench(
            units,
            profiles,
            (cycles, seed, repeats),
            rtl,
            write,
            mutate,
            cocotb.map(|p| (p, cocotb_cycles)),
        ),
        Cmd::Kernel(KernelCmd::Check {
            file,
            profile,
            json,
        }) => {
            let json_file = json.as_deref().filter(|j| j.as_os_str() != "-");
            if let Some(j) = json_file {
                outputs::probe_file(j, "--json")?;
            }
            let (prog, profile) = gpucosim::kernel::read(&file, profile)?;
            let report =
                gpucosim::kernel::check_program(&file.display().to_string(), &prog, profile)?;
            let text = serde_json::to_string_pretty(&report).expect("reports serialise");
            if json.is_some() && json_file.is_none() {
                println!("{text}");
            } else {
                print!("{}", gpucosim::kernel::report_text(&report));
            }
            if let Some(j) = json_file {
                outputs::write_atomic(j, format!("{text}\n").as_bytes())?;
            }
            Ok(if report.safe() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Kernel(KernelCmd::Profile {
            file,
            launch,
            profile,
            kernel,
            seed,
            json,
            svg,
            buffers,
        }) => {
            for (p, what) in [(&json, "--json"), (&svg, "--svg"), (&buffers, "--buffers")] {
                if let Some(p) = p.as_ref().filter(|p| p.as_os_str() != "-") {
                    outputs::probe_file(p, what)?;
                }
            }
            let (prog, profile) = gpucosim::kernel::read(&file, profile)?;
            let em = gpucosim::kernel::emu::emulate_file(
                &file,
                &prog,
                profile,
                &launch,
                kernel.as_deref(),
                seed,
                false,
            )?;
            let p = &em.profile;
            let text = serde_json::to_string_pretty(p).expect("a profile serialises") + "\n";
            match &json {
                Some(j) if j.as_os_str() == "-" => print!("{text}"),
                other => {
                    print!("{}", p.text());
                    println!(
                        "emulated {} instructions in {:.3} s ({:.0} instructions/s)",
                        p.total.instructions,
                        em.seconds,
                        p.total.instructions as f64 / em.seconds.max(1e-9)
                    );
                    if let Some(j) = other {
                        outputs::write_atomic(j, text.as_bytes())?;
                    }
                }
            }
            if let Some(s) = &svg {
                outputs::write_atomic(s, p.svg().as_bytes())?;
            }
            if let Some(b) = &buffers {
                let m: serde_json::Map<String, serde_json::Value> = em
                    .buffers
                    .iter()
                    .map(|(n, w)| {
                        let v: Vec<serde_json::Value> = w
                            .iter()
                            .map(|x| {
                                x.map_or(serde_json::Value::Null, |x| format!("{x:#010x}").into())
                            })
                            .collect();
                        (n.clone(), serde_json::Value::Array(v))
                    })
                    .collect();
                let text = serde_json::to_string(&m).expect("buffers serialise") + "\n";
                outputs::write_atomic(b, text.as_bytes())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Kernel(KernelCmd::Run {
            file,
            launch: Some(launch),
            profile,
            seed,
            kernel,
            cycles,
            rtl,
            waves,
            waves_format,
            bundles,
            limits,
            ..
        }) => {
            if cycles == Some(0) {
                return Err(Error::Input("--cycles must be at least 1".into()));
            }
            if let Some(w) = &waves {
                outputs::probe_dir(w, "--waves")?;
            }
            let (prog, profile) = gpucosim::kernel::read(&file, profile)?;
            let em = gpucosim::kernel::emu::emulate_file(
                &file,
                &prog,
                profile,
                &launch,
                kernel.as_deref(),
                Some(seed),
                true,
            )?;
            watchdog::catch_stop_signals();
            kernel_traffic_run(
                &file,
                &launch,
                em,
                profile,
                seed,
                cycles,
                &rtl,
                (&waves, waves_format),
                &bundles,
                limits,
            )
        }
        Cmd::Kernel(KernelCmd::Run {
            file,
            launch: None,
            profile,
            seed,
            kernel,
            wave_count,
            iterations,
            cycles,
            rtl,
            waves,
            waves_format,
            bundles,
            limits,
        }) => {
            let cycles = cycles.unwrap_or(1_000_000);
            if cycles == 0 {
                return Err(Error::Input("--cycles must be at least 1".into()));
            }
            if let Some(w) = &waves {
                outputs::probe_dir(w, "--waves")?;
            }
            let (prog, profile) = gpucosim::kernel::read(&file, profile)?;
            let opts = gpucosim::kernel::replay::ReplayOpts {
                waves: wave_count,
                max_iterations: iterations,
            };
            let kernels: Vec<&gpucosim::kernel::asm::Kernel> = prog
                .kernels
                .iter()
                .filter(|k| kernel.as_deref().is_none_or(|n| n == k.name))
                .collect();
            if kernels.is_empty() {
                let names: Vec<&str> = prog.kernels.iter().map(|k| k.name.as_str()).collect();
                return Err(Error::Input(format!(
                    "{}: no kernel `{}` (kernels: {})",
                    file.display(),
                    kernel.unwrap_or_default(),
                    names.join(", ")
                )));
            }
            watchdog::catch_stop_signals();
            let mut worst = ExitCode::SUCCESS;
            for k in kernels {
                let code = kernel_run(
                    &file,
                    k,
                    profile,
                    seed,
                    &opts,
                    cycles,
                    &rtl,
                    (&waves, waves_format),
                    &bundles,
                    limits,
                )?;
                if code != ExitCode::SUCCESS {
                    worst = code;
                }
            }
            Ok(worst)
        }
        Cmd::DecodeWaitcnt { profile, word } => {
            let text =
                units::waitcnt::eval::decode_waitcnt_text(profile, &word).map_err(Error::Input)?;
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Lint { unit, rtl } => {
            let root = rtlbuild::rtl_root(rtl.as_deref());
            let cache = rtlbuild::cache_root();
            let v = gpucosim::verilator::Verilator::locate(&cache)?;
            let mut findings = 0;
            for t in units::port_tables() {
                if unit.as_deref().is_some_and(|u| u != t.unit) {
                    continue;
                }
                let sources = rtlbuild::RtlSources::collect(&root, t.unit)?;
                for profile in Profile::all() {
                    match rtlbuild::lint(t, profile, &sources, &v)? {
                        None => println!("lint {} {}: clean", t.unit, profile),
                        Some(text) => {
                            findings += 1;
                            println!("lint {} {}: FINDINGS\n{text}", t.unit, profile);
                        }
                    }
                }
            }
            if let Some(u) = unit {
                if !units::is_registered(&u) {
                    return Err(Error::Input(format!(
                        "unknown unit `{u}` (expected one of: {})",
                        units::UNITS.join(", ")
                    )));
                }
            }
            Ok(if findings == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Regress(a) => cmd_regress(a, log.quiet),
        Cmd::Mutate(a) => cmd_mutate(a, log.quiet),
        Cmd::Merge {
            files,
            junit,
            coverage,
            results,
            allow_partial,
            require_coverage,
        } => {
            for (p, what) in [
                (&junit, "--junit"),
                (&coverage, "--coverage"),
                (&results, "--results"),
            ] {
                if let Some(p) = p {
                    outputs::probe_file(p, what)?;
                }
            }
            let mut parts = Vec::new();
            for f in files {
                let r = regress::Results::load(&f)?;
                parts.push((f, r));
            }
            let (merged, problems) = regress::Results::merge(parts)?;
            let lost = write_reports(
                &merged,
                junit.as_deref(),
                coverage.as_deref(),
                results.as_deref(),
                require_coverage,
            );
            print!("{}", merged.summary());
            let (ran, stopped, not_run) = merged.counts();
            println!(
                "{ran} jobs from {} shard(s), {} failed{}",
                merged.shards.len().max(1),
                merged.failures() - stopped,
                not_run_note(stopped, not_run)
            );
            print_coverage_failures(&merged, require_coverage);
            for p in &problems {
                if allow_partial {
                    tracing::warn!("partial merge: {p}");
                } else {
                    eprintln!(
                        "error: incomplete merge: {p} (--allow-partial accepts a partial merge)"
                    );
                }
            }
            Ok(ExitCode::from(
                if lost || (!problems.is_empty() && !allow_partial) {
                    EXIT_INPUT
                } else {
                    merged.exit_code_with(require_coverage)
                },
            ))
        }
        Cmd::Job => cmd_job(),
        Cmd::Replay {
            bundle,
            force,
            rtl,
            waves,
            waves_format,
        } => {
            let repro = regress::Repro::load(&bundle)?;
            with_testbench!(repro.unit.as_str(), B => cmd_replay::<B>(&repro, force, rtl, (waves, waves_format)))
        }
        Cmd::Shrink { bundle, out, force } => {
            let repro = regress::Repro::load(&bundle)?;
            let out = out.unwrap_or_else(|| {
                let mut s = bundle.clone().into_os_string();
                s.push(".shrunk");
                PathBuf::from(s)
            });
            with_testbench!(repro.unit.as_str(), B => {
                regress::check_rtl_hash::<B>(&repro, &repro.rtl_dir, force)?;
                let libs = regress::LibCache::default();
                let (lib, _) = libs.get::<B>(&repro.rtl_dir, repro.profile)?;
                let s = regress::shrink::<B>(&repro, &lib, &out)?;
                let label = repro.label.as_deref().map(|l| format!(".{l}")).unwrap_or_default();
                println!(
                    "shrunk {}.{}{label}.{}: {}",
                    repro.unit,
                    repro.profile,
                    repro.seed,
                    s.summary()
                );
                println!("bundle: {}", out.display());
                Ok(ExitCode::SUCCESS)
            })
        }
        Cmd::Waves {
            file,
            signals,
            cycles,
        } => cmd_waves(&file, &signals, cycles),
        Cmd::Cache {
            list: _,
            prune,
            older_than,
            dry_run,
        } => {
            let cache = rtlbuild::cache_root();
            if prune {
                let policy = match older_than {
                    Some(days) => gpucosim::cache::Prune::UnusedFor(
                        std::time::Duration::from_secs(days.saturating_mul(86_400)),
                    ),
                    None => gpucosim::cache::Prune::Superseded,
                };
                let report = gpucosim::cache::prune(&cache, policy, dry_run)?;
                print!("{}", gpucosim::cache::format_prune(&report));
            } else {
                let entries = gpucosim::cache::list(&cache)?;
                print!("{}", gpucosim::cache::format_list(&cache, &entries));
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Build { target, rtl } => {
            let root = rtlbuild::rtl_root(rtl.as_deref());
            with_testbench!(target.unit.as_str(), B => {
                let (_, built) = gpucosim::load_rtl::<B>(&root, target.profile, false)?;
                println!("{}", built.lib.display());
                Ok(ExitCode::SUCCESS)
            })
        }
    }
}

/// The units and profiles given, or all of them when none is.
/// The `--knob` pairs that apply to `unit`: plain `name=value`, and
/// `unit.name=value` for this unit (without its prefix).
fn unit_knobs(knobs: &[(String, String)], unit: &str) -> Vec<(String, String)> {
    knobs
        .iter()
        .filter_map(|(k, v)| match k.split_once('.') {
            Some((u, name)) if u == unit => Some((name.to_string(), v.clone())),
            Some(_) => None,
            None => Some((k.clone(), v.clone())),
        })
        .collect()
}

fn or_all(units: Vec<String>, profiles: Vec<Profile>) -> (Vec<String>, Vec<Profile>) {
    let units = if units.is_empty() {
        units::UNITS.iter().map(|u| u.to_string()).collect()
    } else {
        units
    };
    let profiles = if profiles.is_empty() {
        Profile::all().collect()
    } else {
        profiles
    };
    (units, profiles)
}

/// `gpucosim bench --rss`: peak memory of runs of each length.
fn bench_rss(
    units: Vec<String>,
    profiles: Vec<Profile>,
    cycles: &[u64],
    rtl: Option<PathBuf>,
) -> Result<ExitCode> {
    let (units, profiles) = or_all(units, profiles);
    let exe = regress::own_exe()?;
    let root = rtlbuild::rtl_root(rtl.as_deref());
    println!("| unit | profile | cycles | peak RSS | wall time |");
    println!("|---|---|---:|---:|---:|");
    for u in &units {
        for &p in &profiles {
            with_testbench!(u.as_str(), B => gpucosim::load_rtl::<B>(&root, p, false).map(drop))?;
            for &c in cycles {
                let (mb, t) = gpucosim::benchmark::peak_rss(&exe, u, p, c, rtl.as_deref())?;
                println!(
                    "| {u} | {p} | {c} | {mb:.1} MB | {:.1} s |",
                    t.as_secs_f64()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_mutate_bench(s: &str) -> std::result::Result<(String, Profile, usize), String> {
    let bad = || format!("bad --mutate `{s}`: expected UNIT:PROFILE:N, e.g. waitcnt:gfx9:100");
    let mut it = s.split(':');
    let (Some(u), Some(p), Some(n), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return Err(bad());
    };
    let p: Profile = p.parse().map_err(|_| bad())?;
    let n: usize = n.parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(bad());
    }
    Ok((u.to_string(), p, n))
}

fn bench(
    units: Vec<String>,
    profiles: Vec<Profile>,
    (cycles, seed, repeats): (u64, u64, usize),
    rtl: Option<PathBuf>,
    write: Option<PathBuf>,
    mutate: Option<(String, Profile, usize)>,
    cocotb: Option<(PathBuf, u64)>,
) -> Result<ExitCode> {
    use gpucosim::benchmark::{self, BenchSpec, Machine, Report};
    if let Some((python, _)) = &cocotb {
        // A missing interpreter or package is reported before measuring.
        benchmark::check_cocotb(python)?;
    }
    let (units, profiles) = or_all(units, profiles);
    for u in &units {
        // Unknown units are reported before anything is built.
        let (): () = with_testbench!(u.as_str(), B => Ok(()))?;
    }
    let release = !cfg!(debug_assertions);
    if !release {
        tracing::warn!("this gpucosim was built without optimisations; the figures mean little (use `cargo run --release -- bench`)");
    }
    let machine = Machine::describe();
    let work = tempfile::Builder::new()
        .prefix("gpucosim-bench-")
        .tempdir()
        .map_err(|e| Error::Env(format!("cannot create a temporary directory: {e}")))?;
    let spec = BenchSpec {
        cycles,
        seed,
        repeats,
        rtl_root: rtlbuild::rtl_root(rtl.as_deref()),
        work_dir: work.path().to_path_buf(),
    };
    spec.validate()?;
    let exe = regress::own_exe()?;
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    for u in &units {
        for &p in &profiles {
            tracing::info!("bench {u} {p}: building and measuring…");
            let fig: benchmark::UnitFigures =
                with_testbench!(u.as_str(), B => benchmark::bench_unit::<B>(&spec, p))?;
            tracing::info!(
                "bench {u} {p}: bare {:.0}, shim {:.0}, model {:.0}, lock-step {:.0} (pipelined {:.0}) cycles/s; 4/1 = {:.2}, 5/1 = {:.2}",
                fig.bare, fig.shim, fig.model, fig.lockstep, fig.pipelined, fig.ratio(), fig.pipelined_ratio()
            );
            rows.push(fig);
            starts.push((
                u.clone(),
                p,
                benchmark::cached_start(&exe, u, p, rtl.as_deref(), repeats)?,
            ));
        }
    }
    tracing::info!("bench: regress --jobs 1 vs --jobs 2…");
    let regress = benchmark::regress_scaling(
        &exe,
        &units,
        &profiles,
        (cycles / 4).max(10_000),
        rtl.as_deref(),
        work.path(),
    )
    .map_err(|e| e.to_string());
    let long = cycles.saturating_mul(10);
    tracing::info!("bench: peak memory of runs of {cycles} and {long} cycles…");
    let rss = units
        .iter()
        .flat_map(|u| profiles.iter().map(move |&p| (u, p)))
        .map(|(u, p)| benchmark::rss_figures(&exe, u, p, (cycles, long), rtl.as_deref()))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.to_string());
    let cocotb = match cocotb {
        None => None,
        Some((python, n)) => {
            let p = if profiles.contains(&Profile::Gfx9) {
                Profile::Gfx9
            } else {
                profiles[0]
            };
            tracing::info!(
                "bench: the cocotb examples on {p}, {n} cycles, with and without the model…"
            );
            let build = rtlbuild::cache_root().join("cocotb-bench");
            let rows =
                benchmark::bench_cocotb(&python, &units, p, seed, n, &spec.rtl_root, &build)?;
            for c in &rows {
                for r in [&c.with_model, &c.without_model] {
                    if let Err(e) = r {
                        tracing::warn!("cocotb {} {}: {e}", c.unit, c.profile);
                    }
                }
            }
            Some(rows)
        }
    };
    let mutate = match mutate {
        None => None,
        Some((u, p, n)) => {
            tracing::info!("bench: a mutation campaign of {n} mutants of {u} {p}…");
            Some(
                with_testbench!(u.as_str(), B => benchmark::bench_mutate::<B>(&exe, p, n, rtl.as_deref()))?,
            )
        }
    };
    let report = Report {
        mutate,
        machine,
        command: std::iter::once("gpucosim".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        release,
        spec,
        rows,
        starts,
        regress,
        load_after: benchmark::load_average(),
        rss,
        cocotb,
    };
    print!(
        "{}\n{}\nRepeated figures:\n{}\n{}\n{}\n",
        report.table(),
        report.rounds_table(),
        report.repeated(),
        report.dump_table(),
        report.rss_table()
    );
    if let Some(t) = report.cocotb_table() {
        println!("{t}");
    }
    print!("{}", report.targets());
    if let Some(path) = write {
        gpucosim::write_atomic(&path, report.markdown().as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Error::Input(format!("cannot read stdin: {e}")))?;
    Ok(s)
}

fn run_one<B: gpucosim::testbench::Testbench>(
    spec: &RunSpec,
    trace_rtl: bool,
    json: Option<&std::path::Path>,
) -> Result<ExitCode> {
    let (out, rtl_vcd) = gpucosim::simulate::<B>(spec, Stimulus::Fresh, trace_rtl)?;
    let cov = &out.coverage;
    let name = spec.name();
    match out.verdict() {
        Verdict::Passed => println!(
            "PASS {name}: {} cycles, {} transactions, {:.0} cycles/s, coverage {}/{} bins",
            out.cycles,
            out.txn_count,
            out.rate(),
            cov.covered(),
            cov.names.len()
        ),
        Verdict::Interrupted => println!(
            "INTERRUPTED {name} before cycle {} by {}: model and RTL agreed over the {} cycles run ({} transactions)",
            out.cycles,
            engine::signal_name(out.signal()),
            out.cycles,
            out.txn_count
        ),
        v => {
            print!("{}", gpucosim::report::report(spec, &out, B::table()));
            if let Some(p) = &rtl_vcd {
                println!("  RTL internal signals: {}", p.display());
            }
            let what = match (out.mismatches.first(), engine::Headline::of(&out.end)) {
                (Some(m), _) => format!("FAIL {name}: diverged at cycle {}", m.cycle),
                (None, Some(h)) => format!("{} {name} {}", h.kind, h.when),
                (None, None) => format!("FAIL {name}: {v:?}"),
            };
            println!("{what}{}", in_transaction(&out));
        }
    }
    let mut lost = false;
    if let Some(e) = &out.vcd_error {
        eprintln!("error: the waveform was not written: {e}");
        lost = true;
    }
    if let Some(path) = json {
        let v = serde_json::json!({
            "name": name,
            "unit": spec.unit,
            "profile": spec.profile,
            "seed": spec.seed,
            "cycles": out.cycles,
            "transactions": out.txn_count,
            "verdict": out.verdict(),
            "passed": out.passed(),
            "end": out.end,
            "mismatches": out.mismatches,
            "vcd": out.vcd,
            "vcd_window": out.window,
            "vcd_error": out.vcd_error,
            "rtl_vcd": rtl_vcd,
            "rtl_output": out.rtl_text,
            "cycles_per_second": out.rate(),
            "reproduce": spec.repro_command(),
            "coverage": regress::coverage_bins(cov),
        });
        if let Err(e) = gpucosim::write_atomic(
            path,
            serde_json::to_string_pretty(&v).expect("JSON").as_bytes(),
        ) {
            eprintln!("error: --json was not written: {e}");
            lost = true;
        }
    }
    // What the run found comes first; a lost output turns only a pass
    // into a failure.
    Ok(ExitCode::from(match out.verdict() {
        Verdict::Passed if lost => EXIT_INPUT,
        _ => out.exit_code(),
    }))
}

/// `kernel run --launch`: the emulated launch's LDS and buffer traffic
/// through the LDS and TA units in lock-step, one run per unit, each
/// failure bundled with its transactions.
#[allow(clippy::too_many_arguments)]
fn kernel_traffic_run(
    file: &std::path::Path,
    launch: &std::path::Path,
    em: gpucosim::kernel::emu::Emulation,
    profile: Profile,
    seed: u64,
    cycles: Option<u64>,
    rtl: &Option<PathBuf>,
    (waves, waves_format): (&Option<PathBuf>, WaveFormat),
    bundles: &std::path::Path,
    limits: LimitArgs,
) -> Result<ExitCode> {
    let p = &em.profile;
    println!(
        "{}: emulated {} instructions in {:.3} s; {} LDS and {} TA transactions",
        p.kernel,
        p.total.instructions,
        em.seconds,
        em.traffic.lds.len(),
        em.traffic.ta.len()
    );
    // Enough for the traffic: its cycles at the models' counts (a line
    // request a cycle for the TA unit, backpressure at most halving that),
    // the gaps and handshakes, twice over.
    let t = &p.total;
    let need = |busy: u64, n: usize| 2 * (busy + 6 * n as u64) + 1000;
    let lds_cycles = cycles.unwrap_or_else(|| need(t.lds_cycles, em.traffic.lds.len()));
    let ta_cycles = cycles.unwrap_or_else(|| need(4 * t.ta_lines, em.traffic.ta.len()));
    let mut cmd = format!(
        "gpucosim kernel run {} --launch {} --profile {profile} --seed {seed} --kernel {}",
        engine::shell_quote(&file.display().to_string()),
        engine::shell_quote(&launch.display().to_string()),
        engine::shell_quote(&p.kernel),
    );
    if let Some(c) = cycles {
        cmd.push_str(&format!(" --cycles {c}"));
    }
    if let Some(r) = rtl {
        cmd.push_str(&format!(
            " --rtl {}",
            engine::shell_quote(&r.display().to_string())
        ));
    }
    let mut ctx = TrafficRun {
        label: &p.kernel,
        profile,
        seed,
        cycles: lds_cycles,
        rtl,
        waves,
        waves_format,
        bundles,
        limits,
        cmd: &cmd,
    };
    let mut worst = ExitCode::SUCCESS;
    let traffic = em.traffic;
    let lds_code = traffic_unit::<gpucosim::units::lds::LdsTestbench>(&ctx, "lds", traffic.lds)?;
    ctx.cycles = ta_cycles;
    let ta_code = traffic_unit::<gpucosim::units::ta::TaTestbench>(&ctx, "ta", traffic.ta)?;
    for code in [lds_code, ta_code] {
        if code != ExitCode::SUCCESS {
            worst = code;
        }
    }
    Ok(worst)
}

/// What the lock-step runs of a kernel's traffic share.
struct TrafficRun<'a> {
    label: &'a str,
    profile: Profile,
    seed: u64,
    cycles: u64,
    rtl: &'a Option<PathBuf>,
    waves: &'a Option<PathBuf>,
    waves_format: WaveFormat,
    bundles: &'a std::path::Path,
    limits: LimitArgs,
    cmd: &'a str,
}

/// One unit's share of a kernel's traffic in lock-step.
fn traffic_unit<B: gpucosim::testbench::Testbench>(
    c: &TrafficRun,
    unit: &str,
    txns: Vec<B::Txn>,
) -> Result<ExitCode>
where
    B::Txn: Clone + serde::Serialize,
{
    let mut spec = RunSpec::new(unit, c.profile, c.seed, c.cycles);
    spec.label = Some(c.label.to_string());
    // A tree of one of the kernel's units co-simulates that one; the
    // other runs on the built-in RTL.
    let (rtl, note) = regress::rtl_for_unit(c.rtl, unit);
    if let Some(n) = note {
        eprintln!("{n}");
    }
    spec.rtl_arg = rtl.clone();
    spec.waves = c.waves.clone();
    spec.waves_format = c.waves_format;
    spec.limits = c.limits.limits();
    spec.reproduce = Some(c.cmd.to_string());
    let name = spec.name();
    if txns.is_empty() {
        println!("SKIP {name}: the kernel sent no transaction to the {unit} unit");
        return Ok(ExitCode::SUCCESS);
    }
    let n = txns.len();
    let (out, _) = gpucosim::simulate::<B>(&spec, Stimulus::Replay(txns.clone()), false)?;
    if out.passed() {
        if out.txn_count < n {
            println!(
                "INCOMPLETE {name}: the cycle budget ended after {} of {n} transactions",
                out.txn_count
            );
            return Ok(ExitCode::from(EXIT_INPUT));
        }
        println!(
            "PASS {name}: {n} transactions, {} cycles, {:.0} cycles/s, coverage {}/{} bins",
            out.cycles,
            out.rate(),
            out.coverage.covered(),
            out.coverage.names.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    failure_bundle::<B>(&spec, &out, &txns, &rtl, c.bundles)
}

/// Reports a failed kernel run and writes its bundle (the transactions
/// up to the failure listed) for `replay` and `shrink`.
fn failure_bundle<B: gpucosim::testbench::Testbench>(
    spec: &RunSpec,
    out: &engine::Outcome<B::Txn>,
    txns: &[B::Txn],
    rtl: &Option<PathBuf>,
    bundles: &std::path::Path,
) -> Result<ExitCode>
where
    B::Txn: Clone + serde::Serialize,
{
    let name = spec.name();
    print!("{}", gpucosim::report::report(spec, out, B::table()));
    if matches!(out.verdict(), Verdict::Interrupted) {
        return Ok(ExitCode::from(out.exit_code()));
    }
    let dir = bundles.join(&name);
    let root = rtlbuild::rtl_root(rtl.as_deref());
    let hash = rtlbuild::sources_hash(&rtlbuild::RtlSources::collect(&root, &spec.unit)?)?;
    let listed = &txns[..out.txn_count.min(txns.len())];
    let report = gpucosim::report::report(spec, out, B::table());
    match gpucosim::bundle::write_bundle(
        &dir,
        spec,
        &root,
        &hash,
        out,
        Some(listed),
        &report,
        out.vcd.as_deref(),
    ) {
        Ok(()) => println!(
            "  bundle: {} (gpucosim replay, gpucosim shrink)",
            dir.display()
        ),
        Err(e) => eprintln!("error: the failure bundle was not written: {e}"),
    }
    let what = match out.mismatches.first() {
        Some(m) => format!("diverged at cycle {}", m.cycle),
        None => regress::job_message(out),
    };
    println!("FAIL {name}: {what}{}", in_transaction(out));
    Ok(ExitCode::from(out.exit_code()))
}

/// `kernel run` of one kernel: its stimulus through the waitcnt unit in
/// lock-step, a failure bundled (transactions listed) for `replay` and
/// `shrink`.
#[allow(clippy::too_many_arguments)]
fn kernel_run(
    file: &std::path::Path,
    k: &gpucosim::kernel::asm::Kernel,
    profile: Profile,
    seed: u64,
    opts: &gpucosim::kernel::replay::ReplayOpts,
    cycles: u64,
    rtl: &Option<PathBuf>,
    (waves, waves_format): (&Option<PathBuf>, WaveFormat),
    bundles: &std::path::Path,
    limits: LimitArgs,
) -> Result<ExitCode> {
    use gpucosim::units::waitcnt::WaitcntTestbench as B;
    let pr = gpucosim::kernel::check::Program::new(k, profile)
        .map_err(|e| Error::Input(format!("{}: kernel {}: {e}", file.display(), k.name)))?;
    let (txns, paths) = gpucosim::kernel::replay::stimulus_traced(&pr, seed, opts);
    let mut spec = RunSpec::new("waitcnt", profile, seed, cycles);
    spec.label = Some(k.name.clone());
    spec.rtl_arg = rtl.clone();
    spec.waves = waves.clone();
    spec.waves_format = waves_format;
    spec.limits = limits.limits();
    let mut cmd = format!(
        "gpucosim kernel run {} --profile {profile} --seed {seed} --kernel {} --wave-count {} --iterations {} --cycles {cycles}",
        engine::shell_quote(&file.display().to_string()),
        engine::shell_quote(&k.name),
        opts.waves,
        opts.max_iterations
    );
    if let Some(r) = rtl {
        cmd.push_str(&format!(
            " --rtl {}",
            engine::shell_quote(&r.display().to_string())
        ));
    }
    spec.reproduce = Some(cmd);
    let (out, _) = gpucosim::simulate::<B>(&spec, Stimulus::Replay(txns.clone()), false)?;
    let name = spec.name();
    if out.passed() {
        if out.txn_count < txns.len() {
            println!(
                "INCOMPLETE {name}: the cycle budget ended after {} of {} transactions",
                out.txn_count,
                txns.len()
            );
            return Ok(ExitCode::from(EXIT_INPUT));
        }
        // The registers: the same run, model alone, recording when each
        // issue returned and each wait released.
        let knobs = <B as gpucosim::testbench::Testbench>::Knobs::default();
        let mut mr =
            engine::ModelRun::<B>::new(profile, seed, &knobs, Stimulus::Replay(txns.clone()));
        mr.driver_mut().record();
        // The lock-step run finished within `cycles`; so does the model.
        let _ = mr.run_until_done(cycles, |_, _, _| {});
        let dynamic = gpucosim::kernel::replay::dynamic_hazards(&pr, &paths, mr.driver().events());
        let proven: Vec<_> = pr
            .hazards(None)
            .into_iter()
            .map(|h| (h.kind, h.at, h.by))
            .collect();
        let mut unproven = 0;
        for h in &dynamic {
            let known = proven.contains(&(h.kind, h.at, h.by));
            unproven += usize::from(!known);
            println!(
                "  {:?} in wave {} at cycle {}: {} `{}` {} {}, which {} `{}` had not returned ({})",
                h.kind,
                h.wave,
                h.cycle,
                k.insts[h.at].place(),
                k.insts[h.at].text(),
                if h.kind == gpucosim::kernel::check::HazardKind::Raw {
                    "read"
                } else {
                    "wrote"
                },
                h.regs.text(),
                k.insts[h.by].place(),
                k.insts[h.by].text(),
                if known {
                    "also found by kernel check"
                } else {
                    "NOT found by kernel check"
                }
            );
        }
        if !dynamic.is_empty() {
            println!(
                "FAIL {name}: the unit agreed, but the waves ran into {} register hazard{}{}",
                dynamic.len(),
                if dynamic.len() == 1 { "" } else { "s" },
                if unproven > 0 {
                    format!(" ({unproven} that kernel check does not report: an analysis error)")
                } else {
                    String::new()
                }
            );
            return Ok(ExitCode::from(1));
        }
        println!(
            "PASS {name}: {} waves, {} transactions, {} cycles, {:.0} cycles/s, coverage {}/{} bins, no register hazard",
            opts.waves,
            out.txn_count,
            out.cycles,
            out.rate(),
            out.coverage.covered(),
            out.coverage.names.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    failure_bundle::<B>(&spec, &out, &txns, rtl, bundles)
}

#[derive(clap::Args)]
struct RegressArgs {
    /// Units to run (repeatable; default: all).
    #[arg(long = "unit")]
    units: Vec<String>,
    /// Profiles to run (repeatable; default: all).
    #[arg(long = "profile")]
    profiles: Vec<Profile>,
    /// Seeds: `A..B` (inclusive) or a count N meaning 1..N.
    #[arg(long, default_value = "1..16")]
    seeds: regress::Seeds,
    /// Cycles per seed.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 50_000)]
    cycles: u64,
    /// Parallel jobs (default: all cores).
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long)]
    jobs: Option<usize>,
    /// Run only shard K of N (1-based), e.g. `--shard 2/4`.
    #[arg(long)]
    shard: Option<regress::Shard>,
    /// Write a JUnit XML report.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Write the merged coverage as JSON.
    #[arg(long)]
    coverage: Option<PathBuf>,
    /// Write the results file (input of `gpucosim merge`).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Directory for failure bundles.
    #[arg(long, default_value = "gpucosim-failures")]
    bundles: PathBuf,
    /// Shrink each failure into a second, minimal bundle.
    #[arg(long)]
    shrink: bool,
    /// Another RTL tree.
    #[arg(long)]
    rtl: Option<PathBuf>,
    /// Stimulus knob `name=value` for every unit, or `unit.name=value`.
    #[arg(long = "knob", value_parser = parse_kv)]
    knobs: Vec<(String, String)>,
    /// Also replay the kernels of this file (assembly or a code object,
    /// naming its target) through the waitcnt unit, each seed a job
    /// `waitcnt.PROFILE.KERNEL.SEED` (repeatable; docs/kernels.md).
    #[arg(long = "kernels", value_name = "FILE")]
    kernels: Vec<PathBuf>,
    /// Also emulate this launch of a kernel of FILE (`clang -S` output)
    /// and run its LDS and buffer traffic through the LDS and TA units,
    /// each seed two jobs `lds.PROFILE.KERNEL.SEED` and
    /// `ta.PROFILE.KERNEL.SEED`, the seed drawing the launch's fills,
    /// samples, gaps and backpressure (repeatable; docs/kernels.md).
    #[arg(long = "launch", value_name = "FILE=LAUNCH", value_parser = parse_kv)]
    launches: Vec<(String, String)>,
    /// Waveform window of failure bundles, in cycles.
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 1024)]
    window: usize,
    /// Format of the failure bundles' waveforms: `vcd` or `fst`.
    #[arg(long, value_name = "FORMAT", default_value = "vcd", value_parser = waves_format())]
    waves_format: WaveFormat,
    #[command(flatten)]
    limits: LimitArgs,
    /// Print the jobs (of the shard) one per line, without running them.
    #[arg(long)]
    list: bool,
    /// Run no seed with a unit's stress variant (by default every seed
    /// that is a multiple of 4 runs with one; docs/regress.md).
    #[arg(long)]
    no_stress: bool,
    /// Fail (exit 1, a failed JUnit test case `coverage.UNIT.PROFILE`)
    /// when a coverage bin of a unit and profile that ran was never hit.
    #[arg(long)]
    require_coverage: bool,
}

#[derive(clap::Args)]
struct MutateArgs {
    /// Units to mutate (repeatable; default: all).
    #[arg(long = "unit")]
    units: Vec<String>,
    /// Profiles (repeatable; default: all).
    #[arg(long = "profile")]
    profiles: Vec<Profile>,
    /// Another RTL tree (holding `<unit>/*.sv`).
    #[arg(long)]
    rtl: Option<PathBuf>,
    /// Run a sample of N mutants per unit and profile (default: every
    /// mutant).
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, value_name = "N")]
    mutants: Option<usize>,
    /// Seed of the sample.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 1)]
    sample_seed: u64,
    /// Run only this mutant (repeatable; numbers from `--list`).
    #[arg(long = "mutant", value_name = "ID")]
    ids: Vec<u32>,
    /// Seeds each mutant runs, as the regression's (`A..B` or a count N).
    #[arg(long, default_value = "1..16")]
    seeds: regress::Seeds,
    /// Cycles per seed.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 50_000)]
    cycles: u64,
    /// Stimulus knob `name=value` for every unit, or `unit.name=value`.
    #[arg(long = "knob", value_parser = parse_kv)]
    knobs: Vec<(String, String)>,
    /// Run every seed with the default knobs: no stress variants on every
    /// fourth seed (see `regress --no-stress`).
    #[arg(long)]
    no_stress: bool,
    /// Mutants run in parallel (default: all cores).
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long)]
    jobs: Option<usize>,
    /// Write the report as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a JUnit XML report: each survivor is a failed testcase.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Fail (exit 1) if a unit and profile's kill rate is below this
    /// (0..1), e.g. 0.95.
    #[arg(allow_negative_numbers = true, value_parser = parse_rate, long, value_name = "RATE")]
    min_kill_rate: Option<f64>,
    /// Also build N of the mutants separately and check that each behaves
    /// exactly as the instrumented build with it selected.
    #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, value_name = "N", default_value_t = 0)]
    verify: usize,
    /// End a mutant's job after this many seconds (default: ten times the
    /// slowest job of the RTL as written, plus 10 s).
    #[arg(allow_negative_numbers = true, long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// List the mutants (with their diffs) without running them.
    #[arg(long)]
    list: bool,
}

/// Prints a campaign's progress on stderr.
struct MutateProgress {
    quiet: bool,
}

impl gpucosim::mutate::Progress for MutateProgress {
    fn phase(&self, group: &str, what: &str) {
        if !self.quiet {
            eprintln!("mutate {group}: {what}");
        }
    }

    fn mutant(&self, group: &str, done: usize, total: usize, r: &gpucosim::mutate::MutantResult) {
        if !self.quiet {
            eprintln!(
                "mutate {group}: [{done}/{total}] m{} {} ({} {}:{})",
                r.id,
                r.fate.word(),
                r.operator,
                r.file,
                r.line
            );
        }
    }
}

fn cmd_mutate(a: MutateArgs, quiet: bool) -> Result<ExitCode> {
    use gpucosim::mutate;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (units, profiles) = or_all(a.units, a.profiles);
    for u in &units {
        let (): () = with_testbench!(u.as_str(), B => Ok(()))?;
    }
    if a.cycles == 0 {
        return Err(Error::Input("--cycles must be at least 1".into()));
    }
    if a.mutants == Some(0) {
        return Err(Error::Input("--mutants must be at least 1".into()));
    }
    if let Some(r) = a.min_kill_rate {
        if !(0.0..=1.0).contains(&r) {
            return Err(Error::Input(format!(
                "--min-kill-rate {r}: expected a rate between 0 and 1, e.g. 0.95"
            )));
        }
    }
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if jobs == 0 {
        return Err(Error::Input("--jobs must be at least 1".into()));
    }
    if a.list {
        for u in &units {
            let unit = mutate::scan_unit(a.rtl.as_deref(), u)?;
            for m in &unit.mutants {
                println!("{u}.m{} [{}] {}:{}", m.id, m.operator, m.file, m.line);
                print!("{}", mutate::diff(&unit, m));
            }
            println!(
                "{u}: {} mutants{}",
                unit.mutants.len(),
                if unit.generated.is_empty() {
                    String::new()
                } else {
                    format!(" (generated, not mutated: {})", unit.generated.join(", "))
                }
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    for out in [&a.json, &a.junit].into_iter().flatten() {
        outputs::probe_file(out, "the report")?;
    }
    let exe = mutate::exe_path()?;
    watchdog::catch_stop_signals();
    static STOP: AtomicBool = AtomicBool::new(false);
    static SIG: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
    let watcher_done = std::sync::Arc::new(AtomicBool::new(false));
    let watcher = {
        let done = std::sync::Arc::clone(&watcher_done);
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                if let (Some(sig), false) = (watchdog::signalled(), STOP.load(Ordering::SeqCst)) {
                    STOP.store(true, Ordering::SeqCst);
                    SIG.store(sig, Ordering::SeqCst);
                    tracing::info!("stopping: no new mutants; writing the report");
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let progress = MutateProgress { quiet };
    let mut groups = Vec::new();
    let mut failure = None;
    'all: for u in &units {
        let knobs = unit_knobs(&a.knobs, u);
        let spec = mutate::CampaignSpec {
            rtl_arg: a.rtl.clone(),
            seeds: a.seeds,
            cycles: a.cycles,
            knobs,
            stress: !a.no_stress,
            sample: a.mutants,
            sample_seed: a.sample_seed,
            ids: a.ids.clone(),
            jobs,
            verify: a.verify,
            timeout: a.timeout,
            fresh_build: false,
        };
        with_testbench!(u.as_str(), B => gpucosim::engine::parse_knobs::<B>(&spec.knobs).map(drop))?;
        for &p in &profiles {
            if STOP.load(Ordering::SeqCst) {
                break 'all;
            }
            match with_testbench!(u.as_str(), B => mutate::campaign::<B>(&exe, p, &spec, &STOP, &progress))
            {
                Ok(g) => groups.push(g),
                Err(e) => {
                    failure = Some(e);
                    break 'all;
                }
            }
        }
    }
    watcher_done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    let rtl = a.rtl.clone();
    let repro =
        |g: &mutate::GroupResult, id: u32| mutate::repro_command(g, id, rtl.as_deref(), None);
    print!("{}", mutate::report::text(&groups, &repro));
    let mut lost = Vec::new();
    if let Some(path) = &a.json {
        let report = mutate::report::Report {
            format: mutate::report::REPORT_FORMAT,
            command: std::env::args().collect::<Vec<_>>().join(" "),
            summaries: groups.iter().map(mutate::report::summarise).collect(),
            groups: groups.clone(),
        };
        let text = serde_json::to_string_pretty(&report).expect("reports serialise");
        if let Err(e) = outputs::write_atomic(path, text.as_bytes()) {
            lost.push(e.to_string());
        }
    }
    if let Some(path) = &a.junit {
        let text = mutate::report::junit(&groups, a.min_kill_rate, &repro);
        if let Err(e) = outputs::write_atomic(path, text.as_bytes()) {
            lost.push(e.to_string());
        }
    }
    for l in &lost {
        eprintln!("error: not written: {l}");
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if STOP.load(Ordering::SeqCst) {
        eprintln!("mutate: interrupted; the report covers the mutants that ran");
        return Ok(ExitCode::from((128 + SIG.load(Ordering::SeqCst)) as u8));
    }
    if !lost.is_empty() {
        return Ok(ExitCode::from(gpucosim::engine::EXIT_INPUT));
    }
    if let Some(min) = a.min_kill_rate {
        let low: Vec<String> = groups
            .iter()
            .map(mutate::report::summarise)
            .filter(|s| !matches!(s.kill_rate, Some(r) if r + 1e-12 >= min))
            .map(|s| {
                format!(
                    "{} {}",
                    s.group,
                    s.kill_rate
                        .map_or("(nothing run)".into(), |r| format!("{:.1} %", 100.0 * r))
                )
            })
            .collect();
        if !low.is_empty() {
            eprintln!(
                "mutate: kill rate below {:.1} %: {}",
                100.0 * min,
                low.join(", ")
            );
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_regress(a: RegressArgs, quiet: bool) -> Result<ExitCode> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let named_units = a.units.clone();
    let (units, profiles) = or_all(a.units, a.profiles);
    let threads = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if threads == 0 {
        return Err(Error::Input("--jobs must be at least 1".into()));
    }
    if a.cycles == 0 {
        return Err(Error::Input("--cycles must be at least 1".into()));
    }
    for u in &units {
        let (): () = with_testbench!(u.as_str(), B => Ok(()))?;
    }
    // The kernels of the profiles run.
    let mut kernels = Vec::new();
    for f in &a.kernels {
        kernels.extend(
            regress::KernelRef::all_in(f)?
                .into_iter()
                .filter(|k| profiles.contains(&k.profile)),
        );
    }
    for (f, l) in &a.launches {
        kernels.extend(
            regress::KernelRef::launches(std::path::Path::new(f), std::path::Path::new(l))?
                .into_iter()
                .filter(|k| profiles.contains(&k.profile)),
        );
    }
    let plan = regress::Plan {
        units: units.clone(),
        profiles: profiles.clone(),
        seeds: a.seeds,
        cycles: a.cycles,
        knobs: a.knobs.clone(),
        kernels,
        stress: !a.no_stress,
    };
    // Kernel jobs run on their units (waitcnt, or lds and ta for a
    // launch), on their profiles.
    let mut spec_units = units.clone();
    for k in &plan.kernels {
        if !spec_units.contains(&k.unit) {
            spec_units.push(k.unit.clone());
        }
    }
    let list = regress::JobList::new(&plan, a.shard)?;
    if a.list {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for j in list.iter() {
            writeln!(out, "{}", j.name()).map_err(|e| Error::Env(format!("stdout: {e}")))?;
        }
        out.flush()
            .map_err(|e| Error::Env(format!("stdout: {e}")))?;
        return Ok(ExitCode::SUCCESS);
    }
    // Every output location is checked before anything is built or run.
    for (p, what) in [
        (&a.junit, "--junit"),
        (&a.coverage, "--coverage"),
        (&a.results, "--results"),
    ] {
        if let Some(p) = p {
            outputs::probe_file(p, what)?;
        }
    }
    let bundles_existed = a.bundles.exists();
    outputs::probe_dir(&a.bundles, "--bundles")?;
    gpucosim::cache::remove_stale(&a.bundles, ".bundle-");
    // Per-unit configuration; build every library up front so a broken
    // RTL or a missing Verilator is reported once, before any job runs.
    let libs = regress::LibCache::default();
    let mut specs = std::collections::BTreeMap::new();
    let limits = a.limits.limits();
    for u in &spec_units {
        let knobs = unit_knobs(&a.knobs, u);
        // A tree of some units co-simulates those; the units it lacks run
        // on the built-in RTL unless named with --unit.
        let rtl_arg = if named_units.contains(u) {
            a.rtl.clone()
        } else {
            let (rtl, note) = regress::rtl_for_unit(&a.rtl, u);
            if let Some(n) = note {
                eprintln!("{n}");
            }
            rtl
        };
        let root = rtlbuild::rtl_root(rtl_arg.as_deref());
        let cfg = regress::RegressConfig {
            cycles: a.cycles,
            rtl_arg,
            knobs,
            bundles: a.bundles.clone(),
            shrink: a.shrink,
            window: a.window,
            timeout: limits.timeout.map(|d| d.as_secs_f64()),
            stall: limits.stall.map(|d| d.as_secs_f64()),
            waves_format: a.waves_format,
            mutant: None,
        };
        with_testbench!(u.as_str(), B => {
            gpucosim::engine::parse_knobs::<B>(&cfg.knobs)?;
            if plan.stress {
                for v in <B as gpucosim::testbench::Testbench>::variants() {
                    gpucosim::engine::parse_knobs::<B>(&regress::variant_knobs(v, &cfg.knobs))?;
                }
            }
            for &p in &profiles {
                let (lib, hash) = libs.get::<B>(&root, p)?;
                specs.insert((u.clone(), p), regress::JobSpec {
                    job: regress::Job { unit: u.clone(), profile: p, seed: 0, kernel: None, variant: None },
                    cfg: cfg.clone(),
                    root: root.clone(),
                    lib,
                    hash,
                });
            }
            Ok::<(), Error>(())
        })?;
    }
    let exe = regress::own_exe()?;
    let total = list.len();
    watchdog::catch_stop_signals();
    static STOP: AtomicBool = AtomicBool::new(false);
    // Stop requests are turned into the flag the workers check.
    let watcher_done = std::sync::Arc::new(AtomicBool::new(false));
    let watcher = {
        let done = std::sync::Arc::clone(&watcher_done);
        std::thread::spawn(move || {
            let mut told = false;
            while !done.load(Ordering::SeqCst) {
                if let (Some(sig), false) = (watchdog::signalled(), told) {
                    told = true;
                    STOP.store(true, Ordering::SeqCst);
                    tracing::info!(
                        "{}: no new jobs; running jobs stop at their next cycle; writing the results (again to abort)",
                        engine::signal_name(sig)
                    );
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let interactive = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let bar = if quiet || !interactive {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} seeds, {msg}",
            )
            .expect("template"),
        );
        b
    };
    let start = std::time::Instant::now();
    let mut failed = 0usize;
    let mut done = 0u64;
    let runner = |job: &regress::Job| -> regress::JobResult {
        let mut spec = specs[&(job.unit.clone(), job.profile)].clone();
        spec.job = job.clone();
        regress::run_job_in_child(&exe, &spec, &STOP)
    };
    let results = regress::run_jobs(&list, threads, &STOP, &runner, &mut |r| {
        done += 1;
        if !r.passed() {
            failed += 1;
        }
        let line = match r.status {
            regress::Status::Passed => format!(
                "PASS {} ({} cycles, {:.1} s)",
                r.job.name(),
                r.cycles,
                r.seconds
            ),
            _ => format!(
                "{} {}: {}{}",
                status_word(r.status),
                r.job.name(),
                r.message,
                if r.reproduce.is_empty() {
                    String::new()
                } else {
                    format!("; reproduce: {}", r.reproduce)
                }
            ),
        };
        if interactive {
            if !r.passed() && !quiet {
                bar.suspend(|| eprintln!("{line}"));
            }
        } else if !quiet {
            eprintln!("[{done}/{total}] {line}");
        }
        bar.set_message(format!("{failed} failed"));
        bar.inc(1);
    });
    bar.finish_and_clear();
    watcher_done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    let signal = watchdog::signalled();
    let mut res = regress::Results::new(&plan, a.shard);
    for r in results {
        res.add(r);
    }
    res.interrupted = signal.is_some() && (res.jobs.len() as u64) < total
        || res
            .jobs
            .iter()
            .any(|j| j.status == regress::Status::Interrupted);
    let mut lost = write_reports(
        &res,
        a.junit.as_deref(),
        a.coverage.as_deref(),
        a.results.as_deref(),
        a.require_coverage,
    );
    if !bundles_existed {
        // Made for bundles that no job needed: leave no empty directory.
        let _ = std::fs::remove_dir(&a.bundles);
    }
    print!("{}", res.summary());
    let (ran, stopped, not_run) = res.counts();
    println!(
        "{ran} of {total} seeds run{} in {:.1} s on {} job(s): {} failed{}",
        a.shard.map(|s| format!(" (shard {s})")).unwrap_or_default(),
        start.elapsed().as_secs_f64(),
        threads,
        res.failures() - stopped,
        not_run_note(stopped, not_run)
    );
    for j in res.jobs.iter().filter(|j| !j.passed()) {
        println!(
            "  {} {}: {}",
            status_word(j.status),
            j.job.name(),
            if j.reproduce.is_empty() {
                &j.message
            } else {
                &j.reproduce
            }
        );
        if let Some(line) = j.report.lines().find(|l| l.starts_with("shrunk: ")) {
            println!("    {line}");
        }
        for l in &j.lost {
            eprintln!("error: not written: {l}");
            lost = true;
        }
    }
    print_coverage_failures(&res, a.require_coverage);
    Ok(ExitCode::from(match signal {
        Some(sig) if res.interrupted => (128 + sig) as u8,
        _ if lost => EXIT_INPUT,
        _ => res.exit_code_with(a.require_coverage),
    }))
}

/// With `--require-coverage`, a line per unit and profile that left bins
/// unhit, as the failed jobs are listed.
fn print_coverage_failures(r: &regress::Results, require_coverage: bool) {
    if require_coverage {
        for l in r.coverage_failures() {
            println!("  FAIL {l}");
        }
    }
}

/// `, K stopped while running, N not run`, or nothing.
fn not_run_note(stopped: usize, not_run: u64) -> String {
    let mut s = String::new();
    if stopped > 0 {
        s.push_str(&format!(", {stopped} stopped while running"));
    }
    if not_run > 0 {
        s.push_str(&format!(", {not_run} not run"));
    }
    s
}

fn status_word(s: regress::Status) -> &'static str {
    match s {
        regress::Status::Passed => "PASS",
        regress::Status::Diverged => "FAIL",
        regress::Status::RtlError => "RTL ERROR",
        regress::Status::Timeout => "TIMEOUT",
        regress::Status::Interrupted => "INTERRUPTED",
        regress::Status::Error => "ERROR",
    }
}

/// Writes each report that is asked for; one that cannot be written does
/// not keep the others from being written. Returns whether any was lost
/// (each is named on stderr).
fn write_reports(
    r: &regress::Results,
    junit: Option<&std::path::Path>,
    coverage: Option<&std::path::Path>,
    results: Option<&std::path::Path>,
    require_coverage: bool,
) -> bool {
    let mut lost = false;
    let mut write = |p: Option<&std::path::Path>, what: &str, body: &dyn Fn() -> String| {
        if let Some(p) = p {
            if let Err(e) = gpucosim::write_atomic(p, body().as_bytes()) {
                eprintln!("error: {what} was not written: {e}");
                lost = true;
            }
        }
    };
    write(junit, "--junit", &|| r.junit_with(require_coverage));
    write(coverage, "--coverage", &|| {
        serde_json::to_string_pretty(&r.coverage_json()).expect("JSON")
    });
    write(results, "--results", &|| {
        serde_json::to_string_pretty(r).expect("JSON")
    });
    lost
}

/// `gpucosim job`: one job of a regression in this process.
fn cmd_job() -> Result<ExitCode> {
    let spec: regress::JobSpec = serde_json::from_str(&read_stdin()?)
        .map_err(|e| Error::Input(format!("job spec is not valid: {e}")))?;
    watchdog::catch_stop_signals_quietly();
    let r = with_testbench!(spec.job.unit.as_str(), B => Ok(regress::run_job_on::<B>(
        &spec.job, &spec.cfg, &spec.root, &spec.lib, &spec.hash,
    )))?;
    println!("{}", serde_json::to_string(&r).expect("results serialise"));
    Ok(ExitCode::SUCCESS)
}

fn cmd_replay<B: gpucosim::testbench::Testbench>(
    repro: &regress::Repro,
    force: bool,
    rtl: Option<PathBuf>,
    (waves, waves_format): (Option<PathBuf>, WaveFormat),
) -> Result<ExitCode> {
    let root = rtl.unwrap_or_else(|| repro.rtl_dir.clone());
    regress::check_rtl_hash::<B>(repro, &root, force)?;
    if let Some(w) = &waves {
        outputs::probe_dir(w, "--waves")?;
    }
    let libs = regress::LibCache::default();
    let (lib, _) = libs.get::<B>(&root, repro.profile)?;
    let mut r = repro.clone();
    r.rtl_dir = root;
    watchdog::catch_stop_signals();
    let mut spec = r.spec(waves.as_deref());
    spec.waves_format = waves_format;
    let mut rtl = gpucosim::rtl::Rtl::load(&lib, B::table())?;
    let out = engine::run::<B>(&spec, &mut rtl, repro.stimulus::<B>()?, None)?;
    let name = repro.name();
    if out.passed() {
        println!(
            "PASS {name}: the {} recorded transactions no longer fail ({} cycles)",
            repro.transaction_count, out.cycles
        );
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", gpucosim::report::report(&spec, &out, B::table()));
    if let Some(e) = &out.vcd_error {
        eprintln!("error: the waveform was not written: {e}");
    }
    let how = match out.mismatches.first() {
        Some(m) => format!("cycle {} on {}", m.cycle, m.signal),
        None => regress::job_message(&out),
    };
    println!(
        "{} {name}: {} ({how})",
        status_word(out.verdict().into()),
        if repro.same_failure(&out) {
            "reproduced exactly as recorded"
        } else {
            "fails, but not as recorded"
        },
    );
    Ok(ExitCode::from(out.exit_code()))
}

/// `, in transaction #N` for the transaction the report shows, if any.
fn in_transaction<T>(out: &engine::Outcome<T>) -> String {
    out.in_flight
        .as_ref()
        .map(|(i, _)| format!(", in transaction #{i}"))
        .unwrap_or_default()
}

/// `A..B` (B excluded) or `A..=B`, as an inclusive range.
fn parse_cycles(s: &str) -> std::result::Result<(u64, u64), String> {
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

/// Whether `name` matches `pat`, where `*` matches any run of characters.
fn glob(pat: &str, name: &str) -> bool {
    match pat.split_once('*') {
        None => pat == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| glob(rest, &tail[i..]))
        }
    }
}

/// `gpucosim waves`: a text waveform from a VCD or a bundle's VCD.
fn cmd_waves(
    file: &std::path::Path,
    signals: &[String],
    cycles: Option<(u64, u64)>,
) -> Result<ExitCode> {
    use gpucosim_waves::text::{first_mismatch, Trace};
    let vcd = if file.is_dir() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(file)
            .map_err(|e| Error::Input(format!("cannot read {}: {e}", file.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "vcd" || x == "fst")
                    && !p.to_string_lossy().ends_with(".rtl.vcd")
            })
            .collect();
        found.sort();
        match found.len() {
            1 => found.remove(0),
            0 => {
                return Err(Error::Input(format!(
                    "{} holds no waveform (a bundle of a run with --waves has one, VCD or FST)",
                    file.display()
                )))
            }
            _ => {
                return Err(Error::Input(format!(
                    "{} holds several waveforms; name one: {}",
                    file.display(),
                    found
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    } else {
        file.to_path_buf()
    };
    if !vcd.is_file() {
        return Err(Error::Input(format!("no such file: {}", vcd.display())));
    }
    // An FST is read as the VCD it holds.
    let transcoded = if vcd.extension().is_some_and(|e| e == "fst") {
        let mut t = tempfile::NamedTempFile::new()
            .map_err(|e| Error::Env(format!("a temporary file for {}: {e}", vcd.display())))?;
        {
            let mut w = std::io::BufWriter::new(t.as_file_mut());
            fst_vcd::fst_to_vcd(&vcd, &mut w).map_err(|e| {
                Error::Input(format!("{} is not a gpucosim FST: {e}", vcd.display()))
            })?;
        }
        Some(t)
    } else {
        None
    };
    let shown = vcd.clone();
    let vcd = transcoded
        .as_ref()
        .map_or(vcd.clone(), |t| t.path().to_path_buf());
    let kind = if transcoded.is_some() { "FST" } else { "VCD" };
    let bad = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput => {
            Error::Input(format!("{} is not a gpucosim {kind}: {e}", shown.display()))
        }
        _ => Error::Input(format!("cannot read {}: {e}", shown.display())),
    };
    let first = first_mismatch(&vcd).map_err(bad)?;
    let range = match (cycles, &first) {
        (Some(r), _) => r,
        (None, Some((c, _))) => (c.saturating_sub(7), c + 2),
        (None, None) => (0, u64::MAX),
    };
    let diverging: Vec<String> = first.as_ref().map(|f| f.1.clone()).unwrap_or_default();
    let mut unmatched: Vec<&String> = Vec::new();
    let mut names_seen: Vec<String> = Vec::new();
    let trace = Trace::read_vcd(&vcd, Some(range), |d| {
        let mut picks = Vec::new();
        let outputs: Vec<(&str, u32)> = d.of_scope("model").collect();
        names_seen = d
            .of_scope("in")
            .map(|(n, _)| format!("in.{n}"))
            .chain(outputs.iter().map(|(n, _)| n.to_string()))
            .collect();
        if signals.is_empty() {
            // The diverging ports, or every output when nothing diverged.
            for (name, width) in &outputs {
                let port = name.split('[').next().unwrap_or(name);
                if diverging.is_empty() || diverging.iter().any(|p| p == port) {
                    // Every 64-bit slice of a wide port; those that do not
                    // differ are dropped below.
                    for lsb in (0..*width).step_by(64) {
                        picks.extend(d.pick("model", name, lsb));
                    }
                }
            }
            return picks;
        }
        unmatched = signals.iter().collect();
        for (name, _) in d.of_scope("in") {
            if signals.iter().any(|p| glob(p, &format!("in.{name}"))) {
                picks.extend(d.pick("in", name, 0));
            }
        }
        for (name, _) in &outputs {
            let hit = |p: &String| {
                glob(p, name)
                    || glob(p, &format!("model.{name}"))
                    || glob(p, &format!("rtl.{name}"))
            };
            if signals.iter().any(hit) {
                picks.extend(d.pick("model", name, 0));
            }
        }
        unmatched.retain(|p| {
            !d.of_scope("in").any(|(n, _)| glob(p, &format!("in.{n}")))
                && !outputs.iter().any(|(n, _)| {
                    glob(p, n) || glob(p, &format!("model.{n}")) || glob(p, &format!("rtl.{n}"))
                })
        });
        picks
    })
    .map_err(bad)?;
    if let Some(p) = unmatched.first() {
        return Err(Error::Input(format!(
            "no signal matches `{p}` in {} (it has {}, …)",
            shown.display(),
            names_seen
                .iter()
                .take(6)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if trace.cycles.is_empty() {
        return Err(Error::Input(format!(
            "{} holds no cycle in {}..={}",
            shown.display(),
            range.0,
            range.1
        )));
    }
    // Without a range, at most the last cycles of a long file.
    let trace = if cycles.is_none() && first.is_none() {
        trace.last(10)
    } else {
        trace
    };
    // For an array, only the elements that differ somewhere in the range
    // (all of them when none does).
    let mut trace = trace;
    let mut more = Vec::new();
    if signals.is_empty() {
        let differs = |r: &gpucosim_waves::text::Row| r.rtl.as_ref().is_some_and(|x| *x != r.model);
        if trace.rows.iter().any(differs) {
            trace.rows.retain(differs);
        }
        // At most 8 rows per port.
        let mut per_port = std::collections::BTreeMap::<String, usize>::new();
        trace.rows.retain(|r| {
            let port = r
                .pick
                .name
                .split('[')
                .next()
                .unwrap_or_default()
                .to_string();
            let n = per_port.entry(port).or_default();
            *n += 1;
            *n <= 8
        });
        for (port, n) in per_port.into_iter().filter(|(_, n)| *n > 8) {
            more.push(format!(
                "… and {} more of {port} (--signals '{port}[*' shows them all)",
                n - 8
            ));
        }
    }
    if let Some((c, ports)) = &first {
        println!(
            "{}: first divergence at cycle {c} on {}",
            shown.display(),
            ports.join(", ")
        );
    }
    print!("{}", trace.render());
    for m in more {
        println!("{m}");
    }
    Ok(ExitCode::SUCCESS)
}
