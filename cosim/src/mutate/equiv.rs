//! Cheap proofs that a surviving mutant is equivalent to the RTL as
//! written.
//!
//! A mutant whose changed expression depends on nothing but literals and
//! the profile parameter `GFX` has one value on a profile, before and
//! after the change; if the two values are equal, no stimulus can tell the
//! mutant apart (e.g. `GFX >= 11` against `GFX > 11`... on a profile where
//! GFX is 9 both are false). The proof is per profile. Anything else (a
//! signal, a function call, a parameter computed by a function) is not
//! evaluated: such a survivor stays a survivor, to be diagnosed by hand.
//!
//! Second, Verilator's optimiser: the mutant and the RTL as written are
//! Verilated to C++ with the options of a model build (loops not
//! unrolled, as `GPUCOSIM_BUILD=quick` builds); if the two outputs
//! are the same text (the RTL's directory aside), they are the same
//! model, so no stimulus can tell them apart. This proves, e.g., a change
//! under a parameter that folds to a constant (`!x || HasVs` where `HasVs`
//! is 1) or an OR with a bit that is already set; it does not prove
//! invariants of registers (a counter a profile never increments) or
//! assignments that are always overwritten, which stay survivors.
//! A formal check (e.g. Yosys `equiv_*`) would prove more; Yosys 0.23 and
//! 0.70 reject the built-in RTL's SystemVerilog (multi-dimensional packed
//! types, functions returning typedefs), so none is run.

use super::gen::{Mutant, Unit};
use crate::error::{Error, Result};
use crate::rtlbuild::{self, RtlSources};
use crate::verilator::Verilator;
use gpucosim_model::ports::PortTable;
use gpucosim_model::Profile;
use std::collections::BTreeMap;

/// The C++ Verilator makes of a unit's sources, file by file, with the
/// RTL's directory replaced by a placeholder.
pub type Verilated = BTreeMap<String, String>;

/// Verilates `files` (the unit's sources by name) as a model build would.
pub fn verilate(
    files: &BTreeMap<String, String>,
    table: &PortTable,
    profile: Profile,
    verilator: &Verilator,
) -> Result<Option<Verilated>> {
    let dir = tempfile::Builder::new()
        .prefix("gpucosim-equiv-")
        .tempdir()
        .map_err(|e| Error::Env(format!("cannot create a temporary directory: {e}")))?;
    let root = dir.path().join("rtl");
    let unit_dir = root.join(table.unit);
    std::fs::create_dir_all(&unit_dir).map_err(|e| Error::io(&unit_dir, e))?;
    for (n, t) in files {
        let p = unit_dir.join(n);
        std::fs::write(&p, t).map_err(|e| Error::io(&p, e))?;
    }
    let sources = RtlSources::collect(&root, table.unit)?;
    let out = dir.path().join("obj");
    // Loops are not unrolled: the same folding of constants and parameters,
    // in a fraction of the time (half a second against ten for lds).
    let flavor = rtlbuild::Flavor::Quick;
    if rtlbuild::verilate_cpp(table, profile, &sources, verilator, &out, flavor)?.is_some() {
        return Ok(None);
    }
    let prefix = dir.path().display().to_string();
    let mut v = Verilated::new();
    for e in std::fs::read_dir(&out).map_err(|e| Error::io(&out, e))? {
        let p = e.map_err(|e| Error::io(&out, e))?.path();
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !(name.ends_with(".cpp") || name.ends_with(".h")) {
            continue;
        }
        let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
        v.insert(name, text.replace(&prefix, "@RTL@"));
    }
    Ok(Some(v))
}

/// A proof that mutant `m` is equivalent on `profile` because Verilator
/// makes the same C++ of it as of the RTL as written (`original`).
pub fn prove_by_verilator(
    unit: &Unit,
    m: &Mutant,
    original: &Verilated,
    table: &PortTable,
    profile: Profile,
    verilator: &Verilator,
) -> Result<Option<String>> {
    let mutated = verilate(&unit.apply(m.id), table, profile, verilator)?;
    Ok((mutated.as_ref() == Some(original)).then(|| {
        format!(
            "Verilator's optimiser makes the same C++ of it as of the RTL as written (GFX={})",
            profile.gfx()
        )
    }))
}

