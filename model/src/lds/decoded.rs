//! The `lds` unit's decoded waveform signals ([`crate::decode`]): the
//! instruction in flight as text (`tb.in.instr`) and, per lane, the bank
//! and the dword (relative to the wave's allocation) of its first access
//! (`tb.in.access.lane5.bank`, `….dword`), from the bank mapping of the
//! model itself ([`Lds::accept`]: the profile's banks in the instruction's
//! mode, alignment, `offset0`/`offset1`, addtid, read2/write2).
//!
//! Both are taken in the cycle the model accepts an instruction
//! (`req_valid_i` and the model's `req_ready_o`) and held while it is
//! served. A lane without an access (inactive, a misaligned atomic, a
//! permute) has an unknown bank and dword (`x`).

use super::cycle::read_request;
use super::isa::{name_of, OpInfo};
use super::ports::lds_ports as P;
use super::tlm::{Lds, Request, LANES, SLOTS};
use crate::decode::{set_text, Decoder, Group, Kind, Signal, Value};
use crate::profile::Profile;

/// The `lds` decoder of one profile.
pub struct LdsDecoder {
    profile: Profile,
    lds: Box<Lds>,
    req: Box<Request>,
}

impl LdsDecoder {
    /// The decoder for `profile`.
    pub fn new(profile: Profile) -> LdsDecoder {
        LdsDecoder {
            profile,
            lds: Box::new(Lds::new(profile)),
            req: Box::default(),
        }
    }
}

/// The instruction as one line: `ds_write2_b32 offset0:1 offset1:2
/// exec:0xffff`.
pub fn instr_text(profile: Profile, r: &Request) -> String {
    let info = OpInfo::decode(r.op);
    let name = name_of(r.op, profile).unwrap_or_else(|| format!("invalid op {}", r.op));
    let mut s = name;
    if info.two {
        s += &format!(" offset0:{} offset1:{}", r.offset0, r.offset1);
    } else {
        let off = u32::from(r.offset1) << 8 | u32::from(r.offset0);
        if off != 0 {
            s += &format!(" offset:{off}");
        }
    }
    if info.addtid {
        s += &format!(" m0:{:#x}", r.m0);
    }
    if profile.wave32() && !r.wave64 {
        s += " wave32";
    }
    s + &format!(" exec:{:#x}", r.exec)
}

impl Decoder for LdsDecoder {
    fn signals(&self) -> Vec<Signal> {
        let mut v = vec![Signal::computed(Group::In, &[], "instr", Kind::Text, 0)];
        for l in 0..LANES {
            let lane = format!("lane{l}");
            let scope = ["access", lane.as_str()];
            let n = 1 + 2 * l;
            v.push(
                Signal::computed(Group::In, &scope, "bank", Kind::Int(6), n)
                    .of_item("lane", l as u32),
            );
            v.push(
                Signal::computed(Group::In, &scope, "dword", Kind::Bits(30), n + 1)
                    .of_item("lane", l as u32),
            );
        }
        v
    }

    fn decode(&mut self, inputs: &[u32], model: &[u32], _rtl: &[u32], out: &mut [Value]) {
        let accepted =
            P::rst_ni.bit(inputs) && P::req_valid_i.bit(inputs) && P::req_ready_o.bit(model);
        if !accepted {
            out.iter_mut().for_each(|v| *v = Value::Keep);
            return;
        }
        read_request(inputs, &mut self.req);
        self.lds.reset();
        self.lds.accept(&self.req);
        set_text(
            &mut out[0],
            format_args!("{}", instr_text(self.profile, &self.req)),
        );
        for l in 0..LANES {
            let first = (0..SLOTS)
                .map(|k| self.lds.slot(SLOTS * l + k))
                .find(|s| s.exists);
            let (bank, dword) = match first {
                Some(s) => (Value::Num(s.bank.into()), Value::Num(s.dword.into())),
                None => (Value::Unknown, Value::Unknown),
            };
            out[1 + 2 * l] = bank;
            out[2 + 2 * l] = dword;
        }
    }

    fn fresh(&self) -> Box<dyn Decoder> {
        Box::new(LdsDecoder::new(self.profile))
    }
}
