//! The input side of `gpucosim eval`, shared by every unit.
//!
//! A request is read as JSON, then deserialised with serde into the unit's
//! typed request struct through [`from_value`], whose deserialiser knows
//! where it is: every error names the field it is about (`vsharp.base`,
//! `vindex[40]`, `trace[3].wait.lgkmcnt`). Every unit reads numbers with
//! the one type [`U`], flags as JSON booleans, and lane values with
//! [`Lanes`], so every unit accepts and rejects the same things with the
//! same messages.
//!
//! The number rule ([`U`]): a JSON number, or a string of decimal digits or
//! of `0x` and hex digits, `_` allowed between digits; never negative,
//! never a fraction, never a boolean (`true` is not 1); at most the field's
//! width. Flags are `true` or `false` only (1 and `"1"` are numbers, not
//! flags). A field given as `null` is an error, not a default.

use serde::de::{
    self, DeserializeSeed, Deserializer, Expected, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, Visitor,
};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;

/// Where in a request a value is: the root, a field of an object, an
/// element of an array. Rendered only when an error is reported.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root(&'a str),
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Path::Root(name) => f.write_str(name),
            Path::Key(p, k) => {
                let numeric = k.bytes().next().is_some_and(|b| b.is_ascii_digit());
                match (p.is_empty(), numeric) {
                    (_, true) => write!(f, "{p}[{k}]"),
                    (true, false) => f.write_str(k),
                    (false, false) => write!(f, "{p}.{k}"),
                }
            }
            Path::Index(p, i) => write!(f, "{p}[{i}]"),
        }
    }
}

impl Path<'_> {
    fn is_empty(&self) -> bool {
        matches!(self, Path::Root(""))
    }
}

/// An error in a request: what is wrong, and the field it is about.
#[derive(Debug)]
pub struct InputError {
    path: Option<String>,
    msg: String,
}

impl InputError {
    /// Names the field of an error that does not name one yet (the
    /// innermost field is the one at fault).
    fn at(mut self, path: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_string());
        }
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.path.as_deref() {
            Some(p) if !p.is_empty() => write!(f, "`{p}`: {}", self.msg),
            _ => f.write_str(&self.msg),
        }
    }
}

impl std::error::Error for InputError {}

/// How an error message shows a value that was not what a field takes.
fn unexpected(u: &Unexpected) -> String {
    match u {
        Unexpected::Bool(b) => format!("the boolean {b}"),
        Unexpected::Unsigned(n) => format!("the number {n}"),
        Unexpected::Signed(n) => format!("the number {n}"),
        Unexpected::Float(x) => format!("the number {x}"),
        Unexpected::Str(s) => format!("the string `{s}`"),
        Unexpected::Unit => "null".into(),
        Unexpected::Seq => "an array".into(),
        Unexpected::Map => "an object".into(),
        other => other.to_string(),
    }
}

impl de::Error for InputError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        InputError {
            path: None,
            msg: msg.to_string(),
        }
    }
    fn invalid_type(unexp: Unexpected, exp: &dyn Expected) -> Self {
        let note = if matches!(unexp, Unexpected::Bool(_)) {
            " (a boolean is not a number)"
        } else if matches!(unexp, Unexpected::Unsigned(_) | Unexpected::Str(_))
            && exp.to_string() == "a boolean"
        {
            " (a flag is true or false)"
        } else {
            ""
        };
        Self::custom(format_args!(
            "expected {exp}, got {}{note}",
            unexpected(&unexp)
        ))
    }
    fn invalid_value(unexp: Unexpected, exp: &dyn Expected) -> Self {
        Self::custom(format_args!("expected {exp}, got {}", unexpected(&unexp)))
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Self::custom(format_args!(
            "unknown field `{field}` (known: {})",
            expected.join(", ")
        ))
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Self::custom(format_args!(
            "`{variant}` is not one of {}",
            expected.join(", ")
        ))
    }
    fn missing_field(field: &'static str) -> Self {
        Self::custom(format_args!("missing `{field}`"))
    }
    fn duplicate_field(field: &'static str) -> Self {
        Self::custom(format_args!(
            "`{field}` is given twice (under its name and an alias)"
        ))
    }
}

/// Deserialises a `T` from a request (or a part of one called `name`, `""`
/// for a whole request). The error is one line naming the field.
pub fn from_value<'v, T: Deserialize<'v>>(v: &'v Value, name: &str) -> Result<T, String> {
    let path = Path::Root(name);
    T::deserialize(De { v, path }).map_err(|e| e.to_string())
}