/// A proof that `m` is equivalent on `profile`, if one is found.
pub fn prove(unit: &Unit, m: &Mutant, profile: Profile) -> Option<String> {
    let [e] = &m.edits[..] else { return None };
    if e.stmt {
        return None;
    }
    let src = &unit.files[&m.file][e.start..e.end];
    let env = |name: &str| (name == "GFX").then_some(profile.gfx() as i128);
    let a = eval(src, &env)?;
    let b = eval(&e.text, &env)?;
    (a == b).then(|| {
        format!(
            "`{}` and `{}` both evaluate to {a} with GFX={}",
            src.trim(),
            e.text.trim(),
            profile.gfx()
        )
    })
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i128),
    Id(String),
    Op(&'static str),
}

const OPS: &[&str] = &[
    "<<<", ">>>", "===", "!==", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "(", ")", "!", "~",
    "+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "?", ":",
];

fn lex(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || c == '\'' {
            let st = i;
            while i < b.len()
                && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'\'' || b[i] == b'_')
            {
                i += 1;
            }
            out.push(Tok::Num(literal(&s[st..i])?));
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Id(s[st..i].to_string()));
            continue;
        }
        let op = OPS.iter().find(|o| s[i..].starts_with(**o))?;
        out.push(Tok::Op(op));
        i += op.len();
    }
    Some(out)
}

fn literal(t: &str) -> Option<i128> {
    let t: String = t.chars().filter(|c| *c != '_').collect();
    match t.split_once('\'') {
        None => t.parse().ok(),
        Some((_, rest)) => {
            let rest = rest.trim_start_matches(['s', 'S']);
            let base = rest.get(..1)?;
            let digits = &rest[1..];
            let radix = match base.to_ascii_lowercase().as_str() {
                "d" => 10,
                "h" => 16,
                "b" => 2,
                "o" => 8,
                _ => return None,
            };
            i128::from_str_radix(digits, radix).ok()
        }
    }
}

struct P<'a> {
    t: Vec<Tok>,
    i: usize,
    env: &'a dyn Fn(&str) -> Option<i128>,
}

#[doc(hidden)]
pub fn eval(s: &str, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
    let mut p = P {
        t: lex(s)?,
        i: 0,
        env,
    };
    let v = p.ternary()?;
    (p.i == p.t.len()).then_some(v)
}

fn prec(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" | "===" | "!==" => 6,
        "<" | "<=" | ">" | ">=" => 7,
        "<<" | ">>" | "<<<" | ">>>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek()
            == Some(&Tok::Op(
                OPS.iter().find(|o| **o == op).copied().unwrap_or(""),
            ))
        {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Option<i128> {
        let c = self.binary(1)?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return None;
            }
            let b = self.ternary()?;
            return Some(if c != 0 { a } else { b });
        }
        Some(c)
    }

    fn binary(&mut self, min: u8) -> Option<i128> {
        let mut l = self.unary()?;
        while let Some(Tok::Op(op)) = self.peek().cloned() {
            let Some(p) = prec(op) else { break };
            if p < min {
                break;
            }
            self.i += 1;
            let r = self.binary(p + 1)?;
            l = match op {
                "||" => ((l != 0) || (r != 0)) as i128,
                "&&" => ((l != 0) && (r != 0)) as i128,
                "|" => l | r,
                "^" => l ^ r,
                "&" => l & r,
                "==" | "===" => (l == r) as i128,
                "!=" | "!==" => (l != r) as i128,
                "<" => (l < r) as i128,
                "<=" => (l <= r) as i128,
                ">" => (l > r) as i128,
                ">=" => (l >= r) as i128,
                "<<" | "<<<" => l.checked_shl(u32::try_from(r).ok()?)?,
                ">>" | ">>>" => l.checked_shr(u32::try_from(r).ok()?)?,
                "+" => l.checked_add(r)?,
                "-" => l.checked_sub(r)?,
                "*" => l.checked_mul(r)?,
                "/" => l.checked_div(r)?,
                "%" => l.checked_rem(r)?,
                _ => return None,
            };
        }
        Some(l)
    }

    fn unary(&mut self) -> Option<i128> {
        match self.peek().cloned()? {
            Tok::Op("!") => {
                self.i += 1;
                Some((self.unary()? == 0) as i128)
            }
            Tok::Op("-") => {
                self.i += 1;
                self.unary()?.checked_neg()
            }
            Tok::Op("+") => {
                self.i += 1;
                self.unary()
            }
            Tok::Op("(") => {
                self.i += 1;
                let v = self.ternary()?;
                self.eat(")").then_some(v)
            }
            Tok::Num(n) => {
                self.i += 1;
                Some(n)
            }
            Tok::Id(name) => {
                self.i += 1;
                (self.env)(&name)
            }
            // `~` needs a width; not evaluated.
            _ => None,
        }
    }
}
