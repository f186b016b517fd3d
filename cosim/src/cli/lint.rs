//! `gpucosim lint`: every unit's RTL (or one's) through `verilator
//! --lint-only -Wall` for every profile.

use super::args::RtlArg;
use gpucosim::error::{Error, Result};
use gpucosim::units;
use gpucosim_model::Profile;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct LintArgs {
    /// Only this unit.
    #[arg(long)]
    unit: Option<String>,
    #[command(flatten)]
    rtl: RtlArg,
}

pub(crate) fn run(a: LintArgs) -> Result<ExitCode> {
    let root = a.rtl.root();
    let cache = gpucosim::cache_root();
    let v = gpucosim::Verilator::locate(&cache)?;
    let mut findings = 0;
    for t in units::port_tables() {
        if a.unit.as_deref().is_some_and(|u| u != t.unit) {
            continue;
        }
        let sources = gpucosim::RtlSources::collect(&root, t.unit)?;
        for profile in Profile::all() {
            match gpucosim::lint_rtl(t, profile, &sources, &v)? {
                None => println!("lint {} {}: clean", t.unit, profile),
                Some(text) => {
                    findings += 1;
                    println!("lint {} {}: FINDINGS\n{text}", t.unit, profile);
                }
            }
        }
    }
    if let Some(u) = a.unit {
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
