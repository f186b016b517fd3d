//! A kernel as stimulus of the waitcnt unit: several waves run it at once,
//! each along a seeded path through its control-flow graph (a backward
//! branch taken a seeded number of times, at most `max_iterations`), each
//! memory instruction an issue of its class with a seeded latency, each
//! wait a wait. The driver (`units::waitcnt::driver`) then plays the
//! memory system: returns in every order SPEC §3.1 allows (ordered groups
//! in order, the others as their latencies fall), saturation and the
//! unit's stalls respected.

use super::check::{HazardKind, KernelFlow};
use super::table::{Effect, Regs};
use gpucosim_model::waitcnt::{encode, Class, Thresholds, WAVES};
use gpucosim_tb::units::waitcnt::driver::TxnEvent;
use gpucosim_tb::units::waitcnt::txn::WaitcntTxn;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// How a kernel is run as waitcnt stimulus.
#[derive(Debug, Clone, Copy)]
pub struct StimOpts {
    /// Waves running the kernel at once (1..=16).
    pub waves: u8,
    /// The most times a backward branch is taken on one path.
    pub max_iterations: u32,
}

/// The most `--iterations` a backward branch may be taken on one path.
pub const MAX_ITERATIONS: u32 = 10_000;

/// The most instructions the waves' paths may walk together: the stimulus
/// is built whole before a run, at some 50 bytes an instruction.
pub const MAX_STEPS: u64 = 4_000_000;

impl StimOpts {
    /// Whether these options keep the stimulus of a kernel of
    /// `instructions` within [`MAX_ITERATIONS`] and [`MAX_STEPS`]; the
    /// error says which limit, and what to lower.
    pub fn check(&self, instructions: usize) -> Result<(), String> {
        if !(1..=MAX_ITERATIONS).contains(&self.max_iterations) {
            return Err(format!(
                "--iterations {}: expected 1 to {MAX_ITERATIONS}",
                self.max_iterations
            ));
        }
        let steps = u64::from(self.waves.max(1)) * path_bound(instructions, self.max_iterations);
        if steps > MAX_STEPS {
            return Err(format!(
                "--iterations {} with {} wave(s) lets the paths through this kernel's {instructions} instructions walk up to {steps} of them, more than {MAX_STEPS}: lower --iterations or --wave-count",
                self.max_iterations, self.waves
            ));
        }
        Ok(())
    }
}

/// The steps after which a path takes the way out of every branch.
fn step_budget(instructions: usize, max_iterations: u32) -> usize {
    instructions * (max_iterations as usize + 2) + 64
}

/// The most instructions one wave's path walks: its budget, then at most
/// one instruction nearer an end at each step.
#[doc(hidden)]
pub fn path_bound(instructions: usize, max_iterations: u32) -> u64 {
    (step_budget(instructions, max_iterations) + instructions) as u64
}

impl Default for StimOpts {
    fn default() -> Self {
        StimOpts {
            waves: 4,
            max_iterations: 4,
        }
    }
}

/// Latencies (cycles from acceptance to return) a class's instructions
/// are drawn from: long for memory, short for LDS.
fn latency(class: Class, rng: &mut ChaCha8Rng) -> u16 {
    let (lo, hi) = match class {
        Class::VmemLoad | Class::VmemStore | Class::FlatLoad | Class::FlatStore => (8, 200),
        Class::Smem1 | Class::Smem2 => (4, 60),
        Class::Lds | Class::LdsParam | Class::LdsDirect => (2, 64),
        Class::Gds | Class::Sendmsg | Class::Export => (2, 40),
    };
    rng.gen_range(lo..=hi)
}

/// The shortest number of instructions from each instruction to an end
/// (`u32::MAX`: none), along the control-flow graph.
fn to_exit(pr: &KernelFlow) -> Vec<u32> {
    let n = pr.cls.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for &s in pr.successors(i) {
            preds[s].push(i);
        }
    }
    let mut d = vec![u32::MAX; n];
    let mut q = VecDeque::new();
    for (i, di) in d.iter_mut().enumerate() {
        if pr.successors(i).is_empty() {
            *di = 0;
            q.push_back(i);
        }
    }
    while let Some(i) = q.pop_front() {
        for &p in &preds[i] {
            if d[p] == u32::MAX {
                d[p] = d[i] + 1;
                q.push_back(p);
            }
        }
    }
    d
}

