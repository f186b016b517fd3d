//! Real kernels through the waitcnt rules: AMDGPU assembly (`clang -S` or
//! `llvm-objdump -d` output, or a code object read through
//! `llvm-objdump`) read into kernels ([`asm`]), each instruction
//! classified by the instruction table ([`table`], data in
//! `instructions.txt`), and the proof that every kernel's waits are
//! enough, with the waits that could wait less ([`check`]). A kernel
//! replayed through the waitcnt unit ([`waitcnt_stim`]), or a launch of it
//! emulated ([`emu`]), is run in lock-step by gpucosim's
//! `kernel::launch_run`, for `gpucosim kernel run` and `gpucosim regress`
//! alike. `gpucosim kernel check`; docs/kernels.md.
//!
//! A crate of its own, so that the release profile builds it at full
//! optimisation (the emulator is the hot path of `kernel profile`) while it
//! builds the co-simulator's orchestration at opt-level 1 (Cargo.toml).

pub mod asm;
pub mod check;
pub mod compile;
pub mod emu;
pub mod table;
pub mod waitcnt_stim;

use check::{needed_text, wait_text, BarrierFence, HazardKind, KernelFlow};
use gpucosim_model::Profile;
use gpucosim_tb::error::{Error, Result};
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// An LLVM tool: `$var` if set (which must then be a file), else the first
/// of `candidates` found (a bare name on PATH, an absolute path as it is);
/// `missing` is the error when none is.
pub fn locate_tool(var: &str, candidates: &[&str], missing: &str) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::Env(format!("{var}={} is not a file", p.display())))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    candidates
        .iter()
        .find_map(|c| {
            let c = Path::new(c);
            if c.is_absolute() {
                c.is_file().then(|| c.to_path_buf())
            } else {
                std::env::split_paths(&path)
                    .map(|d| d.join(c))
                    .find(|p| p.is_file())
            }
        })
        .ok_or_else(|| Error::Env(missing.to_string()))
}

/// `llvm-objdump`: `$GPUCOSIM_LLVM_OBJDUMP`, else `llvm-objdump-19` on
/// PATH, else Debian's `/usr/lib/llvm-19/bin/llvm-objdump`, else
/// `llvm-objdump` on PATH (an older one may not know gfx11).
pub fn locate_objdump() -> Result<PathBuf> {
    locate_tool(
        "GPUCOSIM_LLVM_OBJDUMP",
        &["llvm-objdump-19", "/usr/lib/llvm-19/bin/llvm-objdump", "llvm-objdump"],
        "reading a code object needs llvm-objdump: install it (Debian: apt-get install llvm-19) or set GPUCOSIM_LLVM_OBJDUMP, or pass assembly (clang -S, llvm-objdump -d output)",
    )
}

/// `e_machine` of an AMDGPU code object.
const EM_AMDGPU: u16 = 224;

/// The name of an ELF `e_machine`, for the ones a user may have at hand.
fn machine_name(m: u16) -> Option<&'static str> {
    Some(match m {
        2 => "SPARC",
        3 => "x86 (i386)",
        8 => "MIPS",
        20 => "PowerPC",
        21 => "PowerPC 64",
        22 => "s390",
        40 => "ARM",
        43 => "SPARC V9",
        62 => "x86-64",
        183 => "AArch64",
        190 => "NVIDIA CUDA",
        243 => "RISC-V",
        247 => "BPF",
        258 => "LoongArch",
        _ => return None,
    })
}

/// Checks that an ELF file is an AMDGPU code object (64-bit,
/// little-endian, `e_machine` EM_AMDGPU); the error says what it is
/// instead.
#[doc(hidden)]
pub fn check_elf(shown: &str, bytes: &[u8]) -> Result<()> {
    let not = |what: String| {
        Err(Error::Input(format!(
            "{shown} is {what}, not an AMDGPU code object (ELF e_machine {EM_AMDGPU}): give a code object, or assembly (clang -S, llvm-objdump -d output)"
        )))
    };
    let big = bytes.get(5) == Some(&2);
    let Some(m) = bytes.get(0x12..0x14) else {
        return not("a truncated ELF file".into());
    };
    let m = if big {
        u16::from_be_bytes([m[0], m[1]])
    } else {
        u16::from_le_bytes([m[0], m[1]])
    };
    if m != EM_AMDGPU {
        return not(match machine_name(m) {
            Some(n) => format!("an ELF file for {n} (e_machine {m})"),
            None => format!("an ELF file for machine {m}"),
        });
    }
    if bytes.get(4) != Some(&2) || big {
        return not("a 32-bit or big-endian AMDGPU ELF file".into());
    }
    Ok(())
}

