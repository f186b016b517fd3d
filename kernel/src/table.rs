//! The instruction table (`instructions.txt`, data) and what it makes of
//! one instruction: its effect on the counters (a class of SPEC §3.1, a
//! wait, a branch) and the registers it reads and writes. The LDS that an
//! LDS DMA load writes is one more register ([`Regs::LDS_DMA`]), read by
//! every instruction that accesses the LDS, as LLVM's `SIInsertWaitcnts`
//! tracks it.

use super::asm::Inst;
use gpucosim_model::waitcnt::{decode, Class, Counter, Thresholds};
use gpucosim_model::Profile;
use std::sync::OnceLock;

/// The table as shipped.
const TABLE: &str = include_str!("instructions.txt");

/// A rule's kind (see the table's header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Class(Class),
    /// SMEM: 1 dword or wider, by the destination's width.
    Smem,
    VmemAtomic,
    FlatAtomic,
    /// A vector memory load into the LDS (LDS DMA).
    VmemLds,
    Ds,
    Wait,
    WaitOne(Counter),
    Branch,
    CBranch,
    End,
    Fence,
    None,
    Alu,
    Indirect,
    Unsupported,
}

#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct Rule {
    pattern: String,
    profiles: Option<Profile>,
    kind: Kind,
    dst: bool,
    /// What the emulator makes of it, where the table decides (`emu:…`).
    emu: Option<Emu>,
    line: usize,
}

/// What the launch emulator does with an instruction, where the table
/// decides it (the `emu:` word): the rest the emulator's decoder reads
/// from the mnemonic (its operation and operands) and checks against the
/// table's kind ([`emulation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emu {
    /// No effect on the emulated state (waits, hints, cache invalidates,
    /// messages).
    Nop,
    /// Ends the wave.
    End,
    /// A work-group barrier.
    Barrier,
    /// Not emulated (an effect the emulator does not model: the MODE
    /// register, traps, …): an error naming it.
    Refuse,
}

/// The kind of an instruction as the emulator sees it, from the table:
/// what its decoder must agree with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// Scalar or vector ALU.
    Alu,
    /// Scalar memory.
    Smem,
    /// Vector memory (MUBUF, MTBUF, global, scratch, image).
    Vmem,
    /// FLAT.
    Flat,
    /// LDS (or GDS).
    Ds,
    /// `s_branch`.
    Branch,
    /// `s_cbranch_*`.
    CBranch,
    /// Anything else (waits, fences, messages, exports, …).
    Other,
}

fn kind_of(word: &str) -> Option<(Kind, bool)> {
    Some(match word {
        "smem" => (Kind::Smem, true),
        "smem2" => (Kind::Class(Class::Smem2), true),
        "vmem_atomic" => (Kind::VmemAtomic, false),
        "vmem_lds" => (Kind::VmemLds, false),
        "flat_atomic" => (Kind::FlatAtomic, false),
        "ds" => (Kind::Ds, false),
        "wait" => (Kind::Wait, false),
        "wait_vm" => (Kind::WaitOne(Counter::Vm), false),
        "wait_exp" => (Kind::WaitOne(Counter::Exp), false),
        "wait_lgkm" => (Kind::WaitOne(Counter::Lgkm), false),
        "wait_vs" => (Kind::WaitOne(Counter::Vs), false),
        "branch" => (Kind::Branch, false),
        "cbranch" => (Kind::CBranch, false),
        "end" => (Kind::End, false),
        "fence" => (Kind::Fence, false),
        "none" => (Kind::None, false),
        "alu" => (Kind::Alu, true),
        "indirect" => (Kind::Indirect, false),
        "unsupported" => (Kind::Unsupported, false),
        other => {
            let c = Class::from_name(other)?;
            let loads = matches!(
                c,
                Class::VmemLoad | Class::FlatLoad | Class::LdsParam | Class::LdsDirect
            );
            (Kind::Class(c), loads)
        }
    })
}

