//! Testbench of the `waitcnt` unit (the s_waitcnt scoreboard,
//! `docs/waitcnt.md`): closed-loop stimulus from a 16-wave sequencer and a
//! memory system, the `eval` calculator and the `decode-waitcnt` decoder.

use crate::testbench::{Drive, Driver, Testbench, TxnSource};
use gpucosim_model::ports::PortTable;
use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::{
    decode_wait_word, encode, Class, Counter, ErrCode, Thresholds, Wait, WaitcntModel,
    WaitcntParams, COUNTERS, WAVES,
};
use gpucosim_model::{Profile, Unit};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::VecDeque;

/// One transaction: an instruction of one wave, a pause, or an injected
/// protocol error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WaitcntTxn {
    /// `count` instructions of `class` issued back to back by `wave`; each
    /// returns `latency` cycles after it is accepted (later if an older
    /// instruction of its ordering domain has not returned yet).
    Issue {
        /// Wave (0..15).
        wave: u8,
        /// Instruction class.
        class: Class,
        /// Cycles from acceptance to the return (at least 1).
        latency: u16,
        /// Number of instructions in the burst (at least 1).
        count: u8,
    },
    /// `s_waitcnt imm` (or `s_waitcnt_vscnt null, imm` when `vscnt`).
    Wait {
        /// Wave (0..15).
        wave: u8,
        /// The 16-bit immediate.
        imm: u16,
        /// `s_waitcnt_vscnt` (gfx11).
        vscnt: bool,
    },
    /// The sequencer offers nothing for `cycles` cycles (returns go on).
    Idle {
        /// Cycles of pause (at least 1).
        cycles: u8,
    },
    /// Injected error: a return event of class code `code` (0..15) for
    /// `wave` that the memory system never issued.
    BadReturn {
        /// Wave (0..15).
        wave: u8,
        /// Class code (12..15 are illegal everywhere).
        code: u8,
    },
    /// Injected error: `wave` executes `s_waitcnt 0` (all counters), then an
    /// issue of class code `code` is offered while it waits (a `busy` error),
    /// at once if the code is illegal, or 64 cycles after the transaction was
    /// taken whatever the wave's state (then an ordinary issue that returns
    /// after one cycle).
    BadIssue {
        /// Wave (0..15).
        wave: u8,
        /// Class code.
        code: u8,
    },
    /// Injected error: an issue of `class` and an `s_waitcnt imm` offered to
    /// `wave` in the same cycle (a `dual` error; both are ignored).
    BadDual {
        /// Wave (0..15).
        wave: u8,
        /// Class of the issue.
        class: Class,
        /// Immediate of the wait.
        imm: u16,
    },
}

/// Knobs of the random stimulus (`--knob name=value`). Percentages are of
/// generated transactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WaitcntKnobs {
    /// Waves in use (1..16).
    pub waves: u8,
    /// Shortest return latency.
    pub lat_min: u16,
    /// Longest ordinary return latency.
    pub lat_max: u16,
    /// Percentage of issues with a long latency (up to `lat_long_max`).
    pub lat_long_pct: u8,
    /// Longest long latency.
    pub lat_long_max: u16,
    /// Percentage of issues that are bursts of 2..`burst_max` instructions.
    pub burst_pct: u8,
    /// Largest ordinary burst.
    pub burst_max: u8,
    /// Percentage of transactions that are long, slow bursts meant to fill a
    /// counter (saturation pressure).
    pub sat_pct: u8,
    /// Percentage of waits.
    pub wait_pct: u8,
    /// Percentage of sequencer pauses.
    pub idle_pct: u8,
    /// Percentage of injected protocol errors (default 0).
    pub err_pct: u8,
}

impl Default for WaitcntKnobs {
    fn default() -> Self {
        WaitcntKnobs {
            waves: 16,
            lat_min: 1,
            lat_max: 40,
            lat_long_pct: 5,
            lat_long_max: 400,
            burst_pct: 15,
            burst_max: 8,
            sat_pct: 3,
            wait_pct: 15,
            idle_pct: 4,
            err_pct: 0,
        }
    }
}

/// The `waitcnt` testbench.
pub struct WaitcntTestbench;

/// Ordering domains of the memory system: instructions of one domain and wave
/// return in issue order, except SMEM.
const DOMAINS: usize = 8;
const DOM_VM: usize = 0;
const DOM_VS: usize = 1;
const DOM_LDS: usize = 2;
const DOM_GDS: usize = 3;
const DOM_SMEM: usize = 4;
const DOM_MSG: usize = 5;
const DOM_EXP: usize = 6;
const DOM_PARAM: usize = 7;
/// In-flight capacity per wave and domain (counters hold at most 63; more
/// only after injected returns took counts away).
const DOM_CAP: usize = 128;
/// Injected returns waiting for a free channel.
const BAD_CAP: usize = 16;
const RET_CHANNELS: usize = 4;

fn domain(profile: Profile, class: Class) -> usize {
    let vs = WaitcntParams::of(profile).has_vs();
    match class {
        Class::VmemLoad | Class::FlatLoad => DOM_VM,
        Class::VmemStore | Class::FlatStore if vs => DOM_VS,
        Class::VmemStore | Class::FlatStore => DOM_VM,
        Class::Lds => DOM_LDS,
        Class::Gds => DOM_GDS,
        Class::Smem1 | Class::Smem2 => DOM_SMEM,
        Class::Sendmsg => DOM_MSG,
        Class::Export => DOM_EXP,
        Class::LdsParam | Class::LdsDirect => DOM_PARAM,
    }
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    due: u64,
    code: u8,
    idx: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Empty,
    Issue {
        class: Class,
        latency: u16,
        left: u8,
        idx: usize,
    },
    Wait {
        imm: u16,
        vscnt: bool,
        idx: usize,
    },
    BadIssue {
        code: u8,
        since: u64,
        waited: bool,
        idx: usize,
    },
    BadDual {
        code: u8,
        imm: u16,
        idx: usize,
    },
}

/// The sequencer and memory system of one run.
pub struct WaitcntDriver {
    profile: Profile,
    slots: [Slot; WAVES],
    /// Bit w: `slots[w]` is not `Slot::Empty`.
    occupied: u16,
    lookahead: Option<(WaitcntTxn, usize)>,
    exhausted: bool,
    consumed: usize,
    idle_left: u32,
    bad: VecDeque<(u8, u8, usize)>,
    mem: Vec<VecDeque<InFlight>>,
    in_mem: usize,
    /// Bit q: `mem[q]` is not empty.
    busy_q: u128,
    /// No return can be due before this cycle (see `returns`).
    next_scan: u64,
    /// Domain per class code.
    dom: [u8; 16],
    /// Bit c: class code c is legal on the profile.
    legal: u16,
    /// Issue offered last cycle: (wave, slot index).
    offered_issue: Option<usize>,
    rr_issue: usize,
    rr_wait: usize,
    now: u64,
}

impl WaitcntDriver {
    fn new(profile: Profile) -> Self {
        WaitcntDriver {
            profile,
            slots: [Slot::Empty; WAVES],
            occupied: 0,
            lookahead: None,
            exhausted: false,
            consumed: 0,
            idle_left: 0,
            bad: VecDeque::with_capacity(BAD_CAP),
            mem: (0..WAVES * DOMAINS)
                .map(|_| VecDeque::with_capacity(DOM_CAP))
                .collect(),
            in_mem: 0,
            busy_q: 0,
            next_scan: 0,
            dom: std::array::from_fn(|c| {
                Class::from_code(c as u32).map_or(0, |class| domain(profile, class) as u8)
            }),
            legal: Class::ALL
                .iter()
                .filter(|c| c.legal(profile))
                .fold(0, |m, c| m | 1 << c.code()),
            offered_issue: None,
            rr_issue: 0,
            rr_wait: 0,
            now: 0,
        }
    }

    /// Sets wave `w`'s slot, keeping `occupied` in step.
    #[inline]
    fn set_slot(&mut self, w: usize, slot: Slot) {
        self.slots[w] = slot;
        if slot == Slot::Empty {
            self.occupied &= !(1 << w);
        } else {
            self.occupied |= 1 << w;
        }
    }

