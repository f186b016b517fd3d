//! The lock-step engine on its own, with a toy unit: builds through the
//! generated shim (ports of 1, 40 and 128 bits), agreement, a divergence
//! caught with its waveform and report, Verilator errors, determinism, and
//! the pipelined engine giving the single-threaded one's outcome exactly.

use gpucosim::engine::{RunSpec, Stimulus};
use gpucosim::error::Error;
use gpucosim::report;
use gpucosim::testbench::Testbench;
use gpucosim_model::Profile;
use gpucosim_tests::{toy_ports, toy_rtl, vcd_value, ToyTestbench, Vcd};
use std::path::Path;

fn spec(rtl: &Path, waves: Option<&Path>, profile: Profile, cycles: u64) -> RunSpec {
    let mut s = RunSpec::new("toy", profile, 5, cycles);
    s.rtl_arg = Some(rtl.to_path_buf());
    s.waves = waves.map(Path::to_path_buf);
    s.window = 64;
    s.post = 4;
    s.pipeline = true;
    s
}

#[test]
fn toy_model_and_rtl_agree_on_both_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), None);
    for profile in Profile::all() {
        let s = spec(&rtl, None, profile, 3000);
        let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
        assert!(out.passed(), "{}", report(&s, &out, &toy_ports::TABLE));
        assert_eq!(out.cycles, 3000);
        assert_eq!(out.coverage.holes(), Vec::<&str>::new());
    }
}

/// A divergence while `rst_ni` is low says so.
#[test]
fn a_divergence_during_reset_is_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("sum_q <= '0;", "sum_q <= 40'd5;")));
    let s = spec(&rtl, None, Profile::Gfx9, 100);
    let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
    let first = &out.mismatches[0];
    assert!(first.in_reset && first.cycle < 2, "{first:?}");
    let text = report(&s, &out, &toy_ports::TABLE);
    assert!(
        text.starts_with(&format!(
            "DIVERGENCE in toy.gfx9.5 at cycle {}, during reset (rst_ni low): model and RTL differ on sum_o",
            first.cycle
        )),
        "{text}"
    );
}

#[test]
fn a_broken_rtl_diverges_with_report_and_waveforms() {
    let dir = tempfile::tempdir().unwrap();
    // Lane 3 is left out of the sum.
    let rtl = toy_rtl(dir.path(), Some(("i < 4", "i < 3")));
    let waves = dir.path().join("waves");
    let s = spec(&rtl, Some(&waves), Profile::Gfx9, 3000);
    let (out, rtl_vcd) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, true).unwrap();
    assert!(!out.passed());
    let first = &out.mismatches[0];
    // Reset takes 2 cycles; the first (directed) transaction is applied in
    // cycle 2 and its sum shows in cycle 3.
    assert_eq!(first.cycle, 3);
    assert_eq!(first.signal, "sum_o");
    assert_eq!(first.model, "0x3fffffffc");
    assert_eq!(first.rtl, "0x2fffffffd");
    let text = report(&s, &out, &toy_ports::TABLE);
    assert!(
        text.contains("reproduce: gpucosim run --unit toy --profile gfx9 --seed 5"),
        "{text}"
    );
    assert!(
        text.contains("transaction #0, in flight in cycle 3:"),
        "{text}"
    );
    // The model state is the one the waveform shows in that cycle (the sum
    // on sum_o), not the one after its edge.
    assert!(
        text.contains("model state in cycle 3, before its edge: sum=0x3fffffffc"),
        "{text}"
    );
    assert!(!text.contains("during reset"), "{text}");
    // The VCD holds the divergence: mismatch.any rises at 10 * cycle, with
    // both sides' values.
    let vcd = Vcd::read(out.vcd.as_ref().unwrap());
    assert_eq!(
        vcd.change_at("tb.mismatch.any", 30),
        Some("1"),
        "mismatch.any rises at cycle 3"
    );
    assert_eq!(vcd.change_at("tb.mismatch.sum_o", 30), Some("1"));
    assert_eq!(vcd.value_at("tb.mismatch.q_o", 30), Some("0"));
    let sum = |side: &str| {
        vcd.value_at(&format!("tb.{side}.sum_o"), 30)
            .and_then(vcd_value)
    };
    assert_eq!(sum("model"), Some(0x3_ffff_fffc));
    assert_eq!(sum("rtl"), Some(0x2_ffff_fffd));
    // Stopped `post` cycles after the divergence.
    assert_eq!(out.cycles, 3 + 4 + 1);
    // The RTL's own trace of the same window holds its internal registers,
    // on the same time scale: both files line up in one viewer.
    let rv = Vcd::read(&rtl_vcd.unwrap());
    assert!(
        rv.vars.keys().any(|k| k.ends_with(".sum_q")),
        "{:?}",
        rv.vars.keys()
    );
    assert_eq!(vcd.header.timescale, Some((1, vcd::TimescaleUnit::NS)));
    assert_eq!(rv.header.timescale, vcd.header.timescale);
    let (from, until) = out.window.unwrap();
    let ours = vcd.stamps();
    let theirs = rv.stamps();
    assert_eq!(ours.first(), Some(&(10 * from)));
    assert_eq!(ours.last(), Some(&(10 * until + 5)));
    assert_eq!(
        theirs.first(),
        ours.first(),
        "the RTL trace starts elsewhere"
    );
    assert_eq!(theirs.last(), ours.last(), "the RTL trace ends elsewhere");
}

