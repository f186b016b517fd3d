//! LDS operation codes (`op_i`), their mnemonics and what each one does (SPEC §2.3).

use super::params::LdsParams;
use crate::Profile;

/// What an operation does with memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Not an operation: one cycle, no access, results 0.
    Invalid,
    /// Load (read, read2, addtid).
    Load,
    /// Store (write, write2, addtid).
    Store,
    /// 32-bit atomic read-modify-write.
    Atomic,
    /// `ds_permute_b32` (forward, scatter).
    Permute,
    /// `ds_bpermute_b32` (backward, gather).
    Bpermute,
}

/// A 32-bit atomic operation, numbered as in `op_i` (`32 + a`, `48 + a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Atomic {
    /// `mem + d0`.
    Add = 0,
    /// `mem - d0`.
    Sub = 1,
    /// `d0 - mem`.
    Rsub = 2,
    /// `mem >= d0 ? 0 : mem + 1`.
    Inc = 3,
    /// `mem == 0 || mem > d0 ? d0 : mem - 1`.
    Dec = 4,
    /// Signed minimum.
    MinI = 5,
    /// Signed maximum.
    MaxI = 6,
    /// Unsigned minimum.
    MinU = 7,
    /// Unsigned maximum.
    MaxU = 8,
    /// Bitwise and.
    And = 9,
    /// Bitwise or.
    Or = 10,
    /// Bitwise xor.
    Xor = 11,
    /// Exchange: `d0`.
    Wrxchg = 12,
    /// Compare and store (operand order per profile).
    Cmpst = 13,
}

/// Number of atomic operations.
pub const ATOMICS: u8 = 14;

impl Atomic {
    /// The atomic with number `a` (0..13).
    pub const fn from_index(a: u8) -> Option<Atomic> {
        use Atomic::*;
        Some(match a {
            0 => Add,
            1 => Sub,
            2 => Rsub,
            3 => Inc,
            4 => Dec,
            5 => MinI,
            6 => MaxI,
            7 => MinU,
            8 => MaxU,
            9 => And,
            10 => Or,
            11 => Xor,
            12 => Wrxchg,
            13 => Cmpst,
            _ => return None,
        })
    }

    /// The new memory value. `store_d0`: the profile's cmpst operand order
    /// (`LdsParams::cmpst_store_data0`).
    #[inline]
    pub fn apply(self, mem: u32, d0: u32, d1: u32, store_d0: bool) -> u32 {
        use Atomic::*;
        match self {
            Add => mem.wrapping_add(d0),
            Sub => mem.wrapping_sub(d0),
            Rsub => d0.wrapping_sub(mem),
            Inc => {
                if mem >= d0 {
                    0
                } else {
                    mem.wrapping_add(1)
                }
            }
            Dec => {
                if mem == 0 || mem > d0 {
                    d0
                } else {
                    mem - 1
                }
            }
            MinI => (mem as i32).min(d0 as i32) as u32,
            MaxI => (mem as i32).max(d0 as i32) as u32,
            MinU => mem.min(d0),
            MaxU => mem.max(d0),
            And => mem & d0,
            Or => mem | d0,
            Xor => mem ^ d0,
            Wrxchg => d0,
            Cmpst => {
                let (cmp, val) = if store_d0 { (d1, d0) } else { (d0, d1) };
                if mem == cmp {
                    val
                } else {
                    mem
                }
            }
        }
    }
}

/// Everything the unit needs to know about an `op_i` code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// The code.
    pub code: u8,
    /// What it does.
    pub kind: Kind,
    /// Element size in bytes (1, 2, 4, 8, 12, 16; 4 for atomics and
    /// permutes).
    pub width: u8,
    /// Two addresses (read2/write2).
    pub two: bool,
    /// The st64 form of read2/write2.
    pub st64: bool,
    /// addtid addressing.
    pub addtid: bool,
    /// Signed sub-dword load.
    pub signed: bool,
    /// Atomic operation, for `Kind::Atomic`.
    pub atomic: Option<Atomic>,
    /// The op returns data (loads, permutes, `_rtn_` atomics).
    pub rtn: bool,
}

