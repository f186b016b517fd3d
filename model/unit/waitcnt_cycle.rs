use gpucosim_model::profile::Profile;
use gpucosim_model::unit::Unit;
use gpucosim_model::waitcnt::cover::Bin;
use gpucosim_model::waitcnt::cycle::*;
use gpucosim_model::waitcnt::isa::{Class, Counter, Thresholds, COUNTERS};
use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use proptest::prelude::*;

/// One cycle of stimulus.
#[derive(Debug, Clone, Default)]
struct Cyc {
    issue: Option<(usize, u32)>,
    rets: Vec<(usize, u32)>,
    wait: Option<(usize, bool, u16)>,
}

struct Out {
    ack: bool,
    /// `issue_sat_o`: bit c, counter c would overflow.
    sat: u32,
    stall: u32,
    release: u32,
    err: [u8; WAVES],
    cnt: [[u32; 4]; WAVES],
}

struct Tb {
    m: WaitcntModel,
    inp: Vec<u32>,
    out: Vec<u32>,
}

impl Tb {
    fn new(p: Profile) -> Tb {
        let mut tb = Tb {
            m: WaitcntModel::new(p),
            inp: vec![0; P::TABLE.in_words()],
            out: vec![0; P::TABLE.out_words()],
        };
        tb.m.step(&tb.inp, &mut tb.out); // one reset cycle
        tb
    }
    fn step(&mut self, c: &Cyc) -> Out {
        self.inp.fill(0);
        P::rst_ni.set(&mut self.inp, 1);
        if let Some((w, cl)) = c.issue {
            P::issue_valid_i.set(&mut self.inp, 1);
            P::issue_wave_i.set(&mut self.inp, w as u64);
            P::issue_class_i.set(&mut self.inp, cl as u64);
        }
        for (k, &(w, cl)) in c.rets.iter().enumerate() {
            P::ret_valid_i.set_bit(&mut self.inp, k, true);
            P::ret_wave_i.set_elem(&mut self.inp, k, w as u64);
            P::ret_class_i.set_elem(&mut self.inp, k, cl as u64);
        }
        if let Some((w, vs, imm)) = c.wait {
            P::wait_valid_i.set(&mut self.inp, 1);
            P::wait_wave_i.set(&mut self.inp, w as u64);
            P::wait_vscnt_i.set(&mut self.inp, vs as u64);
            P::wait_imm_i.set(&mut self.inp, imm as u64);
        }
        self.m.step(&self.inp, &mut self.out);
        let o = &self.out;
        let mut err = [0u8; WAVES];
        let mut cnt = [[0u32; 4]; WAVES];
        for w in 0..WAVES {
            err[w] = P::err_o.elem(o, w) as u8;
            cnt[w] = [
                P::vm_cnt_o.elem(o, w) as u32,
                P::lgkm_cnt_o.elem(o, w) as u32,
                P::exp_cnt_o.elem(o, w) as u32,
                P::vs_cnt_o.elem(o, w) as u32,
            ];
        }
        Out {
            ack: P::issue_ack_o.bit(o),
            sat: P::issue_sat_o.get(o) as u32,
            stall: P::stall_o.get(o) as u32,
            release: P::release_o.get(o) as u32,
            err,
            cnt,
        }
    }
}

const LGKM_BIT: u32 = 1 << Counter::Lgkm as u32;

fn issue(w: usize, c: Class) -> Cyc {
    Cyc {
        issue: Some((w, c.code())),
        ..Cyc::default()
    }
}
fn ret(w: usize, c: Class) -> Cyc {
    Cyc {
        rets: vec![(w, c.code())],
        ..Cyc::default()
    }
}
fn wait(w: usize, imm: u16) -> Cyc {
    Cyc {
        wait: Some((w, false, imm)),
        ..Cyc::default()
    }
}

#[test]
fn documented_worked_example_gfx9() {
    let mut tb = Tb::new(Profile::Gfx9);
    assert!(tb.step(&issue(0, Class::Lds)).ack);
    assert!(tb.step(&issue(0, Class::VmemLoad)).ack);
    let o = tb.step(&wait(0, 0x0070));
    assert_eq!(
        (o.stall, o.release),
        (1, 0),
        "vm 1, lgkm 1: stall on arrival"
    );
    assert_eq!(o.cnt[0], [1, 1, 0, 0]);
    let o = tb.step(&ret(0, Class::Lds));
    assert_eq!(o.stall, 1);
    let o = tb.step(&Cyc::default());
    assert_eq!((o.cnt[0], o.stall), ([1, 0, 0, 0], 1));
    let o = tb.step(&ret(0, Class::VmemLoad));
    assert_eq!(o.stall, 1, "the return is seen one cycle later");
    let o = tb.step(&Cyc::default());
    assert_eq!((o.cnt[0], o.stall, o.release), ([0, 0, 0, 0], 0, 1));
    let o = tb.step(&issue(0, Class::Export));
    assert!(o.ack, "the wave issues after its release");
    assert_eq!((o.stall, o.release, o.err[0]), (0, 0, 0));
}

