//! How the model's request types are written in repro bundles:
//! `#[serde(with = "crate::serde_fmt::lanes")]` for per-lane arrays,
//! `#[serde(with = "crate::serde_fmt::hex128")]` for 128-bit values.

/// Per-lane arrays (`[T; 64]`) as JSON arrays: written whole, read from an
/// array of at most the wave's lanes, the lanes it does not reach 0.
pub mod lanes {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes the array as a sequence.
    pub fn serialize<S: Serializer, T: Serialize, const N: usize>(
        v: &[T; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter())
    }

    /// Reads a sequence of at most `N` values; missing lanes are 0.
    pub fn deserialize<'de, D, T, const N: usize>(d: D) -> Result<[T; N], D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de> + Default + Copy,
    {
        let v: Vec<T> = Vec::deserialize(d)?;
        if v.len() > N {
            return Err(D::Error::custom(format_args!(
                "{} lane values, at most {N}",
                v.len()
            )));
        }
        let mut a = [T::default(); N];
        a[..v.len()].copy_from_slice(&v);
        Ok(a)
    }
}

/// A 128-bit value as a `0x`-prefixed hex string of 32 digits (`_`
/// allowed when read).
pub mod hex128 {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `0x` and 32 hex digits.
    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:#034x}"))
    }

    /// Reads a hex string, with or without `0x`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let s = String::deserialize(d)?;
        let t = s.trim_start_matches("0x").replace('_', "");
        u128::from_str_radix(&t, 16).map_err(serde::de::Error::custom)
    }
}
