//! A kernel as stimulus of the waitcnt unit: several waves run it at once,
//! each along a seeded path through its control-flow graph (a backward
//! branch taken a seeded number of times, at most `max_iterations`), each
//! memory instruction an issue of its class with a seeded latency, each
//! wait a wait. The driver (`units::waitcnt::driver`) then plays the
//! memory system: returns in every order SPEC §3.1 allows (ordered groups
//! in order, the others as their latencies fall), saturation and the
//! unit's stalls respected.

use super::check::Program;
use super::table::Effect;
use crate::units::waitcnt::txn::WaitcntTxn;
use gpucosim_model::waitcnt::{encode, Class, Thresholds, WAVES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// How a kernel is replayed.
#[derive(Debug, Clone, Copy)]
pub struct ReplayOpts {
    /// Waves running the kernel at once (1..=16).
    pub waves: u8,
    /// The most times a backward branch is taken on one path.
    pub max_iterations: u32,
}

impl Default for ReplayOpts {
    fn default() -> Self {
        ReplayOpts {
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
fn to_exit(pr: &Program) -> Vec<u32> {
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

/// One wave's instructions as transactions, along a seeded path.
fn wave_path(pr: &Program, wave: u8, rng: &mut ChaCha8Rng, opts: &ReplayOpts) -> Vec<WaitcntTxn> {
    let p = pr.profile;
    let none = Thresholds::none(p);
    let exit = to_exit(pr);
    // A path ends within this many instructions: past it every branch
    // takes the way out.
    let budget = pr.cls.len() * (opts.max_iterations as usize + 2) + 64;
    let mut taken = vec![0u32; pr.cls.len()];
    let mut limit = vec![0u32; pr.cls.len()];
    let mut out = Vec::new();
    let (mut i, mut steps) = (0usize, 0usize);
    while i < pr.cls.len() {
        steps += 1;
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
                        .and_then(|o| crate::units::input::U::<16>::parse(o).ok())
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
    out
}

/// The waitcnt transactions of `opts.waves` waves running the kernel: each
/// wave's path, interleaved at random (seeded) in runs of 1 to 8
/// instructions of one wave.
pub fn stimulus(pr: &Program, seed: u64, opts: &ReplayOpts) -> Vec<WaitcntTxn> {
    let waves = opts.waves.clamp(1, WAVES as u8);
    let mut paths: Vec<VecDeque<WaitcntTxn>> = (0..waves)
        .map(|w| {
            let mut rng = ChaCha8Rng::seed_from_u64(
                seed ^ (u64::from(w) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            wave_path(pr, w, &mut rng, opts).into()
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    loop {
        let live: Vec<usize> = (0..paths.len()).filter(|&w| !paths[w].is_empty()).collect();
        if live.is_empty() {
            break;
        }
        // A run of one wave's instructions, so that one wave can fill its
        // counters while the others wait their turn.
        let w = live[rng.gen_range(0..live.len())];
        for _ in 0..rng.gen_range(1..=8) {
            match paths[w].pop_front() {
                Some(t) => out.push(t),
                None => break,
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::asm::parse;
    use gpucosim_model::Profile;

    fn program(body: &str) -> crate::kernel::asm::Kernel {
        parse(&format!("\t.type k,@function\nk:\n{body}\n"))
            .unwrap()
            .kernels
            .remove(0)
    }

    #[test]
    fn paths_follow_the_graph_and_loops_are_bounded() {
        let k = program(
            "s_load_dword s4, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n.L1:\nglobal_load_dword v2, v[0:1], off\ns_waitcnt vmcnt(0)\ns_cbranch_scc1 .L1\nglobal_store_dword v[0:1], v2, off\ns_endpgm",
        );
        let pr = Program::new(&k, Profile::Gfx11).unwrap();
        let opts = ReplayOpts {
            waves: 3,
            max_iterations: 5,
        };
        let a = stimulus(&pr, 7, &opts);
        assert_eq!(a, stimulus(&pr, 7, &opts), "deterministic per seed");
        assert_ne!(a, stimulus(&pr, 8, &opts));
        for w in 0..3u8 {
            let mine: Vec<&WaitcntTxn> = a
                .iter()
                .filter(|t| matches!(t, WaitcntTxn::Issue { wave, .. } | WaitcntTxn::Wait { wave, .. } if *wave == w))
                .collect();
            let loads = mine
                .iter()
                .filter(|t| {
                    matches!(
                        t,
                        WaitcntTxn::Issue {
                            class: Class::VmemLoad,
                            ..
                        }
                    )
                })
                .count();
            // The loop body runs once, plus 1..=5 taken back edges.
            assert!((2..=6).contains(&loads), "wave {w}: {loads} loads");
            assert!(matches!(
                mine[0],
                WaitcntTxn::Issue {
                    class: Class::Smem1,
                    ..
                }
            ));
            assert!(matches!(
                mine.last().unwrap(),
                WaitcntTxn::Issue {
                    class: Class::VmemStore,
                    ..
                }
            ));
            // gfx11 vmcnt(0): imm with vm 0, the rest not waiting.
            let vm0 = encode(
                Profile::Gfx11,
                &Thresholds {
                    vm: 0,
                    ..Thresholds::none(Profile::Gfx11)
                },
            );
            assert!(mine
                .iter()
                .any(|t| matches!(t, WaitcntTxn::Wait { imm, vscnt: false, .. } if *imm == vm0)));
        }
    }
}
