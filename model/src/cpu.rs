//! Which copy of a hot loop this CPU runs.
//!
//! A few per-cycle loops (the ta datapath's 256 slots, the ta stimulus
//! generator, the benchmark checksum) are compiled three times: for the
//! target's baseline, for x86-64-v3 (AVX2, BMI1/2, LZCNT, POPCNT), where
//! their 64-bit lane arithmetic and comparisons vectorise, and for
//! x86-64-v4 (v3 and AVX-512 F, BW, CD, DQ, VL), where they take eight
//! 64-bit lanes an instruction and comparisons give lane masks directly.
//! The copy is chosen at run time, per call, from the CPU's features
//! ([`level`]); all copies are the same integer code and give the same
//! results on every machine (each loop's tests compare them).

/// The most capable copy this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The target's baseline features.
    Baseline,
    /// x86-64-v3: `#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]`.
    V3,
    /// x86-64-v4: v3 and `avx512f,avx512bw,avx512cd,avx512dq,avx512vl`.
    V4,
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Level::Baseline => "the target's baseline",
            Level::V3 => "x86-64-v3 (AVX2)",
            Level::V4 => "x86-64-v4 (AVX-512)",
        })
    }
}

/// The copy this CPU runs. The features are detected once and the answer
/// cached.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn level() -> Level {
    use std::sync::atomic::{AtomicU8, Ordering};
    // 0: not yet detected; else `Level as u8 + 1`.
    static LEVEL: AtomicU8 = AtomicU8::new(0);
    match LEVEL.load(Ordering::Relaxed) {
        1 => Level::Baseline,
        2 => Level::V3,
        3 => Level::V4,
        _ => {
            let l = detect();
            LEVEL.store(l as u8 + 1, Ordering::Relaxed);
            l
        }
    }
}

/// Always the baseline on a CPU other than x86-64.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub fn level() -> Level {
    Level::Baseline
}

// The features of each level: `detect` and `hot_copies!`'s
// `#[target_feature]` lists name the same ones.
#[cfg(target_arch = "x86_64")]
#[cold]
fn detect() -> Level {
    use std::arch::is_x86_feature_detected as has;
    let v3 = has!("avx2") && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
    let v4 = v3
        && has!("avx512f")
        && has!("avx512bw")
        && has!("avx512cd")
        && has!("avx512dq")
        && has!("avx512vl");
    if v4 {
        Level::V4
    } else if v3 {
        Level::V3
    } else {
        Level::Baseline
    }
}

/// Whether this CPU runs the x86-64-v3 copies (or better).
#[inline]
pub fn has_x86_64_v3() -> bool {
    level() >= Level::V3
}

/// Whether this CPU runs the x86-64-v4 copies.
#[inline]
pub fn has_x86_64_v4() -> bool {
    level() >= Level::V4
}

/// Defines a function that runs the copy of `$body` for this CPU's
/// [`level`], the three copies it chooses from, named as given: for the
/// target's baseline, for x86-64-v3 and for x86-64-v4, and a function
/// (`all in`) that lists the function and the copies this CPU runs, for
/// the tests that hold them equal. The copies' `#[target_feature]` lists
/// name the features that [`level`] detects for their level, here and
/// nowhere else. `$body` is `#[inline(always)]`, so that each copy
/// compiles all of it for its features. So must be whatever the body calls
/// in its hot loops: a function left out of line is compiled once, for the
/// baseline, whatever copy calls it. Generic library helpers may stay out
/// of line even when small: `std::array::from_fn` in the stimulus's
/// `Draw::keyed` did, and the x86-64-v4 ta generator computed its keyed
/// words in a call of scalar code (`docs/benchmarks.md`, optimisation
/// log); a plain loop does not.
///
/// ```
/// #[inline(always)]
/// fn sum_body(words: &[u32]) -> u64 {
///     words.iter().map(|&w| u64::from(w)).sum()
/// }
///
/// gpucosim_model::hot_copies! {
///     /// The sum of `words`.
///     pub fn sum(words: &[u32]) -> u64 = sum_body;
///     copies sum_baseline, sum_x86_64_v3, sum_x86_64_v4, all in sum_copies;
/// }
///
/// assert_eq!(sum(&[1, 2, u32::MAX]), 3 + u64::from(u32::MAX));
/// for (name, copy) in sum_copies() {
///     assert_eq!(copy(&[1, 2, u32::MAX]), 3 + u64::from(u32::MAX), "{name}");
/// }
/// ```
#[macro_export]
macro_rules! hot_copies {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $body:ident;
        copies $base:ident, $v3:ident, $v4:ident, all in $all:ident;
    ) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            match $crate::cpu::level() {
                // SAFETY: the CPU has every feature the copy is compiled
                // for: its level says so.
                $crate::cpu::Level::V4 => return unsafe { $v4($($arg),*) },
                // SAFETY: as above.
                $crate::cpu::Level::V3 => return unsafe { $v3($($arg),*) },
                $crate::cpu::Level::Baseline => {}
            }
            $base($($arg),*)
        }

        #[doc = concat!("[`", stringify!($name), "`] compiled for the target's baseline features.")]
        #[doc(hidden)]
        $vis fn $base($($arg: $ty),*) $(-> $ret)? {
            $body($($arg),*)
        }

        #[doc = concat!("[`", stringify!($name), "`] compiled for x86-64-v3 (AVX2).")]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
        fn $v3($($arg: $ty),*) $(-> $ret)? {
            $body($($arg),*)
        }

        #[doc = concat!("[`", stringify!($name), "`] compiled for x86-64-v4 (AVX-512).")]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(
            enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
        )]
        fn $v4($($arg: $ty),*) $(-> $ret)? {
            $body($($arg),*)
        }

        #[doc = concat!(
            "[`", stringify!($name), "`] and each of its copies this CPU runs, named, ",
            "baseline first: what the tests that hold the copies equal compare."
        )]
        #[allow(dead_code)]
        #[doc(hidden)]
        $vis fn $all() -> Vec<(&'static str, fn($($ty),*) $(-> $ret)?)> {
            let mut v: Vec<(&'static str, fn($($ty),*) $(-> $ret)?)> =
                vec![("baseline", $base), ("dispatched", $name)];
            #[cfg(target_arch = "x86_64")]
            {
                if $crate::cpu::has_x86_64_v3() {
                    // SAFETY: the CPU has the copy's features (checked above).
                    v.push(("x86-64-v3", |$($arg),*| unsafe { $v3($($arg),*) }));
                }
                if $crate::cpu::has_x86_64_v4() {
                    // SAFETY: the CPU has the copy's features (checked above).
                    v.push(("x86-64-v4", |$($arg),*| unsafe { $v4($($arg),*) }));
                }
            }
            v
        }
    };
}
