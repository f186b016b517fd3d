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

/// Slots of one 32-lane pass.
const PASS_SLOTS: usize = 32 * SLOTS;

/// A list of slot indices in ascending order (at most one pass's worth).
#[derive(Debug, Clone)]
struct SlotList {
    len: usize,
    idx: [u16; PASS_SLOTS],
}

impl SlotList {
    const EMPTY: SlotList = SlotList {
        len: 0,
        idx: [0; PASS_SLOTS],
    };

    #[inline]
    fn as_slice(&self) -> &[u16] {
        &self.idx[..self.len]
    }

    #[inline]
    fn push(&mut self, i: u16) {
        self.idx[self.len] = i;
        self.len += 1;
    }
}

/// The 32-bit mask of the bytes enabled by `be` (bit b → byte b).
const fn byte_mask(be: u8) -> u32 {
    let mut m = 0u32;
    let mut b = 0;
    while b < 4 {
        if be >> b & 1 != 0 {
            m |= 0xFF << (8 * b);
        }
        b += 1;
    }
    m
}

const BYTE_MASKS: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut be = 0;
    while be < 16 {
        t[be] = byte_mask(be as u8);
        be += 1;
    }
    t
};

/// The unit: RAM, registered instruction state, results.
///
/// The slots of an instruction are kept as two lists of *pending* slot
/// indices, one per pass, in ascending `(lane, k)` order (`SLOTS * lane + k`
/// is that order). Each BUSY cycle walks only the current pass's list, so a
/// cycle costs in proportion to the slots still waiting, not to the 192
/// slots a pass could have.
#[derive(Debug, Clone)]
pub struct Lds {
    profile: Profile,
    store_d0: bool,
    gfx9: bool,
    /// `geometry(profile, wgp)` for wgp = false, true.
    geo: [(u32, u32); 2],
    /// The RAM (physical dwords; not cleared by reset).
    pub ram: Vec<u32>,
    busy: bool,
    info: OpInfo,
    pass: u8,
    active: u64,
    /// The current instruction's slots, index `SLOTS * lane + k`; an entry
    /// is meaningful only where its bit in `exists` is set.
    slots: [Slot; NSLOTS],
    /// Per lane, bit k: slot k exists.
    exists: [u8; LANES],
    /// Per lane, bit k: slot k exists and is out of range.
    oor: [u8; LANES],
    /// In-range slots not served yet, per pass.
    pending: [SlotList; 2],
    /// Slots served in the current cycle (after [`Lds::arbitrate`]).
    served: SlotList,
    /// Slots of the current pass left pending after the current cycle.
    kept: SlotList,
    /// Dword of each bank's winner in the current cycle (valid for the banks
    /// set in `grant_banks`).
    win_dword: [u32; 64],
    d0: [u32; LANES],
    d1: [u32; LANES],
    res: [u128; LANES],
    memviol: u64,
    cycles: u16,
    pass_cycles: u16,
    /// Results of the last completed instruction.
    pub out: Results,
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

impl Lds {
    /// A fresh unit with all-zero RAM.
    pub fn new(profile: Profile) -> Self {
        Lds {
            profile,
            store_d0: profile.params().lds_cmpst_store_data0,
            gfx9: !profile.params().wave32,
            geo: [geometry(profile, false), geometry(profile, true)],
            ram: vec![0; RAM_DWORDS],
            busy: false,
            info: OpInfo::decode(4),
            pass: 0,
            active: 0,
            slots: [Slot::default(); NSLOTS],
            exists: [0; LANES],
            oor: [0; LANES],
            pending: [SlotList::EMPTY, SlotList::EMPTY],
            served: SlotList::EMPTY,
            kept: SlotList::EMPTY,
            win_dword: [0; 64],
            d0: [0; LANES],
            d1: [0; LANES],
            res: [0; LANES],
            memviol: 0,
            cycles: 0,
            pass_cycles: 0,
            out: Results::default(),
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

    /// Slot `i` (`SLOTS * lane + k`) of the instruction in flight (or the
    /// last one); `exists` is false for a slot the instruction does not have.
    pub fn slot(&self, i: usize) -> Slot {
        if self.exists[i / SLOTS] >> (i % SLOTS) & 1 != 0 {
            self.slots[i]
        } else {
            Slot::default()
        }
    }

    /// Per lane, bit k: slot k of the instruction in flight exists.
    pub fn slot_mask(&self) -> &[u8; LANES] {
        &self.exists
    }

    /// Per lane, bit k: slot k of the instruction in flight is out of range.
    pub fn oor_mask(&self) -> &[u8; LANES] {
        &self.oor
    }

    /// Indices of the slots served in the current cycle, ascending (valid
    /// after [`Lds::arbitrate`]).
    pub fn served(&self) -> impl Iterator<Item = usize> + '_ {
        self.served.as_slice().iter().map(|&i| usize::from(i))
    }

    /// Asynchronous reset: IDLE, results cleared, RAM kept.
    pub fn reset(&mut self) {
        self.busy = false;
        self.pass = 0;
        self.active = 0;
        self.out = Results::default();
        self.pending[0].len = 0;
        self.pending[1].len = 0;
        self.grant_lanes = 0;
        self.grant_banks = 0;
    }

    /// Takes an instruction (IDLE only; the edge that ends an IDLE cycle).
    pub fn accept(&mut self, r: &Request) {
        let info = OpInfo::decode(r.op);
        let gfx9 = self.gfx9;
        let wave64 = r.wave64 || gfx9;
        let (nbanks, ram_dwords) = self.geo[usize::from(r.wgp)];
        self.info = info;
        self.busy = true;
        self.cycles = 0;
        self.pass_cycles = 0;
        self.memviol = 0;
        self.res = [0; LANES];
        self.exists = [0; LANES];
        self.oor = [0; LANES];
        self.pending[0].len = 0;
        self.pending[1].len = 0;
        let mut active = if wave64 { r.exec } else { r.exec & 0xFFFF_FFFF };
        let off16 = u32::from(r.offset1) << 8 | u32::from(r.offset0);
        match info.kind {
            Kind::Invalid => active = 0,
            Kind::Bpermute | Kind::Permute => {
                let (n, half) = if gfx9 { (64u32, 0u32) } else { (32, 32) };
                let mut m = active;
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    m &= m - 1;
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
                let elems = if info.two { 2 } else { 1 };
                // Bytes of an element, as a mask over the bytes from its
                // first dword on (before the shift by its offset in it).
                let elem_be = (1u32 << w) - 1;
                let data_mask = if w >= 8 { u64::MAX } else { (1 << (8 * w)) - 1 };
                let base = u32::from(r.lds_base) * 64;
                let size = u64::from(r.lds_size);
                // Lanes in ascending order, then elements, then dwords: the
                // pending lists come out in ascending slot order.
                let mut m = active;
                while m != 0 {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    self.d0[l] = r.data0[l] as u32;
                    self.d1[l] = r.data1[l] as u32;
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
                        // Byte `lo + i` of these (dword 0 first) is byte `i`
                        // of the element; the bytes outside it are 0.
                        let be_all = elem_be << lo;
                        let bytes = u128::from(data & data_mask) << (8 * lo);
                        for j in 0..ndw {
                            let dword = ((a >> 2).wrapping_add(j)) & 0x3FFF_FFFF;
                            let oor = u64::from(dword) * 4 >= size;
                            let k = 3 * e + j as usize;
                            let i = SLOTS * l + k;
                            self.slots[i] = Slot {
                                exists: true,
                                oor,
                                dword,
                                phys: base.wrapping_add(dword) & (ram_dwords - 1),
                                bank: (dword & (nbanks - 1)) as u8,
                                be: (be_all >> (4 * j) & 0xF) as u8,
                                wdata: (bytes >> (32 * j)) as u32,
                                rbase: (e as u32 * w + 4 * j) as i8 - lo as i8,
                            };
                            self.exists[l] |= 1 << k;
                            if oor {
                                self.oor[l] |= 1 << k;
                            } else {
                                self.pending[l / 32].push(i as u16);
                            }
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
    ///
    /// One walk over the pass's pending slots in ascending `(lane, k)`
    /// order: the first slot met in a bank is that bank's winner (the
    /// lowest pending one); a later slot of the bank is served with it when
    /// it is on the winner's dword (non-atomic broadcast), else it stays
    /// pending. The state is only read, so calling it twice gives the same
    /// grants.
    pub fn arbitrate(&mut self) {
        self.grant_lanes = 0;
        self.grant_banks = 0;
        self.events = Events::default();
        self.served.len = 0;
        self.kept.len = 0;
        if !self.busy {
            return;
        }
        let atomic = self.info.kind == Kind::Atomic;
        let store = self.info.kind == Kind::Store;
        let mut banks = 0u64;
        let mut lanes = 0u64;
        let pending = &self.pending[usize::from(self.pass)];
        for &i in pending.as_slice() {
            let s = &self.slots[usize::from(i)];
            let b = usize::from(s.bank) & 63;
            let lane_bit = 1u64 << (usize::from(i) / SLOTS);
            if banks >> b & 1 == 0 {
                banks |= 1 << b;
                self.win_dword[b] = s.dword;
                self.served.push(i);
                lanes |= lane_bit;
            } else if self.win_dword[b] != s.dword {
                self.kept.push(i);
            } else if atomic {
                self.events.atomic_serialised = true;
                self.kept.push(i);
            } else {
                self.served.push(i);
                lanes |= lane_bit;
                self.events.broadcast = true;
                self.events.write_merge |= store;
            }
        }
        self.grant_lanes = lanes;
        self.grant_banks = banks;
    }

    /// The rising edge of a BUSY cycle: RAM accesses of the served slots,
    /// pass and completion bookkeeping. Returns true when the instruction
    /// completed at this edge (its results are in `out`).
    pub fn commit(&mut self) -> bool {
        if !self.busy {
            return false;
        }
        // The served slots in ascending (lane, k) order: stores to one dword
        // apply their bytes in that order (the highest wins); the winners of
        // different banks are different dwords, so nothing else depends on
        // the order. A result byte is written by exactly one slot, into a
        // result cleared at acceptance, so loads can OR their bytes in.
        let served = self.served.as_slice();
        match self.info.kind {
            Kind::Load => {
                for &i in served {
                    let s = &self.slots[usize::from(i)];
                    let l = usize::from(i) / SLOTS;
                    let v =
                        u128::from(self.ram[s.phys as usize] & BYTE_MASKS[usize::from(s.be & 15)]);
                    self.res[l] |= if s.rbase >= 0 {
                        v << (8 * s.rbase as u32)
                    } else {
                        v >> (8 * s.rbase.unsigned_abs() as u32)
                    };
                }
            }
            Kind::Store => {
                for &i in served {
                    let s = &self.slots[usize::from(i)];
                    let m = BYTE_MASKS[usize::from(s.be & 15)];
                    let w = &mut self.ram[s.phys as usize];
                    *w = *w & !m | s.wdata & m;
                }
            }
            Kind::Atomic => {
                for &i in served {
                    let s = &self.slots[usize::from(i)];
                    let l = usize::from(i) / SLOTS;
                    let p = s.phys as usize;
                    let old = self.ram[p];
                    if let Some(a) = self.info.atomic {
                        self.ram[p] = a.apply(old, self.d0[l], self.d1[l], self.store_d0);
                    }
                    if self.info.rtn {
                        self.res[l] = u128::from(old);
                    }
                }
            }
            _ => {}
        }
        let left = self.kept.len != 0;
        let kept = &self.kept;
        let pending = &mut self.pending[usize::from(self.pass)];
        pending.idx[..kept.len].copy_from_slice(kept.as_slice());
        pending.len = kept.len;
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
        self.out.rdata = self.res;
        match (self.info.signed, self.info.width) {
            (true, 1) => {
                for r in self.out.rdata.iter_mut() {
                    *r = u128::from(*r as u8 as i8 as i32 as u32);
                }
            }
            (true, 2) => {
                for r in self.out.rdata.iter_mut() {
                    *r = u128::from(*r as u16 as i16 as i32 as u32);
                }
            }
            _ => {}
        }
        self.out.oor = self.oor;
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
