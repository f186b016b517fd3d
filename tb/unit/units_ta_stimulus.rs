use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::tlm::compute;
use gpucosim_model::ta::LaneResults;
use gpucosim_model::Profile;
use gpucosim_tb::run::{ModelRun, Stimulus};
use gpucosim_tb::testbench::Testbench;
use gpucosim_tb::units::ta::stimulus::*;
use gpucosim_tb::units::ta::txn::TaTxn;
use gpucosim_tb::units::ta::TaTestbench;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

/// Runs `txns` through the driver and the model alone, to the end;
/// returns the run and the cycles taken.
fn run_model(profile: Profile, k: &TaKnobs, txns: Vec<TaTxn>) -> (ModelRun<'_, TaTestbench>, u64) {
    let mut run = ModelRun::<TaTestbench>::new(profile, 1, k, Stimulus::Replay(txns));
    let cycles = run
        .run_until_done(2_000_000, |_, _, _| {})
        .expect("the driver finishes");
    (run, cycles)
}

/// Each copy of the generator this CPU runs draws the same transactions
/// as the baseline one and leaves the generator in the same state:
/// 3,000 per profile and version, with the default knobs and with every
/// percentage at 50 (so that every branch is taken). Fails if a copy
/// differs (where the CPU lacks AVX2, only the baseline is compared,
/// with itself).
#[test]
fn every_generator_copy_draws_the_same_transactions() {
    let half = TaKnobs {
        format_pct: 50,
        mtbuf_pct: 50,
        atomic_pct: 50,
        store_pct: 50,
        swizzle_pct: 50,
        edge_pct: 50,
        wrap_pct: 50,
        misalign_pct: 50,
        invalid_format_pct: 50,
        mismatch_pct: 50,
        all_zero_pct: 50,
        exec_zero_pct: 50,
        wave32_pct: 50,
        stall_pct: 50,
        gap_max: 3,
        odd_encoding_pct: 50,
    };
    crate::draw::assert_generator_copies_agree(
        &generate_copies(),
        generate_baseline,
        &[TaKnobs::default(), half],
    );
}

#[test]
fn generation_is_deterministic_per_seed() {
    let k = TaKnobs::default();
    assert_eq!(
        draw(Profile::Gfx11, 7, 50, &k),
        draw(Profile::Gfx11, 7, 50, &k)
    );
    assert_ne!(
        draw(Profile::Gfx11, 7, 50, &k),
        draw(Profile::Gfx11, 8, 50, &k)
    );
}

#[test]
fn random_and_directed_stimulus_cover_every_bin() {
    for profile in Profile::all() {
        let mut txns = TaTestbench::directed(profile);
        let k = TaKnobs::default();
        txns.extend(draw(profile, 1, 3000, &k));
        let n = txns.len() as u64;
        let (run, cycles) = run_model(profile, &k, txns);
        let holes = run.coverage().holes();
        assert!(holes.is_empty(), "{profile}: bins never hit: {holes:?}");
        assert!(cycles > n, "every instruction takes at least one cycle");
    }
}

fn no_knobs() -> TaKnobs {
    serde_json::from_value(json!({
        "format_pct": 0, "mtbuf_pct": 0, "atomic_pct": 0, "store_pct": 0, "swizzle_pct": 0,
        "edge_pct": 0, "wrap_pct": 0, "misalign_pct": 0, "invalid_format_pct": 0,
        "mismatch_pct": 0, "all_zero_pct": 0, "exec_zero_pct": 0, "wave32_pct": 0,
        "stall_pct": 0, "gap_max": 0, "odd_encoding_pct": 0
    }))
    .unwrap()
}

/// Bin hits of 300 instructions drawn with `k`.
fn bins(profile: Profile, k: &TaKnobs) -> std::collections::HashMap<&'static str, u64> {
    let (run, _) = run_model(profile, k, draw(profile, 11, 300, k));
    let c = run.coverage();
    c.names
        .iter()
        .copied()
        .zip(c.hits.iter().copied())
        .collect()
}