/// The processor an AMDGPU code object is for, from its ELF header's
/// `EF_AMDGPU_MACH` (the low byte of `e_flags`), when it is one of the
/// profiles' reference processors.
#[doc(hidden)]
pub fn elf_target(bytes: &[u8]) -> Option<&'static str> {
    // ELF64: e_flags at 0x30, little-endian.
    let flags = u32::from_le_bytes(bytes.get(0x30..0x34)?.try_into().ok()?);
    match flags & 0xff {
        0x2c => Some("gfx900"),
        0x41 => Some("gfx1100"),
        _ => None,
    }
}

/// The kernels of an ELF64 code object: its `NAME.kd` symbols (kernel
/// descriptors), read from the symbol table. `None` when the file has no
/// symbol table, no such symbol, or is cut short.
#[doc(hidden)]
pub fn elf_kernels(bytes: &[u8]) -> Option<HashSet<String>> {
    // Little-endian fields at `base + off`, every offset checked.
    let field = |base: usize, off: usize, n: usize| -> Option<&[u8]> {
        let at = base.checked_add(off)?;
        bytes.get(at..at.checked_add(n)?)
    };
    let u16_at = |b, o| Some(u16::from_le_bytes(field(b, o, 2)?.try_into().ok()?));
    let u32_at = |b, o| Some(u32::from_le_bytes(field(b, o, 4)?.try_into().ok()?));
    let u64_at = |b, o| usize::try_from(u64::from_le_bytes(field(b, o, 8)?.try_into().ok()?)).ok();
    let shoff = u64_at(0, 0x28)?;
    let shentsize = usize::from(u16_at(0, 0x3a)?);
    let shnum = usize::from(u16_at(0, 0x3c)?);
    let section = |i: usize| shoff.checked_add(i.checked_mul(shentsize)?);
    let mut names = HashSet::new();
    for i in 0..shnum {
        let sh = section(i)?;
        // SHT_SYMTAB
        if u32_at(sh, 4)? != 2 {
            continue;
        }
        let (off, size, entsize) = (u64_at(sh, 24)?, u64_at(sh, 32)?, u64_at(sh, 56)?);
        let strtab = section(usize::try_from(u32_at(sh, 40)?).ok()?)?;
        let strings = field(0, u64_at(strtab, 24)?, u64_at(strtab, 32)?)?;
        if entsize < 24 {
            return None;
        }
        for k in 0..size / entsize {
            let name = usize::try_from(u32_at(off, k.checked_mul(entsize)?)?).ok()?;
            let raw = strings.get(name..)?;
            let end = raw.iter().position(|&b| b == 0)?;
            if let Some(n) = std::str::from_utf8(&raw[..end])
                .ok()
                .and_then(|n| n.strip_suffix(".kd"))
            {
                names.insert(n.to_string());
            }
        }
    }
    (!names.is_empty()).then_some(names)
}

/// The processor `llvm-objdump --mcpu` takes for a profile.
fn mcpu(profile: Profile) -> &'static str {
    match profile.gfx() {
        9 => "gfx900",
        _ => "gfx1100",
    }
}

/// The profile of a processor name (`gfx900` → gfx9, `gfx1100` → gfx11).
pub fn profile_of_target(cpu: &str) -> Option<Profile> {
    let digits = cpu.strip_prefix("gfx")?;
    let major: u32 = if digits.len() >= 4 {
        digits[..2].parse().ok()?
    } else {
        digits[..1].parse().ok()?
    };
    gpucosim_model::profile::PROFILES
        .iter()
        .find(|(p, _)| p.gfx() == major)
        .map(|(p, _)| *p)
}

