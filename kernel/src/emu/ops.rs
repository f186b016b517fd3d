//! What each emulated mnemonic is: the subset of the gfx9 and gfx11 ISA the
//! emulator runs (docs/kernels.md "The emulator"), read once per
//! instruction.

// Variants are named after the ISA mnemonics they stand for.
#![allow(missing_docs)]

/// Comparison of `v_cmp_*`, `s_cmp_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// false
    F,
    /// <
    Lt,
    /// ==
    Eq,
    /// <=
    Le,
    /// >
    Gt,
    /// !=
    Ne,
    /// >=
    Ge,
    /// true
    T,
}

impl Cmp {
    fn of(s: &str) -> Option<Cmp> {
        Some(match s {
            "f" => Cmp::F,
            "lt" => Cmp::Lt,
            "eq" => Cmp::Eq,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ne" | "lg" => Cmp::Ne,
            "ge" => Cmp::Ge,
            "t" | "tru" => Cmp::T,
            _ => return None,
        })
    }

    /// `a OP b` as unsigned or signed 64-bit values.
    pub fn test(self, a: u64, b: u64, signed: bool) -> bool {
        let o = if signed {
            (a as i64).cmp(&(b as i64))
        } else {
            a.cmp(&b)
        };
        use std::cmp::Ordering::*;
        match self {
            Cmp::F => false,
            Cmp::Lt => o == Less,
            Cmp::Eq => o == Equal,
            Cmp::Le => o != Greater,
            Cmp::Gt => o == Greater,
            Cmp::Ne => o != Equal,
            Cmp::Ge => o != Less,
            Cmp::T => true,
        }
    }
}

/// Integer type of a compare: width 16/32/64, signedness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ty {
    /// 64-bit.
    pub wide: bool,
    /// Signed.
    pub signed: bool,
    /// 16-bit (the low half of the 32-bit register; vector compares only).
    pub half: bool,
}

#[doc(hidden)]
pub fn ty(s: &str) -> Option<Ty> {
    let (wide, signed, half) = match s {
        "u32" | "b32" => (false, false, false),
        "i32" => (false, true, false),
        "u64" | "b64" => (true, false, false),
        "i64" => (true, true, false),
        "u16" | "b16" => (false, false, true),
        "i16" => (false, true, true),
        _ => return None,
    };
    Some(Ty { wide, signed, half })
}

/// A scalar or vector two-or-three-source integer operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alu {
    Add,
    Sub,
    SubRev,
    Mul,
    MulHiU,
    MulHiI,
    MulU24,
    MulHiU24,
    MulI24,
    MulHiI24,
    MadU24,
    MadI24,
    Shl,
    Shr,
    Sar,
    ShlRev,
    ShrRev,
    SarRev,
    And,
    Or,
    Xor,
    AndN2,
    OrN2,
    Nand,
    Nor,
    Xnor,
    MinU,
    MinI,
    MaxU,
    MaxI,
    Min3U,
    Min3I,
    Max3U,
    Max3I,
    Med3U,
    Med3I,
    /// gfx11 `v_maxmin_*`: `min(max(a, b), c)`.
    MaxMinU,
    MaxMinI,
    /// gfx11 `v_minmax_*`: `max(min(a, b), c)`.
    MinMaxU,
    MinMaxI,
    BfeU,
    BfeI,
    Bfi,
    Bfm,
    ShlAdd,
    AddShl,
    ShlOr,
    AndOr,
    Or3,
    Add3,
    Xad,
    Xor3,
    AlignBit,
    AlignByte,
    Bcnt,
    LshlAdd(u8),
    PackLl,
    PackLh,
    PackHh,
    AbsDiff,
    /// `v_perm_b32`: bytes of `{a, b}` (a high) picked by the selectors in
    /// `c`.
    Perm,
}

impl Alu {
    /// Sources read.
    pub fn arity(self) -> usize {
        use Alu::*;
        match self {
            MadU24 | MadI24 | Min3U | Min3I | Max3U | Max3I | Med3U | Med3I | MaxMinU | MaxMinI
            | MinMaxU | MinMaxI | BfeU | BfeI | Bfi | ShlAdd | AddShl | ShlOr | AndOr | Or3
            | Add3 | Xad | Xor3 | AlignBit | AlignByte | Perm => 3,
            _ => 2,
        }
    }

