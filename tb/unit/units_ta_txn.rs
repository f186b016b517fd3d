use crate::units_ta_stimulus::draw;
use gpucosim_model::Profile;
use gpucosim_tb::units::ta::stimulus::TaKnobs;
use gpucosim_tb::units::ta::txn::*;

#[test]
fn transactions_round_trip_through_json() {
    for t in draw(Profile::Gfx9, 1, 20, &TaKnobs::default()) {
        let s = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<TaTxn>(&s).unwrap(), t);
    }
}

#[test]
fn simplify_yields_distinct_simpler_variants() {
    for t in draw(Profile::Gfx11, 5, 20, &TaKnobs::default()) {
        let s = simplify(&t);
        assert!(s.iter().all(|x| *x != t));
        for v in &s {
            assert!(
                v.instr.exec & !t.instr.exec == 0,
                "simplifying never enables lanes"
            );
        }
    }
}