/// `"`path`: msg"`: an error about a field found after deserialisation (a
/// rule that depends on the profile or on another field), in the same form
/// as the errors of [`from_value`].
pub fn at(path: &str, msg: impl fmt::Display) -> String {
    if path.is_empty() {
        msg.to_string()
    } else {
        format!("`{path}`: {msg}")
    }
}

/// A deserialiser of a JSON value that knows its path.
struct De<'v, 'p> {
    v: &'v Value,
    path: Path<'p>,
}

impl<'de, 'p> Deserializer<'de> for De<'de, 'p> {
    type Error = InputError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, InputError> {
        let path = self.path;
        let r = match self.v {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(a) => visitor.visit_seq(Seq {
                it: a.iter().enumerate(),
                len: a.len(),
                path: &path,
            }),
            Value::Object(m) => visitor.visit_map(Map {
                it: m.iter(),
                value: None,
                path: &path,
            }),
        };
        r.map_err(|e: InputError| e.at(&path))
    }

    /// A field that is present is a value: `null` is not "absent".
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, InputError> {
        let path = self.path;
        visitor.visit_some(self).map_err(|e| e.at(&path))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, InputError> {
        let path = self.path;
        visitor.visit_newtype_struct(self).map_err(|e| e.at(&path))
    }

    /// Enums of names (unit variants) are strings.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, InputError> {
        let path = self.path;
        let r = match self.v {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            other => Err(de::Error::invalid_type(unexpected_of(other), &visitor)),
        };
        r.map_err(|e: InputError| e.at(&path))
    }

    /// A struct is an object; anything else is named as what it is.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, InputError> {
        match self.v {
            Value::Object(_) => self.deserialize_any(visitor),
            other => Err(<InputError as de::Error>::custom(format_args!(
                "{} a JSON object of named fields, got {}",
                if self.path.is_empty() {
                    "a request is"
                } else {
                    "expected"
                },
                unexpected(&unexpected_of(other))
            ))
            .at(&self.path)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, InputError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

fn unexpected_of(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (_, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

struct Seq<'v, 'p> {
    it: std::iter::Enumerate<std::slice::Iter<'v, Value>>,
    len: usize,
    path: &'p Path<'p>,
}

impl<'de> SeqAccess<'de> for Seq<'de, '_> {
    type Error = InputError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, InputError> {
        match self.it.next() {
            None => Ok(None),
            Some((i, v)) => {
                let path = Path::Index(self.path, i);
                seed.deserialize(De { v, path }).map(Some)
            }
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.len)
    }
}

struct Map<'v, 'p> {
    it: serde_json::map::Iter<'v>,
    value: Option<(&'v str, &'v Value)>,
    path: &'p Path<'p>,
}

impl<'de> MapAccess<'de> for Map<'de, '_> {
    type Error = InputError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, InputError> {
        match self.it.next() {
            None => Ok(None),
            Some((k, v)) => {
                self.value = Some((k, v));
                seed.deserialize(Key(k))
                    .map(Some)
                    .map_err(|e| e.at(self.path))
            }
        }
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, InputError> {
        let (k, v) = self.value.take().expect("a key before its value");
        let path = Path::Key(self.path, k);
        seed.deserialize(De { v, path })
    }
}

/// The deserialiser of an object's key: a string.
struct Key<'v>(&'v str);

impl<'de> Deserializer<'de> for Key<'de> {
    type Error = InputError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, InputError> {
        visitor.visit_borrowed_str(self.0)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// What a number field takes, for error messages.
const A_NUMBER: &str = "a non-negative integer (a JSON number, or a string in decimal or 0x hex)";

/// A non-negative integer of at most `BITS` bits, as a request writes it:
/// a JSON number, or a string of decimal digits or of `0x` and hex digits
/// with `_` allowed between digits. Negative numbers, fractions, booleans
/// and `null` are refused, as is a value wider than `BITS` (JSON numbers
/// beyond 2^64 must be written as strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct U<const BITS: u32> {
    v: u128,
    /// Written in hex (error messages quote it as written).
    hex: bool,
}

impl<const BITS: u32> U<BITS> {
    /// The largest value of the type.
    pub const MAX: u128 = if BITS >= 128 {
        u128::MAX
    } else {
        (1u128 << BITS) - 1
    };

    /// The value.
    pub fn get(self) -> u128 {
        self.v
    }
    /// The value, which `BITS <= 64` guarantees to fit.
    pub fn u64(self) -> u64 {
        const { assert!(BITS <= 64) };
        self.v as u64
    }
    /// The value, which `BITS <= 32` guarantees to fit.
    pub fn u32(self) -> u32 {
        const { assert!(BITS <= 32) };
        self.v as u32
    }

    fn show(v: u128, hex: bool) -> String {
        if hex {
            format!("{v:#x}")
        } else {
            v.to_string()
        }
    }

    /// The value, or an error naming `path` if it is above `max` (a limit
    /// that depends on the profile or on another field; `why` says which
    /// and follows the limit as written, e.g. `" on gfx9"`).
    pub fn at_most(self, max: u128, path: &str, why: &str) -> Result<u128, String> {
        if self.v > max {
            return Err(at(
                path,
                format!(
                    "{} is out of range (at most {}{why})",
                    Self::show(self.v, self.hex),
                    Self::show(max, self.hex)
                ),
            ));
        }
        Ok(self.v)
    }

    fn checked(v: u128, hex: bool) -> Result<Self, String> {
        if v > Self::MAX {
            return Err(format!(
                "{} is out of range (at most {}, {BITS} bits)",
                Self::show(v, hex),
                Self::show(Self::MAX, hex)
            ));
        }
        Ok(U { v, hex })
    }

    /// From a JSON number.
    fn from_u64(v: u64) -> Result<Self, String> {
        Self::checked(v.into(), false)
    }

    /// From a string, by the number rule.
    pub fn parse(s: &str) -> Result<Self, String> {
        let not = || format!("`{s}` is not a number (decimal, or 0x hex; `_` between digits)");
        let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(h) => (h, 16),
            None => (s, 10),
        };
        if s.starts_with('-') {
            return Err(format!("`{s}` is negative: numbers are never negative"));
        }
        let ok = !digits.is_empty()
            && !digits.starts_with('_')
            && !digits.ends_with('_')
            && digits.chars().all(|c| c == '_' || c.is_digit(radix));
        if !ok {
            return Err(not());
        }
        let mut v: u128 = 0;
        for c in digits.chars().filter(|&c| c != '_') {
            let d = c.to_digit(radix).expect("checked above") as u128;
            v = v
                .checked_mul(radix as u128)
                .and_then(|v| v.checked_add(d))
                .ok_or_else(|| {
                    format!(
                        "`{s}` is out of range (at most {}, {BITS} bits)",
                        Self::show(Self::MAX, radix == 16)
                    )
                })?;
        }
        Self::checked(v, radix == 16)
    }
}

/// The visitor of one number, shared by [`U`] and [`Lanes`].
struct NumVisitor<const BITS: u32>;

impl<'de, const BITS: u32> Visitor<'de> for NumVisitor<BITS> {
    type Value = U<BITS>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(A_NUMBER)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<U<BITS>, E> {
        U::from_u64(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<U<BITS>, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::custom(format_args!(
                "{v} is negative: numbers are never negative"
            ))),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<U<BITS>, E> {
        // Integers up to 2^53 are exact in a double: one of them here was
        // written with a fraction or an exponent (`1e3`, `4.0`).
        const EXACT: f64 = 9_007_199_254_740_992.0;
        if v.fract() == 0.0 && (0.0..=EXACT).contains(&v) {
            Err(E::custom(format_args!(
                "an integer written with a fraction or an exponent (`4.0`, `1e3`): write it as {}",
                v as u64
            )))
        } else if v.fract() == 0.0 && v >= 0.0 {
            Err(E::custom(format_args!(
                "{v} is too large for a JSON number: write it as a string (\"0x…\")"
            )))
        } else if v < 0.0 {
            Err(E::custom(format_args!(
                "{v} is negative: numbers are never negative"
            )))
        } else {
            Err(E::custom(format_args!("{v} is not an integer")))
        }
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<U<BITS>, E> {
        U::parse(v).map_err(E::custom)
    }
}

impl<'de, const BITS: u32> Deserialize<'de> for U<BITS> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumVisitor::<BITS>)
    }
}

/// A value given as a number (by the number rule) or by name: a string that
/// starts with a digit is a number, any other string a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumOrName<const BITS: u32> {
    /// A number.
    Num(U<BITS>),
    /// A name, as written.
    Name(String),
}

struct NumOrNameVisitor<const BITS: u32>;

impl<'de, const BITS: u32> Visitor<'de> for NumOrNameVisitor<BITS> {
    type Value = NumOrName<BITS>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a name, or ")?;
        f.write_str(A_NUMBER)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        NumVisitor.visit_u64(v).map(NumOrName::Num)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        NumVisitor.visit_i64(v).map(NumOrName::Num)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        NumVisitor.visit_f64(v).map(NumOrName::Num)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        if v.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            NumVisitor.visit_str(v).map(NumOrName::Num)
        } else {
            Ok(NumOrName::Name(v.to_string()))
        }
    }
}

