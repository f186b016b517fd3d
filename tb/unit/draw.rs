use gpucosim_tb::draw::*;
use rand::RngCore;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn fields_are_in_range_and_spread() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut d = Draw::new(&mut rng);
    let mut hist = [0u32; 7];
    for _ in 0..70_000 {
        hist[d.below(7) as usize] += 1;
        assert!(d.bits(5) < 32);
        let r = d.range(1u64 << 40, (1u64 << 40) + 3_000_000);
        assert!(((1u64 << 40)..(1u64 << 40) + 3_000_000).contains(&r));
        assert!((4..9).contains(&d.range32(4, 9)));
    }
    for h in hist {
        assert!((9_500..10_500).contains(&h), "{hist:?}");
    }
    let hits = (0..100_000).filter(|_| d.pct(30)).count();
    assert!((29_000..31_000).contains(&hits), "{hits}");
    assert!((0..1000).all(|_| !d.pct(0)) && (0..1000).all(|_| d.pct(100)));
}

#[test]
fn versions_outside_the_generated_ones_are_refused() {
    assert_eq!(check_version(1).unwrap(), 1);
    assert_eq!(check_version(STIMULUS_VERSION).unwrap(), STIMULUS_VERSION);
    for v in [0, STIMULUS_VERSION + 1] {
        let e = check_version(v).unwrap_err().to_string();
        assert!(e.contains(&format!("stimulus version {v}")), "{e}");
    }
}

/// A generator of stimulus version `version` for a profile under knobs
/// `K`, as `hot_copies!` names its copies (`all in`).
pub(crate) type GeneratorCopy<K, T> = fn(u32, gpucosim_model::Profile, &K, &mut ChaCha8Rng) -> T;

/// Holds every copy in `copies` (from `hot_copies!`'s `all in` list) equal
/// to the baseline `base`: from the same seed, 3,000 transactions per
/// profile, version from 2 on and knob set in `knobs`, and the generator's
/// state after them. Fails naming the copy, profile, version and
/// transaction that differ.
pub(crate) fn assert_generator_copies_agree<K, T: PartialEq + std::fmt::Debug>(
    copies: &[(&str, GeneratorCopy<K, T>)],
    base: GeneratorCopy<K, T>,
    knobs: &[K],
) {
    use rand::SeedableRng;
    for k in knobs {
        for profile in gpucosim_model::Profile::all() {
            for version in 2..=STIMULUS_VERSION {
                for (name, copy) in copies {
                    let mut a = ChaCha8Rng::seed_from_u64(11);
                    let mut b = ChaCha8Rng::seed_from_u64(11);
                    for n in 0..3_000 {
                        let x = copy(version, profile, k, &mut a);
                        let y = base(version, profile, k, &mut b);
                        assert_eq!(x, y, "{name}: {profile} v{version} transaction {n}");
                    }
                    assert_eq!(
                        a.next_u64(),
                        b.next_u64(),
                        "{name}: {profile} v{version}: the generator's state"
                    );
                }
            }
        }
    }
}
