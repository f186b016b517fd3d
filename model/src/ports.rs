//! Port tables: the one source of truth for a unit's top-level ports.
//!
//! Each unit declares its ports once with [`ports!`](crate::ports!). From that
//! table come the SystemVerilog port list (`rtl/<unit>/<unit>_ports.svh`,
//! generated and checked by a test), the C++ shim around the Verilated model,
//! the packed buffers the lock-step engine moves every cycle, and the signal
//! list of the waveforms.
//!
//! Packing: every port occupies `ceil(width / 32)` consecutive `u32` words of
//! its direction's buffer, least significant word first, in declaration order.
//! Bits above the port's width are zero. Besides the ports in the table, every
//! top has `input logic clk_i` and `input logic rst_ni` (asynchronous,
//! active-low reset): `rst_ni` is the first input of every table, `clk_i` is
//! owned by the engine and is not in the table.

/// Direction of a port, seen from the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Driven by the testbench.
    In,
    /// Driven by the unit, compared every cycle.
    Out,
}

/// One top-level port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortDef {
    /// SystemVerilog name, with the `_i` / `_o` suffix.
    pub name: &'static str,
    /// Direction.
    pub dir: Dir,
    /// Width of one element in bits.
    pub elem_width: u32,
    /// Number of elements (1 for a scalar port). Arrays are packed
    /// `[elems-1:0][elem_width-1:0]`, element 0 in the least significant bits.
    pub elems: u32,
}

impl PortDef {
    /// Total width in bits.
    pub const fn width(&self) -> u32 {
        self.elem_width * self.elems
    }
    /// Number of `u32` words the port occupies in a packed buffer.
    pub const fn words(&self) -> usize {
        self.width().div_ceil(32) as usize
    }
    /// Its SystemVerilog packed type: `logic`, `logic [W-1:0]` or
    /// `logic [E-1:0][W-1:0]` (element 0 in the least significant bits).
    pub fn sv_type(&self) -> String {
        if self.elems > 1 {
            format!("logic [{}:0][{}:0]", self.elems - 1, self.elem_width - 1)
        } else if self.elem_width > 1 {
            format!("logic [{}:0]", self.elem_width - 1)
        } else {
            "logic".to_string()
        }
    }
}

/// A port resolved to its place in its direction's packed buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    /// Index in the unit's table.
    pub index: usize,
    /// First word in the packed buffer of its direction.
    pub offset: usize,
    /// Width in bits.
    pub width: u32,
    /// Element width in bits.
    pub elem_width: u32,
}

impl Port {
    /// Resolves entry `index` of `table` (usable in `const` context).
    pub const fn at(table: &[PortDef], index: usize) -> Port {
        let dir = table[index].dir;
        let mut offset = 0;
        let mut i = 0;
        while i < index {
            if matches!(
                (table[i].dir, dir),
                (Dir::In, Dir::In) | (Dir::Out, Dir::Out)
            ) {
                offset += table[i].words();
            }
            i += 1;
        }
        Port {
            index,
            offset,
            width: table[index].width(),
            elem_width: table[index].elem_width,
        }
    }

    /// Number of words.
    #[inline]
    pub const fn words(&self) -> usize {
        self.width.div_ceil(32) as usize
    }

    /// Reads a port of at most 64 bits.
    #[inline]
    pub fn get(&self, buf: &[u32]) -> u64 {
        debug_assert!(self.width <= 64);
        if self.width <= 32 {
            buf[self.offset] as u64
        } else {
            buf[self.offset] as u64 | (buf[self.offset + 1] as u64) << 32
        }
    }

    /// Reads a one-bit port.
    #[inline]
    pub fn bit(&self, buf: &[u32]) -> bool {
        buf[self.offset] & 1 != 0
    }

    /// Writes a port of at most 64 bits; bits above the width are dropped.
    #[inline]
    pub fn set(&self, buf: &mut [u32], value: u64) {
        debug_assert!(self.width <= 64);
        let v = value & mask64(self.width);
        buf[self.offset] = v as u32;
        if self.width > 32 {
            buf[self.offset + 1] = (v >> 32) as u32;
        }
    }