#[test]
fn same_seed_same_waveform() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("40'd1", "40'd3")));
    let mut vcds = Vec::new();
    let waves = dir.path().join("w");
    for _ in 0..2 {
        let mut s = spec(&rtl, Some(&waves), Profile::Gfx11, 500);
        s.max_mismatches = 3;
        let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
        assert_eq!(out.mismatches.len(), 3);
        vcds.push(std::fs::read(out.vcd.unwrap()).unwrap());
    }
    assert!(
        vcds[0] == vcds[1],
        "two runs of one seed wrote different VCDs"
    );
}

#[test]
fn verilator_errors_reach_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(
        dir.path(),
        Some(("assign q_o   = q_q;", "assign q_o = no_such_signal;")),
    );
    let s = spec(&rtl, None, Profile::Gfx9, 10);
    match gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false) {
        Err(Error::Build { message, .. }) => {
            assert!(message.contains("%Error"), "{message}");
            assert!(message.contains("no_such_signal"), "{message}");
            // On one line, without Verilator's closing count.
            assert_eq!(message.lines().count(), 1, "{message}");
            assert!(!message.contains("Exiting due to"), "{message}");
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("broken RTL built"),
    }
}

#[test]
fn missing_rtl_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec(&dir.path().join("nope"), None, Profile::Gfx9, 10);
    match gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false) {
        Err(Error::Input(m)) => assert!(m.contains("does not exist"), "{m}"),
        other => panic!("expected an input error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn replaying_the_consumed_transactions_reproduces_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), Some(("i < 4", "i < 3")));
    let mut s = spec(&rtl, None, Profile::Gfx9, 3000);
    s.seed = 11;
    // Directed transaction first: skip past it by making lane 3 matter only later.
    let (a, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
    let (b, _) =
        gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Prefix(a.txn_count), false).unwrap();
    assert_eq!(a.mismatches[0].cycle, b.mismatches[0].cycle);
    assert_eq!(a.mismatches[0].rtl, b.mismatches[0].rtl);
}

/// Everything a run reports, in a comparable form.
fn summary(out: &gpucosim::engine::Outcome<gpucosim_tests::ToyTxn>) -> String {
    format!(
        "cycles {} txns {} mismatches {:?} in flight {:?} state {:?} end {:?} replay finished {} coverage {:?} vcd {:?} rtl text {:?}",
        out.cycles,
        out.txn_count,
        out.mismatches
            .iter()
            .map(|m| (m.cycle, &m.signal, &m.model, &m.rtl, &m.elements))
            .collect::<Vec<_>>(),
        out.in_flight,
        out.state,
        out.end,
        out.replay_finished,
        out.coverage.hits,
        out.vcd.as_ref().map(|p| std::fs::read(p).unwrap()),
        out.rtl_text,
    )
}

/// The three ways the engine can run a spec: one call into the shim per
/// cycle on one thread (the reference), runs of matching cycles in one
/// call on one thread, and pipelined.
const MODES: [(&str, bool, bool); 3] = [
    ("one call a cycle", true, false),
    ("one thread", false, false),
    ("pipelined", false, true),
];

#[test]
fn the_pipeline_and_batched_steps_change_nothing_but_speed() {
    let dir = tempfile::tempdir().unwrap();
    let good = toy_rtl(&dir.path().join("good"), None);
    let bad = toy_rtl(&dir.path().join("bad"), Some(("i < 4", "i < 3")));
    let fatal = toy_with(
        &dir.path().join("fatal"),
        &format!("  assign hook = 0;\n  always_ff @(posedge clk_i) if ({COND}) $fatal(1, \"toy stops\");"),
    );
    // Prints a line (and goes on) whenever lane 0's low byte is 0x5a.
    let chatty = toy_with(
        &dir.path().join("chatty"),
        &format!("  assign hook = 0;\n  always_ff @(posedge clk_i) if ({COND}) $display(\"toy: lane 0 is %h\", d_i[0]);"),
    );
    // Diverges (adds 1 to sum_o) when lane 0's low 12 bits are 0x5a5: for
    // seed 5, in a later chunk than the first.
    let later = toy_with(
        &dir.path().join("later"),
        "  assign hook = 32'(en_i && d_i[0][11:0] == 12'h5a5);",
    );
    let table = ToyTestbench::table();
    let chunk = gpucosim::engine::chunk_cycles(table.in_words() + table.out_words()) as u64;
    // A pass, divergences early, late (the post-cycles reach past the end),
    // in the middle of a chunk and in a later chunk, collecting several, an
    // RTL that stops the simulation, and replays.
    let cases: &[(&Path, u64, u64, usize)] = &[
        (&good, 5, 3000, 1),
        (&good, 5, 5 * chunk + 7, 1),
        (&later, 5, 6 * chunk, 1),
        (&later, 5, 6 * chunk, 4),
        (&good, 6, 1, 1),
        (&bad, 5, 3000, 1),
        (&bad, 11, 3000, 3),
        (&bad, 11, 600, 50),
        (&bad, 7, 4, 1),
        (&fatal, 5, 3000, 1),
        (&chatty, 5, 3000, 1),
    ];
    for &(rtl, seed, cycles, max) in cases {
        let mut runs = Vec::new();
        for (_, step_each_cycle, pipeline) in MODES {
            let waves = dir.path().join("w");
            let mut s = spec(rtl, Some(&waves), Profile::Gfx9, cycles);
            s.seed = seed;
            s.max_mismatches = max;
            s.pipeline = pipeline;
            s.step_each_cycle = step_each_cycle;
            let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
            let fresh = summary(&out);
            if rtl == later.as_path() {
                let at = out.mismatches.first().map(|m| m.cycle);
                assert!(
                    at.is_some_and(|c| c > chunk),
                    "seed 5 diverges at {at:?}, not after the first chunk of {chunk} cycles"
                );
            }
            let txns = gpucosim::engine::fresh_txns::<ToyTestbench>(
                gpucosim::draw::STIMULUS_VERSION,
                Profile::Gfx9,
                seed,
                &[],
                out.txn_count,
            )
            .unwrap();
            // A replay of the first half of them ends when they are done,
            // before the cycle budget.
            let half = txns[..txns.len() / 2].to_vec();
            let (re, _) =
                gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Replay(txns), false).unwrap();
            let (part, _) =
                gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Replay(half), false).unwrap();
            runs.push((fresh, summary(&re), summary(&part)));
        }
        for (k, (mode, _, _)) in MODES.iter().enumerate().skip(1) {
            assert_eq!(
                runs[0], runs[k],
                "seed {seed}, {cycles} cycles, {max} mismatch(es): {mode} differs from one call a cycle"
            );
        }
        if rtl == fatal.as_path() {
            assert!(runs[0].0.contains("end Rtl {"), "{}", runs[0].0);
        }
        if (rtl, cycles) == (good.as_path(), 3000) {
            // The half replay ended with its transactions, mid-run.
            assert!(runs[0].2.contains("replay finished true"), "{}", runs[0].2);
        }
        if rtl == chatty.as_path() {
            assert!(runs[0].0.contains("toy: lane 0 is"), "{}", runs[0].0);
            assert!(runs[0].0.contains("end Completed"), "{}", runs[0].0);
        }
    }
}

