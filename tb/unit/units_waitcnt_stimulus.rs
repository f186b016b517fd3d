use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::{Class, WaitcntParams, WAVES};
use gpucosim_model::Coverage;
use gpucosim_model::Profile;
use gpucosim_tb::run::{ModelRun, Stimulus};
use gpucosim_tb::units::waitcnt::stimulus::*;
use gpucosim_tb::units::waitcnt::txn::WaitcntTxn;
use gpucosim_tb::units::waitcnt::WaitcntTestbench;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

/// Runs `txns` through the driver and the model alone, to the end
/// (panics after `limit` cycles); returns the coverage, the cycles taken
/// and the protocol errors the model raised.
fn run(p: Profile, k: &WaitcntKnobs, txns: Vec<WaitcntTxn>, limit: u64) -> (Coverage, u64, u64) {
    let mut run = ModelRun::<WaitcntTestbench>::new(p, 1, k, Stimulus::Replay(txns));
    let mut errors = 0;
    let cycles = run.run_until_done(limit, |_, _, out| {
        errors += (0..WAVES).filter(|&w| P::err_o.elem(out, w) != 0).count() as u64;
    });
    let cycles = cycles
        .unwrap_or_else(|| panic!("no Done after {limit} cycles: {}", run.model().in_flight()));
    (run.coverage().clone(), cycles, errors)
}

#[test]
fn directed_stimulus_drains_without_errors_and_hits_saturation() {
    for p in Profile::all() {
        let (cov, _, errors) = run(p, &WaitcntKnobs::default(), directed(p), 10_000);
        assert_eq!(
            errors, 0,
            "{p}: the closed-loop driver makes no protocol errors"
        );
        for bin in [
            "sat_lgkm",
            "lgkm_out_of_order",
            "smem_out_of_order",
            "gds_exp_out_of_order",
            "sat_exp_gds",
            "wait_stall",
            "wait_release_after_stall",
        ] {
            let i = cov.names.iter().position(|n| *n == bin).unwrap();
            assert!(
                cov.hits[i] > 0,
                "{p}: bin {bin} not hit by the directed stimulus"
            );
        }
    }
}

#[test]
fn random_stimulus_is_clean_without_injected_errors_and_covers() {
    for p in Profile::all() {
        let knobs = WaitcntKnobs::default();
        let (cov, cycles, errors) = run(p, &knobs, draw(p, 7, 3000, &knobs), 200_000);
        assert_eq!(errors, 0, "{p}: no protocol error unless injected");
        assert!(cycles > 1000);
        let holes: Vec<_> = cov
            .holes()
            .into_iter()
            .filter(|h| !h.starts_with("err_"))
            .collect();
        assert!(holes.is_empty(), "{p}: coverage holes {holes:?}");
    }
}

#[test]
fn injected_errors_are_reported() {
    for p in Profile::all() {
        let knobs = WaitcntKnobs {
            err_pct: 10,
            ..WaitcntKnobs::default()
        };
        let (cov, _, errors) = run(p, &knobs, draw(p, 3, 2000, &knobs), 200_000);
        assert!(errors > 0);
        for bin in ["err_illegal", "err_busy", "err_dual", "err_underflow"] {
            let i = cov.names.iter().position(|n| *n == bin).unwrap();
            assert!(cov.hits[i] > 0, "{p}: {bin} not hit");
        }
    }
}

/// The `errors` variant's stream injects waits to waiting waves and
/// errors of two codes from one instruction: issue-and-wait pairs with
/// an illegal class, with `s_waitcnt_vscnt` (illegal on gfx9), and
/// meeting a waiting wave; waits after an `s_waitcnt 0`, as
/// `s_waitcnt_vscnt` too. Run on the model, they hit the bins of those
/// cases on every profile that has them.
#[test]
fn errors_variant_injects_busy_waits_and_two_code_errors() {
    use gpucosim_tb::testbench::Testbench;
    let variant = WaitcntTestbench::variants()
        .iter()
        .find(|v| v.name == "errors")
        .unwrap();
    let pairs: Vec<(String, String)> = variant
        .knobs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let knobs = gpucosim_tb::run::parse_knobs::<WaitcntTestbench>(&pairs).unwrap();
    assert!(knobs.err_pct > 0);
    for p in Profile::all() {
        let txns = draw(p, 4, 3000, &knobs);
        let count = |f: &dyn Fn(&WaitcntTxn) -> bool| txns.iter().filter(|t| f(t)).count();
        let illegal = |code: u8| Class::from_code(code as u32).is_none_or(|c| !c.legal(p));
        let kinds = [
            (
                "wait after s_waitcnt 0",
                count(&|t| matches!(t, WaitcntTxn::BadWait { vscnt: false, .. })),
            ),
            (
                "s_waitcnt_vscnt after s_waitcnt 0",
                count(&|t| matches!(t, WaitcntTxn::BadWait { vscnt: true, .. })),
            ),
            (
                "illegal issue with a wait",
                count(&|t| matches!(*t, WaitcntTxn::BadDual { code, .. } if illegal(code))),
            ),
            (
                "issue with s_waitcnt_vscnt",
                count(&|t| matches!(t, WaitcntTxn::BadDual { vscnt: true, .. })),
            ),
            (
                "issue and wait after s_waitcnt 0",
                count(&|t| matches!(t, WaitcntTxn::BadDual { busy: true, .. })),
            ),
        ];
        for (what, n) in kinds {
            assert!(n > 0, "{p}: no {what} in the stream");
        }
        let (cov, _, errors) = run(p, &knobs, txns, 400_000);
        assert!(errors > 0);
        let mut bins = vec![
            "err_busy_wait",
            "err_illegal_dual_issue",
            "err_illegal_busy_dual",
            "err_illegal_underflow",
        ];
        if !WaitcntParams::of(p).has_vs() {
            bins.extend(["err_illegal_busy_wait", "err_illegal_dual_wait"]);
        }
        for bin in bins {
            let i = cov.names.iter().position(|n| *n == bin).unwrap();
            assert!(cov.hits[i] > 0, "{p}: {bin} not hit");
        }
    }
}

#[test]
fn generation_is_deterministic() {
    let k = WaitcntKnobs::default();
    let a: Vec<_> = {
        let mut r = ChaCha8Rng::seed_from_u64(11);
        (0..200)
            .map(|_| generate(Profile::Gfx11, &k, &mut r))
            .collect()
    };
    let mut r = ChaCha8Rng::seed_from_u64(11);
    let b: Vec<_> = (0..200)
        .map(|_| generate(Profile::Gfx11, &k, &mut r))
        .collect();
    assert_eq!(a, b);
    let j = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<Vec<WaitcntTxn>>(&j).unwrap(), a);
}

#[test]
fn knobs_deserialise_partially() {
    let k: WaitcntKnobs = serde_json::from_value(json!({"err_pct": 5})).unwrap();
    assert_eq!(k.err_pct, 5);
    assert_eq!(k.waves, 16);
    assert!(serde_json::from_value::<WaitcntKnobs>(json!({"nope": 1})).is_err());
}

/// `n` random transactions of seed `seed` (tests).
pub(crate) fn draw(profile: Profile, seed: u64, n: usize, k: &WaitcntKnobs) -> Vec<WaitcntTxn> {
    use rand::SeedableRng;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| generate(profile, k, &mut rng)).collect()
}
