//! The proof that a kernel's waits are enough (SPEC §3.3): a dataflow
//! analysis over the kernel's control-flow graph, to a fixed point over
//! every path (loops included), of which memory instructions may not have
//! returned at each instruction, under every return order SPEC §3.1
//! allows, and the waits of §3.2.
//!
//! The abstract state holds, for each memory instruction that may still be
//! outstanding, and for each counter it counts on, a lower bound `behind`
//! on the number of younger instructions that are surely outstanding if it
//! is: those of its ordering group ([`Order`](gpucosim_model::waitcnt::Order))
//! issued after it, which return after it (every instruction of an ordering
//! group weighs 1). A wait with threshold `N` on a counter proves it
//! returned when `behind >= N` — it and those behind it would count more
//! than `N` — and, on any counter it counts on, since a return takes its
//! weight off every counter at once. An instruction of no ordering group
//! on a counter (SMEM, `s_sendmsg`, GDS, FLAT's LGKM part) has `behind` 0
//! there, so only a wait for 0 proves it returned, whatever its weight, as
//! SPEC §3.1 says. Paths join by union, keeping the smaller `behind`.

use super::asm::{Inst, Kernel};
use super::table::{classify, Classified, Effect, Regs};
use gpucosim_model::waitcnt::{Class, Counter, Thresholds, COUNTERS};
use gpucosim_model::Profile;
use std::collections::{BTreeMap, VecDeque};

/// `behind` of a counter an instruction does not count on.
const NONE: u8 = u8::MAX;
/// `behind` saturates here: above any threshold plus any weight.
const CAP: u8 = 200;

/// Outstanding instructions: index → `behind` per counter.
type State = BTreeMap<usize, [u8; 4]>;

/// What `s_barrier` is to the proof (`kernel check --barrier-fence`):
/// OpenCL's `barrier()` and HSA's work-group barrier release the memory
/// operations issued before it to the work-group's other waves, so the
/// stores it fences must have completed when a wave reaches it. The
/// default is [`BarrierFence::Local`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BarrierFence {
    /// No fence: `s_barrier` only synchronises; the waits before it are
    /// reported "at a fence" and not judged.
    None,
    /// `barrier(CLK_LOCAL_MEM_FENCE)`: every DS instruction that may write
    /// the LDS (stores, atomics, exchanges; not reads, permutes or
    /// swizzles) and every LDS DMA load issued before `s_barrier` must have
    /// returned at it.
    #[default]
    Local,
    /// `barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)`: also every
    /// vector memory store and atomic without return (MUBUF, global,
    /// scratch, FLAT).
    Global,
}

impl BarrierFence {
    /// Every option, as the command line names it.
    pub const ALL: [BarrierFence; 3] = [
        BarrierFence::None,
        BarrierFence::Local,
        BarrierFence::Global,
    ];

    /// Its name: `none`, `local` or `global`.
    pub fn name(self) -> &'static str {
        match self {
            BarrierFence::None => "none",
            BarrierFence::Local => "local",
            BarrierFence::Global => "global",
        }
    }

    /// What `s_barrier` reads: the pseudo registers the fenced stores
    /// write.
    fn reads(self) -> Regs {
        match self {
            BarrierFence::None => Regs::default(),
            BarrierFence::Local => Regs::LDS_STORE.or(&Regs::LDS_DMA),
            BarrierFence::Global => Regs::LDS_STORE.or(&Regs::LDS_DMA).or(&Regs::GLOBAL_STORE),
        }
    }
}

impl std::str::FromStr for BarrierFence {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        BarrierFence::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("`{s}` is not a barrier fence: none, local or global"))
    }
}

/// Whether DS instruction `mnemonic` may write the LDS: all but reads,
/// permutes, swizzles and `ds_nop` (an unknown one is taken to write).
fn writes_lds(mnemonic: &str) -> bool {
    ![
        "ds_read",
        "ds_load",
        "ds_permute",
        "ds_bpermute",
        "ds_swizzle",
        "ds_nop",
    ]
    .iter()
    .any(|p| mnemonic.starts_with(p))
}

/// A kernel read and classified, with its control-flow graph.
pub struct KernelFlow<'k> {
    /// The kernel.
    pub kernel: &'k Kernel,
    /// The profile it runs on.
    pub profile: Profile,
    /// Each instruction, classified: with the fence's pseudo registers
    /// (the stores' destinations, `s_barrier`'s reads) under a
    /// [`BarrierFence`] other than `None`.
    pub cls: Vec<Classified>,
    /// Successors of each instruction.
    succ: Vec<Vec<usize>>,
    /// Whether `s_barrier` is a global acquire whose loads need an L0
    /// invalidate after it ([`KernelFlow::with_acquire`]).
    acquire: bool,
}

/// The kind of a hazard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum HazardKind {
    /// A register read while the load writing it may not have returned.
    Raw,
    /// A register written while an outstanding load may still write it.
    Waw,
    /// `s_barrier` reached while a store it fences ([`BarrierFence`]) may
    /// not have completed.
    Fence,
    /// A vector memory load after `s_barrier` with no L0 invalidate
    /// between, under `--barrier-fence global` in gfx11's WGP mode (the
    /// acquire side: the load may hit a line another CU's store made old).
    Stale,
}

