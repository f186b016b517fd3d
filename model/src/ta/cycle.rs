//! The cycle model of `ta_top` (`docs/ta.md`): the request handshake, the
//! per-lane results in the first ACTIVE cycle and the coalescer's line
//! requests under backpressure, around the transaction level of [`super::tlm`].

use super::cover::{Bin, Events};
use super::isa::{Instr, Kind, Op};
use super::params::TaParams;
use super::ports::ta_ports as p;
use super::tlm::{compute_in, for_each_piece, LaneResults, Piece, Scratch, MAX_PIECES};
use crate::cover::{coverage, Recorder};
use crate::ports::PortTable;
use crate::profile::Profile;
use crate::unit::{Coverage, Unit};

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
    p::lane_addr_o
        .slice_mut(outputs)
        .copy_from_slice(&res.addr_words);
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

/// One line request of the instruction in flight: every piece in `line`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Request {
    line: u64,
    mask: u128,
    /// Pieces it covers.
    pieces: u32,
}

/// Entry of the line → request index (valid only when `stamp` is current).
#[derive(Debug, Clone, Copy, Default)]
struct IndexEntry {
    stamp: u32,
    request: u32,
}

/// Buckets of the line index: a power of two, at least twice the most
/// lines one instruction can touch (one per piece).
const INDEX_BUCKETS: usize = 2 * MAX_PIECES;
const INDEX_BITS: u32 = INDEX_BUCKETS.trailing_zeros();

/// The line requests of the instruction in flight, in the order the
/// coalescer of docs/ta.md issues them.
///
/// The coalescer each cycle requests the line of the lowest pending piece
/// with every pending piece in that line, and a request clears all of them.
/// The pending set changes only by whole lines, so the requests are the
/// instruction's distinct lines in the order of their first piece, each with
/// the union of its pieces' bytes, and a request is the last one exactly
/// when it is the last distinct line. They are built once, at acceptance,
/// by one pass over the pieces (a hash index finds a line's request), and
/// each consumed request just advances `next`.
#[derive(Debug, Clone)]
struct Requests {
    list: Box<[Request; MAX_PIECES]>,
    len: usize,
    /// The first request not yet consumed.
    next: usize,
    index: Box<[IndexEntry; INDEX_BUCKETS]>,
    stamp: u32,
}

impl Requests {
    fn new() -> Self {
        Requests {
            list: Box::new([Request::default(); MAX_PIECES]),
            len: 0,
            next: 0,
            index: Box::new([IndexEntry::default(); INDEX_BUCKETS]),
            stamp: 0,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
        self.next = 0;
    }

    /// Builds the requests of `res` for lines of `line_bytes`; returns
    /// whether a piece crossed a line boundary.
    fn build(&mut self, res: &LaneResults, line_bytes: u32) -> bool {
        self.clear();
        // A new stamp empties the index without clearing it.
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.index.fill(IndexEntry::default());
            self.stamp = 1;
        }
        // The request of the previous piece: neighbouring slots are mostly
        // in the same line, which then needs no lookup.
        let mut prev = usize::MAX;
        for_each_piece(res, line_bytes, |p| {
            if prev != usize::MAX && self.list[prev].line == p.line {
                self.merge(prev, p);
            } else {
                prev = self.find_or_add(p);
            }
        })
    }

    fn merge(&mut self, r: usize, p: Piece) {
        let req = &mut self.list[r];
        req.mask |= p.mask;
        req.pieces += 1;
    }

    /// Adds `p` to its line's request (a new one at the end if the line is
    /// new); returns the request's index.
    fn find_or_add(&mut self, p: Piece) -> usize {
        // Fibonacci hashing: the top bits of the product.
        let mut b = (p.line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - INDEX_BITS)) as usize;
        loop {
            let e = self.index[b];
            if e.stamp != self.stamp {
                let r = self.len;
                self.index[b] = IndexEntry {
                    stamp: self.stamp,
                    request: r as u32,
                };
                self.list[r] = Request {
                    line: p.line,
                    mask: p.mask,
                    pieces: 1,
                };
                self.len += 1;
                return r;
            }
            let r = e.request as usize;
            if self.list[r].line == p.line {
                self.merge(r, p);
                return r;
            }
            b = (b + 1) % INDEX_BUCKETS;
        }
    }

    /// The request offered now, if any, and whether it is the last one.
    fn current(&self) -> Option<(&Request, bool)> {
        (self.next < self.len).then(|| (&self.list[self.next], self.next + 1 == self.len))
    }

    /// Pieces not yet requested.
    fn pending_pieces(&self) -> u32 {
        self.list[self.next..self.len]
            .iter()
            .map(|r| r.pieces)
            .sum()
    }
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
    scratch: Box<Scratch>,
    reqs: Requests,
    accepted: u64,
    prev_active: bool,
    cov: Coverage,
    rec: Recorder<Bin>,
}