    /// Places a transaction; gives it back if its wave's slot (or the
    /// injected-return queue) is full.
    fn place(&mut self, txn: WaitcntTxn, idx: usize) -> Result<(), (WaitcntTxn, usize)> {
        match txn {
            WaitcntTxn::Issue {
                wave,
                class,
                latency,
                count,
            } => {
                let w = wave as usize % WAVES;
                if self.slots[w] != Slot::Empty {
                    return Err((txn, idx));
                }
                if count == 0 || self.legal >> class.code() & 1 == 0 {
                    return Ok(()); // nothing to issue
                }
                self.set_slot(
                    w,
                    Slot::Issue {
                        class,
                        latency: latency.max(1),
                        left: count,
                        idx,
                    },
                );
            }
            WaitcntTxn::Wait { wave, imm, vscnt } => {
                let w = wave as usize % WAVES;
                if self.slots[w] != Slot::Empty {
                    return Err((txn, idx));
                }
                self.set_slot(w, Slot::Wait { imm, vscnt, idx });
            }
            WaitcntTxn::Idle { cycles } => {
                if self.idle_left > 0 {
                    return Err((txn, idx));
                }
                self.idle_left = cycles.max(1) as u32;
            }
            WaitcntTxn::BadReturn { wave, code } => {
                if self.bad.len() >= BAD_CAP {
                    return Err((txn, idx));
                }
                self.bad.push_back((wave % WAVES as u8, code & 15, idx));
            }
            WaitcntTxn::BadIssue { wave, code } => {
                let w = wave as usize % WAVES;
                if self.slots[w] != Slot::Empty {
                    return Err((txn, idx));
                }
                self.set_slot(
                    w,
                    Slot::BadIssue {
                        code: code & 15,
                        since: self.now,
                        waited: false,
                        idx,
                    },
                );
            }
            WaitcntTxn::BadDual { wave, class, imm } => {
                let w = wave as usize % WAVES;
                if self.slots[w] != Slot::Empty {
                    return Err((txn, idx));
                }
                self.set_slot(
                    w,
                    Slot::BadDual {
                        code: class.code() as u8,
                        imm,
                        idx,
                    },
                );
            }
        }
        Ok(())
    }

    fn fill(&mut self, src: &mut dyn TxnSource<WaitcntTxn>) {
        // At most a few transactions per cycle, like an instruction fetch.
        for _ in 0..4 {
            let (txn, idx) = match self.lookahead.take() {
                Some(t) => t,
                None => {
                    if self.exhausted {
                        return;
                    }
                    match src.next_txn() {
                        Some(t) => {
                            self.consumed += 1;
                            (t, self.consumed - 1)
                        }
                        None => {
                            self.exhausted = true;
                            return;
                        }
                    }
                }
            };
            let is_idle = matches!(txn, WaitcntTxn::Idle { .. });
            if let Err(back) = self.place(txn, idx) {
                self.lookahead = Some(back);
                return;
            }
            if is_idle {
                return;
            }
        }
    }

    fn mem_push(&mut self, w: usize, class: Class, latency: u16, idx: usize) {
        let qi = w * DOMAINS + self.dom[class.code() as usize] as usize;
        // `now` is the cycle after the acceptance edge.
        let due = self.now - 1 + latency.max(1) as u64;
        self.mem[qi].push_back(InFlight {
            due,
            code: class.code() as u8,
            idx,
        });
        self.in_mem += 1;
        self.busy_q |= 1 << qi;
        self.next_scan = self.next_scan.min(due);
    }

    /// Returns up to the free channels' worth of due instructions, oldest due
    /// first (lower wave and domain first on ties), at most one per wave and
    /// domain: the head of an ordered domain, any due entry of SMEM. Writes
    /// them to channels `k..`.
    fn returns(&mut self, inputs: &mut [u32], k: usize) {
        // Nothing can be due before `next_scan`: it is the earliest due
        // cycle among the entries that could return (the heads of ordered
        // domains, every SMEM entry) when the last scan found none due, and
        // pushes lower it.
        if self.in_mem == 0 || k >= RET_CHANNELS || self.now < self.next_scan {
            return;
        }
        let slots = RET_CHANNELS - k;
        // (due, queue, position), sorted by due; stable on ties.
        let mut picks = [(0u64, 0usize, 0usize); RET_CHANNELS];
        let mut n = 0;
        let mut future = u64::MAX;
        let mut busy = self.busy_q;
        while busy != 0 {
            let q = busy.trailing_zeros() as usize;
            busy &= busy - 1;
            let dq = &self.mem[q];
            let cand = if q % DOMAINS == DOM_SMEM {
                let mut best: Option<(u64, usize)> = None;
                for (i, e) in dq.iter().enumerate() {
                    if e.due > self.now {
                        future = future.min(e.due);
                    } else if best.map_or(true, |b| e.due < b.0) {
                        best = Some((e.due, i));
                    }
                }
                best
            } else {
                match dq.front() {
                    Some(e) if e.due <= self.now => Some((e.due, 0)),
                    Some(e) => {
                        future = future.min(e.due);
                        None
                    }
                    None => None,
                }
            };
            let Some((due, pos)) = cand else { continue };
            if n == slots && due >= picks[n - 1].0 {
                continue;
            }
            let mut at = n.min(slots - 1);
            while at > 0 && picks[at - 1].0 > due {
                picks[at] = picks[at - 1];
                at -= 1;
            }
            picks[at] = (due, q, pos);
            n = (n + 1).min(slots);
        }
        for (c, &(_, q, pos)) in picks[..n].iter().enumerate() {
            let Some(e) = self.mem[q].remove(pos) else {
                continue;
            };
            if self.mem[q].is_empty() {
                self.busy_q &= !(1 << q);
            }
            self.in_mem -= 1;
            P::ret_valid_i.set_bit(inputs, k + c, true);
            P::ret_wave_i.set_elem(inputs, k + c, (q / DOMAINS) as u64);
            P::ret_class_i.set_elem(inputs, k + c, e.code as u64);
        }
        // After a return the next entries may be due at once; with none
        // due, nothing returns before the earliest future due cycle.
        self.next_scan = if n > 0 { self.now + 1 } else { future };
    }
}

