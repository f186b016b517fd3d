//! `gpucosim kernel`: compiled kernels checked against the waitcnt rules
//! (`check`), emulated and profiled (`profile`), and replayed through the
//! units in lock-step (`run`).

use super::args::{profile_help, whole, BundlesArg, LimitArgs, RtlArg, WavesArgs};
use super::run::in_transaction;
use clap::Subcommand;
use gpucosim::engine::{self, RunSpec, Stimulus, Verdict, EXIT_INPUT};
use gpucosim::error::{Error, Result};
use gpucosim::kernel::check::BarrierFence;
use gpucosim::kernel::launch_run::{self, KernelRun, Need, Ran};
use gpucosim::regress;
use gpucosim::testbench::Testbench;
use gpucosim::units::{lds::LdsTestbench, ta::TaTestbench};
use gpucosim_model::Profile;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub(crate) enum KernelCmd {
    /// Prove that each kernel's waits are enough (SPEC §3.3): every RAW and
    /// WAW hazard on any path, under every return order SPEC §3.1 allows,
    /// and the waits that could wait less. Exit 1 on a hazard.
    Check(CheckArgs),
    /// Emulate a launch of a kernel (`--launch`, docs/kernels.md "The
    /// launch") and profile its LDS bank conflicts and buffer cache-line
    /// requests, from the units' models (no RTL is run).
    Profile(ProfileArgs),
    /// Replay each kernel through the waitcnt unit, model and RTL in
    /// lock-step: several waves run it at once along seeded paths, with
    /// seeded latencies and every legal return order. With `--launch`,
    /// instead emulate the launch and run its LDS and buffer instructions
    /// through the LDS and TA units in lock-step. Exit codes as `run`.
    Run(KernelRunArgs),
    /// Compile OpenCL C to the assembly `check`, `profile` and `run` read,
    /// with the OpenCL built-ins (`get_local_id`, `barrier`, …) linked in
    /// from libclc so that the kernels make no calls (clang-19,
    /// llvm-link-19 and libclc-19; docs/kernels.md "Compiling OpenCL").
    Compile(CompileArgs),
}

impl KernelCmd {
    /// Whether the command only streams its results to stdout (see
    /// `Cmd::streams`).
    pub(crate) fn streams(&self) -> bool {
        matches!(self, KernelCmd::Check(_))
    }
}

/// The profile of a kernel file (`--profile`), by default the one its
/// target names.
#[derive(clap::Args)]
struct FileProfile {
    #[arg(long, help = profile_help())]
    profile: Option<Profile>,
}

/// What `s_barrier` fences (`--barrier-fence`), for the proof and the
/// replay's hazards.
#[derive(clap::Args)]
struct FenceArg {
    /// What `s_barrier` fences, as OpenCL's `barrier()` does: `local`
    /// (the LDS stores and LDS DMA loads before it must have completed at
    /// it), `global` (also the vector memory stores), or `none` (the waits
    /// before a barrier are reported "at a fence", not judged). Default:
    /// local.
    #[arg(long, value_parser = |s: &str| s.parse::<BarrierFence>())]
    barrier_fence: Option<BarrierFence>,
}

impl FenceArg {
    fn fence(&self) -> BarrierFence {
        self.barrier_fence.unwrap_or_default()
    }
}

/// The result as JSON (`--json`), to a file or instead of the text.
#[derive(clap::Args)]
struct JsonOut {
    /// Also write the result as JSON to this file (`-` for stdout instead
    /// of the text).
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Assembly (`clang -S` or `llvm-objdump -d` output) or a code
    /// object (read through llvm-objdump).
    file: PathBuf,
    #[command(flatten)]
    profile: FileProfile,
    #[command(flatten)]
    fence: FenceArg,
    #[command(flatten)]
    json: JsonOut,
}

#[derive(clap::Args)]
pub(crate) struct CompileArgs {
    /// The OpenCL C source.
    file: PathBuf,
    /// The target: gfx9 (gfx900) or gfx11 (gfx1100).
    #[arg(long, help = profile_help())]
    profile: Profile,
    /// The assembly to write (default: FILE with `.gfx900.s` or
    /// `.gfx1100.s` for `.cl`, beside it).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// A preprocessor definition (`NAME` or `NAME=VALUE`); repeatable.
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// An include directory; repeatable.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    includes: Vec<PathBuf>,
    /// Wave64 on gfx11 (clang's `-mwavefrontsize64`).
    #[arg(long)]
    wave64: bool,
}

