use gpucosim_model::waitcnt::Class;
use gpucosim_tb::units::waitcnt::txn::*;

#[test]
fn simplify_makes_progress() {
    let t = WaitcntTxn::Issue {
        wave: 3,
        class: Class::Lds,
        latency: 9,
        count: 4,
    };
    let s = simplify(&t);
    assert!(!s.is_empty() && !s.contains(&t));
    let simplest = WaitcntTxn::Issue {
        wave: 0,
        class: Class::Lds,
        latency: 1,
        count: 1,
    };
    assert!(simplify(&simplest).is_empty());
}
