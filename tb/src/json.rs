//! JSON that a user wrote, read with every object's keys distinct.
//! `serde_json::Value` keeps the last value of a key given twice, so a
//! request or launch file with `"exec": 1, …, "exec": 3` would run with 3
//! and drop the 1 without a word; [`Strict`] refuses it instead, naming
//! the key, with the position where it is repeated.

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// A JSON value whose objects, at every depth, name each key once.
#[derive(Debug, Clone, PartialEq)]
pub struct Strict(pub Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(Strict(x)) = seq.next_element()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if m.contains_key(&k) {
                return Err(A::Error::custom(format!("{}{k}{}", TWICE.0, TWICE.1)));
            }
            let Strict(v) = map.next_value()?;
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// Reads `text` as one JSON value, each object's keys distinct.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

/// What is wrong with a text read as [`Strict`] JSON, worded to follow
/// the name of what was read: `is not JSON: …` for text that is not JSON,
/// else the problem itself (`gives key `k` twice at …`).
pub fn what_is_wrong(e: &impl fmt::Display) -> String {
    let m = e.to_string();
    if m.starts_with(TWICE.0) && m.contains(TWICE.1) {
        m
    } else {
        format!("is not JSON: {m}")
    }
}

/// The words around the key of [`Strict`]'s error for a key given twice.
const TWICE: (&str, &str) = ("gives key `", "` twice");
