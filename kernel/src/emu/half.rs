//! The binary16 vector ALU (docs/kernels.md "The emulator"): IEEE
//! arithmetic rounded once to nearest even (sums, products and fused
//! multiply-adds are exact before that rounding), the binary16 denormal
//! mode (`.amdhsa_float_denorm_mode_16_64`), `neg`/`abs`, `clamp` and the
//! output modifiers. Transcendentals are computed correctly rounded and
//! marked approximate, as the binary32 ones are.

// Variants are named after the ISA mnemonics they stand for.
#![allow(missing_docs)]

use super::float::{Denorm, FCmp, FMods};

/// A binary16 operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F16 {
    Add,
    Sub,
    SubRev,
    Mul,
    /// Fused `a * b + c`.
    Fma,
    /// Fused `a * b + d` into the destination (`v_fmac_f16`).
    Fmac,
    /// Unfused `a * b + c` (`v_mad_f16`): the product rounded first.
    Mad,
    /// Unfused `a * b + d` (`v_mac_f16`).
    Mac,
    Min,
    Max,
    Min3,
    Max3,
    Med3,
    /// `a * 2^b`, `b` a 16-bit integer.
    Ldexp,
    /// binary32 to binary16.
    CvtF16F32,
    /// binary16 to binary32 (exact).
    CvtF32F16,
    CvtF16U16,
    CvtF16I16,
    CvtU16F16,
    CvtI16F16,
    Trunc,
    Floor,
    Ceil,
    Rndne,
    Fract,
    Rcp,
    Rsq,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
}

impl F16 {
    /// The operation of a `v_*` name without `v_` and the encoding suffix.
    pub fn of(name: &str) -> Option<F16> {
        use F16::*;
        Some(match name {
            "add_f16" => Add,
            "sub_f16" => Sub,
            "subrev_f16" => SubRev,
            "mul_f16" => Mul,
            "fma_f16" => Fma,
            "fmac_f16" => Fmac,
            "mad_f16" | "mad_legacy_f16" => Mad,
            "mac_f16" => Mac,
            "min_f16" => Min,
            "max_f16" => Max,
            "min3_f16" => Min3,
            "max3_f16" => Max3,
            "med3_f16" => Med3,
            "ldexp_f16" => Ldexp,
            "cvt_f16_f32" => CvtF16F32,
            "cvt_f32_f16" => CvtF32F16,
            "cvt_f16_u16" => CvtF16U16,
            "cvt_f16_i16" => CvtF16I16,
            "cvt_u16_f16" => CvtU16F16,
            "cvt_i16_f16" => CvtI16F16,
            "trunc_f16" => Trunc,
            "floor_f16" => Floor,
            "ceil_f16" => Ceil,
            "rndne_f16" => Rndne,
            "fract_f16" => Fract,
            "rcp_f16" => Rcp,
            "rsq_f16" => Rsq,
            "sqrt_f16" => Sqrt,
            "exp_f16" => Exp,
            "log_f16" => Log,
            "sin_f16" => Sin,
            "cos_f16" => Cos,
            _ => return None,
        })
    }

    /// Register and constant sources after the destination.
    pub fn arity(self) -> usize {
        use F16::*;
        match self {
            Fma | Mad | Min3 | Max3 | Med3 => 3,
            Add | Sub | SubRev | Mul | Min | Max | Ldexp | Fmac | Mac => 2,
            _ => 1,
        }
    }

    /// Whether the destination is also a source.
    pub fn accumulates(self) -> bool {
        matches!(self, F16::Fmac | F16::Mac)
    }

    /// Whether the ISA leaves the result's last bit open.
    pub fn approximate(self) -> bool {
        use F16::*;
        matches!(self, Rcp | Rsq | Sqrt | Exp | Log | Sin | Cos)
    }

    /// Whether the result is a full 32-bit value (`v_cvt_f32_f16`).
    pub fn result32(self) -> bool {
        self == F16::CvtF32F16
    }

    /// Whether source 0 is a 32-bit value (`v_cvt_f16_f32`).
    pub fn source32(self) -> bool {
        self == F16::CvtF16F32
    }
}

