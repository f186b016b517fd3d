use gpucosim::mutate::gen::Operator;
use gpucosim::mutate::waivers::*;
use gpucosim::mutate::{Fate, GroupResult, MutantResult};
use gpucosim::regress::Seeds;
use gpucosim_model::Profile;
use std::collections::BTreeSet;

fn mutant(id: u32, line: usize, diff: &str, fate: Fate) -> MutantResult {
    MutantResult {
        id,
        file: "top.sv".into(),
        line,
        operator: Operator::StuckAt1,
        diff: diff.into(),
        fate,
    }
}

fn group(mutants: Vec<MutantResult>) -> GroupResult {
    GroupResult {
        unit: "waitcnt".into(),
        profile: Profile::Gfx9,
        rtl: "rtl".into(),
        generated: vec![],
        total_mutants: mutants.len(),
        seeds: Seeds { first: 1, last: 1 },
        cycles: 100,
        knobs: vec![],
        stress: false,
        build_seconds: 0.0,
        baseline_seconds: 0.0,
        run_seconds: 0.0,
        mutants,
        verified: vec![],
    }
}

const DEAD: &str = "@@ top.sv:12\n-    stall = '0;\n+    stall = (('0) | 1'b1);\n";

#[test]
fn keys_follow_the_text_not_the_line() {
    let moved = DEAD.replace("top.sv:12", "top.sv:40");
    assert_eq!(
        key("top.sv", "stuck-at-1", DEAD),
        key("top.sv", "stuck-at-1", &moved)
    );
    let edited = DEAD.replace("stall = '0;", "stall  = '0;");
    assert_ne!(
        key("top.sv", "stuck-at-1", DEAD),
        key("top.sv", "stuck-at-1", &edited)
    );
    assert_ne!(
        key("top.sv", "stuck-at-1", DEAD),
        key("top.sv", "stuck-at-0", DEAD)
    );
    assert_ne!(
        key("top.sv", "stuck-at-1", DEAD),
        key("other.sv", "stuck-at-1", DEAD)
    );
    assert_eq!(key("top.sv", "stuck-at-1", DEAD).len(), 16);
}

#[test]
fn bad_waiver_files_are_one_line_errors() {
    let k = key("top.sv", "stuck-at-1", DEAD);
    let ok = format!("# reviewed\n\nwaitcnt all top.sv:12 {k} overwritten below\n");
    let w = parse(&ok, "w.txt").unwrap();
    assert_eq!(w.len(), 1);
    assert_eq!(
        (w[0].line, w[0].profile, w[0].reason.as_str()),
        (3, None, "overwritten below")
    );
    for (text, want) in [
        (
            format!("waitcnt all top.sv:12 {k}"),
            "w.txt:1: a waiver needs its reason",
        ),
        (
            "waitcnt all top.sv:12".to_string(),
            "w.txt:1: expected UNIT PROFILE FILE:LINE KEY REASON",
        ),
        (
            format!("vmem all top.sv:12 {k} r"),
            "w.txt:1: `vmem` is not a unit",
        ),
        (
            format!("lds gfx10 top.sv:12 {k} r"),
            "w.txt:1: `gfx10` is not a profile",
        ),
        (
            format!("lds gfx9 top.sv {k} r"),
            "w.txt:1: `top.sv` is not FILE:LINE",
        ),
        (
            "lds gfx9 top.sv:3 12345 r".to_string(),
            "w.txt:1: `12345` is not a mutant's key",
        ),
        (
            format!("lds gfx9 top.sv:3 {k} r\nlds all top.sv:9 {k} again"),
            "w.txt:2: the same mutant as line 1",
        ),
    ] {
        let e = parse(&text, "w.txt").unwrap_err().to_string();
        assert!(e.starts_with(want), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn waivers_take_survivors_and_report_stale_and_killed_ones() {
    let killed_diff = "@@ top.sv:20\n-    err = '0;\n+    err = (('0) | 1'b1);\n";
    let mut groups = vec![group(vec![
        mutant(
            1,
            12,
            DEAD,
            Fate::Survived {
                cycles: 10,
                activated: Some(true),
            },
        ),
        mutant(
            2,
            20,
            killed_diff,
            Fate::Killed {
                job: "waitcnt.gfx9.1".into(),
                seed: 1,
                cycle: 7,
                signal: "err_o".into(),
                cycles_to_kill: 7,
            },
        ),
    ])];
    let kd = key("top.sv", "stuck-at-1", DEAD);
    let kk = key("top.sv", "stuck-at-1", killed_diff);
    let text = format!(
        "waitcnt all top.sv:12 {kd} overwritten below\n\
         waitcnt gfx9 top.sv:20 {kk} wrongly waived\n\
         waitcnt gfx9 top.sv:30 0123456789abcdef the RTL changed under it\n\
         waitcnt gfx11 top.sv:31 fedcba9876543210 another profile\n\
         lds all top.sv:1 00000000000000aa another unit\n"
    );
    let w = parse(&text, "w.txt").unwrap();
    let all = BTreeSet::from([kd.clone(), kk.clone()]);
    let found = apply(&mut groups, &w, &|_| all.clone());
    assert_eq!(
        groups[0].mutants[0].fate,
        Fate::Waived {
            reason: "overwritten below".into(),
            line: 1
        }
    );
    assert!(groups[0].mutants[1].fate.killed());
    let problems: Vec<(usize, &str)> = found
        .iter()
        .map(|f| (f.waiver.line, f.problem.split(':').next().unwrap()))
        .collect();
    assert_eq!(problems, [(2, "killed"), (3, "stale")]);
    assert!(found[0]
        .problem
        .contains("m2 diverged in waitcnt.gfx9.1 at cycle 7 on err_o"));
}
