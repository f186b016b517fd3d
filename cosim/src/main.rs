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
    let cli = cli::Cli::parse();
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
