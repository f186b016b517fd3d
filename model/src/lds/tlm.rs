//! The LDS as a state machine: accept one instruction, then one call of
//! [`Lds::arbitrate`] and [`Lds::commit`] per BUSY cycle (`docs/lds.md`).
//! Used by the cycle-level [`super::LdsModel`] and by `eval`.

use super::isa::{Kind, OpInfo};
use super::params::{LdsParams, MAX_BANKS, MAX_BYTES};
use crate::Profile;

/// Lanes of a wave64.
pub const LANES: usize = 64;
/// Dword slots per lane (two elements of up to three dwords, or one b96
/// or b128 element of up to five).
pub const SLOTS: usize = 6;
/// Slots of a wave.
pub const NSLOTS: usize = LANES * SLOTS;
/// Slots of one 32-lane pass (half the wave).
pub const PASS_SLOTS: usize = NSLOTS / 2;
/// Dwords of the largest RAM (128 KiB).
pub const RAM_DWORDS: usize = MAX_BYTES as usize / 4;
/// Bits of a dword address in the largest RAM.
pub const RAM_AW: u32 = RAM_DWORDS.trailing_zeros();
// Bank masks are `u64`s.
const _: () =
    assert!(RAM_DWORDS.is_power_of_two() && PASS_SLOTS == 32 * SLOTS && MAX_BANKS <= u64::BITS);

/// One instruction with the wave state it is issued with (serialised as
/// the `lds` transactions of repro bundles carry it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Request {
    /// `op_i` code (`super::isa`).
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
    #[serde(with = "crate::serde_fmt::lanes")]
    pub addr: [u32; LANES],
    /// Per-lane DATA0.
    #[serde(with = "crate::serde_fmt::lanes")]
    pub data0: [u64; LANES],
    /// Per-lane DATA1.
    #[serde(with = "crate::serde_fmt::lanes")]
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
    let p = LdsParams::of(profile);
    let (bytes, banks) = match p.cu_mode {
        Some(cu) if !wgp => cu,
        _ => (p.bytes, p.banks),
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

/// A slot as the unit keeps it: [`Slot`] without the two flags, which
/// the per-lane masks `exists` and `oor` hold.
#[derive(Debug, Clone, Copy, Default)]
struct SlotData {
    dword: u32,
    phys: u32,
    wdata: u32,
    bank: u8,
    be: u8,
    rbase: i8,
}

/// Results of the last completed instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Per-lane return data.
    pub rdata: [u128; LANES],
    /// Per-lane out-of-range slot mask.
    pub oor: [u8; LANES],
    /// MEMVIOL lanes.
    pub memviol: u64,
    /// BUSY cycles.
    pub cycles: u16,
}

impl Default for Completion {
    fn default() -> Self {
        Completion {
            rdata: [0; LANES],
            oor: [0; LANES],
            memviol: 0,
            cycles: 0,
        }
    }
}

/// Flag of a scheduled non-atomic slot: it is served along with a lower
/// slot on its dword (it is not its bank's winner).
const F_BROADCAST: u8 = 1;
/// Flag of a scheduled atomic slot: a later slot of the pass waits for it
/// on the same dword.
const F_SERIAL: u8 = 2;

/// An in-range slot of a pass and the cycle of the pass that serves it.
#[derive(Debug, Clone, Copy, Default)]
struct Grant {
    /// Cycle of the pass (0-based) in which the slot is served.
    cycle: u16,
    /// Slot index, `SLOTS * lane + k`.
    idx: u16,
    /// Lane.
    lane: u8,
    /// Bank.
    bank: u8,
    /// `F_BROADCAST`, `F_SERIAL`.
    flags: u8,
}

/// The slots of a pass on one dword (all in one bank).
#[derive(Debug, Clone, Copy, Default)]
struct Group {
    /// The cycle that serves them (non-atomic ops).
    cycle: u16,
    /// Position in `Pass::slots` of the group's last slot so far.
    last: u16,
}