fn parse_table(text: &str) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        let bad = |why: &str| format!("instructions.txt line {}: {why}: `{line}`", n + 1);
        // The emulator's word, last if there.
        let (w, emu) = match w.last().and_then(|x| x.strip_prefix("emu:")) {
            Some(e) => {
                let emu = match e {
                    "nop" => Emu::Nop,
                    "end" => Emu::End,
                    "barrier" => Emu::Barrier,
                    "refuse" => Emu::Refuse,
                    _ => return Err(bad("emu: is nop, end, barrier or refuse")),
                };
                (&w[..w.len() - 1], Some(emu))
            }
            None => (&w[..], None),
        };
        if !(3..=4).contains(&w.len()) {
            return Err(bad("expected PATTERN PROFILES KIND [dst|nodst] [emu:…]"));
        }
        let profiles = match w[1] {
            "all" => None,
            p => Some(p.parse::<Profile>().map_err(|_| bad("unknown profile"))?),
        };
        let (kind, mut dst) = kind_of(w[2]).ok_or_else(|| bad("unknown kind"))?;
        match w.get(3) {
            None => {}
            Some(&"dst") => dst = true,
            Some(&"nodst") => dst = false,
            Some(_) => return Err(bad("the last word is dst or nodst")),
        }
        rules.push(Rule {
            pattern: w[0].to_string(),
            profiles,
            kind,
            dst,
            emu,
            line: n + 1,
        });
    }
    Ok(rules)
}

#[doc(hidden)]
pub fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| parse_table(TABLE).expect("the shipped instruction table parses"))
}

/// `*` matches any run of characters.
#[doc(hidden)]
pub fn glob(pattern: &str, s: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == s,
        Some((head, tail)) => {
            let Some(rest) = s.strip_prefix(head) else {
                return false;
            };
            (0..=rest.len()).any(|i| rest.is_char_boundary(i) && glob(tail, &rest[i..]))
        }
    }
}

/// A register: an index into [`Regs`].
pub type Reg = u16;

/// First index of each register file in a [`Regs`] set.
const V0: Reg = 0;
const S0: Reg = 256;
const TTMP0: Reg = 384;
const A0: Reg = 512;
/// The named registers, after the files.
const NAMED: &[&str] = &[
    "vcc_lo",
    "vcc_hi",
    "exec_lo",
    "exec_hi",
    "m0",
    "flat_scratch_lo",
    "flat_scratch_hi",
    "xnack_mask_lo",
    "xnack_mask_hi",
    "scc",
];
const NAMED0: Reg = 768;
/// The LDS written by LDS DMA loads, after the named registers.
#[doc(hidden)]
pub const LDS_DMA: Reg = NAMED0 + NAMED.len() as Reg;
/// The LDS that DS instructions store to, and the memory that vector
/// memory stores write: pseudo registers of the barrier fence
/// ([`crate::check::BarrierFence`]), which `s_barrier` reads.
const LDS_STORE: Reg = LDS_DMA + 1;
const GLOBAL_STORE: Reg = LDS_DMA + 2;
/// Registers a set can hold.
const NREGS: usize = 1024;

/// A set of registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Regs([u64; NREGS / 64]);

impl Regs {
    /// The LDS that LDS DMA loads (`buffer_load_dword … lds`,
    /// `buffer_load_lds_*`, `global_load_lds_*`) write: their destination,
    /// read by every instruction that accesses the LDS.
    pub const LDS_DMA: Regs = Regs::one(LDS_DMA);

    /// The LDS as DS instructions that may write it (stores, atomics,
    /// exchanges) leave it: their destination when barriers are fences.
    pub const LDS_STORE: Regs = Regs::one(LDS_STORE);
    /// Memory as vector memory stores and atomics without return leave
    /// it: their destination when barriers are global fences.
    pub const GLOBAL_STORE: Regs = Regs::one(GLOBAL_STORE);

    const fn one(r: Reg) -> Regs {
        let mut w = [0u64; NREGS / 64];
        w[r as usize / 64] = 1 << (r % 64);
        Regs(w)
    }

    /// The registers of either.
    pub fn or(&self, o: &Regs) -> Regs {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
        r
    }

