//! The `waitcnt` driver: a 16-wave sequencer (issues and waits, held while
//! the unit stalls them) and a memory system returning what was issued in
//! the SPEC's ordering classes.

use super::txn::WaitcntTxn;
use crate::testbench::{Drive, Driver, Index, TxnSource};
use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::{Class, WaitcntParams, RET_CHANNELS, WAVES};
use gpucosim_model::Profile;
use std::collections::VecDeque;

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
    /// `busy`: the pair is to meet a waiting wave, after an `s_waitcnt 0`;
    /// `waited`: that wait has been offered.
    BadDual {
        code: u8,
        imm: u16,
        vscnt: bool,
        busy: bool,
        waited: bool,
        idx: usize,
    },
    /// `waited`: the `s_waitcnt 0` before the wait has been offered.
    BadWait {
        imm: u16,
        vscnt: bool,
        waited: bool,
        idx: usize,
    },
}

/// What happened to a transaction, in the record a driver keeps on
/// request ([`WaitcntDriver::record`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnEvent {
    /// The unit acknowledged the issue (`issue_ack_o`) in this cycle.
    Accepted,
    /// The memory system returned the instruction (`ret_valid_i`) in this
    /// cycle.
    Returned,
    /// The unit released the wave from the wait (`release_o`) in this
    /// cycle.
    Released,
}

/// A driver's record: (transaction, event, cycle) in order, and per wave
/// the wait offered and not yet released.
struct Record {
    events: Vec<(usize, TxnEvent, u64)>,
    waits: [Option<usize>; WAVES],
}

/// The sequencer and memory system of one run.
pub struct WaitcntDriver {
    profile: Profile,
    slots: [Slot; WAVES],
    /// Bit w: `slots[w]` is not `Slot::Empty`.
    occupied: u16,
    /// Bit w: `slots[w]` is a `Slot::Issue` (offered only while the wave
    /// does not wait, and never as a wait).
    issues: u16,
    /// Bit w: `slots[w]` is a `Slot::Wait` (never offered as an issue).
    waits: u16,
    /// Bit w: `slots[w]` is a `Slot::BadWait` whose `s_waitcnt 0` has been
    /// offered: its wait is offered whether or not the wave waits.
    after_wait: u16,
    lookahead: Option<(WaitcntTxn, usize)>,
    exhausted: bool,
    consumed: usize,
    idle_left: u32,
    bad: VecDeque<(u8, u8, usize)>,
    mem: Vec<VecDeque<InFlight>>,
    in_mem: usize,
    /// Bit q: `mem[q]` is not empty.
    busy_q: u128,
    /// Per queue, the earliest cycle at which an entry of it can return:
    /// the head's due cycle in an ordered domain, the least due cycle of
    /// its entries in SMEM; `u64::MAX` when empty. `returns` scans these
    /// (1 KB, in cache) instead of each queue's entries.
    head_due: [u64; WAVES * DOMAINS],
    /// No return can be due before this cycle (see `returns`).
    next_scan: u64,
    /// Domain per class code.
    dom: [u8; 16],
    /// Bit c: class code c is legal on the profile.
    legal: u16,
    /// Whether the profile has VS_CNT (and `s_waitcnt_vscnt`).
    has_vs: bool,
    /// Issue offered last cycle: (wave, slot index).
    offered_issue: Option<usize>,
    rr_issue: usize,
    rr_wait: usize,
    #[doc(hidden)]
    pub now: u64,
    /// When recording, what happened to each transaction.
    log: Option<Record>,
    /// Per wave: the wait offered and not yet released, for reports.
    open_wait: [Option<usize>; WAVES],
    /// Offer inputs in the reset cycles (see [`WaitcntDriver::reset_inputs`]).
    reset_inputs: bool,
}

