//! The `gpucosim` command line: the commands (one module each, holding
//! its arguments and its implementation), the exit codes, the logging set
//! up, the dispatch of a parsed command to its module, and [`main`], the
//! `gpucosim` binary's entry point (its package, `gpucosim-cli` in
//! `cosim/bin/`, holds only that call and the end-to-end tests).

mod args;
mod bench;
mod build;
mod cache;
mod decode;
mod eval;
mod job;
mod kernel;
mod lint;
mod merge;
mod mutate;
mod regress;
mod replay;
mod run;
mod waves;

use clap::{Parser, Subcommand};
use gpucosim::error::Result;
use std::process::ExitCode;
use tracing_subscriber::filter::Targets;

#[derive(Parser)]
#[command(
    name = "gpucosim",
    version,
    about = "Lock-step co-simulation of AMD GPU unit reference models against Verilated RTL",
    after_help = after_help()
)]
struct Cli {
    #[command(flatten)]
    pub log: LogArgs,
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// The command line's definition, for checking it (`debug_assert`).
#[doc(hidden)]
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// The exit codes of every command: (code, meaning). The one table that
/// `--help` shows and README's "Exit codes" repeats (a test keeps them
/// equal).
const EXIT_CODES: &[(&str, &str)] = &[
    ("0", "model and RTL agree; the command succeeded"),
    ("1", "divergence (reported with its cycle, signal, values, transaction, waveform and repro command, also when a waveform or `--json` could not be written); `lint` findings; a `kernel check` hazard; for `regress`/`merge --require-coverage` also a coverage bin never hit, and with `--require-code-coverage` a code coverage floor not met or a stale or needless waiver; for `mutate --min-kill-rate` a kill rate below the floor"),
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

/// What goes to stderr besides results and errors (every command).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct LogArgs {
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

/// The environment variable holding a diagnostics filter: directives
/// separated by commas, each a level (`off`, `error`, `warn`, `info`,
/// `debug`, `trace`) for every target or `TARGET=LEVEL` for the targets a
/// Rust path starts (e.g. `debug` or `info,gpucosim::rtlbuild=trace`; see
/// [`parse_filter`]). Without it, and without `-v` or `--quiet`, notes,
/// warnings and errors are shown.
const LOG_ENV: &str = "GPUCOSIM_LOG";

/// The filter `spec` gives ([`LOG_ENV`]'s syntax), or what is wrong with
/// it. Every directive must be a level or `TARGET=LEVEL` with `TARGET` a
/// Rust path: a bare word that is not a level (a misspelt `wran`) is an
/// error, not a target that matches nothing. An empty directive (`info,`)
/// says nothing and is passed over. The most specific directive for an
/// event's target decides; with no bare level, other targets show nothing.
#[doc(hidden)]
pub fn parse_filter(spec: &str) -> std::result::Result<Targets, String> {
    use std::str::FromStr;
    use tracing_subscriber::filter::LevelFilter;
    let level = |s: &str| {
        LevelFilter::from_str(s.trim()).map_err(|_| {
            format!(
                "`{}` is not a level (off, error, warn, info, debug, trace)",
                s.trim()
            )
        })
    };
    let mut filter = Targets::new();
    for directive in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        filter = match directive.split_once('=') {
            None => filter.with_default(level(directive)?),
            Some((target, lvl)) => {
                let target = target.trim();
                let is_path = !target.is_empty()
                    && target.split("::").all(|seg| {
                        seg.chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                            && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    });
                if !is_path {
                    return Err(format!(
                        "`{target}` in `{directive}` is not a target (a Rust path such as gpucosim::rtlbuild)"
                    ));
                }
                filter.with_target(target, level(lvl)?)
            }
        };
    }
    Ok(filter)
}

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
pub(crate) fn init_logging(log: LogArgs) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let from_env = std::env::var(LOG_ENV).ok().filter(|v| !v.trim().is_empty());
    let at = |default, gpucosim| {
        Targets::new()
            .with_default(default)
            .with_target("gpucosim", gpucosim)
    };
    let info = tracing::Level::INFO;
    let mut bad_env = None;
    let filter = match (log.quiet, log.verbose) {
        (true, _) => Targets::new().with_default(tracing::Level::ERROR),
        (false, 1) => at(info, tracing::Level::DEBUG),
        (false, 2..) => at(info, tracing::Level::TRACE),
        (false, 0) => match from_env.as_deref().map(parse_filter) {
            Some(Ok(f)) => f,
            Some(Err(e)) => {
                bad_env = Some(e);
                Targets::new().with_default(info)
            }
            None => Targets::new().with_default(info),
        },
    };
    // The builder's own level (INFO unless told) would come before `filter`.
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .event_format(LogLine)
        .with_writer(std::io::stderr)
        .finish()
        .with(filter)
        .init();
    if let Some(e) = bad_env {
        tracing::warn!("{LOG_ENV} is not a valid filter ({e}); showing notes, warnings and errors");
    }
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Co-simulate one unit and profile with one seed.
    Run(run::RunArgs),
    /// What would the hardware do? Reads JSON requests (FILE or stdin) and
    /// prints the model's JSON results.
    Eval(eval::EvalArgs),
    /// Measure co-simulation speed against a bare Verilator loop (see
    /// docs/benchmarks.md). Run it from a release build.
    Bench(bench::BenchArgs),
    /// Decode an `s_waitcnt` instruction word (e.g. 0xBF8C0070), a gfx11
    /// `s_waitcnt_vscnt null, imm` word (e.g. 0xBC7C0005) or an `s_waitcnt`
    /// 16-bit immediate into the counter thresholds.
    DecodeWaitcnt(decode::DecodeArgs),
    /// Compiled kernels through the waitcnt rules (docs/kernels.md).
    #[command(subcommand)]
    Kernel(kernel::KernelCmd),
    /// Lint the RTL of every unit (or one) for every profile with
    /// `verilator --lint-only -Wall`. Exit 1 on any finding.
    Lint(lint::LintArgs),
    /// Run many seeds across units and profiles in parallel, with a summary
    /// table, JUnit, merged coverage, failure bundles and optional shrinking.
    Regress(Box<regress::RegressArgs>),
    /// Mutation testing: mutate a unit's RTL and count the mutants the
    /// regression kills (one instrumented build runs every mutant;
    /// docs/mutate.md).
    Mutate(mutate::MutateArgs),
    /// Combine the results files of shards into one report.
    Merge(merge::MergeArgs),
    /// The RTL build cache: list its entries (the default) or prune it.
    Cache(cache::CacheArgs),
    /// A worker process of a regression (used by `regress` and `mutate`):
    /// job specs as JSON, one per line on stdin, each result a line on
    /// stdout as it ends.
    #[command(hide = true)]
    Job,
    /// Re-run a failure bundle's exact stimulus.
    #[command(mut_arg("rtl", |a| a.help(
        "Another RTL tree (holding `<unit>/*.sv`) with the same top-level ports, \
         instead of the bundle's. Default: the RTL tree the bundle was written from",
    )))]
    Replay(replay::ReplayArgs),
    /// Minimise a failure bundle's stimulus to one that still diverges.
    Shrink(replay::ShrinkArgs),
    /// Print a text waveform from a VCD gpucosim wrote (or a failure
    /// bundle's): by default the diverging ports, model above RTL, over the
    /// cycles up to the first divergence.
    Waves(waves::ViewArgs),
    /// Build (or find in the cache) a unit's RTL and print the library path.
    Build(build::BuildArgs),
}

