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
