//! Texture-cache address unit for MUBUF/MTBUF buffer instructions (SPEC §1).
//! Cycle contract: `docs/ta.md`.
//!
//! - [`core`]: the transaction level (V# decode, per-lane addresses, range
//!   checks, alignment, pieces and the coalescer), pure functions;
//! - [`formats`]: the data-format tables;
//! - [`cover`]: the functional-coverage bins;
//! - [`TaModel`]: the cycle model run against the RTL.

pub mod core;
pub mod cover;
pub mod formats;
pub mod ports;

pub use self::core::{
    Access, Class, FormatEncoding, Instr, Kind, LaneResults, LineReq, Op, RangeRule,
    SwizzleEncoding, TaParams, Vsharp, VsharpFields,
};

use self::core::{compute, pieces, Pieces, MAX_PIECES};
use self::cover::{Bin, Events, Recorder};
use crate::ports::PortTable;
use crate::profile::Profile;
use crate::unit::{Coverage, Unit};
use ports::ta_ports as p;

/// Reads the instruction on the request ports of `inputs` into `instr`.
pub fn read_instr(inputs: &[u32], instr: &mut Instr) {
    let vs = p::vsharp_i.slice(inputs);
    instr.vsharp =
        vs[0] as u128 | (vs[1] as u128) << 32 | (vs[2] as u128) << 64 | (vs[3] as u128) << 96;
    instr.kind = Kind::from_bits(p::kind_i.get(inputs) as u32);
    instr.op = Op::from_bits(p::op_i.get(inputs) as u32);
    instr.size = p::size_i.get(inputs) as u32;
    instr.fmt = p::fmt_i.get(inputs) as u32;
    instr.offen = p::offen_i.bit(inputs);
    instr.idxen = p::idxen_i.bit(inputs);
    instr.inst_offset = p::inst_offset_i.get(inputs) as u32;
    instr.soffset = p::soffset_i.get(inputs) as u32;
    instr.align_mode = p::align_mode_i.get(inputs) as u32;
    instr.wave64 = p::wave64_i.bit(inputs);
    instr.exec = p::exec_i.get(inputs);
    instr.vindex.copy_from_slice(p::vindex_i.slice(inputs));
    instr.voffset.copy_from_slice(p::voffset_i.slice(inputs));
}

/// Writes the instruction `instr` onto the request ports of `inputs`
/// (the inverse of [`read_instr`]; `req_valid_i` is left alone).
pub fn write_instr(instr: &Instr, inputs: &mut [u32]) {
    let v = instr.vsharp;
    let vs = p::vsharp_i.slice_mut(inputs);
    for (i, w) in vs.iter_mut().enumerate() {
        *w = (v >> (32 * i)) as u32;
    }
    p::kind_i.set(inputs, instr.kind as u64);
    p::op_i.set(inputs, instr.op as u64);
    p::size_i.set(inputs, instr.size as u64);
    p::fmt_i.set(inputs, instr.fmt as u64);
    p::offen_i.set(inputs, instr.offen as u64);
    p::idxen_i.set(inputs, instr.idxen as u64);
    p::inst_offset_i.set(inputs, instr.inst_offset as u64);
    p::soffset_i.set(inputs, instr.soffset as u64);
    p::align_mode_i.set(inputs, instr.align_mode as u64);
    p::wave64_i.set(inputs, instr.wave64 as u64);
    p::exec_i.set(inputs, instr.exec);
    p::vindex_i.slice_mut(inputs).copy_from_slice(&instr.vindex);
    p::voffset_i
        .slice_mut(inputs)
        .copy_from_slice(&instr.voffset);
}

/// Writes the per-lane results onto the `lane_*` output ports.
pub fn write_lanes(res: &LaneResults, outputs: &mut [u32]) {
    let addr = p::lane_addr_o.slice_mut(outputs);
    // Two 48-bit elements fill three words.
    for (pair, w) in res.addr.chunks_exact(2).zip(addr.chunks_exact_mut(3)) {
        let (a0, a1) = (pair[0], pair[1]);
        w[0] = a0 as u32;
        w[1] = (a0 >> 32) as u32 | (a1 << 16) as u32;
        w[2] = (a1 >> 16) as u32;
    }
    for (set, port) in [
        (&res.inrange, p::lane_inrange_o),
        (&res.access, p::lane_access_o),
    ] {
        let w = port.slice_mut(outputs);
        for (i, x) in set.iter().enumerate() {
            w[2 * i] = *x as u32;
            w[2 * i + 1] = (*x >> 32) as u32;
        }
    }
    p::lane_memviol_o.set(outputs, res.memviol);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    Active,
}

/// The current line request (the lowest pending piece's line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Current {
    line: u64,
    mask: u128,
    last: bool,
}

/// Cycle model of `ta_top` (docs/ta.md).
#[derive(Debug, Clone)]
pub struct TaModel {
    profile: Profile,
    line_bytes: u32,
    state: State,
    first: bool,
    op: u32,
    instr: Box<Instr>,
    res: Box<LaneResults>,
    pieces: Box<Pieces>,
    pending: [u64; MAX_PIECES / 64],
    cur: Option<Current>,
    accepted: u64,
    requests: u32,
    prev_active: bool,
    cov: Coverage,
    rec: Recorder,
}

impl TaModel {
    /// A model of `profile` in its reset state.
    pub fn new(profile: Profile) -> Self {
        TaModel {
            profile,
            line_bytes: profile.params().ta_line_bytes,
            state: State::Idle,
            first: false,
            op: 0,
            instr: Box::default(),
            res: Box::default(),
            pieces: Box::default(),
            pending: [0; MAX_PIECES / 64],
            cur: None,
            accepted: 0,
            requests: 0,
            prev_active: false,
            cov: cover::coverage(profile),
            rec: Recorder::new(profile),
        }
    }

