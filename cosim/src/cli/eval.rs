//! `gpucosim eval`: the model's answers to JSON requests, without RTL.

use super::args::Target;
use gpucosim::error::{Error, Result};
use gpucosim::units;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct EvalArgs {
    #[command(flatten)]
    target: Target,
    /// Input file; `-` or absent for stdin.
    file: Option<PathBuf>,
    /// One compact JSON result per line, whatever the input's shape
    /// (for scripts).
    #[arg(long)]
    compact: bool,
}

pub(crate) fn run(a: EvalArgs) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (unit, profile, compact) = (&a.target.unit, a.target.profile, a.compact);
    match a.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
            units::eval_stream(unit, profile, f, &mut out, compact)?
        }
        _ => units::eval_stream(unit, profile, std::io::stdin().lock(), &mut out, compact)?,
    }
    Ok(ExitCode::SUCCESS)
}
