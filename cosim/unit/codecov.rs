use gpucosim::codecov::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const DAT: &str = "# SystemC::Coverage-3\n\
C '\u{1}f\u{2}t.sv\u{1}l\u{2}1\u{1}n\u{2}22\u{1}t\u{2}toggle\u{1}page\u{2}v_toggle/t\u{1}o\u{2}clk:0->1\u{1}h\u{2}TOP.t' 20\n\
C '\u{1}f\u{2}t.sv\u{1}l\u{2}1\u{1}n\u{2}22\u{1}t\u{2}toggle\u{1}page\u{2}v_toggle/t\u{1}o\u{2}clk:1->0\u{1}h\u{2}TOP.t' 0\n\
C '\u{1}f\u{2}t.sv\u{1}l\u{2}3\u{1}n\u{2}3\u{1}t\u{2}line\u{1}page\u{2}v_line/t\u{1}o\u{2}block\u{1}S\u{2}3\u{1}h\u{2}TOP.t' 20\n\
C '\u{1}f\u{2}t.sv\u{1}l\u{2}5\u{1}n\u{2}10\u{1}page\u{2}v_line/t\u{1}o\u{2}if\u{1}S\u{2}5\u{1}h\u{2}TOP.t' 0\n\
C '\u{1}f\u{2}t.sv\u{1}l\u{2}5\u{1}n\u{2}11\u{1}t\u{2}line\u{1}page\u{2}v_line/t\u{1}o\u{2}else\u{1}S\u{2}6-7\u{1}h\u{2}TOP.t' 10\n\
C '\u{1}f\u{2}t.sv\u{1}l\u{2}12\u{1}n\u{2}24\u{1}t\u{2}branch\u{1}page\u{2}v_branch/t\u{1}o\u{2}cond_then\u{1}S\u{2}12\u{1}h\u{2}TOP.t' 15\n";

const SRC: &str = "module t(input clk);\n  logic q;\n  always_ff @(posedge clk) begin\n    x <= 1;\n    if (a) q <= 0;\n    else q <= 1;\n    q2 <= 0;\n  end\n\n\n\n  assign y = b ? c : d;\nendmodule\n";

fn cov() -> CodeCoverage {
    let names = BTreeSet::from(["t.sv".to_string()]);
    let mut c = CodeCoverage::parse_dat(DAT, "u", &names).unwrap();
    c.sources.insert("u/t.sv".into(), SRC.into());
    c
}

/// Points, kinds (from `t` or the page), spans and counts are read;
/// lines, arms and toggles counted as the module doc says.
#[test]
fn coverage_data_is_read_and_tallied() {
    let c = cov();
    assert_eq!(c.points.len(), 6);
    assert!(c.points.keys().any(|p| p.kind == "line" && p.what == "if"));
    let groups = BTreeMap::from([("t.gfx9".to_string(), c)]);
    let r = report(&groups, &[]);
    let g = &r.groups["t.gfx9"];
    // Lines 3, 5, 6, 7; line 5 never ran.
    assert_eq!(
        g.tally[&Metric::Line],
        Tally {
            covered: 3,
            total: 4,
            waived: 0
        }
    );
    // if (0), else (10), ?: then (15).
    assert_eq!(
        g.tally[&Metric::Branch],
        Tally {
            covered: 2,
            total: 3,
            waived: 0
        }
    );
    assert_eq!(
        g.tally[&Metric::Toggle],
        Tally {
            covered: 1,
            total: 2,
            waived: 0
        }
    );
    let listed: Vec<String> = g.uncovered.iter().map(|i| r.locate("t.gfx9", i)).collect();
    assert!(
        listed.contains(&"u/t.sv:5: line never ran: if (a) q <= 0;".to_string()),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"u/t.sv:5: if arm never taken: if (a) q <= 0;".to_string()),
        "{listed:?}"
    );
    assert!(
        listed
            .iter()
            .any(|l| l.starts_with("u/t.sv:1: toggle clk:1->0 never seen")),
        "{listed:?}"
    );
}

/// Merging two runs sums their counts; a merge of different RTL is
/// refused.
#[test]
fn runs_merge_by_summing_and_different_rtl_is_refused() {
    let mut a = cov();
    a.merge(&cov(), "t.gfx9").unwrap();
    assert!(a.points.values().all(|&n| n % 2 == 0));
    let mut other = cov();
    other.sources.insert("u/t.sv".into(), "changed".into());
    let e = a.merge(&other, "t.gfx9").unwrap_err().to_string();
    assert!(e.contains("different RTL") && e.contains("u/t.sv"), "{e}");
}