impl Driver<WaitcntTxn> for WaitcntDriver {
    fn drive(
        &mut self,
        prev_out: &[u32],
        inputs: &mut [u32],
        src: &mut dyn TxnSource<WaitcntTxn>,
    ) -> Drive {
        // What happened to last cycle's issue.
        if let Some(w) = self.offered_issue.take() {
            let acked = P::issue_ack_o.bit(prev_out);
            match self.slots[w] {
                Slot::Issue {
                    class,
                    latency,
                    left,
                    idx,
                } if acked => {
                    self.mem_push(w, class, latency, idx);
                    self.set_slot(
                        w,
                        if left > 1 {
                            Slot::Issue {
                                class,
                                latency,
                                left: left - 1,
                                idx,
                            }
                        } else {
                            Slot::Empty
                        },
                    );
                }
                Slot::BadIssue { code, idx, .. } | Slot::BadDual { code, idx, .. } => {
                    if acked {
                        if let Some(class) = Class::from_code(code as u32) {
                            self.mem_push(w, class, 1, idx);
                        }
                    }
                    self.set_slot(w, Slot::Empty);
                }
                _ => {}
            }
        }
        let waiting = P::stall_o.get(prev_out) as u32;

        self.fill(src);

        // Offers of the sequencer.
        let mut issue_wave = usize::MAX;
        if self.idle_left > 0 {
            self.idle_left -= 1;
        } else {
            // Only occupied slots can offer, in round-robin order from
            // `rr_issue`.
            let mut cand = self.occupied.rotate_right(self.rr_issue as u32);
            while cand != 0 {
                let i = cand.trailing_zeros() as usize;
                cand &= cand - 1;
                let w = (self.rr_issue + i) % WAVES;
                let wave_waits = waiting >> w & 1 != 0;
                let code = match self.slots[w] {
                    Slot::Issue { class, .. } if !wave_waits => {
                        let q = &self.mem[w * DOMAINS + self.dom[class.code() as usize] as usize];
                        if q.len() >= DOM_CAP {
                            continue;
                        }
                        class.code()
                    }
                    // Offered while the wave waits (a `busy` error), or at
                    // once if the code is illegal; after 64 cycles whatever
                    // the wave's state (then an ordinary issue).
                    Slot::BadIssue {
                        code,
                        since,
                        waited: true,
                        ..
                    } if wave_waits
                        || Class::from_code(code as u32)
                            .map_or(true, |c| !c.legal(self.profile))
                        || self.now >= since + 64 =>
                    {
                        code as u32
                    }
                    // Offered only while the wave does not wait, so that the
                    // wait is not itself refused as `busy`.
                    Slot::BadDual { code, imm, .. } if !wave_waits => {
                        P::wait_valid_i.set(inputs, 1);
                        P::wait_wave_i.set(inputs, w as u64);
                        P::wait_imm_i.set(inputs, imm as u64);
                        code as u32
                    }
                    _ => continue,
                };
                P::issue_valid_i.set(inputs, 1);
                P::issue_wave_i.set(inputs, w as u64);
                P::issue_class_i.set(inputs, code as u64);
                self.offered_issue = Some(w);
                issue_wave = w;
                self.rr_issue = (w + 1) % WAVES;
                break;
            }
            // Occupied slots of waves that neither wait nor offer an issue,
            // in round-robin order from `rr_wait`.
            let mut eligible = self.occupied & !(waiting as u16);
            if issue_wave < WAVES {
                eligible &= !(1 << issue_wave);
            }
            let mut cand = eligible.rotate_right(self.rr_wait as u32);
            while cand != 0 {
                let i = cand.trailing_zeros() as usize;
                cand &= cand - 1;
                let w = (self.rr_wait + i) % WAVES;
                match self.slots[w] {
                    Slot::Wait { imm, vscnt, .. } => {
                        P::wait_valid_i.set(inputs, 1);
                        P::wait_wave_i.set(inputs, w as u64);
                        P::wait_vscnt_i.set(inputs, vscnt as u64);
                        P::wait_imm_i.set(inputs, imm as u64);
                        self.set_slot(w, Slot::Empty);
                        self.rr_wait = (w + 1) % WAVES;
                        break;
                    }
                    // The wave first waits for all its counters to drain, so
                    // that the issue that follows meets a waiting wave.
                    Slot::BadIssue {
                        code,
                        since,
                        waited: false,
                        idx,
                    } => {
                        P::wait_valid_i.set(inputs, 1);
                        P::wait_wave_i.set(inputs, w as u64);
                        self.set_slot(
                            w,
                            Slot::BadIssue {
                                code,
                                since,
                                waited: true,
                                idx,
                            },
                        );
                        self.rr_wait = (w + 1) % WAVES;
                        break;
                    }
                    _ => {}
                }
            }
        }

        // The memory system: one injected return, then due returns.
        let mut k = 0;
        if let Some((w, code, _)) = self.bad.pop_front() {
            P::ret_valid_i.set_bit(inputs, 0, true);
            P::ret_wave_i.set_elem(inputs, 0, w as u64);
            P::ret_class_i.set_elem(inputs, 0, code as u64);
            k = 1;
        }
        self.returns(inputs, k);
        self.now += 1;

        let idle = self.exhausted
            && self.lookahead.is_none()
            && self.occupied == 0
            && self.bad.is_empty()
            && self.in_mem == 0
            && self.offered_issue.is_none()
            && waiting == 0
            && self.idle_left == 0;
        if idle {
            Drive::Done
        } else {
            Drive::Busy
        }
    }

    fn in_flight(&self) -> Option<usize> {
        let slots = self.slots.iter().filter_map(|s| match *s {
            Slot::Empty => None,
            Slot::Issue { idx, .. }
            | Slot::Wait { idx, .. }
            | Slot::BadIssue { idx, .. }
            | Slot::BadDual { idx, .. } => Some(idx),
        });
        let mem = self.mem.iter().flat_map(|q| q.iter().map(|e| e.idx));
        let bad = self.bad.iter().map(|b| b.2);
        slots
            .chain(mem)
            .chain(bad)
            .chain(self.lookahead.as_ref().map(|l| l.1))
            .min()
    }
}

fn latency(knobs: &WaitcntKnobs, rng: &mut ChaCha8Rng) -> u16 {
    let lo = knobs.lat_min.max(1);
    if rng.gen_range(0..100u8) < knobs.lat_long_pct {
        let hi = knobs.lat_long_max.max(lo);
        rng.gen_range(lo..=hi)
    } else {
        let hi = knobs.lat_max.max(lo);
        rng.gen_range(lo..=hi)
    }
}

/// A random wait, biased toward the forms compilers emit.
fn random_wait(profile: Profile, wave: u8, rng: &mut ChaCha8Rng) -> WaitcntTxn {
    let none = Thresholds::none(profile);
    let has_vs = WaitcntParams::of(profile).has_vs();
    let small = |rng: &mut ChaCha8Rng, max: u32| rng.gen_range(0..=max.min(4));
    let t = match rng.gen_range(0..10u8) {
        0 => Thresholds { vm: 0, ..none },
        1 => Thresholds { lgkm: 0, ..none },
        2 => Thresholds {
            vm: 0,
            lgkm: 0,
            ..none
        },
        3 => Thresholds { exp: 0, ..none },
        4 => Thresholds {
            vm: small(rng, none.vm),
            ..none
        },
        5 => Thresholds {
            lgkm: small(rng, none.lgkm),
            ..none
        },
        6 => Thresholds {
            vm: 0,
            lgkm: 0,
            exp: 0,
            vs: none.vs,
        },
        7 if has_vs => {
            // SPEC §3.2: the threshold is imm[5:0]; bits [15:6], set at
            // random here, are ignored.
            return WaitcntTxn::Wait {
                wave,
                imm: rng.gen_range(0..=2) | (rng.gen::<u16>() & 0xFFC0),
                vscnt: true,
            };
        }
        8 => {
            return WaitcntTxn::Wait {
                wave,
                imm: rng.gen(),
                vscnt: false,
            }
        }
        _ => Thresholds {
            vm: rng.gen_range(0..=none.vm),
            lgkm: rng.gen_range(0..=none.lgkm),
            exp: rng.gen_range(0..=none.exp),
            vs: none.vs,
        },
    };
    WaitcntTxn::Wait {
        wave,
        imm: encode(profile, &t),
        vscnt: false,
    }
}

fn legal_classes(profile: Profile) -> impl Iterator<Item = Class> {
    Class::ALL.into_iter().filter(move |c| c.legal(profile))
}

impl Testbench for WaitcntTestbench {
    type Txn = WaitcntTxn;
    type Knobs = WaitcntKnobs;
    type Driver = WaitcntDriver;

    const UNIT: &'static str = "waitcnt";