/// The first cycle in which seed 5's stimulus drives `en_i` with lane 0's
/// low byte 0x5a: the toy driver applies transaction `i` in cycle `2 + i`.
fn first_5a_cycle() -> u64 {
    let txns = gpucosim::engine::fresh_txns::<ToyTestbench>(
        gpucosim::draw::STIMULUS_VERSION,
        Profile::Gfx9,
        5,
        &[],
        5000,
    )
    .unwrap();
    let i = txns
        .iter()
        .position(|t| t.en && t.d[0] & 0xff == 0x5a)
        .expect("seed 5 drives 0x5a within 5000 transactions");
    2 + i as u64
}

/// Toy RTL with `logic` added before its outputs, which may drive `hook`
/// (32 bits, 0 when nothing is wrong): it is added to `sum_o`, so Verilator
/// keeps it.
fn toy_with(dir: &Path, logic: &str) -> std::path::PathBuf {
    toy_rtl(
        dir,
        Some((
            "  assign sum_o = sum_q;",
            &format!("  logic [31:0] hook;\n{logic}\n  assign sum_o = sum_q + 40'(hook);"),
        )),
    )
}

const COND: &str = "en_i && d_i[0][7:0] == 8'h5a";

/// The shim calls Verilator's root evaluation directly (skipping the
/// bookkeeping of `eval()`) only where that bookkeeping has nothing to do:
/// not for a design with classes (whose released objects `eval()`
/// deletes), nor in a tracing build (where `eval()` flags activity for the
/// trace; `eval_step_is_plain`'s unit tests cover the other statements
/// that keep it on `eval()`). Lock-step agrees on both paths, the class
/// design making an object every cycle.
#[test]
fn the_shim_skips_evals_bookkeeping_only_where_it_has_nothing_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let plain = toy_rtl(&dir.path().join("plain"), None);
    let classes = toy_with(
        &dir.path().join("classes"),
        "  class Box;\n    logic [31:0] v;\n  endclass\n  Box box;\n  \
         always @(posedge clk_i) begin\n    box = new;\n    box.v = 0;\n  end\n  \
         assign hook = 0;",
    );
    let direct = |rtl: &Path, trace: bool| {
        let root = gpucosim::rtl_root(Some(rtl));
        gpucosim::load_rtl::<ToyTestbench>(&root, Profile::Gfx9, trace)
            .unwrap()
            .0
            .direct_eval()
    };
    assert!(direct(&plain, false));
    assert!(!direct(&plain, true));
    assert!(!direct(&classes, false));
    for rtl in [&plain, &classes] {
        let s = spec(rtl, None, Profile::Gfx9, 20_000);
        let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
        assert!(out.passed(), "{}", report(&s, &out, &toy_ports::TABLE));
    }
}

