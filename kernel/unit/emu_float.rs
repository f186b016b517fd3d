use gpucosim_kernel::emu::float::*;

#[test]
fn class_compares_name_every_class() {
    let none = FMods::default();
    let cases: [(u32, u32); 10] = [
        (0x7f80_0001, 0), // signalling NaN
        (0x7fc0_0000, 1), // quiet NaN
        (0xff80_0000, 2), // −∞
        (0xbf80_0000, 3), // −1.0
        (0x8000_0001, 4), // negative denormal
        (0x8000_0000, 5), // −0
        (0x0000_0000, 6), // +0
        (0x0000_0001, 7), // positive denormal
        (0x3f80_0000, 8), // 1.0
        (0x7f80_0000, 9), // +∞
    ];
    for (bits, class) in cases {
        for bit in 0..10 {
            assert_eq!(
                class_test(bits, 1 << bit, none),
                bit == class,
                "{bits:#x} bit {bit}"
            );
        }
        assert!(class_test(bits, 0x3ff, none));
        assert!(!class_test(bits, 0, none));
    }
    // Modifiers apply to source 0 only.
    let abs = FMods { abs: 1, ..none };
    let neg = FMods { neg: 1, ..none };
    assert!(class_test(0xbf80_0000, 1 << 8, abs));
    assert!(class_test(0x3f80_0000, 1 << 3, neg));
    assert!(class_test(0x3f80_0000, 1 << 8, FMods { neg: 2, ..none }));
}

const IEEE: Denorm = Denorm {
    flush_in: false,
    flush_out: false,
};
const FTZ: Denorm = Denorm {
    flush_in: true,
    flush_out: true,
};

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn run(op: F32, s: [f32; 3]) -> f32 {
    f32::from_bits(apply(
        op,
        [f(s[0]), f(s[1]), f(s[2])],
        0,
        FMods::default(),
        IEEE,
    ))
}

/// LLVM's expansion of a 32-bit unsigned division by a run-time value:
/// the reciprocal scaled by 2^32 - 512, then one integer refinement and
/// two corrections. The quotient is exact for every divisor tried with
/// the correctly rounded reciprocal, and with reciprocals one and two
/// ULPs below it. (One ULP above breaks it, e.g. 7 / 3: the hardware's
/// reciprocal, which compiled code relies on, cannot overshoot so.)
/// Whatever the hardware's last bit, the quotient is the exact one:
/// that is why `v_rcp_iflag_f32` is not marked approximate.
#[test]
fn integer_division_expansion_is_exact() {
    let mut cases = vec![
        (7u32, 3u32),
        (u32::MAX, 1),
        (u32::MAX, 7),
        (1000, 1000),
        (5, 9),
        (123_456_789, 65_537),
        (u32::MAX, u32::MAX - 1),
        (0, 5),
        (1 << 31, 3),
    ];
    let mut x = 0x2545_f491u32;
    for _ in 0..2000 {
        // xorshift: dividends and divisors of every size.
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let y = (x >> (x % 31)).max(1);
        cases.push((x.rotate_left(7), y));
    }
    for ulp in [-2i32, -1, 0] {
        for &(x, y) in &cases {
            let yf = apply(F32::CvtF32U32, [y, 0, 0], 0, FMods::default(), IEEE);
            let r = apply(F32::RcpIflag, [yf, 0, 0], 0, FMods::default(), IEEE);
            let r = (r as i32 + ulp) as u32;
            let s = apply(F32::Mul, [0x4f7f_fffe, r, 0], 0, FMods::default(), IEEE);
            let mut z = apply(F32::CvtU32F32, [s, 0, 0], 0, FMods::default(), IEEE);
            let nz = y.wrapping_neg().wrapping_mul(z);
            z = z.wrapping_add(((u64::from(z) * u64::from(nz)) >> 32) as u32);
            let mut q = ((u64::from(x) * u64::from(z)) >> 32) as u32;
            let mut rem = x.wrapping_sub(q.wrapping_mul(y));
            for _ in 0..2 {
                if rem >= y {
                    q += 1;
                    rem -= y;
                }
            }
            assert_eq!((q, rem), (x / y, x % y), "{x} / {y}, {ulp} ULP");
        }
    }
}