    /// The result on 32-bit (or, `wide`, 64-bit) values; shift amounts and
    /// bit-field controls per the ISA.
    pub fn apply(self, s: [u64; 3], wide: bool) -> u64 {
        use Alu::*;
        let [a, b, c] = s;
        let bits = if wide { 64 } else { 32 };
        let mask = if wide { u64::MAX } else { 0xffff_ffff };
        let sh = |x: u64| x as u32 & (bits - 1);
        let sx = |x: u64| -> i64 {
            if wide {
                x as i64
            } else {
                x as u32 as i32 as i64
            }
        };
        let s24 = |x: u64| ((x as i32) << 8 >> 8) as i64;
        let u24 = |x: u64| x & 0xff_ffff;
        let r = match self {
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            SubRev => b.wrapping_sub(a),
            Mul => a.wrapping_mul(b),
            MulHiU => ((a & mask) * (b & mask)) >> 32,
            MulHiI => ((sx(a) * sx(b)) >> 32) as u64,
            MulU24 => u24(a) * u24(b),
            MulHiU24 => (u24(a) * u24(b)) >> 32,
            MulI24 => (s24(a) * s24(b)) as u64,
            MulHiI24 => ((s24(a) * s24(b)) >> 32) as u64,
            MadU24 => (u24(a) * u24(b)).wrapping_add(c),
            MadI24 => ((s24(a) * s24(b)) as u64).wrapping_add(c),
            Shl => a << sh(b),
            Shr => (a & mask) >> sh(b),
            Sar => (sx(a) >> sh(b)) as u64,
            ShlRev => b << sh(a),
            ShrRev => (b & mask) >> sh(a),
            SarRev => (sx(b) >> sh(a)) as u64,
            And => a & b,
            Or => a | b,
            Xor => a ^ b,
            AndN2 => a & !b,
            OrN2 => a | !b,
            Nand => !(a & b),
            Nor => !(a | b),
            Xnor => !(a ^ b),
            MinU => (a & mask).min(b & mask),
            MaxU => (a & mask).max(b & mask),
            MinI => sx(a).min(sx(b)) as u64,
            MaxI => sx(a).max(sx(b)) as u64,
            Min3U => (a & mask).min(b & mask).min(c & mask),
            Max3U => (a & mask).max(b & mask).max(c & mask),
            Min3I => sx(a).min(sx(b)).min(sx(c)) as u64,
            Max3I => sx(a).max(sx(b)).max(sx(c)) as u64,
            Med3U => {
                let (a, b, c) = (a & mask, b & mask, c & mask);
                a.max(b).min(a.min(b).max(c))
            }
            Med3I => {
                let (a, b, c) = (sx(a), sx(b), sx(c));
                a.max(b).min(a.min(b).max(c)) as u64
            }
            MaxMinU => (a & mask).max(b & mask).min(c & mask),
            MaxMinI => sx(a).max(sx(b)).min(sx(c)) as u64,
            MinMaxU => (a & mask).min(b & mask).max(c & mask),
            MinMaxI => sx(a).min(sx(b)).max(sx(c)) as u64,
            BfeU | BfeI => {
                let (off, w) = (b as u32 & 31, c as u32 & 31);
                if w == 0 {
                    0
                } else {
                    let f = ((a & 0xffff_ffff) >> off) & ((1u64 << w) - 1);
                    if self == BfeI && f >> (w - 1) & 1 != 0 {
                        f | (u64::MAX << w)
                    } else {
                        f
                    }
                }
            }
            Bfi => (a & b) | (!a & c),
            Bfm => ((1u64 << (a as u32 & (bits - 1))).wrapping_sub(1)) << (b as u32 & (bits - 1)),
            ShlAdd => (a << (b as u32 & 31)).wrapping_add(c),
            AddShl => a.wrapping_add(b) << (c as u32 & 31),
            ShlOr => (a << (b as u32 & 31)) | c,
            AndOr => (a & b) | c,
            Or3 => a | b | c,
            Add3 => a.wrapping_add(b).wrapping_add(c),
            Xad => (a ^ b).wrapping_add(c),
            Xor3 => a ^ b ^ c,
            AlignBit => ((a & mask) << 32 | (b & mask)) >> (c as u32 & 31),
            AlignByte => ((a & mask) << 32 | (b & mask)) >> (8 * (c as u32 & 3)),
            Bcnt => u64::from((a & mask).count_ones()).wrapping_add(b),
            LshlAdd(n) => (a << n).wrapping_add(b),
            PackLl => (a & 0xffff) | (b & 0xffff) << 16,
            PackLh => (a & 0xffff) | (b & 0xffff_0000),
            PackHh => (a >> 16 & 0xffff) | (b & 0xffff_0000),
            AbsDiff => (sx(a) - sx(b)).unsigned_abs(),
            Perm => {
                // Selector 0-7: that byte of {a, b}; 8-11: the sign of byte
                // 1, 3, 5 or 7 spread over the byte; 12: 0; 13 and up: 0xff.
                let data = (a & mask) << 32 | (b & mask);
                (0..4).fold(0u64, |r, i| {
                    let sel = (c >> (8 * i)) as u8;
                    let byte = match sel {
                        0..=7 => data >> (8 * sel) & 0xff,
                        8..=11 => {
                            let from = 2 * u32::from(sel - 8) + 1;
                            if data >> (8 * from + 7) & 1 != 0 {
                                0xff
                            } else {
                                0
                            }
                        }
                        12 => 0,
                        _ => 0xff,
                    };
                    r | byte << (8 * i)
                })
            }
        };
        r & mask
    }

    fn of(s: &str) -> Option<Alu> {
        use Alu::*;
        Some(match s {
            "add" | "add_nc" => Add,
            "sub" | "sub_nc" => Sub,
            "subrev" | "subrev_nc" => SubRev,
            "mul_lo" | "mul" => Mul,
            "lshl" => Shl,
            "lshr" => Shr,
            "ashr" => Sar,
            "lshlrev" => ShlRev,
            "lshrrev" => ShrRev,
            "ashrrev" => SarRev,
            "and" => And,
            "or" => Or,
            "xor" => Xor,
            "andn2" | "and_not1" => AndN2,
            "orn2" | "or_not1" => OrN2,
            "nand" => Nand,
            "nor" => Nor,
            "xnor" => Xnor,
            "bfi" => Bfi,
            "bfm" => Bfm,
            "lshl_add" => ShlAdd,
            "add_lshl" => AddShl,
            "lshl_or" => ShlOr,
            "and_or" => AndOr,
            "or3" => Or3,
            "add3" => Add3,
            "xad" => Xad,
            "xor3" => Xor3,
            "alignbit" => AlignBit,
            "alignbyte" => AlignByte,
            "bcnt" => Bcnt,
            "absdiff" => AbsDiff,
            _ => return None,
        })
    }
}

/// `v_add`/`v_sub`/`v_subrev` with `clamp`: the result saturated to the
/// `bits`-wide unsigned (or, `signed`, two's-complement) range instead of
/// wrapping. `x` and `y` are the sources as read (low `bits` used).
pub fn saturate(a: Alu, x: u32, y: u32, bits: u32, signed: bool) -> u64 {
    let (x, y) = if a == Alu::SubRev { (y, x) } else { (x, y) };
    let sub = a != Alu::Add;
    let mask = if bits == 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << bits) - 1
    };
    let (x, y) = (u64::from(x) & mask, u64::from(y) & mask);
    if signed {
        let sx = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
        let r = if sub { sx(x) - sx(y) } else { sx(x) + sx(y) };
        let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
        r.clamp(lo, hi) as u64 & mask
    } else if sub {
        x.saturating_sub(y)
    } else {
        (x + y).min(mask)
    }
}