/// Entries of `DwordMap`: a power of two, at least 2.5 times the slots of a
/// wave, so that the map is at most 3/8 full and its linear probes stay
/// short.
const MAP_SIZE: usize = 1024;
const _: () = assert!(MAP_SIZE.is_power_of_two() && 2 * MAP_SIZE >= 5 * NSLOTS);

#[derive(Debug, Clone, Copy, Default)]
struct MapEntry {
    stamp: u32,
    key: u32,
    group: u16,
}

/// The groups of an instruction by pass and dword: an open-addressing hash
/// map, emptied in O(1) per instruction by a stamp, filled and looked up
/// through a pass's [`Fill`] at acceptance.
#[derive(Debug, Clone)]
struct DwordMap {
    stamp: u32,
    e: [MapEntry; MAP_SIZE],
}

impl DwordMap {
    fn new() -> Self {
        DwordMap {
            stamp: 1,
            e: [MapEntry::default(); MAP_SIZE],
        }
    }

    /// Forgets every entry: only entries with the current stamp count.
    fn clear(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // After 2^32 clears old entries would look current again.
            self.e = [MapEntry::default(); MAP_SIZE];
            self.stamp = 1;
        }
    }
}

/// The schedule of one 32-lane pass of the instruction in flight.
///
/// The arbitration of SPEC §2.2 depends only on which slots are pending,
/// so each slot's cycle is known at acceptance. With the slots of a pass
/// added in ascending `(lane, k)` order:
///
/// - non-atomic ops: each cycle a bank's winner is its lowest pending slot,
///   and every pending slot on the winner's dword (necessarily in the same
///   bank) is served with it; so each cycle serves one whole group (dword)
///   per bank, and a bank's groups are served in the order of their first
///   slots: the group first seen as the bank's `r`-th is served in cycle `r`;
/// - atomics: only the winners are served, so a bank's `r`-th slot is served
///   in cycle `r`.
///
/// A pass with no in-range slot still lasts one cycle.
#[derive(Debug, Clone)]
struct Pass {
    /// In-range slots in ascending `(lane, k)` order.
    slots: [Grant; PASS_SLOTS],
    n: usize,
    /// Cycles the pass lasts (at least 1).
    cycles: u16,
    /// When `cycles > 1`: the slots ordered by cycle, then slot index, and
    /// `order[ends[c - 1]..ends[c]]` served in cycle `c` (`ends[-1]` = 0).
    /// With one cycle, `slots` is that order.
    order: [Grant; PASS_SLOTS],
    ends: [u16; PASS_SLOTS],
    groups: [Group; PASS_SLOTS],
    ngroups: usize,
    /// Cycles given out so far per bank: groups (non-atomic) or slots
    /// (atomics).
    bank_cycles: [u16; MAX_BANKS as usize],
}

impl Pass {
    fn new() -> Self {
        Pass {
            slots: [Grant::default(); PASS_SLOTS],
            n: 0,
            cycles: 1,
            order: [Grant::default(); PASS_SLOTS],
            ends: [0; PASS_SLOTS],
            groups: [Group::default(); PASS_SLOTS],
            ngroups: 0,
            bank_cycles: [0; MAX_BANKS as usize],
        }
    }

    /// No slots: one cycle.
    fn clear(&mut self) {
        self.n = 0;
        self.cycles = 1;
        self.ngroups = 0;
        self.bank_cycles = [0; MAX_BANKS as usize];
    }

    /// The pass's slots being added, its counters in `Fill`'s own fields
    /// until [`Fill::done`].
    fn fill<'a>(&'a mut self, map: &'a mut DwordMap) -> Fill<'a> {
        Fill {
            slots: &mut self.slots,
            groups: &mut self.groups,
            bank_cycles: &mut self.bank_cycles,
            map: &mut map.e,
            stamp: map.stamp,
            n: self.n,
            cycles: self.cycles,
            ngroups: self.ngroups,
        }
    }