    fn table() -> &'static PortTable {
        &P::TABLE
    }

    fn model(profile: Profile) -> Box<dyn Unit> {
        Box::new(WaitcntModel::new(profile))
    }

    fn generate(profile: Profile, knobs: &WaitcntKnobs, rng: &mut ChaCha8Rng) -> WaitcntTxn {
        let waves = knobs.waves.clamp(1, WAVES as u8);
        let wave = rng.gen_range(0..waves);
        let roll = rng.gen_range(0..100u32);
        let mut at = knobs.err_pct as u32;
        if roll < at {
            let code = if rng.gen_bool(0.25) {
                rng.gen_range(12..16u8)
            } else {
                let n = legal_classes(profile).count();
                let c = legal_classes(profile).nth(rng.gen_range(0..n));
                c.map_or(0, |c| c.code() as u8)
            };
            return match rng.gen_range(0..5u8) {
                0 | 1 => WaitcntTxn::BadReturn { wave, code },
                2 | 3 => WaitcntTxn::BadIssue { wave, code },
                _ => WaitcntTxn::BadDual {
                    wave,
                    class: Class::from_code(code as u32).unwrap_or(Class::Lds),
                    imm: rng.gen(),
                },
            };
        }
        at += knobs.idle_pct as u32;
        if roll < at {
            return WaitcntTxn::Idle {
                cycles: rng.gen_range(1..=8),
            };
        }
        at += knobs.wait_pct as u32;
        if roll < at {
            return random_wait(profile, wave, rng);
        }
        at += knobs.sat_pct as u32;
        if roll < at {
            // Fill a counter: a long burst of slow instructions on one counter.
            let stores = if WaitcntParams::of(profile).has_vs() {
                Counter::Vs
            } else {
                Counter::Vm
            };
            let (class, max) = match rng.gen_range(0..6u8) {
                0 => (Class::Lds, Counter::Lgkm.max(profile)),
                1 => (Class::Smem2, Counter::Lgkm.max(profile) / 2 + 1),
                2 => (Class::Export, Counter::Exp.max(profile)),
                3 => (Class::VmemStore, stores.max(profile)),
                // GDS fills EXP_CNT (and counts on LGKM_CNT), SPEC §3.1.
                4 => (Class::Gds, Counter::Exp.max(profile)),
                _ => (Class::VmemLoad, Counter::Vm.max(profile)),
            };
            let lo = knobs.lat_max.max(knobs.lat_min).max(1);
            let hi = knobs.lat_long_max.max(lo);
            return WaitcntTxn::Issue {
                wave,
                class,
                latency: rng.gen_range(lo..=hi),
                count: (max + 1 + rng.gen_range(0..4)).min(255) as u8,
            };
        }
        let n = legal_classes(profile).count();
        let class = legal_classes(profile)
            .nth(rng.gen_range(0..n))
            .unwrap_or(Class::Lds);
        let count = if rng.gen_range(0..100u8) < knobs.burst_pct {
            rng.gen_range(2..=knobs.burst_max.max(2))
        } else {
            1
        };
        WaitcntTxn::Issue {
            wave,
            class,
            latency: latency(knobs, rng),
            count,
        }
    }

    fn directed(profile: Profile) -> Vec<WaitcntTxn> {
        let none = Thresholds::none(profile);
        let vm0_lgkm0 = encode(
            profile,
            &Thresholds {
                vm: 0,
                lgkm: 0,
                ..none
            },
        );
        let lgkm0 = encode(profile, &Thresholds { lgkm: 0, ..none });
        let issue = |wave, class, latency, count| WaitcntTxn::Issue {
            wave,
            class,
            latency,
            count,
        };
        let mut v = vec![
            // docs/waitcnt.md worked example.
            issue(0, Class::Lds, 2, 1),
            issue(0, Class::VmemLoad, 4, 1),
            WaitcntTxn::Wait {
                wave: 0,
                imm: vm0_lgkm0,
                vscnt: false,
            },
            // Saturation of LGKM, then a wait for all of it.
            issue(1, Class::Lds, 150, (Counter::Lgkm.max(profile) + 2) as u8),
            WaitcntTxn::Wait {
                wave: 1,
                imm: lgkm0,
                vscnt: false,
            },
            // SMEM returns out of order, and out of order across LGKM kinds;
            // only lgkmcnt(0) is safe after SMEM.
            issue(2, Class::Smem2, 20, 1),
            issue(2, Class::Lds, 2, 1),
            issue(2, Class::Smem1, 5, 1),
            WaitcntTxn::Wait {
                wave: 2,
                imm: lgkm0,
                vscnt: false,
            },
            // FLAT counts on VM and LGKM; exports on EXP.
            issue(3, Class::FlatLoad, 6, 2),
            issue(3, Class::Export, 3, 8),
            WaitcntTxn::Wait {
                wave: 3,
                imm: encode(profile, &Thresholds { exp: 0, ..none }),
                vscnt: false,
            },
            // GDS counts on EXP_CNT on every profile and returns in any
            // order with exports (SPEC §3.1): the GDS overtakes the export.
            issue(6, Class::Export, 30, 1),
            issue(6, Class::Gds, 3, 1),
            WaitcntTxn::Wait {
                wave: 6,
                imm: encode(profile, &Thresholds { exp: 0, ..none }),
                vscnt: false,
            },
            // One GDS more than EXP_CNT holds: the last is held back by EXP.
            issue(7, Class::Gds, 150, (Counter::Exp.max(profile) + 1) as u8),
        ];
        if WaitcntParams::of(profile).has_vs() {
            v.push(issue(4, Class::VmemStore, 10, 3));
            v.push(issue(4, Class::VmemLoad, 30, 1));
            // `s_waitcnt_vscnt null, 0xffc0`: VS_CNT <= 0, bits [15:6]
            // ignored (SPEC §3.2).
            v.push(WaitcntTxn::Wait {
                wave: 4,
                imm: 0xFFC0,
                vscnt: true,
            });
            v.push(issue(5, Class::LdsParam, 3, 2));
        }
        v
    }

    fn driver(profile: Profile, _knobs: &WaitcntKnobs) -> WaitcntDriver {
        WaitcntDriver::new(profile)
    }

    fn simplify(txn: &WaitcntTxn) -> Vec<WaitcntTxn> {
        let mut v = Vec::new();
        match *txn {
            WaitcntTxn::Issue {
                wave,
                class,
                latency,
                count,
            } => {
                if count > 1 {
                    v.push(WaitcntTxn::Issue {
                        wave,
                        class,
                        latency,
                        count: 1,
                    });
                    v.push(WaitcntTxn::Issue {
                        wave,
                        class,
                        latency,
                        count: count / 2,
                    });
                }
                if latency > 1 {
                    v.push(WaitcntTxn::Issue {
                        wave,
                        class,
                        latency: 1,
                        count,
                    });
                    v.push(WaitcntTxn::Issue {
                        wave,
                        class,
                        latency: latency / 2,
                        count,
                    });
                }
                if wave != 0 {
                    v.push(WaitcntTxn::Issue {
                        wave: 0,
                        class,
                        latency,
                        count,
                    });
                }
            }
            WaitcntTxn::Wait { wave, imm, vscnt } => {
                if vscnt {
                    v.push(WaitcntTxn::Wait {
                        wave,
                        imm,
                        vscnt: false,
                    });
                }
                if wave != 0 {
                    v.push(WaitcntTxn::Wait {
                        wave: 0,
                        imm,
                        vscnt,
                    });
                }
            }
            WaitcntTxn::Idle { cycles } => {
                if cycles > 1 {
                    v.push(WaitcntTxn::Idle { cycles: 1 });
                }
            }
            WaitcntTxn::BadReturn { .. }
            | WaitcntTxn::BadIssue { .. }
            | WaitcntTxn::BadDual { .. } => {}
        }
        v
    }
}

// ---------------------------------------------------------------------------
// decode-waitcnt and eval

fn parse_number(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        t.parse::<u64>()
    };
    r.map_err(|_| format!("`{s}` is not a number (expected hex 0x... or decimal)"))
}

/// Decodes `arg` — a 32-bit `s_waitcnt` instruction word (`0xBF8C0070` on
/// gfx9), a gfx11 `s_waitcnt_vscnt null, imm` word (`0xBC7C0005`) or a
/// 16-bit `s_waitcnt` immediate — into its thresholds, e.g.
/// `s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0070 vmcnt=0 expcnt=7 lgkmcnt=0` or
/// `s_waitcnt_vscnt null, 0x5   imm=0x0005 vscnt=5`. A word of another
/// opcode, or an `s_waitcnt_vscnt` on gfx9, is an error.
pub fn decode_waitcnt_text(profile: Profile, arg: &str) -> Result<String, String> {
    let v = parse_number(arg)?;
    let w = decode_arg(profile, v)?;
    let t = wait_thresholds(profile, w)?;
    let imm = w.imm;
    Ok(if w.vscnt {
        format!("{}   imm=0x{imm:04X} vscnt={}", w.text(profile), t.vs)
    } else {
        format!(
            "{}   imm=0x{imm:04X} vmcnt={} expcnt={} lgkmcnt={}",
            w.text(profile),
            t.vm,
            t.exp,
            t.lgkm
        )
    })
}

/// A number ≤ 0xFFFF is an `s_waitcnt` immediate; a wider one a 32-bit
/// instruction word ([`decode_wait_word`]).
fn decode_arg(profile: Profile, v: u64) -> Result<Wait, String> {
    if v <= 0xFFFF {
        Ok(Wait {
            vscnt: false,
            imm: v as u16,
        })
    } else if v <= 0xFFFF_FFFF {
        decode_wait_word(profile, v as u32)
    } else {
        Err(format!("0x{v:X} is wider than a 32-bit instruction word"))
    }
}