    #[doc(hidden)]
    pub fn add(&mut self, r: Reg) {
        self.0[r as usize / 64] |= 1 << (r % 64);
    }
    fn add_range(&mut self, first: Reg, last: Reg) {
        for r in first..=last {
            self.add(r);
        }
    }
    /// Whether the sets share a register.
    pub fn meets(&self, o: &Regs) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    /// The registers of both.
    pub fn and(&self, o: &Regs) -> Regs {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(&o.0) {
            *a &= b;
        }
        r
    }
    /// The lower half (by count, in register order) of the set's
    /// registers: `v[4:5]` of `v[4:7]`.
    fn low_half(&self) -> Regs {
        let all: Vec<Reg> = (0..NREGS as Reg)
            .filter(|&r| self.0[r as usize / 64] >> (r % 64) & 1 != 0)
            .collect();
        let mut out = Regs::default();
        for &r in &all[..all.len() / 2] {
            out.add(r);
        }
        out
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// The registers, as assembly would write them (`v[4:7]`, `s2`,
    /// `vcc_lo`), ranges merged.
    pub fn text(&self) -> String {
        let has = |r: Reg| self.0[r as usize / 64] >> (r % 64) & 1 != 0;
        let mut parts = Vec::new();
        for (name, base, n) in [
            ("v", V0, 256),
            ("s", S0, 128),
            ("ttmp", TTMP0, 128),
            ("a", A0, 256),
        ] {
            let mut i = 0;
            while i < n {
                if has(base + i) {
                    let mut j = i;
                    while j + 1 < n && has(base + j + 1) {
                        j += 1;
                    }
                    parts.push(if i == j {
                        format!("{name}{i}")
                    } else {
                        format!("{name}[{i}:{j}]")
                    });
                    i = j + 1;
                } else {
                    i += 1;
                }
            }
        }
        for (k, name) in NAMED.iter().enumerate() {
            if has(NAMED0 + k as Reg) {
                parts.push(name.to_string());
            }
        }
        if has(LDS_DMA) {
            parts.push("LDS".to_string());
        }
        if has(LDS_STORE) {
            parts.push("the LDS stored to".to_string());
        }
        if has(GLOBAL_STORE) {
            parts.push("the memory stored to".to_string());
        }
        parts.join(", ")
    }
}

/// The numbered register files as operands name them: prefix, first
/// register, count.
const REG_FILES: [(&str, Reg, u16); 4] = [
    ("v", V0, 256),
    ("s", S0, 106),
    ("ttmp", TTMP0, 16),
    ("a", A0, 256),
];

/// The registers named in operand text: `v7`, `v[4:7]`, `s[0:3]`,
/// `ttmp2`, `vcc`, `exec_lo`, `m0`… (modifiers, literals and symbolic
/// operands such as `offset:16` or `sendmsg(MSG_DEALLOC_VGPRS)` name none).
pub fn regs_in(text: &str) -> Result<Regs, String> {
    let mut out = Regs::default();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            // A literal (`0x1f`, `1.5`, `4`): skip its characters.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let word = &text[start..i];
        let file = REG_FILES
            .iter()
            .find(|f| f.0 == word)
            .map(|&(_, base, n)| (base, n));
        if let (Some((base, n)), Some(b'[')) = (file, b.get(i)) {
            let close = text[i..]
                .find(']')
                .ok_or_else(|| format!("`{text}`: unclosed register range"))?;
            let inner = &text[i + 1..i + close];
            let (lo, hi) = inner
                .split_once(':')
                .and_then(|(l, h)| {
                    Some((l.trim().parse::<u16>().ok()?, h.trim().parse::<u16>().ok()?))
                })
                .filter(|&(l, h)| l <= h && h < n)
                .ok_or_else(|| format!("`{word}[{inner}]` is not a register range"))?;
            out.add_range(base + lo, base + hi);
            i += close + 1;
            continue;
        }
        // A file's name and a number (`v7`, `ttmp2`): that register, and a
        // number past the file (`v999`) no register and no symbol either.
        let single = REG_FILES.iter().find_map(|&(prefix, base, n)| {
            let d = word
                .strip_prefix(prefix)
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?;
            Some(match d.parse::<u16>() {
                Ok(k) if k < n => Ok(base + k),
                _ => Err(format!(
                    "`{word}` is not a register ({prefix}0 to {prefix}{})",
                    n - 1
                )),
            })
        });
        if let Some(r) = single {
            out.add(r?);
            continue;
        }
        let named = |n: &str| {
            NAMED0
                + NAMED
                    .iter()
                    .position(|x| *x == n)
                    .expect("a named register") as Reg
        };
        match word {
            "vcc" => {
                out.add(named("vcc_lo"));
                out.add(named("vcc_hi"));
            }
            "exec" => {
                out.add(named("exec_lo"));
                out.add(named("exec_hi"));
            }
            "flat_scratch" => {
                out.add(named("flat_scratch_lo"));
                out.add(named("flat_scratch_hi"));
            }
            "xnack_mask" => {
                out.add(named("xnack_mask_lo"));
                out.add(named("xnack_mask_hi"));
            }
            w if NAMED.contains(&w) => out.add(named(w)),
            _ => {}
        }
    }
    Ok(out)
}

