use gpucosim_kernel::emu::float::{self, F32};
use gpucosim_kernel::emu::float::{Denorm, FMods};
use gpucosim_kernel::emu::wide::*;

const IEEE: Denorm = Denorm {
    flush_in: false,
    flush_out: false,
};
const MODES: Modes = Modes {
    f32: IEEE,
    f64: IEEE,
};
const NONE: FMods = FMods {
    neg: 0,
    abs: 0,
    clamp: false,
    omod: 0,
};

/// Bit patterns: every class (zeros, denormals, normals near both
/// ends, infinities, NaN) and random ones.
fn patterns64() -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x4008_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x0350_0000_0000_0000,
        0x7c00_0000_0000_0000,
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push(x);
    }
    let neg: Vec<u64> = v.iter().map(|b| b ^ 1 << 63).collect();
    v.extend(neg);
    v
}

fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// LLVM's binary64 division (SITargetLowering::LowerFDIV64), step by
/// step through the emulator's operations, gives IEEE's correctly
/// rounded quotient: the division helpers' semantics, exponent
/// thresholds and VCC scaling included, hold across every class.
#[test]
fn binary64_division_expansion_is_ieee_division() {
    let ops = |op: Wide, s: [u64; 3], vcc: bool, m: FMods| apply(op, s, vcc, m, MODES).0;
    let neg0 = FMods { neg: 1, ..NONE };
    let one = 1f64.to_bits();
    let p = patterns64();
    let (mut checked, mut approx) = (0, 0);
    for (i, &n) in p.iter().enumerate() {
        for &d in p.iter().skip(i % 37).step_by(97) {
            let (ds, _) = div_scale64([d, d, n], NONE, IEEE);
            let (ns, vcc) = div_scale64([n, d, n], NONE, IEEE);
            let r = ops(Wide::Rcp, [ds, 0, 0], false, NONE);
            let e = ops(Wide::Fma, [ds, r, one], false, neg0);
            let r = ops(Wide::Fma, [r, e, r], false, NONE);
            let e = ops(Wide::Fma, [ds, r, one], false, neg0);
            let r = ops(Wide::Fma, [r, e, r], false, NONE);
            let q = ops(Wide::Mul, [ns, r, 0], false, NONE);
            let f = ops(Wide::Fma, [ds, q, ns], false, neg0);
            let (fm, scaled) = apply(Wide::DivFmas, [f, r, q], vcc, NONE, MODES);
            let out = f64::from_bits(ops(Wide::DivFixup, [fm, d, n], false, NONE));
            let want = f64::from_bits(n) / f64::from_bits(d);
            // A scaled v_div_fmas (a denormal quotient) rounds twice in
            // the emulator: it is marked approximate, and within 1 ULP.
            let ulps = out.to_bits().abs_diff(want.to_bits());
            assert!(
                same64(out, want) || (scaled && ulps <= 1),
                "{n:#x} / {d:#x}: {out:e} ({:#x}), IEEE {want:e}",
                out.to_bits()
            );
            checked += 1;
            approx += usize::from(scaled && !same64(out, want));
        }
    }
    assert!(checked > 100_000, "{checked}");
    assert!(approx * 1000 < checked, "{approx} of {checked}");
}

/// The same for binary32 (SITargetLowering::LowerFDIV32, denormals
/// kept).
#[test]
fn binary32_division_expansion_is_ieee_division() {
    let f = |op: F32, s: [u32; 3], m: FMods| float::apply(op, s, 0, m, IEEE);
    let neg0 = FMods { neg: 1, ..NONE };
    let one = 1f32.to_bits();
    let p: Vec<u32> = patterns64()
        .iter()
        .flat_map(|b| [(*b >> 32) as u32, *b as u32])
        .chain([
            0x0080_0000,
            0x007f_ffff,
            1,
            0x7f7f_ffff,
            0x0d00_0000,
            0x7100_0000,
        ])
        .collect();
    for (i, &n) in p.iter().enumerate() {
        for &d in p.iter().skip(i % 41).step_by(211) {
            let (ds, _) = div_scale32([d, d, n], NONE, IEEE);
            let (ns, vcc) = div_scale32([n, d, n], NONE, IEEE);
            let r = f(F32::Rcp, [ds, 0, 0], NONE);
            let e = f(F32::Fma, [ds, r, one], neg0);
            let r = f(F32::Fma, [e, r, r], NONE);
            let m = f(F32::Mul, [ns, r, 0], NONE);
            let f2 = f(F32::Fma, [ds, m, ns], neg0);
            let f3 = f(F32::Fma, [f2, r, m], NONE);
            let f4 = f(F32::Fma, [ds, f3, ns], neg0);
            let s = |x: u32| u64::from(x);
            let (fm, _) = apply(Wide::DivFmas32, [s(f4), s(r), s(f3)], vcc, NONE, MODES);
            let (out, _) = apply(Wide::DivFixup32, [fm, s(d), s(n)], false, NONE, MODES);
            let out = f32::from_bits(out as u32);
            let want = f32::from_bits(n) / f32::from_bits(d);
            assert!(
                out.to_bits() == want.to_bits() || (out.is_nan() && want.is_nan()),
                "{n:#x} / {d:#x}: {out:e} ({:#x}), IEEE {want:e}",
                out.to_bits()
            );
        }
    }
}

