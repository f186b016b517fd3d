//! Buffer data formats as data (SPEC §1.2).
//!
//! gfx9 names a format by `dfmt` (4 bits, the data format) and `nfmt` (3 bits,
//! the number format); only `dfmt` sets the memory footprint. gfx11 replaces
//! both by one unified FORMAT code whose table is LLVM's (`llvm-mc
//! -arch=amdgcn -mcpu=gfx1100`); `model/tests/ta_formats_llvm.rs` checks
//! [`GFX11_FORMATS`] and [`GFX9_DFMT`] against the committed record of what
//! `llvm-mc` 19 prints, and that record against `llvm-mc` when it is
//! installed.
//! A code without an entry (gfx11 codes 64 and up, which the 7-bit MTBUF field
//! can carry) is an invalid format.

/// A data format: the layout of one element in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    /// Invalid (code 0): the access is dropped.
    Invalid,
    /// 8.
    F8,
    /// 16.
    F16,
    /// 8_8.
    F8_8,
    /// 32.
    F32,
    /// 16_16.
    F16_16,
    /// 10_11_11.
    F10_11_11,
    /// 11_11_10.
    F11_11_10,
    /// 10_10_10_2.
    F10_10_10_2,
    /// 2_10_10_10.
    F2_10_10_10,
    /// 8_8_8_8.
    F8_8_8_8,
    /// 32_32.
    F32_32,
    /// 16_16_16_16.
    F16_16_16_16,
    /// 32_32_32.
    F32_32_32,
    /// 32_32_32_32.
    F32_32_32_32,
    /// Reserved (gfx9 dfmt 15): the access is dropped.
    Reserved,
}

impl DataFormat {
    /// Element size in bytes (SPEC §1.2 table); `None` for invalid and reserved.
    pub const fn elem_bytes(self) -> Option<u32> {
        use DataFormat::*;
        match self {
            Invalid | Reserved => None,
            F8 => Some(1),
            F16 | F8_8 => Some(2),
            F32 | F16_16 | F10_11_11 | F11_11_10 | F10_10_10_2 | F2_10_10_10 | F8_8_8_8 => Some(4),
            F32_32 | F16_16_16_16 => Some(8),
            F32_32_32 => Some(12),
            F32_32_32_32 => Some(16),
        }
    }

    /// The name LLVM uses after `BUF_DATA_FORMAT_` (gfx9) / `BUF_FMT_` (gfx11).
    pub const fn name(self) -> &'static str {
        use DataFormat::*;
        match self {
            Invalid => "INVALID",
            F8 => "8",
            F16 => "16",
            F8_8 => "8_8",
            F32 => "32",
            F16_16 => "16_16",
            F10_11_11 => "10_11_11",
            F11_11_10 => "11_11_10",
            F10_10_10_2 => "10_10_10_2",
            F2_10_10_10 => "2_10_10_10",
            F8_8_8_8 => "8_8_8_8",
            F32_32 => "32_32",
            F16_16_16_16 => "16_16_16_16",
            F32_32_32 => "32_32_32",
            F32_32_32_32 => "32_32_32_32",
            Reserved => "RESERVED_15",
        }
    }
}

/// A number format: how the element's bits are interpreted (no effect on
/// addressing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumFormat {
    /// Unsigned normalised.
    Unorm,
    /// Signed normalised.
    Snorm,
    /// Unsigned scaled.
    Uscaled,
    /// Signed scaled.
    Sscaled,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Floating point.
    Float,
}

impl NumFormat {
    /// LLVM's name suffix.
    pub const fn name(self) -> &'static str {
        match self {
            NumFormat::Unorm => "UNORM",
            NumFormat::Snorm => "SNORM",
            NumFormat::Uscaled => "USCALED",
            NumFormat::Sscaled => "SSCALED",
            NumFormat::Uint => "UINT",
            NumFormat::Sint => "SINT",
            NumFormat::Float => "FLOAT",
        }
    }
}

use DataFormat as D;
use NumFormat as N;

/// gfx9 `dfmt` → data format (SPEC §1.2, seed `002`).
pub const GFX9_DFMT: [DataFormat; 16] = [
    D::Invalid,
    D::F8,
    D::F16,
    D::F8_8,
    D::F32,
    D::F16_16,
    D::F10_11_11,
    D::F11_11_10,
    D::F10_10_10_2,
    D::F2_10_10_10,
    D::F8_8_8_8,
    D::F32_32,
    D::F16_16_16_16,
    D::F32_32_32,
    D::F32_32_32_32,
    D::Reserved,
];

