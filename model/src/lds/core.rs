//! The LDS as a state machine: accept one instruction, then one call of
//! [`Lds::arbitrate`] and [`Lds::commit`] per BUSY cycle (`docs/lds.md`).
//! Used by the cycle-level [`super::LdsModel`] and by `eval`.

use super::op::{Kind, OpInfo};
use crate::Profile;

/// Lanes of a wave64.
pub const LANES: usize = 64;
/// Dword slots per lane (two elements of up to three dwords).
pub const SLOTS: usize = 6;
/// Slots of a wave.
pub const NSLOTS: usize = LANES * SLOTS;
/// Dwords of the largest RAM (128 KiB).
pub const RAM_DWORDS: usize = 32 * 1024;

/// One instruction with the wave state it is issued with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `op_i` code (`super::op`).
    pub op: u8,
    /// Wave64 (forced on gfx9).
    pub wave64: bool,
    /// gfx11 WGP mode (ignored on gfx9).
    pub wgp: bool,
    /// Alignment mode UNALIGNED (else DWORD).
    pub unaligned: bool,
    /// Exec mask.
    pub exec: u64,
    /// offset0 field.
    pub offset0: u8,
    /// offset1 field.
    pub offset1: u8,
    /// M0.
    pub m0: u32,
    /// LDS_BASE in 256-byte blocks (9 bits).
    pub lds_base: u16,
    /// Allocation size in bytes (18 bits).
    pub lds_size: u32,
    /// Per-lane address VGPR.
    pub addr: [u32; LANES],
    /// Per-lane DATA0.
    pub data0: [u64; LANES],
    /// Per-lane DATA1.
    pub data1: [u64; LANES],
}

impl Default for Request {
    fn default() -> Self {
        Request {
            op: 4,
            wave64: true,
            wgp: true,
            unaligned: false,
            exec: 0,
            offset0: 0,
            offset1: 0,
            m0: 0,
            lds_base: 0,
            lds_size: 0,
            addr: [0; LANES],
            data0: [0; LANES],
            data1: [0; LANES],
        }
    }
}

/// Banks and RAM dwords of a profile in a mode.
pub fn geometry(profile: Profile, wgp: bool) -> (u32, u32) {
    let p = profile.params();
    let (bytes, banks) = match p.lds_cu_mode {
        Some(cu) if !wgp => cu,
        _ => (p.lds_bytes, p.lds_banks),
    };
    (banks, bytes / 4)
}

/// One dword slot of a lane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Slot {
    /// The slot exists (active lane, element touches this dword).
    pub exists: bool,
    /// Waiting for its bank.
    pub pend: bool,
    /// Out of range.
    pub oor: bool,
    /// Dword address relative to the allocation (30 bits).
    pub dword: u32,
    /// Physical dword.
    pub phys: u32,
    /// Bank.
    pub bank: u8,
    /// Byte enables within the dword (bytes of the element).
    pub be: u8,
    /// Write data, bytes in dword position.
    pub wdata: u32,
    /// Result byte position of dword byte 0 (may be negative).
    pub rbase: i8,
}

/// Results of the last completed instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Results {
    /// Per-lane return data.
    pub rdata: [u128; LANES],
    /// Per-lane out-of-range slot mask.
    pub oor: [u8; LANES],
    /// MEMVIOL lanes.
    pub memviol: u64,
    /// BUSY cycles.
    pub cycles: u16,
}

impl Default for Results {
    fn default() -> Self {
        Results {
            rdata: [0; LANES],
            oor: [0; LANES],
            memviol: 0,
            cycles: 0,
        }
    }
}

/// The unit: RAM, registered instruction state, results.
#[derive(Debug, Clone)]
pub struct Lds {
    profile: Profile,
    store_d0: bool,
    /// The RAM (physical dwords; not cleared by reset).
    pub ram: Vec<u32>,
    busy: bool,
    info: OpInfo,
    pass: u8,
    active: u64,
    /// The current instruction's slots, index `SLOTS * lane + k`.
    pub slots: [Slot; NSLOTS],
    d0: [u32; LANES],
    d1: [u32; LANES],
    res: [u128; LANES],
    memviol: u64,
    cycles: u16,
    pass_cycles: u16,
    /// Results of the last completed instruction.
    pub out: Results,
    /// Slots served in the current cycle (valid after [`Lds::arbitrate`]).
    pub served: [bool; NSLOTS],
    /// Lanes served in the current cycle.
    pub grant_lanes: u64,
    /// Banks serving in the current cycle.
    pub grant_banks: u64,
    /// Per-cycle events of the current cycle, for coverage.
    pub events: Events,
}

/// Facts about the last cycle, for coverage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Events {
    /// A non-atomic slot was served along with a lower one on its dword.
    pub broadcast: bool,
    /// Several slots wrote one dword in one cycle.
    pub write_merge: bool,
    /// A pass ended; its length in cycles.
    pub pass_end: Option<u16>,
    /// An atomic waited for a lower lane on the same dword.
    pub atomic_serialised: bool,
}

const NONE: u16 = u16::MAX;