#[test]
fn frexp_and_ldexp_are_exact() {
    for (x, m, e) in [
        (8.0, 0.5, 4),
        (-0.75, -0.75, 0),
        (f64::from_bits(1), 0.5, -1073),
        (f64::MAX, f64::from_bits(0x3fef_ffff_ffff_ffff), 1024),
    ] {
        assert_eq!(frexp(x), (m, e), "{x:e}");
        assert_eq!(ldexp(m, e), x, "{x:e}");
    }
    assert!(frexp(f64::NAN).0.is_nan());
    assert_eq!(frexp(f64::INFINITY), (f64::INFINITY, 0));
    assert_eq!(ldexp(1.0, 1024), f64::INFINITY);
    assert_eq!(ldexp(1.0, -1074), f64::from_bits(1));
    // 1.5 * 2^-1075 rounds up to the smallest denormal; 2^-1075 ties
    // to even (0).
    assert_eq!(ldexp(1.5, -1075), f64::from_bits(1));
    assert_eq!(ldexp(1.0, -1075), 0.0);
    let (mant, exp) = (FrexpMant32, FrexpExp32);
    let r = |op, b: u32| apply(op, [u64::from(b), 0, 0], false, NONE, MODES).0;
    assert_eq!(r(mant, 10f32.to_bits()), u64::from(0.625f32.to_bits()));
    assert_eq!(r(exp, 10f32.to_bits()), 4);
    assert_eq!(r(exp, 1), (-148i32) as u32 as u64);
    use Wide::*;
}

#[test]
fn conversions_compares_and_literals() {
    let r = |op, s: [u64; 3]| apply(op, s, false, NONE, MODES).0;
    assert_eq!(
        r(Wide::CvtF64I32, [(-3i32) as u32 as u64, 0, 0]),
        (-3f64).to_bits()
    );
    assert_eq!(
        r(Wide::CvtF64U32, [0xffff_ffff, 0, 0]),
        4294967295f64.to_bits()
    );
    assert_eq!(
        r(Wide::CvtI32F64, [(-2.7f64).to_bits(), 0, 0]),
        (-2i32) as u32 as u64
    );
    assert_eq!(r(Wide::CvtU32F64, [(-2.7f64).to_bits(), 0, 0]), 0);
    assert_eq!(
        r(Wide::CvtF32F64, [0.1f64.to_bits(), 0, 0]),
        u64::from(0.1f32.to_bits())
    );
    assert_eq!(
        r(Wide::CvtF64F32, [u64::from(0.1f32.to_bits()), 0, 0]),
        f64::from(0.1f32).to_bits()
    );
    assert_eq!(
        r(Wide::Floor, [(-0.5f64).to_bits(), 0, 0]),
        (-1f64).to_bits()
    );
    assert_eq!(
        r(Wide::Fract, [(-0.25f64).to_bits(), 0, 0]),
        0.75f64.to_bits()
    );
    let lt = float::FCmp::of("lt").unwrap();
    let nge = float::FCmp::of("nge").unwrap();
    assert!(cmp64(lt, 1f64.to_bits(), 2f64.to_bits(), NONE, IEEE));
    assert!(!cmp64(lt, f64::NAN.to_bits(), 2f64.to_bits(), NONE, IEEE));
    assert!(cmp64(nge, f64::NAN.to_bits(), 2f64.to_bits(), NONE, IEEE));
    // neg on source 1 makes 2 into -2.
    assert!(!cmp64(
        lt,
        1f64.to_bits(),
        2f64.to_bits(),
        FMods { neg: 2, ..NONE },
        IEEE
    ));
    assert!(class64(f64::NEG_INFINITY.to_bits(), 1 << 2, NONE));
    assert!(class64(1, 1 << 7, NONE));
    assert!(class64(0x8000_0000_0000_0000, 1 << 5, NONE));
}