/// A unary scalar or vector operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Un {
    Mov,
    Not,
    Brev,
    Bcnt1,
    Ff1,
    Flbit,
    FlbitI,
    Abs,
    Sext8,
    Sext16,
    Bcnt0,
}

impl Un {
    /// The result; `wide`: a 64-bit operand (a bit count stays 32-bit).
    pub fn apply(self, a: u64, wide: bool) -> u64 {
        let bits = if wide { 64 } else { 32 };
        let a = if wide { a } else { a & 0xffff_ffff };
        match self {
            Un::Mov => a,
            Un::Not => !a & if wide { u64::MAX } else { 0xffff_ffff },
            Un::Brev => {
                if wide {
                    a.reverse_bits()
                } else {
                    u64::from((a as u32).reverse_bits())
                }
            }
            Un::Bcnt1 => u64::from(a.count_ones()),
            Un::Bcnt0 => u64::from(bits - a.count_ones()),
            Un::Ff1 => {
                if a == 0 {
                    0xffff_ffff
                } else {
                    u64::from(a.trailing_zeros())
                }
            }
            Un::Flbit => {
                if a == 0 {
                    0xffff_ffff
                } else {
                    u64::from(a.leading_zeros() - (64 - bits))
                }
            }
            Un::FlbitI => {
                let x = if wide {
                    a as i64
                } else {
                    a as u32 as i32 as i64
                };
                let y = if x < 0 { !x } else { x };
                let y = if wide {
                    y as u64
                } else {
                    y as u64 & 0xffff_ffff
                };
                if x == 0 || x == -1 {
                    0xffff_ffff
                } else {
                    u64::from(y.leading_zeros() - (64 - bits))
                }
            }
            Un::Abs => u64::from((a as u32 as i32).unsigned_abs()),
            Un::Sext8 => a as u8 as i8 as i32 as u32 as u64,
            Un::Sext16 => a as u16 as i16 as i32 as u32 as u64,
        }
    }
}

/// How `s_*_saveexec` combines its source with EXEC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Save {
    And,
    Or,
    Xor,
    /// `src & !exec` (andn2, and_not1).
    AndN2,
    /// `src | !exec`.
    OrN2,
    /// `!src & exec` (and_not0).
    AndN0,
    /// `!src | exec`.
    OrN0,
    Nand,
    Nor,
    Xnor,
}

impl Save {
    /// The new EXEC.
    pub fn apply(self, src: u64, exec: u64) -> u64 {
        match self {
            Save::And => src & exec,
            Save::Or => src | exec,
            Save::Xor => src ^ exec,
            Save::AndN2 => src & !exec,
            Save::OrN2 => src | !exec,
            Save::AndN0 => !src & exec,
            Save::OrN0 => !src | exec,
            Save::Nand => !(src & exec),
            Save::Nor => !(src | exec),
            Save::Xnor => !(src ^ exec),
        }
    }
}

/// The condition of `s_cbranch_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

/// What a memory atomic does (global, flat, buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemAtomic {
    Add,
    Sub,
    Swap,
    CmpSwap,
    MinI,
    MinU,
    MaxI,
    MaxU,
    And,
    Or,
    Xor,
    Inc,
    Dec,
}

impl MemAtomic {
    fn of(s: &str) -> Option<MemAtomic> {
        use MemAtomic::*;
        Some(match s {
            "add" => Add,
            "sub" => Sub,
            "swap" => Swap,
            "cmpswap" => CmpSwap,
            "smin" | "min_i32" | "min_i64" => MinI,
            "umin" | "min_u32" | "min_u64" => MinU,
            "smax" | "max_i32" | "max_i64" => MaxI,
            "umax" | "max_u32" | "max_u64" => MaxU,
            "and" => And,
            "or" => Or,
            "xor" => Xor,
            "inc" => Inc,
            "dec" => Dec,
            _ => return None,
        })
    }

    /// The new memory value (`bytes` 4 or 8); `data` the value operand,
    /// `cmp` the compare value of cmpswap.
    pub fn apply(self, mem: u64, data: u64, cmp: u64, bytes: usize) -> u64 {
        use MemAtomic::*;
        let mask = if bytes == 8 { u64::MAX } else { 0xffff_ffff };
        let sx = |x: u64| {
            if bytes == 8 {
                x as i64
            } else {
                x as u32 as i32 as i64
            }
        };
        let r = match self {
            Add => mem.wrapping_add(data),
            Sub => mem.wrapping_sub(data),
            Swap => data,
            CmpSwap => {
                if mem == cmp {
                    data
                } else {
                    mem
                }
            }
            MinI => sx(mem).min(sx(data)) as u64,
            MaxI => sx(mem).max(sx(data)) as u64,
            MinU => mem.min(data),
            MaxU => mem.max(data),
            And => mem & data,
            Or => mem | data,
            Xor => mem ^ data,
            Inc => {
                if mem >= data {
                    0
                } else {
                    mem + 1
                }
            }
            Dec => {
                if mem == 0 || mem > data {
                    data
                } else {
                    mem - 1
                }
            }
        };
        r & mask
    }
}

/// A global, flat or buffer memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mem {
    /// Load of `bytes` (1, 2, 4, 8, 12, 16), sign-extending sub-dwords when
    /// `signed`.
    Load { bytes: u8, signed: bool },
    /// Store of `bytes`.
    Store { bytes: u8 },
    /// Atomic on `bytes` (4, 8).
    Atomic { op: MemAtomic, bytes: u8 },
    /// Format load or store (data symbolic): `dwords` components.
    Format {
        store: bool,
        dwords: u8,
        typed: bool,
    },
}

