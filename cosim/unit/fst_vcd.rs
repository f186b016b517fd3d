use gpucosim::fst_vcd::*;

#[test]
fn codes_and_timescales() {
    assert_eq!(code(0), "!");
    assert_eq!(code(93), "~");
    assert_eq!(code(94), "!!");
    assert_ne!(code(94 + 94 * 94), code(94));
    assert_eq!(timescale(-9), "1ns");
    assert_eq!(timescale(-10), "100ps");
    assert_eq!(timescale(-8), "10ns");
    assert_eq!(timescale(0), "1s");
}