/// gfx11 unified FORMAT code → (data format, number format), codes 1..=63
/// (index = code - 1; code 0 is `BUF_FMT_INVALID`). From LLVM 19.
pub const GFX11_FORMATS: [(DataFormat, NumFormat); 63] = [
    (D::F8, N::Unorm),             // 1
    (D::F8, N::Snorm),             // 2
    (D::F8, N::Uscaled),           // 3
    (D::F8, N::Sscaled),           // 4
    (D::F8, N::Uint),              // 5
    (D::F8, N::Sint),              // 6
    (D::F16, N::Unorm),            // 7
    (D::F16, N::Snorm),            // 8
    (D::F16, N::Uscaled),          // 9
    (D::F16, N::Sscaled),          // 10
    (D::F16, N::Uint),             // 11
    (D::F16, N::Sint),             // 12
    (D::F16, N::Float),            // 13
    (D::F8_8, N::Unorm),           // 14
    (D::F8_8, N::Snorm),           // 15
    (D::F8_8, N::Uscaled),         // 16
    (D::F8_8, N::Sscaled),         // 17
    (D::F8_8, N::Uint),            // 18
    (D::F8_8, N::Sint),            // 19
    (D::F32, N::Uint),             // 20
    (D::F32, N::Sint),             // 21
    (D::F32, N::Float),            // 22
    (D::F16_16, N::Unorm),         // 23
    (D::F16_16, N::Snorm),         // 24
    (D::F16_16, N::Uscaled),       // 25
    (D::F16_16, N::Sscaled),       // 26
    (D::F16_16, N::Uint),          // 27
    (D::F16_16, N::Sint),          // 28
    (D::F16_16, N::Float),         // 29
    (D::F10_11_11, N::Float),      // 30
    (D::F11_11_10, N::Float),      // 31
    (D::F10_10_10_2, N::Unorm),    // 32
    (D::F10_10_10_2, N::Snorm),    // 33
    (D::F10_10_10_2, N::Uint),     // 34
    (D::F10_10_10_2, N::Sint),     // 35
    (D::F2_10_10_10, N::Unorm),    // 36
    (D::F2_10_10_10, N::Snorm),    // 37
    (D::F2_10_10_10, N::Uscaled),  // 38
    (D::F2_10_10_10, N::Sscaled),  // 39
    (D::F2_10_10_10, N::Uint),     // 40
    (D::F2_10_10_10, N::Sint),     // 41
    (D::F8_8_8_8, N::Unorm),       // 42
    (D::F8_8_8_8, N::Snorm),       // 43
    (D::F8_8_8_8, N::Uscaled),     // 44
    (D::F8_8_8_8, N::Sscaled),     // 45
    (D::F8_8_8_8, N::Uint),        // 46
    (D::F8_8_8_8, N::Sint),        // 47
    (D::F32_32, N::Uint),          // 48
    (D::F32_32, N::Sint),          // 49
    (D::F32_32, N::Float),         // 50
    (D::F16_16_16_16, N::Unorm),   // 51
    (D::F16_16_16_16, N::Snorm),   // 52
    (D::F16_16_16_16, N::Uscaled), // 53
    (D::F16_16_16_16, N::Sscaled), // 54
    (D::F16_16_16_16, N::Uint),    // 55
    (D::F16_16_16_16, N::Sint),    // 56
    (D::F16_16_16_16, N::Float),   // 57
    (D::F32_32_32, N::Uint),       // 58
    (D::F32_32_32, N::Sint),       // 59
    (D::F32_32_32, N::Float),      // 60
    (D::F32_32_32_32, N::Uint),    // 61
    (D::F32_32_32_32, N::Sint),    // 62
    (D::F32_32_32_32, N::Float),   // 63
];

/// gfx11 FORMAT code → (data format, number format); `None` for code 0
/// (`BUF_FMT_INVALID`) and codes without a table entry.
pub const fn gfx11_format(code: u32) -> Option<(DataFormat, NumFormat)> {
    if code == 0 || code as usize > GFX11_FORMATS.len() {
        None
    } else {
        Some(GFX11_FORMATS[code as usize - 1])
    }
}

/// gfx11 FORMAT code by LLVM name (`BUF_FMT_32_FLOAT` or `32_FLOAT`).
pub fn gfx11_format_by_name(name: &str) -> Option<u32> {
    let n = name.strip_prefix("BUF_FMT_").unwrap_or(name);
    if n.eq_ignore_ascii_case("INVALID") {
        return Some(0);
    }
    GFX11_FORMATS
        .iter()
        .position(|(d, f)| n.eq_ignore_ascii_case(&format!("{}_{}", d.name(), f.name())))
        .map(|i| i as u32 + 1)
}

/// gfx9 dfmt by LLVM name (`BUF_DATA_FORMAT_32` or `32`).
pub fn gfx9_dfmt_by_name(name: &str) -> Option<u32> {
    let n = name.strip_prefix("BUF_DATA_FORMAT_").unwrap_or(name);
    GFX9_DFMT
        .iter()
        .position(|d| d.name().eq_ignore_ascii_case(n))
        .map(|i| i as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx11_code_edges() {
        assert_eq!(gfx11_format(0), None);
        assert_eq!(gfx11_format(1), Some((D::F8, N::Unorm)));
        assert_eq!(gfx11_format(63), Some((D::F32_32_32_32, N::Float)));
        assert_eq!(
            gfx11_format(64),
            None,
            "7-bit MTBUF codes past the table are invalid"
        );
        assert_eq!(gfx11_format(127), None);
    }

    #[test]
    fn names_round_trip() {
        for code in 1..=63 {
            let (d, f) = gfx11_format(code).unwrap();
            let name = format!("BUF_FMT_{}_{}", d.name(), f.name());
            assert_eq!(gfx11_format_by_name(&name), Some(code), "{name}");
        }
        assert_eq!(gfx9_dfmt_by_name("BUF_DATA_FORMAT_32_32_32"), Some(13));
        assert_eq!(gfx9_dfmt_by_name("nope"), None);
    }

    #[test]
    fn spec_element_sizes() {
        // SPEC §1.2: 8→1, 16→2, 8_8→2, 32→4, ..., 32_32_32_32→16; 0 and 15 dropped.
        let sizes: Vec<Option<u32>> = GFX9_DFMT.iter().map(|d| d.elem_bytes()).collect();
        let want = [
            None,
            Some(1),
            Some(2),
            Some(2),
            Some(4),
            Some(4),
            Some(4),
            Some(4),
            Some(4),
            Some(4),
            Some(4),
            Some(8),
            Some(8),
            Some(12),
            Some(16),
            None,
        ];
        assert_eq!(sizes, want);
    }
}