/// A hazard: instruction `at` reads (RAW) or writes (WAW) `regs`, or is
/// a barrier that fences them (FENCE), which the memory instruction `by`
/// may still write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// RAW, WAW or FENCE.
    pub kind: HazardKind,
    /// The instruction that reads or writes (index).
    pub at: usize,
    /// The outstanding memory instruction (index).
    pub by: usize,
    /// The registers concerned.
    pub regs: Regs,
    /// The counter whose wait would prove `by` returned, and the largest
    /// threshold that does.
    pub counter: Counter,
    /// That threshold.
    pub needed: u32,
}

/// A wait that could wait less with no hazard on any path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redundant {
    /// The wait (index).
    pub at: usize,
    /// Its thresholds.
    pub now: Thresholds,
    /// The weakest thresholds that keep the kernel safe (raised one
    /// counter after the other, VM, LGKM, EXP, VS).
    pub weakest: Thresholds,
}

impl Redundant {
    /// Whether the wait could go altogether.
    pub fn removable(&self, profile: Profile) -> bool {
        self.weakest == Thresholds::none(profile)
    }
}

fn get(t: &Thresholds, c: Counter) -> u32 {
    t.as_array()[c as usize]
}

fn set(t: &mut Thresholds, c: Counter, v: u32) {
    match c {
        Counter::Vm => t.vm = v,
        Counter::Lgkm => t.lgkm = v,
        Counter::Exp => t.exp = v,
        Counter::Vs => t.vs = v,
    }
}

impl<'k> KernelFlow<'k> {
    /// Classifies the kernel's instructions and builds its control-flow
    /// graph, barriers being local fences (the default [`BarrierFence`]).
    /// Errors name the instruction's line.
    pub fn new(kernel: &'k Kernel, profile: Profile) -> Result<Self, String> {
        Self::with_fence(kernel, profile, BarrierFence::default())
    }

    /// [`KernelFlow::new`] with barriers as `fence` says.
    pub fn with_fence(
        kernel: &'k Kernel,
        profile: Profile,
        fence: BarrierFence,
    ) -> Result<Self, String> {
        let n = kernel.insts.len();
        let mut cls = Vec::with_capacity(n);
        for (k, i) in kernel.insts.iter().enumerate() {
            cls.push(classify(profile, i).map_err(|e| match callee(kernel, k) {
                Some(f) => format!("{}: a call of `{f}`: {e}{}", i.place(), builtin_hint(&f)),
                None => format!("{}: {e}", i.place()),
            })?);
        }
        if fence != BarrierFence::None {
            for (i, c) in kernel.insts.iter().zip(cls.iter_mut()) {
                match &mut c.effect {
                    Effect::Mem {
                        class: Class::Lds,
                        dst,
                    } if writes_lds(&i.mnemonic) => *dst = dst.or(&Regs::LDS_STORE),
                    Effect::Mem {
                        class: Class::VmemStore | Class::FlatStore,
                        dst,
                    } if fence == BarrierFence::Global => *dst = dst.or(&Regs::GLOBAL_STORE),
                    Effect::Fence if i.mnemonic == "s_barrier" => {
                        c.reads = c.reads.or(&fence.reads());
                    }
                    _ => {}
                }
            }
        }
        let target = |i: &Inst, t: &str| -> Result<Option<usize>, String> {
            let idx = match t.strip_prefix('@') {
                Some(a) => u64::from_str_radix(a.trim_start_matches("0x"), 16)
                    .ok()
                    .and_then(|a| kernel.at_addr(a)),
                None => kernel.labels.get(t).copied(),
            };
            let idx = idx.ok_or_else(|| {
                format!(
                    "{}: `{}` branches to `{t}`, which is not in kernel `{}`",
                    i.place(),
                    i.text(),
                    kernel.name
                )
            })?;
            Ok((idx < n).then_some(idx))
        };
        let mut succ = Vec::with_capacity(n);
        for (k, (i, c)) in kernel.insts.iter().zip(&cls).enumerate() {
            let next = (k + 1 < n).then_some(k + 1);
            let s: Vec<usize> = match &c.effect {
                Effect::End => vec![],
                Effect::Branch(t) => target(i, t)?.into_iter().collect(),
                Effect::CBranch(t) => next.into_iter().chain(target(i, t)?).collect(),
                _ => next.into_iter().collect(),
            };
            succ.push(s);
        }
        // The last instruction may only end the program or branch away:
        // one that the program reaches and that can fall through would run
        // past the kernel's code (a file cut short, most likely).
        if let (Some(last), Some(c)) = (kernel.insts.last(), cls.last()) {
            if !matches!(c.effect, Effect::End | Effect::Branch(_)) && reachable(&succ)[n - 1] {
                return Err(format!(
                    "{}: `{}`, the last instruction of kernel `{}`, runs on past its end (no `s_endpgm` or branch): is the file cut short?",
                    last.place(),
                    last.text(),
                    kernel.name
                ));
            }
        }
        Ok(KernelFlow {
            kernel,
            profile,
            cls,
            succ,
            acquire: false,
        })
    }

    /// [`KernelFlow::with_fence`], and under [`BarrierFence::Global`] on
    /// gfx11 in WGP mode (`wgp`: `.amdhsa_workgroup_processor_mode`) the
    /// acquire side too: the waves of a work-group run on both CUs of the
    /// WGP, whose L0 caches are not coherent, so a vector memory load after
    /// `s_barrier` needs `buffer_gl0_inv` between (as LLVM's memory
    /// legalizer puts one after a work-group acquire); one without is a
    /// [`HazardKind::Stale`] hazard.
    pub fn with_acquire(
        kernel: &'k Kernel,
        profile: Profile,
        fence: BarrierFence,
        wgp: bool,
    ) -> Result<Self, String> {
        let mut f = Self::with_fence(kernel, profile, fence)?;
        f.acquire = fence == BarrierFence::Global && profile.gfx() >= 10 && wgp;
        Ok(f)
    }