/// An emulated instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// No effect on the emulated state (waits, hints, cache invalidates).
    Nop,
    /// `s_endpgm`.
    End,
    /// `s_barrier`.
    Barrier,
    /// `s_branch`.
    Branch,
    /// `s_cbranch_*`.
    CBranch(Cond),
    /// SOP1 unary (`s_mov_b32`, `s_not_b64`, …); wide: 64-bit.
    SUn(Un, bool),
    /// SOP2 (`s_and_b32`, …); wide: 64-bit.
    SAlu(Alu, bool),
    /// `s_add_u32`/`s_sub_u32` (carry out), `s_addc_u32`/`s_subb_u32`
    /// (carry in): sub, carry in.
    SAddCarry(bool, bool),
    /// `s_add_i32`/`s_sub_i32` (SCC: overflow).
    SAddI(bool),
    /// `s_bfe_*`: signed, wide (offset in `src1[5:0]`, width in `src1[22:16]`).
    SBfe(bool, bool),
    /// `s_cselect_b32/b64`.
    SCselect(bool),
    /// `s_cmov_b32/b64`.
    SCmov(bool),
    /// `s_movk_i32`, `s_cmovk_i32`.
    SMovk(bool),
    /// `s_addk_i32`.
    SAddk,
    /// `s_mulk_i32`.
    SMulk,
    /// `s_cmp_*` / `s_cmpk_*` (k: 16-bit constant).
    SCmp(Cmp, Ty, bool),
    /// `s_bitcmp0/1_b32/b64`: bit value compared, wide.
    SBitcmp(bool, bool),
    /// `s_*_saveexec_b32/b64`: how, wide.
    SSaveexec(Save, bool),
    /// `s_load_*` of this many dwords.
    SLoad(u8),
    /// `s_buffer_load_*` of this many dwords.
    SBufLoad(u8),
    /// VOP unary (`v_mov_b32`, `v_not_b32`, …).
    VUn(Un),
    /// VOP integer op on 32 bits.
    VAlu(Alu),
    /// A 16-bit VALU operation on the low halves of its sources (`v_add_u16`,
    /// `v_lshlrev_b16`, `v_max_i16`, `v_mad_u16`, …), sign-extended when
    /// signed. gfx9 zeroes the destination's high half, gfx11 keeps it (as
    /// LLVM's `zeroesHigh16BitsOfDest` has it).
    VAlu16(Alu, bool),
    /// 64-bit shift (`v_lshlrev_b64`, …): the Alu is the rev form.
    VShift64(Alu),
    /// `v_add_co_u32`, `v_sub_co_u32`, `v_subrev_co_u32` (carry out) and
    /// their carry-in forms: (kind: 0 add, 1 sub, 2 subrev; carry in).
    VAddCo(u8, bool),
    /// `v_mad_u64_u32` / `v_mad_i64_i32` (signed).
    VMad64(bool),
    /// `v_cmp_*` / `v_cmpx_*` (x: writes EXEC).
    VCmp(Cmp, Ty, bool),
    /// `v_cndmask_b32`.
    VCnd,
    /// `v_readfirstlane_b32`.
    VReadFirst,
    /// `v_movrels_b32` (source indexed by M0), `v_movreld_b32`
    /// (destination), `v_movrelsd_b32` (both).
    VMovRel(bool, bool),
    /// gfx9 `s_set_gpr_idx_on S, gpr_idx(…)`: M0 gets the index and the
    /// VALU operands named (bit 0 SRC0, 1 SRC1, 2 SRC2, 3 DST) are indexed
    /// by it until `s_set_gpr_idx_off`.
    GprIdxOn(u8),
    /// `s_set_gpr_idx_off`.
    GprIdxOff,
    /// `v_readlane_b32`.
    VReadLane,
    /// `v_writelane_b32`.
    VWriteLane,
    /// `v_mbcnt_lo_u32_b32` / `_hi_`.
    VMbcnt(bool),
    /// A binary32 operation the emulator computes (`float.rs`).
    VF32(super::float::F32),
    /// `v_cmp_*_f32` / `v_cmpx_*_f32` (x: writes EXEC).
    VCmpF(super::float::FCmp, bool),
    /// `v_cmp_class_f32` / `v_cmpx_class_f32` (x: writes EXEC).
    VCmpClass(bool),
    /// A binary64 or mixed-width operation the emulator computes
    /// (`wide.rs`).
    VWide(super::wide::Wide),
    /// `v_div_scale_f32` / `_f64` (wide): a result and a VCC bit.
    VDivScale(bool),
    /// `v_cmp_*_f64` / `v_cmpx_*_f64` (x: writes EXEC).
    VCmpF64(super::float::FCmp, bool),
    /// `v_cmp_class_f64` / `v_cmpx_class_f64`.
    VCmpClass64(bool),
    /// A binary16 operation (`half.rs`).
    VF16(super::half::F16),
    /// A packed 16-bit integer operation (`v_pk_add_u16`, …): each half as
    /// the 16-bit operation, signed when `true`.
    VPk16(Alu, bool),
    /// A packed binary16 operation (`v_pk_add_f16`, `v_pk_fma_f16`, …).
    VPkF16(super::half::F16),
    /// `v_cmp_*_f16` / `v_cmpx_*_f16`.
    VCmpF16(super::float::FCmp, bool),
    /// `v_cmp_class_f16` / `v_cmpx_class_f16`.
    VCmpClass16(bool),
    /// A floating-point operation the emulator does not compute (binary16,
    /// binary64, packed, the division helpers, …): its destination is
    /// symbolic; a compare into a mask makes the mask symbolic.
    VFloat,
    /// A LDS instruction, by the unit's `op_i` code.
    Ds(u8),
    /// A global (or flat, `true`) access.
    Global(Mem, bool),
    /// A MUBUF (`typed`: MTBUF) access.
    Buffer(Mem),
}

