//! The cycle model of `lds_top` (`docs/lds.md`): [`LdsModel`] drives the
//! state machine of [`super::tlm`] from the packed port words for the
//! lock-step engine.

use super::cover::Bin;
use super::isa::{self, Kind};
use super::ports::lds_ports as P;
use super::tlm::{Lds, Request, LANES, SLOTS};
use crate::cover::{coverage, Recorder};
use crate::ports::PortTable;
use crate::{Coverage, Profile, Unit};

/// Reads the instruction on the request ports of `inp` into `r` (what the
/// unit takes when it accepts one).
pub fn read_request(inp: &[u32], r: &mut Request) {
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

/// The cycle-level model of `lds_top`.
#[derive(Clone)]
pub struct LdsModel {
    lds: Lds,
    req: Box<Request>,
    done: bool,
    cov: Coverage,
    rec: Recorder<Bin>,
}

impl LdsModel {
    /// A model in its reset state with all-zero RAM.
    pub fn new(profile: Profile) -> Self {
        LdsModel {
            lds: Lds::new(profile),
            req: Box::default(),
            done: false,
            cov: coverage::<Bin>(profile),
            rec: Recorder::new(profile),
        }
    }

    /// The state machine inside.
    pub fn lds(&self) -> &Lds {
        &self.lds
    }

    fn decode(&mut self, inp: &[u32]) {
        read_request(inp, &mut self.req);
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
        let (c, rec) = (&mut self.cov, &self.rec);
        let r = &self.req;
        let b = match info.kind {
            Kind::Load if info.signed => Bin::LoadSigned,
            Kind::Load if info.two => Bin::LoadTwo,
            Kind::Load if info.addtid => Bin::LoadAddtid,
            Kind::Load if info.width > 8 => Bin::LoadWide,
            Kind::Load => Bin::Load,
            Kind::Store if info.width < 4 => Bin::StoreSub,
            Kind::Store if info.width > 8 => Bin::StoreWide,
            Kind::Store if info.two => Bin::StoreTwo,
            Kind::Store if info.addtid => Bin::StoreAddtid,
            Kind::Store => Bin::Store,
            Kind::Atomic if info.rtn => Bin::AtomicRtn,
            Kind::Atomic => Bin::Atomic,
            Kind::Permute => Bin::Permute,
            Kind::Bpermute => Bin::Bpermute,
            Kind::Invalid => Bin::Invalid,
        };
        rec.hit(b, c);
        let active = self.lds.active();
        if active == 0 {
            rec.hit(Bin::ExecZero, c);
        } else if active as u32 == 0 {
            rec.hit(Bin::PassSkipped, c);
        } else if active >> 32 != 0 {
            rec.hit(Bin::TwoPasses, c);
        }
        if self.done {
            rec.hit(Bin::BackToBack, c);
        }
        // From the per-lane slot masks: a straddle is element 0 spilling
        // into a second dword (slot 1) without filling its first one.
        let mut straddle = false;
        let mut oor = false;
        let mut partial = false;
        let (exists, oor_mask) = (self.lds.slot_mask(), self.lds.oor_mask());
        let mut five = false;
        for l in 0..LANES {
            let (n, n_oor) = (exists[l], oor_mask[l]);
            straddle |= n & 2 != 0 && self.lds.slot(SLOTS * l).be != 0xF;
            five |= n & 0x10 != 0 && !info.two;
            oor |= n_oor != 0;
            partial |= n_oor != 0 && n_oor != n;
        }
        if straddle {
            rec.hit(Bin::Straddle, c);
        }
        if five {
            rec.hit(Bin::FiveDwords, c);
        }
        if oor {
            rec.hit(Bin::Oor, c);
        }
        if self.lds.memviol_lanes() != 0 {
            rec.hit(Bin::Memviol, c);
        }
        if partial {
            rec.hit(Bin::OorPartial, c);
        }
        addressing_corners(r, active, self.lds.profile(), |bin| rec.hit(bin, c));
        // Bins of profiles with wave32 and a CU mode only (the recorder
        // counts no bin a profile lacks).
        if !r.wave64 {
            rec.hit(Bin::Wave32, c);
        }
        rec.hit(if r.wgp { Bin::ModeWgp } else { Bin::ModeCu }, c);
    }

    fn cover_cycle(&mut self) {
        let e = self.lds.events;
        let (c, rec) = (&mut self.cov, &self.rec);
        if e.broadcast {
            rec.hit(Bin::Broadcast, c);
        }
        if e.write_merge {
            rec.hit(Bin::WriteMerge, c);
        }
        if e.atomic_serialised {
            rec.hit(Bin::AtomicSerial, c);
        }
        if let Some(n) = e.pass_end {
            rec.hit(
                match n {
                    0 | 1 => Bin::Pass1Cycle,
                    2 => Bin::Pass2Cycles,
                    3..=8 => Bin::Pass3To8Cycles,
                    _ => Bin::Pass9PlusCycles,
                },
                c,
            );
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

    fn fork(&self) -> Box<dyn Unit> {
        Box::new(self.clone())
    }
}

/// The addressing corners of instruction `r` with active lanes `active`
/// (docs/lds.md "Addresses and slots", SPEC §2.1, §2.3): an addtid whose
/// M0 has low bits (ignored), a DWORD-mode load or store with an element
/// not aligned to its size (aligned down), an element whose address or
/// bytes wrap past 0xFFFFFFFF, a permute with two sources on one active
/// lane (the highest wins), a bpermute reading an inactive lane (0).
/// Calls `hit` with each corner's bin.
fn addressing_corners(r: &Request, active: u64, profile: Profile, mut hit: impl FnMut(Bin)) {
    let info = isa::OpInfo::decode(r.op);
    if active == 0 {
        return;
    }
    let off16 = u32::from(r.offset1) << 8 | u32::from(r.offset0);
    match info.kind {
        Kind::Load | Kind::Store | Kind::Atomic => {
            let w = u64::from(info.width);
            let align = u64::from(info.align());
            debug_assert!(align.is_power_of_two());
            let adj = if info.two {
                w * if info.st64 { 64 } else { 1 }
            } else {
                0
            };
            // DWORD mode aligns a load's or store's address down to `align`
            // (a power of two): these low bits are cleared, and when set
            // the element was aligned down.
            let low = if info.kind != Kind::Atomic && !r.unaligned {
                align - 1
            } else {
                0
            };
            let (mut down, mut wrap) = (false, false);
            let mut lanes = active;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                for e in 0..if info.two { 2 } else { 1 } {
                    let a = if info.addtid {
                        u64::from(off16) + 4 * l as u64 + u64::from(r.m0 & !3)
                    } else if info.two {
                        let o = u64::from(if e == 0 { r.offset0 } else { r.offset1 });
                        u64::from(r.addr[l]) + o * adj
                    } else {
                        u64::from(r.addr[l]) + u64::from(off16)
                    };
                    down |= a & low != 0;
                    // Past 2^32 by the sum, or by the bytes of an element
                    // that starts below it (an unaligned one, or one not
                    // aligned down).
                    let kept = a & 0xFFFF_FFFF & !low;
                    wrap |= a >> 32 != 0 || kept + w > 1 << 32;
                }
            }
            if info.addtid && r.m0 & 3 != 0 {
                hit(Bin::AddtidM0Low);
            }
            if down {
                hit(Bin::DwordAlignedDown);
            }
            if wrap {
                hit(Bin::AddrWrap);
            }
        }
        Kind::Permute | Kind::Bpermute => {
            // The lane each active lane reads (bpermute) or writes
            // (permute), as the unit computes it.
            let (n, halves) = if profile.wave32() {
                (32, true)
            } else {
                (64, false)
            };
            let mut written = 0u64;
            for i in (0..LANES).filter(|&i| active >> i & 1 != 0) {
                let base = if halves { i as u32 / 32 * 32 } else { 0 };
                let s = base + (r.addr[i].wrapping_add(off16) >> 2) % n;
                let on = active >> s & 1 != 0;
                if info.kind == Kind::Bpermute && !on {
                    hit(Bin::BpermuteInactive);
                    break;
                }
                if info.kind == Kind::Permute && on {
                    if written >> s & 1 != 0 {
                        hit(Bin::PermuteCollision);
                        break;
                    }
                    written |= 1 << s;
                }
            }
        }
        Kind::Invalid => {}
    }
}