impl WaitcntDriver {
    /// A driver for `profile` with no wave started.
    pub fn new(profile: Profile) -> Self {
        WaitcntDriver {
            profile,
            slots: [Slot::Empty; WAVES],
            occupied: 0,
            issues: 0,
            waits: 0,
            after_wait: 0,
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
            head_due: [u64::MAX; WAVES * DOMAINS],
            next_scan: 0,
            dom: std::array::from_fn(|c| {
                Class::from_code(c as u32).map_or(0, |class| domain(profile, class) as u8)
            }),
            legal: Class::ALL
                .iter()
                .filter(|c| c.legal(profile))
                .fold(0, |m, c| m | 1 << c.code()),
            has_vs: WaitcntParams::of(profile).has_vs(),
            offered_issue: None,
            rr_issue: 0,
            rr_wait: 0,
            now: 0,
            log: None,
            open_wait: [None; WAVES],
            reset_inputs: false,
        }
    }

    /// Offers issues, waits and returns while `rst_ni` is low (they must
    /// have no effect: every output but the counters is 0 in reset).
    pub fn reset_inputs(mut self, on: bool) -> Self {
        self.reset_inputs = on;
        self
    }

    /// Keeps a record of when each issue is accepted and returned and each
    /// wait released ([`events`](Self::events)), for checking a kernel's
    /// registers against what the run did.
    pub fn record(&mut self) {
        self.log = Some(Record {
            events: Vec::new(),
            waits: [None; WAVES],
        });
    }

    /// The record: (transaction index, event, cycle), in order.
    pub fn events(&self) -> &[(usize, TxnEvent, u64)] {
        self.log.as_ref().map_or(&[], |l| &l.events)
    }

    /// Offers wave `w`'s wait `(imm, vscnt, idx)` this cycle and frees its
    /// slot; `opens`: the unit takes it, so it stays open until released.
    fn offer_wait(&mut self, inputs: &mut [u32], w: usize, wait: (u16, bool, usize), opens: bool) {
        let (imm, vscnt, idx) = wait;
        if opens {
            self.open_wait[w] = Some(idx);
            if let Some(l) = &mut self.log {
                l.waits[w] = Some(idx);
            }
        }
        P::wait_valid_i.set(inputs, 1);
        P::wait_wave_i.set(inputs, w as u64);
        P::wait_vscnt_i.set(inputs, vscnt as u64);
        P::wait_imm_i.set(inputs, imm as u64);
        self.set_slot(w, Slot::Empty);
        self.rr_wait = (w + 1) % WAVES;
    }