#[derive(clap::Args)]
pub(crate) struct ProfileArgs {
    /// The kernel's assembler output (`clang -S`).
    file: PathBuf,
    /// The launch description (JSON).
    #[arg(long)]
    launch: PathBuf,
    #[command(flatten)]
    profile: FileProfile,
    /// The kernel (default: the launch's `kernel`, else the file's only one).
    #[arg(long)]
    kernel: Option<String>,
    /// Seed of random fills and samples (default: the launch's, else 1).
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long)]
    seed: Option<u64>,
    #[command(flatten)]
    json: JsonOut,
    /// Write a bar chart of conflict cycles per instruction (SVG).
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write each buffer argument's contents after the run (JSON:
    /// dwords as hex, `null` where symbolic).
    #[arg(long)]
    buffers: Option<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct KernelRunArgs {
    /// Assembly or a code object, as for `kernel check`.
    file: PathBuf,
    /// Emulate this launch (JSON) and run its traffic through the LDS
    /// and TA units instead of the waitcnt replay.
    #[arg(long)]
    launch: Option<PathBuf>,
    #[command(flatten)]
    profile: FileProfile,
    /// For the waitcnt replay's hazards, as for `kernel check`.
    #[command(flatten)]
    fence: FenceArg,
    /// Seed of the paths, latencies and interleaving.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, default_value_t = 1)]
    seed: u64,
    /// Only the kernel of this name (default: every kernel).
    #[arg(long)]
    kernel: Option<String>,
    /// Waves running the kernel at once (1-16).
    #[arg(allow_negative_numbers = true, long = "wave-count", default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=16))]
    wave_count: u8,
    /// The most times a backward branch is taken on one path (1-10000;
    /// the waves' paths together walk at most 4,000,000 instructions).
    #[arg(allow_negative_numbers = true, value_parser = whole::<u32>, long, default_value_t = 4)]
    iterations: u32,
    /// Cycle budget per kernel and unit (reset included). Default:
    /// 1000000 for the waitcnt replay; with `--launch`, twice what the
    /// traffic needs at the models' cycle counts.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long)]
    cycles: Option<u64>,
    #[command(flatten)]
    rtl: RtlArg,
    #[command(flatten)]
    waves: WavesArgs,
    #[command(flatten)]
    bundles: BundlesArg,
    #[command(flatten)]
    limits: LimitArgs,
}

pub(crate) fn run(cmd: KernelCmd) -> Result<ExitCode> {
    match cmd {
        KernelCmd::Check(a) => check(a),
        KernelCmd::Profile(a) => profile(a),
        KernelCmd::Compile(a) => compile(a),
        KernelCmd::Run(a) => {
            // Where failure bundles go is checked before anything runs; a
            // directory made for none is removed again.
            let bundles = a.bundles.bundles.clone();
            let existed = bundles.exists();
            gpucosim::probe_dir(&bundles, "--bundles")?;
            let code = match a.launch.clone() {
                Some(launch) => run_launch(a, launch),
                None => run_replay(a),
            };
            if !existed {
                let _ = std::fs::remove_dir(&bundles);
            }
            code
        }
    }
}