#[test]
fn satisfied_wait_releases_on_arrival() {
    let mut tb = Tb::new(Profile::Gfx11);
    assert!(tb.step(&issue(3, Class::Lds)).ack);
    // lgkmcnt(1) on gfx11: lgkm field [9:4] = 1, others at maximum.
    let imm = gpucosim_model::waitcnt::encode(
        Profile::Gfx11,
        &Thresholds {
            lgkm: 1,
            ..Thresholds::none(Profile::Gfx11)
        },
    );
    let o = tb.step(&wait(3, imm));
    assert_eq!((o.stall, o.release), (0, 1 << 3));
    assert!(tb.step(&issue(3, Class::Lds)).ack, "not waiting any more");
}

#[test]
fn gfx9_lgkm_saturates_at_15_and_smem2_needs_two() {
    let mut tb = Tb::new(Profile::Gfx9);
    for _ in 0..14 {
        assert!(tb.step(&issue(1, Class::Lds)).ack);
    }
    let o = tb.step(&issue(1, Class::Smem2));
    assert!(o.sat == LGKM_BIT && !o.ack, "14 + 2 > 15");
    assert!(tb.step(&issue(1, Class::Smem1)).ack);
    let o = tb.step(&issue(1, Class::Lds));
    assert!(o.sat == LGKM_BIT && !o.ack && o.cnt[1][1] == 15);
    // A return in the same cycle does not make room.
    let o = tb.step(&Cyc {
        issue: Some((1, Class::Lds.code())),
        rets: vec![(1, Class::Lds.code())],
        wait: None,
    });
    assert!(o.sat == LGKM_BIT && !o.ack);
    let o = tb.step(&issue(1, Class::Lds));
    assert!(o.ack && o.cnt[1][1] == 14);
    assert_eq!(tb.step(&Cyc::default()).cnt[1][1], 15);
}

#[test]
fn gfx11_lgkm_saturates_at_63() {
    let mut tb = Tb::new(Profile::Gfx11);
    for _ in 0..63 {
        assert!(tb.step(&issue(0, Class::Sendmsg)).ack);
    }
    assert_eq!(tb.step(&issue(0, Class::Lds)).sat, LGKM_BIT);
    assert!(
        tb.step(&issue(0, Class::VmemLoad)).ack,
        "other counters unaffected"
    );
}

#[test]
fn stores_count_on_vs_on_gfx11_and_vscnt_waits_only_on_vs() {
    let mut tb = Tb::new(Profile::Gfx11);
    assert!(tb.step(&issue(2, Class::VmemStore)).ack);
    assert!(tb.step(&issue(2, Class::VmemLoad)).ack);
    let o = tb.step(&Cyc {
        wait: Some((2, true, 0)),
        ..Cyc::default()
    });
    assert_eq!(o.cnt[2], [1, 0, 0, 1]);
    assert_eq!(o.stall, 1 << 2);
    tb.step(&ret(2, Class::VmemStore));
    let o = tb.step(&Cyc::default());
    assert_eq!(
        o.release,
        1 << 2,
        "VM is still 1 but vscnt(0) does not wait on it"
    );
    let mut tb9 = Tb::new(Profile::Gfx9);
    assert!(tb9.step(&issue(2, Class::VmemStore)).ack);
    assert_eq!(tb9.step(&Cyc::default()).cnt[2], [1, 0, 0, 0]);
    let o = tb9.step(&Cyc {
        wait: Some((2, true, 0)),
        ..Cyc::default()
    });
    assert_eq!((o.err[2], o.stall), (ErrCode::Illegal.bit() as u8, 0));
}