    /// The port's words.
    #[inline]
    pub fn slice<'a>(&self, buf: &'a [u32]) -> &'a [u32] {
        &buf[self.offset..self.offset + self.words()]
    }

    /// The port's words, mutable.
    #[inline]
    pub fn slice_mut<'a>(&self, buf: &'a mut [u32]) -> &'a mut [u32] {
        let n = self.words();
        &mut buf[self.offset..self.offset + n]
    }

    /// Reads element `i` of an array port (element width at most 64 bits).
    // Always inlined: with a constant `Port` the width match folds away.
    #[inline(always)]
    pub fn elem(&self, buf: &[u32], i: usize) -> u64 {
        let words = self.slice(buf);
        // Fast paths for elements that are whole words (the common 32- and
        // 64-bit lanes): element `i` is word `i` or words `2i, 2i + 1`.
        // Same result as the bit loop, including the panic on an element
        // past the port's words.
        match self.elem_width {
            32 => u64::from(words[i]),
            64 => u64::from(words[2 * i]) | u64::from(words[2 * i + 1]) << 32,
            w => get_bits(words, i * w as usize, w),
        }
    }

    /// Writes element `i` of an array port (element width at most 64 bits).
    // Always inlined: with a constant `Port` the width match folds away.
    #[inline(always)]
    pub fn set_elem(&self, buf: &mut [u32], i: usize, value: u64) {
        let words = self.slice_mut(buf);
        // Whole-word elements as in `elem`; bits above the width dropped.
        match self.elem_width {
            32 => words[i] = value as u32,
            64 => {
                words[2 * i] = value as u32;
                words[2 * i + 1] = (value >> 32) as u32;
            }
            w => set_bits(words, i * w as usize, w, value),
        }
    }

    /// Reads bit `i` of the port.
    #[inline]
    pub fn get_bit(&self, buf: &[u32], i: usize) -> bool {
        buf[self.offset + i / 32] >> (i % 32) & 1 != 0
    }

    /// Writes bit `i` of the port.
    #[inline]
    pub fn set_bit(&self, buf: &mut [u32], i: usize, v: bool) {
        let w = &mut buf[self.offset + i / 32];
        if v {
            *w |= 1 << (i % 32);
        } else {
            *w &= !(1 << (i % 32));
        }
    }
}