/// `kernel compile`: OpenCL C to call-free assembly, written atomically.
fn compile(a: CompileArgs) -> Result<ExitCode> {
    use gpucosim::kernel::compile::{self, CompileRequest, Toolchain};
    if a.wave64 && a.profile.gfx() == 9 {
        return Err(Error::Input(
            "--wave64 is for gfx11: gfx9 is always wave64".into(),
        ));
    }
    let out = a.output.clone().unwrap_or_else(|| {
        a.file
            .with_extension(format!("{}.s", compile::mcpu(a.profile)))
    });
    gpucosim::probe_file(&out, "-o")?;
    gpucosim::refuse_overwrite(&out, "-o", &a.file)?;
    // clang skips an include directory that does not exist without a
    // word; a mistyped one would only show as a missing header, or not.
    if let Some(d) = a.includes.iter().find(|d| !d.is_dir()) {
        return Err(Error::Input(format!(
            "-I {}: no such directory",
            d.display()
        )));
    }
    let tools = Toolchain::locate()?;
    let req = CompileRequest {
        source: a.file.clone(),
        profile: a.profile,
        defines: a.defines,
        includes: a.includes,
        clang_args: if a.wave64 {
            vec!["-mwavefrontsize64".into()]
        } else {
            vec![]
        },
    };
    let text = compile::compile(&req, &tools)?;
    gpucosim::write_atomic(&out, text.as_bytes())?;
    let prog = gpucosim::kernel::asm::parse(&text)
        .map_err(|e| Error::Input(format!("{}: {e}", out.display())))?;
    let names: Vec<&str> = prog.kernels.iter().map(|k| k.name.as_str()).collect();
    println!(
        "wrote {} ({}: {}); check it with: gpucosim kernel check {}",
        out.display(),
        compile::mcpu(a.profile),
        names.join(", "),
        engine::shell_quote(&out.display().to_string())
    );
    Ok(ExitCode::SUCCESS)
}