#[test]
fn flat_and_gds_leave_both_counters_in_one_event() {
    let mut tb = Tb::new(Profile::Gfx9);
    tb.step(&issue(0, Class::FlatLoad));
    tb.step(&issue(0, Class::Gds));
    let o = tb.step(&ret(0, Class::FlatLoad));
    assert_eq!(o.cnt[0], [1, 2, 1, 0]);
    let o = tb.step(&ret(0, Class::Gds));
    assert_eq!(o.cnt[0], [0, 1, 1, 0]);
    assert_eq!(tb.step(&Cyc::default()).cnt[0], [0, 0, 0, 0]);
}

#[test]
fn protocol_errors() {
    let mut tb = Tb::new(Profile::Gfx9);
    // Underflow clamps at 0.
    let o = tb.step(&ret(4, Class::Lds));
    assert_eq!(o.err[4], ErrCode::Underflow.bit() as u8);
    assert_eq!(tb.step(&Cyc::default()).cnt[4], [0; 4]);
    // Two returns for one outstanding LDS instruction.
    tb.step(&issue(4, Class::Lds));
    let o = tb.step(&Cyc {
        rets: vec![(4, 4), (4, 4)],
        ..Cyc::default()
    });
    assert_eq!(o.err[4], ErrCode::Underflow.bit() as u8);
    // Illegal class on gfx9, and code 12.
    let o = tb.step(&issue(5, Class::LdsParam));
    assert!(!o.ack && o.sat == 0);
    assert_eq!(o.err[5], ErrCode::Illegal.bit() as u8);
    let o = tb.step(&Cyc {
        rets: vec![(6, 12)],
        ..Cyc::default()
    });
    assert_eq!(o.err[6], ErrCode::Illegal.bit() as u8);
    // Dual.
    let o = tb.step(&Cyc {
        issue: Some((7, 0)),
        wait: Some((7, false, 0)),
        rets: vec![],
    });
    assert!(!o.ack);
    assert_eq!(
        (o.err[7], o.stall, o.release),
        (ErrCode::Dual.bit() as u8, 0, 0)
    );
    // Busy: wave 8 waits on an outstanding load.
    tb.step(&issue(8, Class::VmemLoad));
    assert_eq!(tb.step(&wait(8, 0)).stall, 1 << 8);
    let o = tb.step(&issue(8, Class::Lds));
    assert!(!o.ack);
    assert_eq!(o.err[8], ErrCode::Busy.bit() as u8);
    // Every error raised on a wave is reported: illegal and busy.
    let o = tb.step(&issue(8, Class::from_code(11).unwrap()));
    assert_eq!(
        o.err[8],
        (ErrCode::Illegal.bit() | ErrCode::Busy.bit()) as u8
    );
}

#[test]
fn reset_clears_everything() {
    let mut tb = Tb::new(Profile::Gfx11);
    tb.step(&issue(0, Class::VmemLoad));
    tb.step(&wait(0, 0));
    tb.inp.fill(0);
    P::issue_valid_i.set(&mut tb.inp, 1);
    tb.m.step(&tb.inp, &mut tb.out);
    assert!(tb.out.iter().all(|&w| w == 0));
    let o = tb.step(&Cyc::default());
    assert_eq!((o.cnt[0], o.stall), ([0; 4], 0));
}

#[test]
fn per_class_and_per_counter_bins_run_in_code_order() {
    use gpucosim_model::cover::Bins;
    let decl = |first: Bin, k: usize| Bin::DECL[first.index() + k].name;
    for c in Class::ALL {
        let k = c.code() as usize;
        assert_eq!(decl(Bin::IssueVmemLoad, k), format!("issue_{}", c.name()));
        assert_eq!(decl(Bin::RetVmemLoad, k), format!("ret_{}", c.name()));
    }
    for c in COUNTERS {
        assert_eq!(decl(Bin::SatVm, c as usize), format!("sat_{}", c.name()));
        assert_eq!(
            decl(Bin::CntMaxVm, c as usize),
            format!("cnt_max_{}", c.name())
        );
    }
    for e in ErrCode::ALL {
        assert_eq!(
            decl(Bin::ErrIllegal, e as usize - 1),
            format!("err_{}", e.name())
        );
    }
}