    /// Sets wave `w`'s slot, keeping the masks of slot kinds in step.
    #[inline]
    fn set_slot(&mut self, w: usize, slot: Slot) {
        self.slots[w] = slot;
        let bit = 1u16 << w;
        let set = |mask: &mut u16, on: bool| {
            *mask = *mask & !bit | if on { bit } else { 0 };
        };
        set(&mut self.occupied, slot != Slot::Empty);
        set(&mut self.issues, matches!(slot, Slot::Issue { .. }));
        set(&mut self.waits, matches!(slot, Slot::Wait { .. }));
        set(
            &mut self.after_wait,
            matches!(slot, Slot::BadWait { waited: true, .. }),
        );
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
            WaitcntTxn::BadReturn { wave, code, also } => {
                if self.bad.len() + 2 > BAD_CAP {
                    return Err((txn, idx));
                }
                // Queued together, so both go out in one cycle.
                self.bad.push_back((wave % WAVES as u8, code & 15, idx));
                if let Some(c) = also {
                    self.bad.push_back((wave % WAVES as u8, c & 15, idx));
                }
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
            WaitcntTxn::BadDual {
                wave,
                code,
                imm,
                vscnt,
                busy,
            } => {
                let w = wave as usize % WAVES;
                if self.slots[w] != Slot::Empty {
                    return Err((txn, idx));
                }
                self.set_slot(
                    w,
                    Slot::BadDual {
                        code: code & 15,
                        imm,
                        vscnt,
                        busy,
                        waited: false,
                        idx,
                    },
                );
            }
            WaitcntTxn::BadWait { wave, imm, vscnt } => {
                let w = wave as usize % WAVES;
                if self.slots[w] != Slot::Empty {
                    return Err((txn, idx));
                }
                self.set_slot(
                    w,
                    Slot::BadWait {
                        imm,
                        vscnt,
                        waited: false,
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

    #[doc(hidden)]
    pub fn mem_push(&mut self, w: usize, class: Class, latency: u16, idx: usize) {
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
        // An ordered domain's head stays; SMEM's earliest may move.
        if qi % DOMAINS == DOM_SMEM || self.mem[qi].len() == 1 {
            self.head_due[qi] = self.head_due[qi].min(due);
        }
        self.next_scan = self.next_scan.min(due);
    }

    /// Recomputes `head_due[q]` after an entry of queue `q` left.
    fn update_head(&mut self, q: usize) {
        let dq = &self.mem[q];
        self.head_due[q] = if q % DOMAINS == DOM_SMEM {
            dq.iter().map(|e| e.due).min().unwrap_or(u64::MAX)
        } else {
            dq.front().map_or(u64::MAX, |e| e.due)
        };
    }

    /// Returns up to the free channels' worth of due instructions, oldest due
    /// first (lower wave and domain first on ties), at most one per wave and
    /// domain: the head of an ordered domain, any due entry of SMEM. Writes
    /// them to channels `k..`.
    #[doc(hidden)]
    pub fn returns(&mut self, inputs: &mut [u32], k: usize) {
        // Nothing can be due before `next_scan`: it is the earliest due
        // cycle among the entries that could return (the heads of ordered
        // domains, every SMEM entry) when the last scan found none due, and
        // pushes lower it.
        if self.in_mem == 0 || k >= RET_CHANNELS || self.now < self.next_scan {
            return;
        }
        let slots = RET_CHANNELS - k;
        // (due, queue), sorted by due; stable on ties.
        let mut picks = [(0u64, 0usize); RET_CHANNELS];
        let mut n = 0;
        let mut future = u64::MAX;
        // The busy queues with an entry due, and the earliest due cycle of
        // the others, without a branch on either (which is taken is random);
        // then the due ones, by due cycle.
        let mut ready = [0u64; 2];
        let mut busy = self.busy_q;
        while busy != 0 {
            let q = busy.trailing_zeros() as usize;
            busy &= busy - 1;
            let due = self.head_due[q];
            let is_due = due <= self.now;
            ready[q / 64] |= (is_due as u64) << (q % 64);
            future = future.min(if is_due { u64::MAX } else { due });
        }
        for (half, mut bits) in ready.into_iter().enumerate() {
            while bits != 0 {
                let q = 64 * half + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let due = self.head_due[q];
                if n == slots && due >= picks[n - 1].0 {
                    continue;
                }
                let mut at = n.min(slots - 1);
                while at > 0 && picks[at - 1].0 > due {
                    picks[at] = picks[at - 1];
                    at -= 1;
                }
                picks[at] = (due, q);
                n = (n + 1).min(slots);
            }
        }
        for (c, &(due, q)) in picks[..n].iter().enumerate() {
            // The entry that returns: an ordered domain's head; in SMEM the
            // first of the entries due earliest.
            let pos = if q % DOMAINS == DOM_SMEM {
                self.mem[q].iter().position(|e| e.due == due).unwrap_or(0)
            } else {
                0
            };
            let Some(e) = self.mem[q].remove(pos) else {
                continue;
            };
            self.update_head(q);
            if self.mem[q].is_empty() {
                self.busy_q &= !(1 << q);
            }
            self.in_mem -= 1;
            if let Some(l) = &mut self.log {
                l.events.push((e.idx, TxnEvent::Returned, self.now));
            }
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
                    if let Some(l) = &mut self.log {
                        l.events
                            .push((idx, TxnEvent::Accepted, self.now.saturating_sub(1)));
                    }
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
        let released = P::release_o.get(prev_out) as u32;
        if released != 0 {
            for (w, open) in self.open_wait.iter_mut().enumerate() {
                if released >> w & 1 != 0 {
                    *open = None;
                }
            }
        }
        if let Some(l) = &mut self.log {
            for (w, pending) in l.waits.iter_mut().enumerate() {
                if let (Some(idx), true) = (*pending, released >> w & 1 != 0) {
                    l.events
                        .push((idx, TxnEvent::Released, self.now.saturating_sub(1)));
                    *pending = None;
                }
            }
        }

        self.fill(src);

        // Offers of the sequencer.
        let mut issue_wave = usize::MAX;
        if self.idle_left > 0 {
            self.idle_left -= 1;
        } else {
            // Slots that can offer an issue, in round-robin order from
            // `rr_issue`: an issue of a wave that does not wait, an injected
            // one (never a wait, nor an issue of a waiting wave).
            let injected = self.occupied & !(self.issues | self.waits);
            let can = self.issues & !(waiting as u16) | injected;
            let mut cand = can.rotate_right(self.rr_issue as u32);
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
                            .is_none_or(|c| !c.legal(self.profile))
                        || self.now >= since + 64 =>
                    {
                        code as u32
                    }
                    // Offered only while the wave does not wait, so that the
                    // wait is not itself refused as `busy`; or, to meet a
                    // waiting wave, after an `s_waitcnt 0` whatever the
                    // wave's state (`busy` on both sides if it waits).
                    Slot::BadDual {
                        code,
                        imm,
                        vscnt,
                        busy,
                        waited,
                        ..
                    } if (!busy && !wave_waits) || (busy && waited) => {
                        P::wait_valid_i.set(inputs, 1);
                        P::wait_wave_i.set(inputs, w as u64);
                        P::wait_vscnt_i.set(inputs, vscnt as u64);
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
            // Occupied slots of waves that neither wait nor offer an issue
            // (or whose injected wait is offered whether or not the wave
            // waits), in round-robin order from `rr_wait`.
            // (An issue slot never offers a wait.)
            let mut eligible =
                (self.occupied & !self.issues & !(waiting as u16)) | self.after_wait;
            if issue_wave < WAVES {
                eligible &= !(1 << issue_wave);
            }
            let mut cand = eligible.rotate_right(self.rr_wait as u32);
            while cand != 0 {
                let i = cand.trailing_zeros() as usize;
                cand &= cand - 1;
                let w = (self.rr_wait + i) % WAVES;
                match self.slots[w] {
                    Slot::Wait { imm, vscnt, idx } => {
                        // An `s_waitcnt_vscnt` without VS_CNT is refused
                        // (`illegal`): no wait is left open.
                        let opens = !vscnt || self.has_vs;
                        self.offer_wait(inputs, w, (imm, vscnt, idx), opens);
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
                    // Likewise before an injected wait or issue-and-wait pair.
                    Slot::BadWait { waited: false, .. }
                    | Slot::BadDual {
                        busy: true,
                        waited: false,
                        ..
                    } => {
                        P::wait_valid_i.set(inputs, 1);
                        P::wait_wave_i.set(inputs, w as u64);
                        let slot = match self.slots[w] {
                            Slot::BadWait {
                                imm, vscnt, idx, ..
                            } => Slot::BadWait {
                                imm,
                                vscnt,
                                waited: true,
                                idx,
                            },
                            Slot::BadDual {
                                code,
                                imm,
                                vscnt,
                                busy,
                                idx,
                                ..
                            } => Slot::BadDual {
                                code,
                                imm,
                                vscnt,
                                busy,
                                waited: true,
                                idx,
                            },
                            other => other,
                        };
                        self.set_slot(w, slot);
                        self.rr_wait = (w + 1) % WAVES;
                        break;
                    }
                    // The injected wait, in the cycle after its `s_waitcnt 0`
                    // (or later): `busy` if the wave waits, else an ordinary
                    // wait (refused as `illegal` if it is an `s_waitcnt_vscnt`
                    // without VS_CNT).
                    Slot::BadWait {
                        imm,
                        vscnt,
                        waited: true,
                        idx,
                    } => {
                        let opens = waiting >> w & 1 == 0 && (!vscnt || self.has_vs);
                        self.offer_wait(inputs, w, (imm, vscnt, idx), opens);
                        break;
                    }
                    _ => {}
                }
            }
        }

        // The memory system: one injected return (two when the next one is
        // for the same wave, as a `bad_return`'s `also` is), then due
        // returns.
        let mut k = 0;
        while let Some(&(w, code, _)) = self.bad.front() {
            if k == 2 || (k == 1 && P::ret_wave_i.elem(inputs, 0) != w as u64) {
                break;
            }
            self.bad.pop_front();
            P::ret_valid_i.set_bit(inputs, k, true);
            P::ret_wave_i.set_elem(inputs, k, w as u64);
            P::ret_class_i.set_elem(inputs, k, code as u64);
            k += 1;
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

    /// With [`WaitcntDriver::reset_inputs`]: an issue of each kind, waits
    /// and returns while `rst_ni` is low, which the unit must ignore (every
    /// output but the counters 0). Cycle 0: an illegal issue and an
    /// `s_waitcnt_vscnt` of one wave (`dual`, and `illegal` where there is
    /// no VS_CNT), an illegal return and an underflowing one. Cycle 1 (the
    /// state reset by then): an issue that would be acknowledged, a wait
    /// that would release at once, an illegal and an underflowing return.
    fn drive_in_reset(&mut self, cycle: u64, inputs: &mut [u32]) {
        if !self.reset_inputs {
            return;
        }
        let (issue_wave, issue_code, wait_wave, vscnt) = if cycle == 0 {
            (2, 15, 2, true)
        } else {
            (0, Class::Lds.code() as u64, 1, false)
        };
        P::issue_valid_i.set(inputs, 1);
        P::issue_wave_i.set(inputs, issue_wave);
        P::issue_class_i.set(inputs, issue_code);
        P::wait_valid_i.set(inputs, 1);
        P::wait_wave_i.set(inputs, wait_wave);
        P::wait_vscnt_i.set(inputs, vscnt as u64);
        for (k, (w, code)) in [(3, 14), (4, Class::Smem2.code() as u64)]
            .into_iter()
            .enumerate()
        {
            P::ret_valid_i.set_bit(inputs, k, true);
            P::ret_wave_i.set_elem(inputs, k, w);
            P::ret_class_i.set_elem(inputs, k, code);
        }
    }

    fn in_flight(&self) -> Option<usize> {
        let slots = self.slots.iter().filter_map(|s| match *s {
            Slot::Empty => None,
            Slot::Issue { idx, .. }
            | Slot::Wait { idx, .. }
            | Slot::BadIssue { idx, .. }
            | Slot::BadDual { idx, .. }
            | Slot::BadWait { idx, .. } => Some(idx),
        });
        let mem = self.mem.iter().flat_map(|q| q.iter().map(|e| e.idx));
        let bad = self.bad.iter().map(|b| b.2);
        slots
            .chain(mem)
            .chain(bad)
            .chain(self.lookahead.as_ref().map(|l| l.1))
            .min()
    }

    /// For a wave: the s_waitcnt it waits on, else the instruction it is
    /// issuing, else its oldest memory operation in flight, else its
    /// oldest injected return.
    fn in_flight_at(&self, focus: Option<(Index, usize)>) -> Option<usize> {
        let Some((Index::Wave, w)) = focus.filter(|f| f.1 < WAVES) else {
            return self.in_flight();
        };
        let slot = match self.slots[w] {
            Slot::Empty => None,
            Slot::Issue { idx, .. }
            | Slot::Wait { idx, .. }
            | Slot::BadIssue { idx, .. }
            | Slot::BadDual { idx, .. }
            | Slot::BadWait { idx, .. } => Some(idx),
        };
        let mem = self.mem[w * DOMAINS..(w + 1) * DOMAINS]
            .iter()
            .flat_map(|q| q.iter().map(|e| e.idx))
            .min();
        let bad = self
            .bad
            .iter()
            .filter(|b| b.0 as usize == w)
            .map(|b| b.2)
            .min();
        self.open_wait[w]
            .or(slot)
            .or(mem)
            .or(bad)
            .or_else(|| self.in_flight())
    }
}
