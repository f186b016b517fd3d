//! The binary64 vector ALU, the conversions between binary32 and binary64,
//! `frexp`, and the division helpers (`v_div_scale`, `v_div_fmas`,
//! `v_div_fixup`) of both widths (docs/kernels.md "The emulator"). IEEE
//! arithmetic rounded to nearest even, with the kernel's denormal modes and
//! the source modifiers `neg` and `abs`; `v_rcp_f64`, `v_rsq_f64` and
//! `v_sqrt_f64` are computed correctly rounded and marked approximate, as
//! the binary32 transcendentals are.

// Variants are named after the ISA mnemonics they stand for.
#![allow(missing_docs)]

use super::float::{Denorm, FMods};

/// An operation on binary64 values, or one that mixes widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wide {
    Add,
    Mul,
    Fma,
    Min,
    Max,
    /// `a * 2^b` with an integer `b` (`v_ldexp_f64`).
    Ldexp,
    Rcp,
    Rsq,
    Sqrt,
    Trunc,
    Floor,
    Ceil,
    Rndne,
    Fract,
    /// `v_frexp_mant_f64`.
    FrexpMant,
    /// `v_frexp_exp_i32_f64` (an integer result).
    FrexpExp,
    /// `v_div_fmas_f64` (reads VCC).
    DivFmas,
    /// `v_div_fixup_f64`.
    DivFixup,
    CvtF64F32,
    CvtF64I32,
    CvtF64U32,
    CvtF32F64,
    CvtI32F64,
    CvtU32F64,
    /// binary32 ones that belong with these: `v_frexp_mant_f32`,
    /// `v_frexp_exp_i32_f32`, `v_div_fmas_f32`, `v_div_fixup_f32`.
    FrexpMant32,
    FrexpExp32,
    DivFmas32,
    DivFixup32,
}

impl Wide {
    /// The operation of a `v_*` name without `v_` and the encoding suffix.
    pub fn of(name: &str) -> Option<Wide> {
        use Wide::*;
        Some(match name {
            "add_f64" => Add,
            "mul_f64" => Mul,
            "fma_f64" => Fma,
            "min_f64" => Min,
            "max_f64" => Max,
            "ldexp_f64" => Ldexp,
            "rcp_f64" => Rcp,
            "rsq_f64" => Rsq,
            "sqrt_f64" => Sqrt,
            "trunc_f64" => Trunc,
            "floor_f64" => Floor,
            "ceil_f64" => Ceil,
            "rndne_f64" => Rndne,
            "fract_f64" => Fract,
            "frexp_mant_f64" => FrexpMant,
            "frexp_exp_i32_f64" => FrexpExp,
            "div_fmas_f64" => DivFmas,
            "div_fixup_f64" => DivFixup,
            "cvt_f64_f32" => CvtF64F32,
            "cvt_f64_i32" => CvtF64I32,
            "cvt_f64_u32" => CvtF64U32,
            "cvt_f32_f64" => CvtF32F64,
            "cvt_i32_f64" => CvtI32F64,
            "cvt_u32_f64" => CvtU32F64,
            "frexp_mant_f32" => FrexpMant32,
            "frexp_exp_i32_f32" => FrexpExp32,
            "div_fmas_f32" => DivFmas32,
            "div_fixup_f32" => DivFixup32,
            _ => return None,
        })
    }

    /// Register and constant sources after the destination.
    pub fn arity(self) -> usize {
        use Wide::*;
        match self {
            Fma | DivFmas | DivFixup | DivFmas32 | DivFixup32 => 3,
            Add | Mul | Min | Max | Ldexp => 2,
            _ => 1,
        }
    }

    /// Whether source `i` is 64 bits wide.
    pub fn src_wide(self, i: usize) -> bool {
        use Wide::*;
        match self {
            CvtF64F32 | CvtF64I32 | CvtF64U32 | FrexpMant32 | FrexpExp32 | DivFmas32
            | DivFixup32 => false,
            Ldexp => i == 0,
            _ => true,
        }
    }

    /// Whether the result is 64 bits wide.
    pub fn dst_wide(self) -> bool {
        use Wide::*;
        !matches!(
            self,
            FrexpExp
                | CvtF32F64
                | CvtI32F64
                | CvtU32F64
                | FrexpMant32
                | FrexpExp32
                | DivFmas32
                | DivFixup32
        )
    }