    /// The vector memory loads that may run after an `s_barrier` with no
    /// L0 invalidate between, each with such a barrier: (load, barrier).
    fn stale_loads(&self) -> Vec<(usize, usize)> {
        let n = self.cls.len();
        // Before each instruction: a barrier passed with no invalidate
        // after it on some path (the earliest such barrier).
        let mut before: Vec<Option<Option<usize>>> = vec![None; n];
        if n == 0 {
            return Vec::new();
        }
        before[0] = Some(None);
        let mut work: VecDeque<usize> = VecDeque::from([0]);
        while let Some(i) = work.pop_front() {
            let mut st = before[i].expect("queued instructions have a state");
            let m = self.kernel.insts[i].mnemonic.as_str();
            if m == "s_barrier" {
                st = Some(st.map_or(i, |b| b.min(i)));
            } else if m == "buffer_gl0_inv" || m.starts_with("buffer_inv") {
                st = None;
            }
            for &s in &self.succ[i] {
                let joined = match (before[s], st) {
                    (None, x) => Some(x),
                    (Some(Some(a)), Some(b)) if b < a => Some(Some(b)),
                    (Some(None), Some(b)) => Some(Some(b)),
                    _ => None,
                };
                if let Some(x) = joined {
                    before[s] = Some(x);
                    work.push_back(s);
                }
            }
        }
        let mut out = Vec::new();
        for (i, c) in self.cls.iter().enumerate() {
            let loads = matches!(
                c.effect,
                Effect::Mem {
                    class: Class::VmemLoad | Class::FlatLoad,
                    ..
                }
            );
            if let (true, Some(Some(b))) = (loads, before[i]) {
                out.push((i, b));
            }
        }
        out
    }

    /// The instructions that may follow instruction `i`.
    pub fn successors(&self, i: usize) -> &[usize] {
        &self.succ[i]
    }

    /// The wait instructions (indices).
    pub fn waits(&self) -> Vec<usize> {
        (0..self.cls.len())
            .filter(|&i| matches!(self.cls[i].effect, Effect::Wait(_)))
            .collect()
    }

    fn class(&self, i: usize) -> Class {
        match self.cls[i].effect {
            Effect::Mem { class, .. } => class,
            _ => unreachable!("only memory instructions are outstanding"),
        }
    }

    /// The state after instruction `i` given the state before it.
    fn transfer(&self, i: usize, st: &mut State, wait: Option<&Thresholds>) {
        let p = self.profile;
        match &self.cls[i].effect {
            Effect::Wait(t) => {
                let t = wait.unwrap_or(t);
                st.retain(|_, behind| {
                    !COUNTERS.iter().any(|&c| {
                        let b = behind[c as usize];
                        b != NONE && u32::from(b) >= get(t, c)
                    })
                });
            }
            Effect::Mem { class, .. } => {
                let incr = class.incr(p);
                for &c in &COUNTERS {
                    let Some(order) = class.order(c, p) else {
                        continue;
                    };
                    for (&j, behind) in st.iter_mut() {
                        let b = &mut behind[c as usize];
                        if *b != NONE && self.class(j).order(c, p) == Some(order) {
                            *b = (*b + 1).min(CAP);
                        }
                    }
                }
                let mine = incr.map(|w| if w == 0 { NONE } else { 0 });
                st.entry(i)
                    .and_modify(|b| {
                        for (x, m) in b.iter_mut().zip(mine) {
                            *x = (*x).min(m);
                        }
                    })
                    .or_insert(mine);
            }
            _ => {}
        }
    }

    /// The state before every instruction (`None`: unreachable), with the
    /// thresholds of wait `over.0` replaced by `over.1`.
    fn solve(&self, over: Option<(usize, &Thresholds)>) -> Vec<Option<State>> {
        let n = self.cls.len();
        let mut before: Vec<Option<State>> = vec![None; n];
        if n == 0 {
            return before;
        }
        before[0] = Some(State::new());
        let mut work: VecDeque<usize> = VecDeque::from([0]);
        let mut queued = vec![false; n];
        queued[0] = true;
        while let Some(i) = work.pop_front() {
            queued[i] = false;
            let mut st = before[i].clone().expect("queued instructions have a state");
            let wait = over.filter(|o| o.0 == i).map(|o| o.1);
            self.transfer(i, &mut st, wait);
            for &s in &self.succ[i] {
                let changed = match &mut before[s] {
                    slot @ None => {
                        *slot = Some(st.clone());
                        true
                    }
                    Some(old) => join(old, &st),
                };
                if changed && !queued[s] {
                    queued[s] = true;
                    work.push_back(s);
                }
            }
        }
        before
    }

