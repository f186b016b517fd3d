//! The cycle-level scoreboard (`docs/waitcnt.md`).
// Loops index several per-wave / per-counter arrays in parallel, as the RTL
// does; iterator chains would hide that correspondence.
#![allow(clippy::needless_range_loop)]

use super::cover::Bin;
use super::isa::{
    decode, decode_vscnt, Class, Counter, Thresholds, CLASS_W, COUNTERS, NUM_COUNTERS,
};
use super::params::WaitcntParams;
use super::ports::waitcnt_ports as P;
use super::tlm::Incr;
use crate::cover::{coverage, Recorder};
use crate::ports::{Port, PortTable};
use crate::profile::Profile;
use crate::unit::{Coverage, Unit};

/// Number of waves the scoreboard tracks.
pub const WAVES: usize = 16;
/// Width of a wave number (`issue_wave_i`, `ret_wave_i`, `wait_wave_i`).
pub const WAVE_W: u32 = WAVES.ilog2();
/// Number of return channels.
pub const RET_CHANNELS: usize = 4;
/// Number of error codes (bits of an `err_o` element).
pub const NUM_ERRORS: usize = 4;
// Wave masks are `u16`s (`waiting`, `todo`).
const _: () = assert!(WAVES.is_power_of_two() && WAVES <= u16::BITS as usize);

/// Protocol error codes; `err_o[w]` has bit `code - 1` set for every error
/// raised on wave w in the cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrCode {
    /// A class (or `s_waitcnt_vscnt`) the profile does not have.
    Illegal = 1,
    /// An issue or wait for a wave whose wait is pending from an earlier cycle.
    Busy = 2,
    /// An issue and a wait for the same wave in one cycle.
    Dual = 3,
    /// Returns took a counter below zero (it clamps at 0).
    Underflow = 4,
}

impl ErrCode {
    /// The error of a non-zero `err_o` element.
    pub fn from_code(code: u32) -> Option<ErrCode> {
        match code {
            1 => Some(ErrCode::Illegal),
            2 => Some(ErrCode::Busy),
            3 => Some(ErrCode::Dual),
            4 => Some(ErrCode::Underflow),
            _ => None,
        }
    }
    /// Every error, in code order.
    pub const ALL: [ErrCode; NUM_ERRORS] = [
        ErrCode::Illegal,
        ErrCode::Busy,
        ErrCode::Dual,
        ErrCode::Underflow,
    ];
    /// The error's bit in an `err_o` element: bit `code - 1`.
    #[inline]
    pub fn bit(self) -> u32 {
        1 << (self as u32 - 1)
    }
    /// The errors of an `err_o` element, in code order.
    pub fn from_mask(mask: u32) -> impl Iterator<Item = ErrCode> {
        ErrCode::ALL
            .into_iter()
            .filter(move |e| mask & e.bit() != 0)
    }
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            ErrCode::Illegal => "illegal",
            ErrCode::Busy => "busy",
            ErrCode::Dual => "dual",
            ErrCode::Underflow => "underflow",
        }
    }
}

/// Capacity of the per-wave LGKM issue-order record (coverage only).
const ORDER_CAP: usize = 64;
/// Capacity of the per-wave EXP issue-order record (coverage only; EXP_CNT
/// holds at most 7).
const EXP_ORDER_CAP: usize = 8;

/// The s_waitcnt scoreboard of 16 waves, cycle for cycle as the RTL.
#[derive(Debug, Clone)]
pub struct WaitcntModel {
    profile: Profile,
    /// Increments per class code (all zero for codes the profile lacks).
    incr: [Incr; 1 << CLASS_W],
    /// Bit `code` set: the class is legal on the profile.
    legal: u16,
    /// Maximum of each counter.
    max: [u8; NUM_COUNTERS],
    /// Whether `s_waitcnt_vscnt` exists.
    has_vs: bool,
    /// Counters per wave (registered).
    cnt: [[u8; NUM_COUNTERS]; WAVES],
    /// Bit w: wave w has a wait pending from an earlier cycle.
    waiting: u16,
    /// Thresholds of the pending waits.
    thr: [[u8; NUM_COUNTERS]; WAVES],
    /// Counts the profile's bins into `coverage`.
    rec: Recorder<Bin>,
    coverage: Coverage,
    /// LGKM classes per wave in issue order (coverage of out-of-order returns).
    order: [[u8; ORDER_CAP]; WAVES],
    order_len: [u8; WAVES],
    /// EXP classes per wave in issue order (coverage of GDS returning out of
    /// order with exports and LDS parameter loads).
    exp_order: [[u8; EXP_ORDER_CAP]; WAVES],
    exp_order_len: [u8; WAVES],
    /// `cnt` packed as the words of the four counter output ports (element
    /// w at bit `w * width`), updated whenever a wave's counters change, so
    /// that a cycle's outputs are a copy rather than 64 element writes. A
    /// spare word after each port's last lets a field be rewritten through
    /// a 64-bit window at any element.
    packed: [[u32; CNT_WORDS + 1]; NUM_COUNTERS],
}

