//! The `ta` transaction: one buffer instruction plus how the testbench
//! presents it, and its simpler variants for shrinking.

use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::Instr;
use serde::{Deserialize, Serialize};

/// One buffer instruction (the model's [`Instr`]) plus how the testbench
/// presents it. Serialised flat: the instruction's fields, then `gap`,
/// `ready` and `ready_len`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaTxn {
    /// The instruction on the request ports.
    #[serde(flatten)]
    pub instr: Instr,
    /// Cycles the testbench waits after taking the transaction before offering it.
    pub gap: u8,
    /// Backpressure: `line_ready_i` while this instruction runs is bit
    /// `cycle % ready_len` of `ready` (always 1 when `ready_len` ≤ 1).
    pub ready: u64,
    /// Length of the `ready` pattern.
    pub ready_len: u8,
}

impl TaTxn {
    /// The transaction presenting `i` at once, without backpressure.
    pub fn from_instr(i: &Instr) -> TaTxn {
        TaTxn {
            instr: i.clone(),
            gap: 0,
            ready: 0,
            ready_len: 0,
        }
    }
}

/// Simpler variants of a transaction, simplest first.
pub fn simplify(t: &TaTxn) -> Vec<TaTxn> {
    let mut v: Vec<TaTxn> = Vec::new();
    let mut push = |f: &dyn Fn(&mut TaTxn)| {
        let mut s = t.clone();
        f(&mut s);
        if s != *t && !v.contains(&s) {
            v.push(s);
        }
    };
    push(&|s| s.instr.exec = s.instr.exec & s.instr.exec.wrapping_neg()); // lowest active lane only
    push(&|s| {
        let n = s.instr.exec.count_ones() / 2;
        let mut e = s.instr.exec;
        for _ in 0..n {
            e &= e - 1;
        }
        s.instr.exec ^= e; // the lower half of the active lanes
    });
    push(&|s| {
        for l in 0..LANES {
            if s.instr.exec >> l & 1 == 0 {
                s.instr.vindex[l] = 0;
                s.instr.voffset[l] = 0;
            }
        }
    });
    push(&|s| {
        s.ready = 0;
        s.ready_len = 0;
        s.gap = 0;
    });
    push(&|s| s.instr.soffset = 0);
    push(&|s| s.instr.inst_offset = 0);
    push(&|s| s.instr.vindex.iter_mut().for_each(|x| *x = 0));
    push(&|s| s.instr.voffset.iter_mut().for_each(|x| *x = 0));
    push(&|s| {
        s.instr.vindex.iter_mut().for_each(|x| *x /= 2);
        s.instr.voffset.iter_mut().for_each(|x| *x /= 2);
    });
    push(&|s| s.instr.align_mode = 3);
    v
}
