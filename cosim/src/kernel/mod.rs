//! Real kernels through the waitcnt rules: AMDGPU assembly (`clang -S` or
//! `llvm-objdump -d` output, or a code object read through
//! `llvm-objdump`) read into kernels ([`asm`]), each instruction
//! classified by the instruction table ([`table`], data in
//! `instructions.txt`), and the proof that every kernel's waits are
//! enough, with the waits that could wait less ([`check`]).
//! `gpucosim kernel check`; docs/kernels.md.

pub mod asm;
pub mod check;
pub mod emu;
pub mod replay;
pub mod table;

use crate::error::{Error, Result};
use check::{needed_text, wait_text, HazardKind, Program};
use gpucosim_model::Profile;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// `llvm-objdump`: `$GPUCOSIM_LLVM_OBJDUMP`, else `llvm-objdump-19` on
/// PATH, else Debian's `/usr/lib/llvm-19/bin/llvm-objdump`, else
/// `llvm-objdump` on PATH (an older one may not know gfx11).
pub fn locate_objdump() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("GPUCOSIM_LLVM_OBJDUMP") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::Env(format!(
                "GPUCOSIM_LLVM_OBJDUMP={} is not a file",
                p.display()
            )))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = |name: &str| {
        std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    };
    let debian = PathBuf::from("/usr/lib/llvm-19/bin/llvm-objdump");
    on_path("llvm-objdump-19")
        .or_else(|| debian.is_file().then_some(debian))
        .or_else(|| on_path("llvm-objdump"))
        .ok_or_else(|| {
            Error::Env(
                "reading a code object needs llvm-objdump: install it (Debian: apt-get install llvm-19) or set GPUCOSIM_LLVM_OBJDUMP, or pass assembly (clang -S, llvm-objdump -d output)".into(),
            )
        })
}

/// The processor an AMDGPU code object is for, from its ELF header's
/// `EF_AMDGPU_MACH` (the low byte of `e_flags`), when it is one of the
/// profiles' reference processors.
fn elf_target(bytes: &[u8]) -> Option<&'static str> {
    // ELF64: e_flags at 0x30, little-endian.
    let flags = u32::from_le_bytes(bytes.get(0x30..0x34)?.try_into().ok()?);
    match flags & 0xff {
        0x2c => Some("gfx900"),
        0x41 => Some("gfx1100"),
        _ => None,
    }
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
    let text = if bytes.starts_with(b"\x7fELF") {
        target = elf_target(&bytes);
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
        String::from_utf8(bytes).map_err(|_| {
            Error::Input(format!(
                "{shown} is neither text (assembly) nor a code object"
            ))
        })?
    };
    let mut prog = asm::parse(&text).map_err(|e| Error::Input(format!("{shown}: {e}")))?;
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

/// What `kernel check` found in a file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// The file.
    pub file: String,
    /// The profile.
    pub profile: String,
    /// Each kernel, in file order.
    pub kernels: Vec<KernelReport>,
}

impl FileReport {
    /// Whether every kernel is proven safe.
    pub fn safe(&self) -> bool {
        self.kernels.iter().all(|k| k.safe)
    }
}

/// Checks every kernel of a program.
pub fn check_program(file: &str, prog: &asm::Program, profile: Profile) -> Result<FileReport> {
    let mut kernels = Vec::new();
    for k in &prog.kernels {
        let pr = Program::new(k, profile)
            .map_err(|e| Error::Input(format!("{file}: kernel {}: {e}", k.name)))?;
        let hazards: Vec<HazardReport> = pr
            .hazards(None)
            .into_iter()
            .map(|h| HazardReport {
                kind: h.kind,
                at: Place::of(&k.insts[h.at]),
                by: Place::of(&k.insts[h.by]),
                registers: h.regs.text(),
                counter: h.counter.name(),
                threshold: h.needed,
                wait: needed_text(profile, h.counter, h.needed),
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
    Ok(FileReport {
        file: file.to_string(),
        profile: profile.name().to_string(),
        kernels,
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
            let verb = match h.kind {
                HazardKind::Raw => "reads",
                HazardKind::Waw => "writes",
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
    s
}

fn place(p: &Place) -> String {
    match p.addr {
        Some(a) => format!("line {} ({a:#x})", p.line),
        None => format!("line {}", p.line),
    }
}