    /// The hazards of the kernel, each (instruction, producer, kind) once,
    /// in instruction order.
    pub fn hazards(&self, over: Option<(usize, &Thresholds)>) -> Vec<Hazard> {
        let before = self.solve(over);
        let mut out = Vec::new();
        if self.acquire {
            for (at, by) in self.stale_loads() {
                out.push(Hazard {
                    kind: HazardKind::Stale,
                    at,
                    by,
                    regs: Regs::default(),
                    counter: Counter::Vm,
                    needed: 0,
                });
            }
        }
        for (i, st) in before.iter().enumerate() {
            let Some(st) = st else { continue };
            for (&j, behind) in st {
                let (counter, needed) = self.needed(behind);
                for (kind, regs) in self.conflicts(i, j) {
                    if !regs.is_empty() {
                        out.push(Hazard {
                            kind,
                            at: i,
                            by: j,
                            regs,
                            counter,
                            needed,
                        });
                    }
                }
            }
        }
        out
    }

    /// What instruction `i` does to the registers that the memory
    /// instruction `j` writes when it returns, were `j` outstanding: the
    /// registers `i` reads (RAW; FENCE for a barrier's fenced stores) and
    /// those it writes (WAW: an ALU
    /// destination, or a memory instruction's own destination unless it is
    /// of `j`'s ordering group, so that it returns after `j`).
    pub fn conflicts(&self, i: usize, j: usize) -> [(HazardKind, Regs); 2] {
        let c = &self.cls[i];
        let Effect::Mem {
            class: by_class,
            dst,
        } = &self.cls[j].effect
        else {
            return [
                (HazardKind::Raw, Regs::default()),
                (HazardKind::Waw, Regs::default()),
            ];
        };
        let mut written = dst.and(&c.writes);
        if let Effect::Mem { class, dst: mine } = &c.effect {
            let after = COUNTERS.iter().any(|&k| {
                class.order(k, self.profile).is_some()
                    && class.order(k, self.profile) == by_class.order(k, self.profile)
            });
            if !after {
                written = dst.and(mine);
            }
        }
        // `s_barrier` reads nothing but the stores it fences.
        let read = match c.effect {
            Effect::Fence => HazardKind::Fence,
            _ => HazardKind::Raw,
        };
        [(read, dst.and(&c.reads)), (HazardKind::Waw, written)]
    }

    /// The counter and the largest threshold that prove an outstanding
    /// instruction returned.
    fn needed(&self, behind: &[u8; 4]) -> (Counter, u32) {
        COUNTERS
            .iter()
            .filter(|&&c| behind[c as usize] != NONE)
            .map(|&c| (c, u32::from(behind[c as usize]).min(c.max(self.profile))))
            .max_by_key(|&(c, n)| (n, std::cmp::Reverse(c as u8)))
            .expect("an outstanding instruction counts on some counter")
    }

    /// Whether wait `w` serves a fence (a barrier, a cache invalidate or
    /// write-back) rather than registers: the memory model may need it even
    /// where the registers do not.
    ///
    /// - Acquire: a fence before it with only waits and instructions
    ///   without registers between.
    /// - Release: a fence after it on the straight-line code that follows
    ///   (no branch between), whatever instructions the scheduler put
    ///   between, when it is the last wait before the fence on one of its
    ///   counters that something may be outstanding on: deleting it would
    ///   let the fence pass with that counter's instructions (an LDS store
    ///   before `s_barrier`) in flight.
    pub fn at_fence(&self, w: usize) -> bool {
        let inert = |c: &Classified| match &c.effect {
            Effect::Wait(_) => true,
            Effect::Other => c.reads.is_empty() && c.writes.is_empty(),
            _ => false,
        };
        let fence = |c: &Classified| c.effect == Effect::Fence;
        let after = self.cls[w + 1..].iter().find(|c| !inert(c));
        let before = self.cls[..w].iter().rev().find(|c| !inert(c));
        after.is_some_and(fence) || before.is_some_and(fence) || self.releases(w)
    }

    /// Whether wait `w` lowers a counter below what some path has
    /// outstanding at it (a wait that waits for nothing is not the release
    /// of anything, whatever follows it).
    pub fn waits_on_outstanding(&self, w: usize) -> bool {
        let Effect::Wait(t) = &self.cls[w].effect else {
            return false;
        };
        let Some(Some(state)) = self.solve(None).into_iter().nth(w) else {
            return false;
        };
        COUNTERS.iter().any(|&c| {
            state
                .values()
                .any(|b| b[c as usize] != NONE && u32::from(b[c as usize]) >= get(t, c))
        })
    }

    /// Whether wait `w` is the release of a fence after it (see
    /// [`Program::at_fence`]).
    fn releases(&self, w: usize) -> bool {
        let Effect::Wait(t) = &self.cls[w].effect else {
            return false;
        };
        let none = Thresholds::none(self.profile);
        let Some(Some(state)) = self.solve(None).into_iter().nth(w) else {
            return false;
        };
        let mut open: Vec<Counter> = COUNTERS
            .iter()
            .copied()
            .filter(|&c| get(t, c) < get(&none, c))
            .filter(|&c| state.values().any(|b| b[c as usize] != NONE))
            .collect();
        for c in &self.cls[w + 1..] {
            if open.is_empty() {
                return false;
            }
            match &c.effect {
                Effect::Fence => return true,
                Effect::Branch(_) | Effect::CBranch(_) | Effect::End => return false,
                // A later wait at least as strong on a counter releases it
                // instead.
                Effect::Wait(u) => open.retain(|&k| get(u, k) > get(t, k)),
                _ => {}
            }
        }
        false
    }