/// `Rtl::run` steps a run of cycles in one call into the shim, comparing
/// each cycle's outputs with the expected ones: it agrees with stepping
/// them one call a cycle, and stops after the first cycle whose outputs
/// differ or that prints, with that cycle's outputs, or after the cycle
/// in which a stop was asked for; it publishes every cycle done.
#[test]
fn one_call_steps_cycles_until_one_differs_or_prints() {
    use gpucosim::STATUS_TEXT;
    use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_with(
        dir.path(),
        &format!("  assign hook = 0;\n  always_ff @(posedge clk_i) if ({COND}) $display(\"toy\");"),
    );
    let root = gpucosim::rtl_root(Some(&rtl));
    let load = || {
        gpucosim::load_rtl::<ToyTestbench>(&root, Profile::Gfx9, false)
            .unwrap()
            .0
    };
    let table = ToyTestbench::table();
    let (iw, ow) = (table.in_words(), table.out_words());
    let cycles = 3000;
    let rec = gpucosim::engine::record_inputs::<ToyTestbench>(Profile::Gfx9, 5, cycles).unwrap();
    // One call a cycle: every cycle's outputs, and the first cycle that
    // prints.
    let mut each = load();
    let mut outs = vec![0u32; cycles as usize * ow];
    let mut prints = None;
    for (c, (i, o)) in rec
        .chunks_exact(iw)
        .zip(outs.chunks_exact_mut(ow))
        .enumerate()
    {
        if each.step(i, o) & STATUS_TEXT != 0 {
            prints.get_or_insert(c);
        }
    }
    let prints = prints.expect("seed 5 makes the toy print");
    assert!(prints > 40, "the toy prints in cycle {prints}");
    let at = |c: usize| &outs[c * ow..(c + 1) * ow];
    let (progress, go_on) = (AtomicU64::new(0), AtomicU8::new(0));
    // The cycles before the first that prints, in one call: all match.
    let mut batched = load();
    let mut o = vec![0u32; ow];
    let run = |r: &mut gpucosim::Rtl, from: usize, to: usize, exp: &[u32], o: &mut [u32]| {
        let (i, e) = (&rec[from * iw..to * iw], &exp[from * ow..to * ow]);
        r.run(i, e, o, from as u64, &progress, &go_on)
    };
    assert_eq!(run(&mut batched, 0, prints, &outs, &mut o), (prints, 0));
    assert_eq!(o, at(prints - 1));
    assert_eq!(progress.load(Ordering::Relaxed), prints as u64);
    // The rest: it stops after the cycle that prints.
    let all = cycles as usize;
    assert_eq!(
        run(&mut batched, prints, all, &outs, &mut o),
        (1, STATUS_TEXT)
    );
    assert_eq!(o, at(prints));
    assert_eq!(progress.load(Ordering::Relaxed), prints as u64 + 1);
    // An expected word that the RTL does not give, in cycle 37: the call
    // stops there, with the RTL's outputs of that cycle.
    let mut wrong = outs.clone();
    wrong[37 * ow + ow - 1] ^= 1;
    let mut fresh = load();
    assert_eq!(run(&mut fresh, 0, all, &wrong, &mut o), (38, 0));
    assert_eq!(o, at(37));
    // A stop asked for: the call returns after the cycle it is in, which
    // matched, and the next call steps one cycle.
    let stop = AtomicU8::new(1);
    let mut stopped = load();
    let (i, e) = (&rec[..10 * iw], &outs[..10 * ow]);
    assert_eq!(stopped.run(i, e, &mut o, 0, &progress, &stop), (1, 0));
    assert_eq!(o, at(0));
    assert_eq!(progress.load(Ordering::Relaxed), 1);
    let (i, e) = (&rec[iw..10 * iw], &outs[ow..10 * ow]);
    assert_eq!(stopped.run(i, e, &mut o, 1, &progress, &stop), (1, 0));
    assert_eq!(o, at(1));
    assert_eq!(progress.load(Ordering::Relaxed), 2);
}

