use gpucosim::mutate::gen::*;
use std::path::Path;

fn shape(e: &Expr, src: &str) -> String {
    match e {
        Expr::Atom(sp) => src[sp.0..sp.1].to_string(),
        Expr::Bin { op, l, r, .. } => format!("({} {op} {})", shape(l, src), shape(r, src)),
        Expr::Cond { c, t, f } => {
            format!(
                "({} ? {} : {})",
                shape(c, src),
                shape(t, src),
                shape(f, src)
            )
        }
    }
}

/// Items of a space-separated expression.
fn items(src: &str) -> Vec<Item> {
    let mut at = 0;
    src.split(' ')
        .map(|t| {
            let sp = (at, at + t.len());
            at += t.len() + 1;
            match t {
                "?" => Item::Question,
                ":" => Item::Colon,
                t if precedence(t).is_some() => Item::Op(t.to_string(), sp),
                _ => Item::Atom(sp),
            }
        })
        .collect()
}

#[test]
fn chains_group_by_precedence() {
    for (src, want) in [
        ("a * b + c", "((a * b) + c)"),
        ("a + b * c", "(a + (b * c))"),
        ("a - b - c", "((a - b) - c)"),
        ("a == b ? c : d + e", "((a == b) ? c : (d + e))"),
        ("a ? b : c ? d : e", "(a ? b : (c ? d : e))"),
        ("!a && b || c & d", "((!a && b) || (c & d))"),
        ("a << b + 1 < c", "((a << (b + 1)) < c)"),
        ("a | b ^ c & d", "(a | (b ^ (c & d)))"),
    ] {
        let e = Expr::parse(&items(src)).unwrap();
        assert_eq!(shape(&e, src), want, "{src}");
    }
    assert!(Expr::parse(&items("a ? b")).is_none());
}

/// Variables, nets and ports declared with unpacked dimensions are
/// found (a stuck-at on one as a whole is not made); packed ones not.
#[test]
fn unpacked_declarations_are_found() {
    let src = "module m (input logic [3:0] a_i, output logic [7:0] o_o [4], output logic p_o);\n\
               logic [3:0] packed_q;\n  logic [3:0] mem_q [8];\n  wire w [2];\n\
               endmodule\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.sv");
    std::fs::write(&path, src).unwrap();
    let (tree, _) = sv_parser::parse_sv(
        &path,
        &std::collections::HashMap::new(),
        &[] as &[&Path],
        false,
        false,
    )
    .unwrap();
    let mut got: Vec<String> = unpacked_names(&tree).into_iter().collect();
    got.sort();
    assert_eq!(got, ["mem_q", "o_o", "w"]);
}

#[test]
fn literals_off_by_one() {
    assert_eq!(off_by_one("3"), ["4", "2"]);
    assert_eq!(off_by_one("4'd15"), ["4'd0", "4'd14"]);
    assert_eq!(off_by_one("2'b01"), ["2'b10", "2'b0"]);
    assert_eq!(off_by_one("8'hff"), ["8'h0", "8'hfe"]);
    assert_eq!(off_by_one("1'b0"), ["1'b1"]);
    assert!(off_by_one("4'bx01z").is_empty());
    assert_eq!(off_by_one("0"), ["1"]);
}