/// The thresholds of a wait the profile has (an `s_waitcnt_vscnt` on a
/// profile without VS_CNT is an error).
fn wait_thresholds(profile: Profile, w: Wait) -> Result<Thresholds, String> {
    w.thresholds(profile)
        .ok_or_else(|| format!("s_waitcnt_vscnt: {profile} has no VS_CNT"))
}

fn as_u64(v: &Value, what: &str) -> Result<u64, String> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| format!("{what}: `{n}` is not a non-negative integer")),
        Value::String(s) => parse_number(s).map_err(|e| format!("{what}: {e}")),
        other => Err(format!("{what}: expected a number, got {other}")),
    }
}

fn obj<'a>(
    v: &'a Value,
    what: &str,
    allowed: &[&str],
) -> Result<&'a serde_json::Map<String, Value>, String> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("{what}: expected an object, got {v}"))?;
    if let Some(k) = o.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "{what}: unknown key `{k}` (expected one of: {})",
            allowed.join(", ")
        ));
    }
    Ok(o)
}

fn field_u64(
    o: &serde_json::Map<String, Value>,
    key: &str,
    what: &str,
    max: u64,
) -> Result<u64, String> {
    let v = o
        .get(key)
        .ok_or_else(|| format!("{what}: missing `{key}`"))?;
    let n = as_u64(v, &format!("{what}.{key}"))?;
    if n > max {
        return Err(format!("{what}.{key}: {n} is out of range (0..={max})"));
    }
    Ok(n)
}

fn class_code(v: Option<&Value>, what: &str) -> Result<u64, String> {
    match v {
        None => Err(format!("{what}: missing `class`")),
        Some(Value::String(s)) if s.starts_with("0x") || s.bytes().all(|b| b.is_ascii_digit()) => {
            let n = parse_number(s).map_err(|e| format!("{what}.class: {e}"))?;
            if n > 15 {
                return Err(format!("{what}.class: code {n} is out of range (0..=15)"));
            }
            Ok(n)
        }
        Some(Value::String(s)) => Class::from_name(s).map(|c| c.code() as u64).ok_or_else(|| {
            let names: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
            format!(
                "{what}.class: unknown class `{s}` (expected one of: {})",
                names.join(", ")
            )
        }),
        Some(v) => {
            let n = as_u64(v, &format!("{what}.class"))?;
            if n > 15 {
                return Err(format!("{what}.class: code {n} is out of range (0..=15)"));
            }
            Ok(n)
        }
    }
}

/// A decode result: the immediate, the thresholds of the fields the
/// instruction has (`null` for the others: `s_waitcnt` has no VS field,
/// `s_waitcnt_vscnt` only it) and LLVM's text.
fn eval_decode(profile: Profile, v: &Value) -> Result<Value, String> {
    let n = as_u64(v, "decode")?;
    let w = decode_arg(profile, n).map_err(|e| format!("decode: {e}"))?;
    let t = wait_thresholds(profile, w).map_err(|e| format!("decode: {e}"))?;
    let (vm, exp, lgkm, vs) = if w.vscnt {
        (Value::Null, Value::Null, Value::Null, json!(t.vs))
    } else {
        (json!(t.vm), json!(t.exp), json!(t.lgkm), Value::Null)
    };
    Ok(json!({
        "imm": w.imm,
        "vmcnt": vm,
        "expcnt": exp,
        "lgkmcnt": lgkm,
        "vscnt": vs,
        "text": w.text(profile),
    }))
}

/// The keys of a trace's `wait`: the wave, then the immediate (with the
/// `vscnt` flag), a 32-bit instruction word in `imm`, or the field form.
const WAIT_KEYS: &[&str] = &["wave", "imm", "vscnt", "vmcnt", "expcnt", "lgkmcnt"];

/// A trace's `wait` (`docs/waitcnt.md`, "eval"): `{"imm": I}` with an
/// optional `"vscnt": true` (I ≤ 0xFFFF, driven onto the ports as given);
/// `{"imm": W}` with W a 32-bit `s_waitcnt` / `s_waitcnt_vscnt null` word (as
/// `decode` takes it); or the field form `{"vmcnt": a, "expcnt": b,
/// "lgkmcnt": c}` (missing fields do not wait) or `{"vscnt": n}`.
fn eval_wait(
    profile: Profile,
    wo: &serde_json::Map<String, Value>,
    what: &str,
) -> Result<Wait, String> {
    const FIELDS: [(&str, Counter); 3] = [
        ("vmcnt", Counter::Vm),
        ("expcnt", Counter::Exp),
        ("lgkmcnt", Counter::Lgkm),
    ];
    let fields: Vec<&str> = FIELDS
        .iter()
        .map(|f| f.0)
        .filter(|k| wo.contains_key(*k))
        .collect();
    let vscnt = wo.get("vscnt");
    let vs_field = vscnt.filter(|v| !v.is_boolean());
    if let Some(imm) = wo.get("imm") {
        if let Some(f) = fields.first().copied().or(vs_field.map(|_| "vscnt")) {
            return Err(format!(
                "{what}: `imm` and the field `{f}` are two forms of a wait; give one"
            ));
        }
        let flag = match vscnt {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(v) => return Err(format!("{what}.vscnt: expected true or false, got {v}")),
        };
        let n = as_u64(imm, &format!("{what}.imm"))?;
        if n <= 0xFFFF {
            return Ok(Wait {
                vscnt: flag.unwrap_or(false),
                imm: n as u16,
            });
        }
        let w = decode_arg(profile, n).map_err(|e| format!("{what}.imm: {e}"))?;
        if flag.is_some_and(|f| f != w.vscnt) {
            let name = if w.vscnt {
                "s_waitcnt_vscnt"
            } else {
                "s_waitcnt"
            };
            return Err(format!(
                "{what}.vscnt: the word 0x{n:08X} is an {name}, which contradicts `vscnt`"
            ));
        }
        return Ok(w);
    }
    let has_vs = Counter::Vs.width(profile) > 0;
    if let Some(v) = vscnt {
        if v.is_boolean() {
            return Err(format!("{what}: `vscnt: {v}` needs an `imm`"));
        }
        if let Some(f) = fields.first() {
            return Err(format!(
                "{what}: `{f}` and `vscnt` in one wait: an s_waitcnt never waits on \
                 VS_CNT and s_waitcnt_vscnt only on it (SPEC §3.2); use two waits"
            ));
        }
        if !has_vs {
            return Err(format!("{what}.vscnt: {profile} has no VS_CNT"));
        }
        let n = field_u64(wo, "vscnt", what, Counter::Vs.max(profile) as u64)?;
        return Ok(Wait {
            vscnt: true,
            imm: n as u16,
        });
    }
    if fields.is_empty() {
        return Err(format!(
            "{what}: expected `imm`, or the fields vmcnt, expcnt, lgkmcnt{}",
            if has_vs { ", or vscnt" } else { "" }
        ));
    }
    let mut t = Thresholds::none(profile);
    for (key, c) in FIELDS {
        if wo.contains_key(key) {
            let n = field_u64(wo, key, what, c.max(profile) as u64)? as u32;
            match c {
                Counter::Vm => t.vm = n,
                Counter::Exp => t.exp = n,
                _ => t.lgkm = n,
            }
        }
    }
    Ok(Wait {
        vscnt: false,
        imm: encode(profile, &t),
    })
}