/// What an instruction does, for the analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A memory instruction of a class: counted on issue, writing `dst`
    /// when it returns.
    Mem {
        /// The counter class.
        class: Class,
        /// The registers its return writes.
        dst: Regs,
    },
    /// A wait: the wave waits until every counter is at or below its
    /// threshold (a threshold at the counter's maximum does not wait).
    Wait(Thresholds),
    /// An unconditional branch to a label or address.
    Branch(String),
    /// A conditional branch (also falls through).
    CBranch(String),
    /// The end of the program.
    End,
    /// A barrier or a cache invalidate or write-back: no counter effect;
    /// the waits just before it serve the memory model.
    Fence,
    /// Anything else: reads and writes registers only.
    Other,
}

/// One instruction, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// What it does to the counters and control flow.
    pub effect: Effect,
    /// Registers it reads when it issues (explicit and implicit).
    pub reads: Regs,
    /// Registers it writes when it issues (a load's destination is written
    /// when it returns: in [`Effect::Mem`]).
    pub writes: Regs,
}

/// The thresholds of an `s_waitcnt` operand: `vmcnt(0) lgkmcnt(0)` (fields
/// separated by spaces, `&` or `,`; a field not named does not wait), or a
/// 16-bit immediate.
fn wait_thresholds(profile: Profile, ops: &str) -> Result<Thresholds, String> {
    let ops = ops.trim();
    if ops.starts_with(|c: char| c.is_ascii_digit()) {
        let v = gpucosim_tb::units::input::U::<16>::parse(ops)?;
        return Ok(decode(profile, v.get() as u16));
    }
    let mut t = Thresholds::none(profile);
    for field in ops.split(|c: char| c.is_whitespace() || c == '&' || c == ',') {
        if field.is_empty() {
            continue;
        }
        let (name, arg) = field
            .strip_suffix(')')
            .and_then(|f| f.split_once('('))
            .ok_or_else(|| format!("`{field}` is not a counter field such as vmcnt(0)"))?;
        let (name, sat) = match name.strip_suffix("_sat") {
            Some(n) => (n, true),
            None => (name, false),
        };
        let counter = match name {
            "vmcnt" => Counter::Vm,
            "expcnt" => Counter::Exp,
            "lgkmcnt" => Counter::Lgkm,
            _ => return Err(format!("`{field}`: unknown counter `{name}`")),
        };
        let n = gpucosim_tb::units::input::U::<16>::parse(arg)?.get() as u32;
        let max = counter.max(profile);
        if n > max && !sat {
            return Err(format!("`{field}`: at most {max} on {profile}"));
        }
        let n = n.min(max);
        match counter {
            Counter::Vm => t.vm = n,
            Counter::Exp => t.exp = n,
            _ => t.lgkm = n,
        }
    }
    Ok(t)
}

/// The first rule for mnemonic `m` on `profile`.
fn rule(profile: Profile, m: &str) -> Result<&'static Rule, String> {
    rules()
        .iter()
        .find(|r| r.profiles.is_none_or(|p| p == profile) && glob(&r.pattern, m))
        .ok_or_else(|| {
            format!(
                "`{m}` is not in the instruction table (kernel/src/instructions.txt) for {profile}"
            )
        })
}

/// What the table says of mnemonic `m` for the emulator: its category and,
/// where the table decides it, what the emulator does with it. An
/// instruction the table does not know, or knows as an indirect branch or
/// an unsupported one, is an error.
pub fn emulation(profile: Profile, m: &str) -> Result<(Category, Option<Emu>), String> {
    let r = rule(profile, m)?;
    let cat = match r.kind {
        Kind::Alu => Category::Alu,
        Kind::Smem | Kind::Class(Class::Smem1 | Class::Smem2) => Category::Smem,
        Kind::Class(Class::VmemLoad | Class::VmemStore) | Kind::VmemAtomic | Kind::VmemLds => {
            Category::Vmem
        }
        Kind::Class(Class::FlatLoad | Class::FlatStore) | Kind::FlatAtomic => Category::Flat,
        Kind::Ds | Kind::Class(Class::Lds | Class::Gds) => Category::Ds,
        Kind::Branch => Category::Branch,
        Kind::CBranch => Category::CBranch,
        Kind::Indirect => {
            return Err(format!(
                "{m}: indirect branches and calls are not emulated (instructions.txt line {})",
                r.line
            ))
        }
        Kind::Unsupported if r.emu.is_none() => {
            return Err(format!(
                "{m} is not supported (instructions.txt line {})",
                r.line
            ))
        }
        _ => Category::Other,
    };
    if r.emu == Some(Emu::Refuse) {
        return Err(format!(
            "{m} is not emulated (instructions.txt line {})",
            r.line
        ));
    }
    Ok((cat, r.emu))
}