impl<'de, const BITS: u32> Deserialize<'de> for NumOrName<BITS> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumOrNameVisitor::<BITS>)
    }
}

/// The most lanes of a wave.
pub const MAX_LANES: usize = 64;

/// A per-lane field: one value for every lane, an array (lane 0 first,
/// missing lanes 0) or an object of lane number → value (`{"40": 7}`,
/// lanes not named 0). Each value a [`U`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lanes<const BITS: u32> {
    /// One value for every lane.
    Every(U<BITS>),
    /// (lane, value) pairs, lanes distinct and below [`MAX_LANES`].
    Each(Vec<(usize, U<BITS>)>),
}

impl<const BITS: u32> Lanes<BITS> {
    /// The values of the lanes of a wave of `lanes` lanes; a lane beyond
    /// the wave is an error naming `path` (so a wave32 never silently
    /// drops a value given for lane 32 or above).
    pub fn resolve(&self, lanes: usize, path: &str) -> Result<[u128; MAX_LANES], String> {
        let mut out = [0u128; MAX_LANES];
        match self {
            Lanes::Every(v) => out[..lanes].fill(v.get()),
            Lanes::Each(vs) => {
                for &(l, v) in vs {
                    if l >= lanes {
                        return Err(at(
                            path,
                            format!(
                                "a value for lane {l}, but a wave{lanes} has lanes 0–{}",
                                lanes - 1
                            ),
                        ));
                    }
                    out[l] = v.get();
                }
            }
        }
        Ok(out)
    }
}

