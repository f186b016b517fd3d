//! What the waveform benches share: a unit-sized port table and a capture
//! of it in which everything changes every cycle.

use gpucosim_waves::Capture;

gpucosim_model::ports! {
    /// A port table shaped like a wide address unit.
    pub mod wide("wide", "wide_top") {
        input rst_ni: 1,
        input valid_i: 1,
        input desc_i: 128,
        input exec_i: 64,
        input index_i: 32 x 64,
        input offset_i: 32 x 64,
        output ready_o: 1,
        output addr_o: 48 x 256,
        output mask_o: 256,
        output line_o: 48,
    }
}

/// A capture of `window` cycles (out of twice as many recorded) with every
/// lane changing every cycle (the worst case for a change-based format)
/// and the RTL differing from the model every 97th cycle.
pub fn filled(window: usize) -> Capture {
    let t = &wide::TABLE;
    let mut cap = Capture::new(t, window);
    let mut x: u32 = 0x1234_5678;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut inp = vec![0u32; t.in_words()];
    let mut out = vec![0u32; t.out_words()];
    for c in 0..2 * window as u64 {
        inp.iter_mut().for_each(|w| *w = next());
        out.iter_mut().for_each(|w| *w = next());
        let mut rtl = out.clone();
        if c % 97 == 0 {
            rtl[3] ^= 1;
        }
        // Keep bits above each port's width zero, as the packing requires.
        wide::rst_ni.set(&mut inp, 1);
        wide::valid_i.set(&mut inp, 1);
        wide::ready_o.set(&mut out, 1);
        wide::ready_o.set(&mut rtl, 1);
        cap.record(c, &inp, &out, &rtl);
    }
    cap
}
