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
