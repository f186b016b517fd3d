//! `waitcnt` rules: one test per **Decided** line of SPEC §3 that the
//! scoreboard implements, driven through the ports cycle by cycle. Every
//! expectation is worked out by hand from the SPEC text (shown in comments),
//! not computed by the model.

use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::{Class, ErrCode, WaitcntModel};
use gpucosim_model::Profile::{self, Gfx11, Gfx9};
use gpucosim_model::Unit;

/// What the unit shows in one cycle, for one wave of interest.
#[derive(Debug, PartialEq, Eq)]
struct Show {
    ack: bool,
    /// `issue_sat_o`: bit 0 VM, 1 LGKM, 2 EXP, 3 VS.
    sat: u64,
    stall: bool,
    release: bool,
    /// `err_o[w]`: bit `code - 1` per error.
    err: u64,
    /// [vm, lgkm, exp, vs] as registered.
    cnt: [u64; 4],
}

struct Harness {
    m: WaitcntModel,
    inp: Vec<u32>,
    out: Vec<u32>,
}

impl Harness {
    fn new(p: Profile) -> Harness {
        let mut b = Harness {
            m: WaitcntModel::new(p),
            inp: vec![0; P::TABLE.in_words()],
            out: vec![0; P::TABLE.out_words()],
        };
        b.m.step(&b.inp, &mut b.out); // a reset cycle
        b
    }

    /// One cycle: an optional issue, returns (wave, class code) on channels
    /// 0.., an optional wait (wave, vscnt, imm); shows wave `w`.
    fn cycle(
        &mut self,
        w: usize,
        issue: Option<(usize, Class)>,
        rets: &[(usize, u32)],
        wait: Option<(usize, bool, u16)>,
    ) -> Show {
        self.inp.fill(0);
        P::rst_ni.set(&mut self.inp, 1);
        if let Some((iw, c)) = issue {
            P::issue_valid_i.set(&mut self.inp, 1);
            P::issue_wave_i.set(&mut self.inp, iw as u64);
            P::issue_class_i.set(&mut self.inp, c.code() as u64);
        }
        for (k, &(rw, code)) in rets.iter().enumerate() {
            P::ret_valid_i.set_bit(&mut self.inp, k, true);
            P::ret_wave_i.set_elem(&mut self.inp, k, rw as u64);
            P::ret_class_i.set_elem(&mut self.inp, k, code as u64);
        }
        if let Some((ww, vs, imm)) = wait {
            P::wait_valid_i.set(&mut self.inp, 1);
            P::wait_wave_i.set(&mut self.inp, ww as u64);
            P::wait_vscnt_i.set(&mut self.inp, vs as u64);
            P::wait_imm_i.set(&mut self.inp, imm as u64);
        }
        self.m.step(&self.inp, &mut self.out);
        let o = &self.out;
        Show {
            ack: P::issue_ack_o.bit(o),
            sat: P::issue_sat_o.get(o),
            stall: P::stall_o.get(o) >> w & 1 != 0,
            release: P::release_o.get(o) >> w & 1 != 0,
            err: P::err_o.elem(o, w),
            cnt: [
                P::vm_cnt_o.elem(o, w),
                P::lgkm_cnt_o.elem(o, w),
                P::exp_cnt_o.elem(o, w),
                P::vs_cnt_o.elem(o, w),
            ],
        }
    }

    fn issue(&mut self, w: usize, c: Class) -> Show {
        self.cycle(w, Some((w, c)), &[], None)
    }
    fn ret(&mut self, w: usize, cs: &[Class]) -> Show {
        let rets: Vec<(usize, u32)> = cs.iter().map(|c| (w, c.code())).collect();
        self.cycle(w, None, &rets, None)
    }
    fn wait(&mut self, w: usize, imm: u16) -> Show {
        self.cycle(w, None, &[], Some((w, false, imm)))
    }
    fn vscnt(&mut self, w: usize, imm: u16) -> Show {
        self.cycle(w, None, &[], Some((w, true, imm)))
    }
    fn idle(&mut self, w: usize) -> Show {
        self.cycle(w, None, &[], None)
    }
}

/// s_waitcnt immediates, from the SPEC §3.2 field table.
/// gfx9: vm [3:0]+[15:14], exp [6:4], lgkm [11:8]; no-wait 0xCF7F.
const G9_EXP0: u16 = 0xCF0F; // exp [6:4] = 0
const G9_LGKM1: u16 = 0xC17F; // lgkm [11:8] = 1
const G9_LGKM0: u16 = 0xC07F; // lgkm [11:8] = 0
/// gfx11: vm [15:10], exp [2:0], lgkm [9:4]; no-wait 0xFFF7.
const G11_EXP0: u16 = 0xFFF0; // exp [2:0] = 0
const G11_VM0: u16 = 0x03F7; // vm [15:10] = 0
const G11_ALL0: u16 = 0x0000; // vm 0, lgkm 0, exp 0