#[test]
fn gfx9_lacks_the_vs_and_lds_parameter_bins() {
    let gfx11_only = ["lds_param", "lds_direct", "_vs", "vscnt"];
    let want: Vec<&str> = gpucosim_model::cover::names::<Bin>(Profile::Gfx11)
        .iter()
        .copied()
        .filter(|n| !gfx11_only.iter().any(|s| n.contains(s)))
        .collect();
    // An `s_waitcnt_vscnt` is an error only where there is no VS_CNT.
    let gfx9_only = [
        "err_illegal_vscnt",
        "err_illegal_busy_wait",
        "err_illegal_dual_wait",
    ];
    let g9: Vec<&str> = gpucosim_model::cover::names::<Bin>(Profile::Gfx9)
        .iter()
        .copied()
        .filter(|n| !gfx9_only.contains(n))
        .collect();
    assert_eq!(g9, want);
    for n in gfx9_only {
        assert!(gpucosim_model::cover::names::<Bin>(Profile::Gfx9).contains(&n));
    }
    assert_eq!(
        gpucosim_model::cover::names::<Bin>(Profile::Gfx11).len(),
        58
    );
}

/// Hits of the error bins of `names` after `cycles` on a fresh
/// scoreboard of `p`.
fn err_bins(p: Profile, cycles: &[Cyc], names: &[&str]) -> Vec<u64> {
    let mut tb = Tb::new(p);
    for c in cycles {
        tb.step(c);
    }
    let cov = tb.m.coverage();
    names
        .iter()
        .map(|n| cov.hits[cov.names.iter().position(|m| m == n).unwrap()])
        .collect()
}

/// `err_multi_one_wave` counts a cycle in which two or more protocol
/// errors arrive on one wave (of one code or of several), and
/// `err_multi_kinds_one_wave` one in which they are of two codes or
/// more; one error per wave, or errors on two waves, hit neither (but
/// the latter hits `err_multi_waves`). Fails if a bin counts single
/// errors, misses a pair, or is counted on the wrong wave.
#[test]
fn two_errors_on_one_wave_in_one_cycle_are_covered() {
    let bins = [
        "err_multi_one_wave",
        "err_multi_kinds_one_wave",
        "err_multi_waves",
    ];
    for p in Profile::all() {
        let two_illegal_returns = Cyc {
            rets: vec![(3, 12), (3, 13)],
            ..Cyc::default()
        };
        assert_eq!(err_bins(p, &[two_illegal_returns], &bins), [1, 0, 0], "{p}");
        // An illegal issue and an underflowing return of wave 2.
        let illegal_and_underflow = Cyc {
            issue: Some((2, 15)),
            rets: vec![(2, Class::Lds.code())],
            ..Cyc::default()
        };
        assert_eq!(
            err_bins(p, std::slice::from_ref(&illegal_and_underflow), &bins),
            [1, 1, 0],
            "{p}"
        );
        // `err_illegal_underflow`: an illegal return and an underflowing
        // one of one wave, or an illegal issue and an underflow; not the
        // two on two waves, nor two illegal returns.
        let iu = ["err_illegal_underflow"];
        assert_eq!(err_bins(p, &[illegal_and_underflow], &iu), [1], "{p}");
        let rets = |a: usize, b: usize| Cyc {
            rets: vec![(a, 13), (b, Class::Smem1.code())],
            ..Cyc::default()
        };
        assert_eq!(err_bins(p, &[rets(5, 5)], &iu), [1], "{p}");
        assert_eq!(err_bins(p, &[rets(5, 6)], &iu), [0], "{p}");
        let two_illegal = Cyc {
            rets: vec![(5, 13), (5, 14)],
            ..Cyc::default()
        };
        assert_eq!(err_bins(p, &[two_illegal], &iu), [0], "{p}");
        // An issue and a wait of one wave (dual: one error, not two).
        let dual = Cyc {
            issue: Some((4, Class::Lds.code())),
            wait: Some((4, false, 0)),
            ..Cyc::default()
        };
        assert_eq!(err_bins(p, &[dual], &bins), [0, 0, 0], "{p}");
        // One error on each of two waves, in one cycle.
        let two_waves = Cyc {
            issue: Some((1, 14)),
            rets: vec![(6, Class::Export.code())],
            ..Cyc::default()
        };
        assert_eq!(err_bins(p, &[two_waves], &bins), [0, 0, 1], "{p}");
        // The same two errors of one wave in two cycles: single errors.
        let apart = [issue(2, Class::Lds), ret(2, Class::Lds), ret(2, Class::Lds)];
        let mut a = apart.to_vec();
        a.push(Cyc {
            issue: Some((2, 15)),
            ..Cyc::default()
        });
        assert_eq!(err_bins(p, &a, &bins), [0, 0, 0], "{p}");
        // A clean run hits none.
        let clean = [issue(0, Class::Lds), ret(0, Class::Lds), wait(0, 0)];
        assert_eq!(err_bins(p, &clean, &bins), [0, 0, 0], "{p}");
    }
}