/// Reads a kernel file: assembly text, or a code object (ELF) read through
/// `llvm-objdump -d` for `profile`. Returns the program and the profile it
/// is for (the one given, else the one the file names); a file whose
/// target is another profile's is an error.
pub fn read(path: &Path, profile: Option<Profile>) -> Result<(asm::Program, Profile)> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let shown = path.display();
    let mut target = None;
    let mut kernels = None;
    let text = if bytes.starts_with(b"\x7fELF") {
        check_elf(&shown.to_string(), &bytes)?;
        target = elf_target(&bytes);
        kernels = elf_kernels(&bytes);
        if let (Some(p), Some(t)) = (profile, target) {
            if let Some(q) = profile_of_target(t).filter(|&q| q != p) {
                return Err(Error::Input(format!("{shown} targets {t} ({q}), not {p}")));
            }
        }
        let p = profile
            .or_else(|| target.and_then(profile_of_target))
            .ok_or_else(|| {
                Error::Input(format!(
                    "{shown} is a code object for a processor that is no profile's reference (gfx900, gfx1100): give --profile"
                ))
            })?;
        let tool = locate_objdump()?;
        let out = std::process::Command::new(&tool)
            .arg("-d")
            .arg(format!("--mcpu={}", mcpu(p)))
            .arg(path)
            .output()
            .map_err(|e| Error::Env(format!("cannot run {}: {e}", tool.display())))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(Error::Input(format!(
                "{} -d {shown} failed: {}",
                tool.display(),
                err.lines().next().unwrap_or("").trim()
            )));
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        let binary = || {
            Error::Input(format!(
                "{shown} is neither text (assembly) nor a code object: binary data without an ELF header"
            ))
        };
        if bytes.contains(&0) {
            return Err(binary());
        }
        String::from_utf8(bytes).map_err(|_| binary())?
    };
    let names = match &kernels {
        Some(k) => asm::KernelNames::These(k),
        None => asm::KernelNames::FromText,
    };
    let mut prog =
        asm::parse_with(&text, names).map_err(|e| Error::Input(format!("{shown}: {e}")))?;
    if prog.target.is_none() {
        prog.target = target.map(str::to_string);
    }
    let named = prog.target.as_deref().map(|t| (t, profile_of_target(t)));
    let profile = match (profile, named) {
        (Some(p), Some((t, Some(q)))) if p != q => {
            return Err(Error::Input(format!("{shown} targets {t} ({q}), not {p}")))
        }
        (Some(p), _) => p,
        (None, Some((_, Some(q)))) => q,
        (None, Some((t, None))) => {
            return Err(Error::Input(format!(
                "{shown} targets {t}, which is no profile's: give --profile"
            )))
        }
        (None, None) => {
            return Err(Error::Input(format!(
                "{shown} does not name its target: give --profile"
            )))
        }
    };
    Ok((prog, profile))
}

/// One instruction in a report.
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    /// 1-based line in the file.
    pub line: usize,
    /// Byte address (objdump input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addr: Option<u64>,
    /// The instruction as written.
    pub text: String,
}

impl Place {
    fn of(i: &asm::Inst) -> Place {
        Place {
            line: i.line,
            addr: i.addr,
            text: i.text(),
        }
    }
}

/// A hazard in a report.
#[derive(Debug, Clone, Serialize)]
pub struct HazardReport {
    /// RAW or WAW.
    pub kind: HazardKind,
    /// The instruction that reads or writes.
    pub at: Place,
    /// The memory instruction that may not have returned.
    pub by: Place,
    /// The registers, as assembly writes them.
    pub registers: String,
    /// The counter to wait on (`vm`, `lgkm`, `exp`, `vs`).
    pub counter: &'static str,
    /// The largest threshold that proves the producer returned.
    pub threshold: u32,
    /// That wait as an instruction.
    pub wait: String,
}

/// A redundant wait in a report.
#[derive(Debug, Clone, Serialize)]
pub struct RedundantReport {
    /// The wait.
    pub at: Place,
    /// The weakest safe wait (`no wait` if it can go).
    pub weakest: String,
    /// Whether it can go altogether.
    pub removable: bool,
    /// By how much each counter's threshold could rise (vm, lgkm, exp, vs).
    pub slack: [u32; 4],
    /// Next to a barrier or cache invalidate: not needed for registers,
    /// but the memory model (release, acquire) may need it.
    pub at_fence: bool,
}