impl Mem {
    /// VGPRs its data operand spans (a store's or an atomic's data, a
    /// load's destination; cmpswap's data is the value and the compare).
    pub fn data_regs(self) -> usize {
        match self {
            Mem::Load { bytes, .. } | Mem::Store { bytes } => usize::from(bytes).div_ceil(4),
            Mem::Atomic { op, bytes } => {
                usize::from(bytes / 4) * if op == MemAtomic::CmpSwap { 2 } else { 1 }
            }
            Mem::Format { dwords, .. } => usize::from(dwords),
        }
    }
}

/// Dwords of `_dword`, `_dwordx2`, `_b64`, … suffixes.
fn dwords(s: &str) -> Option<u8> {
    Some(match s {
        "dword" | "b32" => 1,
        "dwordx2" | "b64" => 2,
        "dwordx3" | "b96" => 3,
        "dwordx4" | "b128" => 4,
        "dwordx8" | "b256" => 8,
        "dwordx16" | "b512" => 16,
        _ => return None,
    })
}

/// The access of a `global_`/`buffer_` suffix (`load_dword`, `store_b8`,
/// `atomic_add_u32`, `load_format_xy`, …).
fn mem(rest: &str) -> Option<Mem> {
    if let Some(f) = rest
        .strip_prefix("load_format_")
        .map(|f| (f, false))
        .or_else(|| rest.strip_prefix("store_format_").map(|f| (f, true)))
    {
        let (comp, store) = f;
        let n = match comp {
            "x" => 1,
            "xy" => 2,
            "xyz" => 3,
            "xyzw" => 4,
            _ => return None,
        };
        return Some(Mem::Format {
            store,
            dwords: n,
            typed: false,
        });
    }
    if let Some(s) = rest.strip_prefix("load_") {
        let (bytes, signed) = match s {
            "ubyte" | "u8" => (1, false),
            "sbyte" | "i8" => (1, true),
            "ushort" | "u16" => (2, false),
            "sshort" | "i16" => (2, true),
            _ => (dwords(s)? * 4, false),
        };
        return Some(Mem::Load { bytes, signed });
    }
    if let Some(s) = rest.strip_prefix("store_") {
        let bytes = match s {
            "byte" | "b8" => 1,
            "short" | "b16" => 2,
            _ => dwords(s)? * 4,
        };
        return Some(Mem::Store { bytes });
    }
    let a = rest.strip_prefix("atomic_")?;
    let (a, bytes) = if let Some(a) = a.strip_suffix("_x2") {
        (a, 8)
    } else if let Some(a) = a.strip_suffix("_u64").or_else(|| a.strip_suffix("_b64")) {
        (a, 8)
    } else if a.ends_with("_i64") {
        (a, 8)
    } else {
        (
            a.strip_suffix("_u32")
                .or_else(|| a.strip_suffix("_b32"))
                .unwrap_or(a),
            4,
        )
    };
    // min_i32, max_u64 etc. keep their type in the name.
    let full = rest.strip_prefix("atomic_")?;
    let op = MemAtomic::of(full)
        .or_else(|| MemAtomic::of(full.strip_suffix("_x2").unwrap_or(full)))
        .or_else(|| MemAtomic::of(a))?;
    Some(Mem::Atomic { op, bytes })
}

impl Op {
    /// For an ALU operation (one whose results are computed from its
    /// register and constant sources), how many of its `n` leading operands
    /// are destinations; `None` for the others (memory, branches, no-ops).
    pub fn alu_dests(&self, n: usize) -> Option<usize> {
        use Op::*;
        Some(match self {
            VAddCo(..) | VMad64(_) | VDivScale(_) => 2,
            VCmp(..) | VCmpF(..) | VCmpClass(_) | VCmpF64(..) | VCmpClass64(_) | VCmpF16(..)
            | VCmpClass16(_) => usize::from(n == 3),
            SCmp(..) | SBitcmp(..) => 0,
            SUn(..) | SAlu(..) | SAddCarry(..) | SAddI(_) | SBfe(..) | SCselect(_) | SCmov(_)
            | SMovk(_) | SAddk | SMulk | SSaveexec(..) | VUn(_) | VAlu(_) | VAlu16(..)
            | VShift64(_) | VCnd | VMovRel(..) | VReadFirst | VReadLane | VWriteLane
            | VMbcnt(_) | VF32(_) | VWide(_) | VF16(_) | VPk16(..) | VPkF16(_) | VFloat => 1,
            GprIdxOn(_) | GprIdxOff => 0,
            Nop | End | Barrier | Branch | CBranch(_) | SLoad(_) | SBufLoad(_) | Ds(_)
            | Global(..) | Buffer(_) => return None,
        })
    }
}