/// The finer error bins: where an `illegal` comes from, a `busy`
/// issue, an underflow of a counter that was not 0 (an SMEM return of
/// weight 2 on LGKM_CNT = 1), and an underflow while another counter
/// of the wave counts down (a FLAT return with VM_CNT at 0).
#[test]
fn error_sources_and_underflow_corners_are_covered() {
    let bins = [
        "err_illegal_issue",
        "err_illegal_return",
        "err_busy_issue",
        "err_underflow_nonzero",
        "err_underflow_other_counts",
    ];
    for p in Profile::all() {
        let c = [Cyc {
            issue: Some((0, 13)),
            ..Cyc::default()
        }];
        assert_eq!(err_bins(p, &c, &bins), [1, 0, 0, 0, 0], "{p}");
        assert_eq!(
            err_bins(p, &[ret(0, Class::Lds)], &bins),
            [0, 0, 0, 0, 0],
            "{p}"
        );
        let c = [Cyc {
            rets: vec![(0, 14)],
            ..Cyc::default()
        }];
        assert_eq!(err_bins(p, &c, &bins), [0, 1, 0, 0, 0], "{p}");
        let c = [issue(0, Class::Lds), wait(0, 0), issue(0, Class::Lds)];
        assert_eq!(err_bins(p, &c, &bins), [0, 0, 1, 0, 0], "{p}");
        let c = [issue(0, Class::Smem1), ret(0, Class::Smem2)];
        assert_eq!(err_bins(p, &c, &bins), [0, 0, 0, 1, 0], "{p}");
        let c = [issue(0, Class::Lds), ret(0, Class::FlatLoad)];
        assert_eq!(err_bins(p, &c, &bins), [0, 0, 0, 0, 1], "{p}");
    }
    // `s_waitcnt_vscnt` on gfx9, which has no VS_CNT; legal on gfx11.
    let vscnt = [Cyc {
        wait: Some((0, true, 0)),
        ..Cyc::default()
    }];
    assert_eq!(
        err_bins(Profile::Gfx9, &vscnt, &["err_illegal_vscnt", "err_illegal"]),
        [1, 1]
    );
    let cov = {
        let mut tb = Tb::new(Profile::Gfx11);
        tb.step(&vscnt[0]);
        tb.m.coverage().clone()
    };
    assert!(!cov.names.contains(&"err_illegal_vscnt"));
    assert_eq!(
        cov.hits[cov.names.iter().position(|m| *m == "err_illegal").unwrap()],
        0
    );
}

