//! The cycle model of `lds_top` (`docs/lds.md`): [`LdsModel`] drives the
//! state machine of [`super::tlm`] from the packed port words for the
//! lock-step engine.

use super::cover::{bin, BINS_GFX9, COVERAGE_BINS};
use super::isa::{self, Kind};
use super::params::LdsParams;
use super::ports::lds_ports as P;
use super::tlm::{Lds, Request, LANES, SLOTS};
use crate::ports::PortTable;
use crate::{Coverage, Profile, Unit};

/// The cycle-level model of `lds_top`.
pub struct LdsModel {
    lds: Lds,
    req: Box<Request>,
    done: bool,
    cov: Coverage,
}

impl LdsModel {
    /// A model in its reset state with all-zero RAM.
    pub fn new(profile: Profile) -> Self {
        let names = if LdsParams::of(profile).cu_mode.is_some() {
            COVERAGE_BINS
        } else {
            &COVERAGE_BINS[..BINS_GFX9]
        };
        LdsModel {
            lds: Lds::new(profile),
            req: Box::default(),
            done: false,
            cov: Coverage::new(names),
        }
    }

    /// The state machine inside.
    pub fn lds(&self) -> &Lds {
        &self.lds
    }

    fn decode(&mut self, inp: &[u32]) {
        let r = &mut self.req;
        r.op = P::op_i.get(inp) as u8;
        r.wave64 = P::wave64_i.bit(inp);
        r.wgp = P::wgp_i.bit(inp);
        r.unaligned = P::unaligned_i.bit(inp);
        r.exec = P::exec_i.get(inp);
        r.offset0 = P::offset0_i.get(inp) as u8;
        r.offset1 = P::offset1_i.get(inp) as u8;
        r.m0 = P::m0_i.get(inp) as u32;
        r.lds_base = P::lds_base_i.get(inp) as u16;
        r.lds_size = P::lds_size_i.get(inp) as u32;
        let a = P::addr_i.slice(inp);
        let d0 = P::data0_i.slice(inp);
        let d1 = P::data1_i.slice(inp);
        for l in 0..LANES {
            r.addr[l] = a[l];
            r.data0[l] = u64::from(d0[2 * l]) | u64::from(d0[2 * l + 1]) << 32;
            r.data1[l] = u64::from(d1[2 * l]) | u64::from(d1[2 * l + 1]) << 32;
        }
    }

    fn write_results(&self, out: &mut [u32]) {
        let o = &self.lds.out;
        let rd = P::rdata_o.slice_mut(out);
        for (words, &r) in rd.chunks_exact_mut(4).zip(o.rdata.iter()) {
            words.copy_from_slice(&[
                r as u32,
                (r >> 32) as u32,
                (r >> 64) as u32,
                (r >> 96) as u32,
            ]);
        }
        let oor = P::oor_o.slice_mut(out);
        for (w, word) in oor.iter_mut().enumerate() {
            *word = u32::from_le_bytes([
                o.oor[4 * w],
                o.oor[4 * w + 1],
                o.oor[4 * w + 2],
                o.oor[4 * w + 3],
            ]);
        }
        P::memviol_o.set(out, o.memviol);
        P::cycles_o.set(out, u64::from(o.cycles));
    }