const UNDERFLOW: u64 = 1 << (ErrCode::Underflow as u32 - 1);

/// SPEC §3.1 (**Decided**, behaviour change): a GDS instruction counts +1 on
/// LGKM_CNT and +1 on EXP_CNT on both profiles, and its return takes both
/// away. Fails if either profile counts GDS on LGKM only (gfx11 did before
/// this decision), or if `expcnt(0)` does not wait for a GDS.
#[test]
fn spec_3_1_gds_counts_on_exp_on_both_profiles() {
    for (p, exp0) in [(Gfx9, G9_EXP0), (Gfx11, G11_EXP0)] {
        let mut b = Harness::new(p);
        assert!(b.issue(2, Class::Gds).ack);
        // The counters show the GDS from the next cycle: LGKM 1, EXP 1.
        let s = b.wait(2, exp0);
        assert_eq!(s.cnt, [0, 1, 1, 0], "{p}");
        assert!(s.stall && !s.release, "{p}: expcnt(0) waits for the GDS");
        b.ret(2, &[Class::Gds]);
        let s = b.idle(2);
        assert_eq!(s.cnt, [0, 0, 0, 0], "{p}: one return clears both");
        assert!(s.release, "{p}");
        assert_eq!(s.err, 0, "{p}");
        // Seven exports fill EXP_CNT (3 bits, max 7): a GDS is then held
        // back by EXP (bit 2) although LGKM has room.
        for _ in 0..7 {
            assert!(b.issue(3, Class::Export).ack);
        }
        let s = b.issue(3, Class::Gds);
        assert_eq!((s.ack, s.sat), (false, 1 << 2), "{p}");
    }
}

/// SPEC §3.1 (**Decided**): FLAT on gfx11 — loads (and atomics with return)
/// count on VM_CNT and LGKM_CNT, stores and atomics without return on VS_CNT
/// and LGKM_CNT; on gfx9 both on VM_CNT and LGKM_CNT. Fails if a gfx11 FLAT
/// store counts on VM, or if `s_waitcnt_vscnt null, 0` does not wait for it.
#[test]
fn spec_3_1_flat_on_gfx11_counts_stores_on_vs_and_loads_on_vm() {
    let mut b = Harness::new(Gfx11);
    assert!(b.issue(0, Class::FlatStore).ack);
    assert_eq!(b.idle(0).cnt, [0, 1, 0, 1], "store: VS 1, LGKM 1");
    assert!(b.issue(0, Class::FlatLoad).ack);
    assert_eq!(b.idle(0).cnt, [1, 2, 0, 1], "load: VM 1, LGKM 1 more");
    // vmcnt(0) waits for the load only; s_waitcnt_vscnt null, 0 for the store.
    let s = b.vscnt(0, 0);
    assert!(s.stall);
    b.ret(0, &[Class::FlatStore]);
    let s = b.idle(0);
    assert_eq!(s.cnt, [1, 1, 0, 0]);
    assert!(s.release, "VS 0: released although VM and LGKM are 1");
    let s = b.wait(0, G11_VM0);
    assert!(s.stall, "vmcnt(0) waits for the FLAT load");

    let mut b = Harness::new(Gfx9);
    b.issue(0, Class::FlatStore);
    assert_eq!(
        b.idle(0).cnt,
        [1, 1, 0, 0],
        "gfx9: a FLAT store on VM and LGKM"
    );
}