const fn info(code: u8, kind: Kind, width: u8, two: bool, st64: bool) -> OpInfo {
    OpInfo {
        code,
        kind,
        width,
        two,
        st64,
        addtid: false,
        signed: false,
        atomic: None,
        rtn: matches!(kind, Kind::Load | Kind::Permute | Kind::Bpermute),
    }
}

impl OpInfo {
    /// The bytes a DWORD-mode address is aligned down to: the element size,
    /// except b96, which is three dword accesses and aligns to 4 (SPEC
    /// §2.3).
    pub const fn align(&self) -> u32 {
        if self.width == 12 {
            4
        } else {
            self.width as u32
        }
    }

    /// Decodes an `op_i` code (6 bits; unknown codes are `Kind::Invalid`).
    pub const fn decode(code: u8) -> OpInfo {
        use Kind::*;
        let code = code & 63;
        match code {
            0 => info(code, Load, 1, false, false),
            1 => OpInfo {
                signed: true,
                ..info(code, Load, 1, false, false)
            },
            2 => info(code, Load, 2, false, false),
            3 => OpInfo {
                signed: true,
                ..info(code, Load, 2, false, false)
            },
            4 => info(code, Load, 4, false, false),
            5 => info(code, Load, 8, false, false),
            6 => info(code, Load, 4, true, false),
            7 => info(code, Load, 8, true, false),
            8 => info(code, Load, 4, true, true),
            9 => info(code, Load, 8, true, true),
            10 => OpInfo {
                addtid: true,
                ..info(code, Load, 4, false, false)
            },
            11 => info(code, Load, 12, false, false),
            12 => info(code, Load, 16, false, false),
            16 => info(code, Store, 1, false, false),
            17 => info(code, Store, 2, false, false),
            18 => info(code, Store, 4, false, false),
            19 => info(code, Store, 8, false, false),
            20 => info(code, Store, 4, true, false),
            21 => info(code, Store, 8, true, false),
            22 => info(code, Store, 4, true, true),
            23 => info(code, Store, 8, true, true),
            24 => OpInfo {
                addtid: true,
                ..info(code, Store, 4, false, false)
            },
            25 => info(code, Store, 12, false, false),
            26 => info(code, Store, 16, false, false),
            28 => info(code, Permute, 4, false, false),
            29 => info(code, Bpermute, 4, false, false),
            32..=63 => match self::Atomic::from_index(code & 15) {
                Some(a) => OpInfo {
                    atomic: Some(a),
                    rtn: code >= 48,
                    ..info(code, Kind::Atomic, 4, false, false)
                },
                None => info(code, Invalid, 4, false, false),
            },
            _ => info(code, Invalid, 4, false, false),
        }
    }
}

const ATOMIC_NAMES: [&str; ATOMICS as usize] = [
    "add", "sub", "rsub", "inc", "dec", "min_i32", "max_i32", "min_u32", "max_u32", "and", "or",
    "xor", "wrxchg", "cmpst",
];

/// Mnemonics of the non-atomic ops, with their codes.
pub const PLAIN_NAMES: &[(&str, u8)] = &[
    ("ds_read_u8", 0),
    ("ds_read_i8", 1),
    ("ds_read_u16", 2),
    ("ds_read_i16", 3),
    ("ds_read_b32", 4),
    ("ds_read_b64", 5),
    ("ds_read2_b32", 6),
    ("ds_read2_b64", 7),
    ("ds_read2st64_b32", 8),
    ("ds_read2st64_b64", 9),
    ("ds_read_addtid_b32", 10),
    ("ds_read_b96", 11),
    ("ds_read_b128", 12),
    ("ds_write_b8", 16),
    ("ds_write_b16", 17),
    ("ds_write_b32", 18),
    ("ds_write_b64", 19),
    ("ds_write2_b32", 20),
    ("ds_write2_b64", 21),
    ("ds_write2st64_b32", 22),
    ("ds_write2st64_b64", 23),
    ("ds_write_addtid_b32", 24),
    ("ds_write_b96", 25),
    ("ds_write_b128", 26),
    ("ds_permute_b32", 28),
    ("ds_bpermute_b32", 29),
];

