//! Which copy of a hot loop this CPU runs.
//!
//! A few per-cycle loops (the ta datapath's 256 slots, the benchmark
//! checksum) are compiled twice: for the target's baseline and for
//! x86-64-v3 (AVX2, BMI1/2, LZCNT, POPCNT), where their 64-bit lane
//! arithmetic and comparisons vectorise. The copy is chosen at run time,
//! per call, from the CPU's features; both are the same integer code and
//! give the same results on every machine.

/// Whether this CPU has the x86-64-v3 integer features the second copies
/// are compiled for (`#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]`).
/// The standard library detects them once and caches the answer.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_x86_64_v3() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// Never on a CPU other than x86-64.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub fn has_x86_64_v3() -> bool {
    false
}