/// The counter output ports, in `Counter` order.
const CNT_PORTS: [Port; NUM_COUNTERS] = [P::vm_cnt_o, P::lgkm_cnt_o, P::exp_cnt_o, P::vs_cnt_o];
/// Words of the widest counter port.
const CNT_WORDS: usize = {
    let mut most = 0;
    let mut c = 0;
    while c < NUM_COUNTERS {
        let w = CNT_PORTS[c].words();
        if w > most {
            most = w;
        }
        c += 1;
    }
    most
};
// A counter fits the 64-bit window `repack` rewrites it through.
const _: () = {
    let mut c = 0;
    while c < NUM_COUNTERS {
        assert!(CNT_PORTS[c].elem_width <= 32);
        c += 1;
    }
};
/// Element width of `err_o`.
const ERR_W: usize = P::err_o.elem_width as usize;
const _: () = assert!(
    P::vm_cnt_o.width <= 128
        && P::lgkm_cnt_o.width <= 128
        && P::exp_cnt_o.width <= 128
        && P::vs_cnt_o.width <= 128
        && P::err_o.width <= 64
        && P::ret_wave_i.width <= 32
        && P::ret_class_i.width <= 32
        && P::ret_wave_i.elem_width == 4
        && P::ret_class_i.elem_width == 4
);

/// Writes a port of at most 128 bits from `v` (bits above its width are
/// zero in `v` by construction).
#[inline]
fn put_wide(port: &Port, out: &mut [u32], v: u128) {
    for (i, w) in port.slice_mut(out).iter_mut().enumerate() {
        *w = (v >> (32 * i)) as u32;
    }
}

fn thresholds_array(t: &Thresholds) -> [u8; NUM_COUNTERS] {
    let a = t.as_array();
    [a[0] as u8, a[1] as u8, a[2] as u8, a[3] as u8]
}

impl WaitcntModel {
    /// A scoreboard in its reset state.
    pub fn new(profile: Profile) -> Self {
        let mut incr = [[0u8; NUM_COUNTERS]; 1 << CLASS_W];
        let mut legal = 0u16;
        for c in Class::ALL {
            if c.legal(profile) {
                legal |= 1 << c.code();
                incr[c.code() as usize] = c.incr(profile);
            }
        }
        let max = COUNTERS.map(|c| c.max(profile) as u8);
        WaitcntModel {
            profile,
            incr,
            legal,
            max,
            has_vs: WaitcntParams::of(profile).has_vs(),
            cnt: [[0; NUM_COUNTERS]; WAVES],
            waiting: 0,
            thr: [max; WAVES],
            rec: Recorder::new(profile),
            coverage: coverage::<Bin>(profile),
            order: [[0; ORDER_CAP]; WAVES],
            order_len: [0; WAVES],
            exp_order: [[0; EXP_ORDER_CAP]; WAVES],
            exp_order_len: [0; WAVES],
            packed: [[0; CNT_WORDS + 1]; NUM_COUNTERS],
        }
    }

    /// Counter `c` of wave `w` as registered now.
    pub fn counter(&self, w: usize, c: Counter) -> u32 {
        self.cnt[w][c as usize] as u32
    }

    /// Bit w: wave w has a wait pending from an earlier cycle.
    pub fn waiting(&self) -> u16 {
        self.waiting
    }

    #[inline]
    fn hit(&mut self, b: Bin) {
        self.rec.hit(b, &mut self.coverage);
    }

    /// Counts the bin declared `k` places after `first`: the bin of class
    /// code or counter `k` in a run of per-class or per-counter bins.
    #[inline]
    fn hit_nth(&mut self, first: Bin, k: usize) {
        self.rec.hit_nth(first, k, &mut self.coverage);
    }

    fn reset(&mut self) {
        self.cnt = [[0; NUM_COUNTERS]; WAVES];
        self.waiting = 0;
        self.thr = [self.max; WAVES];
        self.order_len = [0; WAVES];
        self.exp_order_len = [0; WAVES];
        self.packed = [[0; CNT_WORDS + 1]; NUM_COUNTERS];
    }