#[test]
fn an_rtl_that_ends_the_simulation_ends_the_run_with_its_cycle_and_message() {
    use gpucosim::engine::End;
    use gpucosim::RtlEnd;
    let at = first_5a_cycle();
    let cases: &[(&str, String, RtlEnd, &str)] = &[
        (
            "fatal",
            format!(
                "  assign hook = 0;\n  always_ff @(posedge clk_i) if ({COND}) $fatal(1, \"toy: lane 0 is %h at %0t\", d_i[0], $time);"
            ),
            RtlEnd::Stop,
            "%Fatal",
        ),
        (
            "error",
            format!("  assign hook = 0;\n  always_ff @(posedge clk_i) if ({COND}) $error(\"toy: bad lane 0 at %0t\", $time);"),
            RtlEnd::Stop,
            "%Error",
        ),
        (
            "stop",
            format!("  assign hook = 0;\n  always_ff @(posedge clk_i) if ({COND}) begin $display(\"toy stops at %0t\", $time); $stop; end"),
            RtlEnd::Stop,
            "toy stops at",
        ),
        (
            "finish",
            format!("  assign hook = 0;\n  always_ff @(posedge clk_i) if ({COND}) begin $display(\"toy ends at %0t\", $time); $finish; end"),
            RtlEnd::Finish,
            "toy ends at",
        ),
        (
            "loop",
            // A combinational loop that oscillates while the condition holds.
            format!("  logic osc;\n  always_comb osc = ({COND}) ? ~osc : 1'b0;\n  assign hook = 32'(osc);"),
            RtlEnd::Fatal,
            "",
        ),
    ];
    for (name, logic, how, printed) in cases {
        let dir = tempfile::tempdir().unwrap();
        let rtl = toy_with(dir.path(), logic);
        let waves = dir.path().join("waves");
        let mut s = spec(&rtl, Some(&waves), Profile::Gfx9, 5000);
        s.pipeline = false;
        let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = report(&s, &out, &toy_ports::TABLE);
        match &out.end {
            End::Rtl {
                cycle,
                how: h,
                message,
            } => {
                assert_eq!(*cycle, at, "{name}: wrong cycle\n{text}");
                assert_eq!(h, how, "{name}\n{text}");
                assert!(!message.is_empty(), "{name}: no message");
            }
            other => panic!("{name}: the run ended with {other:?}\n{text}"),
        }
        assert!(out.mismatches.is_empty(), "{name}: {text}");
        assert_eq!(out.exit_code(), 3, "{name}");
        assert!(text.starts_with("RTL "), "{name}: {text}");
        assert!(text.contains(&format!("at cycle {at}")), "{name}: {text}");
        assert!(text.contains("transaction #"), "{name}: {text}");
        assert!(text.contains("reproduce: gpucosim run"), "{name}: {text}");
        if !printed.is_empty() {
            assert!(
                out.rtl_text.iter().any(|l| l.contains(printed)),
                "{name}: {:?}",
                out.rtl_text
            );
            // $time is the cycle's time: the rising edge of cycle `at`.
            let t = 10 * at + 5;
            assert!(
                out.rtl_text.iter().any(|l| l.contains(&t.to_string())),
                "{name}: $time is not {t}: {:?}",
                out.rtl_text
            );
        }
        // The waveform ends at that cycle.
        assert_eq!(out.window.map(|w| w.1), Some(at), "{name}");
        let stamps = Vcd::read(out.vcd.as_ref().unwrap()).stamps();
        assert!(stamps.contains(&(10 * at)), "{name}");
        assert_eq!(stamps.last(), Some(&(10 * at + 5)), "{name}");
    }
}

