use gpucosim_model::lds::ports::lds_ports as P;
use gpucosim_model::Profile;
use gpucosim_tb::run::{ModelRun, Stimulus};
use gpucosim_tb::testbench::Drive;
use gpucosim_tb::units::lds::driver::*;
use gpucosim_tb::units::lds::stimulus::{generate, LdsKnobs};
use gpucosim_tb::units::lds::txn::LdsTxn;
use gpucosim_tb::units::lds::LdsTestbench;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn an_offer_is_held_whole_until_taken_and_each_is_taken_once_in_order() {
    for profile in Profile::all() {
        let k = LdsKnobs::default();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let txns: Vec<LdsTxn> = (0..300).map(|_| generate(profile, &k, &mut rng)).collect();
        // What each offer drives: the payload, `req_valid_i` and `rst_ni`.
        let offers: Vec<Vec<u32>> = txns
            .iter()
            .map(|t| {
                let mut inp = vec![0u32; P::TABLE.in_words()];
                P::rst_ni.set(&mut inp, 1);
                LdsDriver::apply(t, &mut inp);
                inp
            })
            .collect();
        let mut run = ModelRun::<LdsTestbench>::new(profile, 7, &k, Stimulus::Replay(txns));
        let (mut taken, mut held) = (0, 0);
        let (iw, ow) = (P::TABLE.in_words(), P::TABLE.out_words());
        let (mut pin, mut pout) = (vec![0u32; iw], vec![0u32; ow]);
        let (mut inp, mut out) = (vec![0u32; iw], vec![0u32; ow]);
        for cycle in 0..2_000_000 {
            // Whatever the buffer held: every word must be driven.
            inp.fill(0xDEAD_BEEF);
            out.copy_from_slice(&pout);
            let status = run.cycle(cycle, &mut inp, &mut out);
            if P::req_valid_i.bit(&pin) && !P::req_ready_o.bit(&pout) {
                // Not taken in the cycle before: offered again, whole.
                assert_eq!(inp, pin, "held offer {taken}");
                held += 1;
            }
            if P::req_valid_i.bit(&inp) && P::req_ready_o.bit(&out) {
                assert_eq!(inp, offers[taken], "offer {taken}");
                taken += 1;
            }
            (pin, pout) = (inp.clone(), out.clone());
            if status == Drive::Done {
                break;
            }
        }
        assert_eq!(taken, offers.len(), "{profile}");
        assert!(held > offers.len(), "{profile}: {held} held cycles");
    }
}
