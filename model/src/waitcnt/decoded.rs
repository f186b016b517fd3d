//! The `waitcnt` unit's decoded waveform signals ([`crate::decode`]):
//!
//! - per side (`tb.model`, `tb.rtl`) and wave, the counters the profile has
//!   as numbers (`tb.model.wave3.vm_cnt`, `lgkm_cnt`, `exp_cnt`, `vs_cnt`:
//!   the `*_cnt_o` ports, which carry them as registered) and the wait the
//!   wave is held at, as text (`tb.model.wave3.wait`: `s_waitcnt vmcnt(0)`
//!   from the cycle it is accepted while that side shows the wave stalled
//!   or released, `-` otherwise; the thresholds themselves are no port, so
//!   the text is taken from the `wait_*_i` inputs in the cycle the wait is
//!   offered and accepted and held);
//! - what the sequencer offers in the cycle, as text: `tb.in.issue`
//!   (`wave 3 vmem_load`), `tb.in.wait` (`wave 3 s_waitcnt lgkmcnt(0)`)
//!   and `tb.in.ret` (`ch0 wave 3 lds, ch2 wave 1 smem1`), `-` when
//!   nothing is.

use super::cycle::{ErrCode, RET_CHANNELS, WAVES};
use super::isa::{Class, Counter, Wait, COUNTERS};
use super::ports::waitcnt_ports as P;
use crate::decode::{set_text, Decoder, Group, Kind, Signal, Value};
use crate::ports::Port;
use crate::profile::Profile;
use std::fmt::Write as _;

/// The `waitcnt` decoder of one profile.
pub struct WaitcntDecoder {
    profile: Profile,
    /// The counters the profile has.
    counters: Vec<Counter>,
}

impl WaitcntDecoder {
    /// The decoder for `profile`.
    pub fn new(profile: Profile) -> WaitcntDecoder {
        WaitcntDecoder {
            profile,
            counters: COUNTERS
                .iter()
                .copied()
                .filter(|c| c.width(profile) > 0)
                .collect(),
        }
    }

    /// Signals per side and wave: the counters and the wait.
    fn per_wave(&self) -> usize {
        self.counters.len() + 1
    }
}

/// The port carrying counter `c` of every wave.
fn counter_port(c: Counter) -> Port {
    match c {
        Counter::Vm => P::vm_cnt_o,
        Counter::Lgkm => P::lgkm_cnt_o,
        Counter::Exp => P::exp_cnt_o,
        Counter::Vs => P::vs_cnt_o,
    }
}

/// A class code by name (`class 13` for a code without one).
fn class(code: u64) -> String {
    match Class::from_code(code as u32) {
        Some(c) => c.name().to_string(),
        None => format!("class {code}"),
    }
}

/// Number of the texts of the inputs (issue, wait, returns).
const INPUT_TEXTS: usize = 3;

impl Decoder for WaitcntDecoder {
    fn signals(&self) -> Vec<Signal> {
        let mut v = vec![
            Signal::computed(Group::In, &[], "issue", Kind::Text, 0),
            Signal::computed(Group::In, &[], "wait", Kind::Text, 1),
            Signal::computed(Group::In, &[], "ret", Kind::Text, 2),
        ];
        for group in [Group::Model, Group::Rtl] {
            for w in 0..WAVES {
                let wave = format!("wave{w}");
                for c in &self.counters {
                    let name = format!("{}_cnt", c.name());
                    let kind = Kind::Int(c.width(self.profile));
                    v.push(
                        Signal::computed(group, &[&wave], &name, kind, v.len())
                            .of_item("wave", w as u32),
                    );
                }
                v.push(
                    Signal::computed(group, &[&wave], "wait", Kind::Text, v.len())
                        .of_item("wave", w as u32),
                );
            }
        }
        v
    }

    fn decode(&mut self, inputs: &[u32], model: &[u32], rtl: &[u32], out: &mut [Value]) {
        let profile = self.profile;
        let live = P::rst_ni.bit(inputs);
        let wait = Wait {
            vscnt: P::wait_vscnt_i.bit(inputs),
            imm: P::wait_imm_i.get(inputs) as u16,
        };
        let wait_wave = P::wait_wave_i.get(inputs) as usize;
        let waiting = live && P::wait_valid_i.bit(inputs);
        // The inputs.
        if live && P::issue_valid_i.bit(inputs) {
            set_text(
                &mut out[0],
                format_args!(
                    "wave {} {}",
                    P::issue_wave_i.get(inputs),
                    class(P::issue_class_i.get(inputs))
                ),
            );
        } else {
            set_text(&mut out[0], format_args!("-"));
        }
        if waiting {
            set_text(
                &mut out[1],
                format_args!("wave {wait_wave} {}", wait.text(profile)),
            );
        } else {
            set_text(&mut out[1], format_args!("-"));
        }
        let mut rets = String::new();
        let valid = P::ret_valid_i.get(inputs);
        for k in 0..RET_CHANNELS {
            if live && valid >> k & 1 != 0 {
                if !rets.is_empty() {
                    rets.push_str(", ");
                }
                let _ = write!(
                    rets,
                    "ch{k} wave {} {}",
                    P::ret_wave_i.elem(inputs, k),
                    class(P::ret_class_i.elem(inputs, k))
                );
            }
        }
        if rets.is_empty() {
            rets.push('-');
        }
        out[2] = Value::Text(rets);
        // Each side's waves.
        let per = self.per_wave();
        for (s, buf) in [model, rtl].into_iter().enumerate() {
            let stall = P::stall_o.get(buf);
            let release = P::release_o.get(buf);
            for w in 0..WAVES {
                let base = INPUT_TEXTS + (s * WAVES + w) * per;
                for (k, c) in self.counters.iter().enumerate() {
                    out[base + k] = Value::Num(counter_port(*c).elem(buf, w));
                }
                let held = (stall | release) >> w & 1 != 0;
                // Accepted this cycle: offered to the wave, which this side
                // shows waiting, with no error that ignores it.
                let ignored = [ErrCode::Illegal, ErrCode::Busy, ErrCode::Dual]
                    .iter()
                    .any(|e| P::err_o.elem(buf, w) >> (*e as u32 - 1) & 1 != 0);
                let slot = &mut out[base + self.counters.len()];
                if held && waiting && wait_wave == w && !ignored {
                    set_text(slot, format_args!("{}", wait.text(profile)));
                } else if held {
                    *slot = Value::Keep;
                } else {
                    set_text(slot, format_args!("-"));
                }
            }
        }
    }

    fn fresh(&self) -> Box<dyn Decoder> {
        Box::new(WaitcntDecoder::new(self.profile))
    }
}