#[test]
fn an_rtl_that_never_returns_is_aborted_and_reported_with_its_cycle() {
    use gpucosim::engine::End;
    let at = first_5a_cycle();
    for (name, logic) in [
        (
            "while",
            format!(
                "  always_comb begin\n    hook = 0;\n    while ({COND}) hook = hook + 1;\n  end"
            ),
        ),
        (
            "initial",
            // An initial block that never ends: the first eval never returns.
            "  logic [31:0] n;\n  initial begin\n    n = 0;\n    while (n != 32'hffffffff) n = (n + 1) % 7;\n  end\n  assign hook = n & 32'h8000_0000;".to_string(),
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let rtl = toy_with(dir.path(), &logic);
        for pipeline in [false, true] {
            let name = format!("{name}, pipeline {pipeline}");
            let waves = dir.path().join(format!("waves{pipeline}"));
            let mut s = spec(&rtl, Some(&waves), Profile::Gfx9, 5000);
            s.pipeline = pipeline;
            s.limits.stall = Some(std::time::Duration::from_secs(1));
            let t0 = std::time::Instant::now();
            let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let text = report(&s, &out, &toy_ports::TABLE);
            let want = if name.starts_with("while") { at } else { 0 };
            match out.end {
                End::Hang { cycle, timeout, .. } => {
                    assert_eq!(cycle, want, "{name}: {text}");
                    assert!(!timeout);
                }
                ref other => panic!("{name}: the run ended with {other:?}\n{text}"),
            }
            assert_eq!(out.exit_code(), 4, "{name}");
            assert!(text.starts_with("HANG in toy.gfx9.5 at cycle"), "{name}: {text}");
            assert!(t0.elapsed().as_secs() < 30, "{name}: took {:?}", t0.elapsed());
            assert!(out.vcd.is_some(), "{name}: no waveform\n{text}");
        }
    }
}

#[test]
fn the_time_limit_ends_a_run_with_its_report() {
    use gpucosim::engine::End;
    let dir = tempfile::tempdir().unwrap();
    let rtl = toy_rtl(dir.path(), None);
    let waves = dir.path().join("waves");
    let mut s = spec(&rtl, Some(&waves), Profile::Gfx9, u64::MAX);
    s.limits.timeout = Some(std::time::Duration::from_millis(300));
    let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
    assert!(
        matches!(out.end, End::Timeout { cycle, .. } if cycle == out.cycles && cycle > 100),
        "{:?}",
        out.end
    );
    assert_eq!(out.exit_code(), 4);
    let text = report(&s, &out, &toy_ports::TABLE);
    assert!(
        text.starts_with("TIMEOUT in toy.gfx9.5 before cycle"),
        "{text}"
    );
    assert_eq!(out.window.map(|w| w.1), Some(out.cycles - 1));
}

/// A time limit reached in the middle of a batch of slow cycles (about
/// 4 ms each, so that a pipelined chunk of 256 takes about a second, what
/// the watchdog gives a stop request before it aborts a step) ends the run
/// after the cycle in progress, as a timeout: the shim reads the stop flag
/// and publishes progress between the cycles of a batch, so the watchdog
/// never takes a batch that is still moving for a hung step. (The one
/// thread's batches of 64 take a quarter of that: that run checks the
/// outcome only.)
#[test]
fn a_time_limit_ends_a_run_of_slow_cycles_between_two_of_them() {
    use gpucosim::engine::End;
    let dir = tempfile::tempdir().unwrap();
    // Millions of multiply-adds of an input in every evaluation; `hook` is
    // 0 unless lanes 1 and 2 carry two given words at once.
    let rtl = toy_with(
        dir.path(),
        "  logic [31:0] acc;\n  always_comb begin\n    acc = 0;\n    for (int i = 0; i < 4000000; i++) acc = acc * 32'd1664525 + d_i[0];\n  end\n  assign hook = 32'(acc == 32'hffff_ffff && d_i[1] == 32'h0123_4567 && d_i[2] == 32'h89ab_cdef);",
    );
    for pipeline in [false, true] {
        let waves = dir.path().join(format!("waves{pipeline}"));
        let mut s = spec(&rtl, Some(&waves), Profile::Gfx9, u64::MAX);
        s.pipeline = pipeline;
        s.limits.timeout = Some(std::time::Duration::from_millis(300));
        let t0 = std::time::Instant::now();
        let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
        assert!(
            matches!(out.end, End::Timeout { cycle, .. } if cycle == out.cycles && cycle > 0),
            "pipeline {pipeline}: {:?} after {:?}",
            out.end,
            t0.elapsed()
        );
        assert!(
            t0.elapsed().as_secs() < 10,
            "pipeline {pipeline}: took {:?}",
            t0.elapsed()
        );
    }
}

#[test]
fn ports_that_differ_from_the_table_fail_the_build_naming_each_one() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "narrow output",
            "output logic [39:0] sum_o,",
            "output logic [7:0] sum_o,",
            "output `sum_o` is 8 bits wide in the RTL top, 40 in the port table",
        ),
        (
            "missing output",
            "output logic [39:0] sum_o,\noutput logic [3:0][31:0] q_o\n",
            "output logic [39:0] sum_o\n",
            "output `q_o` (128 bits) is missing from the RTL top",
        ),
        (
            "extra input",
            "input  logic en_i,",
            "input  logic en_i,\ninput  logic extra_i,",
            "the RTL top has input `extra_i` (1 bits), which the port table lacks",
        ),
    ];
    for (name, find, replace, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let rtl = toy_rtl(dir.path(), None);
        let ports = rtl.join("toy/toy_ports.svh");
        let text = std::fs::read_to_string(&ports).unwrap();
        assert_eq!(text.matches(find).count(), 1, "{name}: {find:?} in\n{text}");
        std::fs::write(&ports, text.replace(find, replace)).unwrap();
        if *name == "missing output" {
            // The top assigns q_o; keep it compiling without the port.
            let top = rtl.join("toy/toy_top.sv");
            let t = std::fs::read_to_string(&top).unwrap();
            std::fs::write(&top, t.replace("  assign q_o   = q_q;", "")).unwrap();
        }
        let s = spec(&rtl, None, Profile::Gfx9, 10);
        match gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false) {
            Err(e @ Error::Ports { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(want), "{name}: {msg}");
                assert_eq!(
                    msg.lines().count(),
                    2,
                    "{name}: one line per difference: {msg}"
                );
            }
            Err(e) => panic!("{name}: wrong error: {e}"),
            Ok(_) => panic!("{name}: a top that does not match the port table was accepted"),
        }
    }
}

