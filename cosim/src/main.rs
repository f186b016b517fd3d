//! The `gpucosim` command line: the entry point. The commands, their
//! arguments and the exit codes are in `cli`.

mod cli;
mod fst_vcd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A file-size limit (`ulimit -f`) makes a write fail like a full disk
    // does, instead of killing the process with everything unwritten.
    // SAFETY: called before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = match cli::Cli::try_parse() {
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
    cli::init_logging(cli.log);
    match cli::dispatch(cli.cmd, cli.log) {
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