struct LanesVisitor<const BITS: u32>;

impl<'de, const BITS: u32> Visitor<'de> for LanesVisitor<BITS> {
    type Value = Lanes<BITS>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "one value for every lane, an array of up to {MAX_LANES} (lane 0 first) or an object of lane → value; each {A_NUMBER}"
        )
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        NumVisitor.visit_u64(v).map(Lanes::Every)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        NumVisitor.visit_i64(v).map(Lanes::Every)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        NumVisitor.visit_f64(v).map(Lanes::Every)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        NumVisitor.visit_str(v).map(Lanes::Every)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if let Some(n) = seq.size_hint().filter(|&n| n > MAX_LANES) {
            return Err(de::Error::custom(format_args!(
                "{n} values, but a wave has at most {MAX_LANES} lanes"
            )));
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<U<BITS>>()? {
            if out.len() == MAX_LANES {
                return Err(de::Error::custom(format_args!(
                    "more than {MAX_LANES} values, but a wave has at most {MAX_LANES} lanes"
                )));
            }
            out.push((out.len(), v));
        }
        Ok(Lanes::Each(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out: Vec<(usize, U<BITS>)> = Vec::new();
        while let Some(k) = map.next_key::<&str>()? {
            let lane = U::<8>::parse(k)
                .ok()
                .map(|l| l.get() as usize)
                .filter(|&l| l < MAX_LANES)
                .ok_or_else(|| {
                    de::Error::custom(format_args!(
                        "`{k}` is not a lane (a lane number, 0–{})",
                        MAX_LANES - 1
                    ))
                })?;
            if out.iter().any(|&(l, _)| l == lane) {
                return Err(de::Error::custom(format_args!(
                    "lane {lane} is given twice"
                )));
            }
            out.push((lane, map.next_value::<U<BITS>>()?));
        }
        out.sort_by_key(|&(l, _)| l);
        Ok(Lanes::Each(out))
    }
}

impl<'de, const BITS: u32> Deserialize<'de> for Lanes<BITS> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LanesVisitor::<BITS>)
    }
}
