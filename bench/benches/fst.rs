//! Writing FST, next to the VCD of the same frames: a 1,024-cycle capture
//! window to a file, and a stream of 8,192 cycles through [`Dump`] (a
//! whole-run dump's path), for the unit-sized port table of the VCD bench
//! with every lane changing every cycle (the worst case). The sizes of the
//! files are printed once.

use criterion::{criterion_group, criterion_main, Criterion};
use gpucosim_waves::{write_capture, Capture, Dump, Meta, WaveFormat};
use std::path::Path;

mod common;
use common::{filled, wide};

fn stream(path: &Path, cap: &Capture, meta: &Meta, format: WaveFormat) {
    let mut d = Dump::create(path, &wide::TABLE, meta, format).unwrap();
    for f in cap.frames() {
        d.frame(&f).unwrap();
    }
    d.finish().unwrap();
}

fn fst(c: &mut Criterion) {
    let meta = Meta {
        comments: vec!["bench".into()],
    };
    let dir = tempfile::tempdir().unwrap();
    let window = filled(1024);
    for format in WaveFormat::ALL {
        let path = dir.path().join(format!("window.{format}"));
        c.bench_function(&format!("window_1024_cycles_to_file/{format}"), |b| {
            b.iter(|| write_capture(&path, &wide::TABLE, &window, &meta, format).unwrap())
        });
        let size = std::fs::metadata(&path).unwrap().len();
        eprintln!("{format} of 1,024 cycles: {} kB", size.div_ceil(1024));
    }
    let run = filled(8192);
    for format in WaveFormat::ALL {
        let path = dir.path().join(format!("run.{format}"));
        c.bench_function(&format!("stream_8192_cycles/{format}"), |b| {
            b.iter(|| stream(&path, &run, &meta, format))
        });
        let size = std::fs::metadata(&path).unwrap().len();
        eprintln!(
            "{format} stream of 8,192 cycles: {} kB",
            size.div_ceil(1024)
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = fst
}
criterion_main!(benches);
