use gpucosim_kernel::emu::float::{Denorm, FCmp, FMods};
use gpucosim_kernel::emu::half::*;

const KEEP: Denorm = Denorm {
    flush_in: false,
    flush_out: false,
};

/// Every binary16 value converts to binary64 and back unchanged; the
/// halfway points between neighbours round to the even one.
#[test]
fn conversions_round_trip_and_ties_go_to_even() {
    for h in 0..=u16::MAX {
        let x = to_f64(h);
        if x.is_nan() {
            assert_eq!(from_f64(x) & 0x7e00, 0x7e00);
            continue;
        }
        assert_eq!(from_f64(x), h, "{h:#x}");
        let next = h.wrapping_add(1);
        if h & 0x7fff < 0x7bff && next & 0x7fff != 0 {
            let mid = (x + to_f64(next)) / 2.0;
            let even = if h & 1 == 0 { h } else { next };
            assert_eq!(from_f64(mid), even, "between {h:#x} and {next:#x}");
        }
    }
    assert_eq!(from_f64(65520.0), 0x7c00, "rounds up past the largest");
    assert_eq!(from_f64(65519.0), 0x7bff);
    assert_eq!(from_f64(2f64.powi(-25)), 0, "half the least denormal: even");
    assert_eq!(from_f64(2f64.powi(-25) * 1.5), 1);
}

/// Fused multiply-add rounds once: against the exact value computed
/// with integers, over many operands.
#[test]
fn fma_rounds_once() {
    let none = FMods::default();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x as u16) & 0x7bff | (x >> 40) as u16 & 0x8000
    };
    for _ in 0..20000 {
        let (a, b, c) = (next(), next(), next());
        let r = apply(
            F16::Fma,
            [a.into(), b.into(), c.into()],
            0,
            none,
            KEEP,
            KEEP,
        ) as u16;
        let exact = units(to_f64(a) * 2f64.powi(-24)) * units(to_f64(b) * 2f64.powi(-24))
            + units(to_f64(c));
        assert_eq!(r, from_units(exact), "{a:#x} * {b:#x} + {c:#x}");
        // The unfused form rounds the product first.
        let mad = apply(
            F16::Mad,
            [a.into(), b.into(), c.into()],
            0,
            none,
            KEEP,
            KEEP,
        ) as u16;
        assert_eq!(
            mad,
            from_f64(to_f64(from_f64(to_f64(a) * to_f64(b))) + to_f64(c))
        );
    }
    // 3 * (1 + 2^-10) is the midpoint between 3 + 2^-9 and 3 + 2^-8;
    // minus 2^-24 it is just below, so it rounds down. Rounding
    // through binary32 would land on the midpoint and round to even
    // (up).
    let r = apply(
        F16::Fma,
        [
            from_f64(3.0).into(),
            from_f64(1.0 + 2f64.powi(-10)).into(),
            0x8001,
        ],
        0,
        none,
        KEEP,
        KEEP,
    ) as u16;
    assert_eq!(to_f64(r), 3.0 + 2f64.powi(-9));
}

#[test]
fn compares_classes_and_integer_conversions() {
    let none = FMods::default();
    let lt = FCmp::of("lt").unwrap();
    assert!(cmp(lt, from_f64(1.0), from_f64(2.0), none, KEEP));
    assert!(!cmp(lt, 0x7e00, from_f64(2.0), none, KEEP));
    assert!(class(0xfc00, 1 << 2, none));
    assert!(class(0x0001, 1 << 7, none));
    let r = |op, v: u32| apply(op, [v, 0, 0], 0, none, KEEP, KEEP);
    assert_eq!(r(F16::CvtI16F16, u32::from(from_f64(-3.7))), 0xfffd);
    assert_eq!(r(F16::CvtU16F16, u32::from(from_f64(-3.7))), 0);
    assert_eq!(r(F16::CvtF16I16, 0xfffd), u32::from(from_f64(-3.0)));
    assert_eq!(
        r(F16::CvtF32F16, u32::from(from_f64(0.1))),
        (to_f64(from_f64(0.1)) as f32).to_bits()
    );
    assert_eq!(
        r(F16::CvtF16F32, 0.1f32.to_bits()),
        u32::from(from_f64(f64::from(0.1f32)))
    );
}