/// One instruction of a wave's path: the instruction's index in the kernel
/// and the indices (in the whole stimulus) of the transactions it became
/// (none for an ALU instruction, two for a wait on both VS_CNT and the
/// other counters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Index of the instruction in the kernel.
    pub inst: usize,
    /// Its transactions.
    pub txns: Vec<usize>,
}

/// One wave's path through the kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WavePath {
    /// The wave.
    pub wave: u8,
    /// The instructions in the order the wave executes them.
    pub steps: Vec<Step>,
}

/// One wave's instructions as transactions, along a seeded path, with the
/// path (transaction indices local to the wave).
fn wave_path(
    pr: &KernelFlow,
    wave: u8,
    rng: &mut ChaCha8Rng,
    opts: &StimOpts,
) -> (Vec<WaitcntTxn>, Vec<Step>) {
    let p = pr.profile;
    let none = Thresholds::none(p);
    let exit = to_exit(pr);
    // A path ends within this many instructions: past it every branch
    // takes the way out.
    let budget = step_budget(pr.cls.len(), opts.max_iterations);
    let mut taken = vec![0u32; pr.cls.len()];
    let mut limit = vec![0u32; pr.cls.len()];
    let mut out = Vec::new();
    let mut path = Vec::new();
    let (mut i, mut steps) = (0usize, 0usize);
    while i < pr.cls.len() {
        steps += 1;
        let first = out.len();
        match &pr.cls[i].effect {
            Effect::Mem { class, .. } => out.push(WaitcntTxn::Issue {
                wave,
                class: *class,
                latency: latency(*class, rng),
                count: 1,
            }),
            Effect::Wait(t) => {
                let mut plain = *t;
                plain.vs = none.vs;
                if plain != none {
                    out.push(WaitcntTxn::Wait {
                        wave,
                        imm: encode(p, &plain),
                        vscnt: false,
                    });
                }
                if t.vs != none.vs {
                    // The immediate as written: its bits above the
                    // threshold reach the unit, which ignores them.
                    let inst = &pr.kernel.insts[i];
                    let raw = inst
                        .operand_list()
                        .get(1)
                        .and_then(|o| gpucosim_tb::units::input::U::<16>::parse(o).ok())
                        .filter(|_| inst.mnemonic == "s_waitcnt_vscnt")
                        .map_or(t.vs as u16, |v| v.get() as u16);
                    out.push(WaitcntTxn::Wait {
                        wave,
                        imm: raw,
                        vscnt: true,
                    });
                }
            }
            _ => {}
        }
        path.push(Step {
            inst: i,
            txns: (first..out.len()).collect(),
        });
        let succ = pr.successors(i);
        let next = match succ {
            [] => break,
            [s] => *s,
            [fall, target] => {
                let backward = *target <= i;
                let out_first = |a: usize, b: usize| if exit[a] <= exit[b] { a } else { b };
                if steps > budget {
                    out_first(*fall, *target)
                } else if backward {
                    if limit[i] == 0 {
                        limit[i] = rng.gen_range(1..=opts.max_iterations.max(1));
                    }
                    if taken[i] < limit[i] && exit[*target] != u32::MAX {
                        taken[i] += 1;
                        *target
                    } else {
                        taken[i] = 0;
                        limit[i] = 0;
                        *fall
                    }
                } else if rng.gen_bool(0.5) {
                    *target
                } else {
                    *fall
                }
            }
            more => more[0],
        };
        i = next;
    }
    (out, path)
}

/// The waitcnt transactions of `opts.waves` waves running the kernel: each
/// wave's path, interleaved at random (seeded) in runs of 1 to 8
/// instructions of one wave.
pub fn stimulus(pr: &KernelFlow, seed: u64, opts: &StimOpts) -> Vec<WaitcntTxn> {
    stimulus_traced(pr, seed, opts).0
}