/// What `mnemonic` (as written, `_e32`/`_e64` included) is, on either
/// profile (their spellings do not collide). Errors say why an instruction
/// is not emulated.
pub fn decode(mnemonic: &str) -> Result<Op, String> {
    let m = mnemonic
        .strip_suffix("_e32")
        .or_else(|| mnemonic.strip_suffix("_e64"))
        .unwrap_or(mnemonic);
    if m.ends_with("_sdwa") || m.ends_with("_dpp") {
        return Err("the DPP and SDWA forms are read with their instruction".into());
    }
    // Waits, hints, barriers and the end of the program are the
    // instruction table's (`instructions.txt`, `emu:`), not read here.
    match m {
        "s_branch" => return Ok(Op::Branch),
        "s_cbranch_scc0" => return Ok(Op::CBranch(Cond::Scc0)),
        "s_cbranch_scc1" => return Ok(Op::CBranch(Cond::Scc1)),
        "s_cbranch_vccz" => return Ok(Op::CBranch(Cond::Vccz)),
        "s_cbranch_vccnz" => return Ok(Op::CBranch(Cond::Vccnz)),
        "s_cbranch_execz" => return Ok(Op::CBranch(Cond::Execz)),
        "s_cbranch_execnz" => return Ok(Op::CBranch(Cond::Execnz)),
        "s_movk_i32" => return Ok(Op::SMovk(false)),
        "s_cmovk_i32" => return Ok(Op::SMovk(true)),
        "s_addk_i32" => return Ok(Op::SAddk),
        "s_mulk_i32" => return Ok(Op::SMulk),
        "s_add_u32" => return Ok(Op::SAddCarry(false, false)),
        "s_sub_u32" => return Ok(Op::SAddCarry(true, false)),
        "s_addc_u32" => return Ok(Op::SAddCarry(false, true)),
        "s_subb_u32" => return Ok(Op::SAddCarry(true, true)),
        "s_add_i32" => return Ok(Op::SAddI(false)),
        "s_sub_i32" => return Ok(Op::SAddI(true)),
        "s_mul_i32" => return Ok(Op::SAlu(Alu::Mul, false)),
        "s_mul_hi_u32" => return Ok(Op::SAlu(Alu::MulHiU, false)),
        "s_mul_hi_i32" => return Ok(Op::SAlu(Alu::MulHiI, false)),
        "s_bfe_u32" => return Ok(Op::SBfe(false, false)),
        "s_bfe_i32" => return Ok(Op::SBfe(true, false)),
        "s_bfe_u64" => return Ok(Op::SBfe(false, true)),
        "s_bfe_i64" => return Ok(Op::SBfe(true, true)),
        "v_readfirstlane_b32" => return Ok(Op::VReadFirst),
        "v_movrels_b32" => return Ok(Op::VMovRel(true, false)),
        "v_movreld_b32" => return Ok(Op::VMovRel(false, true)),
        "v_movrelsd_b32" => return Ok(Op::VMovRel(true, true)),
        "s_set_gpr_idx_off" => return Ok(Op::GprIdxOff),
        "v_readlane_b32" => return Ok(Op::VReadLane),
        "v_writelane_b32" => return Ok(Op::VWriteLane),
        "v_cndmask_b32" => return Ok(Op::VCnd),
        "v_mbcnt_lo_u32_b32" => return Ok(Op::VMbcnt(false)),
        "v_mbcnt_hi_u32_b32" => return Ok(Op::VMbcnt(true)),
        "v_mad_u64_u32" => return Ok(Op::VMad64(false)),
        "v_mad_i64_i32" => return Ok(Op::VMad64(true)),
        "v_mul_lo_u32" | "v_mul_lo_i32" => return Ok(Op::VAlu(Alu::Mul)),
        "v_mul_hi_u32" => return Ok(Op::VAlu(Alu::MulHiU)),
        "v_mul_hi_i32" => return Ok(Op::VAlu(Alu::MulHiI)),
        "v_mul_u32_u24" => return Ok(Op::VAlu(Alu::MulU24)),
        "v_mul_hi_u32_u24" => return Ok(Op::VAlu(Alu::MulHiU24)),
        "v_mul_i32_i24" => return Ok(Op::VAlu(Alu::MulI24)),
        "v_mul_hi_i32_i24" => return Ok(Op::VAlu(Alu::MulHiI24)),
        "v_mad_u32_u24" => return Ok(Op::VAlu(Alu::MadU24)),
        "v_mad_i32_i24" => return Ok(Op::VAlu(Alu::MadI24)),
        "v_bfe_u32" => return Ok(Op::VAlu(Alu::BfeU)),
        "v_bfe_i32" => return Ok(Op::VAlu(Alu::BfeI)),
        "v_bcnt_u32_b32" => return Ok(Op::VAlu(Alu::Bcnt)),
        "v_perm_b32" => return Ok(Op::VAlu(Alu::Perm)),
        "v_mov_b32" => return Ok(Op::VUn(Un::Mov)),
        "v_not_b32" => return Ok(Op::VUn(Un::Not)),
        "v_bfrev_b32" => return Ok(Op::VUn(Un::Brev)),
        "v_ffbh_u32" | "v_clz_i32_u32" => return Ok(Op::VUn(Un::Flbit)),
        "v_ffbl_b32" | "v_ctz_i32_b32" => return Ok(Op::VUn(Un::Ff1)),
        "v_ffbh_i32" | "v_cls_i32" => return Ok(Op::VUn(Un::FlbitI)),
        "v_lshlrev_b64" => return Ok(Op::VShift64(Alu::ShlRev)),
        "v_lshrrev_b64" => return Ok(Op::VShift64(Alu::ShrRev)),
        "v_ashrrev_i64" => return Ok(Op::VShift64(Alu::SarRev)),
        "v_add_co_u32" => return Ok(Op::VAddCo(0, false)),
        "v_sub_co_u32" => return Ok(Op::VAddCo(1, false)),
        "v_subrev_co_u32" => return Ok(Op::VAddCo(2, false)),
        "v_addc_co_u32" | "v_add_co_ci_u32" => return Ok(Op::VAddCo(0, true)),
        "v_subb_co_u32" | "v_sub_co_ci_u32" => return Ok(Op::VAddCo(1, true)),
        "v_subbrev_co_u32" | "v_subrev_co_ci_u32" => return Ok(Op::VAddCo(2, true)),
        _ => {}
    }
    if let Some(rest) = m.strip_prefix("s_") {
        if let Some(r) = rest
            .strip_suffix("_saveexec_b64")
            .map(|r| (r, true))
            .or_else(|| rest.strip_suffix("_saveexec_b32").map(|r| (r, false)))
        {
            let (how, wide) = r;
            let s = match how {
                "and" => Save::And,
                "or" => Save::Or,
                "xor" => Save::Xor,
                "andn2" | "and_not1" => Save::AndN2,
                "orn2" | "or_not1" => Save::OrN2,
                "and_not0" => Save::AndN0,
                "or_not0" => Save::OrN0,
                "nand" => Save::Nand,
                "nor" => Save::Nor,
                "xnor" => Save::Xnor,
                _ => return Err(format!("{m} is not emulated")),
            };
            return Ok(Op::SSaveexec(s, wide));
        }
        if let Some(r) = rest.strip_prefix("load_") {
            return dwords(r)
                .map(Op::SLoad)
                .ok_or_else(|| format!("{m} is not emulated"));
        }
        if let Some(r) = rest.strip_prefix("buffer_load_") {
            return dwords(r)
                .map(Op::SBufLoad)
                .ok_or_else(|| format!("{m} is not emulated"));
        }
        if let Some(r) = rest
            .strip_prefix("cmpk_")
            .map(|r| (r, true))
            .or_else(|| rest.strip_prefix("cmp_").map(|r| (r, false)))
        {
            let (r, k) = r;
            let (c, t) = r
                .split_once('_')
                .ok_or_else(|| format!("{m} is not emulated"))?;
            // Scalar compares are 32 or 64 bits: a 16-bit type is no
            // scalar compare (`s_cmp_*_u16` would fall through to the error).
            if let (Some(c), Some(t)) = (Cmp::of(c), ty(t).filter(|t| !t.half)) {
                return Ok(Op::SCmp(c, t, k));
            }
        }
        for (p, b) in [("bitcmp0_", false), ("bitcmp1_", true)] {
            if let Some(w) = rest.strip_prefix(p) {
                return Ok(Op::SBitcmp(b, w == "b64"));
            }
        }
        if let Some((name, w)) = rest.rsplit_once('_') {
            let wide = matches!(w, "b64" | "u64" | "i64");
            let un = match name {
                "mov" => Some(Un::Mov),
                "not" => Some(Un::Not),
                "brev" => Some(Un::Brev),
                "abs" => Some(Un::Abs),
                "bcnt1_i32" => Some(Un::Bcnt1),
                "bcnt0_i32" => Some(Un::Bcnt0),
                "ff1_i32" | "ctz_i32" => Some(Un::Ff1),
                "flbit_i32" | "clz_i32" => Some(Un::Flbit),
                "flbit_i32_i32" | "cls_i32" => Some(Un::FlbitI),
                "sext_i32" if w == "i8" => Some(Un::Sext8),
                "sext_i32" if w == "i16" => Some(Un::Sext16),
                _ => None,
            };
            if let Some(u) = un {
                return Ok(Op::SUn(u, wide && !name.starts_with("sext")));
            }
            match name {
                "cselect" => return Ok(Op::SCselect(wide)),
                "cmov" => return Ok(Op::SCmov(wide)),
                "min" if w == "u32" => return Ok(Op::SAlu(Alu::MinU, false)),
                "min" if w == "i32" => return Ok(Op::SAlu(Alu::MinI, false)),
                "max" if w == "u32" => return Ok(Op::SAlu(Alu::MaxU, false)),
                "max" if w == "i32" => return Ok(Op::SAlu(Alu::MaxI, false)),
                "pack_ll_b32" if w == "b16" => return Ok(Op::SAlu(Alu::PackLl, false)),
                "pack_lh_b32" if w == "b16" => return Ok(Op::SAlu(Alu::PackLh, false)),
                "pack_hh_b32" if w == "b16" => return Ok(Op::SAlu(Alu::PackHh, false)),
                "absdiff" => return Ok(Op::SAlu(Alu::AbsDiff, false)),
                "lshl1_add" | "lshl2_add" | "lshl3_add" | "lshl4_add" => {
                    return Ok(Op::SAlu(Alu::LshlAdd(name.as_bytes()[4] - b'0'), false))
                }
                _ => {}
            }
            if let Some(a) = Alu::of(name) {
                if !matches!(a, Alu::Add | Alu::Sub | Alu::SubRev) {
                    return Ok(Op::SAlu(a, wide));
                }
            }
        }
        return Err(format!("{m} is not emulated"));
    }
    if let Some(rest) = m.strip_prefix("v_") {
        if let Some(f) = super::float::F32::of(rest) {
            return Ok(Op::VF32(f));
        }
        for (p, x) in [("cmpx_", true), ("cmp_", false)] {
            if let Some(c) = rest
                .strip_prefix(p)
                .and_then(|r| r.strip_suffix("_f32"))
                .and_then(super::float::FCmp::of)
            {
                return Ok(Op::VCmpF(c, x));
            }
        }
        if let Some(f) = super::wide::Wide::of(rest) {
            return Ok(Op::VWide(f));
        }
        if let Some(f) = super::half::F16::of(rest) {
            return Ok(Op::VF16(f));
        }
        if let Some(r) = rest.strip_prefix("pk_") {
            use super::half::F16;
            let int = match r {
                "add_u16" => Some((Alu::Add, false)),
                "add_i16" => Some((Alu::Add, true)),
                "sub_u16" => Some((Alu::Sub, false)),
                "sub_i16" => Some((Alu::Sub, true)),
                "mul_lo_u16" => Some((Alu::Mul, false)),
                "lshlrev_b16" => Some((Alu::ShlRev, false)),
                "lshrrev_b16" => Some((Alu::ShrRev, false)),
                "ashrrev_i16" => Some((Alu::SarRev, true)),
                "max_u16" => Some((Alu::MaxU, false)),
                "min_u16" => Some((Alu::MinU, false)),
                "max_i16" => Some((Alu::MaxI, true)),
                "min_i16" => Some((Alu::MinI, true)),
                "mad_u16" => Some((Alu::MadU24, false)),
                "mad_i16" => Some((Alu::MadI24, true)),
                _ => None,
            };
            if let Some((a, signed)) = int {
                return Ok(Op::VPk16(a, signed));
            }
            let f = match r {
                "add_f16" => Some(F16::Add),
                "mul_f16" => Some(F16::Mul),
                "fma_f16" => Some(F16::Fma),
                "max_f16" => Some(F16::Max),
                "min_f16" => Some(F16::Min),
                _ => None,
            };
            if let Some(f) = f {
                return Ok(Op::VPkF16(f));
            }
        }
        for (p, x) in [("cmpx_", true), ("cmp_", false)] {
            if let Some(c) = rest
                .strip_prefix(p)
                .and_then(|r| r.strip_suffix("_f16"))
                .and_then(super::float::FCmp::of)
            {
                return Ok(Op::VCmpF16(c, x));
            }
        }
        for (p, x) in [("cmpx_", true), ("cmp_", false)] {
            if let Some(c) = rest
                .strip_prefix(p)
                .and_then(|r| r.strip_suffix("_f64"))
                .and_then(super::float::FCmp::of)
            {
                return Ok(Op::VCmpF64(c, x));
            }
        }
        match rest {
            "cmp_class_f32" => return Ok(Op::VCmpClass(false)),
            "cmpx_class_f32" => return Ok(Op::VCmpClass(true)),
            "cmp_class_f16" => return Ok(Op::VCmpClass16(false)),
            "cmpx_class_f16" => return Ok(Op::VCmpClass16(true)),
            "cmp_class_f64" => return Ok(Op::VCmpClass64(false)),
            "cmpx_class_f64" => return Ok(Op::VCmpClass64(true)),
            "div_scale_f32" => return Ok(Op::VDivScale(false)),
            "div_scale_f64" => return Ok(Op::VDivScale(true)),
            _ => {}
        }
        if rest.contains("_f16")
            || rest.contains("_f32")
            || rest.contains("_f64")
            || rest.contains("_bf16")
            || rest.starts_with("cvt_")
            || rest.starts_with("rcp")
            || rest.starts_with("rsq")
            || rest.starts_with("sqrt")
            || rest.starts_with("div_")
            || rest.starts_with("ldexp")
            || rest.starts_with("frexp")
            || rest.starts_with("dot")
            || rest.starts_with("pk_")
        {
            if rest.starts_with("cmpx_") {
                return Err(format!("{m}: this floating-point compare into EXEC is not emulated (packed and bfloat16 values are symbolic)"));
            }
            return Ok(Op::VFloat);
        }
        for (p, x) in [("cmpx_", true), ("cmp_", false)] {
            if let Some(r) = rest.strip_prefix(p) {
                if let Some((c, t)) = r.rsplit_once('_') {
                    if let (Some(c), Some(t)) = (Cmp::of(c), ty(t)) {
                        return Ok(Op::VCmp(c, t, x));
                    }
                }
            }
        }
        let vop = |name: &str| -> Option<Alu> {
            Some(match name {
                "min_u32" | "min_u32_u32" => Alu::MinU,
                "min_i32" => Alu::MinI,
                "max_u32" => Alu::MaxU,
                "max_i32" => Alu::MaxI,
                "min3_u32" => Alu::Min3U,
                "min3_i32" => Alu::Min3I,
                "max3_u32" => Alu::Max3U,
                "max3_i32" => Alu::Max3I,
                "med3_u32" => Alu::Med3U,
                "med3_i32" => Alu::Med3I,
                "maxmin_u32" => Alu::MaxMinU,
                "maxmin_i32" => Alu::MaxMinI,
                "minmax_u32" => Alu::MinMaxU,
                "minmax_i32" => Alu::MinMaxI,
                "bfm_b32" => Alu::Bfm,
                _ => {
                    let (n, w) = name.rsplit_once('_')?;
                    if !matches!(w, "u32" | "b32" | "i32") {
                        return None;
                    }
                    Alu::of(n)?
                }
            })
        };
        if let Some(a) = vop(rest) {
            return Ok(Op::VAlu(a));
        }
        let half = match rest {
            "add_u16" | "add_nc_u16" => Some((Alu::Add, false)),
            "sub_u16" | "sub_nc_u16" => Some((Alu::Sub, false)),
            "subrev_u16" => Some((Alu::SubRev, false)),
            "mul_lo_u16" => Some((Alu::Mul, false)),
            "lshlrev_b16" => Some((Alu::ShlRev, false)),
            "lshrrev_b16" => Some((Alu::ShrRev, false)),
            "ashrrev_i16" => Some((Alu::SarRev, true)),
            "min_u16" => Some((Alu::MinU, false)),
            "max_u16" => Some((Alu::MaxU, false)),
            "min_i16" => Some((Alu::MinI, true)),
            "max_i16" => Some((Alu::MaxI, true)),
            "mad_u16" => Some((Alu::MadU24, false)),
            "mad_i16" => Some((Alu::MadI24, true)),
            _ => None,
        };
        if let Some((a, signed)) = half {
            return Ok(Op::VAlu16(a, signed));
        }
        return Err(format!("{m} is not emulated"));
    }
    if m.starts_with("ds_") {
        return gpucosim_model::lds::isa::code_of(m)
            .map(Op::Ds)
            .ok_or_else(|| format!("{m}: the LDS unit has no such operation"));
    }
    if let Some(r) = m.strip_prefix("global_") {
        return mem(r)
            .filter(|x| !matches!(x, Mem::Format { .. }))
            .map(|x| Op::Global(x, false))
            .ok_or_else(|| format!("{m} is not emulated"));
    }
    if let Some(r) = m.strip_prefix("flat_") {
        return mem(r)
            .filter(|x| !matches!(x, Mem::Format { .. }))
            .map(|x| Op::Global(x, true))
            .ok_or_else(|| format!("{m} is not emulated"));
    }
    if let Some(r) = m.strip_prefix("tbuffer_") {
        return match mem(r) {
            Some(Mem::Format { store, dwords, .. }) => Ok(Op::Buffer(Mem::Format {
                store,
                dwords,
                typed: true,
            })),
            _ => Err(format!("{m} is not emulated")),
        };
    }
    if let Some(r) = m.strip_prefix("buffer_") {
        return mem(r)
            .map(Op::Buffer)
            .ok_or_else(|| format!("{m} is not emulated"));
    }
    if m.starts_with("scratch_") {
        return Err("scratch (private memory) is not emulated".into());
    }
    Err(format!("{m} is not emulated"))
}