/// All ones in the low `width` bits (`width` ≤ 64).
#[inline]
pub const fn mask64(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Reads `width` (≤ 64) bits at bit `lsb` of a little-endian word slice.
#[inline]
pub fn get_bits(words: &[u32], lsb: usize, width: u32) -> u64 {
    let mut v: u64 = 0;
    let mut got = 0u32;
    let mut bit = lsb;
    while got < width {
        let w = bit / 32;
        let sh = (bit % 32) as u32;
        let take = (32 - sh).min(width - got);
        let chunk = (words[w] >> sh) as u64 & mask64(take);
        v |= chunk << got;
        got += take;
        bit += take as usize;
    }
    v
}

/// Writes `width` (≤ 64) bits at bit `lsb` of a little-endian word slice.
#[inline]
pub fn set_bits(words: &mut [u32], lsb: usize, width: u32, value: u64) {
    let mut put = 0u32;
    let mut bit = lsb;
    while put < width {
        let w = bit / 32;
        let sh = (bit % 32) as u32;
        let take = (32 - sh).min(width - put);
        let m = (mask64(take) as u32) << sh;
        let chunk = ((value >> put) as u32) << sh;
        words[w] = (words[w] & !m) | (chunk & m);
        put += take;
        bit += take as usize;
    }
}

/// A unit's complete port table with its packed sizes.
#[derive(Debug, Clone, Copy)]
pub struct PortTable {
    /// Unit name as used on the command line (`ta`, `lds`, `waitcnt`).
    pub unit: &'static str,
    /// SystemVerilog top module name.
    pub top: &'static str,
    /// The ports, `rst_ni` first.
    pub ports: &'static [PortDef],
}

impl PortTable {
    /// Words in the packed input buffer.
    pub fn in_words(&self) -> usize {
        self.dir_words(Dir::In)
    }
    /// Words in the packed output buffer.
    pub fn out_words(&self) -> usize {
        self.dir_words(Dir::Out)
    }
    fn dir_words(&self, d: Dir) -> usize {
        self.ports
            .iter()
            .filter(|p| p.dir == d)
            .map(|p| p.words())
            .sum()
    }
    /// Every port resolved to its buffer offset.
    pub fn resolved(&self) -> impl Iterator<Item = (&'static PortDef, Port)> + '_ {
        self.ports
            .iter()
            .enumerate()
            .map(|(i, d)| (d, Port::at(self.ports, i)))
    }
    /// Ports of one direction.
    pub fn of(&self, d: Dir) -> impl Iterator<Item = (&'static PortDef, Port)> + '_ {
        self.resolved().filter(move |(p, _)| p.dir == d)
    }
    /// Looks a port up by name.
    pub fn find(&self, name: &str) -> Option<(&'static PortDef, Port)> {
        self.resolved().find(|(p, _)| p.name == name)
    }

    /// The SystemVerilog ANSI port list for the top module, meant to be
    /// `` `include``d between the parentheses of the module header.
    pub fn sv_port_list(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "// Generated from the `{}` port table in model/src by\n\
             // `GPUCOSIM_BLESS=1 cargo test -p gpucosim --test rtl_generated`.\n\
             // Do not edit: change the table and regenerate.\n",
            self.unit
        ));
        s.push_str("input  logic clk_i,\n");
        let n = self.ports.len();
        for (i, p) in self.ports.iter().enumerate() {
            let dir = match p.dir {
                Dir::In => "input ",
                Dir::Out => "output",
            };
            let ty = p.sv_type();
            let sep = if i + 1 == n { "" } else { "," };
            s.push_str(&format!("{dir} {ty} {}{sep}\n", p.name));
        }
        s
    }
}

/// Declares a unit's port table as a module of `Port` constants.
///
/// Each port is `input` or `output`, its name, and its width, or its element
/// width `x` its number of elements. A width or a count is an integer
/// literal, the name of a constant, or a parenthesised constant expression,
/// of any integer type, between 1 and `u32::MAX` (else the table does not
/// compile); names are looked up where the table is written.
///
/// ```
/// /// Lanes of the toy unit.
/// const LANES: usize = 4;
///
/// gpucosim_model::ports! {
///     /// Ports of a toy unit.
///     pub mod toy_ports("toy", "toy_top") {
///         input rst_ni: 1,
///         input data_i: 32 x LANES,
///         output sum_o: (32 + LANES.ilog2() as u32),
///     }
/// }
///
/// fn main() {
///     assert_eq!(toy_ports::data_i.offset, 1);
///     assert_eq!(toy_ports::data_i.width, 128);
///     assert_eq!(toy_ports::TABLE.in_words(), 5);
///     assert_eq!(toy_ports::sum_o.width, 34);
///     assert_eq!(toy_ports::sum_o.words(), 2);
/// }
/// ```
#[macro_export]
macro_rules! ports {
    ($(#[$m:meta])* $vis:vis mod $name:ident ($unit:literal, $top:literal) {
        $( $(#[$pm:meta])* $dir:ident $port:ident : $w:tt $(x $n:tt)? ),* $(,)?
    }) => {
        $(#[$m])*
        #[allow(non_upper_case_globals, missing_docs)]
        $vis mod $name {
            // The sizes name constants of the module the table is written in.
            #[allow(unused_imports)]
            use super::*;
            use $crate::ports::{Port, PortDef, PortTable};
            #[allow(non_camel_case_types, dead_code, clippy::upper_case_acronyms)]
            #[repr(usize)]
            enum Idx { $($port),* }
            /// The port definitions in declaration order.
            pub const DEFS: &[PortDef] = &[ $( PortDef {
                name: stringify!($port),
                dir: $crate::ports!(@dir $dir),
                elem_width: $crate::ports::size($w as u64),
                elems: $crate::ports!(@n $($n)?),
            } ),* ];
            /// The table.
            pub const TABLE: PortTable = PortTable { unit: $unit, top: $top, ports: DEFS };
            $( $(#[$pm])* pub const $port: Port = Port::at(DEFS, Idx::$port as usize); )*
        }
    };
    (@dir input) => { $crate::ports::Dir::In };
    (@dir output) => { $crate::ports::Dir::Out };
    (@n) => { 1 };
    (@n $n:tt) => { $crate::ports::size($n as u64) };
}

/// A port width or element count of [`ports!`](crate::ports!), checked
/// (at compile time, where the table is a constant) to be 1 ..= `u32::MAX`.
#[doc(hidden)]
pub const fn size(v: u64) -> u32 {
    assert!(
        v >= 1 && v <= u32::MAX as u64,
        "a port width or element count is 1 ..= u32::MAX"
    );
    v as u32
}
