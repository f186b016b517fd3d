//! An emulator of the integer subset of the gfx9 and gfx11 ISA that
//! compiled kernels compute addresses, data and control flow with
//! (docs/kernels.md "The emulator"). Every `ds_*` instruction it runs is
//! also run on the LDS unit's model, whose read data must equal the
//! emulator's own LDS; every `buffer_*`/`tbuffer_*` instruction's
//! addresses and range checks come from the TA unit's model. Both become
//! transactions for lock-step runs of the units against their RTL, and
//! counts for the kernel's profile ([`profile`]).
//!
//! binary32 arithmetic is computed ([`float`]); what the emulator does not
//! compute (binary16/binary64, a register never written, unfilled memory)
//! is symbolic: a value computed from one is unknown, and an address, a
//! branch or EXEC that depends on an unknown value is an error naming the
//! instruction. Approximate results (the transcendentals) are marked, and
//! where one reaches an address, a branch or EXEC the emulation says so.

pub mod decode;
pub mod float;
pub mod half;
pub mod launch;
pub mod memory;
pub mod ops;
pub mod profile;
pub mod wide;

use crate::asm;
use crate::table::{classify, Effect};
use decode::{Mods, Opnd, EXEC, M0, NSGPR, VCC};
use gpucosim_model::lds::isa::{Kind as DsKind, OpInfo};
use gpucosim_model::lds::params::LdsParams;
use gpucosim_model::lds::tlm::{geometry, Lds, Request};
use gpucosim_model::ta::isa::{Instr, Kind as TaKind, Op as TaOp};
use gpucosim_model::ta::tlm::{compute_in, get_bit, LaneResults, Pieces, Scratch};
use gpucosim_model::ta::TaParams;
use gpucosim_model::Profile;
use gpucosim_tb::units::lds::txn::LdsTxn;
use gpucosim_tb::units::ta::txn::TaTxn;
use launch::{Launch, DISPATCH_BASE, KERNARG_BASE, QUEUE_BASE};
use memory::Memory;
use ops::{Cond, Mem, MemAtomic, Op};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One decoded instruction.
#[derive(Debug, Clone)]
pub struct Ins {
    /// What it does.
    pub op: Op,
    /// Its register and constant operands, in order.
    pub o: Vec<Opnd>,
    /// Its modifiers.
    pub m: Mods,
    /// A branch's target (`None` for a target past the last instruction).
    pub target: Option<usize>,
    /// The second half of a VOPD dual instruction.
    pub dual: Option<Box<Ins>>,
}

impl Ins {
    /// `op` on operands `o`, without modifiers.
    fn plain(op: Op, o: Vec<Opnd>) -> Ins {
        Ins {
            op,
            o,
            m: Mods::default(),
            target: None,
            dual: None,
        }
    }
}

/// Reads one instruction (or one half of a VOPD pair): what the
/// instruction table says of it first (`emu:` no-ops, the end, barriers,
/// refusals), then its operation from the mnemonic, which must agree with
/// the table's kind.
#[doc(hidden)]
pub fn decode_one(profile: Profile, mnemonic: &str, operands: &str) -> Result<Ins, String> {
    use crate::table::Emu;
    let (cat, emu) = crate::table::emulation(profile, mnemonic)?;
    match emu {
        Some(Emu::Nop) => return Ok(Ins::plain(Op::Nop, Vec::new())),
        Some(Emu::End) => return Ok(Ins::plain(Op::End, Vec::new())),
        Some(Emu::Barrier) => return Ok(Ins::plain(Op::Barrier, Vec::new())),
        Some(Emu::Refuse) | None => {}
    }
    let ins = decode_op(mnemonic, operands)?;
    if !agrees(ins.op, cat) {
        return Err(format!(
            "{mnemonic}: the emulator reads it as {:?}, the instruction table (kernel/src/instructions.txt) as {cat:?}",
            ins.op
        ));
    }
    Ok(ins)
}

/// Whether the decoder's operation `op` is of the table's category `cat`
/// (no-ops, the end and barriers come from the table alone).
#[doc(hidden)]
pub fn agrees(op: Op, cat: crate::table::Category) -> bool {
    use crate::table::Category;
    match op {
        Op::Nop | Op::End | Op::Barrier => false,
        Op::Branch => cat == Category::Branch,
        Op::CBranch(_) => cat == Category::CBranch,
        Op::SLoad(_) | Op::SBufLoad(_) => cat == Category::Smem,
        Op::Ds(_) => cat == Category::Ds,
        Op::Global(_, true) => cat == Category::Flat,
        Op::Global(_, false) | Op::Buffer(_) => cat == Category::Vmem,
        _ => cat == Category::Alu,
    }
}

/// The operation and operands of an instruction, from its mnemonic.
fn decode_op(mnemonic: &str, operands: &str) -> Result<Ins, String> {
    let mut mn = mnemonic.to_string();
    if let Some(r) = mn.strip_prefix("v_dual_") {
        mn = format!("v_{r}");
    }
    let sdwa = mn.ends_with("_sdwa");
    if let Some(r) = mn.strip_suffix("_sdwa") {
        mn = r.to_string();
    }
    let dpp_form = mn.ends_with("_dpp");
    if let Some(r) = mn.strip_suffix("_dpp") {
        mn = r.to_string();
    }
    if mn == "s_set_gpr_idx_on" {
        return gpr_idx_on(operands);
    }
    let op = ops::decode(&mn)?;
    let mut o = Vec::new();
    let mut m = Mods::default();
    let list = asm::split_top(operands);
    let skip_operands = matches!(
        op,
        Op::Nop | Op::End | Op::Barrier | Op::Branch | Op::CBranch(_)
    );
    if !skip_operands {
        for t in list {
            let (first, mods) = decode::split_mods(t);
            if !first.is_empty() {
                if decode::is_modifier(first) {
                    decode::read_mods(&[first], &mut m)?;
                } else {
                    let (x, neg, abs) = decode::operand_with_mods(first).ok_or_else(|| {
                        format!("operand `{first}` is not a register or a constant")
                    })?;
                    m.neg |= u16::from(neg) << o.len();
                    m.abs |= u16::from(abs) << o.len();
                    m.sext |= u16::from(first.starts_with("sext(")) << o.len();
                    o.push(x);
                }
            }
            decode::read_mods(&mods, &mut m)?;
        }
    }
    if let Some(u) = &m.unsupported {
        return Err(format!("the modifier `{u}` is not emulated"));
    }
    // SDWA: the ALU forms whose sources are registers read per lane.
    if sdwa {
        let fits = matches!(
            op,
            Op::VUn(_)
                | Op::VAlu(_)
                | Op::VAlu16(..)
                | Op::VF32(_)
                | Op::VF16(_)
                | Op::VCmp(..)
                | Op::VCmpF(..)
                | Op::VCmpF16(..)
                | Op::VCmpClass(_)
        );
        if !fits {
            return Err(format!("the SDWA form of {mnemonic} is not emulated"));
        }
        m.sdwa.get_or_insert_with(Default::default);
    } else if m.sdwa.is_some() || m.sext != 0 {
        return Err(format!(
            "SDWA selections on {mnemonic}, which is not an SDWA form"
        ));
    }
    // DPP: the ALU forms, their source 0 moved across lanes.
    if dpp_form {
        let fits = matches!(
            op,
            Op::VUn(_)
                | Op::VAlu(_)
                | Op::VAlu16(..)
                | Op::VF32(_)
                | Op::VF16(_)
                | Op::VCnd
                | Op::VAddCo(..)
                | Op::VCmp(_, _, false)
                | Op::VCmpF(_, false)
                | Op::VCmpF16(_, false)
        );
        if !fits {
            return Err(format!("the DPP form of {mnemonic} is not emulated"));
        }
        if m.dpp.is_none() {
            return Err(format!(
                "{mnemonic} has no DPP control (quad_perm, row_shl, dpp8, …)"
            ));
        }
    } else if m.dpp.is_some() {
        return Err(format!(
            "DPP controls on {mnemonic}, which is not a DPP form"
        ));
    }
    // Float modifiers mean something only to the float operations (on an
    // integer operation `clamp` saturates, which is not emulated).
    // `clamp` on an integer add or subtract saturates (the 16-bit forms
    // too); `v_cndmask_b32`'s neg and abs act on bit 31, as on a float.
    let saturates = matches!(
        op,
        Op::VAlu(ops::Alu::Add | ops::Alu::Sub | ops::Alu::SubRev)
            | Op::VAlu16(ops::Alu::Add | ops::Alu::Sub | ops::Alu::SubRev, _)
    );
    if saturates && m.clamp {
        m.clamp_signed = mn.contains("_i32") || mn.contains("_i16");
    }
    if !matches!(
        op,
        Op::VF32(_)
            | Op::VCmpF(..)
            | Op::VCmpClass(_)
            | Op::VWide(_)
            | Op::VDivScale(_)
            | Op::VCmpF64(..)
            | Op::VCmpClass64(_)
            | Op::VF16(_)
            | Op::VPkF16(_)
            | Op::VCmpF16(..)
            | Op::VCmpClass16(_)
            | Op::VFloat
    ) {
        let what = if m.clamp && !saturates {
            Some("clamp")
        } else if m.omod != 0 {
            Some("an output modifier (mul:/div:)")
        } else if (m.neg != 0 || m.abs != 0) && op != Op::VCnd {
            Some("a source modifier (neg/abs)")
        } else {
            None
        };
        if let Some(w) = what {
            return Err(format!("{w} on {mnemonic} is not emulated"));
        }
    }
    let packed = matches!(op, Op::VPk16(..) | Op::VPkF16(_));
    if m.op_sel_n != 0
        && !packed
        && !matches!(
            op,
            Op::VF16(_) | Op::VCmpF16(..) | Op::VCmpClass16(_) | Op::VAlu16(..)
        )
    {
        return Err(format!("op_sel on {mnemonic} is not emulated"));
    }
    if !packed && (m.op_sel_hi_n != 0 || m.neg_lo != 0 || m.neg_hi != 0) {
        return Err(format!(
            "op_sel_hi, neg_lo or neg_hi on {mnemonic}, which is not a packed operation"
        ));
    }
    if matches!(op, Op::VPk16(..)) && (m.neg_lo != 0 || m.neg_hi != 0) {
        return Err(format!(
            "neg_lo or neg_hi on the integer {mnemonic} is not emulated"
        ));
    }
    // VOPD's v_dual_cndmask_b32 reads VCC implicitly.
    if mnemonic == "v_dual_cndmask_b32" {
        o.push(Opnd::S(VCC, 1));
    }
    Ok(Ins {
        op,
        o,
        m,
        target: None,
        dual: None,
    })
}

/// The notional address `s_getpc_b64` at instruction `at` gives.
fn pc_after(at: usize) -> u64 {
    launch::CODE_BASE + 8 * (at as u64 + 1)
}

/// `s_getpc_b64 S` (a move of its notional address into S), and the
/// `s_add_u32 S, S, SYM@rel32@lo+A` / `s_addc_u32 S+1, S+1, SYM@rel32@hi+B`
/// that follow it (the moves of the differences that make S the address of
/// data object SYM, plus A - 4, as the linker resolves them); `None` for
/// other instructions.
fn pc_relative(
    k: &asm::Kernel,
    at: usize,
    data: &std::collections::HashMap<String, u64>,
) -> Result<Option<Ins>, String> {
    let i = &k.insts[at];
    if i.mnemonic == "s_getpc_b64" {
        let list = i.operand_list();
        let d = list
            .first()
            .and_then(|t| decode::operand_with_mods(t))
            .map(|(x, _, _)| x)
            .ok_or("s_getpc_b64 needs an SGPR pair")?;
        return Ok(Some(Ins::plain(
            Op::SUn(ops::Un::Mov, true),
            vec![d, Opnd::Imm(pc_after(at))],
        )));
    }
    let Some(rel) = i.operand_list().into_iter().find(|o| o.contains("@rel32@")) else {
        return Ok(None);
    };
    let (sym, rest) = rel.split_once("@rel32@").expect("found");
    let (half, add) = match rest.split_once('+') {
        Some((h, a)) => (
            h,
            a.trim()
                .parse::<i64>()
                .map_err(|_| format!("`{rel}`: the addend is not a number"))?,
        ),
        None => (rest, 0),
    };
    let sym = sym.trim();
    let (back, mnemonic) = match half {
        "lo" => (1, "s_add_u32"),
        "hi" => (2, "s_addc_u32"),
        _ => return Err(format!("`{rel}` is not a @rel32@lo or @rel32@hi address")),
    };
    if i.mnemonic != mnemonic || at < back || k.insts[at - back].mnemonic != "s_getpc_b64" {
        return Err(format!(
            "`{rel}`: a PC-relative address other than `s_getpc_b64` followed by `s_add_u32 …@rel32@lo` and `s_addc_u32 …@rel32@hi` is not emulated"
        ));
    }
    let Some(&addr) = data.get(sym) else {
        return Err(format!(
            "`{sym}` is not a data object of the file (`.type {sym},@object` with its contents), so its address is not emulated"
        ));
    };
    let pc = pc_after(at - back);
    let value = (addr as i64 + add - if back == 1 { 4 } else { 12 })
        .cast_unsigned()
        .wrapping_sub(pc);
    let v = if back == 1 {
        value & 0xffff_ffff
    } else {
        value >> 32
    };
    let list = i.operand_list();
    let mut o = Vec::new();
    for t in &list[..2] {
        let (x, _, _) = decode::operand_with_mods(t)
            .ok_or_else(|| format!("operand `{t}` is not a register"))?;
        o.push(x);
    }
    o.push(Opnd::Imm(v));
    let op = if back == 1 {
        Op::SAddCarry(false, false)
    } else {
        Op::SAddCarry(false, true)
    };
    Ok(Some(Ins::plain(op, o)))
}

/// `s_set_gpr_idx_on SRC, gpr_idx(SRC0,…)`.
fn gpr_idx_on(operands: &str) -> Result<Ins, String> {
    let list = asm::split_top(operands);
    let [src, modes] = list[..] else {
        return Err("s_set_gpr_idx_on takes an index and gpr_idx(…)".into());
    };
    let (x, _, _) = decode::operand_with_mods(src)
        .ok_or_else(|| format!("operand `{src}` is not a register or a constant"))?;
    let inner = modes
        .trim()
        .strip_prefix("gpr_idx(")
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("`{modes}` is not gpr_idx(…)"))?;
    let mut mask = 0u8;
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        mask |= match part {
            "SRC0" => 1,
            "SRC1" => 2,
            "SRC2" => 4,
            "DST" => 8,
            _ => {
                return Err(format!(
                    "`{part}` in gpr_idx(…) is not SRC0, SRC1, SRC2 or DST"
                ))
            }
        };
    }
    Ok(Ins::plain(Op::GprIdxOn(mask), vec![x]))
}

/// The decoded kernel.
#[derive(Debug, Clone, Default)]
pub struct Code {
    /// Instructions, as the kernel's.
    pub ins: Vec<Ins>,
}

