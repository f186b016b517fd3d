use gpucosim_kernel::emu::memory::*;

#[test]
fn reads_writes_and_faults() {
    let mut m = Memory::default();
    m.map("a", 0x1000, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    m.map("b", 0x3000, vec![0; 16]);
    assert_eq!(m.read(0x1002, 4).unwrap(), (0x0605_0403, true));
    m.write(0x3004, 4, 0xdead_beef, false).unwrap();
    assert_eq!(m.read(0x3004, 4).unwrap(), (0xdead_beef, false));
    assert_eq!(m.read(0x3000, 4).unwrap(), (0, true));
    let e = m.read(0x1006, 4).unwrap_err();
    assert!(e.contains("outside `a`"), "{e}");
    let e = m.write(0x9000, 4, 0, true).unwrap_err();
    assert!(e.contains("in no buffer"), "{e}");
    // Padding reads as unknown bytes, within the region.
    m.map_padded(
        "k",
        0x5000,
        vec![
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
        ],
        16,
    );
    assert_eq!(m.read(0x5010, 4).unwrap(), (0x1413_1211, true));
    assert!(!m.read(0x5014, 4).unwrap().1);
    assert!(!m.read(0x5012, 4).unwrap().1);
    assert!(m.read(0x501c, 8).is_err());
}