/// [`stimulus`] and each wave's path, its steps naming their transactions.
pub fn stimulus_traced(
    pr: &KernelFlow,
    seed: u64,
    opts: &StimOpts,
) -> (Vec<WaitcntTxn>, Vec<WavePath>) {
    let waves = opts.waves.clamp(1, WAVES as u8);
    let mut per_wave: Vec<(VecDeque<WaitcntTxn>, Vec<Step>)> = (0..waves)
        .map(|w| {
            let mut rng = ChaCha8Rng::seed_from_u64(
                seed ^ (u64::from(w) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            let (txns, path) = wave_path(pr, w, &mut rng, opts);
            (txns.into(), path)
        })
        .collect();
    // Global index of each wave's local transactions.
    let mut global: Vec<Vec<usize>> = per_wave
        .iter()
        .map(|p| Vec::with_capacity(p.0.len()))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    loop {
        let live: Vec<usize> = (0..per_wave.len())
            .filter(|&w| !per_wave[w].0.is_empty())
            .collect();
        if live.is_empty() {
            break;
        }
        // A run of one wave's instructions, so that one wave can fill its
        // counters while the others wait their turn.
        let w = live[rng.gen_range(0..live.len())];
        for _ in 0..rng.gen_range(1..=8) {
            match per_wave[w].0.pop_front() {
                Some(t) => {
                    global[w].push(out.len());
                    out.push(t);
                }
                None => break,
            }
        }
    }
    let paths = per_wave
        .into_iter()
        .enumerate()
        .map(|(w, (_, steps))| WavePath {
            wave: w as u8,
            steps: steps
                .into_iter()
                .map(|s| Step {
                    inst: s.inst,
                    txns: s.txns.iter().map(|&t| global[w][t]).collect(),
                })
                .collect(),
        })
        .collect();
    (out, paths)
}

/// A hazard a replay ran into: in wave `wave`, instruction `at` read (RAW)
/// or wrote (WAW) `regs` while memory instruction `by` had not returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynHazard {
    /// The wave.
    pub wave: u8,
    /// RAW or WAW.
    pub kind: HazardKind,
    /// The instruction that read or wrote (index in the kernel).
    pub at: usize,
    /// The memory instruction still outstanding (index in the kernel).
    pub by: usize,
    /// The registers.
    pub regs: Regs,
    /// The cycle.
    pub cycle: u64,
}

/// The hazards the waves of a replay ran into, given the driver's record
/// of when each transaction was accepted, returned or released
/// ([`TxnEvent`]). A wave executes an instruction that became no
/// transaction as soon as the one before it has (an issue accepted, a wait
/// released) — one possible timing, so every hazard found is one the
/// proof must report too. A wave whose run ended early is followed as far
/// as its record goes. Each (wave, instruction, producer, kind) once.
pub fn dynamic_hazards(
    pr: &KernelFlow,
    paths: &[WavePath],
    events: &[(usize, TxnEvent, u64)],
) -> Vec<DynHazard> {
    use std::collections::HashMap;
    let mut at: HashMap<(usize, u8), u64> = HashMap::new();
    for &(t, e, c) in events {
        let k = match e {
            TxnEvent::Accepted => 0,
            TxnEvent::Returned => 1,
            TxnEvent::Released => 2,
        };
        at.entry((t, k)).or_insert(c);
    }
    let mut out: Vec<DynHazard> = Vec::new();
    for path in paths {
        let mut now = 0u64;
        // Outstanding loads: (instruction, transaction).
        let mut pending: Vec<(usize, usize)> = Vec::new();
        for step in &path.steps {
            let c = &pr.cls[step.inst];
            let time = match (&c.effect, step.txns.first()) {
                (Effect::Mem { .. }, Some(&t)) => match at.get(&(t, 0)) {
                    Some(&a) => a,
                    None => break,
                },
                _ => now,
            };
            // Still outstanding at `time`: not returned before it.
            pending.retain(|&(_, t)| at.get(&(t, 1)).is_none_or(|&r| r >= time));
            for &(l, _) in &pending {
                for (kind, regs) in pr.conflicts(step.inst, l) {
                    if !regs.is_empty()
                        && !out.iter().any(|h| {
                            h.wave == path.wave && h.at == step.inst && h.by == l && h.kind == kind
                        })
                    {
                        out.push(DynHazard {
                            wave: path.wave,
                            kind,
                            at: step.inst,
                            by: l,
                            regs,
                            cycle: time,
                        });
                    }
                }
            }
            match &c.effect {
                Effect::Mem { dst, .. } => {
                    if let Some(&t) = step.txns.first() {
                        if !dst.is_empty() {
                            pending.push((step.inst, t));
                        }
                    }
                    now = time;
                }
                Effect::Wait(_) if !step.txns.is_empty() => {
                    let released: Option<u64> = step
                        .txns
                        .iter()
                        .map(|&t| at.get(&(t, 2)).copied())
                        .try_fold(0u64, |m, r| r.map(|r| m.max(r)));
                    match released {
                        Some(r) => now = now.max(r),
                        None => break,
                    }
                }
                _ => {}
            }
        }
    }
    out
}
