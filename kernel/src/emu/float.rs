//! The binary32 vector ALU the emulator computes (docs/kernels.md "The
//! emulator"): IEEE arithmetic rounded to nearest even, with the kernel's
//! denormal mode, the source modifiers `neg` and `abs`, and the output
//! modifiers `mul:2`, `mul:4`, `div:2` and `clamp`. Transcendentals
//! (`v_rcp_*`, `v_rsq`, `v_sqrt`, `v_exp`, `v_log`, `v_sin`, `v_cos`) are
//! computed correctly rounded, which the ISA does not promise bit for bit
//! (it allows 1 ULP): their results are marked approximate.

// Variants are named after the ISA mnemonics they stand for.
#![allow(missing_docs)]

/// A binary32 operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F32 {
    Add,
    Sub,
    SubRev,
    Mul,
    /// Fused `a * b + c` (`v_fma_f32`).
    Fma,
    /// Fused `a * b + d` into the destination (`v_fmac_f32`).
    Fmac,
    /// Unfused `a * b + c`, denormals flushed (`v_mad_f32`, gfx9).
    Mad,
    /// Unfused `a * b + d` into the destination (`v_mac_f32`, gfx9).
    Mac,
    /// `a * b + K` with a literal K (`v_fmaak_f32`, `v_madak_f32`).
    FmaAk(bool),
    /// `a * K + b` (`v_fmamk_f32`, `v_madmk_f32`).
    FmaMk(bool),
    Min,
    Max,
    Min3,
    Max3,
    Med3,
    /// gfx11 `v_maxmin_f32`: `min(max(a, b), c)`.
    MaxMin,
    /// gfx11 `v_minmax_f32`: `max(min(a, b), c)`.
    MinMax,
    /// `a * 2^b` with an integer `b` (`v_ldexp_f32`).
    Ldexp,
    CvtF32U32,
    CvtF32I32,
    CvtU32F32,
    CvtI32F32,
    /// `v_cvt_f32_ubyteN`.
    CvtF32Ubyte(u8),
    /// `v_cvt_flr_i32_f32` / `v_cvt_floor_i32_f32`.
    CvtFloorI32,
    /// `v_cvt_rpi_i32_f32` / `v_cvt_nearest_i32_f32`: floor(x + 0.5).
    CvtRpiI32,
    Trunc,
    Floor,
    Ceil,
    Rndne,
    Fract,
    Rcp,
    RcpIflag,
    Rsq,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
}

impl F32 {
    /// The operation of a `v_*` mnemonic's name without `v_` and the
    /// encoding suffix, if the emulator computes it.
    pub fn of(name: &str) -> Option<F32> {
        use F32::*;
        Some(match name {
            "add_f32" => Add,
            "sub_f32" => Sub,
            "subrev_f32" => SubRev,
            "mul_f32" => Mul,
            "fma_f32" => Fma,
            "fmac_f32" => Fmac,
            "mad_f32" => Mad,
            "mac_f32" => Mac,
            "fmaak_f32" => FmaAk(true),
            "madak_f32" => FmaAk(false),
            "fmamk_f32" => FmaMk(true),
            "madmk_f32" => FmaMk(false),
            "min_f32" => Min,
            "max_f32" => Max,
            "min3_f32" => Min3,
            "max3_f32" => Max3,
            "med3_f32" => Med3,
            "maxmin_f32" => MaxMin,
            "minmax_f32" => MinMax,
            "ldexp_f32" => Ldexp,
            "cvt_f32_u32" => CvtF32U32,
            "cvt_f32_i32" => CvtF32I32,
            "cvt_u32_f32" => CvtU32F32,
            "cvt_i32_f32" => CvtI32F32,
            "cvt_f32_ubyte0" => CvtF32Ubyte(0),
            "cvt_f32_ubyte1" => CvtF32Ubyte(1),
            "cvt_f32_ubyte2" => CvtF32Ubyte(2),
            "cvt_f32_ubyte3" => CvtF32Ubyte(3),
            "cvt_flr_i32_f32" | "cvt_floor_i32_f32" => CvtFloorI32,
            "cvt_rpi_i32_f32" | "cvt_nearest_i32_f32" => CvtRpiI32,
            "trunc_f32" => Trunc,
            "floor_f32" => Floor,
            "ceil_f32" => Ceil,
            "rndne_f32" => Rndne,
            "fract_f32" => Fract,
            "rcp_f32" => Rcp,
            "rcp_iflag_f32" => RcpIflag,
            "rsq_f32" => Rsq,
            "sqrt_f32" => Sqrt,
            "exp_f32" => Exp,
            "log_f32" => Log,
            "sin_f32" => Sin,
            "cos_f32" => Cos,
            _ => return None,
        })
    }