    fn cover_accept(&mut self) {
        let info = self.lds.info();
        let c = &mut self.cov;
        let r = &self.req;
        let b = match info.kind {
            Kind::Load if info.signed => bin::LOAD_SIGNED,
            Kind::Load if info.two => bin::LOAD_TWO,
            Kind::Load if info.addtid => bin::LOAD_ADDTID,
            Kind::Load => bin::LOAD,
            Kind::Store if info.width < 4 => bin::STORE_SUB,
            Kind::Store if info.two => bin::STORE_TWO,
            Kind::Store if info.addtid => bin::STORE_ADDTID,
            Kind::Store => bin::STORE,
            Kind::Atomic if info.rtn => bin::ATOMIC_RTN,
            Kind::Atomic => bin::ATOMIC,
            Kind::Permute => bin::PERMUTE,
            Kind::Bpermute => bin::BPERMUTE,
            Kind::Invalid => bin::INVALID,
        };
        c.hit(b);
        let active = self.lds.active();
        if active == 0 {
            c.hit(bin::EXEC_ZERO);
        } else if active as u32 == 0 {
            c.hit(bin::PASS_SKIPPED);
        } else if active >> 32 != 0 {
            c.hit(bin::TWO_PASSES);
        }
        if self.done {
            c.hit(bin::BACK_TO_BACK);
        }
        // From the per-lane slot masks: a straddle is element 0 spilling
        // into a second dword (slot 1) without filling its first one.
        let mut straddle = false;
        let mut oor = false;
        let mut partial = false;
        let (exists, oor_mask) = (self.lds.slot_mask(), self.lds.oor_mask());
        for l in 0..LANES {
            let (n, n_oor) = (exists[l], oor_mask[l]);
            straddle |= n & 2 != 0 && self.lds.slot(SLOTS * l).be != 0xF;
            oor |= n_oor != 0;
            partial |= n_oor != 0 && n_oor != n;
        }
        if straddle {
            c.hit(bin::STRADDLE);
        }
        if oor {
            c.hit(bin::OOR);
        }
        if self.lds.memviol_lanes() != 0 {
            c.hit(bin::MEMVIOL);
        }
        if partial {
            c.hit(bin::OOR_PARTIAL);
        }
        if c.hits.len() > BINS_GFX9 {
            if !r.wave64 {
                c.hit(bin::WAVE32);
            }
            c.hit(if r.wgp { bin::MODE_WGP } else { bin::MODE_CU });
        }
    }

    fn cover_cycle(&mut self) {
        let e = self.lds.events;
        let c = &mut self.cov;
        if e.broadcast {
            c.hit(bin::BROADCAST);
        }
        if e.write_merge {
            c.hit(bin::WRITE_MERGE);
        }
        if e.atomic_serialised {
            c.hit(bin::ATOMIC_SERIAL);
        }
        if let Some(n) = e.pass_end {
            c.hit(match n {
                0 | 1 => bin::PASS_LEN,
                2 => bin::PASS_LEN + 1,
                3..=8 => bin::PASS_LEN + 2,
                _ => bin::PASS_LEN + 3,
            });
        }
    }
}

impl Unit for LdsModel {
    fn table(&self) -> &'static PortTable {
        &P::TABLE
    }

    fn profile(&self) -> Profile {
        self.lds.profile()
    }

    fn step(&mut self, inp: &[u32], out: &mut [u32]) {
        if !P::rst_ni.bit(inp) {
            self.lds.reset();
            self.done = false;
            out.fill(0);
            P::req_ready_o.set(out, 1);
            return;
        }
        // Outputs of this cycle, from registered state.
        self.lds.arbitrate();
        let busy = self.lds.busy();
        P::req_ready_o.set(out, u64::from(!busy));
        P::busy_o.set(out, u64::from(busy));
        P::grant_lanes_o.set(out, self.lds.grant_lanes);
        P::grant_banks_o.set(out, self.lds.grant_banks);
        P::done_o.set(out, u64::from(self.done));
        if self.done {
            self.write_results(out);
        }
        // The rising edge.
        if busy {
            let finished = self.lds.commit();
            self.cover_cycle();
            self.done = finished;
        } else {
            if P::req_valid_i.bit(inp) {
                self.decode(inp);
                self.lds.accept(&self.req);
                self.cover_accept();
            }
            self.done = false;
        }
    }

    fn in_flight(&self) -> String {
        if !self.lds.busy() {
            return "idle".to_string();
        }
        let i = self.lds.info();
        format!(
            "{} exec={:#018x} pass {}",
            isa::name_of(i.code, self.lds.profile()).unwrap_or_else(|| format!("op {}", i.code)),
            self.lds.active(),
            self.lds.pass()
        )
    }

    fn coverage(&self) -> &Coverage {
        &self.cov
    }
}
