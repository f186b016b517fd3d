//! The `gpucosim` command line: the entry point. The commands, their
//! arguments and the exit codes are the library's `cli` module.

fn main() -> std::process::ExitCode {
    gpucosim::cli::main()
}