impl Lds {
    /// A fresh unit with all-zero RAM.
    pub fn new(profile: Profile) -> Self {
        Lds {
            profile,
            store_d0: profile.params().lds_cmpst_store_data0,
            ram: vec![0; RAM_DWORDS],
            busy: false,
            info: OpInfo::decode(4),
            pass: 0,
            active: 0,
            slots: [Slot::default(); NSLOTS],
            d0: [0; LANES],
            d1: [0; LANES],
            res: [0; LANES],
            memviol: 0,
            cycles: 0,
            pass_cycles: 0,
            out: Results::default(),
            served: [false; NSLOTS],
            grant_lanes: 0,
            grant_banks: 0,
            events: Events::default(),
        }
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// An instruction is being served.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// The instruction in flight (or the last one).
    pub fn info(&self) -> OpInfo {
        self.info
    }

    /// Active lanes of the instruction in flight.
    pub fn active(&self) -> u64 {
        self.active
    }

    /// Lanes of the instruction in flight that raised MEMVIOL.
    pub fn memviol_lanes(&self) -> u64 {
        self.memviol
    }

    /// Current pass.
    pub fn pass(&self) -> u8 {
        self.pass
    }

    /// Asynchronous reset: IDLE, results cleared, RAM kept.
    pub fn reset(&mut self) {
        self.busy = false;
        self.pass = 0;
        self.active = 0;
        self.out = Results::default();
        for s in self.slots.iter_mut() {
            s.pend = false;
        }
        self.grant_lanes = 0;
        self.grant_banks = 0;
    }

    /// Takes an instruction (IDLE only; the edge that ends an IDLE cycle).
    pub fn accept(&mut self, r: &Request) {
        let info = OpInfo::decode(r.op);
        let gfx9 = !self.profile.params().wave32;
        let wave64 = r.wave64 || gfx9;
        let (nbanks, ram_dwords) = geometry(self.profile, r.wgp);
        self.info = info;
        self.busy = true;
        self.cycles = 0;
        self.pass_cycles = 0;
        self.memviol = 0;
        self.res = [0; LANES];
        self.slots = [Slot::default(); NSLOTS];
        let mut active = if wave64 { r.exec } else { r.exec & 0xFFFF_FFFF };
        let off16 = u32::from(r.offset1) << 8 | u32::from(r.offset0);
        match info.kind {
            Kind::Invalid => active = 0,
            Kind::Bpermute | Kind::Permute => {
                let (n, half) = if gfx9 { (64u32, 0u32) } else { (32, 32) };
                for i in 0..LANES {
                    if active >> i & 1 == 0 {
                        continue;
                    }
                    let base = if half == 0 { 0 } else { i as u32 / 32 * 32 };
                    let s = (base + (r.addr[i].wrapping_add(off16) >> 2) % n) as usize;
                    if info.kind == Kind::Bpermute {
                        if active >> s & 1 != 0 {
                            self.res[i] = u128::from(r.data0[s] as u32);
                        }
                    } else if active >> s & 1 != 0 {
                        self.res[s] = u128::from(r.data0[i] as u32);
                    }
                }
            }
            Kind::Load | Kind::Store | Kind::Atomic => {
                let w = u32::from(info.width);
                let adj = if info.two {
                    w * if info.st64 { 64 } else { 1 }
                } else {
                    0
                };
                for l in 0..LANES {
                    if active >> l & 1 == 0 {
                        continue;
                    }
                    self.d0[l] = r.data0[l] as u32;
                    self.d1[l] = r.data1[l] as u32;
                    let elems = if info.two { 2 } else { 1 };
                    for e in 0..elems {
                        let mut a = if info.addtid {
                            off16.wrapping_add(4 * l as u32).wrapping_add(r.m0 & !3)
                        } else if info.two {
                            let o = u32::from(if e == 0 { r.offset0 } else { r.offset1 });
                            r.addr[l].wrapping_add(o * adj)
                        } else {
                            r.addr[l].wrapping_add(off16)
                        };
                        if info.kind == Kind::Atomic {
                            if a & 3 != 0 {
                                self.memviol |= 1 << l;
                                continue;
                            }
                        } else if !r.unaligned {
                            a &= !(w - 1);
                        }
                        let data = if e == 0 { r.data0[l] } else { r.data1[l] };
                        let lo = a & 3;
                        let ndw = (lo + w).div_ceil(4);
                        for j in 0..ndw {
                            let dword = ((a >> 2).wrapping_add(j)) & 0x3FFF_FFFF;
                            let mut be = 0u8;
                            let mut wdata = 0u32;
                            for b in 0..4u32 {
                                let rel = 4 * j + b;
                                if rel >= lo && rel - lo < w {
                                    be |= 1 << b;
                                    let byte = (data >> (8 * (rel - lo))) as u8;
                                    wdata |= u32::from(byte) << (8 * b);
                                }
                            }
                            let oor = u64::from(dword) * 4 >= u64::from(r.lds_size);
                            let phys =
                                (u32::from(r.lds_base) * 64).wrapping_add(dword) & (ram_dwords - 1);
                            self.slots[SLOTS * l + 3 * e + j as usize] = Slot {
                                exists: true,
                                pend: !oor,
                                oor,
                                dword,
                                phys,
                                bank: (dword & (nbanks - 1)) as u8,
                                be,
                                wdata,
                                rbase: (e as u32 * w + 4 * j) as i8 - lo as i8,
                            };
                        }
                    }
                }
            }
        }
        self.active = active;
        self.pass = if active & 0xFFFF_FFFF == 0 && active >> 32 != 0 {
            1
        } else {
            0
        };
    }

    /// The grants of the current BUSY cycle from the registered state
    /// (`served`, `grant_lanes`, `grant_banks`); nothing when IDLE.
    pub fn arbitrate(&mut self) {
        self.grant_lanes = 0;
        self.grant_banks = 0;
        self.events = Events::default();
        if !self.busy {
            return;
        }
        let lo = 32 * SLOTS * self.pass as usize;
        let range = lo..lo + 32 * SLOTS;
        let mut win = [NONE; 64];
        for i in range.clone() {
            let s = &self.slots[i];
            if s.pend && win[s.bank as usize] == NONE {
                win[s.bank as usize] = i as u16;
            }
        }
        let atomic = self.info.kind == Kind::Atomic;
        for i in range {
            let s = &self.slots[i];
            let w = win[s.bank as usize];
            let hit = s.pend
                && if atomic {
                    w == i as u16
                } else {
                    self.slots[w as usize].dword == s.dword
                };
            self.served[i] = hit;
            if hit {
                self.grant_lanes |= 1 << (i / SLOTS);
                self.grant_banks |= 1 << s.bank;
                if w != i as u16 {
                    self.events.broadcast = true;
                    if self.info.kind == Kind::Store {
                        self.events.write_merge = true;
                    }
                }
            } else if s.pend && atomic && self.slots[w as usize].dword == s.dword {
                self.events.atomic_serialised = true;
            }
        }
    }

    /// The rising edge of a BUSY cycle: RAM accesses of the served slots,
    /// pass and completion bookkeeping. Returns true when the instruction
    /// completed at this edge (its results are in `out`).
    pub fn commit(&mut self) -> bool {
        if !self.busy {
            return false;
        }
        let lo = 32 * SLOTS * self.pass as usize;
        let kind = self.info.kind;
        let mut left = false;
        for i in lo..lo + 32 * SLOTS {
            if !self.served[i] {
                left |= self.slots[i].pend;
                continue;
            }
            let l = i / SLOTS;
            let s = &mut self.slots[i];
            s.pend = false;
            let p = s.phys as usize;
            match kind {
                Kind::Load => {
                    let v = self.ram[p];
                    for b in 0..4 {
                        if s.be >> b & 1 != 0 {
                            let pos = 8 * (s.rbase + b) as u32;
                            let byte = u128::from((v >> (8 * b)) as u8);
                            self.res[l] = self.res[l] & !(0xFF << pos) | byte << pos;
                        }
                    }
                }
                Kind::Store => {
                    let mut m = 0u32;
                    for b in 0..4 {
                        if s.be >> b & 1 != 0 {
                            m |= 0xFF << (8 * b);
                        }
                    }
                    self.ram[p] = self.ram[p] & !m | s.wdata & m;
                }
                Kind::Atomic => {
                    let old = self.ram[p];
                    if let Some(a) = self.info.atomic {
                        self.ram[p] = a.apply(old, self.d0[l], self.d1[l], self.store_d0);
                    }
                    if self.info.rtn {
                        self.res[l] = u128::from(old);
                    }
                }
                _ => {}
            }
        }
        self.cycles = self.cycles.wrapping_add(1);
        self.pass_cycles += 1;
        if left {
            return false;
        }
        self.events.pass_end = Some(self.pass_cycles);
        self.pass_cycles = 0;
        if self.pass == 0 && self.active >> 32 != 0 {
            self.pass = 1;
            return false;
        }
        self.finish();
        true
    }

    fn finish(&mut self) {
        self.busy = false;
        for l in 0..LANES {
            let r = self.res[l];
            self.out.rdata[l] = match (self.info.signed, self.info.width) {
                (true, 1) => u128::from(r as u8 as i8 as i32 as u32),
                (true, 2) => u128::from(r as u16 as i16 as i32 as u32),
                _ => r,
            };
            let mut m = 0u8;
            for k in 0..SLOTS {
                let s = &self.slots[SLOTS * l + k];
                if s.exists && s.oor {
                    m |= 1 << k;
                }
            }
            self.out.oor[l] = m;
        }
        self.out.memviol = self.memviol;
        self.out.cycles = self.cycles;
    }

    /// Runs one instruction to completion from IDLE, calling `each` after
    /// the arbitration of every BUSY cycle. Returns the cycle count.
    pub fn run(&mut self, r: &Request, mut each: impl FnMut(&Lds)) -> u16 {
        self.accept(r);
        loop {
            self.arbitrate();
            each(self);
            if self.commit() {
                return self.out.cycles;
            }
        }
    }
}
