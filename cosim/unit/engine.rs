#[test]
fn chunks_fill_their_bytes_within_bounds() {
    use gpucosim::engine::chunk_cycles;
    // waitcnt (11 + 17 words), ta (147 + 413), lds (333 + 282).
    assert_eq!(chunk_cycles(28), 2048);
    assert_eq!(chunk_cycles(560), 256);
    assert_eq!(chunk_cycles(615), 256);
    assert_eq!(chunk_cycles(0), 4096);
    assert_eq!(chunk_cycles(1), 4096);
    assert_eq!(chunk_cycles(1 << 20), 256);
}

#[test]
fn a_second_cpu_is_idle_only_when_the_load_leaves_one() {
    assert!(!gpucosim::engine::idle_cpu(1, Some(0.0)));
    assert!(gpucosim::engine::idle_cpu(2, Some(0.3)));
    assert!(!gpucosim::engine::idle_cpu(2, Some(0.9)));
    assert!(gpucosim::engine::idle_cpu(4, Some(2.5)));
    assert!(!gpucosim::engine::idle_cpu(4, Some(2.6)));
    assert!(gpucosim::engine::idle_cpu(2, None));
}