/// Classifies an instruction on `profile` by the table. Errors (an
/// instruction no rule knows, an indirect branch, an operand that cannot
/// be read) are one line naming the instruction; the caller adds its line.
pub fn classify(profile: Profile, inst: &Inst) -> Result<Classified, String> {
    let m = inst.mnemonic.as_str();
    let rule = rule(profile, m)?;
    let ops = inst.operand_list();
    let words = |s: &str| -> bool { inst.operands.split_whitespace().any(|w| w == s) };
    let mut kind = rule.kind;
    let mut dst = rule.dst;
    match kind {
        Kind::VmemAtomic | Kind::FlatAtomic => {
            let ret = words("glc") || words("sc0");
            let flat = kind == Kind::FlatAtomic;
            kind = Kind::Class(match (flat, ret) {
                (false, true) => Class::VmemLoad,
                (false, false) => Class::VmemStore,
                (true, true) => Class::FlatLoad,
                (true, false) => Class::FlatStore,
            });
            dst = ret;
        }
        Kind::Ds => kind = Kind::Class(if words("gds") { Class::Gds } else { Class::Lds }),
        // MUBUF's `lds` modifier: the data goes to the LDS (at M0), not to
        // operand 0, which is the address (or `off`).
        Kind::Class(Class::VmemLoad) if words("lds") => kind = Kind::VmemLds,
        _ => {}
    }
    if kind == Kind::VmemLds {
        dst = false;
    }
    let (mut dst_regs, src_text): (Regs, Vec<&str>) = if dst && !ops.is_empty() {
        // Operand 0 is written; a modifier after it belongs to no register.
        (regs_in(ops[0])?, ops[1..].to_vec())
    } else {
        (Regs::default(), ops.clone())
    };
    // A load returns into operand 0: without a register there, what it
    // writes could not be followed (a line cut short, a typo).
    if dst && matches!(kind, Kind::Class(_) | Kind::Smem) && dst_regs.is_empty() {
        return Err(match ops.first() {
            None => format!(
                "`{}`: no operands, where a load writes operand 0",
                inst.text()
            ),
            Some(o) => format!(
                "`{}`: operand 0 `{o}`, which the load writes, is no register",
                inst.text()
            ),
        });
    }
    // A MUBUF or MIMG atomic with return reads its data from operand 0 and
    // returns into it; a compare-and-swap takes {data, compare} there and
    // returns the old value into the first half only. (FLAT and global
    // atomics name their destination apart.)
    let mut reads = Regs::default();
    if dst && rule.kind == Kind::VmemAtomic && (m.starts_with("buffer_") || m.starts_with("image_"))
    {
        reads = dst_regs;
        if m.contains("cmpswap") {
            dst_regs = dst_regs.low_half();
        }
    }
    for o in &src_text {
        let r = regs_in(o)?;
        for (a, b) in reads.0.iter_mut().zip(r.0) {
            *a |= b;
        }
    }
    // Vector instructions read EXEC; VCC branches read VCC.
    if m.starts_with("v_")
        || m.starts_with("ds_")
        || m.starts_with("buffer_")
        || m.starts_with("tbuffer_")
        || m.starts_with("global_")
        || m.starts_with("scratch_")
        || m.starts_with("flat_")
        || m.starts_with("image_")
    {
        let e = regs_in("exec")?;
        for (a, b) in reads.0.iter_mut().zip(e.0) {
            *a |= b;
        }
    }
    if m.starts_with("s_cbranch_exec") {
        let e = regs_in("exec")?;
        for (a, b) in reads.0.iter_mut().zip(e.0) {
            *a |= b;
        }
    }
    if m.starts_with("s_cbranch_vcc") {
        let e = regs_in("vcc")?;
        for (a, b) in reads.0.iter_mut().zip(e.0) {
            *a |= b;
        }
    }
    // What an LDS DMA load wrote is read by every access of the LDS: `ds_*`
    // but the GDS ones and those that only move data between lanes, FLAT
    // (its address may be in the LDS), and gfx9's `buffer_store_lds_dword`
    // — as LLVM waits for it before an instruction with an LDS or FLAT
    // memory operand.
    let lane_moves = ["ds_permute_b32", "ds_bpermute_b32", "ds_swizzle_b32"];
    let lds_access = match kind {
        Kind::Class(Class::Lds) => !lane_moves.contains(&m),
        Kind::Class(Class::FlatLoad | Class::FlatStore) => true,
        _ => m == "buffer_store_lds_dword",
    };
    if lds_access {
        reads.add(LDS_DMA);
    }
    let mut writes = Regs::default();
    let effect = match kind {
        Kind::Class(class) => Effect::Mem {
            class,
            dst: dst_regs,
        },
        Kind::VmemLds => Effect::Mem {
            class: Class::VmemLoad,
            dst: Regs::LDS_DMA,
        },
        Kind::Smem => {
            let dwords = (0..NREGS).filter(|&r| dst_regs.0[r / 64] >> (r % 64) & 1 != 0).count();
            let class = if dwords <= 1 { Class::Smem1 } else { Class::Smem2 };
            Effect::Mem {
                class,
                dst: dst_regs,
            }
        }
        Kind::Wait => Effect::Wait(wait_thresholds(profile, &inst.operands)?),
        Kind::WaitOne(counter) => {
            // `s_waitcnt_vscnt null, imm`: the threshold is imm's low bits
            // (SPEC §3.2: bits above the counter's width are ignored).
            if ops.len() != 2 || ops[0] != "null" {
                return Err(format!(
                    "`{}`: only the form `{m} null, imm` is supported",
                    inst.text()
                ));
            }
            let imm = gpucosim_tb::units::input::U::<16>::parse(ops[1])?.get() as u32;
            let mut t = Thresholds::none(profile);
            let v = imm & counter.max(profile);
            match counter {
                Counter::Vm => t.vm = v,
                Counter::Exp => t.exp = v,
                Counter::Lgkm => t.lgkm = v,
                Counter::Vs => t.vs = v,
            }
            Effect::Wait(t)
        }
        Kind::Branch => Effect::Branch(branch_target(inst)?),
        Kind::CBranch => Effect::CBranch(branch_target(inst)?),
        Kind::End => Effect::End,
        Kind::Fence => Effect::Fence,
        Kind::None => Effect::Other,
        Kind::Alu => {
            writes = dst_regs;
            Effect::Other
        }
        Kind::Indirect => {
            return Err(format!(
                "`{}`: indirect branches and calls are not supported (the control flow cannot be followed)",
                inst.text()
            ))
        }
        Kind::Unsupported => {
            return Err(format!(
                "`{m}` is not supported by the analysis (instructions.txt line {})",
                rule.line
            ))
        }
        Kind::VmemAtomic | Kind::FlatAtomic | Kind::Ds => unreachable!("resolved above"),
    };
    Ok(Classified {
        effect,
        reads,
        writes,
    })
}

/// A branch's target: a label, or (objdump) a word offset written as a
/// number, turned into `@ADDR`. The offset is SOPP's signed 16-bit
/// immediate, which llvm-objdump prints unsigned (`65514` for -22): a
/// number from 0x8000 to 0xffff is read as negative.
fn branch_target(inst: &Inst) -> Result<String, String> {
    let t = inst
        .operand_list()
        .first()
        .copied()
        .unwrap_or("")
        .to_string();
    if t.is_empty() {
        return Err(format!("`{}`: a branch without a target", inst.text()));
    }
    if let Ok(n) = t.parse::<i64>() {
        let n = match u16::try_from(n) {
            Ok(u) => i64::from(u as i16),
            Err(_) if n < 0 && n >= i64::from(i16::MIN) => n,
            Err(_) => {
                return Err(format!(
                    "`{}`: the branch offset {n} is not a 16-bit immediate",
                    inst.text()
                ))
            }
        };
        let a = inst.addr.ok_or_else(|| {
            format!(
                "`{}`: a numeric branch offset needs addresses (objdump output)",
                inst.text()
            )
        })?;
        let target = a as i64 + 4 + 4 * n;
        return Ok(format!("@{target:#x}"));
    }
    Ok(t)
}