/// A waiver takes its items out of the tallies; a stale one (its line
/// changed), one that waives nothing and a malformed one are reported.
#[test]
fn waivers_apply_go_stale_and_are_checked() {
    let groups = BTreeMap::from([("t.gfx9".to_string(), cov())]);
    let k5 = key("u/t.sv", "if (a) q <= 0;");
    let text = format!(
        "# reviewed\nall u/t.sv:5 line {k5} the reset arm\ngfx9 u/t.sv:5 branch:if {k5} same\nall u/t.sv:1 toggle:clk 0000000000000000 clock\nall u/t.sv:6 line {} covered anyway\n",
        key("u/t.sv", "else q <= 1;")
    );
    let w = parse_waivers(&text, Path::new("w.txt")).unwrap();
    let r = report(&groups, &w);
    let g = &r.groups["t.gfx9"];
    assert_eq!(
        g.tally[&Metric::Line],
        Tally {
            covered: 3,
            total: 3,
            waived: 1
        }
    );
    assert_eq!(
        g.tally[&Metric::Branch],
        Tally {
            covered: 2,
            total: 2,
            waived: 1
        }
    );
    // The toggle waiver's key is wrong: stale, not applied.
    assert_eq!(g.tally[&Metric::Toggle].waived, 0);
    assert!(
        r.findings
            .iter()
            .any(|f| f.contains("stale waiver at line 4")),
        "{:?}",
        r.findings
    );
    assert!(
        r.findings
            .iter()
            .any(|f| f.contains("line 5 waives nothing")),
        "{:?}",
        r.findings
    );
    for bad in [
        "all u/t.sv:5 line 0123",
        "gfx10 u/t.sv:5 line 0123456789abcdef x",
        "all t.sv line 0123456789abcdef x",
        "all u/t.sv:5 lines 0123456789abcdef x",
        "all u/t.sv:5 line:x 0123456789abcdef x",
    ] {
        let e = parse_waivers(bad, Path::new("w.txt"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("w.txt:1: "), "{e}");
    }
}

/// Floors parse strictly and fail the groups below them, listing the
/// uncovered items of the failing metric only.
#[test]
fn floors_fail_groups_below_them() {
    let groups = BTreeMap::from([("t.gfx9".to_string(), cov())]);
    let r = report(&groups, &[]);
    let f: Floors = "line=75,toggle=50".parse().unwrap();
    assert!(r.failures(&f).is_empty());
    let f: Floors = "line=80".parse().unwrap();
    let fails = r.failures(&f);
    assert_eq!(fails.len(), 1);
    assert!(fails[0].1.contains("line 75.0% < 80%"), "{}", fails[0].1);
    assert_eq!(
        fails[0].2,
        vec!["u/t.sv:5: line never ran: if (a) q <= 0;".to_string()]
    );
    // The test data has no expression coverage: a floor on it fails.
    let fails = r.failures(&"expr=0".parse().unwrap());
    assert_eq!(fails.len(), 1);
    assert!(
        fails[0].1.contains("expr: nothing counted"),
        "{}",
        fails[0].1
    );
    for bad in [
        "",
        "line",
        "line=101",
        "lines=5",
        "line=5,line=6",
        "line=-1",
    ] {
        assert!(bad.parse::<Floors>().is_err(), "{bad}");
    }
}

/// lcov and Cobertura carry the lines and arms; waived items are left
/// out.
#[test]
fn lcov_and_cobertura_carry_lines_and_arms() {
    let groups = BTreeMap::from([("t.gfx9".to_string(), cov())]);
    let r = report(&groups, &[]);
    let l = r.lcov(Some(Path::new("/rtl")));
    assert!(
        l.contains("SF:/rtl/u/t.sv\n") && l.contains("DA:5,0\n") && l.contains("DA:6,10\n"),
        "{l}"
    );
    assert!(
        l.contains("BRDA:5,0,0,10\nBRDA:5,0,1,0\n") && l.contains("LF:4\nLH:3\n"),
        "{l}"
    );
    let x = r.cobertura(0);
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&x, opts).unwrap();
    let line5 = doc
        .descendants()
        .find(|n| n.has_tag_name("line") && n.attribute("number") == Some("5"))
        .unwrap();
    assert_eq!(line5.attribute("condition-coverage"), Some("50% (1/2)"));
    assert_eq!(doc.root_element().attribute("lines-valid"), Some("4"));
}
