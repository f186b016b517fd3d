//! The `lds` driver: the `req_valid_i` / `req_ready_o` handshake.

use super::txn::LdsTxn;
use crate::testbench::{Drive, Driver, TxnSource};
use gpucosim_model::lds::ports::lds_ports as P;
use gpucosim_model::lds::tlm::LANES;

/// Offers each transaction after its idle gap and holds the offer
/// (`req_valid_i` and the payload) until the unit takes it, so an offer
/// made while BUSY is taken in the done cycle (back to back).
pub struct LdsDriver {
    pending: Option<LdsTxn>,
    /// An offer is on the inputs (packed in `packed`) and not yet taken.
    offering: bool,
    packed: Vec<u32>,
    gap: u8,
    taken: usize,
    in_flight: Option<usize>,
}

impl LdsDriver {
    /// A driver with nothing offered yet.
    pub fn new() -> Self {
        LdsDriver {
            pending: None,
            offering: false,
            packed: vec![0; P::TABLE.in_words()],
            gap: 0,
            taken: 0,
            in_flight: None,
        }
    }

    #[doc(hidden)]
    pub fn apply(t: &LdsTxn, inp: &mut [u32]) {
        let r = &t.req;
        P::req_valid_i.set(inp, 1);
        P::op_i.set(inp, u64::from(r.op));
        P::wave64_i.set(inp, u64::from(r.wave64));
        P::wgp_i.set(inp, u64::from(r.wgp));
        P::unaligned_i.set(inp, u64::from(r.unaligned));
        P::exec_i.set(inp, r.exec);
        P::offset0_i.set(inp, u64::from(r.offset0));
        P::offset1_i.set(inp, u64::from(r.offset1));
        P::m0_i.set(inp, u64::from(r.m0));
        P::lds_base_i.set(inp, u64::from(r.lds_base));
        P::lds_size_i.set(inp, u64::from(r.lds_size));
        for l in 0..LANES {
            P::addr_i.set_elem(inp, l, u64::from(r.addr[l]));
            P::data0_i.set_elem(inp, l, r.data0[l]);
            P::data1_i.set_elem(inp, l, r.data1[l]);
        }
    }
}

impl Driver<LdsTxn> for LdsDriver {
    fn drive(&mut self, prev: &[u32], inp: &mut [u32], src: &mut dyn TxnSource<LdsTxn>) -> Drive {
        // `prev` shows the cycle before this one: if we offered then and the
        // unit was ready, it took the instruction at that cycle's edge.
        // An offer not taken is held (`ModelRun` asks `drive_held` first).
        if let Some(held) = self.drive_held(prev, inp) {
            return held;
        }
        let ready_prev = P::req_ready_o.bit(prev);
        let mut just_taken = false;
        if self.offering {
            self.offering = false;
            self.in_flight = Some(self.taken - 1);
            just_taken = true;
        }
        if self.pending.is_none() {
            self.pending = src.next_txn();
            if let Some(t) = &self.pending {
                self.gap = t.gap;
                self.taken += 1;
            }
        }
        match &self.pending {
            None => {
                if ready_prev && !just_taken {
                    self.in_flight = None;
                    Drive::Done
                } else {
                    Drive::Busy
                }
            }
            Some(_) if self.gap > 0 => {
                self.gap -= 1;
                Drive::Busy
            }
            Some(t) => {
                // `inp` is zeroed with `rst_ni` high: apply the offer there
                // and keep a copy to hold it.
                Self::apply(t, inp);
                self.packed.copy_from_slice(inp);
                self.pending = None;
                self.offering = true;
                Drive::Busy
            }
        }
    }

    fn drive_held(&mut self, prev: &[u32], inp: &mut [u32]) -> Option<Drive> {
        // Hold the offer (valid and payload, packed once, `rst_ni` high)
        // until the unit takes it.
        (self.offering && !P::req_ready_o.bit(prev)).then(|| {
            inp.copy_from_slice(&self.packed);
            Drive::Busy
        })
    }

    fn in_flight(&self) -> Option<usize> {
        self.in_flight
    }
}

impl Default for LdsDriver {
    fn default() -> Self {
        Self::new()
    }
}