/// gfx11's spellings of the gfx9 mnemonics, as prefixes.
const GFX11_SPELLINGS: &[(&str, &str)] = &[
    ("ds_load_2addr_stride64_", "ds_read2st64_"),
    ("ds_store_2addr_stride64_", "ds_write2st64_"),
    ("ds_load_2addr_", "ds_read2_"),
    ("ds_store_2addr_", "ds_write2_"),
    ("ds_load_", "ds_read_"),
    ("ds_storexchg", "ds_wrxchg"),
    ("ds_store_", "ds_write_"),
];

/// The code of a mnemonic (`ds_read_b32`, `ds_add_rtn_u32`, `ds_cmpst_b32`,
/// `ds_cmpstore_rtn_b32`, …), in gfx9's or gfx11's spelling (`ds_load_b32`,
/// `ds_store_2addr_b64`, `ds_storexchg_rtn_b32`). Atomics accept the `_u32`,
/// `_i32` and `_b32` suffixes as the ISA spells them; both cmpst spellings
/// name code 45/61 (the operand order is the profile's).
pub fn code_of(name: &str) -> Option<u8> {
    let mut n = name.trim().to_ascii_lowercase();
    if let Some((r, (_, to))) = GFX11_SPELLINGS
        .iter()
        .find_map(|s| n.strip_prefix(s.0).map(|r| (r.to_string(), s)))
    {
        n = format!("{to}{r}");
    }
    if let Some(&(_, c)) = PLAIN_NAMES.iter().find(|(m, _)| *m == n) {
        return Some(c);
    }
    let rest = n.strip_prefix("ds_")?;
    let (rest, rtn) = match rest.find("_rtn") {
        Some(i) => (format!("{}{}", &rest[..i], &rest[i + 4..]), true),
        None => (rest.to_string(), false),
    };
    let base = rest
        .strip_suffix("_u32")
        .or_else(|| rest.strip_suffix("_i32"))
        .or_else(|| rest.strip_suffix("_b32"))
        .unwrap_or(&rest);
    let base = match base {
        "cmpstore" => "cmpst",
        "min" if rest.ends_with("_i32") => "min_i32",
        "max" if rest.ends_with("_i32") => "max_i32",
        "min" if rest.ends_with("_u32") => "min_u32",
        "max" if rest.ends_with("_u32") => "max_u32",
        b => b,
    };
    let a = ATOMIC_NAMES.iter().position(|m| *m == base)? as u8;
    Some(32 + 16 * rtn as u8 + a)
}

/// The mnemonic of a code on a profile (`None` for an invalid code).
pub fn name_of(code: u8, profile: Profile) -> Option<String> {
    if let Some(&(m, _)) = PLAIN_NAMES.iter().find(|(_, c)| *c == code) {
        return Some(m.to_string());
    }
    let i = OpInfo::decode(code);
    let a = i.atomic? as usize;
    let rtn = if i.rtn { "_rtn" } else { "" };
    Some(match a {
        5 | 6 => format!("ds_{}{rtn}_i32", &ATOMIC_NAMES[a][..3]),
        7 | 8 => format!("ds_{}{rtn}_u32", &ATOMIC_NAMES[a][..3]),
        9..=12 => format!("ds_{}{rtn}_b32", ATOMIC_NAMES[a]),
        13 if LdsParams::of(profile).cmpst_store_data0 => format!("ds_cmpstore{rtn}_b32"),
        13 => format!("ds_cmpst{rtn}_b32"),
        _ => format!("ds_{}{rtn}_u32", ATOMIC_NAMES[a]),
    })
}
