use gpucosim_model::ports::*;

gpucosim_model::ports! {
    /// Ports with element widths around the whole-word fast paths.
    #[allow(dead_code)]
    mod elem_ports("elems", "elems_top") {
        input rst_ni: 1,
        input w31_i: 31 x 5,
        input w32_i: 32 x 5,
        input w33_i: 33 x 5,
        input w63_i: 63 x 3,
        input w64_i: 64 x 3,
        input w8_i: 8 x 9,
        input w1_i: 1 x 40,
    }
}

/// `elem` / `set_elem` (with their whole-word fast paths) agree with
/// the generic bit loop for every element of ports of several widths,
/// drop bits above the element width and leave the neighbours alone.
#[test]
fn elems_match_the_bit_loop_for_every_width() {
    use elem_ports as E;
    let ports = [
        E::w31_i,
        E::w32_i,
        E::w33_i,
        E::w63_i,
        E::w64_i,
        E::w8_i,
        E::w1_i,
    ];
    let n = E::TABLE.in_words();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for p in ports {
        let elems = p.width / p.elem_width;
        for i in 0..elems as usize {
            x = x.rotate_left(17).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ 0x94D0_49BB_1331_11EB;
            let fill = if i % 2 == 0 { u32::MAX } else { 0 };
            let mut fast = vec![fill; n];
            let mut slow = fast.clone();
            p.set_elem(&mut fast, i, x);
            set_bits(
                p.slice_mut(&mut slow),
                i * p.elem_width as usize,
                p.elem_width,
                x,
            );
            assert_eq!(fast, slow, "set {} elem {i}", p.elem_width);
            let want = get_bits(p.slice(&slow), i * p.elem_width as usize, p.elem_width);
            assert_eq!(want, x & mask64(p.elem_width));
            assert_eq!(p.elem(&fast, i), want, "get {} elem {i}", p.elem_width);
        }
    }
}

#[test]
#[should_panic]
fn elem_past_the_port_panics_on_the_fast_path() {
    let mut buf = vec![0u32; elem_ports::TABLE.in_words()];
    elem_ports::w32_i.set_elem(&mut buf, 5, 1);
}

/// Bit `b` of little-endian words, one bit at a time (the oracle).
fn bit_of(words: &[u32], b: usize) -> bool {
    words[b / 32] >> (b % 32) & 1 != 0
}

proptest::proptest! {
    /// `get_bits` / `set_bits` agree bit for bit with a one-bit-at-a-time
    /// reference at every offset and width 0..=64 (width 0: 0 and no
    /// change), drop the value's bits above the width and leave every
    /// bit outside the range alone; `get_bit` / `set_bit` likewise.
    #[test]
    fn bit_ranges_match_a_bit_by_bit_reference(
        init in proptest::collection::vec(proptest::num::u32::ANY, 5),
        lsb in 0usize..96,
        width in 0u32..=64,
        value in proptest::num::u64::ANY,
        offset in 0usize..2,
        i in 0usize..64,
        v in proptest::bool::ANY,
    ) {
        let want = (0..width as usize)
            .filter(|&k| bit_of(&init, lsb + k))
            .fold(0u64, |a, k| a | 1 << k);
        proptest::prop_assert_eq!(get_bits(&init, lsb, width), want);
        let mut w = init.clone();
        set_bits(&mut w, lsb, width, value);
        for b in 0..32 * w.len() {
            let inside = b >= lsb && b < lsb + width as usize;
            let expect = if inside { value >> (b - lsb) & 1 != 0 } else { bit_of(&init, b) };
            proptest::prop_assert_eq!(bit_of(&w, b), expect, "bit {}", b);
        }
        let p = Port { index: 0, offset, width: 96, elem_width: 96 };
        proptest::prop_assert_eq!(p.get_bit(&init, i), bit_of(&init, 32 * offset + i));
        let mut w = init.clone();
        p.set_bit(&mut w, i, v);
        for b in 0..32 * w.len() {
            let expect = if b == 32 * offset + i { v } else { bit_of(&init, b) };
            proptest::prop_assert_eq!(bit_of(&w, b), expect, "bit {}", b);
        }
    }
}

#[test]
fn bits_roundtrip_across_word_edges() {
    let mut w = [0u32; 4];
    set_bits(&mut w, 20, 48, 0xABCD_EF01_2345);
    assert_eq!(get_bits(&w, 20, 48), 0xABCD_EF01_2345);
    assert_eq!(w[0] & 0xFFFFF, 0, "bits below lsb untouched");
    set_bits(&mut w, 0, 20, 0xFFFFF);
    assert_eq!(get_bits(&w, 20, 48), 0xABCD_EF01_2345);
    assert_eq!(get_bits(&w, 0, 20), 0xFFFFF);
}
