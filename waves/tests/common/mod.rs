//! A toy unit with decoded signals, for the tests of the waveform writers
//! and the sessions: the lanes of a mask on both sides and of an input
//! mask, and a decoder with a held text, numbers of an input and a
//! per-lane number on each side that is unknown now and then.

#![allow(dead_code)]

use gpucosim_waves::session::View;
use gpucosim_waves::{Capture, Decoder, Group, Kind, Layout, Signal, Source, Value};

gpucosim_model::ports! {
    pub mod toy("toy", "toy_top") {
        input rst_ni: 1,
        input exec_i: 8,
        input v_i: 32,
        input d_i: 8 x 2,
        output mask_o: 16,
        output q_o: 8,
        output a_o: 12 x 16,
    }
}

/// The toy decoder.
pub struct ToyDecoder;

impl Decoder for ToyDecoder {
    fn signals(&self) -> Vec<Signal> {
        vec![
            Signal::computed(Group::In, &[], "instr", Kind::Text, 0),
            Signal::computed(Group::In, &["fields"], "lo", Kind::Int(8), 1),
            Signal::computed(Group::In, &["fields"], "hi", Kind::Bits(12), 2),
            Signal::computed(Group::Model, &["lanes", "lane3"], "acc", Kind::Int(4), 3)
                .of_item("lane", 3),
            Signal::computed(Group::Rtl, &["lanes", "lane3"], "acc", Kind::Int(4), 4)
                .of_item("lane", 3),
        ]
    }

    fn decode(&mut self, inputs: &[u32], model: &[u32], rtl: &[u32], out: &mut [Value]) {
        let v = toy::v_i.get(inputs);
        out[0] = if v >> 31 & 1 != 0 {
            Value::Text(text(v))
        } else {
            Value::Keep
        };
        out[1] = Value::Num(v & 0xff);
        out[2] = Value::Num(v >> 8 & 0xfff);
        for (k, buf) in [(3, model), (4, rtl)] {
            let q = toy::q_o.get(buf);
            out[k] = if q.is_multiple_of(5) {
                Value::Unknown
            } else {
                Value::Num(q & 0xf)
            };
        }
    }

    fn fresh(&self) -> Box<dyn Decoder> {
        Box::new(ToyDecoder)
    }
}

/// The text of an instruction word: spaces and a backslash to escape.
pub fn text(v: u64) -> String {
    format!("op {:#x} \\ go", v & 0xfff)
}

/// The lanes of `mask_o` (both sides) and `exec_i`.
pub fn bits() -> Vec<Signal> {
    let mut v = Vec::new();
    for (g, port, n) in [
        (Group::Model, "mask_o", 16),
        (Group::Rtl, "mask_o", 16),
        (Group::In, "exec_i", 8),
    ] {
        for b in 0..n {
            v.push(Signal {
                group: g,
                scope: vec![port.to_string()],
                name: format!("lane{b}"),
                kind: Kind::Bits(1),
                source: Source::Bit { port, bit: b },
                item: Some(("lane", b)),
            });
        }
    }
    v
}

/// The toy layout with every decoded signal.
pub fn layout() -> Layout {
    Layout::new(&toy::TABLE)
        .with_signals(bits())
        .unwrap()
        .with_decoder(Box::new(ToyDecoder))
        .unwrap()
}

/// A deterministic stream of words.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A frame's cycle and its input, model and RTL words.
pub type Owned = (u64, Vec<u32>, Vec<u32>, Vec<u32>);

/// Frames of cycles `from..to`: the RTL's `mask_o` has bit 3 flipped from
/// cycle `diverge` on.
pub fn frames(from: u64, to: u64, diverge: u64) -> Vec<Owned> {
    let t = &toy::TABLE;
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let mut inp = vec![0u32; t.in_words()];
    let mut model = vec![0u32; t.out_words()];
    let mut out = Vec::new();
    for c in from..to {
        toy::rst_ni.set(&mut inp, 1);
        if r.next().is_multiple_of(3) {
            toy::exec_i.set(&mut inp, r.next() & 0xff);
        }
        if r.next().is_multiple_of(4) {
            toy::v_i.set(&mut inp, r.next() & 0xffff_ffff);
        }
        if r.next().is_multiple_of(2) {
            toy::mask_o.set(&mut model, r.next() & 0xffff);
        }
        toy::q_o.set(&mut model, r.next() & 0xff);
        toy::a_o.set_elem(&mut model, (c % 16) as usize, r.next() & 0xfff);
        let mut rtl = model.clone();
        if c >= diverge {
            let m = toy::mask_o.get(&rtl);
            toy::mask_o.set(&mut rtl, m ^ 0b1000);
        }
        out.push((c, inp.clone(), model.clone(), rtl));
    }
    out
}

/// `frames` in a capture ring of `window` cycles.
pub fn capture(frames: &[Owned], window: usize) -> Capture {
    let mut cap = Capture::new(&toy::TABLE, window);
    for (c, i, m, r) in frames {
        cap.record(*c, i, m, r);
    }
    cap
}

/// The view of a divergence of `mask_o` on bits `bit` and 9 at cycle 250
/// of a window of cycles 100 to 399.
pub fn view(layout: &Layout, bit: u32) -> View<'_> {
    View {
        layout,
        focus: 250,
        window: (100, 399),
        diverging: vec![("mask_o".into(), vec![bit, 9])],
        binary: vec!["mask_o".into(), "exec_i".into()],
        items: vec![
            ("mask_o".into(), "lane", 1),
            ("exec_i".into(), "lane", 1),
            ("a_o".into(), "lane", 1),
        ],
        title: "toy: divergence at cycle 250 on mask_o".into(),
    }
}
