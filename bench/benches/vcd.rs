//! Writing the VCD of a 1,024-cycle capture window, in memory and to a file,
//! for a unit-sized port table (a 64-lane address unit: about 140 input and
//! 400 output words per cycle). Target: under 50 ms per window.

use criterion::{criterion_group, criterion_main, Criterion};
use gpucosim_waves::{write_capture, Capture, Meta, VcdWriter, WaveFormat};

mod common;
use common::{filled, wide};

fn vcd(c: &mut Criterion) {
    let cap = filled(1024);
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