impl Code {
    /// Decodes every instruction of `k`; the first one the emulator cannot
    /// run is the error.
    pub fn new(
        k: &asm::Kernel,
        profile: Profile,
        data: &std::collections::HashMap<String, u64>,
    ) -> Result<Code, String> {
        // A call first: the instructions that form its address come before
        // it and would be refused without saying why they are there.
        if let Some(at) = k
            .insts
            .iter()
            .position(|i| matches!(i.mnemonic.as_str(), "s_swappc_b64" | "s_call_b64"))
        {
            let i = &k.insts[at];
            let f = crate::check::callee(k, at).unwrap_or_else(|| "?".into());
            return Err(format!(
                "{}: `{}`: a call of `{f}`: calls are not emulated{}",
                i.place(),
                i.text(),
                crate::check::builtin_hint(&f)
            ));
        }
        let mut ins = Vec::with_capacity(k.insts.len());
        for (at, i) in k.insts.iter().enumerate() {
            // `s_getpc_b64` and the data addresses formed from it.
            if let Some(d) = pc_relative(k, at, data)
                .map_err(|e| format!("{}: `{}`: {e}", i.place(), i.text()))?
            {
                ins.push(d);
                continue;
            }
            // A call's address (`sym@rel32@lo+4`) names the function: an
            // OpenCL built-in gets the hint of how to link it in.
            let hint = i
                .operand_list()
                .into_iter()
                .find(|o| o.contains("@rel32") || o.contains("@gotpcrel"))
                .and_then(|o| o.split('@').next().map(|s| s.trim().to_string()))
                .map(|f| crate::check::builtin_hint(&f))
                .unwrap_or_default();
            let err = |e: String| format!("{}: `{}`: {e}{hint}", i.place(), i.text());
            let mut d = if let Some((x, y)) = i.operands.split_once("::") {
                let (ym, yo) = y
                    .trim()
                    .split_once(char::is_whitespace)
                    .unwrap_or((y.trim(), ""));
                let mut d = decode_one(profile, &i.mnemonic, x).map_err(err)?;
                d.dual = Some(Box::new(
                    decode_one(profile, &ym.to_ascii_lowercase(), yo).map_err(err)?,
                ));
                d
            } else {
                decode_one(profile, &i.mnemonic, &i.operands).map_err(err)?
            };
            if matches!(d.op, Op::Branch | Op::CBranch(_)) {
                let c = classify(profile, i).map_err(err)?;
                let t = match &c.effect {
                    Effect::Branch(t) | Effect::CBranch(t) => t.clone(),
                    _ => return Err(err("a branch without a target".into())),
                };
                let idx = match t.strip_prefix('@') {
                    Some(a) => u64::from_str_radix(a.trim_start_matches("0x"), 16)
                        .ok()
                        .and_then(|a| k.at_addr(a)),
                    None => k.labels.get(&t).copied(),
                };
                let idx =
                    idx.ok_or_else(|| err(format!("the target `{t}` is not in the kernel")))?;
                d.target = (idx < k.insts.len()).then_some(idx);
            }
            ins.push(d);
        }
        Ok(Code { ins })
    }
}

/// One wave's state.
#[derive(Debug, Clone)]
pub struct Wave {
    s: [u32; NSGPR],
    /// The unknown bits of each SGPR (known where 0): bitwise scalar
    /// operations (lane masks built from an undefined value and EXEC) keep
    /// the bits they know.
    sx: [u32; NSGPR],
    scc: bool,
    scck: bool,
    v: Vec<[u32; 64]>,
    vk: Vec<u64>,
    /// Lanes of each VGPR whose low 16 bits are known (all of `vk`'s, and
    /// those where a 16-bit operation wrote a known low half under an
    /// unknown high one).
    vlo: Vec<u64>,
    /// Lanes of each VGPR whose value derives from an approximate result
    /// (`float.rs`), and the SGPRs that do.
    va: Vec<u64>,
    sa: [bool; NSGPR],
    pc: usize,
    /// Lanes the wave has (its size, fewer in a partial last wave).
    lanes: u64,
    wave64: bool,
    /// Index in the work-group.
    pub id: u32,
    done: bool,
    at_barrier: bool,
    steps: u64,
    /// The VALU operands `s_set_gpr_idx_on` indexes by M0[7:0] (0: off).
    gpr_idx: u8,
}

const NVGPR: usize = 256;
/// A VGPR past the architectural ones that holds a DPP instruction's moved
/// source 0 while the operation runs.
const DPP_SCRATCH: usize = NVGPR;

impl Wave {
    /// Whether SGPR `i` is known in all its bits.
    fn sknown(&self, i: usize) -> bool {
        self.sx[i] == 0
    }
    fn exec(&self) -> u64 {
        let e = u64::from(self.s[EXEC as usize]);
        if self.wave64 {
            e | u64::from(self.s[EXEC as usize + 1]) << 32
        } else {
            e
        }
    }
    fn active(&self) -> u64 {
        self.exec() & self.lanes
    }
    fn all_lanes(&self) -> u64 {
        if self.wave64 {
            !0
        } else {
            0xffff_ffff
        }
    }
}

/// Where the emulation stopped a wave.
enum Stop {
    Barrier,
    End,
}

/// Iterates the set bits of a lane mask.
fn lanes(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// The most transactions one unit's traffic may hold (about 1.3 KB each):
/// a larger launch is sampled (`"run": {"sample": N}`).
pub const MAX_TRAFFIC: usize = 250_000;

/// The longest a wave may run (instructions) before it is taken as stuck.
pub const MAX_STEPS: u64 = 20_000_000;

/// The unit transactions an emulation produced, in emulation order.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    /// LDS-unit transactions.
    pub lds: Vec<LdsTxn>,
    /// TA-unit transactions.
    pub ta: Vec<TaTxn>,
}

/// An emulation of one launch.
pub struct Emulator<'a> {
    profile: Profile,
    kernel: &'a asm::Kernel,
    code: Code,
    launch: &'a Launch,
    /// Global memory.
    pub mem: Memory,
    /// The emulator's own LDS (physical dwords) and its known bytes.
    lds: Vec<u32>,
    lds_known: Vec<u8>,
    /// The LDS unit's model.
    #[doc(hidden)]
    pub unit: Lds,
    ram_dwords: u32,
    banks: u32,
    /// The transactions for the units.
    pub traffic: Traffic,
    /// The profile's counts.
    pub stats: profile::Stats,
    rng: ChaCha8Rng,
    /// Instructions executed (per wave).
    pub executed: u64,
    ta_res: Box<LaneResults>,
    /// The datapath's working storage, kept between buffer instructions.
    ta_scratch: Box<Scratch>,
    pieces: Box<Pieces>,
    /// Keep the unit transactions (off: profile only).
    pub record: bool,
    /// The most transactions one unit's traffic may hold.
    pub max_traffic: usize,
    ctx: String,
    /// The kernel's binary32 denormal mode.
    denorm: float::Denorm,
    /// Both denormal modes (binary32 is `denorm` too).
    modes: wide::Modes,
    /// Where an approximate result reached an address, a branch condition
    /// or EXEC: instruction index, what.
    approx: std::collections::BTreeMap<usize, &'static str>,
}

type R<T> = Result<T, String>;

/// Operand `i` of `o`. Small enough to be inlined at each of the many
/// places an instruction's step reads an operand; the message of the error
/// is made out of line.
#[inline]
fn operand(o: &[Opnd], i: usize) -> R<Opnd> {
    match o.get(i) {
        Some(x) => Ok(*x),
        None => Err(too_few_operands(i)),
    }
}

#[cold]
#[inline(never)]
fn too_few_operands(i: usize) -> String {
    format!("expected at least {} operands", i + 1)
}

impl<'a> Emulator<'a> {
    /// An emulator of `launch` of `kernel`, memory set up.
    pub fn new(profile: Profile, kernel: &'a asm::Kernel, launch: &'a Launch) -> R<Self> {
        let code = Code::new(kernel, profile, &launch.data_addresses())?;
        let (banks, ram_dwords) = geometry(profile, launch.desc.wgp);
        Ok(Emulator {
            profile,
            kernel,
            code,
            launch,
            mem: launch.memory()?,
            lds: vec![0; ram_dwords as usize],
            lds_known: vec![0xf; ram_dwords as usize],
            unit: Lds::new(profile),
            ram_dwords,
            banks,
            traffic: Traffic::default(),
            stats: profile::Stats::new(kernel.insts.len(), banks),
            rng: ChaCha8Rng::seed_from_u64(launch.seed ^ 0x6b65_726e_656c),
            executed: 0,
            ta_res: Box::default(),
            ta_scratch: Box::default(),
            pieces: Box::default(),
            record: true,
            max_traffic: MAX_TRAFFIC,
            ctx: String::new(),
            denorm: float::Denorm::of_mode(launch.desc.f32_denorm),
            modes: wide::Modes {
                f32: float::Denorm::of_mode(launch.desc.f32_denorm),
                f64: float::Denorm::of_mode(launch.desc.f64_denorm),
            },
            approx: Default::default(),
        })
    }

