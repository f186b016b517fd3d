//! Writing the VCD of a 1,024-cycle capture window, in memory and to a file,
//! for a unit-sized port table (a 64-lane address unit: about 140 input and
//! 400 output words per cycle). Target: under 50 ms per window.

use criterion::{criterion_group, criterion_main, Criterion};
use gpucosim_waves::{write_capture, Capture, Meta, VcdWriter, WaveFormat};

gpucosim_model::ports! {
    /// A port table shaped like a wide address unit.
    mod wide("wide", "wide_top") {
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

/// A capture of 1,024 cycles with every lane changing every cycle (the
/// worst case for a change-based format).
fn filled() -> Capture {
    let t = &wide::TABLE;
    let mut cap = Capture::new(t, 1024);
    let mut x: u32 = 0x1234_5678;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut inp = vec![0u32; t.in_words()];
    let mut out = vec![0u32; t.out_words()];
    for c in 0..2048u64 {
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

fn vcd(c: &mut Criterion) {
    let cap = filled();
    let meta = Meta {
        comments: vec!["bench".into()],
    };
    c.bench_function("vcd_1024_cycles_in_memory", |b| {
        let mut buf = Vec::with_capacity(64 << 20);
        b.iter(|| {
            buf.clear();
            let mut w = VcdWriter::new(&mut buf, &wide::TABLE, &meta).unwrap();
            for f in cap.frames() {
                w.frame(&f).unwrap();
            }
            w.finish().unwrap();
            buf.len()
        })
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("window.vcd");
    c.bench_function("vcd_1024_cycles_to_file", |b| {
        b.iter(|| write_capture(&path, &wide::TABLE, &cap, &meta, WaveFormat::Vcd).unwrap())
    });
}

fn capture(c: &mut Criterion) {
    let t = &wide::TABLE;
    let mut cap = Capture::new(t, 1024);
    let inp = vec![1u32; t.in_words()];
    let out = vec![2u32; t.out_words()];
    let mut cycle = 0u64;
    c.bench_function("capture_record_one_cycle", |b| {
        b.iter(|| {
            cap.record(cycle, &inp, &out, &out);
            cycle += 1;
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = vcd, capture
}
criterion_main!(benches);