    /// The waits that could wait less with no hazard on any path, each
    /// judged with the others as written, with the weakest safe
    /// thresholds. Meaningful for a kernel without hazards.
    pub fn redundant(&self) -> Vec<Redundant> {
        let p = self.profile;
        let mut out = Vec::new();
        for w in self.waits() {
            let Effect::Wait(now) = self.cls[w].effect else {
                unreachable!()
            };
            let mut t = now;
            for &c in &COUNTERS {
                let max = c.max(p);
                let (mut lo, mut hi) = (get(&t, c), max);
                if lo >= hi {
                    continue;
                }
                // Largest safe threshold in [lo, hi]: safety only gets
                // worse as a threshold rises.
                while lo < hi {
                    let mid = (lo + hi).div_ceil(2);
                    let mut trial = t;
                    set(&mut trial, c, mid);
                    if self.hazards(Some((w, &trial))).is_empty() {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                set(&mut t, c, lo);
            }
            if t != now {
                out.push(Redundant {
                    at: w,
                    now,
                    weakest: t,
                });
            }
        }
        out
    }
}

/// For a call of an OpenCL built-in (a mangled name the file does not
/// define, such as `_Z12get_local_idj`): how to compile the kernel so that
/// it makes none.
pub fn builtin_hint(callee: &str) -> String {
    if callee.starts_with("_Z") {
        format!(
            "; `{callee}` is an OpenCL built-in, which a kernel compiled with -nogpulib calls: compile it with the built-ins linked in, `gpucosim kernel compile FILE.cl --profile gfx9|gfx11` (docs/kernels.md \"Compiling OpenCL\")"
        )
    } else {
        String::new()
    }
}

/// The function that call instruction `k` calls, when the assembly names
/// it: `s_call_b64 s[30:31], NAME`, or `s_swappc_b64` after the
/// `s_add_u32 …, NAME@rel32@lo+4` (or `@gotpcrel32@lo`) that forms its
/// address.
pub(crate) fn callee(kernel: &Kernel, k: usize) -> Option<String> {
    let sym = |o: &str| -> Option<String> {
        let (name, _) = o.split_once('@')?;
        let name = name.trim();
        (!name.is_empty()).then(|| name.to_string())
    };
    let i = &kernel.insts[k];
    match i.mnemonic.as_str() {
        "s_call_b64" => {
            let ops = i.operand_list();
            let t = ops.get(1)?.trim();
            let plain = t.starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '_' | '.'))
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$'));
            sym(t).or_else(|| plain.then(|| t.to_string()))
        }
        "s_swappc_b64" => kernel.insts[..k].iter().rev().find_map(|p| {
            p.operand_list()
                .into_iter()
                .find(|o| o.contains("@rel32@lo") || o.contains("@gotpcrel32@lo"))
                .and_then(sym)
        }),
        _ => None,
    }
}

/// `old` joined with `new`; whether `old` changed.
fn join(old: &mut State, new: &State) -> bool {
    let mut changed = false;
    for (&j, b) in new {
        match old.get_mut(&j) {
            None => {
                old.insert(j, *b);
                changed = true;
            }
            Some(o) => {
                for (x, y) in o.iter_mut().zip(b) {
                    if *y < *x {
                        *x = *y;
                        changed = true;
                    }
                }
            }
        }
    }
    changed
}

/// A wait's text: `s_waitcnt vmcnt(0) lgkmcnt(1)`, or for VS_CNT
/// `s_waitcnt_vscnt null, 0x0`; both when both counters wait.
pub fn wait_text(profile: Profile, t: &Thresholds) -> String {
    let none = Thresholds::none(profile);
    let mut plain = *t;
    plain.vs = none.vs;
    let mut parts = Vec::new();
    if plain != none {
        parts.push(plain.text(profile));
    }
    if t.vs != none.vs {
        parts.push(format!("s_waitcnt_vscnt null, {:#x}", t.vs));
    }
    if parts.is_empty() {
        "no wait".into()
    } else {
        parts.join("; ")
    }
}

/// The wait that `needed` stands for on `counter`.
pub fn needed_text(profile: Profile, counter: Counter, needed: u32) -> String {
    let mut t = Thresholds::none(profile);
    set(&mut t, counter, needed);
    wait_text(profile, &t)
}

