//! The stimulus versions, and the cheap random fields of version 2.
//!
//! A seed's stimulus is a pure function of the seed, the knobs, the profile
//! and the stimulus version: bundles and results files record the version,
//! and a replay regenerates the stream of the version it names. Version 1
//! drew every field with its own `gen_range` call on the seed's ChaCha8
//! stream (a 32- or 64-bit word per field, rejection sampling for bounded
//! ranges); version 2 cuts fields out of 64-bit words of the same stream
//! ([`Draw`]): a bounded range takes 16 or 32 bits and one multiply, never
//! a rejection loop. The ta and lds generators changed in version 2; the
//! waitcnt generator, cheap already, draws the same stream in both.
//! Version 3 draws the per-lane words of a ta instruction, and the first
//! data word of each lds lane, from one word of the stream as a key
//! ([`Draw::keyed`]: SplitMix64 over the lane number) instead of a word for
//! every lane or two; the other fields, and waitcnt, are drawn as in
//! version 2.

use crate::error::{Error, Result};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;

/// The stimulus version fresh runs draw.
pub const STIMULUS_VERSION: u32 = 3;

/// The oldest stimulus version this build still generates (to replay
/// bundles and rerun seeds recorded under it).
pub const OLDEST_STIMULUS_VERSION: u32 = 1;

/// `version` when this build generates it; a one-line error otherwise.
pub fn check_version(version: u32) -> Result<u32> {
    if (OLDEST_STIMULUS_VERSION..=STIMULUS_VERSION).contains(&version) {
        Ok(version)
    } else {
        Err(Error::Input(format!(
            "stimulus version {version} is not one this gpucosim generates (versions {OLDEST_STIMULUS_VERSION} to {STIMULUS_VERSION}); replay it with the gpucosim that recorded it"
        )))
    }
}

/// Random fields cut from 64-bit words of a generator: each field takes
/// the bits it needs from the current word, and a new word is drawn when
/// too few are left. Bounded ranges are a multiply and a shift over 16
/// bits (ranges of at most 256 values), 32 bits (at most 2^20) or 64 bits:
/// the bias of a value is below 0.4 % of its probability, and there is no
/// rejection loop. Bits left over when a `Draw` is dropped are discarded.
pub struct Draw<'a> {
    rng: &'a mut ChaCha8Rng,
    word: u64,
    left: u32,
}

impl<'a> Draw<'a> {
    /// Fields from `rng`'s next words.
    pub fn new(rng: &'a mut ChaCha8Rng) -> Self {
        Draw {
            rng,
            word: 0,
            left: 0,
        }
    }

    /// `n` random bits, `1 <= n <= 64`.
    #[inline]
    pub fn bits(&mut self, n: u32) -> u64 {
        debug_assert!((1..=64).contains(&n));
        if self.left < n {
            self.word = self.rng.next_u64();
            self.left = 64;
        }
        let v = if n == 64 {
            self.word
        } else {
            self.word & ((1u64 << n) - 1)
        };
        self.word = self.word.checked_shr(n).unwrap_or(0);
        self.left -= n;
        v
    }

    /// A value in `0..n` (`n >= 1`).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n >= 1);
        let k = if n <= 1 << 8 {
            16
        } else if n <= 1 << 20 {
            32
        } else {
            64
        };
        ((u128::from(self.bits(k)) * u128::from(n)) >> k) as u64
    }

    /// A value in `lo..hi` (`lo < hi`).
    #[inline]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo)
    }

    /// A value in `lo..hi` (`lo < hi`), as a `u32`.
    #[inline]
    pub fn range32(&mut self, lo: u32, hi: u32) -> u32 {
        self.range(lo.into(), hi.into()) as u32
    }

    /// True `p` times in 100.
    #[inline]
    pub fn pct(&mut self, p: u32) -> bool {
        self.below(100) < u64::from(p)
    }

    /// One of `xs` (not empty), each alike.
    #[inline]
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// A random 32-bit word.
    #[inline]
    pub fn u32(&mut self) -> u32 {
        self.bits(32) as u32
    }

    /// A random 64-bit word (always a fresh word of the generator).
    #[inline]
    pub fn u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// `N` random 64-bit words from one word of the generator, the key:
    /// word `j` is SplitMix64's output `j + 1` from the key
    /// ([`splitmix64`] of `key + (j + 1)·γ`). The words of different keys
    /// are as independent as SplitMix64's streams; a key costs one draw of
    /// the generator instead of `N`.
    ///
    /// A plain loop rather than `std::array::from_fn`, which the compiler
    /// left out of line, compiled for the baseline only, where the caller is
    /// a copy for x86-64-v3 or v4 ([`gpucosim_model::cpu`]).
    #[inline(always)]
    pub fn keyed<const N: usize>(&mut self) -> [u64; N] {
        let key = self.rng.next_u64();
        let mut words = [0u64; N];
        for (j, w) in words.iter_mut().enumerate() {
            *w = splitmix64(key.wrapping_add(GOLDEN_GAMMA.wrapping_mul(j as u64 + 1)));
        }
        words
    }
}

/// SplitMix64's increment (2^64 / φ, odd).
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function (Steele, Lea and Flood, 2014): a bijection
/// of 64-bit words whose output bits each depend on every input bit.
#[inline(always)]
pub fn splitmix64(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