fn eval_trace(profile: Profile, cycles: &Value) -> Result<Value, String> {
    let cycles = cycles
        .as_array()
        .ok_or_else(|| "trace: expected an array of cycles".to_string())?;
    let mut model = WaitcntModel::new(profile);
    let mut inp = vec![0u32; P::TABLE.in_words()];
    let mut out = vec![0u32; P::TABLE.out_words()];
    model.step(&inp, &mut out); // reset cycle
    let mut results = Vec::with_capacity(cycles.len());
    for (n, c) in cycles.iter().enumerate() {
        let what = format!("trace[{n}]");
        let o = obj(c, &what, &["issue", "wait", "returns"])?;
        inp.fill(0);
        P::rst_ni.set(&mut inp, 1);
        if let Some(i) = o.get("issue") {
            let w = format!("{what}.issue");
            let io = obj(i, &w, &["wave", "class"])?;
            P::issue_valid_i.set(&mut inp, 1);
            P::issue_wave_i.set(&mut inp, field_u64(io, "wave", &w, 15)?);
            P::issue_class_i.set(&mut inp, class_code(io.get("class"), &w)?);
        }
        if let Some(i) = o.get("wait") {
            let w = format!("{what}.wait");
            let wo = obj(i, &w, WAIT_KEYS)?;
            let wave = field_u64(wo, "wave", &w, 15)?;
            let wait = eval_wait(profile, wo, &w)?;
            P::wait_valid_i.set(&mut inp, 1);
            P::wait_wave_i.set(&mut inp, wave);
            P::wait_vscnt_i.set(&mut inp, wait.vscnt as u64);
            P::wait_imm_i.set(&mut inp, wait.imm as u64);
        }
        if let Some(r) = o.get("returns") {
            let rs = r
                .as_array()
                .ok_or_else(|| format!("{what}.returns: expected an array"))?;
            if rs.len() > RET_CHANNELS {
                return Err(format!(
                    "{what}.returns: {} returns, at most {RET_CHANNELS} per cycle",
                    rs.len()
                ));
            }
            for (k, r) in rs.iter().enumerate() {
                let w = format!("{what}.returns[{k}]");
                let ro = obj(r, &w, &["wave", "class"])?;
                P::ret_valid_i.set_bit(&mut inp, k, true);
                P::ret_wave_i.set_elem(&mut inp, k, field_u64(ro, "wave", &w, 15)?);
                P::ret_class_i.set_elem(&mut inp, k, class_code(ro.get("class"), &w)?);
            }
        }
        model.step(&inp, &mut out);
        let bits = |p: gpucosim_model::ports::Port| -> Vec<usize> {
            let v = p.get(&out);
            (0..WAVES).filter(|w| v >> w & 1 != 0).collect()
        };
        let mut errors = Vec::new();
        let mut counters = Vec::new();
        for w in 0..WAVES {
            for e in ErrCode::from_mask(P::err_o.elem(&out, w) as u32) {
                errors.push(json!({"wave": w, "code": e as u32, "name": e.name()}));
            }
            let c = [
                P::vm_cnt_o.elem(&out, w),
                P::lgkm_cnt_o.elem(&out, w),
                P::exp_cnt_o.elem(&out, w),
                P::vs_cnt_o.elem(&out, w),
            ];
            if c.iter().any(|&x| x != 0) {
                let mut m = serde_json::Map::new();
                m.insert("wave".into(), json!(w));
                for (cnt, x) in COUNTERS.iter().zip(c) {
                    if cnt.width(profile) > 0 {
                        m.insert(cnt.name().into(), json!(x));
                    }
                }
                counters.push(Value::Object(m));
            }
        }
        let sat = P::issue_sat_o.get(&out);
        let sat: Vec<&str> = COUNTERS
            .iter()
            .filter(|c| sat >> (**c as usize) & 1 != 0)
            .map(|c| c.name())
            .collect();
        results.push(json!({
            "cycle": n,
            "issue_ack": P::issue_ack_o.bit(&out),
            "issue_sat": sat,
            "stall": bits(P::stall_o),
            "release": bits(P::release_o),
            "errors": errors,
            "counters": counters,
        }));
    }
    Ok(Value::Array(results))
}

pub(crate) fn eval_one(profile: Profile, req: &Value) -> Result<Value, String> {
    let o = obj(req, "request", &["decode", "trace"])?;
    match (o.get("decode"), o.get("trace")) {
        (Some(d), None) => eval_decode(profile, d),
        (None, Some(t)) => eval_trace(profile, t),
        _ => Err("request: expected exactly one of `decode` or `trace`".to_string()),
    }
}