impl Cmd {
    /// A command that only streams its results to standard output (no
    /// child processes, no pipes but stdout): like other command-line
    /// tools it ends quietly when the reader goes away (`gpucosim eval … |
    /// head`). Every other command keeps SIGPIPE ignored, so that a pipe
    /// to a child that ended (a regression's job process) is that child's
    /// error, never the end of the whole command.
    pub(crate) fn streams(&self) -> bool {
        match self {
            Cmd::Eval(_) | Cmd::DecodeWaitcnt(_) => true,
            Cmd::Kernel(k) => k.streams(),
            Cmd::Regress(a) => a.list,
            Cmd::Mutate(a) => a.list,
            Cmd::Cache(a) => a.streams(),
            _ => false,
        }
    }
}

/// Runs the command parsed; `log` says whether progress is shown.
pub(crate) fn dispatch(cmd: Cmd, log: LogArgs) -> Result<ExitCode> {
    match cmd {
        Cmd::Run(a) => run::run(a),
        Cmd::Eval(a) => eval::run(a),
        Cmd::Bench(a) => bench::run(a),
        Cmd::DecodeWaitcnt(a) => decode::run(a),
        Cmd::Kernel(k) => kernel::run(k),
        Cmd::Lint(a) => lint::run(a),
        Cmd::Regress(a) => regress::run(*a, log.quiet),
        Cmd::Mutate(a) => mutate::run(a, log.quiet),
        Cmd::Merge(a) => merge::run(a),
        Cmd::Cache(a) => cache::run(a),
        Cmd::Job => job::run(),
        Cmd::Replay(a) => replay::replay(a),
        Cmd::Shrink(a) => replay::shrink(a),
        Cmd::Waves(a) => waves::run(a),
        Cmd::Build(a) => build::run(a),
    }
}

/// The `gpucosim` command: parses the command line, runs the command and
/// returns its exit code. The `gpucosim` binary's `main` is this function,
/// which it calls before any other thread exists (it sets the process's
/// signal dispositions).
pub fn main() -> ExitCode {
    // A file-size limit (`ulimit -f`) makes a write fail like a full disk
    // does, instead of killing the process with everything unwritten.
    // SAFETY: called before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if e.use_stderr()
                && e.kind() != clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            eprintln!("{}", one_line(&e));
            return ExitCode::from(2);
        }
        // --help, --version, and the help of a command given nothing.
        Err(e) => e.exit(),
    };
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

/// A command-line error as one line, as every other error is: clap's
/// message with what it lists under it (the missing arguments, the values
/// possible) and its tip, without the usage and the pointer to `--help`.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut line = String::new();
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if line.is_empty() {
            line.push_str(l);
        } else if l.starts_with("tip:") {
            line.push_str(&format!(" ({l})"));
        } else {
            line.push(' ');
            line.push_str(l);
        }
    }
    line
}
