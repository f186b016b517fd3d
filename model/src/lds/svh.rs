//! `rtl/lds/lds_enc.svh`: the sizes (lanes, slots, banks, RAM), the
//! operation kinds, the atomic codes, the decoded-operation record and the
//! `op_i` decode table, rendered from the [`tlm`](super::tlm) and
//! [`params`](super::params) sizes, [`OpInfo::decode`] and [`Atomic`] for
//! the RTL package (`crate::svh`).

use super::isa::{Atomic, Kind, OpInfo, ATOMICS};
use super::params::MAX_BANKS;
use super::tlm::{LANES, NSLOTS, PASS_SLOTS, RAM_AW, RAM_DWORDS, SLOTS};
use crate::svh::{bit, lit, Svh};

/// Every kind, in code order (the RTL's `kind_e`).
const KINDS: [Kind; 6] = [
    Kind::Invalid,
    Kind::Load,
    Kind::Store,
    Kind::Atomic,
    Kind::Permute,
    Kind::Bpermute,
];

fn kind_name(k: Kind) -> String {
    format!("Kind{k:?}")
}

#[doc(hidden)]
pub fn kind_code(k: Kind) -> u64 {
    KINDS
        .iter()
        .position(|x| *x == k)
        .expect("every kind is listed") as u64
}

/// The text of `rtl/lds/lds_enc.svh`.
pub fn enc_svh() -> String {
    let mut s = Svh::new(
        "lds",
        "model/src/lds (tlm.rs sizes, params.rs MAX_BANKS, isa.rs Kind, Atomic, OpInfo::decode)",
    );
    s.comment("Sizes.");
    s.sizes(&[
        ("Lanes", LANES as u64, "LANES"),
        ("SlotsPerLane", SLOTS as u64, "SLOTS: dword slots per lane"),
        ("NumSlots", NSLOTS as u64, "NSLOTS = Lanes * SlotsPerLane"),
        (
            "PassSlots",
            PASS_SLOTS as u64,
            "PASS_SLOTS: of a 32-lane pass",
        ),
        ("MaxBanks", MAX_BANKS.into(), "MAX_BANKS: of any mode"),
        (
            "RamDwords",
            RAM_DWORDS as u64,
            "RAM_DWORDS: the largest RAM",
        ),
        ("RamAw", RAM_AW.into(), "RAM_AW = $clog2(RamDwords)"),
    ]);
    s.line("");
    s.comment("What an operation does with memory.");
    s.line("typedef enum logic [2:0] {");
    for (i, k) in KINDS.iter().enumerate() {
        let comma = if i + 1 < KINDS.len() { "," } else { "" };
        s.line(format!(
            "  {} = {}{comma}",
            kind_name(*k),
            lit(3, kind_code(*k))
        ));
    }
    s.line("} kind_e;");
    s.line("");
    s.comment("32-bit atomic operations: op_i[3:0] of an atomic (op_i[5] set, op_i[4] = return).");
    for a in 0..ATOMICS {
        let atom = Atomic::from_index(a).expect("every index below ATOMICS is an atomic");
        s.line(format!(
            "localparam logic [3:0] Atom{atom:?} = {};",
            lit(4, a.into())
        ));
    }
    s.line("");
    s.comment("Everything the unit needs to know about an op_i code.");
    s.line("typedef struct packed {");
    s.line("  kind_e      kind;");
    s.line("  logic [4:0] width;   // element bytes: 1, 2, 4, 8, 12, 16");
    s.line("  logic       two;     // read2 / write2");
    s.line("  logic       st64;");
    s.line("  logic       addtid;");
    s.line("  logic       signext; // signed sub-dword load");
    s.line("  logic       rtn;     // returns data");
    s.line("  logic [3:0] atom;");
    s.line("} opinfo_t;");
    s.line("");
    s.comment("The op_i decode table: every code (unknown codes are KindInvalid).");
    s.line("function automatic opinfo_t decode_op(input logic [5:0] op);");
    s.line("  opinfo_t o;");
    s.line("  unique case (op)");
    for code in 0..64u8 {
        let i = OpInfo::decode(code);
        s.line(format!(
            "    {}: o = '{{kind: {}, width: {}, two: {}, st64: {}, addtid: {}, signext: {}, rtn: {}, atom: {}}};",
            lit(6, code.into()),
            kind_name(i.kind),
            lit(5, i.width.into()),
            bit(i.two),
            bit(i.st64),
            bit(i.addtid),
            bit(i.signed),
            bit(i.rtn),
            lit(4, i.atomic.map_or(0, |a| a as u64)),
        ));
    }
    s.line("    default: o = '0;");
    s.line("  endcase");
    s.line("  return o;");
    s.line("endfunction");
    s.finish()
}
