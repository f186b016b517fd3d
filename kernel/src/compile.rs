//! `gpucosim kernel compile`: OpenCL C to the assembly the checker and the
//! emulator read, with the OpenCL built-ins (`get_local_id`, `barrier`, …)
//! linked in from libclc, so that the kernels make no calls
//! (docs/kernels.md "Compiling OpenCL"): clang compiles to LLVM bitcode,
//! `llvm-link --only-needed` links the built-ins the kernel uses from
//! libclc's `amdgcn--amdhsa.bc`, and clang compiles the result to
//! assembly.

use gpucosim_model::Profile;
use gpucosim_tb::error::{Error, Result};
use std::path::PathBuf;
use std::process::Command;

/// What to compile and how.
#[derive(Debug, Clone)]
pub struct CompileRequest {
    /// The OpenCL C source.
    pub source: PathBuf,
    /// The target: `gfx900` (gfx9) or `gfx1100` (gfx11).
    pub profile: Profile,
    /// Preprocessor definitions (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// Include directories.
    pub includes: Vec<PathBuf>,
    /// Extra clang options for the first step (e.g. `-mwavefrontsize64`).
    pub clang_args: Vec<String>,
}

/// The tools a compilation runs.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// clang (19).
    pub clang: PathBuf,
    /// llvm-link (19).
    pub llvm_link: PathBuf,
    /// libclc's built-ins for `amdgcn--amdhsa`.
    pub libclc: PathBuf,
}

impl Toolchain {
    /// Finds the tools: `$GPUCOSIM_CLANG`, `$GPUCOSIM_LLVM_LINK` and
    /// `$GPUCOSIM_LIBCLC`, else clang-19, llvm-link-19 and
    /// `/usr/lib/clc/amdgcn--amdhsa.bc` as Debian installs them.
    pub fn locate() -> Result<Toolchain> {
        let find = |var: &str, candidates: &[&str]| {
            super::locate_tool(
                var,
                candidates,
                &format!(
                    "{} not found: `gpucosim kernel compile` needs clang-19, llvm-link-19 and libclc-19 (Debian: apt-get install clang-19 libclc-19), or set {var}",
                    candidates[0]
                ),
            )
        };
        Ok(Toolchain {
            clang: find(
                "GPUCOSIM_CLANG",
                &["clang-19", "/usr/lib/llvm-19/bin/clang"],
            )?,
            llvm_link: find(
                "GPUCOSIM_LLVM_LINK",
                &["llvm-link-19", "/usr/lib/llvm-19/bin/llvm-link"],
            )?,
            libclc: find("GPUCOSIM_LIBCLC", &["/usr/lib/clc/amdgcn--amdhsa.bc"])?,
        })
    }
}

/// The clang `-mcpu` of a profile.
pub fn mcpu(profile: Profile) -> &'static str {
    if profile.gfx() == 9 {
        "gfx900"
    } else {
        "gfx1100"
    }
}

fn run(mut cmd: Command, what: &str) -> Result<()> {
    let out = cmd.output().map_err(|e| {
        Error::Input(format!(
            "{what}: cannot run {}: {e}",
            cmd.get_program().to_string_lossy()
        ))
    })?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stderr);
    let first = text
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| text.lines().next())
        .unwrap_or("no output");
    Err(Error::Input(format!("{what} failed: {}", first.trim())))
}

/// Compiles `req` with `tools` and returns the assembly text.
pub fn compile(req: &CompileRequest, tools: &Toolchain) -> Result<String> {
    if !req.source.is_file() {
        return Err(Error::Input(format!(
            "{}: no such OpenCL source file",
            req.source.display()
        )));
    }
    let tmp =
        tempfile::tempdir().map_err(|e| Error::Input(format!("a temporary directory: {e}")))?;
    let (bc, linked, asm) = (
        tmp.path().join("kernel.bc"),
        tmp.path().join("linked.bc"),
        tmp.path().join("kernel.s"),
    );
    let cpu = format!("-mcpu={}", mcpu(req.profile));
    let mut c = Command::new(&tools.clang);
    c.args(["-x", "cl", "-cl-std=CL2.0", "-cl-kernel-arg-info"])
        .args(["-target", "amdgcn-amd-amdhsa", &cpu, "-nogpulib", "-O2"])
        .args(["-emit-llvm", "-c"]);
    for d in &req.defines {
        c.arg(format!("-D{d}"));
    }
    for i in &req.includes {
        c.arg("-I").arg(i);
    }
    c.args(&req.clang_args).arg(&req.source).arg("-o").arg(&bc);
    run(c, &format!("compiling {}", req.source.display()))?;
    let mut l = Command::new(&tools.llvm_link);
    l.arg("--only-needed")
        .arg(&bc)
        .arg(&tools.libclc)
        .arg("-o")
        .arg(&linked);
    run(l, "linking the OpenCL built-ins (llvm-link)")?;
    let mut s = Command::new(&tools.clang);
    s.args([
        "-target",
        "amdgcn-amd-amdhsa",
        &cpu,
        "-nogpulib",
        "-O2",
        "-S",
    ])
    .args(&req.clang_args)
    .arg(&linked)
    .arg("-o")
    .arg(&asm);
    run(s, "compiling the linked kernel to assembly")?;
    let text = std::fs::read_to_string(&asm).map_err(|e| Error::io(&asm, e))?;
    // A call left is a built-in libclc does not provide (or a function of
    // the program's own that the inliner kept): the checker cannot follow
    // it, so it is an error here, named.
    let prog = super::asm::parse(&text).map_err(|e| {
        Error::Input(format!(
            "{}: the compiled assembly: {e}",
            req.source.display()
        ))
    })?;
    for k in prog
        .kernels
        .iter()
        .chain(prog.functions.iter().map(|f| &f.code))
    {
        if let Some(at) = k
            .insts
            .iter()
            .position(|i| matches!(i.mnemonic.as_str(), "s_swappc_b64" | "s_call_b64"))
        {
            let callee = super::check::callee(k, at).unwrap_or_else(|| "?".into());
            return Err(Error::Input(format!(
                "{}: the compiled `{}` still calls `{callee}` (`{}`): a built-in libclc does not define, or a function not inlined",
                req.source.display(),
                k.name,
                k.insts[at].text()
            )));
        }
    }
    Ok(text)
}