    /// Whether source `i` is an integer (no float modifiers apply).
    fn int_source(self, i: usize) -> bool {
        use Wide::*;
        matches!((self, i), (CvtF64I32 | CvtF64U32, 0) | (Ldexp, 1))
    }

    /// Whether the ISA leaves the last bit of the result open.
    pub fn approximate(self) -> bool {
        matches!(self, Wide::Rcp | Wide::Rsq | Wide::Sqrt)
    }

    /// Whether the operation reads VCC (`v_div_fmas_*`).
    pub fn reads_vcc(self) -> bool {
        matches!(self, Wide::DivFmas | Wide::DivFmas32)
    }

    /// Whether the binary32 denormal mode applies rather than the binary64
    /// one (the operation's floats are binary32).
    pub fn binary32(self) -> bool {
        matches!(
            self,
            Wide::FrexpMant32 | Wide::FrexpExp32 | Wide::DivFmas32 | Wide::DivFixup32
        )
    }
}

/// The denormal modes of both widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    /// binary32 (`.amdhsa_float_denorm_mode_32`).
    pub f32: Denorm,
    /// binary64 and binary16 (`.amdhsa_float_denorm_mode_16_64`).
    pub f64: Denorm,
}

fn flush64(x: f64) -> f64 {
    if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// A binary64 source's value with modifiers and input flushing.
fn src64(bits: u64, i: usize, m: FMods, d: Denorm) -> f64 {
    let mut b = bits;
    if m.abs >> i & 1 != 0 {
        b &= !(1 << 63);
    }
    if m.neg >> i & 1 != 0 {
        b ^= 1 << 63;
    }
    let x = f64::from_bits(b);
    if d.flush_in {
        flush64(x)
    } else {
        x
    }
}

/// A binary32 source's value with modifiers and input flushing.
fn src32(bits: u32, i: usize, m: FMods, d: Denorm) -> f32 {
    super::float::source(bits, i, m, d.flush_in)
}

/// `frexp`: the mantissa in [0.5, 1) (sign kept) and the exponent; NaN and
/// infinity give themselves and 0, zero gives itself and 0.
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (x, bias) = if x.is_subnormal() {
        (x * 2f64.powi(64), -64)
    } else {
        (x, 0)
    };
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1022;
    let m = f64::from_bits((x.to_bits() & !(0x7ff << 52)) | (1022 << 52));
    (m, e + bias)
}

fn frexp32(x: f32) -> (f32, i32) {
    let (m, e) = frexp(f64::from(x));
    (m as f32, e)
}

/// `x * 2^e` rounded once to binary64.
pub fn ldexp(x: f64, e: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // x = m * 2^k with m in [1, 2): m * 2^t is exact while 2^t is normal,
    // and rounds once (at the final multiply) below.
    let (m, k) = frexp(x);
    let (m, t) = (m * 2.0, k.saturating_add(e).saturating_sub(1));
    if t > 1023 {
        f64::INFINITY.copysign(x)
    } else if t >= -1022 {
        m * 2f64.powi(t)
    } else if t < -1086 {
        0.0f64.copysign(x)
    } else {
        m * 2f64.powi(t + 64) * 2f64.powi(-64)
    }
}

/// The binary32 exponent field of `x` (as `exponent()` in the ISA's
/// pseudocode: the biased exponent).
fn exp32(x: f32) -> i32 {
    (x.to_bits() >> 23 & 0xff) as i32
}

fn exp64(x: f64) -> i32 {
    (x.to_bits() >> 52 & 0x7ff) as i32
}