    /// The results of the instruction last accepted.
    pub fn lane_results(&self) -> &LaneResults {
        &self.res
    }

    fn reset(&mut self) {
        self.state = State::Idle;
        self.first = false;
        self.op = 0;
        self.pending = [0; MAX_PIECES / 64];
        self.cur = None;
        self.prev_active = false;
    }

    /// The request for the lowest pending piece's line, covering every pending
    /// piece in that line.
    fn select(&self) -> Option<Current> {
        let pcs = &self.pieces.buf;
        let mut cur: Option<Current> = None;
        for (wi, &w) in self.pending.iter().enumerate() {
            let mut bits = w;
            while bits != 0 {
                let i = wi * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                match &mut cur {
                    None => {
                        cur = Some(Current {
                            line: pcs[i].line,
                            mask: pcs[i].mask,
                            last: true,
                        })
                    }
                    Some(c) if c.line == pcs[i].line => c.mask |= pcs[i].mask,
                    Some(c) => c.last = false,
                }
            }
        }
        cur
    }

    /// Clears every pending piece in `line`.
    fn consume(&mut self, line: u64) {
        let pcs = &self.pieces.buf;
        for (wi, w) in self.pending.iter_mut().enumerate() {
            let mut bits = *w;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if pcs[wi * 64 + b].line == line {
                    *w &= !(1 << b);
                }
            }
        }
    }

    fn accept(&mut self, inputs: &[u32]) {
        read_instr(inputs, &mut self.instr);
        let mut ev = Events::default();
        compute(self.profile, &self.instr, &mut self.res, &mut ev);
        if pieces(&self.res, self.line_bytes, &mut self.pieces) {
            ev.set(Bin::PieceCrossesLine);
        }
        let n = self.pieces.len;
        self.pending = [0; MAX_PIECES / 64];
        for i in 0..n {
            self.pending[i / 64] |= 1 << (i % 64);
        }
        self.op = self.instr.op as u32;
        self.cur = self.select();
        if self.prev_active {
            ev.set(Bin::BackToBack);
        }
        self.rec.record(ev, &mut self.cov);
        self.accepted += 1;
        self.requests = 0;
        self.state = State::Active;
        self.first = true;
    }

    /// Coverage of the number of line requests of the instruction just done.
    fn count_requests(&mut self) {
        let b = match self.requests {
            0 => Bin::LinesNone,
            1 => Bin::LinesOne,
            _ => Bin::LinesMulti,
        };
        self.rec.hit(b, &mut self.cov);
        if self.requests > 16 {
            self.rec.hit(Bin::LinesMax, &mut self.cov);
        }
    }

    fn write_line(&self, outputs: &mut [u32]) {
        match self.cur {
            Some(c) => {
                p::line_valid_o.set(outputs, 1);
                p::line_addr_o.set(outputs, c.line * self.line_bytes as u64);
                let m = p::line_mask_o.slice_mut(outputs);
                for (i, w) in m.iter_mut().enumerate() {
                    *w = (c.mask >> (32 * i)) as u32;
                }
                p::line_op_o.set(outputs, self.op as u64);
                p::line_last_o.set(outputs, c.last as u64);
            }
            None => {
                p::line_valid_o.set(outputs, 0);
                p::line_addr_o.set(outputs, 0);
                p::line_mask_o.slice_mut(outputs).fill(0);
                p::line_op_o.set(outputs, 0);
                p::line_last_o.set(outputs, 0);
            }
        }
    }
}

impl Unit for TaModel {
    fn table(&self) -> &'static PortTable {
        &p::TABLE
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    fn step(&mut self, inputs: &[u32], outputs: &mut [u32]) {
        if !p::rst_ni.bit(inputs) {
            self.reset();
            outputs.fill(0);
            p::req_ready_o.set(outputs, 1);
            return;
        }
        match self.state {
            State::Idle => {
                p::req_ready_o.set(outputs, 1);
                p::lane_valid_o.set(outputs, 0);
                self.write_line(outputs);
                if p::req_valid_i.bit(inputs) {
                    self.accept(inputs);
                }
                self.prev_active = false;
            }
            State::Active => {
                p::req_ready_o.set(outputs, 0);
                p::lane_valid_o.set(outputs, self.first as u64);
                if self.first {
                    write_lanes(&self.res, outputs);
                }
                self.write_line(outputs);
                self.first = false;
                if let Some(c) = self.cur {
                    if p::line_ready_i.bit(inputs) {
                        self.consume(c.line);
                        self.cur = self.select();
                        self.requests += 1;
                    } else {
                        self.rec.hit(Bin::Stall, &mut self.cov);
                    }
                }
                if self.cur.is_none() {
                    self.state = State::Idle;
                    self.count_requests();
                }
                self.prev_active = true;
            }
        }
    }

    fn in_flight(&self) -> String {
        match self.state {
            State::Idle => format!("idle after {} instruction(s)", self.accepted),
            State::Active => {
                let i = &self.instr;
                let pending: u32 = self.pending.iter().map(|w| w.count_ones()).sum();
                format!(
                    "instruction #{} {:?} {:?} size {} fmt {} exec {:#x} vsharp {:#034x}: {} piece(s) pending",
                    self.accepted - 1,
                    i.kind,
                    i.op,
                    i.size,
                    i.fmt,
                    i.exec,
                    i.vsharp,
                    pending
                )
            }
        }
    }

    fn coverage(&self) -> &Coverage {
        &self.cov
    }
}
