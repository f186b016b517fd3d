//! The `ta` driver: closed loop on `req_valid_i` / `req_ready_o`, with
//! backpressure on `line_ready_i`.

use super::txn::TaTxn;
use crate::testbench::{Drive, Driver, TxnSource};
use gpucosim_model::ta::ports::ta_ports as p;
use gpucosim_model::ta::write_instr;

/// The input words of the request ports, `vsharp_i` through `voffset_i`
/// (consecutive in the port table), which [`write_instr`] writes.
#[doc(hidden)]
pub const REQUEST_PORTS: std::ops::Range<usize> =
    p::vsharp_i.offset..p::voffset_i.offset + p::voffset_i.words();

/// A transaction taken from the source, with its consumption index.
struct Held {
    idx: usize,
    gap: u8,
    ready: u64,
    ready_len: u8,
}

/// Closed-loop driver: offers one instruction at a time on `req_valid_i`
/// until it sees it accepted (`req_ready_o` in the cycle it was offered),
/// and drives `line_ready_i` from the running instruction's pattern.
pub struct TaDriver {
    /// Input words with the offered instruction on the request ports
    /// (`REQUEST_PORTS`), written once per transaction, and `rst_ni` and
    /// `req_valid_i` high: its request ports are copied into the inputs in
    /// every cycle it is offered, and the whole of it while the unit is
    /// busy ([`Driver::drive_held`]).
    image: Vec<u32>,
    offer: Option<Held>,
    active: Option<Held>,
    /// Cycles since the running instruction was accepted, modulo the length
    /// of its `line_ready_i` pattern.
    ready_phase: u32,
    drove_valid: bool,
    #[doc(hidden)]
    pub taken: usize,
    exhausted: bool,
}

impl TaDriver {
    /// A driver with nothing offered yet.
    pub fn new() -> Self {
        let mut image = vec![0; p::TABLE.in_words()];
        p::rst_ni.set(&mut image, 1);
        p::req_valid_i.set(&mut image, 1);
        TaDriver {
            image,
            offer: None,
            active: None,
            ready_phase: 0,
            drove_valid: false,
            taken: 0,
            exhausted: false,
        }
    }

    /// Drives `line_ready_i` from the running instruction's pattern and
    /// moves the pattern on by a cycle.
    #[inline]
    fn drive_line_ready(&mut self, inputs: &mut [u32]) {
        let ready = match &self.active {
            Some(a) if a.ready_len > 1 => a.ready >> self.ready_phase & 1 != 0,
            _ => true,
        };
        // The running instruction's cycle modulo its pattern length.
        self.ready_phase = self.ready_phase.wrapping_add(1);
        if let Some(a) = &self.active {
            if self.ready_phase >= a.ready_len as u32 {
                self.ready_phase = 0;
            }
        }
        p::line_ready_i.set(inputs, ready as u64);
    }
}

impl Driver<TaTxn> for TaDriver {
    fn drive(
        &mut self,
        prev_out: &[u32],
        inputs: &mut [u32],
        src: &mut dyn TxnSource<TaTxn>,
    ) -> Drive {
        // The unit was IDLE in the previous cycle: whatever ran has finished,
        // and what was offered then was accepted.
        let was_idle = p::req_ready_o.bit(prev_out);
        if was_idle {
            self.active = None;
            if self.drove_valid {
                self.active = self.offer.take();
                self.ready_phase = 0;
            }
        }
        if self.offer.is_none() && !self.exhausted {
            match src.next_txn() {
                Some(t) => {
                    write_instr(&t.instr, &mut self.image);
                    self.offer = Some(Held {
                        idx: self.taken,
                        gap: t.gap,
                        ready: t.ready,
                        ready_len: t.ready_len,
                    });
                    self.taken += 1;
                }
                None => self.exhausted = true,
            }
        }
        self.drove_valid = false;
        if let Some(o) = &mut self.offer {
            if o.gap > 0 {
                o.gap -= 1;
            } else {
                inputs[REQUEST_PORTS].copy_from_slice(&self.image[REQUEST_PORTS]);
                p::req_valid_i.set(inputs, 1);
                self.drove_valid = true;
            }
        }
        self.drive_line_ready(inputs);
        if self.exhausted && self.offer.is_none() && self.active.is_none() && was_idle {
            Drive::Done
        } else {
            Drive::Busy
        }
    }

    fn drive_held(&mut self, prev_out: &[u32], inputs: &mut [u32]) -> Option<Drive> {
        // The unit was busy in the previous cycle: nothing finished, and an
        // offer shown then was not taken. An offer past its gap is shown
        // again, as `drive` would show it, but from the whole image (no
        // zeroing first).
        let offer = self.offer.as_ref()?;
        if offer.gap > 0 || p::req_ready_o.bit(prev_out) {
            return None;
        }
        inputs.copy_from_slice(&self.image);
        self.drove_valid = true;
        self.drive_line_ready(inputs);
        Some(Drive::Busy)
    }

    fn in_flight(&self) -> Option<usize> {
        self.active.as_ref().or(self.offer.as_ref()).map(|h| h.idx)
    }
}

impl Default for TaDriver {
    fn default() -> Self {
        Self::new()
    }
}