/// A wait offered to a waiting wave (`err_busy_wait`), and two codes
/// from one instruction: an illegal issue that is also dual
/// (`err_illegal_dual_issue`), an `s_waitcnt_vscnt` without VS_CNT
/// that is also busy (`err_illegal_busy_wait`) or dual
/// (`err_illegal_dual_wait`). Each is hit exactly when its case
/// occurs, with `err_o` showing both codes; single errors, and the same
/// errors on two waves or from two instructions, hit none.
#[test]
fn busy_waits_and_two_codes_from_one_instruction_are_covered() {
    let all = [
        "err_busy_wait",
        "err_illegal_dual_issue",
        "err_illegal_busy_wait",
        "err_illegal_dual_wait",
    ];
    let both = |a: ErrCode, b: ErrCode| (a.bit() | b.bit()) as u8;
    let illegal = |p: Profile| if p == Profile::Gfx9 { 10 } else { 12 };
    for p in Profile::all() {
        let gfx9 = p == Profile::Gfx9;
        // The last two bins exist only without VS_CNT (gfx9).
        let bins = if gfx9 { &all[..] } else { &all[..2] };
        let n = bins.len();
        // Wave 0 waits on an outstanding load, then a wait is offered
        // to it (and an ordinary wait to wave 1 in the next cycle).
        let busy = [
            issue(0, Class::VmemLoad),
            wait(0, 0),
            wait(0, 0xFFFF),
            wait(1, 0),
        ];
        let mut tb = Tb::new(p);
        let outs: Vec<Out> = busy.iter().map(|c| tb.step(c)).collect();
        assert_eq!(outs[2].err[0], ErrCode::Busy.bit() as u8, "{p}");
        assert_eq!(outs[2].stall, 1, "{p}: the busy wait is ignored");
        assert_eq!(err_bins(p, &busy, bins), [1, 0, 0, 0][..n], "{p}");
        // A wait to a wave that waits no longer is not busy.
        let released = [
            issue(0, Class::Lds),
            ret(0, Class::Lds),
            wait(0, 0),
            wait(0, 0),
        ];
        assert_eq!(err_bins(p, &released, bins), [0; 4][..n], "{p}");
        // An illegal class offered with a wait to the same wave.
        let c = Cyc {
            issue: Some((3, illegal(p))),
            wait: Some((3, false, 0)),
            ..Cyc::default()
        };
        let mut tb = Tb::new(p);
        let o = tb.step(&c);
        assert_eq!(o.err[3], both(ErrCode::Illegal, ErrCode::Dual), "{p}");
        assert_eq!((o.ack, o.stall, o.release), (false, 0, 0), "{p}");
        assert_eq!(err_bins(p, &[c], bins), [0, 1, 0, 0][..n], "{p}");
        // Illegal and dual on two waves in one cycle, or a legal dual.
        let apart = Cyc {
            issue: Some((3, illegal(p))),
            wait: Some((4, false, 0)),
            ..Cyc::default()
        };
        let legal_dual = Cyc {
            issue: Some((3, Class::Lds.code())),
            wait: Some((3, false, 0)),
            ..Cyc::default()
        };
        assert_eq!(err_bins(p, &[apart, legal_dual], bins), [0; 4][..n], "{p}");
        // An illegal class with a wait, to a waiting wave: all three
        // codes (`err_illegal_busy_dual`); busy and dual alone do not
        // hit it, nor does an illegal return beside them.
        let ibd = ["err_illegal_busy_dual"];
        let three = [
            issue(0, Class::VmemLoad),
            wait(0, 0),
            Cyc {
                issue: Some((0, illegal(p))),
                wait: Some((0, false, 0)),
                ..Cyc::default()
            },
        ];
        let mut tb = Tb::new(p);
        let o = three.iter().map(|c| tb.step(c)).last().unwrap();
        let all3 = ErrCode::Illegal.bit() | ErrCode::Busy.bit() | ErrCode::Dual.bit();
        assert_eq!(o.err[0], all3 as u8, "{p}");
        assert_eq!(err_bins(p, &three, &ibd), [1], "{p}");
        let busy_dual_ret = [
            issue(0, Class::VmemLoad),
            wait(0, 0),
            Cyc {
                issue: Some((0, Class::Lds.code())),
                wait: Some((0, false, 0)),
                rets: vec![(0, 15)],
            },
        ];
        let mut tb = Tb::new(p);
        let o = busy_dual_ret.iter().map(|c| tb.step(c)).last().unwrap();
        assert_eq!(o.err[0], all3 as u8, "{p}: the return's illegal");
        assert_eq!(err_bins(p, &busy_dual_ret, &ibd), [0], "{p}");
        // `s_waitcnt_vscnt` to a waiting wave: illegal and busy on gfx9,
        // busy on gfx11.
        let vscnt_busy = [
            issue(0, Class::VmemLoad),
            wait(0, 0),
            Cyc {
                wait: Some((0, true, 0)),
                ..Cyc::default()
            },
        ];
        let mut tb = Tb::new(p);
        let o = vscnt_busy.iter().map(|c| tb.step(c)).last().unwrap();
        let want = if gfx9 {
            both(ErrCode::Illegal, ErrCode::Busy)
        } else {
            ErrCode::Busy.bit() as u8
        };
        assert_eq!(o.err[0], want, "{p}");
        let vscnt_dual = Cyc {
            issue: Some((5, Class::Export.code())),
            wait: Some((5, true, 0)),
            ..Cyc::default()
        };
        let mut tb = Tb::new(p);
        let o = tb.step(&vscnt_dual);
        let want = if gfx9 {
            both(ErrCode::Illegal, ErrCode::Dual)
        } else {
            ErrCode::Dual.bit() as u8
        };
        assert_eq!(o.err[5], want, "{p}");
        assert!(!o.ack, "{p}");
        if gfx9 {
            assert_eq!(err_bins(p, &vscnt_busy, bins), [1, 0, 1, 0], "{p}");
            assert_eq!(err_bins(p, &[vscnt_dual], bins), [0, 0, 0, 1], "{p}");
            // An illegal wait to a wave that does not wait (while
            // another one does): neither combination.
            let alone = [
                issue(0, Class::VmemLoad),
                wait(0, 0),
                Cyc {
                    wait: Some((1, true, 0)),
                    ..Cyc::default()
                },
            ];
            assert_eq!(err_bins(p, &alone, bins), [0, 0, 0, 0], "{p}");
        } else {
            assert_eq!(
                err_bins(p, &vscnt_busy, bins),
                [1, 0],
                "{p}: busy, not illegal"
            );
            assert_eq!(err_bins(p, &[vscnt_dual], bins), [0, 0], "{p}");
            let names = gpucosim_model::cover::names::<Bin>(p);
            assert!(!names.contains(&"err_illegal_busy_wait"));
            assert!(!names.contains(&"err_illegal_dual_wait"));
        }
    }
}