/// `v_div_scale_f32 D, VCC, S0, S1, S2` (S1 the denominator, S2 the
/// numerator, S0 the one of them this result scales): the result's bits
/// and the VCC bit, as the ISA's pseudocode gives them.
pub fn div_scale32(s: [u32; 3], m: FMods, d: Denorm) -> (u32, bool) {
    let (s0, s1, s2) = (
        src32(s[0], 0, m, d),
        src32(s[1], 1, m, d),
        src32(s[2], 2, m, d),
    );
    let sc = |x: f32, e: i32| (f64::from(x) * 2f64.powi(e)) as f32;
    let (mut r, mut vcc) = (s0, false);
    let quotient = f64::from(s2) / f64::from(s1);
    let rcp_denormal = (1.0 / f64::from(s1)).abs() < f64::from(f32::MIN_POSITIVE);
    let q = quotient as f32;
    let q_denormal = q.is_subnormal() || (quotient != 0.0 && q == 0.0);
    if s2 == 0.0 || s1 == 0.0 {
        r = f32::NAN;
    } else if exp32(s2) - exp32(s1) >= 96 {
        vcc = true;
        if s0 == s1 {
            r = sc(s0, 64);
        }
    } else if s1.is_subnormal() {
        r = sc(s0, 64);
    } else if rcp_denormal && q_denormal {
        vcc = true;
        if s0 == s2 {
            r = sc(s0, 64);
        }
    } else if rcp_denormal {
        r = sc(s0, -64);
    } else if q_denormal {
        vcc = true;
        if s0 == s2 {
            r = sc(s0, 64);
        }
    } else if exp32(s2) <= 23 {
        r = sc(s0, 64);
    }
    (r.to_bits(), vcc)
}

/// `v_div_scale_f64`, as [`div_scale32`] with binary64's thresholds.
pub fn div_scale64(s: [u64; 3], m: FMods, d: Denorm) -> (u64, bool) {
    let (s0, s1, s2) = (
        src64(s[0], 0, m, d),
        src64(s[1], 1, m, d),
        src64(s[2], 2, m, d),
    );
    let (mut r, mut vcc) = (s0, false);
    let quotient = s2 / s1;
    let rcp_denormal = (1.0 / s1).abs() < f64::MIN_POSITIVE;
    let q_denormal =
        quotient.is_subnormal() || (quotient != 0.0 && quotient.abs() < f64::MIN_POSITIVE);
    if s2 == 0.0 || s1 == 0.0 {
        r = f64::NAN;
    } else if exp64(s2) - exp64(s1) >= 768 {
        vcc = true;
        if s0 == s1 {
            r = ldexp(s0, 128);
        }
    } else if s1.is_subnormal() {
        r = ldexp(s0, 128);
    } else if rcp_denormal && q_denormal {
        vcc = true;
        if s0 == s2 {
            r = ldexp(s0, 128);
        }
    } else if rcp_denormal {
        r = ldexp(s0, -128);
    } else if q_denormal {
        vcc = true;
        if s0 == s2 {
            r = ldexp(s0, 128);
        }
    } else if exp64(s2) <= 53 {
        r = ldexp(s0, 128);
    }
    (r.to_bits(), vcc)
}

/// The special cases of `v_div_fixup`: the quotient `q` of `n / d`, or
/// what IEEE division gives where an operand is NaN, zero or infinite, or
/// where the exponents (`en`, `ed`: biased fields) differ by more than
/// `under` (the quotient is below half the smallest denormal: zero).
fn fixup(q: f64, d: f64, n: f64, en: i32, ed: i32, under: i32) -> f64 {
    let neg = d.is_sign_negative() != n.is_sign_negative();
    let signed = |x: f64| if neg { -x } else { x };
    if n.is_nan() || d.is_nan() || (d == 0.0 && n == 0.0) || (d.is_infinite() && n.is_infinite()) {
        f64::NAN
    } else if d == 0.0 || n.is_infinite() {
        signed(f64::INFINITY)
    } else if d.is_infinite() || n == 0.0 || en - ed < under {
        signed(0.0)
    } else if q.is_nan() {
        // The expansion's steps overflowed (infinity times zero): the
        // quotient is past the largest finite value.
        signed(f64::INFINITY)
    } else {
        signed(q.abs())
    }
}

