use gpucosim::repro::*;
use gpucosim_model::Profile;
use gpucosim_waves::WaveFormat;
use std::path::PathBuf;

fn p(s: &str) -> Option<PathBuf> {
    Some(PathBuf::from(s))
}

/// Each command renders as the lines gpucosim printed before they
/// had one type (byte for byte), quoting what needs it.
#[test]
fn every_command_renders_as_before() {
    let run = ReproCommand::Run {
        unit: "lds".into(),
        profile: Profile::Gfx9,
        seed: 1,
        cycles: 20000,
        rtl: p("/tmp/my rtl"),
        knobs: vec![("max_gap".into(), "1".into()), ("a b".into(), "c".into())],
        waves: p("w 9"),
        waves_format: WaveFormat::Fst,
    };
    assert_eq!(
        run.to_string(),
        "gpucosim run --unit lds --profile gfx9 --seed 1 --cycles 20000 --rtl '/tmp/my rtl' --knob max_gap=1 --knob 'a b=c' --waves 'w 9' --waves-format fst"
    );
    let plain = ReproCommand::Run {
        unit: "ta".into(),
        profile: Profile::Gfx11,
        seed: 5,
        cycles: 100,
        rtl: None,
        knobs: vec![],
        waves: None,
        waves_format: WaveFormat::Vcd,
    };
    assert_eq!(
        plain.to_string(),
        "gpucosim run --unit ta --profile gfx11 --seed 5 --cycles 100 --waves waves"
    );
    assert_eq!(
        ReproCommand::Replay {
            bundle: "b/it's".into()
        }
        .to_string(),
        "gpucosim replay 'b/it'\\''s'"
    );
    assert_eq!(
        ReproCommand::ReplayOf {
            name: "ta.gfx9.3".into()
        }
        .to_string(),
        "gpucosim replay <bundle of ta.gfx9.3>"
    );
    let kernel = |launch: Option<PathBuf>, waitcnt_stim, cycles| ReproCommand::KernelRun {
        file: "/k/sp ace.s".into(),
        launch,
        profile: Profile::Gfx9,
        seed: 2,
        kernel: "k1".into(),
        waitcnt_stim,
        cycles,
        rtl: p("r"),
    };
    assert_eq!(
        kernel(None, Some((3, 2)), Some(1_000_000)).to_string(),
        "gpucosim kernel run '/k/sp ace.s' --profile gfx9 --seed 2 --kernel k1 --wave-count 3 --iterations 2 --cycles 1000000 --rtl r"
    );
    assert_eq!(
        kernel(p("/k/l.json"), None, None).to_string(),
        "gpucosim kernel run '/k/sp ace.s' --launch /k/l.json --profile gfx9 --seed 2 --kernel k1 --rtl r"
    );
    assert_eq!(
        kernel(p("/k/l.json"), None, Some(300)).to_string(),
        "gpucosim kernel run '/k/sp ace.s' --launch /k/l.json --profile gfx9 --seed 2 --kernel k1 --cycles 300 --rtl r"
    );
    assert_eq!(
        ReproCommand::Regress {
            unit: "waitcnt".into(),
            profile: Profile::Gfx11,
            seed: 7,
            cycles: 2000,
            rtl: p("x y"),
        }
        .to_string(),
        "gpucosim regress --unit waitcnt --profile gfx11 --seeds 7..7 --cycles 2000 --rtl 'x y'"
    );
    let mutate = |stress, rtl| ReproCommand::Mutate {
        unit: "waitcnt".into(),
        profile: Profile::Gfx9,
        mutant: 12,
        seeds: (1, 2),
        cycles: 2000,
        knobs: vec![("waves".into(), "6".into())],
        stress,
        rtl,
    };
    assert_eq!(
        mutate(false, p("/r")).to_string(),
        "gpucosim mutate --unit waitcnt --profile gfx9 --mutant 12 --seeds 1..2 --cycles 2000 --knob waves=6 --no-stress --rtl /r"
    );
    assert_eq!(
        mutate(true, None).to_string(),
        "gpucosim mutate --unit waitcnt --profile gfx9 --mutant 12 --seeds 1..2 --cycles 2000 --knob waves=6"
    );
}