#[test]
fn arithmetic_modifiers_and_denormals() {
    assert_eq!(run(F32::Add, [1.5, 2.25, 0.0]), 3.75);
    assert_eq!(run(F32::SubRev, [1.0, 4.0, 0.0]), 3.0);
    assert_eq!(run(F32::Fma, [2.0, 3.0, 1.0]), 7.0);
    assert_eq!(run(F32::Med3, [5.0, 1.0, 3.0]), 3.0);
    assert_eq!(run(F32::MaxMin, [5.0, 1.0, 3.0]), 3.0);
    assert_eq!(run(F32::MaxMin, [-5.0, 1.0, 3.0]), 1.0);
    assert_eq!(run(F32::MinMax, [5.0, 1.0, 3.0]), 3.0);
    assert_eq!(run(F32::MinMax, [5.0, 4.0, 3.0]), 4.0);
    assert_eq!(F32::of("maxmin_f32"), Some(F32::MaxMin));
    assert_eq!(run(F32::Rndne, [2.5, 0.0, 0.0]), 2.0);
    assert_eq!(run(F32::Fract, [-1.25, 0.0, 0.0]), 0.75);
    assert_eq!(run(F32::Ldexp, [1.5, f32::from_bits(3), 0.0]), 12.0);
    // A tiny value scaled far up, and down into the denormals.
    assert_eq!(
        run(F32::Ldexp, [1.0e-38, f32::from_bits(200), 0.0]),
        (f64::from(1.0e-38f32) * 2f64.powi(200)) as f32
    );
    assert_eq!(
        run(F32::Ldexp, [1.0, f32::from_bits(-140i32 as u32), 0.0]),
        f32::from_bits(0x200)
    );
    assert_eq!(
        apply(F32::CvtU32F32, [f(-3.0), 0, 0], 0, FMods::default(), IEEE),
        0
    );
    assert_eq!(
        apply(F32::CvtI32F32, [f(-3.75), 0, 0], 0, FMods::default(), IEEE),
        -3i32 as u32
    );
    assert_eq!(
        apply(
            F32::CvtU32F32,
            [f(f32::NAN), 0, 0],
            0,
            FMods::default(),
            IEEE
        ),
        0
    );
    let m = FMods {
        neg: 1,
        abs: 2,
        clamp: false,
        omod: 1,
    };
    // (-(2) + |-3|) * 2
    assert_eq!(
        f32::from_bits(apply(F32::Add, [f(2.0), f(-3.0), 0], 0, m, IEEE)),
        2.0
    );
    let clamp = FMods {
        clamp: true,
        ..FMods::default()
    };
    assert_eq!(
        f32::from_bits(apply(F32::Mul, [f(3.0), f(2.0), 0], 0, clamp, IEEE)),
        1.0
    );
    // The smallest normal halved is a denormal: kept or flushed.
    let tiny = f32::MIN_POSITIVE;
    assert!(f32::from_bits(apply(
        F32::Mul,
        [f(tiny), f(0.5), 0],
        0,
        FMods::default(),
        IEEE
    ))
    .is_subnormal());
    assert_eq!(
        apply(F32::Mul, [f(tiny), f(0.5), 0], 0, FMods::default(), FTZ),
        0
    );
    assert!(F32::Rcp.approximate() && !F32::RcpIflag.approximate() && !F32::Mul.approximate());
}

#[test]
fn compares_order_and_nan() {
    let lt = FCmp::of("lt").unwrap();
    let nge = FCmp::of("nge").unwrap();
    let (one, two, nan) = (f(1.0), f(2.0), f(f32::NAN));
    assert!(lt.test(one, two, FMods::default(), IEEE));
    assert!(!lt.test(nan, two, FMods::default(), IEEE));
    assert!(nge.test(nan, two, FMods::default(), IEEE));
    assert!(!nge.test(two, one, FMods::default(), IEEE));
    // -(1) < 2 with neg on source 0; |−3| > 2 with abs.
    let neg = FMods {
        neg: 1,
        ..FMods::default()
    };
    assert!(lt.test(one, two, neg, IEEE));
    let abs = FMods {
        abs: 1,
        ..FMods::default()
    };
    assert!(FCmp::of("gt").unwrap().test(f(-3.0), two, abs, IEEE));
}
