//! `gpucosim decode-waitcnt`: an `s_waitcnt` word or immediate decoded into
//! its counter thresholds.

use super::args::profile_help;
use gpucosim::error::{Error, Result};
use gpucosim::units;
use gpucosim_model::Profile;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct DecodeArgs {
    #[arg(long, help = profile_help())]
    profile: Profile,
    /// The instruction word or immediate (hex with 0x, or decimal).
    word: String,
}

pub(crate) fn run(a: DecodeArgs) -> Result<ExitCode> {
    let text =
        units::waitcnt::eval::decode_waitcnt_text(a.profile, &a.word).map_err(Error::Input)?;
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
