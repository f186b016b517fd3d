//! The `ta` transaction: one buffer instruction plus how the testbench
//! presents it, and its simpler variants for shrinking.

use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::{Instr, Kind, Op};
use serde::{Deserialize, Serialize};

/// One buffer instruction plus how the testbench presents it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaTxn {
    /// The 128-bit V#, as hex.
    #[serde(with = "hex128")]
    pub vsharp: u128,
    /// `kind_i`: 0 MUBUF, 1 MUBUF format, 2 MTBUF.
    pub kind: u8,
    /// `op_i`: 0 load, 1 store, 2 atomic, 3 atomic with return.
    pub op: u8,
    /// `size_i`.
    pub size: u8,
    /// `fmt_i`.
    pub fmt: u8,
    /// offen.
    pub offen: bool,
    /// idxen.
    pub idxen: bool,
    /// 12-bit instruction offset.
    pub inst_offset: u16,
    /// SGPR offset.
    pub soffset: u32,
    /// Alignment mode.
    pub align_mode: u8,
    /// Wave64.
    pub wave64: bool,
    /// Exec mask.
    pub exec: u64,
    /// Index VGPR per lane (64 values).
    pub vindex: Vec<u32>,
    /// Offset VGPR per lane (64 values).
    pub voffset: Vec<u32>,
    /// Cycles the testbench waits after taking the transaction before offering it.
    pub gap: u8,
    /// Backpressure: `line_ready_i` while this instruction runs is bit
    /// `cycle % ready_len` of `ready` (always 1 when `ready_len` ≤ 1).
    pub ready: u64,
    /// Length of the `ready` pattern.
    pub ready_len: u8,
}

mod hex128 {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:#034x}"))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let s = String::deserialize(d)?;
        let t = s.trim_start_matches("0x").replace('_', "");
        u128::from_str_radix(&t, 16).map_err(serde::de::Error::custom)
    }
}

impl TaTxn {
    /// The instruction on the request ports.
    pub fn to_instr(&self, out: &mut Instr) {
        out.vsharp = self.vsharp;
        out.kind = Kind::from_bits(self.kind as u32);
        out.op = Op::from_bits(self.op as u32);
        out.size = self.size as u32;
        out.fmt = self.fmt as u32;
        out.offen = self.offen;
        out.idxen = self.idxen;
        out.inst_offset = self.inst_offset as u32 & 0xFFF;
        out.soffset = self.soffset;
        out.align_mode = self.align_mode as u32 & 3;
        out.wave64 = self.wave64;
        out.exec = self.exec;
        // Lanes missing from the lists are 0.
        for (v, o) in [
            (&self.vindex, &mut out.vindex),
            (&self.voffset, &mut out.voffset),
        ] {
            let n = v.len().min(LANES);
            o[..n].copy_from_slice(&v[..n]);
            o[n..].fill(0);
        }
    }

    /// The transaction presenting `i` at once, without backpressure.
    pub fn from_instr(i: &Instr) -> TaTxn {
        TaTxn {
            vsharp: i.vsharp,
            kind: i.kind as u8,
            op: i.op as u8,
            size: i.size as u8,
            fmt: i.fmt as u8,
            offen: i.offen,
            idxen: i.idxen,
            inst_offset: i.inst_offset as u16,
            soffset: i.soffset,
            align_mode: i.align_mode as u8,
            wave64: i.wave64,
            exec: i.exec,
            vindex: i.vindex.to_vec(),
            voffset: i.voffset.to_vec(),
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
    push(&|s| s.exec = s.exec & s.exec.wrapping_neg()); // lowest active lane only
    push(&|s| {
        let n = s.exec.count_ones() / 2;
        let mut e = s.exec;
        for _ in 0..n {
            e &= e - 1;
        }
        s.exec ^= e; // the lower half of the active lanes
    });
    push(&|s| {
        for l in 0..LANES {
            if s.exec >> l & 1 == 0 {
                s.vindex[l] = 0;
                s.voffset[l] = 0;
            }
        }
    });
    push(&|s| {
        s.ready = 0;
        s.ready_len = 0;
        s.gap = 0;
    });
    push(&|s| s.soffset = 0);
    push(&|s| s.inst_offset = 0);
    push(&|s| s.vindex.iter_mut().for_each(|x| *x = 0));
    push(&|s| s.voffset.iter_mut().for_each(|x| *x = 0));
    push(&|s| {
        s.vindex.iter_mut().for_each(|x| *x /= 2);
        s.voffset.iter_mut().for_each(|x| *x /= 2);
    });
    push(&|s| s.align_mode = 3);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::ta::stimulus::{draw, TaKnobs};
    use gpucosim_model::Profile;

    #[test]
    fn transactions_round_trip_through_json() {
        for t in draw(Profile::Gfx9, 1, 20, &TaKnobs::default()) {
            let s = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<TaTxn>(&s).unwrap(), t);
        }
    }

    #[test]
    fn simplify_yields_distinct_simpler_variants() {
        for t in draw(Profile::Gfx11, 5, 20, &TaKnobs::default()) {
            let s = simplify(&t);
            assert!(s.iter().all(|x| *x != t));
            for v in &s {
                assert!(v.exec & !t.exec == 0, "simplifying never enables lanes");
            }
        }
    }
}
