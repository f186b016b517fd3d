use gpucosim_waves::fst::*;

#[test]
fn values_are_packed_most_significant_bit_first() {
    let mut out = [0u8; 8];
    assert_eq!(packed_u64(&mut out, 0b1_0110_0101, 9), 2);
    assert_eq!(out[..2], [0b1011_0010, 0b1000_0000]);
    assert_eq!(packed_u64(&mut out, u64::MAX, 64), 8);
    assert_eq!(out, [0xff; 8]);
    for (v, w) in [(0x5a5u64, 12u32), (1 << 47 | 3, 48), (0xdead_beef, 32)] {
        let mut b = Vec::new();
        let n = packed_u64(&mut out, v, w);
        packed_words(
            &mut b,
            &[v as u32, (v >> 32) as u32][..w.div_ceil(32) as usize],
            w,
        );
        assert_eq!(out[..n], b, "{v:#x} in {w} bits");
    }
    // 128 bits: whole words, and one bit at a time.
    let words = [0x0102_0304, 0, 0, 0x8000_00ff];
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    packed_words(&mut fast, &words, 128);
    packed_words(&mut slow, &[words[0], words[1], words[2], words[3] & 1], 97);
    assert_eq!(fast[..4], [0x80, 0, 0, 0xff]);
    assert_eq!(fast[12..], [1, 2, 3, 4]);
    assert_eq!(slow.len(), 13);
    assert_eq!(slow[0], 0x80);
    let mut c = Vec::new();
    chars_u64(&mut c, 0b101, 4);
    assert_eq!(c, b"0101");
    c.clear();
    chars_words(&mut c, &[1, 0, 0, 0x8000_0000], 128);
    assert_eq!(c, format!("1{}1", "0".repeat(126)).as_bytes());
}

#[test]
fn varints_match_the_format() {
    let enc = |v: u64| {
        let mut o = Vec::new();
        varint(&mut o, v);
        o
    };
    assert_eq!(enc(5), [5]);
    assert_eq!(enc(300), [0xac, 0x02]);
    let senc = |v: i64| {
        let mut o = Vec::new();
        svarint(&mut o, v);
        o
    };
    // As GTKWave writes them.
    assert_eq!(senc(19), [0x13]);
    assert_eq!(senc(-5), [0x7b]);
    assert_eq!(senc(63), [0x3f]);
    assert_eq!(senc(64), [0xc0, 0x00]);
    assert_eq!(senc(-64), [0x40]);
    assert_eq!(senc(-65), [0xbf, 0x7f]);
}

#[test]
fn utc_dates_are_civil() {
    let s = utc_now();
    assert_eq!(s.len(), "2026-01-01 00:00:00 UTC".len(), "{s}");
    assert!(s.starts_with("20"), "{s}");
}