    /// After the last `add`: orders the slots by cycle (a stable counting
    /// sort, so each cycle's slots stay in ascending slot order).
    fn seal(&mut self) {
        if self.cycles == 1 {
            return;
        }
        let nc = usize::from(self.cycles);
        let ends = &mut self.ends[..nc];
        ends.fill(0);
        for s in &self.slots[..self.n] {
            ends[usize::from(s.cycle)] += 1;
        }
        // Starts of each cycle; placing a slot advances its cycle's start,
        // which ends as the cycle's end.
        let mut sum = 0;
        for e in ends.iter_mut() {
            let k = *e;
            *e = sum;
            sum += k;
        }
        for s in &self.slots[..self.n] {
            let e = &mut self.ends[usize::from(s.cycle)];
            self.order[usize::from(*e)] = *s;
            *e += 1;
        }
    }

    /// The slots served in cycle `c` of the pass.
    #[inline]
    fn served(&self, c: u16) -> &[Grant] {
        if self.cycles == 1 {
            &self.slots[..self.n]
        } else {
            let c = usize::from(c);
            let lo = if c == 0 { 0 } else { self.ends[c - 1] };
            &self.order[usize::from(lo)..usize::from(self.ends[c])]
        }
    }
}

/// A pass of the instruction being accepted while its slots are added
/// ([`Pass::fill`]): the arrays it writes, borrowed apart, and its counters
/// as plain fields, which the compiler keeps in registers over the lane
/// loop (as fields of the `Lds` they were loaded and stored around every
/// slot's writes).
struct Fill<'a> {
    slots: &'a mut [Grant; PASS_SLOTS],
    groups: &'a mut [Group; PASS_SLOTS],
    bank_cycles: &'a mut [u16; MAX_BANKS as usize],
    /// The dword map's entries and current stamp ([`DwordMap`]).
    map: &'a mut [MapEntry; MAP_SIZE],
    stamp: u32,
    n: usize,
    cycles: u16,
    ngroups: usize,
}