    /// Register and constant sources after the destination.
    pub fn arity(self) -> usize {
        use F32::*;
        match self {
            Fma | Mad | Min3 | Max3 | Med3 | MaxMin | MinMax | FmaAk(_) | FmaMk(_) => 3,
            Add | Sub | SubRev | Mul | Min | Max | Ldexp | Fmac | Mac => 2,
            _ => 1,
        }
    }

    /// Whether the destination is also a source (`v_fmac`, `v_mac`).
    pub fn accumulates(self) -> bool {
        matches!(self, F32::Fmac | F32::Mac)
    }

    /// Whether the ISA leaves the result's last bit open (1 ULP), so that
    /// the emulator's correctly rounded value may not be the hardware's.
    /// Not `v_rcp_iflag_f32`: LLVM emits it only inside its 32-bit integer
    /// division and remainder expansions, whose correction steps give the
    /// exact quotient for any reciprocal within that error (checked by
    /// `integer_division_expansion_is_exact`).
    pub fn approximate(self) -> bool {
        use F32::*;
        matches!(self, Rcp | Rsq | Sqrt | Exp | Log | Sin | Cos)
    }

    /// Whether a source is an integer (not a float, no float modifiers or
    /// denormal flushing apply to it).
    fn int_source(self, i: usize) -> bool {
        use F32::*;
        matches!(
            (self, i),
            (CvtF32U32 | CvtF32I32 | CvtF32Ubyte(_), 0) | (Ldexp, 1)
        )
    }

    /// Whether the result is an integer.
    fn int_result(self) -> bool {
        use F32::*;
        matches!(self, CvtU32F32 | CvtI32F32 | CvtFloorI32 | CvtRpiI32)
    }

    /// Legacy multiply-adds, which flush denormals whatever the mode.
    fn flushes(self) -> bool {
        matches!(
            self,
            F32::Mad | F32::Mac | F32::FmaAk(false) | F32::FmaMk(false)
        )
    }
}

/// What applies to every operation of an instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FMods {
    /// `neg` per source (bit i = source i).
    pub neg: u8,
    /// `abs` per source.
    pub abs: u8,
    /// `clamp`: the result clamped to [0, 1].
    pub clamp: bool,
    /// The output modifier's factor exponent: 1 (`mul:2`), 2 (`mul:4`),
    /// -1 (`div:2`), 0 (none).
    pub omod: i8,
}

/// The kernel's binary32 denormal handling
/// (`.amdhsa_float_denorm_mode_32`: 0 flush inputs and outputs, 1 flush
/// outputs, 2 flush inputs, 3 keep both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Denorm {
    /// Denormal inputs read as zero.
    pub flush_in: bool,
    /// Denormal results written as zero.
    pub flush_out: bool,
}

impl Denorm {
    /// From the descriptor's mode field.
    pub fn of_mode(mode: u32) -> Denorm {
        Denorm {
            flush_in: mode & 2 == 0,
            flush_out: mode & 1 == 0,
        }
    }
}

/// Source `i`'s value: its bits with the instruction's `abs` and `neg`
/// applied, a denormal read as zero when `flush_in`.
pub(super) fn source(bits: u32, i: usize, m: FMods, flush_in: bool) -> f32 {
    let mut b = bits;
    if m.abs >> i & 1 != 0 {
        b &= 0x7fff_ffff;
    }
    if m.neg >> i & 1 != 0 {
        b ^= 0x8000_0000;
    }
    let x = f32::from_bits(b);
    if flush_in {
        flush(x)
    } else {
        x
    }
}