/// Each knob at 100 % drives the bins it is for, which stay empty with
/// every knob at 0; the knobs without a bin of their own shift what
/// they are for (misaligned offsets, out-of-range slots, odd sizes).
#[test]
fn each_knob_drives_its_bins() {
    for profile in Profile::all() {
        let none = no_knobs();
        let base = bins(profile, &none);
        let with = |knob: &str| {
            let mut v = serde_json::to_value(&none).unwrap();
            v[knob] = json!(100);
            if knob == "invalid_format_pct" {
                v["format_pct"] = json!(100);
            }
            serde_json::from_value::<TaKnobs>(v).unwrap()
        };
        let mut cases: Vec<(&str, &[&str])> = vec![
            ("format_pct", &["format.mubuf"]),
            ("mtbuf_pct", &["format.mtbuf"]),
            (
                "atomic_pct",
                &[
                    "op.atomic",
                    "op.atomic_return",
                    "atomic.32bit",
                    "atomic.64bit",
                    "align.atomic.memviol",
                ],
            ),
            ("store_pct", &["op.store"]),
            (
                "swizzle_pct",
                &["swizzle.es4", "swizzle.es16", "swizzle.is8", "swizzle.is64"],
            ),
            ("wrap_pct", &["addr.wrap_2^32", "addr.wrap_2^48"]),
            ("invalid_format_pct", &["format.invalid"]),
            ("mismatch_pct", &["resource.type_mismatch"]),
            ("all_zero_pct", &["resource.all_zero"]),
            ("exec_zero_pct", &["exec.zero"]),
            ("stall_pct", &["lines.backpressure_stall"]),
        ];
        if profile.wave32() {
            cases.push(("wave32_pct", &["wave.32"]));
        }
        for (knob, want) in cases {
            let on = bins(profile, &with(knob));
            for b in want {
                assert_eq!(base[b], 0, "{profile}: {b} hit with every knob at 0");
                assert!(on[b] > 0, "{profile}: {knob} = 100 never hits {b}");
            }
        }
        // Odd encodings: sizes outside 1/2/4/8/12/16 fall back to 4 bytes.
        let on = bins(profile, &with("odd_encoding_pct"));
        assert!(
            on["size.4"] > 2 * base["size.4"],
            "{profile}: {} vs {}",
            on["size.4"],
            base["size.4"]
        );
        // Misaligned offsets and range edges, measured on the stimulus.
        let lanes = |k: &TaKnobs, f: &dyn Fn(&TaTxn, usize) -> bool| -> usize {
            draw(profile, 11, 300, k)
                .iter()
                .map(|t| (0..LANES).filter(|&l| f(t, l)).count())
                .sum()
        };
        let misaligned = |t: &TaTxn, l: usize| !t.instr.voffset[l].is_multiple_of(4);
        let (m_on, m_off) = (
            lanes(&with("misalign_pct"), &misaligned),
            lanes(&none, &misaligned),
        );
        assert!(
            m_on > 2 * m_off,
            "{profile}: misaligned lanes {m_on} vs {m_off}"
        );
        // Instructions whose active slots are partly in range and
        // partly out, by the model's datapath: edge indices and
        // offsets straddle num_records and the stride.
        let straddling = |k: &TaKnobs| -> usize {
            let mut res = LaneResults::default();
            draw(profile, 11, 300, k)
                .iter()
                .filter(|t| {
                    compute(profile, &t.instr, &mut res, &mut Events::default());
                    let slots = res.shape.slots as usize;
                    let (mut inside, mut outside) = (false, false);
                    for l in (0..LANES).filter(|&l| res.active >> l & 1 != 0) {
                        for i in 4 * l..4 * l + slots {
                            let r = res.inrange[i / 64] >> (i % 64) & 1 != 0;
                            (inside, outside) = (inside || r, outside || !r);
                        }
                    }
                    inside && outside
                })
                .count()
        };
        let (s_on, s_off) = (straddling(&with("edge_pct")), straddling(&none));
        assert!(
            s_on > s_off * 3 / 2,
            "{profile}: instructions straddling a range edge {s_on} vs {s_off}"
        );
    }
}

/// Every knob at its extreme at once, and every knob at 0: every
/// transaction is taken and runs to completion.
#[test]
fn extreme_knobs_run_to_completion() {
    let all = TaKnobs {
        format_pct: 50,
        mtbuf_pct: 50,
        atomic_pct: 100,
        store_pct: 100,
        swizzle_pct: 100,
        edge_pct: 100,
        wrap_pct: 100,
        misalign_pct: 100,
        invalid_format_pct: 100,
        mismatch_pct: 100,
        all_zero_pct: 100,
        exec_zero_pct: 100,
        wave32_pct: 100,
        stall_pct: 100,
        gap_max: 255,
        odd_encoding_pct: 100,
    };
    let none = no_knobs();
    for profile in Profile::all() {
        for k in [&all, &none] {
            let (run, cycles) = run_model(profile, k, draw(profile, 11, 300, k));
            assert_eq!(run.txn_count(), 300, "{profile}");
            assert!(cycles > 300, "{profile}: every instruction takes a cycle");
        }
    }
}

/// `n` random transactions of seed `seed` (tests).
pub(crate) fn draw(profile: Profile, seed: u64, n: usize, k: &TaKnobs) -> Vec<TaTxn> {
    use rand::SeedableRng;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| generate(profile, k, &mut rng)).collect()
}