impl Fill<'_> {
    /// The group of `key` in the dword map; if it has none, `key` gets
    /// `new` and the result is `None`. At most `NSLOTS` keys per
    /// instruction, so there is always a free entry.
    #[inline]
    fn group_of(&mut self, key: u32, new: u16) -> Option<u16> {
        let mut h = (key.wrapping_mul(0x9E37_79B1) >> (32 - MAP_SIZE.trailing_zeros())) as usize;
        loop {
            let e = &mut self.map[h];
            if e.stamp != self.stamp {
                *e = MapEntry {
                    stamp: self.stamp,
                    key,
                    group: new,
                };
                return None;
            }
            if e.key == key {
                return Some(e.group);
            }
            h = (h + 1) & (MAP_SIZE - 1);
        }
    }

    /// Adds an in-range slot; slots come in ascending `(lane, k)` order.
    /// `key` names its dword and pass in the dword map.
    #[inline]
    fn add(&mut self, key: u32, idx: u16, lane: u8, bank: u8, atomic: bool) {
        let b = usize::from(bank) & 63;
        let t = self.n;
        let g = self.group_of(key, self.ngroups as u16);
        let mut flags = 0;
        let cycle = match g {
            None => {
                // The first slot on this dword: the bank's next cycle.
                let c = self.bank_cycles[b];
                self.bank_cycles[b] += 1;
                self.groups[self.ngroups] = Group {
                    cycle: c,
                    last: t as u16,
                };
                self.ngroups += 1;
                c
            }
            Some(g) if atomic => {
                // Served after the earlier slot on its dword, whose
                // flag records that this one waits for it.
                let grp = &mut self.groups[usize::from(g)];
                self.slots[usize::from(grp.last)].flags |= F_SERIAL;
                grp.last = t as u16;
                let c = self.bank_cycles[b];
                self.bank_cycles[b] += 1;
                c
            }
            Some(g) => {
                // Broadcast with the group's first slot.
                flags = F_BROADCAST;
                self.groups[usize::from(g)].cycle
            }
        };
        self.cycles = self.cycles.max(cycle + 1);
        self.slots[t] = Grant {
            cycle,
            idx,
            lane,
            bank,
            flags,
        };
        self.n = t + 1;
    }

    /// The counters, for the pass to keep: `(n, cycles, ngroups)`.
    fn done(self) -> (usize, u16, usize) {
        (self.n, self.cycles, self.ngroups)
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

// Every two-element op (`read2`/`write2` and their `st64` forms) has
// elements of 4 or 8 bytes, the two widths `Lds::accept` compiles its slot
// loop for with two elements.
const _: () = {
    let mut code = 0;
    while code < 64 {
        let i = OpInfo::decode(code);
        assert!(!i.two || i.width == 4 || i.width == 8);
        code += 1;
    }
};

/// The unit: RAM, registered instruction state, results.
///
/// Acceptance computes each pass's schedule (`Pass`): which slots each
/// BUSY cycle serves. A BUSY cycle then costs in proportion to the slots it
/// serves, not to the 192 slots a pass could have.
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
    slots: [SlotData; NSLOTS],
    /// Per lane, bit k: slot k exists.
    exists: [u8; LANES],
    /// Per lane, bit k: slot k exists and is out of range.
    oor: [u8; LANES],
    /// The schedules of the two passes.
    passes: [Pass; 2],
    /// Groups of the instruction in flight by pass and dword.
    groups: DwordMap,
    /// The current cycle's grants are `passes[pass].served(pass_cycles)`
    /// (valid after [`Lds::arbitrate`] in a BUSY cycle).
    granted: bool,
    d0: [u32; LANES],
    d1: [u32; LANES],
    res: [u128; LANES],
    memviol: u64,
    cycles: u16,
    pass_cycles: u16,
    /// Results of the last completed instruction.
    pub out: Completion,
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
            store_d0: LdsParams::of(profile).cmpst_store_data0,
            gfx9: !profile.wave32(),
            geo: [geometry(profile, false), geometry(profile, true)],
            ram: vec![0; RAM_DWORDS],
            busy: false,
            info: OpInfo::decode(4),
            pass: 0,
            active: 0,
            slots: [SlotData::default(); NSLOTS],
            exists: [0; LANES],
            oor: [0; LANES],
            passes: [Pass::new(), Pass::new()],
            groups: DwordMap::new(),
            granted: false,
            d0: [0; LANES],
            d1: [0; LANES],
            res: [0; LANES],
            memviol: 0,
            cycles: 0,
            pass_cycles: 0,
            out: Completion::default(),
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
        let (l, k) = (i / SLOTS, i % SLOTS);
        if self.exists[l] >> k & 1 == 0 {
            return Slot::default();
        }
        let d = self.slots[i];
        Slot {
            exists: true,
            oor: self.oor[l] >> k & 1 != 0,
            dword: d.dword,
            phys: d.phys,
            bank: d.bank,
            be: d.be,
            wdata: d.wdata,
            rbase: d.rbase,
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
        self.grants().iter().map(|g| usize::from(g.idx))
    }

    /// The slots served in the current cycle.
    #[inline]
    fn grants(&self) -> &[Grant] {
        if self.granted {
            self.passes[usize::from(self.pass)].served(self.pass_cycles)
        } else {
            &[]
        }
    }

    /// Asynchronous reset: IDLE, results cleared, RAM kept.
    pub fn reset(&mut self) {
        self.busy = false;
        self.pass = 0;
        self.active = 0;
        self.out = Completion::default();
        self.granted = false;
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
        self.passes[0].clear();
        self.passes[1].clear();
        self.groups.clear();
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
            Kind::Load | Kind::Store | Kind::Atomic => match (info.width, info.two) {
                (1, false) => self.mem_slots::<1, false>(r, active, nbanks, ram_dwords),
                (2, false) => self.mem_slots::<2, false>(r, active, nbanks, ram_dwords),
                (4, false) => self.mem_slots::<4, false>(r, active, nbanks, ram_dwords),
                (8, false) => self.mem_slots::<8, false>(r, active, nbanks, ram_dwords),
                (12, false) => self.mem_slots::<12, false>(r, active, nbanks, ram_dwords),
                (_, false) => self.mem_slots::<16, false>(r, active, nbanks, ram_dwords),
                // Two-element ops are b32 or b64 (checked at compile time above).
                (4, true) => self.mem_slots::<4, true>(r, active, nbanks, ram_dwords),
                (_, true) => self.mem_slots::<8, true>(r, active, nbanks, ram_dwords),
            },
        }
        self.passes[0].seal();
        self.passes[1].seal();
        self.active = active;
        self.pass = if active & 0xFFFF_FFFF == 0 && active >> 32 != 0 {
            1
        } else {
            0
        };
    }

    /// The slots of the active lanes of a load, store or atomic whose
    /// elements are `W` bytes (`self.info` is the instruction). Lanes in
    /// ascending order, then elements, then dwords, so the slots reach
    /// their pass in ascending slot order. `W` and `TWO` (`info.two`, two
    /// elements a lane) are constants so that the element and dword loops
    /// unroll and the byte arithmetic is as wide as `W` needs.
    fn mem_slots<const W: u32, const TWO: bool>(
        &mut self,
        r: &Request,
        active: u64,
        nbanks: u32,
        ram_dwords: u32,
    ) {
        let info = self.info;
        debug_assert_eq!(info.two, TWO);
        let atomic = info.kind == Kind::Atomic;
        let adj = if TWO {
            W * if info.st64 { 64 } else { 1 }
        } else {
            0
        };
        let elems = if TWO { 2 } else { 1 };
        let off16 = u32::from(r.offset1) << 8 | u32::from(r.offset0);
        let base = u32::from(r.lds_base) * 64;
        let size = u64::from(r.lds_size);
        // The element's bytes as a mask (bit i = byte i) and its data with
        // the bytes above W cleared.
        let elem_be = (1u32 << W) - 1;
        let data_mask = if W >= 8 { u64::MAX } else { (1 << (8 * W)) - 1 };
        // DWORD mode aligns down to this (b96: 4).
        let align = info.align();
        // An element touches at most (3 + W + 3) / 4 dwords: 5 for b128,
        // within the lane's SLOTS (two elements of up to three).
        let max_dw = (W + 6) / 4;
        // The lanes of each pass in turn, with that pass being filled.
        for (half, pass) in self.passes.iter_mut().enumerate() {
            let mut m = active & 0xFFFF_FFFF << (32 * half);
            if m == 0 {
                continue;
            }
            let mut fill = pass.fill(&mut self.groups);
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                if atomic {
                    self.d0[l] = r.data0[l] as u32;
                    self.d1[l] = r.data1[l] as u32;
                }
                let mut exists = 0u8;
                let mut oor_bits = 0u8;
                for e in 0..elems {
                    let mut a = if info.addtid {
                        off16.wrapping_add(4 * l as u32).wrapping_add(r.m0 & !3)
                    } else if TWO {
                        let o = u32::from(if e == 0 { r.offset0 } else { r.offset1 });
                        r.addr[l].wrapping_add(o * adj)
                    } else {
                        r.addr[l].wrapping_add(off16)
                    };
                    if atomic {
                        if a & 3 != 0 {
                            self.memviol |= 1 << l;
                            continue;
                        }
                    } else if !r.unaligned {
                        a &= !(align - 1);
                    }
                    // b96 and b128 take bytes 0-7 from DATA0 and 8-15 from
                    // DATA1 (docs/lds.md "Data").
                    let word = if e == 0 { r.data0[l] } else { r.data1[l] } & data_mask;
                    let data = if W > 8 {
                        (u128::from(r.data0[l]) | u128::from(r.data1[l]) << 64)
                            & (u128::MAX >> (128 - 8 * W))
                    } else {
                        u128::from(word)
                    };
                    let lo = a & 3;
                    let ndw = (lo + W).div_ceil(4);
                    // Byte `lo + i` of these (first dword first) is byte `i` of
                    // the element; the other bytes are 0. Up to 7 bytes for
                    // W <= 4, up to 11 for W = 8, 19 for W = 16.
                    let be_all = elem_be << lo;
                    for j in 0..max_dw {
                        if j >= ndw {
                            break;
                        }
                        // Element bytes 4j - lo .. 4j - lo + 3. Up to 8 bytes
                        // the element shifted to its place fits 64 (W <= 4) or
                        // 128 bits (W = 8); a b96 or b128 is shifted right
                        // instead, so that none of its bytes is lost.
                        let wdata = if W <= 4 {
                            ((word << (8 * lo)) >> (32 * j)) as u32
                        } else if W <= 8 {
                            ((data << (8 * lo)) >> (32 * j)) as u32
                        } else if j == 0 {
                            (data << (8 * lo)) as u32
                        } else {
                            (data >> (32 * j - 8 * lo)) as u32
                        };
                        let dword = ((a >> 2).wrapping_add(j)) & 0x3FFF_FFFF;
                        let oor = u64::from(dword) * 4 >= size;
                        let bank = (dword & (nbanks - 1)) as u8;
                        let k = 3 * e + j as usize;
                        let i = SLOTS * l + k;
                        self.slots[i] = SlotData {
                            dword,
                            phys: base.wrapping_add(dword) & (ram_dwords - 1),
                            bank,
                            be: (be_all >> (4 * j) & 0xF) as u8,
                            wdata,
                            rbase: (e as u32 * W + 4 * j) as i8 - lo as i8,
                        };
                        exists |= 1 << k;
                        if oor {
                            oor_bits |= 1 << k;
                        } else {
                            // Dwords are 30 bits: bit 30 tells the passes apart.
                            let key = dword | (half as u32) << 30;
                            fill.add(key, i as u16, l as u8, bank, atomic);
                        }
                    }
                }
                self.exists[l] = exists;
                self.oor[l] = oor_bits;
            }
            (pass.n, pass.cycles, pass.ngroups) = fill.done();
        }
    }

    /// The grants of the current BUSY cycle from the registered state
    /// (`served`, `grant_lanes`, `grant_banks`); nothing when IDLE. The
    /// cycle's slots come from the pass's schedule (see `Pass`).
    pub fn arbitrate(&mut self) {
        self.events = Events::default();
        self.granted = self.busy;
        let (mut lanes, mut banks, mut flags) = (0u64, 0u64, 0u8);
        for g in self.grants() {
            lanes |= 1 << (g.lane & 63);
            banks |= 1 << (g.bank & 63);
            flags |= g.flags;
        }
        self.grant_lanes = lanes;
        self.grant_banks = banks;
        self.events.broadcast = flags & F_BROADCAST != 0;
        self.events.write_merge = self.events.broadcast && self.info.kind == Kind::Store;
        self.events.atomic_serialised = flags & F_SERIAL != 0;
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
        let served = self.passes[usize::from(self.pass)].served(self.pass_cycles);
        match self.info.kind {
            Kind::Load => {
                for p in served {
                    let s = &self.slots[usize::from(p.idx)];
                    let v = self.ram[s.phys as usize] & BYTE_MASKS[usize::from(s.be & 15)];
                    let v = u128::from(v);
                    self.res[usize::from(p.lane) & 63] |= if s.rbase >= 0 {
                        v << (8 * s.rbase as u32)
                    } else {
                        v >> (8 * s.rbase.unsigned_abs() as u32)
                    };
                }
            }
            Kind::Store => {
                for p in served {
                    let s = &self.slots[usize::from(p.idx)];
                    let m = BYTE_MASKS[usize::from(s.be & 15)];
                    let w = &mut self.ram[s.phys as usize];
                    *w = *w & !m | s.wdata & m;
                }
            }
            Kind::Atomic => {
                for p in served {
                    let phys = self.slots[usize::from(p.idx)].phys as usize;
                    let l = usize::from(p.lane) & 63;
                    let old = self.ram[phys];
                    if let Some(a) = self.info.atomic {
                        self.ram[phys] = a.apply(old, self.d0[l], self.d1[l], self.store_d0);
                    }
                    if self.info.rtn {
                        self.res[l] = u128::from(old);
                    }
                }
            }
            _ => {}
        }
        self.cycles = self.cycles.wrapping_add(1);
        self.pass_cycles += 1;
        self.granted = false;
        if self.pass_cycles < self.passes[usize::from(self.pass)].cycles {
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