pub(super) fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Bits of the result of `op` on source bits `s` (and the destination's
/// old bits `d` for the accumulating forms), operands in the order the
/// assembly writes them (`v_fmamk_f32 d, a, K, b` and `v_fmaak_f32 d, a,
/// b, K` both compute `s0 * s1 + s2`).
pub fn apply(op: F32, s: [u32; 3], d: u32, m: FMods, mode: Denorm) -> u32 {
    use F32::*;
    if op.int_result() {
        return to_int(op, s[0], m, mode);
    }
    let flush_in = mode.flush_in || op.flushes();
    let src = |i: usize| source(s[i], i, m, flush_in);
    let (a, b, c) = (
        if op.int_source(0) { 0.0 } else { src(0) },
        if op.int_source(1) { 0.0 } else { src(1) },
        src(2),
    );
    // The destination as a source has no modifiers.
    let acc = || source(d, 0, FMods::default(), flush_in);
    let r: f32 = match op {
        Add => a + b,
        Sub => a - b,
        SubRev => b - a,
        Mul => a * b,
        Fma => a.mul_add(b, c),
        Fmac => a.mul_add(b, acc()),
        Mad => flush(a * b) + c,
        Mac => flush(a * b) + acc(),
        FmaAk(true) | FmaMk(true) => a.mul_add(b, c),
        FmaAk(false) | FmaMk(false) => flush(a * b) + c,
        Min => a.min(b),
        Max => a.max(b),
        Min3 => a.min(b).min(c),
        Max3 => a.max(b).max(c),
        MaxMin => a.max(b).min(c),
        MinMax => a.min(b).max(c),
        Med3 => {
            if a.is_nan() || b.is_nan() || c.is_nan() {
                a.min(b).min(c)
            } else {
                a.max(b).min(a.min(b).max(c))
            }
        }
        Ldexp => {
            // In binary64, where a * 2^e is exact for every binary32 `a`
            // and |e| <= 400 (beyond, the result is 0 or infinite either
            // way), then rounded once to binary32.
            let e = (s[1] as i32).clamp(-400, 400);
            (f64::from(a) * 2f64.powi(e)) as f32
        }
        CvtF32U32 => s[0] as f32,
        CvtF32I32 => s[0] as i32 as f32,
        CvtF32Ubyte(n) => f32::from((s[0] >> (8 * n)) as u8),
        // Integer results: `to_int`, above.
        CvtU32F32 | CvtI32F32 | CvtFloorI32 | CvtRpiI32 => return to_int(op, s[0], m, mode),
        Trunc => a.trunc(),
        Floor => a.floor(),
        Ceil => a.ceil(),
        Rndne => a.round_ties_even(),
        Fract => {
            if a.is_infinite() {
                f32::NAN
            } else {
                (a - a.floor()).min(f32::from_bits(0x3f7f_ffff))
            }
        }
        Rcp | RcpIflag => 1.0 / a,
        Rsq => 1.0 / a.sqrt(),
        Sqrt => a.sqrt(),
        Exp => a.exp2(),
        Log => a.log2(),
        Sin => (a * std::f32::consts::TAU).sin(),
        Cos => (a * std::f32::consts::TAU).cos(),
    };
    // Exact in binary64, then rounded once (the multiplies are by powers
    // of two).
    let mut r = out_mods(f64::from(r), m) as f32;
    if mode.flush_out || op.flushes() {
        r = flush(r);
    }
    r.to_bits()
}

/// A binary32 compare (`v_cmp_*_f32`): the relation, and the value when
/// either side is NaN (the `n*`, `u` and `tru` forms are true on NaN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FCmp {
    /// Less, equal, greater: which orderings make it true.
    pub lt: bool,
    pub eq: bool,
    pub gt: bool,
    /// The result when the operands are unordered.
    pub unordered: bool,
}