/// The waveform's window holds, cycle by cycle, the inputs the driver made
/// and the model's and the RTL's outputs as a run of the three stepped
/// side by side gives them, in diverging cycles and the others alike (the
/// engine keeps only the RTL's differing outputs and makes the rest again
/// after the run).
#[test]
fn the_window_holds_every_cycle_of_driver_model_and_rtl() {
    use gpucosim::engine::ModelRun;
    let dir = tempfile::tempdir().unwrap();
    // The RTL's sum is off by one whenever lane 0's low two bits are 1.
    let bad = toy_with(
        &dir.path().join("bad"),
        "  assign hook = 32'(en_i && d_i[0][1:0] == 2'h1);",
    );
    for pipeline in [false, true] {
        let waves = dir.path().join(format!("w{pipeline}"));
        let mut s = spec(&bad, Some(&waves), Profile::Gfx9, 3000);
        (s.max_mismatches, s.window, s.post, s.pipeline) = (6, 16, 5, pipeline);
        let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
        let (from, until) = out.window.unwrap();
        assert!(out.cycles > 16, "{} cycles", out.cycles);
        assert_eq!((until + 1, until + 1 - from), (out.cycles, 16));
        let vcd = Vcd::read(out.vcd.as_ref().unwrap());
        let knobs = <ToyTestbench as Testbench>::Knobs::default();
        let mut run = ModelRun::<ToyTestbench>::new(Profile::Gfx9, 5, &knobs, Stimulus::Fresh);
        let (mut rtl, _) = gpucosim::load_rtl::<ToyTestbench>(&bad, Profile::Gfx9, false).unwrap();
        let table = ToyTestbench::table();
        let (mut inp, mut mout) = (vec![0; table.in_words()], vec![0; table.out_words()]);
        let mut rout = vec![0; table.out_words()];
        let mut differing = 0;
        for c in 0..=until {
            run.cycle(c, &mut inp, &mut mout);
            rtl.step(&inp, &mut rout);
            if c < from {
                continue;
            }
            differing += usize::from(mout != rout);
            let at = |var: &str| vcd.value_at(var, 10 * c).and_then(vcd_value);
            for (var, want) in [
                ("tb.in.rst_ni", toy_ports::rst_ni.get(&inp)),
                ("tb.in.en_i", toy_ports::en_i.get(&inp)),
                ("tb.model.sum_o", toy_ports::sum_o.get(&mout)),
                ("tb.rtl.sum_o", toy_ports::sum_o.get(&rout)),
                ("tb.mismatch.any", u64::from(mout != rout)),
            ] {
                assert_eq!(
                    at(var),
                    Some(want),
                    "pipeline {pipeline}: {var} in cycle {c}"
                );
            }
        }
        assert!(
            (2..=6).contains(&differing),
            "pipeline {pipeline}: {differing} diverging cycles in the window"
        );
    }
}

/// A window longer than the run holds the whole run, and costs memory only
/// for the cycles run.
#[test]
fn a_window_longer_than_the_run_holds_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let bad = toy_rtl(&dir.path().join("bad"), Some(("i < 4", "i < 3")));
    let waves = dir.path().join("w");
    let mut s = spec(&bad, Some(&waves), Profile::Gfx9, 3000);
    s.window = 1 << 40;
    let (out, _) = gpucosim::simulate::<ToyTestbench>(&s, Stimulus::Fresh, false).unwrap();
    assert_eq!(out.window, Some((0, out.cycles - 1)));
    let vcd = Vcd::read(out.vcd.as_ref().unwrap());
    assert_eq!(vcd.change_at("tb.mismatch.any", 30), Some("1"));
}
