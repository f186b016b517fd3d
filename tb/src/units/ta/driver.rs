//! The `ta` driver: closed loop on `req_valid_i` / `req_ready_o`, with
//! backpressure on `line_ready_i`.

use super::txn::TaTxn;
use crate::testbench::{Drive, Driver, TxnSource};
use gpucosim_model::ta::ports::ta_ports as p;
use gpucosim_model::ta::write_instr;

/// The input words of the request ports, `vsharp_i` through `voffset_i`
/// (consecutive in the port table), which [`write_instr`] writes.
const REQUEST_PORTS: std::ops::Range<usize> =
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
    taken: usize,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{ModelRun, Stimulus};
    use crate::units::ta::stimulus::{draw, TaKnobs};
    use crate::units::ta::TaTestbench;
    use gpucosim_model::ta::isa::LANES;
    use gpucosim_model::ta::Instr;
    use gpucosim_model::Profile;

    #[test]
    fn driver_offers_each_transaction_once_and_in_order() {
        // Instructions accepted = transactions taken: the model counts them.
        let profile = Profile::Gfx9;
        let k = TaKnobs::default();
        let txns = draw(profile, 3, 200, &k);
        let mut want = Vec::new();
        for t in &txns {
            let mut i = Instr::default();
            // As the ports carry it.
            let mut inp = vec![0u32; p::TABLE.in_words()];
            write_instr(&t.instr, &mut inp);
            gpucosim_model::ta::read_instr(&inp, &mut i);
            want.push(i);
        }
        let mut run = ModelRun::<TaTestbench>::new(profile, 3, &k, Stimulus::Replay(txns));
        let mut got = Vec::new();
        run.run_until_done(1_000_000, |_, inp, out| {
            // Taken in a cycle the unit shows `req_ready_o` (which depends
            // on its state only) with `req_valid_i` driven.
            if p::req_ready_o.bit(out) && p::req_valid_i.bit(inp) {
                let mut i = Instr::default();
                gpucosim_model::ta::read_instr(inp, &mut i);
                got.push(i);
            }
        })
        .expect("the driver finishes");
        assert_eq!(got.len(), want.len());
        assert!(
            got == want,
            "instructions accepted differ from those generated"
        );
    }

    #[test]
    fn an_offer_held_while_the_unit_is_busy_is_driven_as_drive_drives_it() {
        // Two drivers over the same transactions and the same model outputs:
        // one asks `drive_held` first, on inputs scribbled over, the other
        // only `drive`, on zeroed inputs. Every cycle's inputs and status
        // must be the same, backpressure patterns and gaps included.
        use gpucosim_model::ta::TaModel;
        use gpucosim_model::Unit;
        for profile in Profile::all() {
            let k = TaKnobs::default();
            let txns = draw(profile, 5, 300, &k);
            let (iw, ow) = (p::TABLE.in_words(), p::TABLE.out_words());
            let (mut held, mut plain) = (TaDriver::new(), TaDriver::new());
            let (mut src_h, mut src_p) = (txns.clone().into_iter(), txns.into_iter());
            let mut model = TaModel::new(profile);
            let mut out = vec![0u32; ow];
            model.step(&vec![0u32; iw], &mut out);
            let mut held_cycles = 0;
            for cycle in 0..100_000 {
                let mut inp_h = vec![0xA5A5_5A5Au32; iw];
                let st_h = match held.drive_held(&out, &mut inp_h) {
                    Some(st) => {
                        held_cycles += 1;
                        st
                    }
                    None => {
                        inp_h.fill(0);
                        p::rst_ni.set(&mut inp_h, 1);
                        held.drive(&out, &mut inp_h, &mut src_h)
                    }
                };
                let mut inp_p = vec![0u32; iw];
                p::rst_ni.set(&mut inp_p, 1);
                let st_p = plain.drive(&out, &mut inp_p, &mut src_p);
                assert_eq!(inp_h, inp_p, "{profile}: inputs of cycle {cycle}");
                assert_eq!(st_h, st_p, "{profile}: status of cycle {cycle}");
                if st_p == Drive::Done {
                    break;
                }
                model.step(&inp_p, &mut out);
            }
            assert_eq!(held.taken, 300, "{profile}: every transaction offered");
            assert!(held_cycles > 300, "{profile}: {held_cycles} cycles held");
        }
    }

    #[test]
    fn write_instr_writes_just_the_request_ports() {
        // Every request port lies in REQUEST_PORTS, nothing else does.
        for (d, port) in p::TABLE.of(gpucosim_model::ports::Dir::In) {
            let inside = port.offset >= REQUEST_PORTS.start
                && port.offset + port.words() <= REQUEST_PORTS.end;
            let request = !matches!(d.name, "rst_ni" | "req_valid_i" | "line_ready_i");
            assert_eq!(inside, request, "{}", d.name);
        }
        let i = Instr {
            vsharp: u128::MAX,
            exec: u64::MAX,
            vindex: [u32::MAX; LANES],
            voffset: [u32::MAX; LANES],
            ..Instr::default()
        };
        let mut inp = vec![0u32; p::TABLE.in_words()];
        write_instr(&i, &mut inp);
        for (w, x) in inp.iter().enumerate() {
            assert!(REQUEST_PORTS.contains(&w) || *x == 0, "word {w}");
        }
    }
}