/// SPEC §3.1 (**Decided**): when one cycle's decrements on a counter exceed
/// its value (an SMEM return weighs 1 or 2, several returns may arrive
/// together) that is an underflow error; the counter clamps to 0 and the
/// other counters of the same returns still count. Fails if the counter
/// wraps, if no error is raised, if the error is raised when the decrements
/// only reach 0, or if the other counter is left alone.
#[test]
fn spec_3_1_underflow_clamps_and_the_other_counters_count() {
    for p in [Gfx9, Gfx11] {
        let mut b = Harness::new(p);
        // An SMEM2 return (weight 2) at LGKM 1: 1 - 2 < 0.
        b.issue(0, Class::Smem1);
        let s = b.ret(0, &[Class::Smem2]);
        assert_eq!((s.cnt[1], s.err), (1, UNDERFLOW), "{p}");
        assert_eq!(b.idle(0).cnt, [0; 4], "{p}: clamped to 0, no wrap");
        // Two LDS returns in one cycle at LGKM 1.
        b.issue(0, Class::Lds);
        assert_eq!(b.ret(0, &[Class::Lds, Class::Lds]).err, UNDERFLOW, "{p}");
        assert_eq!(b.idle(0).cnt, [0; 4], "{p}");
        // Exactly down to 0 (two returns at 2) is no error.
        b.issue(0, Class::Lds);
        b.issue(0, Class::Lds);
        assert_eq!(b.ret(0, &[Class::Lds, Class::Lds]).err, 0, "{p}");
        assert_eq!(b.idle(0).cnt, [0; 4], "{p}");
        // A FLAT load return (VM 1 and LGKM 1) with VM 0 and LGKM 2: VM
        // underflows and clamps at 0, LGKM still goes 2 -> 1.
        b.issue(0, Class::Lds);
        b.issue(0, Class::Lds);
        let s = b.ret(0, &[Class::FlatLoad]);
        assert_eq!((s.cnt, s.err), ([0, 2, 0, 0], UNDERFLOW), "{p}");
        assert_eq!(b.idle(0).cnt, [0, 1, 0, 0], "{p}");
    }
}

/// SPEC §3.2 (**Decided**): a plain `s_waitcnt` never waits on VS_CNT; gfx11
/// `s_waitcnt_vscnt null, imm` waits until VS_CNT <= imm[5:0], bits [15:6]
/// ignored. Fails if `s_waitcnt 0` stalls on an outstanding store, or if the
/// high immediate bits raise the VS threshold.
#[test]
fn spec_3_2_plain_waitcnt_never_waits_on_vs() {
    let mut b = Harness::new(Gfx11);
    b.issue(1, Class::VmemStore);
    b.idle(1);
    // s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0) with VS 1: released on arrival.
    let s = b.wait(1, G11_ALL0);
    assert_eq!(s.cnt, [0, 0, 0, 1]);
    assert!(s.release && !s.stall);
    // s_waitcnt_vscnt null, 0xFFC0: imm[5:0] = 0, so VS 1 stalls.
    let s = b.vscnt(1, 0xFFC0);
    assert!(s.stall && !s.release);
    b.ret(1, &[Class::VmemStore]);
    assert!(b.idle(1).release);
    // s_waitcnt_vscnt null, 0x0041: imm[5:0] = 1, VS 1 does not stall.
    b.issue(1, Class::VmemStore);
    let s = b.vscnt(1, 0x0041);
    assert_eq!(s.cnt[3], 1);
    assert!(s.release);
}

/// SPEC §3.1 ordering classes (**Decided**): SMEM may return in any order
/// relative to LDS, so once an SMEM is pending only `lgkmcnt(0)` is
/// provably safe. The counters only count: after an LDS then an SMEM, the
/// SMEM's return satisfies `lgkmcnt(1)` while the older LDS is still
/// outstanding, and `lgkmcnt(0)` waits for both. Fails if the scoreboard
/// assumed LGKM returns in issue order (holding `lgkmcnt(1)` until the LDS
/// returned) or released `lgkmcnt(0)` early.
#[test]
fn spec_3_1_after_smem_only_lgkmcnt_0_proves_an_lds_returned() {
    let mut b = Harness::new(Gfx9);
    b.issue(4, Class::Lds);
    b.issue(4, Class::Smem1);
    b.ret(4, &[Class::Smem1]);
    // LGKM 1 (the LDS): lgkmcnt(1) is satisfied, although the LDS has not
    // returned — it is no proof.
    let s = b.wait(4, G9_LGKM1);
    assert_eq!(s.cnt, [0, 1, 0, 0]);
    assert!(s.release);
    let s = b.wait(4, G9_LGKM0);
    assert!(s.stall, "lgkmcnt(0) waits for the LDS");
    b.ret(4, &[Class::Lds]);
    assert!(b.idle(4).release);
}

/// The eval reports every error of a wave in a cycle: `err_o` carries one
/// bit per error code. An illegal class offered to a waiting wave raises
/// `illegal` (code 1) and `busy` (code 2) together. Fails if only the
/// lowest code is shown.
#[test]
fn every_error_of_a_wave_in_a_cycle_is_reported() {
    let mut b = Harness::new(Gfx9);
    b.issue(5, Class::VmemLoad);
    assert!(b.wait(5, 0).stall);
    // Code 11 (lds_direct) does not exist on gfx9.
    let s = b.cycle(
        5,
        Some((5, Class::LdsDirect)),
        &[(5, Class::Lds.code())],
        None,
    );
    assert_eq!(s.err, 0b1011, "illegal, busy and underflow");
    assert!(!s.ack && s.sat == 0);
}
