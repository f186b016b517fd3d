//! `gpucosim build`: a unit's RTL built (or found in the cache), its
//! library's path printed.

use super::args::{RtlArg, Target};
use gpucosim::error::Result;
use gpucosim::with_testbench;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct BuildArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    rtl: RtlArg,
}

pub(crate) fn run(a: BuildArgs) -> Result<ExitCode> {
    let root = a.rtl.root();
    let target = a.target;
    with_testbench!(target.unit.as_str(), B => {
        let (_, built) = gpucosim::load_rtl::<B>(&root, target.profile, false)?;
        println!("{}", built.lib.display());
        Ok(ExitCode::SUCCESS)
    })
}