#[test]
fn out_of_order_lgkm_is_covered() {
    let mut tb = Tb::new(Profile::Gfx9);
    tb.step(&issue(0, Class::Smem2));
    tb.step(&issue(0, Class::Lds));
    tb.step(&issue(0, Class::Smem1));
    tb.step(&ret(0, Class::Lds));
    tb.step(&ret(0, Class::Smem1));
    let cov = tb.m.coverage();
    let hits = |n: &str| cov.hits[cov.names.iter().position(|m| *m == n).unwrap()];
    assert_eq!(hits("lgkm_out_of_order"), 1);
    assert_eq!(hits("smem_out_of_order"), 1);
}

#[test]
fn gds_on_exp_is_covered_on_both_profiles() {
    for p in Profile::all() {
        let mut tb = Tb::new(p);
        tb.step(&issue(0, Class::Export));
        tb.step(&issue(0, Class::Gds));
        // The GDS returns before the older export.
        tb.step(&ret(0, Class::Gds));
        for _ in 0..7 {
            assert!(tb.step(&issue(1, Class::Export)).ack);
        }
        let o = tb.step(&issue(1, Class::Gds));
        assert_eq!((o.ack, o.sat), (false, 1 << Counter::Exp as u32), "{p}");
        let cov = tb.m.coverage();
        let hits = |n: &str| cov.hits[cov.names.iter().position(|m| *m == n).unwrap()];
        assert_eq!(hits("gds_exp_out_of_order"), 1, "{p}");
        assert_eq!(hits("sat_exp_gds"), 1, "{p}");
        assert_eq!(hits("lgkm_out_of_order"), 0, "{p}");
    }
}

fn cyc_strategy() -> impl Strategy<Value = Cyc> {
    (
        proptest::option::weighted(0.6, (0usize..4, 0u32..13)),
        proptest::collection::vec((0usize..4, 0u32..12), 0..3),
        proptest::option::weighted(0.1, (0usize..4, any::<bool>(), any::<u16>())),
    )
        .prop_map(|(issue, rets, wait)| Cyc { issue, rets, wait })
}

/// SPEC §3.1 written out here, independently of the model's tables: what
/// an instruction of each class code adds to [VM, LGKM, EXP, VS] (and its
/// return takes away); `None` for a code the profile does not have.
fn spec_incr(gfx11: bool, code: u32) -> Option<[i64; 4]> {
    Some(match (code, gfx11) {
        (0, _) => [1, 0, 0, 0],     // vector memory load
        (1, false) => [1, 0, 0, 0], // vector memory store: VM on gfx9,
        (1, true) => [0, 0, 0, 1],  // VS on gfx11
        (2, _) => [1, 1, 0, 0],     // FLAT load: VM and LGKM
        (3, false) => [1, 1, 0, 0], // FLAT store
        (3, true) => [0, 1, 0, 1],
        (4, _) => [0, 1, 0, 0],          // LDS
        (5, _) => [0, 1, 1, 0],          // GDS: LGKM and EXP (Decided)
        (6, _) => [0, 1, 0, 0],          // SMEM, 1 dword
        (7, _) => [0, 2, 0, 0],          // SMEM, wider: weight 2
        (8, _) => [0, 1, 0, 0],          // s_sendmsg
        (9, _) => [0, 0, 1, 0],          // export
        (10 | 11, true) => [0, 0, 1, 0], // gfx11 LDS_PARAM/LDS_DIRECT_LOAD
        _ => return None,
    })
}

/// The counters' maxima (SPEC §3.1, the widths of §3.2's fields).
fn spec_max(gfx11: bool) -> [u32; 4] {
    if gfx11 {
        [63, 63, 7, 63]
    } else {
        [63, 15, 7, 0]
    }
}