    /// Runs every work-group of the launch's `run` list, in order. An
    /// emulation that lasts more than a second shows its progress on a
    /// terminal (standard error), a line rewritten in place.
    pub fn run(&mut self) -> R<()> {
        use std::io::{IsTerminal, Write};
        let live = std::io::stderr().is_terminal();
        let (t0, mut shown) = (std::time::Instant::now(), std::time::Duration::ZERO);
        let total = self.launch.run.len();
        for (n, g) in self.launch.run.clone().into_iter().enumerate() {
            self.run_group(g)?;
            let t = t0.elapsed();
            if live && t.as_secs_f64() > 1.0 && t - shown > std::time::Duration::from_millis(250) {
                shown = t;
                let _ = write!(
                    std::io::stderr(),
                    "\r\x1b[2Kemulating {}: work-group {} of {total}, {} instructions",
                    self.kernel.name,
                    n + 1,
                    self.executed
                );
            }
        }
        if live && !shown.is_zero() {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
        Ok(())
    }

    fn new_wave(&self, g: [u32; 3], size: [u32; 3], id: u32) -> Wave {
        let d = &self.launch.desc;
        let ws: u32 = if d.wave32 { 32 } else { 64 };
        let items = size[0] * size[1] * size[2];
        let first = id * ws;
        let n = (items - first).min(ws);
        let mut w = Wave {
            s: [0; NSGPR],
            sx: [!0; NSGPR],
            scc: false,
            scck: false,
            v: vec![[0; 64]; NVGPR + 1],
            vk: vec![0; NVGPR + 1],
            vlo: vec![0; NVGPR + 1],
            va: vec![0; NVGPR + 1],
            sa: [false; NSGPR],
            pc: 0,
            lanes: if n == 64 { !0 } else { (1u64 << n) - 1 },
            wave64: !d.wave32,
            id,
            done: false,
            at_barrier: false,
            gpr_idx: 0,
            steps: 0,
        };
        let exec = w.lanes;
        w.s[EXEC as usize] = exec as u32;
        w.s[EXEC as usize + 1] = if d.wave32 { 0 } else { (exec >> 32) as u32 };
        w.sx[EXEC as usize] = 0;
        w.sx[EXEC as usize + 1] = 0;
        let mut sg = 0usize;
        let put = |w: &mut Wave, i: usize, v: u32| {
            w.s[i] = v;
            w.sx[i] = 0;
        };
        for &(what, n) in &d.user_sgprs {
            let v: u64 = match what {
                "dispatch packet pointer" => DISPATCH_BASE,
                "queue pointer" => QUEUE_BASE,
                "kernel argument pointer" => KERNARG_BASE,
                _ => 0,
            };
            for k in 0..n as usize {
                put(&mut w, sg + k, (v >> (32 * (k % 2))) as u32);
            }
            sg += n as usize;
        }
        let mut sg = d.system_first as usize;
        for (dim, on) in d.wgid.iter().enumerate() {
            if *on {
                put(&mut w, sg, g[dim]);
                sg += 1;
            }
        }
        if d.wg_info {
            put(&mut w, sg, 0);
            sg += 1;
        }
        if d.private_offset {
            put(&mut w, sg, 0);
        }
        let packed = self.profile.gfx() >= 11;
        for l in lanes(w.lanes) {
            let t = first + l as u32;
            let x = t % size[0];
            let y = t / size[0] % size[1];
            let z = t / (size[0] * size[1]);
            if packed {
                let mut v = x;
                if d.workitem_id >= 1 {
                    v |= y << 10;
                }
                if d.workitem_id >= 2 {
                    v |= z << 20;
                }
                w.v[0][l] = v;
            } else {
                w.v[0][l] = x;
                w.v[1][l] = y;
                w.v[2][l] = z;
            }
        }
        w.vk[0] = w.lanes;
        if !packed {
            if d.workitem_id >= 1 {
                w.vk[1] = w.lanes;
            }
            if d.workitem_id >= 2 {
                w.vk[2] = w.lanes;
            }
        }
        w.vlo.clone_from(&w.vk);
        w
    }

    /// Runs work-group `g`: its waves in turn, each to a barrier or its
    /// end, until all have ended.
    fn run_group(&mut self, g: [u32; 3]) -> R<()> {
        let size = self.launch.wg_size(g);
        let ws: u32 = if self.launch.desc.wave32 { 32 } else { 64 };
        let n = (size[0] * size[1] * size[2]).div_ceil(ws);
        let mut waves: Vec<Wave> = (0..n).map(|i| self.new_wave(g, size, i)).collect();
        let code = std::mem::take(&mut self.code);
        let res = (|| loop {
            let mut ran = false;
            for w in waves.iter_mut() {
                if w.done || w.at_barrier {
                    continue;
                }
                ran = true;
                self.ctx = format!("work-group ({}, {}, {}) wave {}", g[0], g[1], g[2], w.id);
                match self.run_wave(&code, w)? {
                    Stop::Barrier => w.at_barrier = true,
                    Stop::End => w.done = true,
                }
            }
            if waves.iter().all(|w| w.done) {
                return Ok(());
            }
            if !ran || waves.iter().all(|w| w.done || w.at_barrier) {
                for w in waves.iter_mut() {
                    w.at_barrier = false;
                }
            }
        })();
        self.code = code;
        res
    }

    fn run_wave(&mut self, code: &Code, w: &mut Wave) -> R<Stop> {
        loop {
            let i = w.pc;
            let Some(ins) = code.ins.get(i) else {
                return Err(format!(
                    "{}: ran past the last instruction without s_endpgm",
                    self.ctx
                ));
            };
            w.steps += 1;
            self.executed += 1;
            if w.steps > MAX_STEPS {
                return Err(format!(
                    "{}: did not end within {MAX_STEPS} instructions (at {})",
                    self.ctx,
                    self.kernel.insts[i].place()
                ));
            }
            w.pc = i + 1;
            let stop = self.step(ins, i, w).map_err(|e| {
                let k = &self.kernel.insts[i];
                format!("{}: {}: `{}`: {e}", self.ctx, k.place(), k.text())
            })?;
            if let Some(s) = stop {
                return Ok(s);
            }
        }
    }

    // ---- approximate results ------------------------------------------

    /// The lanes of `srcs` whose value derives from an approximate result
    /// (every lane for such a scalar).
    fn approx_in(w: &Wave, srcs: &[Opnd]) -> u64 {
        srcs.iter().fold(0, |m, o| {
            m | match *o {
                Opnd::V(r, c) => {
                    (r as usize..(r as usize + c as usize).min(NVGPR)).fold(0, |x, i| x | w.va[i])
                }
                Opnd::S(r, c) => {
                    let any = (r as usize..(r as usize + c as usize).min(NSGPR)).any(|i| w.sa[i]);
                    if any {
                        !0
                    } else {
                        0
                    }
                }
                _ => 0,
            }
        })
    }

    /// Marks (or clears) destination `d` in the lanes `act`.
    fn set_approx(w: &mut Wave, d: Opnd, act: u64, marked: u64) {
        match d {
            Opnd::V(r, c) => {
                for i in r as usize..(r as usize + c as usize).min(NVGPR) {
                    w.va[i] = w.va[i] & !act | marked;
                }
            }
            Opnd::S(r, c) => {
                for i in r as usize..(r as usize + c as usize).min(NSGPR) {
                    w.sa[i] = marked != 0;
                }
            }
            _ => {}
        }
    }

    /// Whether `ins` writes loaded data into its first operand.
    fn loads(ins: &Ins) -> bool {
        match ins.op {
            Op::SLoad(_) | Op::SBufLoad(_) => true,
            Op::Ds(code) => OpInfo::decode(code).rtn,
            Op::Global(m, _) | Op::Buffer(m) => match m {
                Mem::Load { .. } | Mem::Format { store: false, .. } => true,
                Mem::Atomic { .. } => ins.m.glc,
                _ => false,
            },
            _ => false,
        }
    }

    /// Records where an approximate result reaches what must be exact: a
    /// memory instruction's address operands, a branch on VCC.
    fn approx_checks(&mut self, ins: &Ins, at: usize, w: &Wave) {
        let act = w.active();
        let o = &ins.o;
        let some = |i: usize| o.get(i).copied();
        let addr: Vec<Opnd> = match ins.op {
            Op::CBranch(Cond::Vccz | Cond::Vccnz) => {
                if w.sa[VCC as usize] || w.sa[VCC as usize + 1] {
                    self.approx.entry(at).or_insert("the branch condition");
                }
                return;
            }
            // The base and the offset.
            Op::SLoad(_) | Op::SBufLoad(_) => vec![some(1), some(2)],
            Op::Ds(code) => {
                let info = OpInfo::decode(code);
                if info.addtid {
                    vec![]
                } else if info.rtn {
                    vec![some(1)]
                } else {
                    vec![some(0)]
                }
            }
            // Loads `vdst, vaddr[, saddr]`; stores `vaddr, vdata[, saddr]`;
            // atomics `[vdst,] vaddr, vdata[, saddr]`.
            Op::Global(m, _) => match m {
                Mem::Load { .. } => vec![some(1), some(2)],
                Mem::Atomic { .. } if ins.m.glc => vec![some(1), some(3)],
                _ => vec![some(0), some(2)],
            },
            // vaddr, the resource and soffset follow the data.
            Op::Buffer(_) => vec![some(1), some(2), some(3)],
            _ => return,
        }
        .into_iter()
        .flatten()
        .collect();
        if Self::approx_in(w, &addr) & act != 0 {
            self.approx.entry(at).or_insert("the address");
        }
    }

    /// Where approximate results reached an address, a branch or EXEC, a
    /// line each.
    pub fn approx_uses(&self) -> Vec<String> {
        self.approx
            .iter()
            .map(|(&at, what)| {
                let k = &self.kernel.insts[at];
                format!(
                    "{}: `{}`: {what} depends on an approximate floating-point result (v_rcp, v_rsq, v_sqrt, v_exp, v_log, v_sin, v_cos: the ISA allows 1 ULP of error and the emulator computes them correctly rounded, so the hardware may differ)",
                    k.place(),
                    k.text()
                )
            })
            .collect()
    }

    // ---- operands -------------------------------------------------------

    fn s32(w: &Wave, o: Opnd) -> (u32, bool) {
        match o {
            Opnd::S(n, _) => (w.s[n as usize], w.sknown(n as usize)),
            Opnd::Imm(v) => (v as u32, true),
            Opnd::Float(f, _) => (f, true),
            Opnd::Scc => (u32::from(w.scc), w.scck),
            Opnd::Null | Opnd::Off => (0, true),
            Opnd::V(..) => (0, false),
        }
    }

    fn s64(w: &Wave, o: Opnd) -> (u64, bool) {
        match o {
            Opnd::S(n, c) if c >= 2 => {
                let n = n as usize;
                (
                    u64::from(w.s[n]) | u64::from(w.s[n + 1]) << 32,
                    w.sknown(n) && w.sknown(n + 1),
                )
            }
            Opnd::Imm(v) => (v, true),
            Opnd::Float(_, d) => (d, true),
            o => {
                let (v, k) = Self::s32(w, o);
                (u64::from(v), k)
            }
        }
    }

    /// A 64-bit (`wide`) or 32-bit scalar source.
    fn sw(w: &Wave, o: Opnd, wide: bool) -> (u64, bool) {
        if wide {
            Self::s64(w, o)
        } else {
            let (v, k) = Self::s32(w, o);
            (u64::from(v), k)
        }
    }

    fn set_s(w: &mut Wave, o: Opnd, v: u64, known: bool) -> R<()> {
        Self::set_s_bits(w, o, v, if known { 0 } else { !0 })
    }

    /// Writes `v` whose bits set in `unknown` are not known.
    fn set_s_bits(w: &mut Wave, o: Opnd, v: u64, unknown: u64) -> R<()> {
        match o {
            Opnd::S(n, c) => {
                for k in 0..c.min(2) as usize {
                    let i = n as usize + k;
                    let x = (unknown >> (32 * k)) as u32;
                    if (i == EXEC as usize || i == EXEC as usize + 1) && x != 0 {
                        return Err("EXEC would depend on a symbolic value (a register never written, unfilled memory, or a floating-point operation the emulator does not compute)".into());
                    }
                    w.s[i] = (v >> (32 * k)) as u32;
                    w.sx[i] = x;
                }
                Ok(())
            }
            Opnd::Null => Ok(()),
            o => Err(format!("{o:?} is not a scalar destination")),
        }
    }

    fn v32(w: &Wave, o: Opnd, l: usize) -> (u32, bool) {
        match o {
            Opnd::V(n, _) => (w.v[n as usize][l], w.vk[n as usize] >> l & 1 != 0),
            o => Self::s32(w, o),
        }
    }

    fn v64(w: &Wave, o: Opnd, l: usize) -> (u64, bool) {
        match o {
            Opnd::V(n, c) if c >= 2 => {
                let n = n as usize;
                (
                    u64::from(w.v[n][l]) | u64::from(w.v[n + 1][l]) << 32,
                    (w.vk[n] & w.vk[n + 1]) >> l & 1 != 0,
                )
            }
            o => Self::s64(w, o),
        }
    }

    /// A 64-bit source with whether each 32-bit half is known (low, high).
    fn v64_halves(w: &Wave, o: Opnd, l: usize) -> (u64, bool, bool) {
        match o {
            Opnd::V(n, c) if c >= 2 => {
                let n = n as usize;
                (
                    u64::from(w.v[n][l]) | u64::from(w.v[n + 1][l]) << 32,
                    w.vk[n] >> l & 1 != 0,
                    w.vk[n + 1] >> l & 1 != 0,
                )
            }
            Opnd::S(n, c) if c >= 2 => {
                let n = n as usize;
                (
                    u64::from(w.s[n]) | u64::from(w.s[n + 1]) << 32,
                    w.sknown(n),
                    w.sknown(n + 1),
                )
            }
            o => {
                let (v, k) = Self::v64(w, o, l);
                (v, k, k)
            }
        }
    }

    /// A vector compare's lane mask `out` (known: `known`) into its
    /// destination (`dst`: VCC or an SGPR pair, if it names one) and, for
    /// `cmpx`, EXEC, which must not be symbolic.
    fn compare_out(w: &mut Wave, dst: Option<Opnd>, cmpx: bool, out: u64, known: bool) -> R<()> {
        if let Some(d) = dst {
            Self::set_s(w, d, out, known)?;
        }
        if cmpx {
            if !known {
                return Err(
                    "the new EXEC is symbolic (it depends on a register never written, unfilled memory, or a floating-point operation the emulator does not compute)"
                        .into(),
                );
            }
            Self::set_s(w, Opnd::S(EXEC, if w.wave64 { 2 } else { 1 }), out, true)?;
        }
        Ok(())
    }

    fn set_v(w: &mut Wave, reg: usize, l: usize, v: u32, known: bool) {
        Self::set_v_parts(w, reg, l, v, known, known);
    }

    /// Writes `v` whose low 16 bits are known when `lo` and whose high ones
    /// are when `hi`.
    fn set_v_parts(w: &mut Wave, reg: usize, l: usize, v: u32, lo: bool, hi: bool) {
        w.v[reg][l] = v;
        let bit = 1u64 << l;
        w.vk[reg] = if lo && hi {
            w.vk[reg] | bit
        } else {
            w.vk[reg] & !bit
        };
        w.vlo[reg] = if lo {
            w.vlo[reg] | bit
        } else {
            w.vlo[reg] & !bit
        };
    }

    /// A 32-bit source for its low 16 bits only: the value and whether
    /// those bits are known.
    fn v32_lo(w: &Wave, o: Opnd, l: usize) -> (u32, bool) {
        match o {
            Opnd::V(n, _) => (w.v[n as usize][l], w.vlo[n as usize] >> l & 1 != 0),
            o => Self::v32(w, o, l),
        }
    }

    /// The first VGPR of `o`, which must span at least `need` registers.
    fn vregs(o: Opnd, need: usize) -> R<usize> {
        let (r, n) = Self::vreg(o)?;
        if n < need {
            return Err(format!(
                "{} is {n} VGPR(s); the access needs {need}",
                text(o)
            ));
        }
        Ok(r)
    }

    fn vreg(o: Opnd) -> R<(usize, usize)> {
        match o {
            Opnd::V(n, c) => Ok((n as usize, c as usize)),
            o => Err(format!("{o:?} is not a VGPR")),
        }
    }

    /// A lane mask (VCC, an SGPR pair, a constant).
    /// A 64-bit (`wide`) or 32-bit scalar source and its unknown bits.
    fn sw_bits(w: &Wave, o: Opnd, wide: bool) -> (u64, u64) {
        match o {
            Opnd::S(n, c) => {
                let n = n as usize;
                let lo = (u64::from(w.s[n]), u64::from(w.sx[n]));
                if wide && c >= 2 {
                    (
                        lo.0 | u64::from(w.s[n + 1]) << 32,
                        lo.1 | u64::from(w.sx[n + 1]) << 32,
                    )
                } else {
                    lo
                }
            }
            o => {
                let (v, k) = Self::sw(w, o, wide);
                (v, if k { 0 } else { !0 })
            }
        }
    }

    fn mask(w: &Wave, o: Opnd) -> (u64, bool) {
        let (v, k) = Self::sw(w, o, w.wave64);
        (v & w.all_lanes(), k)
    }

    fn known_s(w: &Wave, o: Opnd, what: &str) -> R<u64> {
        let (v, k) = Self::s64(w, o);
        if !k {
            return Err(format!(
                "{what} ({}) is symbolic: it depends on a register never written, unfilled memory, or a floating-point operation the emulator does not compute",
                text(o)
            ));
        }
        Ok(v)
    }

    // ---- one instruction -------------------------------------------------

    /// An SDWA instruction: its sources' selected fields (zero- or
    /// sign-extended) stand in for the registers while the operation runs,
    /// and its result is written into `dst_sel` as `dst_unused` says.
    fn step_sdwa(
        &mut self,
        ins: &Ins,
        sd: decode::Sdwa,
        at: usize,
        w: &mut Wave,
    ) -> R<Option<Stop>> {
        let o = &ins.o;
        let cmp = matches!(ins.op, Op::VCmp(..) | Op::VCmpF(..) | Op::VCmpClass(_));
        let first = if cmp { usize::from(o.len() == 3) } else { 1 };
        let act = w.active();
        // The destination as it was, before a source's field stands in
        // for it.
        let dst = (!cmp).then(|| o.first().copied()).flatten();
        let old = match dst {
            Some(Opnd::V(r, 1)) => Some((r as usize, w.v[r as usize])),
            Some(_) => return Err("the SDWA destination is not one VGPR".into()),
            None => None,
        };
        let mut saved: Vec<(Opnd, [u32; 64], u32)> = Vec::new();
        for (k, sel) in sd.src.iter().enumerate() {
            let i = first + k;
            let Some(&src) = o.get(i) else { continue };
            let sext = ins.m.sext >> i & 1 != 0;
            if *sel == decode::Sel::DWORD && !sext {
                continue;
            }
            if saved.iter().any(|(x, _, _)| *x == src) {
                return Err(
                    "SDWA sources selecting twice from one register are not emulated".into(),
                );
            }
            match src {
                Opnd::V(r, 1) => {
                    let r = r as usize;
                    saved.push((src, w.v[r], 0));
                    for l in lanes(act) {
                        w.v[r][l] = sel.read(w.v[r][l], sext);
                    }
                }
                Opnd::S(r, 1) => {
                    let r = r as usize;
                    saved.push((src, [0; 64], w.s[r]));
                    w.s[r] = sel.read(w.s[r], sext);
                }
                _ => {
                    return Err(format!("an SDWA selection on {}", text(src)));
                }
            }
        }
        let mut plain = ins.clone();
        plain.m.sdwa = None;
        let out = self.step(&plain, at, w);
        for (src, v, sv) in saved {
            match src {
                Opnd::V(r, _) if Some(r as usize) != old.map(|o| o.0) => w.v[r as usize] = v,
                Opnd::S(r, _) => w.s[r as usize] = sv,
                _ => {}
            }
        }
        if let Some((d, before)) = old {
            for l in lanes(act) {
                w.v[d][l] = sd.write(before[l], w.v[d][l]);
            }
        }
        out
    }

    /// A DPP instruction: source 0 (one VGPR) read from the lane its
    /// control names; a lane whose source is out of range or inactive reads
    /// 0 under `bound_ctrl`, else is not written, as are lanes of rows and
    /// banks the masks leave out. The operation then runs on the lanes
    /// written.
    fn step_dpp(
        &mut self,
        ins: &Ins,
        dpp: decode::Dpp,
        at: usize,
        w: &mut Wave,
    ) -> R<Option<Stop>> {
        let dests = ins.op.alu_dests(ins.o.len()).unwrap_or(0);
        let Some(&Opnd::V(src, 1)) = ins.o.get(dests) else {
            return Err("a DPP instruction's source 0 must be one VGPR".into());
        };
        let src = src as usize;
        let n = if w.wave64 { 64 } else { 32 };
        let exec = w.active();
        // The moved values go to a scratch register that stands in for
        // source 0 (the same VGPR may be another operand, unmoved).
        let t = DPP_SCRATCH;
        w.vk[t] = 0;
        w.vlo[t] = 0;
        w.va[t] = 0;
        let mut write = 0u64;
        for l in lanes(exec) {
            if !dpp.writes(l) {
                continue;
            }
            let from = dpp
                .source(l, n)
                .filter(|&s| dpp.fetch_inactive || exec >> s & 1 != 0);
            match from {
                Some(s) => {
                    w.v[t][l] = w.v[src][s];
                    w.vk[t] |= (w.vk[src] >> s & 1) << l;
                    w.vlo[t] |= (w.vlo[src] >> s & 1) << l;
                    w.va[t] |= (w.va[src] >> s & 1) << l;
                }
                None if dpp.bound_ctrl => {
                    w.v[t][l] = 0;
                    w.vk[t] |= 1 << l;
                    w.vlo[t] |= 1 << l;
                }
                None => continue,
            }
            write |= 1 << l;
        }
        let old_exec = (w.s[EXEC as usize], w.s[EXEC as usize + 1]);
        w.s[EXEC as usize] = write as u32;
        w.s[EXEC as usize + 1] = (write >> 32) as u32;
        let mut plain = ins.clone();
        plain.m.dpp = None;
        plain.o[dests] = Opnd::V(t as u16, 1);
        let r = self.step(&plain, at, w);
        (w.s[EXEC as usize], w.s[EXEC as usize + 1]) = old_exec;
        r
    }

    fn step(&mut self, ins: &Ins, at: usize, w: &mut Wave) -> R<Option<Stop>> {
        if let Some(dpp) = ins.m.dpp {
            return self.step_dpp(ins, dpp, at, w);
        }
        // v_movrels/v_movreld/v_movrelsd: a move between the registers M0
        // indexes (so that everything a move does, the approximate mark
        // included, follows the registers really read and written).
        if let Op::VMovRel(src_rel, dst_rel) = ins.op {
            let m0 = decode::M0 as usize;
            if !w.sknown(m0) {
                return Err("the register index (M0) is symbolic".into());
            }
            let idx = w.s[m0] as usize;
            let shift = |o: Opnd, rel: bool| -> R<Opnd> {
                match o {
                    Opnd::V(n, c) if rel => {
                        if usize::from(n) + idx >= NVGPR {
                            return Err(format!("M0 = {idx} indexes past the last VGPR"));
                        }
                        Ok(Opnd::V(n + idx as u16, c))
                    }
                    Opnd::V(..) => Ok(o),
                    _ if rel => Err("the indexed operand must be a VGPR".into()),
                    o => Ok(o),
                }
            };
            let mut mv = ins.clone();
            mv.op = Op::VUn(ops::Un::Mov);
            mv.o = vec![
                shift(*ins.o.first().ok_or("expected 2 operands")?, dst_rel)?,
                shift(*ins.o.get(1).ok_or("expected 2 operands")?, src_rel)?,
            ];
            return self.step(&mv, at, w);
        }
        if w.gpr_idx != 0 && Self::is_valu(ins) {
            let indexed = Self::gpr_indexed(ins, w)?;
            let mode = std::mem::take(&mut w.gpr_idx);
            let r = self.step(&indexed, at, w);
            w.gpr_idx = mode;
            return r;
        }
        if let Some(sd) = ins.m.sdwa {
            return self.step_sdwa(ins, sd, at, w);
        }
        let o = &ins.o;
        let arg = |i: usize| operand(o, i);
        // Approximate results flow from an ALU operation's sources to its
        // destinations (`v_fmac` reads its destination too).
        let act = w.active();
        let dests = ins.op.alu_dests(o.len()).map(|n| n.min(o.len()));
        let from = match ins.op {
            Op::VF32(f) if f.accumulates() => 0,
            Op::VF16(f) if f.accumulates() => 0,
            _ => dests.unwrap_or(0),
        };
        let mut marked = dests.map_or(0, |_| Self::approx_in(w, &o[from..]) & act);
        match ins.op {
            Op::VF32(f) if f.approximate() => marked |= act,
            Op::VWide(f) if f.approximate() => marked |= act,
            Op::VF16(f) if f.approximate() => marked |= act,
            _ => {}
        }
        self.approx_checks(ins, at, w);
        match ins.op {
            Op::Nop => {}
            Op::End => return Ok(Some(Stop::End)),
            Op::Barrier => return Ok(Some(Stop::Barrier)),
            Op::Branch => return Ok(self.jump(ins, w)),
            Op::CBranch(c) => {
                let (taken, k) = match c {
                    Cond::Scc0 => (!w.scc, w.scck),
                    Cond::Scc1 => (w.scc, w.scck),
                    Cond::Vccz | Cond::Vccnz => {
                        let (v, k) = Self::mask(w, Opnd::S(VCC, 2));
                        ((v == 0) == (c == Cond::Vccz), k)
                    }
                    Cond::Execz => (w.active() == 0, true),
                    Cond::Execnz => (w.active() != 0, true),
                };
                if !k {
                    return Err(
                        "the branch condition is symbolic (it depends on a register never written, unfilled memory, or a floating-point operation the emulator does not compute)"
                            .into(),
                    );
                }
                if taken {
                    return Ok(self.jump(ins, w));
                }
            }
            Op::SUn(u, wide) => {
                let (a, k) = Self::sw(w, arg(1)?, wide);
                let r = u.apply(a, wide);
                Self::set_s(w, arg(0)?, r, k)?;
                if matches!(
                    u,
                    ops::Un::Not | ops::Un::Bcnt1 | ops::Un::Bcnt0 | ops::Un::Abs
                ) {
                    w.scc = r != 0;
                    w.scck = k;
                }
            }
            Op::SAlu(a, wide) => {
                use ops::Alu;
                let shift = matches!(a, Alu::Shl | Alu::Shr | Alu::Sar);
                let rd = |i: usize, w64: bool| -> R<(u64, bool)> { Ok(Self::sw(w, arg(i)?, w64)) };
                let (x, kx) = rd(1, wide && a != Alu::Bfm)?;
                let (y, ky) = rd(2, wide && !shift && a != Alu::Bfm)?;
                let r = a.apply([x, y, 0], wide);
                let mut k = kx && ky;
                // Bitwise operations know each bit that their known
                // operand bits decide.
                let unknown = if k {
                    0
                } else {
                    let (_, ux) = Self::sw_bits(w, arg(1)?, wide);
                    let (_, uy) = Self::sw_bits(w, arg(2)?, wide);
                    let and =
                        |x: u64, ux: u64, y: u64, uy: u64| (ux & (uy | y & !uy)) | (uy & x & !ux);
                    let or =
                        |x: u64, ux: u64, y: u64, uy: u64| (ux & (uy | !y & !uy)) | (uy & !x & !ux);
                    let full = if wide { u64::MAX } else { 0xffff_ffff };
                    full & match a {
                        Alu::And | Alu::Nand => and(x, ux, y, uy),
                        Alu::AndN2 => and(x, ux, !y, uy),
                        Alu::Or | Alu::Nor => or(x, ux, y, uy),
                        Alu::OrN2 => or(x, ux, !y, uy),
                        Alu::Xor | Alu::Xnor => ux | uy,
                        _ => !0,
                    }
                };
                Self::set_s_bits(w, arg(0)?, r, unknown)?;
                if unknown == 0 {
                    k = true;
                }
                // SCC (r != 0) is known when a known bit of r is set.
                let set_known = unknown != 0
                    && matches!(a, Alu::And | Alu::AndN2 | Alu::Or | Alu::OrN2)
                    && r & !unknown != 0;
                let ext = |v: u64| {
                    if wide {
                        v
                    } else {
                        v as u32 as i32 as i64 as u64
                    }
                };
                let scc = match a {
                    Alu::Mul
                    | Alu::MulHiU
                    | Alu::MulHiI
                    | Alu::PackLl
                    | Alu::PackLh
                    | Alu::PackHh
                    | Alu::Bfm => None,
                    Alu::MinU => Some(x < y),
                    Alu::MaxU => Some(x > y),
                    Alu::MinI => Some((ext(x) as i64) < ext(y) as i64),
                    Alu::MaxI => Some(ext(x) as i64 > ext(y) as i64),
                    Alu::LshlAdd(n) => Some(((x << n) & 0xffff_ffff) + y > 0xffff_ffff),
                    _ => Some(r != 0),
                };
                if let Some(c) = scc {
                    w.scc = c || set_known;
                    w.scck = k || set_known;
                }
            }
            Op::SBfe(signed, wide) => {
                let (x, kx) = Self::sw(w, arg(1)?, wide);
                let (c, kc) = Self::s32(w, arg(2)?);
                let bits = if wide { 64 } else { 32 };
                let off = c & (bits - 1);
                let width = (c >> 16) & 0x7f;
                let mut r = if width == 0 {
                    0
                } else {
                    (x >> off)
                        & if width >= 64 {
                            u64::MAX
                        } else {
                            (1u64 << width) - 1
                        }
                };
                if signed && width > 0 && width < 64 && r >> (width - 1) & 1 != 0 {
                    r |= u64::MAX << width;
                }
                if !wide {
                    r &= 0xffff_ffff;
                }
                Self::set_s(w, arg(0)?, r, kx && kc)?;
                w.scc = r != 0;
                w.scck = kx && kc;
            }
            Op::SAddCarry(sub, cin) => {
                let (a, ka) = Self::s32(w, arg(1)?);
                let (b, kb) = Self::s32(w, arg(2)?);
                let c = u64::from(cin && w.scc);
                let kc = !cin || w.scck;
                let (a, b) = (u64::from(a), u64::from(b));
                let (r, carry) = if sub {
                    let r = a.wrapping_sub(b).wrapping_sub(c);
                    (r, a < b + c)
                } else {
                    let r = a + b + c;
                    (r, r > 0xffff_ffff)
                };
                let k = ka && kb && kc;
                Self::set_s(w, arg(0)?, r & 0xffff_ffff, k)?;
                w.scc = carry;
                w.scck = k;
            }
            Op::SAddI(sub) => {
                let (a, ka) = Self::s32(w, arg(1)?);
                let (b, kb) = Self::s32(w, arg(2)?);
                let (r, ov) = if sub {
                    (a as i32).overflowing_sub(b as i32)
                } else {
                    (a as i32).overflowing_add(b as i32)
                };
                Self::set_s(w, arg(0)?, u64::from(r as u32), ka && kb)?;
                w.scc = ov;
                w.scck = ka && kb;
            }
            // A selection on a symbolic SCC is symbolic data, not an error.
            Op::SCselect(wide) => {
                let src = if w.scc { arg(1)? } else { arg(2)? };
                let (v, k) = Self::sw(w, src, wide);
                Self::set_s(w, arg(0)?, v, k && w.scck)?;
            }
            Op::SCmov(_) | Op::SMovk(true) => {
                let (v, k) = match ins.op {
                    Op::SMovk(_) => {
                        let (v, _) = Self::s32(w, arg(1)?);
                        (u64::from(v as u16 as i16 as i32 as u32), true)
                    }
                    _ => Self::sw(w, arg(1)?, wide_of(ins.op)),
                };
                let (old, ko) = Self::sw(w, arg(0)?, wide_of(ins.op));
                let (v, k) = if w.scc { (v, k) } else { (old, ko) };
                Self::set_s(w, arg(0)?, v, k && w.scck)?;
            }
            Op::SMovk(false) => {
                let (v, _) = Self::s32(w, arg(1)?);
                Self::set_s(w, arg(0)?, u64::from(v as u16 as i16 as i32 as u32), true)?;
            }
            Op::SAddk | Op::SMulk => {
                let (d, kd) = Self::s32(w, arg(0)?);
                let (v, _) = Self::s32(w, arg(1)?);
                let k16 = v as u16 as i16 as i32;
                if ins.op == Op::SAddk {
                    let (r, ov) = (d as i32).overflowing_add(k16);
                    Self::set_s(w, arg(0)?, u64::from(r as u32), kd)?;
                    w.scc = ov;
                    w.scck = kd;
                } else {
                    Self::set_s(
                        w,
                        arg(0)?,
                        u64::from((d as i32).wrapping_mul(k16) as u32),
                        kd,
                    )?;
                }
            }
            Op::SCmp(c, t, k16) => {
                let (a, ka) = Self::sw(w, arg(0)?, t.wide);
                let (b, kb) = Self::sw(w, arg(1)?, t.wide);
                let b = if k16 {
                    if t.signed {
                        b as u16 as i16 as i64 as u64
                    } else {
                        b & 0xffff
                    }
                } else {
                    b
                };
                let ext = |x: u64| {
                    if t.signed && !t.wide {
                        x as u32 as i32 as i64 as u64
                    } else {
                        x
                    }
                };
                w.scc = c.test(ext(a), ext(b), t.signed);
                w.scck = ka && kb;
            }
            Op::SBitcmp(bit, wide) => {
                let (a, ka) = Self::sw(w, arg(0)?, wide);
                let (b, kb) = Self::s32(w, arg(1)?);
                w.scc = (a >> (b & if wide { 63 } else { 31 }) & 1 != 0) == bit;
                w.scck = ka && kb;
            }
            Op::SSaveexec(how, _) => {
                let (src, ux) = Self::sw_bits(w, arg(1)?, w.wave64);
                let src = src & w.all_lanes();
                // The source bits the old EXEC decides do not matter.
                let exec = w.exec();
                let ux = ux
                    & w.all_lanes()
                    & match how {
                        ops::Save::And | ops::Save::OrN2 => exec,
                        ops::Save::AndN2 | ops::Save::Or => !exec,
                        _ => !0,
                    };
                if ux != 0 {
                    return Err(
                        "the new EXEC is symbolic (it depends on a register never written, unfilled memory, or a floating-point operation the emulator does not compute)".into(),
                    );
                }
                let old = w.exec();
                Self::set_s(w, arg(0)?, old, true)?;
                let new = how.apply(src, old) & w.all_lanes();
                Self::set_s(w, Opnd::S(EXEC, if w.wave64 { 2 } else { 1 }), new, true)?;
                w.scc = new != 0;
                w.scck = true;
            }
            Op::SLoad(n) => {
                let base = Self::known_s(w, arg(1)?, "the address")?;
                let mut off = ins.m.offset.unwrap_or(0) as u64;
                if let Some(x) = o.get(2) {
                    off = off.wrapping_add(match x {
                        Opnd::Imm(v) => *v,
                        s => Self::known_s(w, *s, "the offset")? & 0xffff_ffff,
                    });
                }
                let addr = base.wrapping_add(off) & !3;
                let (d, _) = Self::vreg_or_s(arg(0)?)?;
                for k in 0..n as usize {
                    let (v, kn) = self.mem.read(addr + 4 * k as u64, 4)?;
                    w.s[d + k] = v as u32;
                    w.sx[d + k] = if kn { 0 } else { !0 };
                }
            }
            Op::SBufLoad(n) => {
                let (vlo, k1) = Self::s64(w, arg(1)?);
                let n2 = match arg(1)? {
                    Opnd::S(r, 4) => r as usize + 2,
                    _ => return Err("the resource must be 4 SGPRs".into()),
                };
                if !(k1 && w.sknown(n2) && w.sknown(n2 + 1)) {
                    return Err("the resource is symbolic".into());
                }
                let base = vlo & ((1 << 48) - 1);
                let records = w.s[n2];
                let off = match o.get(2) {
                    Some(Opnd::Imm(v)) => *v as u32,
                    Some(s) => Self::known_s(w, *s, "the offset")? as u32,
                    None => 0,
                }
                .wrapping_add(ins.m.offset.unwrap_or(0) as u32)
                    & !3;
                let (d, _) = Self::vreg_or_s(arg(0)?)?;
                for k in 0..n as usize {
                    let o4 = off.wrapping_add(4 * k as u32);
                    let (v, kn) = if o4 < records {
                        self.mem.read(base + u64::from(o4), 4)?
                    } else {
                        (0, true)
                    };
                    w.s[d + k] = v as u32;
                    w.sx[d + k] = if kn { 0 } else { !0 };
                }
            }
            Op::VUn(u) => {
                let (d, _) = Self::vreg(arg(0)?)?;
                for l in lanes(w.active()) {
                    let (a, k) = Self::v32(w, arg(1)?, l);
                    Self::set_v(w, d, l, u.apply(u64::from(a), false) as u32, k);
                }
            }
            Op::VAlu(a) => {
                let (d, _) = Self::vreg(arg(0)?)?;
                let n = a.arity();
                let src = Self::sources(o, n)?;
                for l in lanes(w.active()) {
                    let (x, kx) = Self::v32(w, src[0], l);
                    let (y, ky) = Self::v32(w, src[1], l);
                    let (z, kz) = Self::v32(w, src[2], l);
                    let r = if ins.m.clamp {
                        ops::saturate(a, x, y, 32, ins.m.clamp_signed)
                    } else {
                        a.apply([x.into(), y.into(), z.into()], false)
                    };
                    Self::set_v(w, d, l, r as u32, kx && ky && kz);
                }
            }
            Op::VAlu16(a, signed) => {
                let (d, _) = Self::vreg(arg(0)?)?;
                let n = a.arity();
                let src = Self::sources(o, n)?;
                let gfx9 = self.profile.gfx() == 9;
                let ext = |v: u32| {
                    if signed {
                        v as u16 as i16 as i32 as u32
                    } else {
                        v & 0xffff
                    }
                };
                let sel = ins.m.op_sel;
                let dst_hi = Self::op_sel_dst(&ins.m, n)?;
                for l in lanes(w.active()) {
                    let (x, kx) = Self::half_src(w, src[0], l, sel, 0);
                    let (y, ky) = Self::half_src(w, src[1], l, sel, 1);
                    let (z, kz) = Self::half_src(w, src[2], l, sel, 2);
                    // A shift takes the low four bits of its amount.
                    let x = match a {
                        ops::Alu::ShlRev | ops::Alu::ShrRev | ops::Alu::SarRev => x & 15,
                        _ => ext(x),
                    };
                    let r = if ins.m.clamp {
                        ops::saturate(a, x, y, 16, ins.m.clamp_signed) as u32 & 0xffff
                    } else {
                        a.apply([x.into(), ext(y).into(), ext(z).into()], false) as u32 & 0xffff
                    };
                    let k = kx && ky && kz;
                    Self::set_half(w, d, l, r, k, dst_hi, gfx9);
                }
            }
            Op::VShift64(a) => {
                let (d, _) = Self::vreg(arg(0)?)?;
                for l in lanes(w.active()) {
                    let (s, ks) = Self::v32(w, arg(1)?, l);
                    let (x, kx) = Self::v64(w, arg(2)?, l);
                    let r = a.apply([u64::from(s), x, 0], true);
                    Self::set_v(w, d, l, r as u32, ks && kx);
                    Self::set_v(w, d + 1, l, (r >> 32) as u32, ks && kx);
                }
            }
            Op::VAddCo(kind, cin) => {
                let (d, _) = Self::vreg(arg(0)?)?;
                let (cmask, kc) = if cin {
                    Self::mask(w, arg(4)?)
                } else {
                    (0, true)
                };
                let (mut out, mut kall) = (0u64, kc);
                for l in lanes(w.active()) {
                    let (a, ka) = Self::v32(w, arg(2)?, l);
                    let (b, kb) = Self::v32(w, arg(3)?, l);
                    let c = cmask >> l & 1;
                    let (a, b) = if kind == 2 {
                        (u64::from(b), u64::from(a))
                    } else {
                        (u64::from(a), u64::from(b))
                    };
                    let (r, carry) = if kind == 0 {
                        let r = a + b + c;
                        (r, r > 0xffff_ffff)
                    } else {
                        (a.wrapping_sub(b).wrapping_sub(c), a < b + c)
                    };
                    let k = ka && kb && kc;
                    kall &= k;
                    Self::set_v(w, d, l, r as u32, k);
                    out |= u64::from(carry) << l;
                }
                Self::set_s(w, arg(1)?, out, kall)?;
            }
            Op::VMad64(signed) => {
                let (d, _) = Self::vreg(arg(0)?)?;
                let (mut out, mut kall) = (0u64, true);
                for l in lanes(w.active()) {
                    let (a, ka) = Self::v32(w, arg(2)?, l);
                    let (b, kb) = Self::v32(w, arg(3)?, l);
                    // The low half of the result depends on the addend's
                    // low half only: a high half never written does not
                    // make it unknown.
                    let (c, kc_lo, kc_hi) = Self::v64_halves(w, arg(4)?, l);
                    let (r, carry) = if signed {
                        let p = i128::from(a as i32) * i128::from(b as i32) + i128::from(c as i64);
                        (
                            p as u64,
                            p > i128::from(i64::MAX) || p < i128::from(i64::MIN),
                        )
                    } else {
                        let p = u128::from(a) * u128::from(b) + u128::from(c);
                        (p as u64, p > u128::from(u64::MAX))
                    };
                    let k_lo = ka && kb && kc_lo;
                    let k = k_lo && kc_hi;
                    kall &= k;
                    Self::set_v(w, d, l, r as u32, k_lo);
                    Self::set_v(w, d + 1, l, (r >> 32) as u32, k);
                    out |= u64::from(carry) << l;
                }
                Self::set_s(w, arg(1)?, out, kall)?;
            }
            Op::VCmp(c, t, x) => {
                // gfx9 VOPC writes its destination (VCC or an SGPR pair)
                // and, for cmpx, EXEC too; gfx11 cmpx writes EXEC only.
                let has_dst = o.len() == 3;
                let (s0, s1) = if has_dst {
                    (arg(1)?, arg(2)?)
                } else {
                    (arg(0)?, arg(1)?)
                };
                let (mut out, mut kall) = (0u64, true);
                for l in lanes(w.active()) {
                    let ((a, ka), (b, kb)) = if t.wide {
                        (Self::v64(w, s0, l), Self::v64(w, s1, l))
                    } else {
                        let ((a, ka), (b, kb)) = (Self::v32(w, s0, l), Self::v32(w, s1, l));
                        let e = |v: u32| match (t.half, t.signed) {
                            (false, true) => v as i32 as i64 as u64,
                            (false, false) => u64::from(v),
                            (true, true) => v as u16 as i16 as i64 as u64,
                            (true, false) => u64::from(v as u16),
                        };
                        ((e(a), ka), (e(b), kb))
                    };
                    kall &= ka && kb;
                    out |= u64::from(c.test(a, b, t.signed)) << l;
                }
                Self::compare_out(w, has_dst.then(|| arg(0)).transpose()?, x, out, kall)?;
            }
            Op::VCnd => {
                let (d, _) = Self::vreg(arg(0)?)?;
                let (m, km) = Self::mask(w, arg(3)?);
                // neg and abs flip or clear bit 31 (abs first), as on a float.
                let modify = |v: u32, i: usize| {
                    let v = if ins.m.abs >> i & 1 != 0 {
                        v & 0x7fff_ffff
                    } else {
                        v
                    };
                    if ins.m.neg >> i & 1 != 0 {
                        v ^ 0x8000_0000
                    } else {
                        v
                    }
                };
                for l in lanes(w.active()) {
                    let (a, ka) = Self::v32(w, arg(1)?, l);
                    let (b, kb) = Self::v32(w, arg(2)?, l);
                    let (a, b) = (modify(a, 1), modify(b, 2));
                    let pick = m >> l & 1 != 0;
                    let (v, k) = if pick { (b, kb) } else { (a, ka) };
                    Self::set_v(w, d, l, v, k && km);
                }
            }
            Op::GprIdxOn(mask) => {
                let (v, k) = Self::s32(w, arg(0)?);
                if !k {
                    return Err("the GPR index is symbolic".into());
                }
                let m0 = decode::M0 as usize;
                w.s[m0] = (w.s[m0] & !0xf0ff) | (v & 0xff) | u32::from(mask) << 12;
                w.sx[m0] &= !0xf0ff;
                w.gpr_idx = mask;
            }
            Op::GprIdxOff => w.gpr_idx = 0,
            // Rewritten into a move above.
            Op::VMovRel(..) => return Err("v_movrel* in an unexpected form".into()),
            Op::VReadFirst | Op::VReadLane => {
                let l = if ins.op == Op::VReadFirst {
                    let a = w.active();
                    if a == 0 {
                        0
                    } else {
                        a.trailing_zeros() as usize
                    }
                } else {
                    let (l, k) = Self::s32(w, arg(2)?);
                    if !k {
                        return Err("the lane select is symbolic".into());
                    }
                    (l & if w.wave64 { 63 } else { 31 }) as usize
                };
                let (v, k) = Self::v32(w, arg(1)?, l);
                Self::set_s(w, arg(0)?, u64::from(v), k)?;
            }
            Op::VWriteLane => {
                let (d, _) = Self::vreg(arg(0)?)?;
                let (v, kv) = Self::s32(w, arg(1)?);
                let (l, kl) = Self::s32(w, arg(2)?);
                if !kl {
                    return Err("the lane select is symbolic".into());
                }
                Self::set_v(w, d, (l & if w.wave64 { 63 } else { 31 }) as usize, v, kv);
            }
            Op::VMbcnt(hi) => {
                let (d, _) = Self::vreg(arg(0)?)?;
                for l in lanes(w.active()) {
                    let (m, km) = Self::v32(w, arg(1)?, l);
                    let (b, kb) = Self::v32(w, arg(2)?, l);
                    let below: u64 = (1u64 << l) - 1;
                    let part = if hi {
                        (below >> 32) as u32
                    } else {
                        below as u32
                    };
                    Self::set_v(w, d, l, (m & part).count_ones().wrapping_add(b), km && kb);
                }
            }
            Op::VF32(f) => {
                if self.launch.desc.f32_round != 0 {
                    return Err(format!(
                        "binary32 rounding mode {} (.amdhsa_float_round_mode_32) is not emulated: only round to nearest even",
                        self.launch.desc.f32_round
                    ));
                }
                let (d, _) = Self::vreg(arg(0)?)?;
                let n = f.arity();
                let src = Self::sources(o, n)?;
                let fm = Self::fmods(&ins.m, 1, true);
                let mode = self.denorm;
                for l in lanes(w.active()) {
                    let (x, kx) = Self::v32(w, src[0], l);
                    let (y, ky) = Self::v32(w, src[1], l);
                    let (z, kz) = Self::v32(w, src[2], l);
                    let (old, ko) = if f.accumulates() {
                        Self::v32(w, Opnd::V(d as u16, 1), l)
                    } else {
                        (0, true)
                    };
                    let r = float::apply(f, [x, y, z], old, fm, mode);
                    Self::set_v(w, d, l, r, kx && ky && kz && ko);
                }
            }
            Op::VCmpF(_, x)
            | Op::VCmpClass(x)
            | Op::VCmpF16(_, x)
            | Op::VCmpClass16(x)
            | Op::VCmpF64(_, x)
            | Op::VCmpClass64(x) => {
                // As VCmp: gfx9 VOPC writes its destination (VCC or an SGPR
                // pair) and, for cmpx, EXEC too; gfx11 cmpx writes EXEC only.
                let has_dst = o.len() == 3;
                let first = usize::from(has_dst);
                let (s0, s1) = (arg(first)?, arg(first + 1)?);
                let fm = Self::fmods(&ins.m, first, false);
                let sel = ins.m.op_sel;
                let (mut out, mut kall) = (0u64, true);
                for l in lanes(w.active()) {
                    // A class test's source 1 is a 32-bit mask.
                    let (mask, km) = Self::v32(w, s1, l);
                    let (hit, k) = match ins.op {
                        Op::VCmpF(c, _) => {
                            let (a, ka) = Self::v32(w, s0, l);
                            (c.test(a, mask, fm, self.denorm), ka && km)
                        }
                        Op::VCmpClass(_) => {
                            let (a, ka) = Self::v32(w, s0, l);
                            (float::class_test(a, mask, fm), ka && km)
                        }
                        Op::VCmpF16(c, _) => {
                            let (a, ka) = Self::half_src(w, s0, l, sel, 0);
                            let (b, kb) = Self::half_src(w, s1, l, sel, 1);
                            (
                                half::cmp(c, a as u16, b as u16, fm, self.modes.f64),
                                ka && kb,
                            )
                        }
                        Op::VCmpClass16(_) => {
                            let (a, ka) = Self::half_src(w, s0, l, sel, 0);
                            (half::class(a as u16, mask, fm), ka && km)
                        }
                        Op::VCmpF64(c, _) => {
                            let ((a, ka), (b, kb)) =
                                (Self::f64_src(w, s0, l), Self::f64_src(w, s1, l));
                            (wide::cmp64(c, a, b, fm, self.modes.f64), ka && kb)
                        }
                        _ => {
                            let (a, ka) = Self::f64_src(w, s0, l);
                            (wide::class64(a, mask, fm), ka && km)
                        }
                    };
                    kall &= k;
                    out |= u64::from(hit) << l;
                }
                Self::compare_out(w, has_dst.then(|| arg(0)).transpose()?, x, out, kall)?;
            }
            Op::VWide(f) => {
                self.round_modes()?;
                let (d, _) = Self::vreg(arg(0)?)?;
                let n = f.arity();
                let src = Self::sources(o, n)?;
                let fm = Self::fmods(&ins.m, 1, true);
                let (vcc, kv) = if f.reads_vcc() {
                    Self::mask(w, Opnd::S(VCC, 2))
                } else {
                    (0, true)
                };
                for l in lanes(w.active()) {
                    let mut v = [0u64; 3];
                    let mut k = kv;
                    for i in 0..n {
                        let (x, kx) = Self::wide_src(w, src[i], l, f.src_wide(i));
                        v[i] = x;
                        k &= kx;
                    }
                    let (r, scaled) = wide::apply(f, v, vcc >> l & 1 != 0, fm, self.modes);
                    Self::set_v(w, d, l, r as u32, k);
                    if f.dst_wide() {
                        Self::set_v(w, d + 1, l, (r >> 32) as u32, k);
                    }
                    if scaled {
                        marked |= 1 << l;
                    }
                }
            }
            Op::VF16(f) => {
                self.round_modes()?;
                let (d, _) = Self::vreg(arg(0)?)?;
                let n = f.arity();
                let src = Self::sources(o, n)?;
                let fm = Self::fmods(&ins.m, 1, true);
                let sel = ins.m.op_sel;
                let dst_hi = Self::op_sel_dst(&ins.m, n)?;
                // gfx9 zeroes the high half except for the accumulating
                // forms, which keep it (LLVM's zeroesHigh16BitsOfDest).
                let zero = self.profile.gfx() == 9 && !f.accumulates();
                for l in lanes(w.active()) {
                    let mut v = [0u32; 3];
                    let mut k = true;
                    for (i, x) in v.iter_mut().enumerate().take(n) {
                        let (y, ky) = if i == 0 && f.source32() {
                            Self::v32(w, src[0], l)
                        } else {
                            Self::half_src(w, src[i], l, sel, i)
                        };
                        *x = y;
                        k &= ky;
                    }
                    let (acc, ka) = if f.accumulates() {
                        Self::half_src(w, Opnd::V(d as u16, 1), l, u8::from(dst_hi), 0)
                    } else {
                        (0, true)
                    };
                    let r = half::apply(f, v, acc as u16, fm, self.modes.f64, self.modes.f32);
                    if f.result32() {
                        Self::set_v(w, d, l, r, k);
                    } else {
                        Self::set_half(w, d, l, r, k && ka, dst_hi, zero);
                    }
                }
            }
            Op::VPk16(a, signed) => {
                if ins.m.clamp {
                    return Err("clamp on a packed integer operation is not emulated".into());
                }
                let (d, _) = Self::vreg(arg(0)?)?;
                let n = a.arity();
                let ext = |v: u32| {
                    if signed {
                        v as u16 as i16 as i32 as u32
                    } else {
                        v & 0xffff
                    }
                };
                for l in lanes(w.active()) {
                    let mut k = true;
                    let mut s = [(0u32, 0u32); 3];
                    for (i, x) in s.iter_mut().enumerate().take(n) {
                        let (v, kv) = Self::packed_src(w, arg(1 + i)?, l, &ins.m, i);
                        *x = v;
                        k &= kv;
                    }
                    let one = |x: u32, y: u32, z: u32| -> u32 {
                        let x = match a {
                            ops::Alu::ShlRev | ops::Alu::ShrRev | ops::Alu::SarRev => x & 15,
                            _ => ext(x),
                        };
                        a.apply([x.into(), ext(y).into(), ext(z).into()], false) as u32 & 0xffff
                    };
                    let lo = one(s[0].0, s[1].0, s[2].0);
                    let hi = one(s[0].1, s[1].1, s[2].1);
                    Self::set_v(w, d, l, lo | hi << 16, k);
                }
            }
            Op::VPkF16(f) => {
                self.round_modes()?;
                let (d, _) = Self::vreg(arg(0)?)?;
                let n = f.arity();
                let fm = |neg: u8| float::FMods {
                    neg,
                    abs: 0,
                    clamp: ins.m.clamp,
                    omod: 0,
                };
                let (lo_m, hi_m) = (fm(ins.m.neg_lo), fm(ins.m.neg_hi));
                for l in lanes(w.active()) {
                    let mut k = true;
                    let mut s = [(0u32, 0u32); 3];
                    for (i, x) in s.iter_mut().enumerate().take(n) {
                        let (v, kv) = Self::packed_src(w, arg(1 + i)?, l, &ins.m, i);
                        *x = v;
                        k &= kv;
                    }
                    let (m64, m32) = (self.modes.f64, self.modes.f32);
                    let lo = half::apply(f, [s[0].0, s[1].0, s[2].0], 0, lo_m, m64, m32);
                    let hi = half::apply(f, [s[0].1, s[1].1, s[2].1], 0, hi_m, m64, m32);
                    Self::set_v(w, d, l, lo | hi << 16, k);
                }
            }
            Op::VDivScale(wide) => {
                self.round_modes()?;
                let (d, _) = Self::vreg(arg(0)?)?;
                let fm = Self::fmods(&ins.m, 2, true);
                let mode = if wide { self.modes.f64 } else { self.modes.f32 };
                let (mut out, mut kall) = (0u64, true);
                for l in lanes(w.active()) {
                    let mut v = [0u64; 3];
                    let mut k = true;
                    for (i, x) in v.iter_mut().enumerate() {
                        let (y, ky) = Self::wide_src(w, arg(2 + i)?, l, wide);
                        *x = y;
                        k &= ky;
                    }
                    let (r, vcc) = if wide {
                        wide::div_scale64(v, fm, mode)
                    } else {
                        let (r, vcc) =
                            wide::div_scale32([v[0] as u32, v[1] as u32, v[2] as u32], fm, mode);
                        (u64::from(r), vcc)
                    };
                    Self::set_v(w, d, l, r as u32, k);
                    if wide {
                        Self::set_v(w, d + 1, l, (r >> 32) as u32, k);
                    }
                    out |= u64::from(vcc) << l;
                    kall &= k;
                }
                Self::set_s(w, arg(1)?, out, kall)?;
            }
            Op::VFloat => {
                // The destination (and a VOP3b carry-out or a compare's
                // mask) becomes symbolic in the active lanes.
                match o.first() {
                    Some(Opnd::V(n, c)) => {
                        for r in *n as usize..*n as usize + *c as usize {
                            w.vk[r] &= !w.active();
                            w.vlo[r] &= !w.active();
                        }
                        if let Some(s @ Opnd::S(..)) = o.get(1) {
                            Self::set_s(w, *s, 0, false)?;
                        }
                    }
                    Some(s @ Opnd::S(..)) => Self::set_s(w, *s, 0, false)?,
                    _ => {}
                }
            }
            Op::Ds(code) => self.ds(code, ins, at, w)?,
            Op::Global(m, _) => self.global(m, ins, at, w)?,
            Op::Buffer(m) => self.buffer(m, ins, at, w)?,
        }
        match dests {
            Some(n) => {
                for d in &o[..n] {
                    if marked != 0 && matches!(d, Opnd::S(r, _) if *r == EXEC || *r == EXEC + 1) {
                        self.approx.entry(at).or_insert("EXEC");
                    }
                    Self::set_approx(w, *d, act, marked);
                }
                if marked != 0
                    && matches!(
                        ins.op,
                        Op::VCmp(_, _, true)
                            | Op::VCmpF(_, true)
                            | Op::VCmpClass(true)
                            | Op::SSaveexec(..)
                    )
                {
                    self.approx.entry(at).or_insert("EXEC");
                }
            }
            // A load's data is not approximate (memory does not carry the
            // mark).
            None if Self::loads(ins) => {
                if let Some(d) = o.first() {
                    Self::set_approx(w, *d, act, 0);
                }
            }
            None => {}
        }
        if let Some(d) = &ins.dual {
            self.step(d, at, w)?;
        }
        Ok(None)
    }

    /// Whether `ins` is a vector ALU instruction (whose VGPR operands
    /// `s_set_gpr_idx_on` indexes).
    fn is_valu(ins: &Ins) -> bool {
        use ops::Op::*;
        matches!(
            ins.op,
            VUn(_)
                | VAlu(_)
                | VAlu16(..)
                | VShift64(_)
                | VAddCo(..)
                | VMad64(_)
                | VCmp(..)
                | VCnd
                | VMovRel(..)
                | VReadFirst
                | VReadLane
                | VWriteLane
                | VMbcnt(_)
                | VF32(_)
                | VCmpF(..)
                | VCmpClass(_)
                | VWide(_)
                | VDivScale(_)
                | VCmpF64(..)
                | VCmpClass64(_)
                | VF16(_)
                | VPk16(..)
                | VPkF16(_)
                | VCmpF16(..)
                | VCmpClass16(_)
                | VFloat
        )
    }

    /// The halves of a packed operation's source `i` in lane `l`: (for the
    /// low result, for the high result) as `op_sel`/`op_sel_hi` pick them.
    /// An inline float constant is its binary16 value in the low half.
    fn packed_src(w: &Wave, o: Opnd, l: usize, m: &Mods, i: usize) -> ((u32, u32), bool) {
        let (v, k) = match o {
            Opnd::Float(_, d) => (u32::from(half::from_f64(f64::from_bits(d))), true),
            o => Self::v32(w, o, l),
        };
        let hi_sel = if m.op_sel_hi_n == 0 {
            0xff
        } else {
            m.op_sel_hi
        };
        let pick = |hi: bool| if hi { v >> 16 } else { v & 0xffff };
        (
            (pick(m.op_sel >> i & 1 != 0), pick(hi_sel >> i & 1 != 0)),
            k,
        )
    }

    /// Whether `op_sel` names the destination's high half, for an operation
    /// of `n` sources (a list longer than the sources and the destination is
    /// an error, not ignored).
    fn op_sel_dst(m: &Mods, n: usize) -> R<bool> {
        let len = usize::from(m.op_sel_n);
        if len > n + 1 {
            return Err(format!(
                "op_sel has {len} entries: the operation has {n} sources and a destination"
            ));
        }
        Ok(len == n + 1 && m.op_sel >> n & 1 != 0)
    }

    /// The 16 bits of a 16-bit operation's source `i` of `o` in lane `l`:
    /// the high half where `op_sel` says so.
    fn half_src(w: &Wave, o: Opnd, l: usize, sel: u8, i: usize) -> (u32, bool) {
        // An inline float constant is the binary16 value for a 16-bit
        // operation.
        if let Opnd::Float(_, d) = o {
            return (u32::from(half::from_f64(f64::from_bits(d))), true);
        }
        if sel >> i & 1 != 0 {
            let (v, k) = Self::v32(w, o, l);
            (v >> 16, k)
        } else {
            let (v, k) = Self::v32_lo(w, o, l);
            (v & 0xffff, k)
        }
    }

    /// Writes a 16-bit result `r` into `d` in lane `l`: the high half when
    /// `op_sel` names the destination (the low half kept), else the low
    /// half, the high half zeroed (`zero`: gfx9's ALU) or kept.
    fn set_half(w: &mut Wave, d: usize, l: usize, r: u32, k: bool, hi: bool, zero: bool) {
        let old = w.v[d][l];
        let (old_all, old_lo) = (w.vk[d] >> l & 1 != 0, w.vlo[d] >> l & 1 != 0);
        if hi {
            // The high half written, the low one kept: known if both are
            // (a high half alone is not tracked).
            Self::set_v_parts(w, d, l, old & 0xffff | r << 16, old_lo, k);
        } else if zero {
            Self::set_v(w, d, l, r & 0xffff, k);
        } else {
            // The low half written, the high one kept.
            Self::set_v_parts(w, d, l, old & 0xffff_0000 | r & 0xffff, k, old_all);
        }
    }

    /// The first `n` (at most 3) sources after the destination (operand
    /// 0); constants 0 for the others.
    fn sources(o: &[Opnd], n: usize) -> R<[Opnd; 3]> {
        let mut src = [Opnd::Imm(0); 3];
        for (i, s) in src.iter_mut().enumerate().take(n) {
            *s = *o
                .get(1 + i)
                .ok_or_else(|| format!("expected at least {} operands", i + 2))?;
        }
        Ok(src)
    }

    /// The float modifiers of the sources from operand `first` on, with
    /// the output modifiers when `out`.
    fn fmods(m: &Mods, first: usize, out: bool) -> float::FMods {
        float::FMods {
            neg: (m.neg >> first) as u8,
            abs: (m.abs >> first) as u8,
            clamp: out && m.clamp,
            omod: if out { m.omod } else { 0 },
        }
    }

    /// A binary64 source: a 32-bit literal (not an inline integer) is the
    /// high half of the value, as the assembler writes it.
    fn f64_src(w: &Wave, o: Opnd, l: usize) -> (u64, bool) {
        match o {
            Opnd::Imm(v) if !(-16..=64).contains(&(v as i64)) => ((v & 0xffff_ffff) << 32, true),
            o => Self::v64(w, o, l),
        }
    }

    /// A source of a mixed-width operation.
    fn wide_src(w: &Wave, o: Opnd, l: usize, wide: bool) -> (u64, bool) {
        if wide {
            Self::f64_src(w, o, l)
        } else {
            let (v, k) = Self::v32(w, o, l);
            (u64::from(v), k)
        }
    }

    /// Both rounding modes must be round to nearest even.
    fn round_modes(&self) -> R<()> {
        let d = &self.launch.desc;
        if d.f32_round != 0 || d.f64_round != 0 {
            return Err(format!(
                "rounding modes {}/{} (.amdhsa_float_round_mode_32/_16_64) are not emulated: only round to nearest even",
                d.f32_round, d.f64_round
            ));
        }
        Ok(())
    }

    /// `ins` with the VGPR operands the index mode names moved by
    /// M0[7:0].
    fn gpr_indexed(ins: &Ins, w: &Wave) -> R<Ins> {
        if w.sx[decode::M0 as usize] & 0xff != 0 {
            return Err("the GPR index (M0[7:0]) is symbolic".into());
        }
        let idx = (w.s[decode::M0 as usize] & 0xff) as u16;
        let mut out = ins.clone();
        let dests = ins.op.alu_dests(ins.o.len()).unwrap_or(0);
        for (i, o) in out.o.iter_mut().enumerate() {
            let bit = if i < dests {
                u8::from(i == 0) << 3
            } else if i - dests < 3 {
                1 << (i - dests)
            } else {
                0
            };
            if let Opnd::V(n, c) = o {
                if w.gpr_idx & bit != 0 {
                    if usize::from(*n + idx) + usize::from(*c) > NVGPR {
                        return Err(format!("v{} indexed by {idx} is past the last VGPR", *n));
                    }
                    *n += idx;
                }
            }
        }
        Ok(out)
    }

    fn vreg_or_s(o: Opnd) -> R<(usize, usize)> {
        match o {
            Opnd::S(n, c) => Ok((n as usize, c as usize)),
            o => Err(format!("{o:?} is not an SGPR destination")),
        }
    }

    fn jump(&self, ins: &Ins, w: &mut Wave) -> Option<Stop> {
        match ins.target {
            Some(t) => {
                w.pc = t;
                None
            }
            None => Some(Stop::End),
        }
    }

    // ---- LDS --------------------------------------------------------------

    fn ds(&mut self, code: u8, ins: &Ins, at: usize, w: &mut Wave) -> R<()> {
        let info = OpInfo::decode(code);
        let o = &ins.o;
        let get = |i: usize| -> R<Opnd> {
            o.get(i)
                .copied()
                .ok_or_else(|| "missing operands".to_string())
        };
        let cmpst = info.atomic == Some(gpucosim_model::lds::isa::Atomic::Cmpst);
        let (dst, addr, d0, d1) = match info.kind {
            DsKind::Load if info.addtid => (Some(get(0)?), None, None, None),
            DsKind::Load => (Some(get(0)?), Some(get(1)?), None, None),
            DsKind::Store if info.addtid => (None, None, Some(get(0)?), None),
            DsKind::Store if info.two => (None, Some(get(0)?), Some(get(1)?), Some(get(2)?)),
            DsKind::Store => (None, Some(get(0)?), Some(get(1)?), None),
            DsKind::Atomic => {
                let b = usize::from(info.rtn);
                (
                    info.rtn.then(|| get(0)).transpose()?,
                    Some(get(b)?),
                    Some(get(b + 1)?),
                    if cmpst { Some(get(b + 2)?) } else { None },
                )
            }
            DsKind::Permute | DsKind::Bpermute => {
                (Some(get(0)?), Some(get(1)?), Some(get(2)?), None)
            }
            DsKind::Invalid => return Err("not an LDS operation".into()),
        };
        let (off0, off1) = if info.two {
            (ins.m.offset0.unwrap_or(0), ins.m.offset1.unwrap_or(0))
        } else {
            let x = ins.m.offset.unwrap_or(0) as u32;
            (x & 0xff, x >> 8 & 0xff)
        };
        if off0 > 255 || off1 > 255 {
            return Err("an offset field is over 255".into());
        }
        let active = w.active();
        let mut req = Request {
            op: code,
            wave64: w.wave64,
            wgp: self.launch.desc.wgp,
            unaligned: self.launch.align_mode == 3,
            exec: w.exec() & w.all_lanes(),
            offset0: off0 as u8,
            offset1: off1 as u8,
            m0: w.s[M0 as usize],
            lds_base: 0,
            lds_size: self.launch.lds_size,
            ..Request::default()
        };
        if info.addtid && !w.sknown(M0 as usize) {
            return Err("M0 is symbolic".into());
        }
        // DATA0 of a b64 is a VGPR pair; of a b96 or b128 a triple or
        // quadruple, whose bytes 0-7 go to the unit's DATA0 and 8-15 to its
        // DATA1 (docs/lds.md "Data").
        let dwords = match info.width {
            8 => 2,
            12 => 3,
            16 => 4,
            _ => 1,
        };
        let read = |w: &Wave, d: Opnd, l: usize, from: usize, n: usize| -> (u64, bool) {
            match d {
                Opnd::V(r, _) => (from..from + n).fold((0u64, true), |(v, k), i| {
                    let (x, kx) = Self::v32(w, Opnd::V(r + i as u16, 1), l);
                    (v | u64::from(x) << (32 * (i - from)), k && kx)
                }),
                _ if n == 2 => Self::v64(w, d, l),
                _ => {
                    let (x, k) = Self::v32(w, d, l);
                    (u64::from(x), k)
                }
            }
        };
        if dwords > 2 {
            if let Some(d) = d0 {
                Self::vregs(d, dwords)?;
            }
        }
        for l in lanes(active) {
            if let Some(a) = addr {
                let (v, k) = Self::v32(w, a, l);
                if !k {
                    return Err(format!(
                        "the address ({}) of lane {l} is symbolic: it depends on a register never written, unfilled memory, or a floating-point operation the emulator does not compute",
                        text(a)
                    ));
                }
                req.addr[l] = v;
            }
            if let Some(d) = d0 {
                req.data0[l] = read(w, d, l, 0, dwords.min(2)).0;
                if dwords > 2 {
                    req.data1[l] = read(w, d, l, 2, dwords - 2).0;
                }
            }
            if let Some(d) = d1 {
                req.data1[l] = read(w, d, l, 0, dwords.min(2)).0;
            }
        }
        let known = |w: &Wave, d: Opnd, l: usize, n: usize| -> bool {
            match d {
                Opnd::V(r, _) => (0..n).all(|i| Self::v32(w, Opnd::V(r + i as u16, 1), l).1),
                _ if n == 2 => Self::v64(w, d, l).1,
                _ => Self::v32(w, d, l).1,
            }
        };
        let dk = |w: &Wave, l: usize| -> bool {
            d0.is_none_or(|d| known(w, d, l, dwords))
                && d1.is_none_or(|d| known(w, d, l, dwords.min(2)))
        };
        // The emulator's own semantics (SPEC §2.1, §2.3).
        let mut result = [0u128; 64];
        let mut rknown = !0u64;
        let mut memviol = 0u64;
        let mut touched: Vec<u32> = Vec::new();
        let size = self.launch.lds_size;
        let ramd = self.ram_dwords;
        let phys = |byte: u32| -> Option<usize> {
            ((byte & !3) < size).then(|| ((byte >> 2) & (ramd - 1)) as usize)
        };
        let width = u32::from(info.width);
        let store_d0 = LdsParams::of(self.profile).cmpst_store_data0;
        match info.kind {
            DsKind::Load | DsKind::Store => {
                let off16 = off0 | off1 << 8;
                let adj = if info.st64 { width * 64 } else { width };
                for l in lanes(active) {
                    let addrs: [Option<u32>; 2] = if info.addtid {
                        [
                            Some(off16.wrapping_add(4 * l as u32).wrapping_add(req.m0 & !3)),
                            None,
                        ]
                    } else if info.two {
                        [
                            Some(req.addr[l].wrapping_add(off0 * adj)),
                            Some(req.addr[l].wrapping_add(off1 * adj)),
                        ]
                    } else {
                        [Some(req.addr[l].wrapping_add(off16)), None]
                    };
                    let known_in = dk(w, l);
                    for (e, a) in addrs.iter().enumerate() {
                        let Some(mut a) = *a else { continue };
                        if !req.unaligned {
                            a &= !(info.align() - 1);
                        }
                        let data = if width > 8 {
                            u128::from(req.data0[l]) | u128::from(req.data1[l]) << 64
                        } else {
                            u128::from(if e == 0 { req.data0[l] } else { req.data1[l] })
                        };
                        for i in 0..width {
                            let b = a.wrapping_add(i);
                            let p = phys(b);
                            let sh = 8 * (b & 3);
                            if info.kind == DsKind::Load {
                                if let Some(p) = p {
                                    let byte = (self.lds[p] >> sh) & 0xff;
                                    result[l] |= u128::from(byte) << (8 * (e as u32 * width + i));
                                    if self.lds_known[p] >> (b & 3) & 1 == 0 {
                                        rknown &= !(1 << l);
                                    }
                                }
                            } else if let Some(p) = p {
                                let byte = (data >> (8 * i)) as u32 & 0xff;
                                self.lds[p] = self.lds[p] & !(0xff << sh) | byte << sh;
                                if known_in {
                                    self.lds_known[p] |= 1 << (b & 3);
                                } else {
                                    self.lds_known[p] &= !(1 << (b & 3));
                                }
                                touched.push(p as u32);
                            }
                        }
                    }
                    if info.kind == DsKind::Load && info.signed {
                        result[l] = match width {
                            1 => u128::from(result[l] as u8 as i8 as i32 as u32),
                            _ => u128::from(result[l] as u16 as i16 as i32 as u32),
                        };
                    }
                }
            }
            DsKind::Atomic => {
                let off16 = off0 | off1 << 8;
                let op = info.atomic.expect("an atomic op");
                for l in lanes(active) {
                    let a = req.addr[l].wrapping_add(off16);
                    if a & 3 != 0 {
                        memviol |= 1 << l;
                        continue;
                    }
                    let Some(p) = phys(a) else { continue };
                    let old = self.lds[p];
                    self.lds[p] = op.apply(old, req.data0[l] as u32, req.data1[l] as u32, store_d0);
                    if info.rtn {
                        result[l] = u128::from(old);
                        if self.lds_known[p] != 0xf {
                            rknown &= !(1 << l);
                        }
                    }
                    if !dk(w, l) || self.lds_known[p] != 0xf {
                        self.lds_known[p] = 0;
                    }
                    touched.push(p as u32);
                }
            }
            DsKind::Permute | DsKind::Bpermute => {
                let off16 = off0 | off1 << 8;
                let gfx9 = self.profile.gfx() == 9;
                for i in lanes(active) {
                    let idx = (req.addr[i].wrapping_add(off16) >> 2) as usize;
                    let s = if gfx9 {
                        idx % 64
                    } else {
                        32 * (i / 32) + idx % 32
                    };
                    if info.kind == DsKind::Bpermute {
                        if active >> s & 1 != 0 {
                            result[i] = u128::from(req.data0[s] as u32);
                            if !Self::v32(w, d0.expect("data"), s).1 {
                                rknown &= !(1 << i);
                            }
                        }
                    } else if active >> s & 1 != 0 {
                        result[s] = u128::from(req.data0[i] as u32);
                        if !Self::v32(w, d0.expect("data"), i).1 {
                            rknown &= !(1 << s);
                        } else {
                            rknown |= 1 << s;
                        }
                    }
                }
            }
            DsKind::Invalid => {}
        }
        // The unit's model, on the same request: its read data and RAM must
        // be the emulator's.
        self.unit.run(&req, |_| {});
        let out = &self.unit.out;
        if out.memviol != memviol {
            return Err(format!(
                "the LDS unit's model raised MEMVIOL on lanes {:#x}, the emulator on {memviol:#x}",
                out.memviol
            ));
        }
        if info.rtn {
            for l in lanes(active) {
                if out.rdata[l] != result[l] {
                    return Err(format!(
                        "lane {l}: the LDS unit's model returned {:#x}, the emulator's LDS holds {:#x}",
                        out.rdata[l], result[l]
                    ));
                }
            }
        }
        for &p in &touched {
            if self.unit.ram[p as usize] != self.lds[p as usize] {
                return Err(format!(
                    "the LDS unit's model holds {:#x} at byte {:#x}, the emulator's LDS {:#x}",
                    self.unit.ram[p as usize],
                    4 * p,
                    self.lds[p as usize]
                ));
            }
        }
        if let Some(d) = dst {
            let (r, c) = Self::vreg(d)?;
            for l in lanes(active) {
                for k in 0..c {
                    Self::set_v(
                        w,
                        r + k,
                        l,
                        (result[l] >> (32 * k)) as u32,
                        rknown >> l & 1 != 0,
                    );
                }
            }
        }
        self.stats.ds(at, &self.unit, self.banks);
        if self.record {
            if self.traffic.lds.len() >= self.max_traffic {
                return Err(too_much("LDS", self.max_traffic));
            }
            let gap = self.rng.gen_range(0..=2);
            self.traffic.lds.push(LdsTxn { req, gap });
        }
        Ok(())
    }

    // ---- global and flat ---------------------------------------------------

    fn global(&mut self, m: Mem, ins: &Ins, at: usize, w: &mut Wave) -> R<()> {
        let o = &ins.o;
        let get = |i: usize| -> R<Opnd> {
            o.get(i)
                .copied()
                .ok_or_else(|| "missing operands".to_string())
        };
        // Operand positions: loads `vdst, vaddr[, saddr]`; stores `vaddr,
        // vdata[, saddr]`; atomics `[vdst,] vaddr, vdata[, saddr]`.
        let (dst, vaddr, data, saddr_i) = match m {
            Mem::Load { .. } => (Some(get(0)?), get(1)?, None, 2),
            Mem::Store { .. } => (None, get(0)?, Some(get(1)?), 2),
            Mem::Atomic { .. } if ins.m.glc => (Some(get(0)?), get(1)?, Some(get(2)?), 3),
            Mem::Atomic { .. } => (None, get(0)?, Some(get(1)?), 2),
            Mem::Format { .. } => return Err("not a global access".into()),
        };
        let saddr = match o.get(saddr_i) {
            Some(s @ Opnd::S(..)) => Some(Self::known_s(w, *s, "the scalar address")?),
            _ => None,
        };
        let off = ins.m.offset.unwrap_or(0) as u64;
        if let Some(d) = data {
            Self::vregs(d, m.data_regs())?;
        }
        if let Some(d) = dst {
            let n = match m {
                Mem::Atomic { bytes, .. } => usize::from(bytes / 4),
                _ => m.data_regs(),
            };
            Self::vregs(d, n)?;
        }
        let active = w.active();
        for l in lanes(active) {
            let base = match saddr {
                Some(s) => {
                    let (v, k) = Self::v32(w, vaddr, l);
                    if !k {
                        return Err(format!(
                            "the offset ({}) of lane {l} is symbolic",
                            text(vaddr)
                        ));
                    }
                    s.wrapping_add(u64::from(v))
                }
                None => {
                    let (v, k) = Self::v64(w, vaddr, l);
                    if !k {
                        return Err(format!(
                            "the address ({}) of lane {l} is symbolic",
                            text(vaddr)
                        ));
                    }
                    v
                }
            };
            let addr = base.wrapping_add(off);
            let lane_err = |e: String| format!("lane {l}: {e}");
            match m {
                Mem::Load { bytes, signed } => {
                    let (r, _) = Self::vreg(dst.expect("a destination"))?;
                    if bytes < 4 {
                        let (v, k) = self.mem.read(addr, bytes as usize).map_err(lane_err)?;
                        let v = match (bytes, signed) {
                            (1, true) => v as u8 as i8 as i32 as u32,
                            (2, true) => v as u16 as i16 as i32 as u32,
                            _ => v as u32,
                        };
                        Self::set_v(w, r, l, v, k);
                    } else {
                        for d in 0..(bytes / 4) as usize {
                            let (v, k) = self.mem.read(addr + 4 * d as u64, 4).map_err(lane_err)?;
                            Self::set_v(w, r + d, l, v as u32, k);
                        }
                    }
                }
                Mem::Store { bytes } => {
                    let (r, _) = Self::vreg(data.expect("data"))?;
                    if bytes < 4 {
                        // A byte or short store writes the low half only.
                        let (v, k) = Self::v32_lo(w, Opnd::V(r as u16, 1), l);
                        self.mem
                            .write(addr, bytes as usize, u64::from(v), k)
                            .map_err(lane_err)?;
                    } else {
                        for d in 0..(bytes / 4) as usize {
                            let (v, k) = Self::v32(w, Opnd::V((r + d) as u16, 1), l);
                            self.mem
                                .write(addr + 4 * d as u64, 4, u64::from(v), k)
                                .map_err(lane_err)?;
                        }
                    }
                }
                Mem::Atomic { op, bytes } => {
                    let old = self
                        .atomic(op, bytes, addr, data.expect("data"), w, l)
                        .map_err(lane_err)?;
                    if let Some(d) = dst {
                        let (r, _) = Self::vreg(d)?;
                        Self::set_v(w, r, l, old.0 as u32, old.1);
                        if bytes == 8 {
                            Self::set_v(w, r + 1, l, (old.0 >> 32) as u32, old.1);
                        }
                    }
                }
                Mem::Format { .. } => {}
            }
        }
        self.stats.global(at, active.count_ones());
        Ok(())
    }

    /// A memory atomic at `addr` with the data of `data` in lane `l`:
    /// the pre-op value and whether it is known.
    fn atomic(
        &mut self,
        op: MemAtomic,
        bytes: u8,
        addr: u64,
        data: Opnd,
        w: &Wave,
        l: usize,
    ) -> R<(u64, bool)> {
        let (r, _) = Self::vreg(data)?;
        let n = bytes as usize;
        let dw = n / 4;
        let (val, kv) = if dw == 2 {
            Self::v64(w, Opnd::V(r as u16, 2), l)
        } else {
            let (v, k) = Self::v32(w, Opnd::V(r as u16, 1), l);
            (u64::from(v), k)
        };
        let (cmp, kc) = if op == MemAtomic::CmpSwap {
            if dw == 2 {
                Self::v64(w, Opnd::V((r + 2) as u16, 2), l)
            } else {
                let (v, k) = Self::v32(w, Opnd::V((r + 1) as u16, 1), l);
                (u64::from(v), k)
            }
        } else {
            (0, true)
        };
        let (old, ko) = self.mem.read(addr, n)?;
        let new = op.apply(old, val, cmp, n);
        self.mem.write(addr, n, new, ko && kv && kc)?;
        Ok((old, ko))
    }

    // ---- buffers -----------------------------------------------------------

    fn buffer(&mut self, m: Mem, ins: &Ins, at: usize, w: &mut Wave) -> R<()> {
        let o = &ins.o;
        let get = |i: usize| -> R<Opnd> {
            o.get(i)
                .copied()
                .ok_or_else(|| "missing operands".to_string())
        };
        let vdata = get(0)?;
        let vaddr = get(1)?;
        let rsrc = match get(2)? {
            Opnd::S(n, 4) => n as usize,
            x => return Err(format!("the resource ({}) must be 4 SGPRs", text(x))),
        };
        if !(0..4).all(|k| w.sknown(rsrc + k)) {
            return Err(format!(
                "the resource (s[{}:{}]) is symbolic",
                rsrc,
                rsrc + 3
            ));
        }
        let vsharp = (0..4).fold(0u128, |a, k| a | u128::from(w.s[rsrc + k]) << (32 * k));
        let soffset = match o.get(3) {
            Some(Opnd::Imm(v)) => *v as u32,
            Some(s) => Self::known_s(w, *s, "soffset")? as u32,
            None => 0,
        };
        let inst_offset = ins.m.offset.unwrap_or(0);
        if !(0..4096).contains(&inst_offset) {
            return Err(format!("offset:{inst_offset} is outside 0..4095"));
        }
        let (kind, op, size, fmt) = match m {
            Mem::Load { bytes, .. } => (TaKind::Mubuf, TaOp::Load, u32::from(bytes), 0),
            Mem::Store { bytes } => (TaKind::Mubuf, TaOp::Store, u32::from(bytes), 0),
            Mem::Atomic { bytes, .. } => (
                TaKind::Mubuf,
                if ins.m.glc {
                    TaOp::AtomicRet
                } else {
                    TaOp::Atomic
                },
                u32::from(bytes),
                0,
            ),
            Mem::Format {
                store,
                dwords,
                typed,
            } => (
                if typed {
                    TaKind::Mtbuf
                } else {
                    TaKind::MubufFormat
                },
                if store { TaOp::Store } else { TaOp::Load },
                u32::from(dwords) * 4,
                if typed { self.format(ins)? } else { 0 },
            ),
        };
        let mut instr = Instr {
            vsharp,
            kind,
            op,
            size,
            fmt,
            offen: ins.m.offen,
            idxen: ins.m.idxen,
            inst_offset: inst_offset as u32,
            soffset,
            align_mode: self.launch.align_mode,
            wave64: w.wave64,
            exec: w.exec() & w.all_lanes(),
            ..Instr::default()
        };
        let active = w.active();
        for l in lanes(active) {
            let mut reg = match vaddr {
                Opnd::V(n, _) => Some(n as usize),
                _ => None,
            };
            let mut take = |w: &Wave, what: &str| -> R<u32> {
                let r = reg.ok_or_else(|| format!("{what} needs an address VGPR"))?;
                reg = Some(r + 1);
                let (v, k) = Self::v32(w, Opnd::V(r as u16, 1), l);
                if !k {
                    return Err(format!("the {what} (v{r}) of lane {l} is symbolic"));
                }
                Ok(v)
            };
            if instr.idxen {
                instr.vindex[l] = take(w, "index")?;
            }
            if instr.offen {
                instr.voffset[l] = take(w, "offset")?;
            }
        }
        let mut ev = Default::default();
        compute_in(
            self.profile,
            &instr,
            &mut self.ta_res,
            &mut ev,
            &mut self.ta_scratch,
        );
        let res_box = std::mem::take(&mut self.ta_res);
        let res = &*res_box;
        let (slots, sb) = (res.shape.slots as usize, res.shape.slot_bytes as usize);
        let r0 = Self::vregs(vdata, m.data_regs())?;
        let nregs = m.data_regs();
        for l in lanes(active) {
            let acc = |d: usize| get_bit(&res.access, 4 * l + d);
            let lane_err = |e: String| format!("lane {l}: {e}");
            match m {
                Mem::Load { bytes, signed } => {
                    for d in 0..slots.max(1) {
                        let (v, k) = if acc(d) {
                            self.mem.read(res.addr[4 * l + d], sb).map_err(lane_err)?
                        } else {
                            (0, true)
                        };
                        let v = match (bytes, signed) {
                            (1, true) => v as u8 as i8 as i32 as u32,
                            (2, true) => v as u16 as i16 as i32 as u32,
                            _ => v as u32,
                        };
                        if d < nregs {
                            Self::set_v(w, r0 + d, l, v, k);
                        }
                    }
                }
                Mem::Store { .. } => {
                    for d in 0..slots {
                        if acc(d) {
                            let (v, k) = Self::v32(w, Opnd::V((r0 + d) as u16, 1), l);
                            self.mem
                                .write(res.addr[4 * l + d], sb, u64::from(v), k)
                                .map_err(lane_err)?;
                        }
                    }
                }
                Mem::Atomic { op, bytes } => {
                    let (old, k) = if acc(0) {
                        let addr = res.addr[4 * l];
                        self.atomic(op, bytes, addr, vdata, w, l)
                            .map_err(lane_err)?
                    } else {
                        (0, true)
                    };
                    if ins.m.glc {
                        Self::set_v(w, r0, l, old as u32, k);
                        if bytes == 8 {
                            Self::set_v(w, r0 + 1, l, (old >> 32) as u32, k);
                        }
                    }
                }
                Mem::Format { store, .. } => {
                    if store {
                        for d in 0..slots {
                            if acc(d) {
                                self.mem
                                    .write(res.addr[4 * l + d], sb, 0, false)
                                    .map_err(lane_err)?;
                            }
                        }
                    } else {
                        for d in 0..nregs {
                            Self::set_v(w, r0 + d, l, 0, false);
                        }
                    }
                }
            }
        }
        self.ta_res = res_box;
        let line = TaParams::of(self.profile).line_bytes;
        gpucosim_model::ta::tlm::pieces(&self.ta_res, line, &mut self.pieces);
        let reqs = gpucosim_model::ta::tlm::coalesce(self.pieces.as_slice(), line);
        self.stats.buffer(at, &self.ta_res, &reqs, line);
        if self.record {
            if self.traffic.ta.len() >= self.max_traffic {
                return Err(too_much("TA", self.max_traffic));
            }
            let gap = self.rng.gen_range(0..=2);
            // Backpressure on every other instruction, a seeded pattern.
            let (ready, ready_len) = if self.rng.gen_bool(0.5) {
                (self.rng.gen::<u64>() | 1, self.rng.gen_range(2..24))
            } else {
                (0, 0)
            };
            self.traffic.ta.push(TaTxn {
                instr,
                gap,
                ready,
                ready_len,
            });
        }
        Ok(())
    }

    /// The MTBUF `format:` of an instruction as the unit's `fmt_i`.
    fn format(&self, ins: &Ins) -> R<u32> {
        let f = ins
            .m
            .format
            .as_deref()
            .ok_or("a typed buffer access needs `format:`")?;
        if let Some(Opnd::Imm(n)) = decode::constant(f.trim()) {
            return Ok(n as u32 & 127);
        }
        let parts: Vec<&str> = f.split(',').map(str::trim).collect();
        if self.profile.gfx() == 9 {
            const NFMT: [&str; 8] = [
                "UNORM",
                "SNORM",
                "USCALED",
                "SSCALED",
                "UINT",
                "SINT",
                "RESERVED_6",
                "FLOAT",
            ];
            let mut code = 0;
            for p in parts {
                if let Some(n) = p.strip_prefix("BUF_NUM_FORMAT_") {
                    code |= (NFMT
                        .iter()
                        .position(|x| *x == n)
                        .ok_or_else(|| format!("unknown format `{p}`"))?
                        as u32)
                        << 4;
                } else {
                    code |= gpucosim_model::ta::isa::gfx9_dfmt_by_name(p)
                        .ok_or_else(|| format!("unknown format `{p}`"))?;
                }
            }
            Ok(code)
        } else {
            gpucosim_model::ta::isa::gfx11_format_by_name(parts[0])
                .ok_or_else(|| format!("unknown format `{}`", parts[0]))
        }
    }

    /// The contents of the buffer argument `name` after the run: dwords,
    /// `None` where a byte is symbolic.
    pub fn buffer_words(&self, name: &str) -> Option<Vec<Option<u32>>> {
        let r = self.mem.region(name)?;
        Some(
            (0..r.bytes.len())
                .step_by(4)
                .map(|off| {
                    let (v, k) = r.dword(off);
                    k.then_some(v)
                })
                .collect(),
        )
    }
}

/// Whether a conditional move is 64-bit.
fn wide_of(op: Op) -> bool {
    matches!(op, Op::SCmov(true))
}

fn too_much(unit: &str, max: usize) -> String {
    format!(
        "the launch sends more than {max} transactions to the {unit} unit: run a sample of its work-groups (`\"run\": {{\"sample\": N}}` in the launch)"
    )
}

/// An operand as assembly writes it.
fn text(o: Opnd) -> String {
    match o {
        Opnd::S(n, 1) => match n {
            VCC => "vcc_lo".into(),
            M0 => "m0".into(),
            EXEC => "exec_lo".into(),
            _ => format!("s{n}"),
        },
        Opnd::S(n, c) => match n {
            VCC => "vcc".into(),
            EXEC => "exec".into(),
            _ => format!("s[{}:{}]", n, n + u16::from(c) - 1),
        },
        Opnd::V(n, 1) => format!("v{n}"),
        Opnd::V(n, c) => format!("v[{}:{}]", n, n + u16::from(c) - 1),
        Opnd::Imm(v) => format!("{v:#x}"),
        Opnd::Float(f, _) => format!("{}", f32::from_bits(f)),
        Opnd::Scc => "scc".into(),
        Opnd::Null => "null".into(),
        Opnd::Off => "off".into(),
    }
}

/// What an emulation of a launch produced.
#[derive(Debug, Clone)]
pub struct Emulation {
    /// The launch as resolved.
    pub launch: Launch,
    /// The profile.
    pub profile: profile::PerfProfile,
    /// The unit transactions (empty unless recorded).
    pub traffic: Traffic,
    /// Each buffer argument's dwords after the run (`None`: symbolic).
    pub buffers: Vec<(String, Vec<Option<u32>>)>,
    /// Wall time of the emulation, seconds.
    pub seconds: f64,
    /// Where an approximate floating-point result reached an address, a
    /// branch condition or EXEC, a line each.
    pub approximate: Vec<String>,
}

/// Reads the launch file `path` for a kernel of `prog` (`kernel`, `seed`:
/// overrides of the launch's own), and emulates it; `record`: keep the
/// unit transactions. Errors name the file they concern.
pub fn emulate_file(
    file: &std::path::Path,
    prog: &asm::Program,
    profile: Profile,
    path: &std::path::Path,
    kernel: Option<&str>,
    seed: Option<u64>,
    record: bool,
) -> gpucosim_tb::error::Result<Emulation> {
    use gpucosim_tb::error::Error;
    let l = Launch::read(path, prog, profile, kernel, seed)?;
    emulate(&file.display().to_string(), prog, profile, l, record)
        .map_err(|e| Error::Input(format!("{}: kernel emulation failed: {e}", file.display())))
}

/// Emulates `launch` of its kernel in `prog`; `record`: keep the unit
/// transactions for lock-step runs. `file` names the file in the profile.
pub fn emulate(
    file: &str,
    prog: &asm::Program,
    profile: Profile,
    launch: Launch,
    record: bool,
) -> R<Emulation> {
    let kernel = prog
        .kernels
        .iter()
        .find(|k| k.name == launch.kernel)
        .ok_or_else(|| format!("no kernel `{}`", launch.kernel))?;
    let t0 = std::time::Instant::now();
    let mut e = Emulator::new(profile, kernel, &launch)?;
    e.record = record;
    e.run()?;
    let seconds = t0.elapsed().as_secs_f64();
    let prof = profile::PerfProfile::new(file, kernel, profile, &launch, &e.stats, e.executed);
    lds_in_range(&launch, &prof, &e.stats)?;
    let buffers = launch
        .args
        .iter()
        .filter(|(_, v)| matches!(v, launch::ArgValue::Buffer(_)))
        .filter_map(|(n, _)| Some((n.clone(), e.buffer_words(n)?)))
        .collect();
    let traffic = std::mem::take(&mut e.traffic);
    let approximate = e.approx_uses();
    drop(e);
    Ok(Emulation {
        launch,
        profile: prof,
        traffic,
        buffers,
        seconds,
        approximate,
    })
}

/// A launch whose LDS accesses all fell out of the allocation (every
/// active lane of every `ds_*` execution that addresses the LDS) is almost
/// always a launch mistake (a `__local` argument too small, an `lds_size`
/// below what the kernel indexes): an error, unless the launch sets
/// `"allow_lds_out_of_range": true`.
pub fn lds_in_range(launch: &Launch, prof: &profile::PerfProfile, stats: &profile::Stats) -> R<()> {
    let t = &prof.total;
    if launch.allow_lds_out_of_range || t.lds_lanes == 0 || stats.lds_in_range_lanes > 0 {
        return Ok(());
    }
    Err(format!(
        "every LDS access of the launch is out of range ({} lanes of {} `ds_*` executions, none within the {}-byte allocation): check `lds_size` and the `__local` arguments' sizes, or set \"allow_lds_out_of_range\": true in the launch if that is meant",
        t.lds_oor_lanes, t.lds_executions, launch.lds_size
    ))
}
