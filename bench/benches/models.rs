//! The Rust side of the per-cycle path without the RTL, per unit and
//! profile, over 20,000 cycles of the stimulus `gpucosim bench` records
//! (seed 1):
//!
//! - `model/<unit>/<profile>`: the model alone stepping over recorded inputs
//!   (figure (3) of `gpucosim bench`, without the checksum);
//! - `closed_loop/<unit>/<profile>`: driver and model closed-loop with fresh
//!   stimulus, as the engine runs them (lock-step minus RTL, compare and
//!   capture; figure (6) of `gpucosim bench`);
//! - `driver/<unit>/<profile>`: the same without the model, driver and
//!   stimulus on a replay of the outputs the driver reads (figure (7) of
//!   `gpucosim bench`; the replay is recorded first, untimed), so that
//!   `closed_loop` − `driver` is the model's share;
//! - `checksum/<unit>/<profile>`: the fold of each cycle's outputs into the
//!   checksum that figures (1)–(3) of `gpucosim bench` all pay, over the
//!   model's outputs;
//! - `ta/compute/<profile>` and `ta/pieces/<profile>`: two parts of the ta
//!   model's work per instruction, over the first 256 instructions the
//!   model accepts in those cycles (their inputs in cache, as in figure
//!   (3)): the slot datapath (`tlm::compute_in`, with its coverage events)
//!   and the split of the accessed slots into line pieces
//!   (`tlm::pieces`), whose coalescing the cycle model does as it splits.
//!   Per instruction; `model` is per cycle, and the model accepts an
//!   instruction about every four cycles of that stimulus.
//!
//! Run: `cargo bench -p gpucosim-bench --bench models` (a filter such as
//! `-- model/waitcnt` narrows it).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpucosim::benchmark::BLOCK_CYCLES;
use gpucosim::engine::record_inputs;
use gpucosim::testbench::Testbench;
use gpucosim::units::UNITS;
use gpucosim::with_testbench;
use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::ports::ta_ports;
use gpucosim_model::ta::tlm::{compute, compute_in, pieces, Pieces, Scratch};
use gpucosim_model::ta::{read_instr, Instr, LaneResults, TaParams};
use gpucosim_model::Profile;
use gpucosim_tb::run::OutputChecksum;
use gpucosim_tb::{time_closed_loop, time_driver};
use std::time::Duration;

const CYCLES: u64 = 20_000;

fn unit<B: Testbench>(c: &mut Criterion) {
    let mut g = c.benchmark_group(B::UNIT);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(CYCLES));
    for profile in Profile::all() {
        let rec = record_inputs::<B>(profile, 1, CYCLES).expect("recording");
        let table = B::table();
        let (iw, ow) = (table.in_words(), table.out_words());
        g.bench_function(BenchmarkId::new("model", profile), |b| {
            let mut out = vec![0u32; ow];
            b.iter(|| {
                let mut model = B::model(profile);
                for inp in rec.chunks_exact(iw) {
                    model.step(inp, &mut out);
                }
                std::hint::black_box(&out);
            })
        });
        // The outputs of the first block of `gpucosim bench`'s loops (in
        // cache, as there), folded over and over.
        let mut outs = vec![0u32; ow * BLOCK_CYCLES];
        let mut model = B::model(profile);
        for (inp, out) in rec.chunks_exact(iw).zip(outs.chunks_exact_mut(ow)) {
            model.step(inp, out);
        }
        g.bench_function(BenchmarkId::new("checksum", profile), |b| {
            b.iter(|| {
                let mut sum = OutputChecksum::new(ow);
                for out in outs.chunks_exact(ow).cycle().take(CYCLES as usize) {
                    sum.fold(out);
                }
                std::hint::black_box(sum.value())
            })
        });
        g.bench_function(BenchmarkId::new("closed_loop", profile), |b| {
            b.iter(|| std::hint::black_box(time_closed_loop::<B>(profile, 1, CYCLES).1))
        });
        g.bench_function(BenchmarkId::new("driver", profile), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let (t, fold) =
                            time_driver::<B>(profile, 1, CYCLES).expect("driver replay");
                        std::hint::black_box(fold);
                        t
                    })
                    .sum()
            })
        });
    }
    g.finish();
}

/// The first `n` instructions the ta model accepts over `rec` (whole
/// cycles of inputs): those offered in a cycle whose outputs (which the
/// model's state before the edge sets) show `req_ready_o`.
fn accepted_instrs(profile: Profile, rec: &[u32], n: usize) -> Vec<Instr> {
    use gpucosim::units::ta::TaTestbench;
    let table = TaTestbench::table();
    let mut out = vec![0u32; table.out_words()];
    let mut model = TaTestbench::model(profile);
    let mut instrs = Vec::new();
    for inp in rec.chunks_exact(table.in_words()) {
        model.step(inp, &mut out);
        let offered = ta_ports::rst_ni.bit(inp) && ta_ports::req_valid_i.bit(inp);
        if offered && ta_ports::req_ready_o.bit(&out) && instrs.len() < n {
            let mut i = Instr::default();
            read_instr(inp, &mut i);
            instrs.push(i);
        }
    }
    instrs
}

fn ta_parts(c: &mut Criterion) {
    use gpucosim::units::ta::TaTestbench;
    const INSTRS: usize = 256;
    let mut g = c.benchmark_group("ta");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(INSTRS as u64));
    for profile in Profile::all() {
        let rec = record_inputs::<TaTestbench>(profile, 1, CYCLES).expect("recording");
        let instrs = accepted_instrs(profile, &rec, INSTRS);
        assert_eq!(
            instrs.len(),
            INSTRS,
            "the recording accepts enough instructions"
        );
        let mut res = LaneResults::default();
        // Working storage kept from one instruction to the next, as the
        // cycle model keeps it.
        let mut scratch = Scratch::default();
        g.bench_function(BenchmarkId::new("compute", profile), |b| {
            b.iter(|| {
                for i in &instrs {
                    let mut ev = Events::default();
                    compute_in(profile, i, &mut res, &mut ev, &mut scratch);
                    std::hint::black_box((&res, ev));
                }
            })
        });
        let results: Vec<LaneResults> = instrs
            .iter()
            .map(|i| {
                let mut r = LaneResults::default();
                compute(profile, i, &mut r, &mut Events::default());
                r
            })
            .collect();
        let line_bytes = TaParams::of(profile).line_bytes;
        let mut pc = Box::<Pieces>::default();
        g.bench_function(BenchmarkId::new("pieces", profile), |b| {
            b.iter(|| {
                for r in &results {
                    pieces(r, line_bytes, &mut pc);
                    std::hint::black_box(&pc);
                }
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    for u in UNITS {
        with_testbench!(*u, B => {
            unit::<B>(c);
            Ok(())
        })
        .expect("a registered unit");
    }
    ta_parts(c);
}

criterion_group!(models, benches);
criterion_main!(models);
