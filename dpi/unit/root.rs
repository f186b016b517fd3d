use gpucosim_dpi::*;
use gpucosim_tb::units;

/// `eval` (any number of times, with inputs that change) then `tick`
/// gives the outputs and the states of `step`, on every unit and
/// profile, over a few thousand cycles of each unit's stimulus,
/// including the reset cycles.
#[test]
fn eval_then_tick_is_step() {
    for t in units::port_tables() {
        for p in ["gfx9", "gfx11"] {
            let mut stim = Stim::new(t.unit, p, 5, "").unwrap();
            let mut a = Model::new(t.unit, p).unwrap();
            let mut b = Model::new(t.unit, p).unwrap();
            let mut inp = vec![0; t.in_words()];
            let mut other = vec![0; t.in_words()];
            let (mut oa, mut ob) = (vec![0; t.out_words()], vec![0; t.out_words()]);
            for c in 0..3000 {
                assert!(stim.next(&mut inp).unwrap());
                a.step(&inp, &mut oa).unwrap();
                let want = oa.clone();
                oa.fill(0x5555_5555);
                // A glitch first (the previous cycle's inputs, legal
                // ones), then the final inputs.
                // The caller's buffer holds anything on entry.
                ob.fill(0xDEAD_BEEF);
                b.eval(&other, &mut ob).unwrap();
                ob.fill(0xDEAD_BEEF);
                b.eval(&inp, &mut ob).unwrap();
                ob.fill(0);
                b.eval(&inp, &mut ob).unwrap();
                assert_eq!(want, ob, "{} {p} cycle {c}", t.unit);
                if c % 7 == 0 {
                    // An edge with inputs eval never saw.
                    b.eval(&other, &mut ob).unwrap();
                }
                b.tick(&inp).unwrap();
                other.copy_from_slice(&inp);
            }
            assert_eq!(a.coverage(), b.coverage(), "{} {p}", t.unit);
            assert!(a.coverage().covered() > 0);
            assert!(stim.txns() > 0);
        }
    }
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let e = Model::new("tex", "gfx9").err().unwrap();
    assert!(e.contains("unknown unit `tex`"), "{e}");
    let e = Model::new("ta", "gfx10").err().unwrap();
    assert!(e.contains("gfx10"), "{e}");
    let mut m = Model::new("waitcnt", "gfx11").unwrap();
    let mut out = vec![0; m.table().out_words()];
    let e = m.step(&[1, 2], &mut out).unwrap_err();
    assert!(e.contains("2 input words given"), "{e}");
    let e = Stim::new("lds", "gfx9", 1, "nope=1").err().unwrap();
    assert!(e.contains("unknown knob `nope`"), "{e}");
    let e = Stim::new("lds", "gfx9", 1, "justaword").err().unwrap();
    assert!(e.contains("not name=value"), "{e}");
    assert!(!e.contains('\n'));
}

/// The stimulus is the seed's: two of one seed agree, another seed
/// differs, and knobs are applied.
#[test]
fn stimulus_is_the_seeds() {
    let t = table("ta").unwrap();
    let run = |seed, knobs: &str| {
        let mut s = Stim::new("ta", "gfx9", seed, knobs).unwrap();
        let mut v = vec![0; t.in_words()];
        let mut all = Vec::new();
        for _ in 0..500 {
            s.next(&mut v).unwrap();
            all.extend_from_slice(&v);
        }
        all
    };
    assert_eq!(run(3, ""), run(3, ""));
    assert_ne!(run(3, ""), run(4, ""));
    assert_ne!(run(3, ""), run(3, "misalign_pct=90"));
}
