//! Builds (or takes from the cache) the bare Verilator loop of a unit and
//! profile, records the driver's inputs for a number of cycles, and prints
//! the executable and the input file, so the bare loop can be run under a
//! profiler:
//!
//! ```sh
//! cargo run --release --example bare_inputs -- ta gfx9 20000 /tmp/prof
//! valgrind --tool=callgrind EXE /tmp/prof/ta.gfx9.20000.bin
//! ```
//!
//! Instructions per cycle: run it for two cycle counts and divide the
//! difference of the totals by the difference of the counts (the first
//! cycles of a seed are the same whatever the count, so set-up cancels).
//! `GPUCOSIM_RTL` chooses another RTL tree; `GPUCOSIM_BUILD=quick` the
//! quick flavor.

use gpucosim::benchmark;
use gpucosim::error::{Error, Result};
use gpucosim::{
    build_bare, cache_root, rtl_root, with_testbench, BuildRequest, RtlSources, Verilator,
};
use gpucosim_model::profile::Profile;
use std::path::PathBuf;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [unit, profile, cycles, dir] = &args[..] else {
        return Err(Error::Input(
            "usage: bare_inputs UNIT PROFILE CYCLES DIR".into(),
        ));
    };
    let profile: Profile = profile
        .parse()
        .map_err(|e| Error::Input(format!("{profile}: {e}")))?;
    let cycles: u64 = cycles
        .parse()
        .map_err(|_| Error::Input(format!("{cycles}: not a cycle count")))?;
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let (exe, file) = with_testbench!(unit.as_str(), B => {
        let table = <B as gpucosim::testbench::Testbench>::table();
        let cache = cache_root();
        let sources = RtlSources::collect(&rtl_root(None), table.unit)?;
        let v = Verilator::locate(&cache)?;
        let req = BuildRequest { table, profile, sources: &sources, trace: false, coverage: false };
        let exe = build_bare(&req, &v, &cache)?.lib;
        let rec = gpucosim::engine::record_inputs::<B>(profile, 1, cycles)?;
        let file = dir.join(format!("{unit}.{profile}.{cycles}.bin"));
        benchmark::write_inputs(&file, &rec)?;
        Ok::<_, Error>((exe, file))
    })?;
    println!("{} {}", exe.display(), file.display());
    Ok(())
}