/// What the unit does with one request or an array of requests
/// (`docs/waitcnt.md`, "eval"): a `decode` of an immediate or instruction
/// word, or a cycle-by-cycle `trace` of issues, returns and waits.
pub fn eval_json(profile: Profile, input: &Value) -> Result<Value, String> {
    super::each_request(input, |r| eval_one(profile, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    struct GenSrc<'a> {
        profile: Profile,
        knobs: &'a WaitcntKnobs,
        rng: ChaCha8Rng,
        left: usize,
    }
    impl TxnSource<WaitcntTxn> for GenSrc<'_> {
        fn next_txn(&mut self) -> Option<WaitcntTxn> {
            if self.left == 0 {
                return None;
            }
            self.left -= 1;
            Some(WaitcntTestbench::generate(
                self.profile,
                self.knobs,
                &mut self.rng,
            ))
        }
    }

    /// Runs the driver closed-loop against the model; returns the model and
    /// the number of cycles until Done (panics after `limit`).
    fn run(
        profile: Profile,
        src: &mut dyn TxnSource<WaitcntTxn>,
        limit: u64,
    ) -> (WaitcntModel, u64, u64) {
        let mut m = WaitcntModel::new(profile);
        let mut d = WaitcntTestbench::driver(profile, &WaitcntKnobs::default());
        let mut inp = vec![0u32; P::TABLE.in_words()];
        let mut out = vec![0u32; P::TABLE.out_words()];
        m.step(&inp, &mut out);
        out.fill(0);
        let mut errors = 0;
        for cyc in 0..limit {
            inp.fill(0);
            P::rst_ni.set(&mut inp, 1);
            let r = d.drive(&out.clone(), &mut inp, src);
            m.step(&inp, &mut out);
            errors += (0..WAVES).filter(|&w| P::err_o.elem(&out, w) != 0).count() as u64;
            if r == Drive::Done {
                return (m, cyc, errors);
            }
        }
        panic!("no Done after {limit} cycles: {}", m.in_flight());
    }

    #[test]
    fn directed_stimulus_drains_without_errors_and_hits_saturation() {
        for p in Profile::all() {
            let mut src = WaitcntTestbench::directed(p).into_iter();
            let (m, _, errors) = run(p, &mut src, 10_000);
            assert_eq!(
                errors, 0,
                "{p}: the closed-loop driver makes no protocol errors"
            );
            let cov = m.coverage();
            for bin in [
                "sat_lgkm",
                "lgkm_out_of_order",
                "smem_out_of_order",
                "gds_exp_out_of_order",
                "sat_exp_gds",
                "wait_stall",
                "wait_release_after_stall",
            ] {
                let i = cov.names.iter().position(|n| *n == bin).unwrap();
                assert!(
                    cov.hits[i] > 0,
                    "{p}: bin {bin} not hit by the directed stimulus"
                );
            }
        }
    }

    #[test]
    fn random_stimulus_is_clean_without_injected_errors_and_covers() {
        for p in Profile::all() {
            let knobs = WaitcntKnobs::default();
            let mut src = GenSrc {
                profile: p,
                knobs: &knobs,
                rng: ChaCha8Rng::seed_from_u64(7),
                left: 3000,
            };
            let (m, cycles, errors) = run(p, &mut src, 200_000);
            assert_eq!(errors, 0, "{p}: no protocol error unless injected");
            assert!(cycles > 1000);
            let holes: Vec<_> = m
                .coverage()
                .holes()
                .into_iter()
                .filter(|h| !h.starts_with("err_"))
                .collect();
            assert!(holes.is_empty(), "{p}: coverage holes {holes:?}");
        }
    }

    #[test]
    fn injected_errors_are_reported() {
        for p in Profile::all() {
            let knobs = WaitcntKnobs {
                err_pct: 10,
                ..WaitcntKnobs::default()
            };
            let mut src = GenSrc {
                profile: p,
                knobs: &knobs,
                rng: ChaCha8Rng::seed_from_u64(3),
                left: 2000,
            };
            let (m, _, errors) = run(p, &mut src, 200_000);
            assert!(errors > 0);
            let cov = m.coverage();
            for bin in ["err_illegal", "err_busy", "err_dual", "err_underflow"] {
                let i = cov.names.iter().position(|n| *n == bin).unwrap();
                assert!(cov.hits[i] > 0, "{p}: {bin} not hit");
            }
        }
    }

    #[test]
    fn generation_is_deterministic() {
        let k = WaitcntKnobs::default();
        let a: Vec<_> = {
            let mut r = ChaCha8Rng::seed_from_u64(11);
            (0..200)
                .map(|_| WaitcntTestbench::generate(Profile::Gfx11, &k, &mut r))
                .collect()
        };
        let mut r = ChaCha8Rng::seed_from_u64(11);
        let b: Vec<_> = (0..200)
            .map(|_| WaitcntTestbench::generate(Profile::Gfx11, &k, &mut r))
            .collect();
        assert_eq!(a, b);
        let j = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Vec<WaitcntTxn>>(&j).unwrap(), a);
    }

    #[test]
    fn simplify_makes_progress() {
        let t = WaitcntTxn::Issue {
            wave: 3,
            class: Class::Lds,
            latency: 9,
            count: 4,
        };
        let s = WaitcntTestbench::simplify(&t);
        assert!(!s.is_empty() && !s.contains(&t));
        let simplest = WaitcntTxn::Issue {
            wave: 0,
            class: Class::Lds,
            latency: 1,
            count: 1,
        };
        assert!(WaitcntTestbench::simplify(&simplest).is_empty());
    }

    #[test]
    fn decode_waitcnt_text_examples() {
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx9, "0xBF8C0070").unwrap(),
            "s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0070 vmcnt=0 expcnt=7 lgkmcnt=0"
        );
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx11, "0xBF890007").unwrap(),
            "s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0007 vmcnt=0 expcnt=7 lgkmcnt=0"
        );
        assert!(decode_waitcnt_text(Profile::Gfx11, "0xFFF7")
            .unwrap()
            .starts_with("s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)"));
        let e = decode_waitcnt_text(Profile::Gfx9, "0xBF890007").unwrap_err();
        assert!(e.contains("not an s_waitcnt"), "{e}");
        assert!(decode_waitcnt_text(Profile::Gfx9, "zz").is_err());
        assert!(decode_waitcnt_text(Profile::Gfx9, "0x1BF8C0070").is_err());
    }

    /// SPEC §3.2: gfx11 `s_waitcnt_vscnt null, imm` = `0xBC7C0000 | imm`,
    /// threshold imm[5:0]; gfx9 has no such instruction and says so in one
    /// line. Fails if the word is rejected on gfx11, accepted on gfx9, or
    /// bits [15:6] reach the threshold.
    #[test]
    fn decode_waitcnt_text_vscnt() {
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx11, "0xBC7C0005").unwrap(),
            "s_waitcnt_vscnt null, 0x5   imm=0x0005 vscnt=5"
        );
        // imm 0xFFC5: bits [15:6] ignored, threshold 0b000101.
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx11, "0xBC7CFFC5").unwrap(),
            "s_waitcnt_vscnt null, 0xffc5   imm=0xFFC5 vscnt=5"
        );
        let e = decode_waitcnt_text(Profile::Gfx9, "0xBC7C0005").unwrap_err();
        assert!(
            e.contains("s_waitcnt_vscnt") && e.contains("gfx9 has no VS_CNT"),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
    }

    /// SPEC §3.1 ordering classes, as the testbench's memory system honours
    /// them: an older instruction with latency 20 and a younger one with
    /// latency 1 of one wave; the younger overtakes iff the two are not in
    /// one in-order class. Fails if the memory system returns an in-order
    /// class out of order (e.g. gfx9 loads and stores apart, gfx11 loads and
    /// stores together) or never exercises an order the SPEC allows.
    #[test]
    fn memory_system_honours_the_spec_ordering_classes() {
        use Class::*;
        fn younger_overtakes(p: Profile, older: Class, younger: Class) -> bool {
            let mut d = WaitcntDriver::new(p);
            d.now = 1;
            d.mem_push(0, older, 20, 0);
            d.mem_push(0, younger, 1, 1);
            let mut inp = vec![0u32; P::TABLE.in_words()];
            for _ in 0..100 {
                inp.fill(0);
                d.returns(&mut inp, 0);
                if P::ret_valid_i.get(&inp) != 0 {
                    // The first return: the younger one alone, before the
                    // older one is due, or the older one at its due cycle.
                    return d.now < 20;
                }
                d.now += 1;
            }
            panic!("{p}: nothing returned");
        }
        // (older, younger, gfx9 overtakes, gfx11 overtakes)
        let cases = [
            // gfx9: loads, stores and atomics in order together; gfx11:
            // loads among loads, VS_CNT events among themselves.
            (VmemLoad, VmemStore, false, true),
            (VmemStore, VmemLoad, false, true),
            (VmemLoad, VmemLoad, false, false),
            (VmemStore, VmemStore, false, false),
            // FLAT is vector memory: its VM / VS part in order as above.
            (VmemLoad, FlatLoad, false, false),
            (FlatStore, VmemStore, false, false),
            (FlatLoad, VmemStore, false, true),
            // LDS in order among LDS; exports among exports.
            (Lds, Lds, false, false),
            (Export, Export, false, false),
            // SMEM, s_sendmsg, GDS and FLAT's LGKM part in any order
            // relative to each other and to LDS; SMEM among itself too.
            (Smem1, Smem1, true, true),
            (Smem2, Smem1, true, true),
            (Lds, Smem1, true, true),
            (Smem1, Lds, true, true),
            (Lds, Gds, true, true),
            (Sendmsg, Lds, true, true),
            (FlatLoad, Lds, true, true),
            (Lds, FlatStore, true, true),
            // GDS's EXP_CNT count in any order with exports.
            (Export, Gds, true, true),
            (Gds, Export, true, true),
        ];
        for (older, younger, g9, g11) in cases {
            assert_eq!(
                younger_overtakes(Profile::Gfx9, older, younger),
                g9,
                "gfx9 {older:?} then {younger:?}"
            );
            assert_eq!(
                younger_overtakes(Profile::Gfx11, older, younger),
                g11,
                "gfx11 {older:?} then {younger:?}"
            );
        }
    }

    /// The eval's `decode` of the SPEC §3.2 words: `s_waitcnt` fields, or
    /// gfx11 `s_waitcnt_vscnt` with only `vscnt`; gfx9 rejects the vscnt word.
    #[test]
    fn eval_decodes_vscnt_words() {
        let r = eval_json(
            Profile::Gfx11,
            &json!([{"decode": "0xBC7C0005"}, {"decode": "0xBF890007"}]),
        )
        .unwrap();
        assert_eq!(
            r[0],
            json!({"imm": 5, "vmcnt": null, "expcnt": null, "lgkmcnt": null,
                   "vscnt": 5, "text": "s_waitcnt_vscnt null, 0x5"})
        );
        assert_eq!(
            r[1],
            json!({"imm": 7, "vmcnt": 0, "expcnt": 7, "lgkmcnt": 0,
                   "vscnt": null, "text": "s_waitcnt vmcnt(0) lgkmcnt(0)"})
        );
        let r = eval_json(Profile::Gfx11, &json!({"decode": 0xBC7C_FFC0u32})).unwrap();
        assert_eq!(r["vscnt"], json!(0), "bits [15:6] are ignored");
        let e = eval_json(Profile::Gfx9, &json!({"decode": "0xBC7C0005"})).unwrap_err();
        assert!(
            e.starts_with("decode: ") && e.contains("gfx9 has no VS_CNT"),
            "{e}"
        );
    }

    fn trace(p: Profile, cycles: Value) -> Vec<Value> {
        let r = eval_json(p, &json!({ "trace": cycles })).unwrap();
        r.as_array().unwrap().clone()
    }

    /// A trace's `wait` takes the field form and 32-bit words, as `decode`
    /// does, and they wait as the immediates they stand for.
    #[test]
    fn eval_wait_forms() {
        // gfx9, wave 0 with VM 1 and LGKM 1: lgkmcnt(0) alone stalls,
        // vmcnt(1) lgkmcnt(1) does not.
        let setup = |wait: Value| {
            vec![
                json!({"issue": {"wave": 0, "class": "lds"}}),
                json!({"issue": {"wave": 0, "class": "vmem_load"}}),
                json!({ "wait": wait }),
            ]
        };
        for (wait, stalls) in [
            (json!({"wave": 0, "lgkmcnt": 0}), true),
            (json!({"wave": 0, "vmcnt": 1, "lgkmcnt": 1}), false),
            (json!({"wave": 0, "expcnt": 0}), false),
            (json!({"wave": 0, "vmcnt": 0}), true),
            // s_waitcnt lgkmcnt(0) as a word: 0xBF8C0000 | 0xC07F.
            (json!({"wave": 0, "imm": "0xBF8CC07F"}), true),
            (json!({"wave": 0, "imm": "0xBF8CCF7F"}), false),
            (json!({"wave": 0, "imm": "0xC07F"}), true),
        ] {
            let r = trace(Profile::Gfx9, Value::Array(setup(wait.clone())));
            let want = if stalls { json!([0]) } else { json!([]) };
            assert_eq!(r[2]["stall"], want, "{wait}");
        }
        // gfx11, wave 1 with VS 1 (a store) and VM 0.
        let setup =
            |wait: Value| json!([{"issue": {"wave": 1, "class": "vmem_store"}}, { "wait": wait }]);
        for (wait, stalls) in [
            (json!({"wave": 1, "vscnt": 0}), true),
            (json!({"wave": 1, "vscnt": 1}), false),
            (json!({"wave": 1, "imm": "0xBC7C0000"}), true),
            (json!({"wave": 1, "imm": "0xBC7CFFC1"}), false),
            (json!({"wave": 1, "imm": 0, "vscnt": true}), true),
            // A plain s_waitcnt never waits on VS_CNT (SPEC §3.2).
            (
                json!({"wave": 1, "vmcnt": 0, "expcnt": 0, "lgkmcnt": 0}),
                false,
            ),
            (json!({"wave": 1, "imm": "0xBF890000"}), false),
        ] {
            let r = trace(Profile::Gfx11, setup(wait.clone()));
            let want = if stalls { json!([1]) } else { json!([]) };
            assert_eq!(r[1]["stall"], want, "{wait}");
        }
        for (p, bad) in [
            (Profile::Gfx9, json!({"wave": 0, "lgkmcnt": 16})),
            (Profile::Gfx11, json!({"wave": 0, "vmcnt": 64})),
            (Profile::Gfx9, json!({"wave": 0, "vscnt": 0})),
            (Profile::Gfx9, json!({"wave": 0, "imm": "0xBC7C0000"})),
            (Profile::Gfx11, json!({"wave": 0, "vmcnt": 0, "vscnt": 0})),
            (Profile::Gfx11, json!({"wave": 0, "imm": 0, "lgkmcnt": 0})),
            (
                Profile::Gfx11,
                json!({"wave": 0, "imm": "0xBF890000", "vscnt": true}),
            ),
            (Profile::Gfx11, json!({"wave": 0, "vscnt": true})),
            (Profile::Gfx11, json!({"wave": 0})),
            (Profile::Gfx11, json!({"wave": 0, "imm": "0xBF8C0000"})),
        ] {
            let e = eval_json(p, &json!({"trace": [{ "wait": bad }]})).unwrap_err();
            assert!(e.starts_with("trace[0].wait"), "{bad}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    /// `issue_sat` names the counters that are full; `errors` lists every
    /// error raised on a wave in the cycle, not only the lowest code.
    #[test]
    fn eval_names_full_counters_and_every_error() {
        // gfx9 wave 0: 7 exports fill EXP_CNT; a GDS is held back by EXP only.
        let mut cycles: Vec<Value> = (0..7)
            .map(|_| json!({"issue": {"wave": 0, "class": "export"}}))
            .collect();
        cycles.push(json!({"issue": {"wave": 0, "class": "gds"}}));
        cycles.push(json!({"issue": {"wave": 0, "class": "lds"}}));
        let r = trace(Profile::Gfx9, Value::Array(cycles));
        assert_eq!(r[6]["issue_sat"], json!([]));
        assert_eq!(r[7]["issue_sat"], json!(["exp"]));
        assert_eq!(r[7]["issue_ack"], json!(false));
        assert_eq!(r[8]["issue_sat"], json!([]));
        // Both full: 15 LDS and 7 exports on gfx9, then a GDS.
        let mut cycles: Vec<Value> = (0..15)
            .map(|_| json!({"issue": {"wave": 3, "class": "lds"}}))
            .collect();
        cycles.extend((0..7).map(|_| json!({"issue": {"wave": 3, "class": "export"}})));
        cycles.push(json!({"issue": {"wave": 3, "class": "gds"}}));
        let r = trace(Profile::Gfx9, Value::Array(cycles));
        assert_eq!(r[22]["issue_sat"], json!(["lgkm", "exp"]));
        // Wave 2 waits on a load; in one cycle it is offered an illegal
        // class (illegal and busy) and underflows LDS: three errors.
        let r = trace(
            Profile::Gfx9,
            json!([
                {"issue": {"wave": 2, "class": "vmem_load"}},
                {"wait": {"wave": 2, "vmcnt": 0}},
                {"issue": {"wave": 2, "class": 12},
                 "returns": [{"wave": 2, "class": "lds"}, {"wave": 5, "class": 13}]}
            ]),
        );
        assert_eq!(
            r[2]["errors"],
            json!([
                {"wave": 2, "code": 1, "name": "illegal"},
                {"wave": 2, "code": 2, "name": "busy"},
                {"wave": 2, "code": 4, "name": "underflow"},
                {"wave": 5, "code": 1, "name": "illegal"}
            ])
        );
    }

    #[test]
    fn eval_trace_follows_the_worked_example() {
        let req: Value = serde_json::from_str(
            r#"{"trace": [
              {"issue": {"wave": 0, "class": "lds"}},
              {"issue": {"wave": 0, "class": "vmem_load"}},
              {"wait": {"wave": 0, "imm": "0x0070"}},
              {"returns": [{"wave": 0, "class": "lds"}]},
              {},
              {"returns": [{"wave": 0, "class": "vmem_load"}]},
              {}
            ]}"#,
        )
        .unwrap();
        let r = eval_json(Profile::Gfx9, &req).unwrap();
        let r = r.as_array().unwrap();
        assert_eq!(r.len(), 7);
        assert_eq!(r[0]["issue_ack"], json!(true));
        assert_eq!(r[2]["stall"], json!([0]));
        assert_eq!(
            r[2]["counters"],
            json!([{"wave": 0, "vm": 1, "lgkm": 1, "exp": 0}])
        );
        assert_eq!(r[5]["stall"], json!([0]));
        assert_eq!(r[6]["release"], json!([0]));
        assert_eq!(r[6]["counters"], json!([]));
    }

    #[test]
    fn eval_decode_and_errors() {
        let r = eval_json(
            Profile::Gfx9,
            &json!([{"decode": "0xBF8C0070"}, {"decode": 0xCF7F}]),
        )
        .unwrap();
        assert_eq!(r[0]["text"], json!("s_waitcnt vmcnt(0) lgkmcnt(0)"));
        assert_eq!(r[1]["lgkmcnt"], json!(15));
        for bad in [
            json!({"decode": "0xBF890000"}),
            json!({"trace": [{"issue": {"wave": 16, "class": "lds"}}]}),
            json!({"trace": [{"issue": {"wave": 0, "class": "nope"}}]}),
            json!({"trace": [{"bogus": 1}]}),
            json!({"trace": 3}),
            json!({"decode": 1, "trace": []}),
            json!(7),
        ] {
            let e = eval_json(Profile::Gfx9, &bad).unwrap_err();
            assert!(!e.contains('\n'), "one line: {e}");
        }
        let r = eval_json(
            Profile::Gfx9,
            &json!({"trace": [{"returns": [{"wave": 2, "class": "lds"}]}]}),
        )
        .unwrap();
        assert_eq!(
            r[0]["errors"],
            json!([{"wave": 2, "code": 4, "name": "underflow"}])
        );
    }

    #[test]
    fn knobs_deserialise_partially() {
        let k: WaitcntKnobs = serde_json::from_value(json!({"err_pct": 5})).unwrap();
        assert_eq!(k.err_pct, 5);
        assert_eq!(k.waves, 16);
        assert!(serde_json::from_value::<WaitcntKnobs>(json!({"nope": 1})).is_err());
    }
}