/// Bits of the result of `op` on source bits `s` (binary32 ones in the low
/// half), `vcc` the lane's VCC bit for `v_div_fmas`. The second value is
/// whether `v_div_fmas` scaled the result (a rare case whose rounding the
/// emulator may not match: the caller marks it approximate).
pub fn apply(op: Wide, s: [u64; 3], vcc: bool, m: FMods, modes: Modes) -> (u64, bool) {
    use Wide::*;
    let d = if op.binary32() { modes.f32 } else { modes.f64 };
    let x = |i: usize| -> f64 {
        if op.int_source(i) {
            0.0
        } else if op.src_wide(i) {
            src64(s[i], i, m, d)
        } else {
            f64::from(src32(
                s[i] as u32,
                i,
                m,
                if op == CvtF64F32 { modes.f32 } else { d },
            ))
        }
    };
    let mut scaled = false;
    let r: f64 = match op {
        Add => x(0) + x(1),
        Mul => x(0) * x(1),
        Fma => x(0).mul_add(x(1), x(2)),
        Min => x(0).min(x(1)),
        Max => x(0).max(x(1)),
        Ldexp => ldexp(x(0), s[1] as u32 as i32),
        Rcp => 1.0 / x(0),
        Rsq => 1.0 / x(0).sqrt(),
        Sqrt => x(0).sqrt(),
        Trunc => x(0).trunc(),
        Floor => x(0).floor(),
        Ceil => x(0).ceil(),
        Rndne => x(0).round_ties_even(),
        Fract => {
            let a = x(0);
            if a.is_infinite() {
                f64::NAN
            } else {
                (a - a.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
            }
        }
        FrexpMant => frexp(x(0)).0,
        FrexpExp => return (frexp(x(0)).1 as u32 as u64, false),
        DivFmas => {
            let r = x(0).mul_add(x(1), x(2));
            if vcc {
                scaled = true;
                ldexp(r, if exp64(r) >= 1023 { 128 } else { -128 })
            } else {
                r
            }
        }
        DivFixup => fixup(x(0), x(1), x(2), exp64(x(2)), exp64(x(1)), -1075),
        CvtF64F32 => x(0),
        CvtF64I32 => f64::from(s[0] as u32 as i32),
        CvtF64U32 => f64::from(s[0] as u32),
        CvtF32F64 => return (u64::from(out32(x(0), m, modes.f32).to_bits()), false),
        CvtI32F64 => return (u64::from(x(0) as i32 as u32), false),
        CvtU32F64 => return (u64::from(x(0) as u32), false),
        FrexpMant32 => {
            let r = frexp32(x(0) as f32).0;
            return (u64::from(out32(f64::from(r), m, d).to_bits()), false);
        }
        FrexpExp32 => return (frexp32(x(0) as f32).1 as u32 as u64, false),
        DivFmas32 => {
            let (a, b, c) = (x(0) as f32, x(1) as f32, x(2) as f32);
            let r = if vcc {
                // Scaled before rounding: in binary64 (the product is
                // exact), then rounded to binary32.
                scaled = true;
                let r = x(0).mul_add(x(1), x(2));
                r * 2f64.powi(if exp32(r as f32) >= 127 { 64 } else { -64 })
            } else {
                f64::from(a.mul_add(b, c))
            };
            return (u64::from(out32(r, m, d).to_bits()), scaled);
        }
        DivFixup32 => {
            let (dn, nn) = (x(1) as f32, x(2) as f32);
            let r = fixup(x(0), x(1), x(2), exp32(nn), exp32(dn), -150);
            return (u64::from(out32(r, m, d).to_bits()), false);
        }
    };
    let mut r = super::float::out_mods(r, m);
    if d.flush_out {
        r = flush64(r);
    }
    (r.to_bits(), scaled)
}

/// A binary32 result: `v` with the output modifiers, rounded once, then
/// flushed as the mode says.
fn out32(v: f64, m: FMods, d: Denorm) -> f32 {
    let r = super::float::out_mods(v, m) as f32;
    if d.flush_out {
        super::float::flush(r)
    } else {
        r
    }
}

/// A binary64 compare (`v_cmp_*_f64`) on source bits.
pub fn cmp64(c: super::float::FCmp, a: u64, b: u64, m: FMods, d: Denorm) -> bool {
    c.holds(src64(a, 0, m, d), src64(b, 1, m, d))
}

/// `v_cmp_class_f64`: as `float::class_test`, on binary64 bits.
pub fn class64(bits: u64, mask: u32, m: FMods) -> bool {
    super::float::class_in(bits, 64, 11, mask, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::float::{self, F32};

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
}
