use gpucosim_waves::*;
use std::io::{self};
use vcd::IdCode;

/// Value changes are byte-for-byte what the `vcd` crate writes: fails if
/// the hand-written fast path drifts from the format.
#[test]
fn value_changes_match_the_vcd_crate() {
    let id = IdCode::from(93u32);
    for (v, width) in [
        (0u64, 8u32),
        (5, 8),
        (1, 1),
        (0, 1),
        (u64::MAX, 64),
        (1 << 47, 48),
    ] {
        let mut ours = Vec::new();
        vector(&mut ours, &code(id), v, width);
        let mut theirs = vcd::Writer::new(Vec::new());
        if width == 1 {
            theirs.change_scalar(id, bit(v & 1 != 0)).unwrap();
        } else {
            let n = if v == 0 { 1 } else { 64 - v.leading_zeros() };
            let bits = (0..n).rev().map(|i| bit(v >> i & 1 != 0));
            theirs.change_vector(id, bits).unwrap();
        }
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            String::from_utf8(theirs.writer().clone()).unwrap(),
            "value {v:#x} width {width}"
        );
    }
}

/// Values wider than 64 bits are written whole, leading zeros dropped.
#[test]
fn wide_values_are_written_whole() {
    let mut s = Vec::new();
    wide_vector(&mut s, b"!", &[0x1, 0, 0x5, 0]);
    let want = format!("b101{}{:032b} !\n", "0".repeat(32), 1);
    assert_eq!(String::from_utf8(s).unwrap(), want);
    let mut z = Vec::new();
    wide_vector(&mut z, b"#", &[0, 0, 0, 0]);
    assert_eq!(z, b"b0 #\n");
}

/// A window that cannot be allocated is an error naming its cycles and
/// bytes, not an abort; one that can is an empty ring of that size.
#[test]
fn a_window_too_large_for_memory_is_an_error() {
    gpucosim_model::ports! {
        mod toy("toy", "toy_top") { input rst_ni: 1, input d_i: 8 x 2, output q_o: 8 }
    }
    for window in [1usize << 56, usize::MAX] {
        let Err(e) = Capture::try_new(&toy::TABLE, window) else {
            panic!("a window of {window} cycles was allocated");
        };
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("a waveform window of {window} cycles needs ")),
            "{text}"
        );
    }
    let c = Capture::try_new(&toy::TABLE, 16).unwrap();
    assert_eq!((c.window(), c.len()), (16, 0));
}

/// Array elements are named `port[e]` and declared with their range; a
/// 128-bit port is one variable; the cycle is an integer.
#[test]
fn names_and_widths() {
    gpucosim_model::ports! {
        mod toy("toy", "toy_top") { input rst_ni: 1, input v_i: 128, input d_i: 8 x 3, output q_o: 128 x 2 }
    }
    let mut out = Vec::new();
    let w = VcdWriter::new(&mut out, &toy::TABLE, &Meta::default()).unwrap();
    w.finish().unwrap();
    let text = String::from_utf8(out).unwrap();
    for decl in [
        "$var integer 64 \" cycle $end",
        "$var wire 128 $ v_i [127:0] $end",
        "d_i[2] [7:0] $end",
        "q_o[1] [127:0] $end",
    ] {
        assert!(text.contains(decl), "{decl:?} missing in\n{text}");
    }
}

fn bit(b: bool) -> vcd::Value {
    if b {
        vcd::Value::V1
    } else {
        vcd::Value::V0
    }
}