/// Which instructions a program whose successors are `succ` reaches from
/// its first.
fn reachable(succ: &[Vec<usize>]) -> Vec<bool> {
    let mut seen = vec![false; succ.len()];
    let mut work = Vec::new();
    if !succ.is_empty() {
        seen[0] = true;
        work.push(0);
    }
    while let Some(i) = work.pop() {
        for &s in &succ[i] {
            if !seen[s] {
                seen[s] = true;
                work.push(s);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::parse;

    /// A kernel of `body`, ended by `s_endpgm` where it does not end so.
    fn prog(profile: Profile, body: &str) -> (Kernel, Profile) {
        let end = if body.trim_end().ends_with("s_endpgm") {
            ""
        } else {
            "s_endpgm\n"
        };
        let text = format!("\t.type k,@function\nk:\n{body}\n{end}");
        (parse(&text).unwrap().kernels.remove(0), profile)
    }

    /// A kernel whose last instruction the program reaches and which could
    /// fall through (a file cut short) is refused; padding after the end,
    /// which nothing reaches, and a last branch are not.
    #[test]
    fn running_past_the_last_instruction_is_an_error() {
        let flow = |body: &str| {
            let k = parse(&format!("\t.type k,@function\nk:\n{body}\n"))
                .unwrap()
                .kernels
                .remove(0);
            KernelFlow::new(&k, Gfx9).map(|_| ())
        };
        let cut = flow("global_load_dword v2, v[0:1], off\nv_add_f32 v3, v2, v2").unwrap_err();
        assert!(
            cut.ends_with("`v_add_f32 v3, v2, v2`, the last instruction of kernel `k`, runs on past its end (no `s_endpgm` or branch): is the file cut short?"),
            "{cut}"
        );
        assert!(flow("s_cmp_eq_u32 s0, 0\n.L1:\ns_cbranch_scc1 .L1").is_err());
        assert_eq!(flow("s_endpgm\ns_code_end\ns_code_end"), Ok(()));
        assert_eq!(
            flow("s_cbranch_scc1 .L1\ns_endpgm\n.L1:\ns_branch .L0\n.L0:\ns_endpgm"),
            Ok(())
        );
        assert_eq!(
            flow(".L1:\ns_nop 0\ns_cbranch_scc1 .L2\ns_branch .L1\n.L2:\ns_endpgm"),
            Ok(())
        );
    }

    fn hazards(p: Profile, body: &str) -> Vec<(HazardKind, usize, usize, String, Counter, u32)> {
        let (k, p) = prog(p, body);
        let pr = KernelFlow::new(&k, p).unwrap();
        pr.hazards(None)
            .into_iter()
            .map(|h| (h.kind, h.at, h.by, h.regs.text(), h.counter, h.needed))
            .collect()
    }

    use Counter::*;
    use HazardKind::*;
    use Profile::*;

    #[test]
    fn a_read_before_its_load_returns_is_raw() {
        let h = hazards(
            Gfx9,
            "global_load_dword v2, v[0:1], off\nv_add_f32 v3, v2, v2\ns_endpgm",
        );
        assert_eq!(h, [(Raw, 1, 0, "v2".into(), Vm, 0)]);
        assert!(hazards(
            Gfx9,
            "global_load_dword v2, v[0:1], off\ns_waitcnt vmcnt(0)\nv_add_f32 v3, v2, v2"
        )
        .is_empty());
    }

    /// In-order groups: the older of two VM loads has returned at vmcnt(1);
    /// SMEM is in no order, so only lgkmcnt(0) (or a count below its
    /// weight) proves it.
    #[test]
    fn ordering_groups_and_weights() {
        let two_loads = "global_load_dword v2, v[0:1], off\nglobal_load_dword v3, v[0:1], off\ns_waitcnt vmcnt(1)\nv_mov_b32 v4, v2\nv_mov_b32 v5, v3";
        assert_eq!(hazards(Gfx9, two_loads), [(Raw, 4, 1, "v3".into(), Vm, 0)]);
        // gfx9: a store is in the same group as loads, so it keeps the load
        // behind it; gfx11: stores count on VS, not VM.
        let store_after = "global_load_dword v2, v[0:1], off\nglobal_store_dword v[0:1], v3, off\ns_waitcnt vmcnt(1)\nv_mov_b32 v4, v2";
        assert!(hazards(Gfx9, store_after).is_empty());
        assert_eq!(
            hazards(Gfx11, store_after),
            [(Raw, 3, 0, "v2".into(), Vm, 0)]
        );
        // Two SMEM loads: lgkmcnt(1) does not prove either (any order).
        let smem = "s_load_dword s4, s[0:1], 0x0\ns_load_dword s5, s[0:1], 0x4\ns_waitcnt lgkmcnt(1)\ns_mov_b32 s6, s4";
        assert_eq!(hazards(Gfx9, smem), [(Raw, 3, 0, "s4".into(), Lgkm, 0)]);
        // Even a lone wide SMEM load (weight 2) needs lgkmcnt(0) (SPEC §3.1:
        // after SMEM only lgkmcnt(0) is safe).
        let wide = "s_load_dwordx2 s[4:5], s[0:1], 0x0\ns_waitcnt lgkmcnt(1)\ns_mov_b32 s6, s4";
        assert_eq!(hazards(Gfx9, wide), [(Raw, 2, 0, "s4".into(), Lgkm, 0)]);
        // LDS behind an SMEM: LDS is in order only among LDS.
        let lds = "ds_read_b32 v1, v0\ns_load_dword s4, s[0:1], 0x0\ns_waitcnt lgkmcnt(1)\nv_mov_b32 v2, v1";
        assert_eq!(hazards(Gfx9, lds), [(Raw, 3, 0, "v1".into(), Lgkm, 0)]);
        let lds2 = "ds_read_b32 v1, v0\nds_read_b32 v2, v0\ns_waitcnt lgkmcnt(1)\nv_mov_b32 v3, v1";
        assert!(hazards(Gfx9, lds2).is_empty());
    }

    #[test]
    fn waw_except_behind_a_load_of_the_same_group() {
        let alu = "global_load_dword v2, v[0:1], off\nv_mov_b32 v2, 0";
        assert_eq!(hazards(Gfx9, alu), [(Waw, 1, 0, "v2".into(), Vm, 0)]);
        let vm = "global_load_dword v2, v[0:1], off\nglobal_load_dword v2, v[0:1], off offset:4";
        assert!(hazards(Gfx9, vm).is_empty());
        let mixed = "global_load_dword v2, v[0:1], off\nds_read_b32 v2, v0";
        assert_eq!(hazards(Gfx9, mixed), [(Waw, 1, 0, "v2".into(), Vm, 0)]);
    }

    /// A loop: the load of one iteration is still outstanding at the top of
    /// the next; the join keeps it, and the wait after the loop covers it.
    #[test]
    fn loops_reach_a_fixed_point() {
        let body = "s_mov_b32 s2, 4\n.L1:\nglobal_load_dword v2, v[0:1], off\nv_mov_b32 v3, v2\ns_sub_u32 s2, s2, 1\ns_cbranch_scc1 .L1\ns_endpgm";
        assert_eq!(hazards(Gfx9, body), [(Raw, 2, 1, "v2".into(), Vm, 0)]);
        let body = "s_mov_b32 s2, 4\n.L1:\nv_mov_b32 v3, v2\nglobal_load_dword v2, v[0:1], off\ns_sub_u32 s2, s2, 1\ns_cbranch_scc1 .L1\ns_endpgm";
        // On the back edge the load of the previous iteration is pending;
        // the load itself returns after it (same group): no WAW.
        assert_eq!(hazards(Gfx9, body), [(Raw, 1, 2, "v2".into(), Vm, 0)]);
    }

    #[test]
    fn redundant_waits_get_their_weakest_thresholds() {
        let (k, p) = prog(
            Gfx9,
            "global_load_dword v2, v[0:1], off\nglobal_load_dword v3, v[0:1], off\ns_waitcnt vmcnt(0) lgkmcnt(0)\nv_mov_b32 v4, v2\ns_waitcnt vmcnt(0)\nv_mov_b32 v5, v3\ns_waitcnt lgkmcnt(0)\nv_mov_b32 v6, 0\ns_waitcnt vmcnt(0)\ns_nop 0\ns_barrier\ns_endpgm",
        );
        let pr = KernelFlow::new(&k, p).unwrap();
        assert!(pr.hazards(None).is_empty());
        let r: Vec<Redundant> = pr
            .redundant()
            .into_iter()
            .filter(|r| !pr.at_fence(r.at))
            .collect();
        // Each wait is judged with the others as written: the vmcnt(0) at
        // 4 can go because the one at 2 drains VM, and the one at 2 could
        // be vmcnt(1) because the one at 4 covers v3 — not both at once.
        assert_eq!(r.len(), 3, "{r:?}");
        assert_eq!((r[0].at, r[0].weakest.vm, r[0].weakest.lgkm), (2, 1, 15));
        assert_eq!((r[1].at, r[2].at), (4, 6));
        assert!(r[1].removable(p) && r[2].removable(p));
        // The wait before the barrier serves the memory model: not judged.
        assert!(pr.at_fence(8) && !pr.at_fence(4) && !pr.at_fence(6));
    }

    /// A release wait before `s_barrier` is at the fence whatever the
    /// scheduler put between them (gfx11: VALU and SALU, `s_delay_alu`),
    /// memory instructions included, unless a later wait releases its
    /// counter instead or a branch comes first.
    #[test]
    fn release_waits_before_a_barrier_are_at_the_fence() {
        let body = "ds_store_b32 v0, v5\ns_waitcnt lgkmcnt(0)\nv_and_b32_e32 v3, 63, v3\ns_delay_alu instid0(VALU_DEP_1)\nv_lshlrev_b32_e32 v0, 2, v3\ns_add_i32 s0, s0, 1\nglobal_load_b32 v7, v[8:9], off\ns_barrier\nbuffer_gl0_inv\ns_waitcnt vmcnt(0)\nv_mov_b32 v1, v7\ns_endpgm";
        let (k, p) = prog(Gfx11, body);
        let pr = KernelFlow::with_fence(&k, p, BarrierFence::None).unwrap();
        assert!(pr.hazards(None).is_empty());
        let r: Vec<usize> = pr.redundant().iter().map(|r| r.at).collect();
        assert_eq!(r, [1], "without the fence, the release wait could go");
        assert!(
            pr.at_fence(1),
            "but it releases the LDS store at the barrier"
        );
        // A later lgkmcnt(0) before the barrier releases the store instead.
        let (k, p) = prog(
            Gfx11,
            &body.replace(
                "s_add_i32",
                "ds_store_b32 v0, v6\ns_waitcnt lgkmcnt(0)\ns_add_i32",
            ),
        );
        let pr = KernelFlow::with_fence(&k, p, BarrierFence::None).unwrap();
        assert!(!pr.at_fence(1) && pr.at_fence(6));
        // Nothing outstanding on its counter: it releases nothing.
        let (k, p) = prog(
            Gfx11,
            &body.replace("ds_store_b32 v0, v5", "v_mov_b32 v1, 0"),
        );
        assert!(!KernelFlow::with_fence(&k, p, BarrierFence::None)
            .unwrap()
            .at_fence(1));
        // A branch between: the barrier is on one path only.
        let (k, p) = prog(
            Gfx11,
            &body.replace("s_add_i32 s0, s0, 1", "s_cbranch_scc1 .L1\n.L1:"),
        );
        assert!(!KernelFlow::with_fence(&k, p, BarrierFence::None)
            .unwrap()
            .at_fence(1));
    }

    /// The acquire side of a global fence on gfx11 in WGP mode: a vector
    /// memory load after `s_barrier` needs `buffer_gl0_inv` between.
    #[test]
    fn loads_after_a_global_barrier_need_an_l0_invalidate_in_wgp_mode() {
        use BarrierFence::{Global, Local};
        let stale = |p: Profile, body: &str, fence: BarrierFence, wgp: bool| {
            let (k, p) = prog(p, body);
            KernelFlow::with_acquire(&k, p, fence, wgp)
                .unwrap()
                .hazards(None)
                .into_iter()
                .filter(|h| h.kind == HazardKind::Stale)
                .map(|h| (h.at, h.by))
                .collect::<Vec<_>>()
        };
        let body = "s_barrier\nglobal_load_b32 v1, v0, s[0:1]\ns_waitcnt vmcnt(0)\nglobal_store_b32 v0, v1, s[0:1]\ns_endpgm";
        assert_eq!(stale(Gfx11, body, Global, true), [(1, 0)]);
        assert_eq!(stale(Gfx11, body, Global, false), [], "CU mode");
        assert_eq!(stale(Gfx11, body, Local, true), [], "a local fence");
        let inv = body.replace("s_barrier\n", "s_barrier\nbuffer_gl0_inv\n");
        assert_eq!(stale(Gfx11, &inv, Global, true), []);
        // Through a loop: the load at the top is reached from the barrier at
        // the bottom.
        let looped = "s_mov_b32 s2, 4\n.L:\nglobal_load_b32 v1, v0, s[0:1]\ns_waitcnt vmcnt(0)\ns_add_i32 s2, s2, -1\ns_barrier\ns_cmp_eq_u32 s2, 0\ns_cbranch_scc0 .L\ns_endpgm";
        assert_eq!(stale(Gfx11, looped, Global, true), [(1, 4)]);
        let gfx9 = "s_barrier\nglobal_load_dword v1, v0, s[0:1]\ns_waitcnt vmcnt(0)\ns_endpgm";
        assert_eq!(
            stale(Gfx9, gfx9, Global, true),
            [],
            "gfx9: one CU per work-group"
        );
    }

    /// Barriers as fences: a store that may be outstanding at `s_barrier`
    /// is a FENCE hazard (LDS stores and LDS DMA under `local`, vector
    /// memory stores too under `global`), with the wait it needs; reads
    /// and permutes are not fenced; `none` fences nothing.
    #[test]
    fn barriers_fence_the_stores_before_them() {
        let fenced = |p: Profile, body: &str, fence: BarrierFence| {
            let (k, p) = prog(p, body);
            let pr = KernelFlow::with_fence(&k, p, fence).unwrap();
            pr.hazards(None)
                .into_iter()
                .map(|h| (h.kind, h.at, h.by, h.regs.text(), h.counter, h.needed))
                .collect::<Vec<_>>()
        };
        use BarrierFence::{Global, Local, None as Off};
        let lds = "ds_write_b32 v0, v1\nv_add_u32_e32 v2, 1, v2\ns_barrier\ns_endpgm";
        let hit = vec![(Fence, 2, 0, "the LDS stored to".to_string(), Lgkm, 0)];
        assert_eq!(fenced(Gfx9, lds, Local), hit);
        assert_eq!(fenced(Gfx9, lds, Global), hit);
        assert_eq!(fenced(Gfx9, lds, Off), []);
        // The release wait ends it; a younger LDS store behind it lets
        // lgkmcnt(1) prove the older one returned.
        assert_eq!(
            fenced(
                Gfx9,
                &lds.replace("s_barrier", "s_waitcnt lgkmcnt(0)\ns_barrier"),
                Local
            ),
            []
        );
        let two =
            "ds_write_b32 v0, v1\nds_write_b32 v3, v1\ns_waitcnt lgkmcnt(1)\ns_barrier\ns_endpgm";
        assert_eq!(
            fenced(Gfx9, two, Local),
            [(Fence, 3, 1, "the LDS stored to".to_string(), Lgkm, 0)]
        );
        // Atomics write the LDS; reads and permutes do not.
        let atomic = lds.replace("ds_write_b32 v0, v1", "ds_add_u32 v0, v1");
        assert_eq!(fenced(Gfx9, &atomic, Local).len(), 1);
        for read in ["ds_read_b32 v4, v0", "ds_bpermute_b32 v4, v0, v1"] {
            let body = lds.replace("ds_write_b32 v0, v1", read);
            assert_eq!(fenced(Gfx9, &body, Global), [], "{read}");
        }
        // Global stores: only under `global`, on vmcnt (gfx9) or vscnt
        // (gfx11).
        let global = "global_store_dword v[0:1], v2, off\ns_barrier\ns_endpgm";
        assert_eq!(fenced(Gfx9, global, Local), []);
        assert_eq!(
            fenced(Gfx9, global, Global),
            [(Fence, 1, 0, "the memory stored to".to_string(), Vm, 0)]
        );
        let global11 = "global_store_b32 v[0:1], v2, off\ns_barrier\ns_endpgm";
        assert_eq!(
            fenced(Gfx11, global11, Global),
            [(Fence, 1, 0, "the memory stored to".to_string(), Vs, 0)]
        );
        // LDS DMA writes the LDS through vmcnt.
        let dma = "buffer_load_dword v1, s[0:3], 0 offen lds\ns_barrier\ns_endpgm";
        assert_eq!(
            fenced(Gfx9, dma, Local),
            [(Fence, 1, 0, "LDS".to_string(), Vm, 0)]
        );
        assert_eq!("global".parse::<BarrierFence>(), Ok(Global));
        assert_eq!(
            "fence".parse::<BarrierFence>(),
            Err("`fence` is not a barrier fence: none, local or global".to_string())
        );
    }
}