/// The value of binary16 bits (exact).
pub fn to_f64(h: u16) -> f64 {
    let sign = if h >> 15 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from(h >> 10 & 0x1f), f64::from(h & 0x3ff));
    sign * match e {
        0 => m * 2f64.powi(-24),
        0x1f if m == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        _ => (1024.0 + m) * 2f64.powi(e - 25),
    }
}

/// `mag * 2^exp` (with `neg` its sign) rounded to nearest even binary16
/// bits.
fn round(neg: bool, mag: u128, exp: i32) -> u16 {
    let sign = u16::from(neg) << 15;
    if mag == 0 {
        return sign;
    }
    let top = 127 - mag.leading_zeros() as i32; // value in [2^(top+exp), 2^(top+exp+1))
    let e = top + exp;
    // The exponent of the result's last bit: 10 below the leading one, but
    // not below the denormals' 2^-24.
    let q = (e - 10).max(-24);
    let shift = q - exp;
    let mut m = if shift <= 0 {
        mag << (-shift) as u32
    } else if shift >= 128 {
        0
    } else {
        let kept = mag >> shift as u32;
        let rest = mag & ((1u128 << shift as u32) - 1);
        let half = 1u128 << (shift as u32 - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    let mut q = q;
    if m >= 1 << 11 {
        m >>= 1;
        q += 1;
    }
    if m < 1 << 10 {
        // A denormal (q is -24) or zero.
        return sign | m as u16;
    }
    let biased = q + 10 + 15;
    if biased >= 0x1f {
        return sign | 0x7c00;
    }
    sign | (biased as u16) << 10 | (m as u16 & 0x3ff)
}

/// `x` rounded to nearest even binary16 bits (NaN stays a quiet NaN).
pub fn from_f64(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00 | u16::from(x.is_sign_negative()) << 15;
    }
    if x.is_infinite() {
        return 0x7c00 | u16::from(x.is_sign_negative()) << 15;
    }
    let b = x.to_bits();
    let (e, m) = ((b >> 52 & 0x7ff) as i32, b & ((1 << 52) - 1));
    let (mag, exp) = if e == 0 {
        (u128::from(m), -1074)
    } else {
        (u128::from(m | 1 << 52), e - 1075)
    };
    round(x.is_sign_negative(), mag, exp)
}

/// An exact value as a signed multiple of 2^-48 (every product of two
/// binary16 values is one, and every binary16 value).
#[doc(hidden)]
pub fn units(x: f64) -> i128 {
    (x * 2f64.powi(48)) as i128
}

#[doc(hidden)]
pub fn from_units(v: i128) -> u16 {
    round(v < 0, v.unsigned_abs(), -48)
}

fn flush(h: u16) -> u16 {
    if h & 0x7c00 == 0 {
        h & 0x8000
    } else {
        h
    }
}

/// A source's bits with `abs` and `neg` (bit 15) and input flushing.
fn source(bits: u16, i: usize, m: FMods, d: Denorm) -> u16 {
    let mut b = bits;
    if m.abs >> i & 1 != 0 {
        b &= 0x7fff;
    }
    if m.neg >> i & 1 != 0 {
        b ^= 0x8000;
    }
    if d.flush_in {
        flush(b)
    } else {
        b
    }
}

/// The result bits of `op` (16 bits, or 32 for `v_cvt_f32_f16`) on the
/// sources' bits (16 each, 32 for `v_cvt_f16_f32`'s), `acc` the
/// destination's half for the accumulating forms.
pub fn apply(op: F16, s: [u32; 3], acc: u16, m: FMods, d: Denorm, d32: Denorm) -> u32 {
    use F16::*;
    let h = |i: usize| source(s[i] as u16, i, m, d);
    let x = |i: usize| to_f64(h(i));
    let exact = |v: f64| from_f64(v);
    let int16 = |v: f64| -> u32 {
        // Truncating, saturating, NaN to 0, as the 32-bit conversions.
        if op == CvtU16F16 {
            u32::from(v as u16)
        } else {
            u32::from(v as i16 as u16)
        }
    };
    let r: u16 = match op {
        Add => exact(x(0) + x(1)),
        Sub => exact(x(0) - x(1)),
        SubRev => exact(x(1) - x(0)),
        Mul => exact(x(0) * x(1)),
        Fma | Fmac => {
            let c = if op == Fma {
                x(2)
            } else {
                to_f64(source(acc, 2, FMods::default(), d))
            };
            let (a, b) = (x(0), x(1));
            if !(a.is_finite() && b.is_finite() && c.is_finite()) {
                exact(a.mul_add(b, c))
            } else {
                // Exact in units of 2^-48, rounded once.
                let p = units(a * 2f64.powi(-24)) * units(b * 2f64.powi(-24));
                from_units(p + units(c))
            }
        }
        Mad | Mac => {
            let c = if op == Mad {
                x(2)
            } else {
                to_f64(source(acc, 2, FMods::default(), d))
            };
            let p = exact(x(0) * x(1));
            let p = if d.flush_out { flush(p) } else { p };
            exact(to_f64(p) + c)
        }
        Min => exact(x(0).min(x(1))),
        Max => exact(x(0).max(x(1))),
        Min3 => exact(x(0).min(x(1)).min(x(2))),
        Max3 => exact(x(0).max(x(1)).max(x(2))),
        Med3 => {
            let (a, b, c) = (x(0), x(1), x(2));
            if a.is_nan() || b.is_nan() || c.is_nan() {
                exact(a.min(b).min(c))
            } else {
                exact(a.max(b).min(a.min(b).max(c)))
            }
        }
        Ldexp => {
            let e = i32::from(s[1] as u16 as i16);
            exact(x(0) * 2f64.powi(e.clamp(-80, 80)))
        }
        CvtF16F32 => {
            let mut b = s[0];
            if m.abs & 1 != 0 {
                b &= 0x7fff_ffff;
            }
            if m.neg & 1 != 0 {
                b ^= 0x8000_0000;
            }
            let f = f32::from_bits(b);
            let f = if d32.flush_in && f.is_subnormal() {
                0.0f32.copysign(f)
            } else {
                f
            };
            exact(f64::from(f))
        }
        CvtF32F16 => {
            let f = x(0) as f32;
            let f = super::float::out_mods(f64::from(f), m) as f32;
            let f = if d32.flush_out && f.is_subnormal() {
                0.0f32.copysign(f)
            } else {
                f
            };
            return f.to_bits();
        }
        CvtF16U16 => exact(f64::from(s[0] as u16)),
        CvtF16I16 => exact(f64::from(s[0] as u16 as i16)),
        CvtU16F16 | CvtI16F16 => return int16(x(0)),
        Trunc => exact(x(0).trunc()),
        Floor => exact(x(0).floor()),
        Ceil => exact(x(0).ceil()),
        Rndne => exact(x(0).round_ties_even()),
        Fract => {
            let a = x(0);
            if a.is_infinite() {
                0x7e00
            } else {
                exact(a - a.floor()).min(0x3bff)
            }
        }
        Rcp => exact(1.0 / x(0)),
        Rsq => exact(1.0 / x(0).sqrt()),
        Sqrt => exact(x(0).sqrt()),
        Exp => exact(x(0).exp2()),
        Log => exact(x(0).log2()),
        Sin => exact((x(0) * std::f64::consts::TAU).sin()),
        Cos => exact((x(0) * std::f64::consts::TAU).cos()),
    };
    let mut r = if m.omod != 0 || m.clamp {
        exact(super::float::out_mods(to_f64(r), m))
    } else {
        r
    };
    if d.flush_out {
        r = flush(r);
    }
    u32::from(r)
}

/// A binary16 compare on source bits.
pub fn cmp(c: FCmp, a: u16, b: u16, m: FMods, d: Denorm) -> bool {
    c.holds(to_f64(source(a, 0, m, d)), to_f64(source(b, 1, m, d)))
}

/// `v_cmp_class_f16`.
pub fn class(bits: u16, mask: u32, m: FMods) -> bool {
    super::float::class_in(u64::from(bits), 16, 5, mask, m)
}
