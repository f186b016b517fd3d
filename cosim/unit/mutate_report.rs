use gpucosim::mutate::report::*;

#[test]
fn spread_and_rate() {
    let s = Spread::of(vec![5, 1, 3, 2, 4, 10, 7, 8, 9, 6]).unwrap();
    assert_eq!((s.median, s.p90, s.max), (5, 9, 10));
    assert!(Spread::of(vec![]).is_none());
    let c = Counts {
        mutants: 10,
        killed: 6,
        rtl_errors: 1,
        survived: 1,
        not_activated: 0,
        equivalent: 1,
        waived: 1,
        not_built: 1,
        not_run: 0,
    };
    assert_eq!(c.kill_rate(), Some(7.0 / 8.0));
    assert_eq!(c.activated_kill_rate(), Some(7.0 / 8.0));
    let c = Counts {
        not_activated: 1,
        ..c
    };
    assert_eq!(c.activated_kill_rate(), Some(1.0));
    assert_eq!(Counts::default().kill_rate(), None);
}
