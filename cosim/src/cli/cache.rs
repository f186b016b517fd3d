//! `gpucosim cache`: the RTL build cache listed or pruned.

use super::args::whole;
use gpucosim::error::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct CacheArgs {
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
}

impl CacheArgs {
    /// Whether the command only prints (a listing), so a reader that goes
    /// away ends it as it ends `ls`.
    pub(crate) fn streams(&self) -> bool {
        !self.prune
    }
}

pub(crate) fn run(a: CacheArgs) -> Result<ExitCode> {
    // Listing is the default: `--list` only says so.
    let _ = a.list;
    let cache = gpucosim::cache_root();
    if a.prune {
        let policy = match a.older_than {
            Some(days) => gpucosim::cache::Prune::UnusedFor(std::time::Duration::from_secs(
                days.saturating_mul(86_400),
            )),
            None => gpucosim::cache::Prune::Superseded,
        };
        let report = gpucosim::cache::prune(&cache, policy, a.dry_run)?;
        print!("{}", gpucosim::cache::format_prune(&report));
    } else {
        let entries = gpucosim::cache::list(&cache)?;
        print!("{}", gpucosim::cache::format_list(&cache, &entries));
    }
    Ok(ExitCode::SUCCESS)
}