    /// Refreshes wave `w`'s fields of `packed` from `cnt`.
    #[inline]
    fn repack(&mut self, w: usize) {
        for (c, port) in CNT_PORTS.iter().enumerate() {
            let ew = port.elem_width as usize;
            let sh = w * ew;
            let (i, off) = (sh / 32, sh % 32);
            let p = &mut self.packed[c];
            let x = p[i] as u64 | (p[i + 1] as u64) << 32;
            let m = ((1u64 << ew) - 1) << off;
            let x = (x & !m) | (self.cnt[w][c] as u64) << off;
            (p[i], p[i + 1]) = (x as u32, (x >> 32) as u32);
        }
    }

    fn order_push(&mut self, w: usize, code: u8) {
        let n = self.order_len[w] as usize;
        if n < ORDER_CAP {
            self.order[w][n] = code;
            self.order_len[w] += 1;
        }
    }

    fn order_pop(&mut self, w: usize, code: u8) {
        let n = self.order_len[w] as usize;
        let Some(i) = self.order[w][..n].iter().position(|&x| x == code) else {
            return;
        };
        if i > 0 {
            let head = self.order[w][0];
            let smem = |x: u8| x == Class::Smem1 as u8 || x == Class::Smem2 as u8;
            if smem(head) && smem(code) {
                self.hit(Bin::SmemOoo);
            } else {
                self.hit(Bin::LgkmOoo);
            }
        }
        self.order[w].copy_within(i + 1..n, i);
        self.order_len[w] -= 1;
    }

    fn exp_order_push(&mut self, w: usize, code: u8) {
        let n = self.exp_order_len[w] as usize;
        if n < EXP_ORDER_CAP {
            self.exp_order[w][n] = code;
            self.exp_order_len[w] += 1;
        }
    }

    /// Removes the oldest EXP instruction of class `code`; an older one of
    /// another class still outstanding, with GDS on either side, is a GDS
    /// return out of order with the other EXP events.
    fn exp_order_pop(&mut self, w: usize, code: u8) {
        let n = self.exp_order_len[w] as usize;
        let Some(i) = self.exp_order[w][..n].iter().position(|&x| x == code) else {
            return;
        };
        let gds = Class::Gds as u8;
        if i > 0 && (code == gds || self.exp_order[w][..i].contains(&gds)) {
            self.hit(Bin::GdsExpOoo);
        }
        self.exp_order[w].copy_within(i + 1..n, i);
        self.exp_order_len[w] -= 1;
    }

    fn satisfied(cnt: &[u8; NUM_COUNTERS], thr: &[u8; NUM_COUNTERS]) -> bool {
        cnt[0] <= thr[0] && cnt[1] <= thr[1] && cnt[2] <= thr[2] && cnt[3] <= thr[3]
    }
}

