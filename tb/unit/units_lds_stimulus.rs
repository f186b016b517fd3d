use gpucosim_model::lds::ports::lds_ports as P;
use gpucosim_model::Profile;
use gpucosim_tb::run::{ModelRun, Stimulus};
use gpucosim_tb::testbench::Testbench;
use gpucosim_tb::units::lds::stimulus::*;
use gpucosim_tb::units::lds::LdsTestbench;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Each copy of the generator this CPU runs draws the same transactions
/// as the baseline one and leaves the generator in the same state:
/// 3,000 per profile and version, with the default knobs, with every
/// percentage at 50 (so that every branch and both lane loops are
/// taken) and with a window that is not a power of two. Fails if a copy
/// differs (where the CPU lacks AVX2, only the baseline is compared,
/// with itself).
#[test]
fn every_generator_copy_draws_the_same_transactions() {
    let half = LdsKnobs {
        w_permute: 25,
        unaligned: 50,
        misalign: 50,
        range_edge: 50,
        base: 50,
        wave32: 50,
        cu_mode: 50,
        invalid: 10,
        misalign_dword: 50,
        wrap: 50,
        ..LdsKnobs::default()
    };
    let odd_window = LdsKnobs {
        window: 100,
        exec: "random".into(),
        ..LdsKnobs::default()
    };
    crate::draw::assert_generator_copies_agree(
        &generate_copies(),
        generate_baseline,
        &[LdsKnobs::default(), half, odd_window],
    );
}

#[test]
fn generation_is_deterministic_and_covers_the_model() {
    for p in Profile::all() {
        let k = LdsKnobs::default();
        let a: Vec<_> = {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            (0..50).map(|_| generate(p, &k, &mut rng)).collect()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let b: Vec<_> = (0..50).map(|_| generate(p, &k, &mut rng)).collect();
        assert_eq!(a, b);
        // Drive the model with directed + random stimulus until done.
        let mut txns = LdsTestbench::directed(p);
        txns.extend(a);
        let n = txns.len();
        let mut run = ModelRun::<LdsTestbench>::new(p, 7, &k, Stimulus::Replay(txns));
        let mut dones = 0;
        run.run_until_done(100_000, |_, _, out| {
            dones += P::done_o.bit(out) as usize;
        })
        .expect("the driver finishes");
        assert_eq!(run.txn_count(), n, "{p}: every transaction is taken");
        assert_eq!(dones, n, "{p}: every instruction completes");
        let c = run.coverage();
        assert!(
            c.covered() * 10 >= c.names.len() * 8,
            "{p}: holes {:?}",
            c.holes()
        );
    }
}