/// What `kernel check` found in one kernel.
#[derive(Debug, Clone, Serialize)]
pub struct KernelReport {
    /// The kernel's symbol.
    pub kernel: String,
    /// Its instructions.
    pub instructions: usize,
    /// Its waits.
    pub waits: usize,
    /// Proven safe: no hazard.
    pub safe: bool,
    /// Every hazard.
    pub hazards: Vec<HazardReport>,
    /// The waits that could wait less with no register hazard (only for a
    /// safe kernel), those at fences flagged.
    pub redundant: Vec<RedundantReport>,
    /// The cost of the waits that are more than the registers need: the
    /// slack of the redundant waits not at fences, summed per counter (vm,
    /// lgkm, exp, vs).
    pub slack: [u32; 4],
}

/// A function of the file that was not checked.
#[derive(Debug, Clone, Serialize)]
pub struct SkippedReport {
    /// Its symbol.
    pub function: String,
    /// The line it starts at.
    pub line: usize,
    /// Why it was skipped.
    pub reason: String,
}

/// What `kernel check` found in a file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// The file.
    pub file: String,
    /// The profile.
    pub profile: String,
    /// What `s_barrier` fences (`none`, `local`, `global`:
    /// [`BarrierFence`]).
    pub barrier_fence: String,
    /// Each kernel, in file order.
    pub kernels: Vec<KernelReport>,
    /// The functions that are not kernels and that no kernel calls, in file
    /// order: not checked.
    pub skipped: Vec<SkippedReport>,
}

impl FileReport {
    /// Whether every kernel is proven safe.
    pub fn safe(&self) -> bool {
        self.kernels.iter().all(|k| k.safe)
    }
}