impl Unit for WaitcntModel {
    fn table(&self) -> &'static PortTable {
        &P::TABLE
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    fn step(&mut self, inputs: &[u32], outputs: &mut [u32]) {
        if !P::rst_ni.bit(inputs) {
            self.reset();
            outputs.fill(0);
            return;
        }
        // Errors per wave (bit `code - 1` per error raised); bit w of
        // `err_waves`: wave w has one; `n_err[w]`: how many errors wave w
        // has (coverage: several errors of one code count apart).
        let mut err = [0u8; WAVES];
        let mut err_waves = 0u16;
        let mut n_err = [0u8; WAVES];
        let mut note = |w: usize, e: ErrCode| {
            err[w] |= e.bit() as u8;
            err_waves |= 1 << w;
            n_err[w] = n_err[w].saturating_add(1);
        };

        // Inputs.
        let issue_valid = P::issue_valid_i.bit(inputs);
        let iw = P::issue_wave_i.get(inputs) as usize;
        let icode = P::issue_class_i.get(inputs) as usize;
        let wait_valid = P::wait_valid_i.bit(inputs);
        let ww = P::wait_wave_i.get(inputs) as usize;
        let vscnt = P::wait_vscnt_i.bit(inputs);
        let imm = P::wait_imm_i.get(inputs) as u16;
        let dual = issue_valid && wait_valid && iw == ww;

        // Issue.
        let mut ack = false;
        // Bit c: counter c would overflow.
        let mut sat = 0u32;
        let mut issue_illegal = false;
        if issue_valid {
            let legal = self.legal >> icode & 1 != 0;
            issue_illegal = !legal;
            let busy = self.waiting >> iw & 1 != 0;
            if !legal {
                note(iw, ErrCode::Illegal);
                self.hit(Bin::ErrIllegalIssue);
            }
            if busy {
                note(iw, ErrCode::Busy);
                self.hit(Bin::ErrBusyIssue);
            }
            if dual {
                // One error for the pair (the wait's side adds none).
                note(iw, ErrCode::Dual);
                if !legal {
                    self.hit(Bin::ErrIllegalDualIssue);
                }
            }
            if legal && !busy && !dual {
                let inc = self.incr[icode];
                for c in 0..NUM_COUNTERS {
                    if self.cnt[iw][c] + inc[c] > self.max[c] {
                        sat |= 1 << c;
                        self.hit_nth(Bin::SatVm, c);
                    }
                }
                if icode == Class::Gds as usize && sat >> (Counter::Exp as usize) & 1 != 0 {
                    self.hit(Bin::SatExpGds);
                }
                ack = sat == 0;
            }
        }

        // Wait.
        let mut accepted = false;
        let mut new_thr = self.max;
        if wait_valid {
            let legal = !vscnt || self.has_vs;
            let busy = self.waiting >> ww & 1 != 0;
            if !legal {
                note(ww, ErrCode::Illegal);
                self.hit(Bin::ErrIllegalVscnt);
            }
            if busy {
                note(ww, ErrCode::Busy);
                self.hit(Bin::ErrBusyWait);
                if !legal {
                    self.hit(Bin::ErrIllegalBusyWait);
                }
            }
            if dual && !legal {
                self.hit(Bin::ErrIllegalDualWait);
            }
            // An issue and a wait together meeting a waiting wave, one of
            // them illegal: three codes at once.
            if dual && busy && (issue_illegal || !legal) {
                self.hit(Bin::ErrIllegalBusyDual);
            }
            if legal && !busy && !dual {
                accepted = true;
                let t = if vscnt {
                    self.hit(Bin::WaitVscnt);
                    decode_vscnt(self.profile, imm).unwrap_or_else(|| decode(self.profile, imm))
                } else {
                    decode(self.profile, imm)
                };
                new_thr = thresholds_array(&t);
            }
        }

        // Returns.
        let mut dec = [[0u8; NUM_COUNTERS]; WAVES];
        let mut ret_waves = 0u16;
        let rvalid = P::ret_valid_i.get(inputs) as u32;
        if rvalid != 0 {
            // Both ports are 4 elements of 4 bits: one word each.
            let rwaves = P::ret_wave_i.get(inputs) as u32;
            let rcodes = P::ret_class_i.get(inputs) as u32;
            for k in 0..RET_CHANNELS {
                if rvalid >> k & 1 == 0 {
                    continue;
                }
                let w = (rwaves >> (4 * k) & 15) as usize;
                let code = (rcodes >> (4 * k) & 15) as usize;
                if self.legal >> code & 1 == 0 {
                    note(w, ErrCode::Illegal);
                    self.hit(Bin::ErrIllegalReturn);
                    continue;
                }
                let inc = self.incr[code];
                for c in 0..NUM_COUNTERS {
                    if inc[c] != 0 && dec[w][c] != 0 {
                        self.hit(Bin::RetMulti);
                    }
                    dec[w][c] += inc[c];
                }
                ret_waves |= 1 << w;
                self.hit_nth(Bin::RetVmemLoad, code);
                if inc[Counter::Lgkm as usize] != 0 {
                    self.order_pop(w, code as u8);
                }
                if inc[Counter::Exp as usize] != 0 {
                    self.exp_order_pop(w, code as u8);
                }
            }
        }

        // Underflow, stall and release: only waves with a return or a wait
        // (pending or arriving) have anything to decide.
        let arriving_bit = if accepted { 1u16 << ww } else { 0 };
        let mut stall = 0u32;
        let mut release = 0u32;
        let mut todo = ret_waves | self.waiting | arriving_bit;
        while todo != 0 {
            let w = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            if ret_waves >> w & 1 != 0 {
                // Whether a counter underflows, and whether another one
                // still counts down.
                let (mut under, mut counts) = (false, false);
                for c in 0..NUM_COUNTERS {
                    if dec[w][c] > self.cnt[w][c] {
                        note(w, ErrCode::Underflow);
                        under = true;
                        if self.cnt[w][c] != 0 {
                            self.hit(Bin::ErrUnderflowNonzero);
                        }
                    } else if dec[w][c] != 0 {
                        counts = true;
                    }
                }
                if under && counts {
                    self.hit(Bin::ErrUnderflowOtherCounts);
                }
            }
            let was_waiting = self.waiting >> w & 1 != 0;
            let arriving = arriving_bit >> w & 1 != 0;
            if was_waiting || arriving {
                let thr = if was_waiting { self.thr[w] } else { new_thr };
                if Self::satisfied(&self.cnt[w], &thr) {
                    release |= 1 << w;
                    self.hit(if was_waiting {
                        Bin::WaitReleaseAfterStall
                    } else {
                        Bin::WaitImmediate
                    });
                } else {
                    stall |= 1 << w;
                    if arriving {
                        self.hit(Bin::WaitStall);
                    }
                }
            }
        }

        // Outputs: the registered counters (kept packed), then the rest.
        for (c, port) in CNT_PORTS.iter().enumerate() {
            port.slice_mut(outputs)
                .copy_from_slice(&self.packed[c][..port.words()]);
        }
        let mut errs = 0u64;
        let mut e = err_waves;
        while e != 0 {
            let w = e.trailing_zeros() as usize;
            e &= e - 1;
            errs |= (err[w] as u64) << (ERR_W * w);
            for e in ErrCode::from_mask(err[w] as u32) {
                self.hit_nth(Bin::ErrIllegal, e as usize - 1);
            }
            if n_err[w] >= 2 {
                self.hit(Bin::ErrMultiOneWave);
            }
            let iu = (ErrCode::Illegal.bit() | ErrCode::Underflow.bit()) as u8;
            if err[w] & iu == iu {
                self.hit(Bin::ErrIllegalUnderflow);
            }
            if err[w].count_ones() >= 2 {
                self.hit(Bin::ErrMultiKindsOneWave);
            }
        }
        if err_waves.count_ones() >= 2 {
            self.hit(Bin::ErrMultiWaves);
        }
        put_wide(&P::err_o, outputs, errs as u128);
        P::issue_ack_o.set(outputs, ack as u64);
        P::issue_sat_o.set(outputs, sat as u64);
        P::stall_o.set(outputs, stall as u64);
        P::release_o.set(outputs, release as u64);

        // Rising edge.
        let mut r = ret_waves;
        while r != 0 {
            let w = r.trailing_zeros() as usize;
            r &= r - 1;
            for c in 0..NUM_COUNTERS {
                self.cnt[w][c] = self.cnt[w][c].saturating_sub(dec[w][c]);
            }
            self.repack(w);
        }
        if ack {
            self.hit_nth(Bin::IssueVmemLoad, icode);
            let inc = self.incr[icode];
            for c in 0..NUM_COUNTERS {
                if inc[c] != 0 {
                    if dec[iw][c] != 0 {
                        self.hit(Bin::IssueAndRet);
                    }
                    self.cnt[iw][c] += inc[c];
                    if self.cnt[iw][c] == self.max[c] {
                        self.hit_nth(Bin::CntMaxVm, c);
                    }
                }
            }
            self.repack(iw);
            if inc[Counter::Lgkm as usize] != 0 {
                self.order_push(iw, icode as u8);
            }
            if inc[Counter::Exp as usize] != 0 {
                self.exp_order_push(iw, icode as u8);
            }
        }
        if accepted {
            self.thr[ww] = new_thr;
        }
        // A pending wait that is not satisfied keeps (or starts) waiting.
        self.waiting = stall as u16;
    }

    fn in_flight(&self) -> String {
        let mut parts = Vec::new();
        for w in 0..WAVES {
            let c = &self.cnt[w];
            let waiting = self.waiting >> w & 1 != 0;
            if c.iter().any(|&x| x != 0) || waiting {
                let mut s = format!("w{w}: vm={} lgkm={} exp={}", c[0], c[1], c[2]);
                if self.has_vs {
                    s.push_str(&format!(" vs={}", c[3]));
                }
                if waiting {
                    let t = &self.thr[w];
                    s.push_str(&format!(
                        " waiting(vm<={} lgkm<={} exp<={}{})",
                        t[0],
                        t[1],
                        t[2],
                        if self.has_vs {
                            format!(" vs<={}", t[3])
                        } else {
                            String::new()
                        }
                    ));
                }
                parts.push(s);
            }
        }
        if parts.is_empty() {
            "all counters 0, no wave waiting".to_string()
        } else {
            parts.join("; ")
        }
    }

    fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    fn fork(&self) -> Box<dyn Unit> {
        Box::new(self.clone())
    }
}