impl TaModel {
    /// A model of `profile` in its reset state.
    pub fn new(profile: Profile) -> Self {
        TaModel {
            profile,
            line_bytes: TaParams::of(profile).line_bytes,
            state: State::Idle,
            first: false,
            op: 0,
            instr: Box::default(),
            res: Box::default(),
            scratch: Box::default(),
            reqs: Requests::new(),
            accepted: 0,
            prev_active: false,
            cov: coverage::<Bin>(profile),
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
        self.reqs.clear();
        self.prev_active = false;
    }

    fn accept(&mut self, inputs: &[u32]) {
        read_instr(inputs, &mut self.instr);
        let mut ev = Events::default();
        compute_in(
            self.profile,
            &self.instr,
            &mut self.res,
            &mut ev,
            &mut self.scratch,
        );
        if self.reqs.build(&self.res, self.line_bytes) {
            ev.set(Bin::PieceCrossesLine);
        }
        self.op = self.instr.op as u32;
        if self.prev_active {
            ev.set(Bin::BackToBack);
        }
        self.rec.hit_set(ev.0, &mut self.cov);
        self.accepted += 1;
        self.state = State::Active;
        self.first = true;
    }

    /// Coverage of the number of line requests of the instruction just done.
    fn count_requests(&mut self) {
        let requests = self.reqs.len;
        let b = match requests {
            0 => Bin::LinesNone,
            1 => Bin::LinesOne,
            _ => Bin::LinesMulti,
        };
        self.rec.hit(b, &mut self.cov);
        if requests > 16 {
            self.rec.hit(Bin::LinesMax, &mut self.cov);
        }
    }

    fn write_line(&self, outputs: &mut [u32]) {
        match self.reqs.current() {
            Some((r, last)) => {
                p::line_valid_o.set(outputs, 1);
                p::line_addr_o.set(outputs, r.line * self.line_bytes as u64);
                let m = p::line_mask_o.slice_mut(outputs);
                for (i, w) in m.iter_mut().enumerate() {
                    *w = (r.mask >> (32 * i)) as u32;
                }
                p::line_op_o.set(outputs, self.op as u64);
                p::line_last_o.set(outputs, last as u64);
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
                // A pending request is consumed if line_ready_i is 1 and
                // stalls otherwise. line_ready_i often follows a random
                // pattern, so this is written without a branch on it.
                let pending = self.reqs.current().is_some();
                let ready = p::line_ready_i.bit(inputs);
                self.reqs.next += (pending && ready) as usize;
                self.rec
                    .add(Bin::Stall, (pending && !ready) as u64, &mut self.cov);
                if self.reqs.current().is_none() {
                    self.state = State::Idle;
                    self.count_requests();
                }
                self.prev_active = true;
            }
        }
    }

    fn in_flight(&self) -> String {
        match self.state {
            State::Idle => "idle".to_string(),
            State::Active => {
                let i = &self.instr;
                let pending = self.reqs.pending_pieces();
                format!(
                    "active: {:?} {:?} size {} fmt {} exec {:#x} vsharp 0x{}, {} piece(s) pending",
                    i.kind,
                    i.op,
                    i.size,
                    i.fmt,
                    i.exec,
                    (0..4)
                        .rev()
                        .map(|d| format!("{:08x}", (i.vsharp >> (32 * d)) as u32))
                        .collect::<Vec<_>>()
                        .join("_"),
                    pending
                )
            }
        }
    }

    fn coverage(&self) -> &Coverage {
        &self.cov
    }

    fn fork(&self) -> Box<dyn Unit> {
        Box::new(self.clone())
    }
}