/// Checks every kernel of a program, barriers being fences as `fence`
/// says.
pub fn check_program(
    file: &str,
    prog: &asm::Program,
    profile: Profile,
    fence: BarrierFence,
) -> Result<FileReport> {
    let mut kernels = Vec::new();
    for k in &prog.kernels {
        // gfx11's WGP mode (`.amdhsa_workgroup_processor_mode`, 1 unless
        // the descriptor says 0).
        let wgp = prog.descriptors.get(&k.name).is_none_or(|d| {
            d.iter()
                .find(|(n, _)| n == "workgroup_processor_mode")
                .is_none_or(|(_, v)| v.trim() != "0")
        });
        let pr = KernelFlow::with_acquire(k, profile, fence, wgp)
            .map_err(|e| Error::Input(format!("{file}: kernel {}: {e}", k.name)))?;
        let hazards: Vec<HazardReport> = pr
            .hazards(None)
            .into_iter()
            .map(|h| {
                let stale = h.kind == HazardKind::Stale;
                HazardReport {
                    kind: h.kind,
                    at: Place::of(&k.insts[h.at]),
                    by: Place::of(&k.insts[h.by]),
                    registers: if stale {
                        "memory".into()
                    } else {
                        h.regs.text()
                    },
                    counter: if stale { "none" } else { h.counter.name() },
                    threshold: h.needed,
                    wait: if stale {
                        "buffer_gl0_inv".into()
                    } else {
                        needed_text(profile, h.counter, h.needed)
                    },
                }
            })
            .collect();
        let redundant = if hazards.is_empty() {
            pr.redundant()
                .into_iter()
                .map(|r| {
                    let (a, b) = (r.now.as_array(), r.weakest.as_array());
                    RedundantReport {
                        at: Place::of(&k.insts[r.at]),
                        weakest: wait_text(profile, &r.weakest),
                        removable: r.removable(profile),
                        slack: [0, 1, 2, 3].map(|c| b[c] - a[c]),
                        at_fence: pr.at_fence(r.at),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut slack = [0u32; 4];
        for r in redundant.iter().filter(|r| !r.at_fence) {
            for (t, x) in slack.iter_mut().zip(r.slack) {
                *t += x;
            }
        }
        kernels.push(KernelReport {
            slack,
            kernel: k.name.clone(),
            instructions: k.insts.len(),
            waits: pr.waits().len(),
            safe: hazards.is_empty(),
            hazards,
            redundant,
        });
    }
    // A function a kernel reaches would be a call (or an address taken),
    // which the analysis cannot follow; the call itself is an error of its
    // kernel above, this catches any other reference.
    if let Some(f) = prog.functions.iter().find(|f| f.called_by.is_some()) {
        return Err(Error::Input(format!(
            "{file}: line {}: function `{}` is reached from kernel `{}`: calls are not supported (the control flow cannot be followed)",
            f.code.line,
            f.code.name,
            f.called_by.as_deref().unwrap_or_default()
        )));
    }
    let skipped = prog
        .functions
        .iter()
        .map(|f| SkippedReport {
            function: f.code.name.clone(),
            line: f.code.line,
            reason: "no kernel calls it".into(),
        })
        .collect();
    Ok(FileReport {
        file: file.to_string(),
        profile: profile.name().to_string(),
        barrier_fence: fence.name().to_string(),
        kernels,
        skipped,
    })
}

/// The report as text: per kernel a verdict line, then each hazard and each
/// redundant wait.
pub fn report_text(r: &FileReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for k in &r.kernels {
        let verdict = if k.safe {
            "proven safe".to_string()
        } else {
            format!(
                "{} HAZARD{}",
                k.hazards.len(),
                if k.hazards.len() == 1 { "" } else { "S" }
            )
        };
        let (fence, plain): (Vec<_>, Vec<_>) = k.redundant.iter().partition(|x| x.at_fence);
        let removable = plain.iter().filter(|x| x.removable).count();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let _ = writeln!(
            s,
            "{} {} ({}): {} instructions, {} waits: {verdict}{}",
            if k.safe { "SAFE" } else { "FAIL" },
            k.kernel,
            r.profile,
            k.instructions,
            k.waits,
            if k.safe {
                let slack: Vec<String> = ["vmcnt", "lgkmcnt", "expcnt", "vscnt"]
                    .iter()
                    .zip(k.slack)
                    .filter(|(_, x)| *x > 0)
                    .map(|(n, x)| format!("{n} +{x}"))
                    .collect();
                format!(
                    "; {} redundant wait{} ({removable} removable{}), {} more at fences",
                    plain.len(),
                    plural(plain.len()),
                    if slack.is_empty() {
                        String::new()
                    } else {
                        format!("; slack {}", slack.join(", "))
                    },
                    fence.len()
                )
            } else {
                String::new()
            }
        );
        for h in &k.hazards {
            if h.kind == HazardKind::Stale {
                let _ = writeln!(
                    s,
                    "  STALE {}: `{}` loads after {}: `{}` with no L0 invalidate between: in WGP mode the work-group's waves run on both CUs, whose L0 caches are not coherent, so it may read data older than the barrier; it needs `buffer_gl0_inv` after the barrier",
                    place(&h.at),
                    h.at.text,
                    place(&h.by),
                    h.by.text
                );
                continue;
            }
            let verb = match h.kind {
                HazardKind::Raw => "reads",
                HazardKind::Waw => "writes",
                HazardKind::Fence | HazardKind::Stale => "fences",
            };
            let _ = writeln!(
                s,
                "  {:?} {}: `{}` {verb} {}, which {}: `{}` may not have returned; it needs `{}` before it",
                h.kind,
                place(&h.at),
                h.at.text,
                h.registers,
                place(&h.by),
                h.by.text,
                h.wait
            );
        }
        for x in plain.iter().chain(&fence) {
            let _ = writeln!(
                s,
                "  redundant {}: `{}` could be `{}`{}",
                place(&x.at),
                x.at.text,
                x.weakest,
                if x.at_fence {
                    " for registers (at a fence: the memory model may need it)"
                } else {
                    ""
                }
            );
        }
    }
    for f in &r.skipped {
        let _ = writeln!(s, "skipped function `{}` ({})", f.function, f.reason);
    }
    s
}

fn place(p: &Place) -> String {
    match p.addr {
        Some(a) => format!("line {} ({a:#x})", p.line),
        None => format!("line {}", p.line),
    }
}