/// SPEC §3.2: the thresholds of `s_waitcnt imm` (`vs` false) or gfx11
/// `s_waitcnt_vscnt null, imm` (`vs` true); a counter a wait does not
/// name is at its maximum (no wait).
fn spec_thresholds(gfx11: bool, vs: bool, imm: u16) -> [u32; 4] {
    let b = |hi: u32, lo: u32| (u32::from(imm) >> lo) & ((1 << (hi - lo + 1)) - 1);
    let mut t = spec_max(gfx11);
    match (gfx11, vs) {
        (true, true) => t[3] = b(5, 0),
        (true, false) => {
            t[0] = b(15, 10);
            t[1] = b(9, 4);
            t[2] = b(2, 0);
        }
        (false, _) => {
            t[0] = b(3, 0) | b(15, 14) << 4;
            t[1] = b(11, 8);
            t[2] = b(6, 4);
        }
    }
    t
}

proptest! {
    /// Property: counters stay within their maxima, stall and release are
    /// disjoint, and each counter equals the acknowledged increments minus
    /// the decrements of legal returns, clamped at 0 (a conservation law
    /// computed independently of the model).
    #[test]
    // Each wave's counters, shadow and outputs are indexed together.
    #[allow(clippy::needless_range_loop)]
    fn counters_conserve_and_stay_in_range(
        gfx11 in any::<bool>(),
        cycles in proptest::collection::vec(cyc_strategy(), 1..200),
    ) {
        let p = if gfx11 { Profile::Gfx11 } else { Profile::Gfx9 };
        let mut tb = Tb::new(p);
        let mut shadow = [[0i64; 4]; WAVES];
        let max = spec_max(gfx11);
        for c in &cycles {
            let o = tb.step(c);
            prop_assert_eq!(o.stall & o.release, 0);
            for w in 0..WAVES {
                for k in 0..4 {
                    prop_assert!(o.cnt[w][k] <= max[k]);
                    prop_assert_eq!(o.cnt[w][k] as i64, shadow[w][k]);
                }
            }
            let mut dec = [[0i64; 4]; WAVES];
            for &(w, cl) in &c.rets {
                if let Some(d) = spec_incr(gfx11, cl) {
                    for k in 0..4 {
                        dec[w][k] += d[k];
                    }
                }
            }
            for w in 0..WAVES {
                let mut under = false;
                for k in 0..4 {
                    under |= dec[w][k] > shadow[w][k];
                    shadow[w][k] = (shadow[w][k] - dec[w][k]).max(0);
                }
                prop_assert_eq!(
                    o.err[w] & ErrCode::Underflow.bit() as u8 != 0,
                    under,
                    "underflow bit of wave {}", w
                );
            }
            if o.ack {
                let (w, cl) = c.issue.unwrap();
                let inc = spec_incr(gfx11, cl).expect("only legal issues are acknowledged");
                for k in 0..4 {
                    shadow[w][k] += inc[k];
                }
            }
        }
    }

    /// Property: a wave shows stall exactly while it has an accepted wait
    /// whose thresholds (SPEC §3.2, decoded here) are exceeded by its
    /// shown counters; on gfx11 `s_waitcnt_vscnt` waits on VS_CNT only.
    #[test]
    // Each wave's counters, shadow and outputs are indexed together.
    #[allow(clippy::needless_range_loop)]
    fn stall_iff_threshold_exceeded(
        gfx11 in any::<bool>(),
        cycles in proptest::collection::vec(cyc_strategy(), 1..200),
    ) {
        let p = if gfx11 { Profile::Gfx11 } else { Profile::Gfx9 };
        let mut tb = Tb::new(p);
        let mut pending: [Option<[u32; 4]>; WAVES] = [None; WAVES];
        for c in &cycles {
            let o = tb.step(c);
            if let Some((w, vs, imm)) = c.wait {
                let issue_same = c.issue.is_some_and(|(iw, _)| iw == w);
                // gfx9 has no s_waitcnt_vscnt: offered, it is illegal.
                if pending[w].is_none() && (!vs || gfx11) && !issue_same {
                    pending[w] = Some(spec_thresholds(gfx11, vs, imm));
                }
            }
            for w in 0..WAVES {
                match pending[w] {
                    None => prop_assert_eq!((o.stall >> w & 1, o.release >> w & 1), (0, 0)),
                    Some(t) => {
                        let over = (0..4).any(|k| o.cnt[w][k] > t[k]);
                        prop_assert_eq!(o.stall >> w & 1, over as u32);
                        prop_assert_eq!(o.release >> w & 1, !over as u32);
                        if !over {
                            pending[w] = None;
                        }
                    }
                }
            }
        }
    }
}