/// `kernel check`: the proof of a file's kernels, as text or JSON.
fn check(a: CheckArgs) -> Result<ExitCode> {
    let (file, json) = (a.file, a.json.json);
    let json_file = json.as_deref().filter(|j| j.as_os_str() != "-");
    if let Some(j) = json_file {
        gpucosim::probe_file(j, "--json")?;
    }
    let (prog, profile) = gpucosim::kernel::read(&file, a.profile.profile)?;
    let report = gpucosim::kernel::check_program(
        &file.display().to_string(),
        &prog,
        profile,
        a.fence.fence(),
    )?;
    let text = serde_json::to_string_pretty(&report).expect("reports serialise");
    if json.is_some() && json_file.is_none() {
        println!("{text}");
    } else {
        print!("{}", gpucosim::kernel::report_text(&report));
    }
    if let Some(j) = json_file {
        gpucosim::write_atomic(j, format!("{text}\n").as_bytes())?;
    }
    Ok(if report.safe() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `kernel profile`: an emulated launch's profile, as text or JSON, and
/// its chart and buffers.
fn profile(a: ProfileArgs) -> Result<ExitCode> {
    let (file, json, svg, buffers) = (a.file, a.json.json, a.svg, a.buffers);
    for (p, what) in [(&json, "--json"), (&svg, "--svg"), (&buffers, "--buffers")] {
        if let Some(p) = p.as_ref().filter(|p| p.as_os_str() != "-") {
            gpucosim::probe_file(p, what)?;
        }
    }
    let (prog, profile) = gpucosim::kernel::read(&file, a.profile.profile)?;
    let em = gpucosim::kernel::emu::emulate_file(
        &file,
        &prog,
        profile,
        &a.launch,
        a.kernel.as_deref(),
        a.seed,
        false,
    )?;
    approximate_warnings(&file, &em);
    let p = &em.profile;
    let text = serde_json::to_string_pretty(p).expect("a profile serialises") + "\n";
    match &json {
        Some(j) if j.as_os_str() == "-" => print!("{text}"),
        other => {
            print!("{}", p.text());
            println!(
                "emulated {} instructions in {:.3} s ({:.0} instructions/s)",
                p.total.instructions,
                em.seconds,
                p.total.instructions as f64 / em.seconds.max(1e-9)
            );
            if let Some(j) = other {
                gpucosim::write_atomic(j, text.as_bytes())?;
            }
        }
    }
    if let Some(s) = &svg {
        gpucosim::write_atomic(s, p.svg().as_bytes())?;
    }
    if let Some(b) = &buffers {
        let m: serde_json::Map<String, serde_json::Value> = em
            .buffers
            .iter()
            .map(|(n, w)| {
                let v: Vec<serde_json::Value> = w
                    .iter()
                    .map(|x| x.map_or(serde_json::Value::Null, |x| format!("{x:#010x}").into()))
                    .collect();
                (n.clone(), serde_json::Value::Array(v))
            })
            .collect();
        let text = serde_json::to_string(&m).expect("buffers serialise") + "\n";
        gpucosim::write_atomic(b, text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A warning line per place where an approximate floating-point result
/// reached an address, a branch or EXEC.
fn approximate_warnings(file: &std::path::Path, em: &gpucosim::kernel::emu::Emulation) {
    for w in &em.approximate {
        eprintln!("warning: {}: {w}", file.display());
    }
}

/// `kernel run --launch`: the launch emulated, its traffic through the LDS
/// and TA units.
fn run_launch(a: KernelRunArgs, launch: PathBuf) -> Result<ExitCode> {
    let (file, seed, cycles) = (a.file, a.seed, a.cycles);
    if cycles == Some(0) {
        return Err(Error::Input("--cycles must be at least 1".into()));
    }
    if a.fence.barrier_fence.is_some() {
        return Err(Error::Input(
            "--barrier-fence judges the waitcnt replay's hazards; a --launch run has none".into(),
        ));
    }
    a.waves.probe()?;
    let (em, profile) =
        launch_run::emulate(&file, a.profile.profile, &launch, a.kernel.as_deref(), seed)?;
    gpucosim::catch_stop_signals();
    approximate_warnings(&file, &em);
    let p = &em.profile;
    println!(
        "{}: emulated {} instructions in {:.3} s; {} LDS and {} TA transactions",
        p.kernel,
        p.total.instructions,
        em.seconds,
        em.traffic.lds.len(),
        em.traffic.ta.len()
    );
    let unit_run = |unit: &str| KernelRun {
        file: file.clone(),
        kernel: p.kernel.clone(),
        profile,
        unit: unit.to_string(),
        seed,
        launch: Some(launch.clone()),
        waitcnt_stim: None,
        cycles,
        rtl_arg: a.rtl.rtl.clone(),
    };
    let (lds, ta) = (unit_run("lds"), unit_run("ta"));
    let (lds_need, ta_need) = (Need::of(&em, "lds"), Need::of(&em, "ta"));
    let ctx = TrafficRun {
        rtl: &a.rtl.rtl,
        waves: &a.waves,
        bundles: &a.bundles.bundles,
        limits: a.limits,
    };
    let traffic = em.traffic;
    let lds_code = traffic_unit::<LdsTestbench>(&ctx, &lds, lds_need, traffic.lds)?;
    let ta_code = traffic_unit::<TaTestbench>(&ctx, &ta, ta_need, traffic.ta)?;
    let mut worst = ExitCode::SUCCESS;
    for code in [lds_code, ta_code] {
        if code != ExitCode::SUCCESS {
            worst = code;
        }
    }
    Ok(worst)
}

/// `kernel run` without `--launch`: each kernel of the file (or the one
/// named) replayed through the waitcnt unit.
fn run_replay(a: KernelRunArgs) -> Result<ExitCode> {
    let (file, seed, kernel, cycles) = (a.file, a.seed, a.kernel, a.cycles);
    if cycles == Some(0) {
        return Err(Error::Input("--cycles must be at least 1".into()));
    }
    a.waves.probe()?;
    let (prog, profile) = gpucosim::kernel::read(&file, a.profile.profile)?;
    let opts = gpucosim::kernel::waitcnt_stim::StimOpts {
        waves: a.wave_count,
        max_iterations: a.iterations,
    };
    let kernels: Vec<&gpucosim::kernel::asm::Kernel> = prog
        .kernels
        .iter()
        .filter(|k| kernel.as_deref().is_none_or(|n| n == k.name))
        .collect();
    if kernels.is_empty() {
        let names: Vec<&str> = prog.kernels.iter().map(|k| k.name.as_str()).collect();
        return Err(Error::Input(format!(
            "{}: no kernel `{}` (kernels: {})",
            file.display(),
            kernel.unwrap_or_default(),
            names.join(", ")
        )));
    }
    gpucosim::catch_stop_signals();
    let mut worst = ExitCode::SUCCESS;
    for k in kernels {
        let kr = KernelRun {
            file: file.clone(),
            kernel: k.name.clone(),
            profile,
            unit: "waitcnt".into(),
            seed,
            launch: None,
            waitcnt_stim: Some(opts),
            cycles,
            rtl_arg: a.rtl.rtl.clone(),
        };
        let code = kernel_run(
            &kr,
            k,
            a.fence.fence(),
            &a.waves,
            &a.bundles.bundles,
            a.limits,
        )?;
        if code != ExitCode::SUCCESS {
            worst = code;
        }
    }
    Ok(worst)
}

/// What the lock-step runs of a launch's traffic share.
struct TrafficRun<'a> {
    rtl: &'a Option<PathBuf>,
    waves: &'a WavesArgs,
    bundles: &'a Path,
    limits: LimitArgs,
}

/// `kernel run`'s lock-step run of `txns` as `spec` says, on the RTL of
/// `spec.rtl_arg` (built, or loaded from the cache).
fn run_built<B: Testbench>(spec: &RunSpec, txns: Vec<B::Txn>) -> Result<Ran<B::Txn>> {
    let root = gpucosim::rtl_root(spec.rtl_arg.as_deref());
    let (mut rtl, _) = gpucosim::load_rtl::<B>(&root, spec.profile, false)?;
    launch_run::run::<B>(spec, &mut rtl, txns)
}

/// One unit's share of a launch's traffic in lock-step (`need`: what it
/// asks of the unit, for the default budget), a failure bundled with its
/// transactions.
fn traffic_unit<B: Testbench>(
    c: &TrafficRun,
    kr: &KernelRun,
    need: Option<Need>,
    txns: Vec<B::Txn>,
) -> Result<ExitCode> {
    let unit = kr.unit.as_str();
    let mut spec = kr.spec(kr.budget(need));
    // A tree of one of the kernel's units co-simulates that one; the
    // other runs on the built-in RTL.
    let (rtl, note) = regress::rtl_for_unit(c.rtl, unit);
    if let Some(n) = note {
        eprintln!("{n}");
    }
    spec.rtl_arg = rtl.clone();
    spec.waves = c.waves.waves.clone();
    spec.waves_format = c.waves.waves_format;
    spec.limits = c.limits.limits();
    let name = spec.name();
    if txns.is_empty() {
        println!("SKIP {name}: the kernel sent no transaction to the {unit} unit");
        return Ok(ExitCode::SUCCESS);
    }
    let n = txns.len();
    let ran = run_built::<B>(&spec, txns)?;
    let out = &ran.out;
    if out.passed() {
        if let Some(i) = ran.incomplete() {
            println!("INCOMPLETE {name}: {}", i.line());
            return Ok(ExitCode::from(EXIT_INPUT));
        }
        println!(
            "PASS {name}: {n} transactions, {} cycles, {:.0} cycles/s, coverage {}/{} bins",
            out.cycles,
            out.rate(),
            out.coverage.covered(),
            out.coverage.names.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    failure_bundle::<B>(&spec, &ran, &rtl, c.bundles)
}

/// Reports a failed kernel run and writes its bundle (the transactions
/// up to the failure listed) for `replay` and `shrink`.
fn failure_bundle<B: Testbench>(
    spec: &RunSpec,
    ran: &Ran<B::Txn>,
    rtl: &Option<PathBuf>,
    bundles: &Path,
) -> Result<ExitCode> {
    let (name, out) = (spec.name(), &ran.out);
    print!("{}", gpucosim::report(spec, out, B::table()));
    if matches!(out.verdict(), Verdict::Interrupted) {
        return Ok(ExitCode::from(out.exit_code()));
    }
    let dir = bundles.join(&name);
    let root = gpucosim::rtl_root(rtl.as_deref());
    let hash = gpucosim::sources_hash(&gpucosim::RtlSources::collect(&root, &spec.unit)?)?;
    let report = gpucosim::report(spec, out, B::table());
    match gpucosim::write_bundle(
        &dir,
        spec,
        &root,
        &hash,
        out,
        Some(ran.listed()),
        &report,
        out.vcd.as_deref(),
    ) {
        Ok(()) => println!(
            "  bundle: {} (gpucosim replay, gpucosim shrink)",
            dir.display()
        ),
        Err(e) => eprintln!("error: the failure bundle was not written: {e}"),
    }
    let what = match out.mismatches.first() {
        Some(m) => format!("diverged at cycle {}", m.cycle),
        None => regress::job_message(out),
    };
    println!("FAIL {name}: {what}{}", in_transaction(out));
    Ok(ExitCode::from(out.exit_code()))
}

/// `kernel run` of one kernel (`k`, as `kr` names it): its stimulus through
/// the waitcnt unit in lock-step, then its register hazards; a failure
/// bundled (transactions listed) for `replay` and `shrink`.
fn kernel_run(
    kr: &KernelRun,
    k: &gpucosim::kernel::asm::Kernel,
    fence: BarrierFence,
    waves: &WavesArgs,
    bundles: &Path,
    limits: LimitArgs,
) -> Result<ExitCode> {
    use gpucosim::units::waitcnt::WaitcntTestbench as B;
    let (profile, seed) = (kr.profile, kr.seed);
    let opts = kr.waitcnt_stim.unwrap_or_default();
    let pr = gpucosim::kernel::check::KernelFlow::with_fence(k, profile, fence)
        .map_err(|e| Error::Input(format!("{}: kernel {}: {e}", kr.file.display(), k.name)))?;
    opts.check(pr.cls.len())
        .map_err(|e| Error::Input(format!("{}: kernel {}: {e}", kr.file.display(), k.name)))?;
    let (txns, paths) = gpucosim::kernel::waitcnt_stim::stimulus_traced(&pr, seed, &opts);
    let cycles = kr.budget(None);
    let mut spec = kr.spec(cycles);
    spec.waves = waves.waves.clone();
    spec.waves_format = waves.waves_format;
    spec.limits = limits.limits();
    let ran = run_built::<B>(&spec, txns)?;
    let (name, out) = (spec.name(), &ran.out);
    if out.passed() {
        if let Some(i) = ran.incomplete() {
            println!("INCOMPLETE {name}: {}", i.line());
            return Ok(ExitCode::from(EXIT_INPUT));
        }
        // The registers: the same run, model alone, recording when each
        // issue returned and each wait released.
        let knobs = <B as Testbench>::Knobs::default();
        let mut mr =
            engine::ModelRun::<B>::new(profile, seed, &knobs, Stimulus::Replay(ran.txns.clone()));
        mr.driver_mut().record();
        // The lock-step run finished within `cycles`; so does the model.
        let _ = mr.run_until_done(cycles, |_, _, _| {});
        let dynamic =
            gpucosim::kernel::waitcnt_stim::dynamic_hazards(&pr, &paths, mr.driver().events());
        let proven: Vec<_> = pr
            .hazards(None)
            .into_iter()
            .map(|h| (h.kind, h.at, h.by))
            .collect();
        let mut unproven = 0;
        for h in &dynamic {
            let known = proven.contains(&(h.kind, h.at, h.by));
            unproven += usize::from(!known);
            println!(
                "  {:?} in wave {} at cycle {}: {} `{}` {} {}, which {} `{}` had not returned ({})",
                h.kind,
                h.wave,
                h.cycle,
                k.insts[h.at].place(),
                k.insts[h.at].text(),
                match h.kind {
                    gpucosim::kernel::check::HazardKind::Raw => "read",
                    gpucosim::kernel::check::HazardKind::Waw => "wrote",
                    gpucosim::kernel::check::HazardKind::Fence
                    | gpucosim::kernel::check::HazardKind::Stale => "fenced",
                },
                h.regs.text(),
                k.insts[h.by].place(),
                k.insts[h.by].text(),
                if known {
                    "also found by kernel check"
                } else {
                    "NOT found by kernel check"
                }
            );
        }
        if !dynamic.is_empty() {
            println!(
                "FAIL {name}: the unit agreed, but the waves ran into {} hazard{}{}",
                dynamic.len(),
                if dynamic.len() == 1 { "" } else { "s" },
                if unproven > 0 {
                    format!(" ({unproven} that kernel check does not report: an analysis error)")
                } else {
                    String::new()
                }
            );
            return Ok(ExitCode::from(1));
        }
        println!(
            "PASS {name}: {} waves, {} transactions, {} cycles, {:.0} cycles/s, coverage {}/{} bins, no hazard",
            opts.waves,
            out.txn_count,
            out.cycles,
            out.rate(),
            out.coverage.covered(),
            out.coverage.names.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    failure_bundle::<B>(&spec, &ran, &kr.rtl_arg, bundles)
}