impl FCmp {
    /// The compare of a `v_cmp_<name>_f32` name part.
    pub fn of(name: &str) -> Option<FCmp> {
        let (lt, eq, gt, unordered) = match name {
            "f" => (false, false, false, false),
            "lt" => (true, false, false, false),
            "eq" => (false, true, false, false),
            "le" => (true, true, false, false),
            "gt" => (false, false, true, false),
            "lg" => (true, false, true, false),
            "ge" => (false, true, true, false),
            "o" => (true, true, true, false),
            "u" => (false, false, false, true),
            "nge" => (true, false, false, true),
            "nlg" => (false, true, false, true),
            "ngt" => (true, true, false, true),
            "nle" => (false, false, true, true),
            "neq" => (true, false, true, true),
            "nlt" => (false, true, true, true),
            "tru" | "t" => (true, true, true, true),
            _ => return None,
        };
        Some(FCmp {
            lt,
            eq,
            gt,
            unordered,
        })
    }

    /// `a OP b` on source bits, with the instruction's modifiers and mode.
    pub fn test(self, a: u32, b: u32, m: FMods, mode: Denorm) -> bool {
        let (a, b) = (
            source(a, 0, m, mode.flush_in),
            source(b, 1, m, mode.flush_in),
        );
        self.holds(f64::from(a), f64::from(b))
    }

    /// `a OP b` on values.
    pub fn holds(self, a: f64, b: f64) -> bool {
        match a.partial_cmp(&b) {
            None => self.unordered,
            Some(std::cmp::Ordering::Less) => self.lt,
            Some(std::cmp::Ordering::Equal) => self.eq,
            Some(std::cmp::Ordering::Greater) => self.gt,
        }
    }
}

/// `v_cmp_class_f32`: whether the class of source 0 (its bits with `abs`
/// and `neg` applied; **Decided**: read from the bits, so a denormal is
/// one whatever the denormal mode) is among those
/// the integer `mask` (source 1) sets: bit 0 signalling NaN, 1 quiet NaN,
/// 2 −∞, 3 negative normal, 4 negative denormal, 5 −0, 6 +0, 7 positive
/// denormal, 8 positive normal, 9 +∞.
pub fn class_test(bits: u32, mask: u32, m: FMods) -> bool {
    class_in(u64::from(bits), 32, 8, mask, m)
}

/// `v_cmp_class_*` on the `width`-bit value `bits` with `exp_bits`
/// exponent bits: whether its class (after `abs` and `neg` of source 0) is
/// one the mask sets (see [`class_test`]).
pub fn class_in(bits: u64, width: u32, exp_bits: u32, mask: u32, m: FMods) -> bool {
    let sign = 1u64 << (width - 1);
    let mut b = bits;
    if m.abs & 1 != 0 {
        b &= !sign;
    }
    if m.neg & 1 != 0 {
        b ^= sign;
    }
    let frac_bits = width - 1 - exp_bits;
    let emax = (1u64 << exp_bits) - 1;
    let (neg, exp, frac) = (
        b & sign != 0,
        b >> frac_bits & emax,
        b & ((1u64 << frac_bits) - 1),
    );
    let class = match (exp, frac) {
        (e, 0) if e == emax => [9, 2][usize::from(neg)],
        (e, f) if e == emax => u32::from(f >> (frac_bits - 1) != 0),
        (0, 0) => [6, 5][usize::from(neg)],
        (0, _) => [7, 4][usize::from(neg)],
        _ => [8, 3][usize::from(neg)],
    };
    mask >> class & 1 != 0
}

/// The output modifiers (`mul:2`, `mul:4`, `div:2`, then `clamp` to
/// [0, 1], NaN to 0) on an exact value, before its rounding.
pub fn out_mods(v: f64, m: FMods) -> f64 {
    let v = match m.omod {
        1 => v * 2.0,
        2 => v * 4.0,
        -1 => v * 0.5,
        _ => v,
    };
    if !m.clamp {
        v
    } else if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// A conversion to an integer of source bits `b`.
fn to_int(op: F32, b: u32, m: FMods, mode: Denorm) -> u32 {
    let x = source(b, 0, m, mode.flush_in);
    // Rust's float-to-integer casts truncate, saturate and give 0 for NaN,
    // as the ISA's conversions do.
    match op {
        F32::CvtU32F32 => x as u32,
        F32::CvtI32F32 => x as i32 as u32,
        F32::CvtFloorI32 => x.floor() as i32 as u32,
        _ => (x + 0.5).floor() as i32 as u32,
    }
}
