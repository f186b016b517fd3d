use gpucosim_tb::run::*;

/// Property: every copy of the checksum's weighted sum this CPU runs,
/// and the one `weighted_sum` picks, agree with the baseline's and with
/// the sum written out, on the units' output widths and a few odd ones
/// (widths that leave a vector tail).
#[test]
fn every_weighted_sum_copy_agrees() {
    let mut x = 0x1234_5678_9abc_def0u64;
    for n in [0usize, 1, 3, 17, 31, 282, 413, 1000, 4097] {
        let weights = OutputChecksum::new(n).weights;
        let words: Vec<u32> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u32 | 0xF000_0000
            })
            .collect();
        let naive = (0..n).fold(0u64, |s, i| {
            s.wrapping_add(u64::from(words[i]) * (2 * i as u64 + 1))
        });
        for (name, copy) in weighted_sum_copies() {
            assert_eq!(copy(&words, &weights), naive, "{name}, {n} words");
        }
    }
}
