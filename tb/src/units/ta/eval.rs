//! `gpucosim eval --unit ta`: what the unit does with one buffer
//! instruction given by name and fields (`docs/ta.md`, section "eval").

use crate::testbench::Evaluator;
use crate::units::input::{at, from_value, Lanes, NumOrName, U};
use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::isa::{gfx11_format_by_name, gfx9_dfmt_by_name, ALIGN_MODES};
use gpucosim_model::ta::tlm::{coalesce, compute, get_bit, pieces, Pieces};
use gpucosim_model::ta::{
    Class, FormatEncoding, Instr, Kind, LaneResults, Op, TaParams, VsharpFields,
};
use gpucosim_model::Profile;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// (kind, op, size) of an instruction name; atomics get `Op::Atomic` here.
fn parse_name(name: &str) -> Result<(Kind, Op, u32), String> {
    let n = name.trim().to_ascii_lowercase();
    let bad = || {
        format!("unknown instruction `{name}` (e.g. buffer_load_dwordx2, buffer_store_byte, buffer_load_format_xyzw, tbuffer_store_format_x, buffer_atomic_add, buffer_atomic_cmpswap_x2, buffer_load_short_d16)")
    };
    if let Some(a) = n.strip_prefix("buffer_atomic_") {
        if a.is_empty() || !a.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Err(bad());
        }
        let wide = a.ends_with("_x2") || a.ends_with("64");
        return Ok((Kind::Mubuf, Op::Atomic, if wide { 8 } else { 4 }));
    }
    let (kind, rest) = if let Some(r) = n.strip_prefix("tbuffer_") {
        (Kind::Mtbuf, r)
    } else if let Some(r) = n.strip_prefix("buffer_") {
        (Kind::Mubuf, r)
    } else {
        return Err(bad());
    };
    let (op, rest) = if let Some(r) = rest.strip_prefix("load_") {
        (Op::Load, r)
    } else if let Some(r) = rest.strip_prefix("store_") {
        (Op::Store, r)
    } else {
        return Err(bad());
    };
    if let Some(c) = rest.strip_prefix("format_") {
        let c = c
            .strip_prefix("d16_hi_")
            .or_else(|| c.strip_prefix("d16_"))
            .unwrap_or(c);
        if !["x", "xy", "xyz", "xyzw"].contains(&c) {
            return Err(bad());
        }
        let kind = if kind == Kind::Mtbuf {
            Kind::Mtbuf
        } else {
            Kind::MubufFormat
        };
        return Ok((kind, op, 0));
    }
    if kind == Kind::Mtbuf {
        return Err(bad());
    }
    let size = match rest {
        "ubyte" | "sbyte" | "u8" | "i8" | "byte" | "b8" | "ubyte_d16" | "ubyte_d16_hi"
        | "sbyte_d16" | "sbyte_d16_hi" | "byte_d16_hi" | "d16_u8" | "d16_i8" | "d16_hi_u8"
        | "d16_hi_i8" | "d16_hi_b8" => 1,
        "ushort" | "sshort" | "u16" | "i16" | "short" | "b16" | "short_d16" | "short_d16_hi"
        | "d16_b16" | "d16_hi_b16" => 2,
        "dword" | "b32" => 4,
        "dwordx2" | "b64" => 8,
        "dwordx3" | "b96" => 12,
        "dwordx4" | "b128" => 16,
        _ => return Err(bad()),
    };
    // Signed/unsigned and store/load spellings must match the direction.
    let load_only = [
        "ubyte", "sbyte", "u8", "i8", "ushort", "sshort", "u16", "i16",
    ];
    let store_only = ["byte", "b8", "short", "b16", "byte_d16_hi", "d16_hi_b8"];
    if (op == Op::Store
        && (load_only.contains(&rest) || rest.contains("byte_d16") && rest != "byte_d16_hi"))
        || (op == Op::Load && store_only.contains(&rest))
    {
        return Err(bad());
    }
    Ok((kind, op, size))
}

/// A request (`docs/ta.md`, "eval"): typed by serde, numbers by the one
/// number rule ([`U`]), flags `true`/`false`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    instr: Option<String>,
    vsharp: Option<Value>,
    format: Option<Value>,
    #[serde(default)]
    offen: bool,
    #[serde(default)]
    idxen: bool,
    #[serde(alias = "inst_offset")]
    offset: Option<U<12>>,
    soffset: Option<U<32>>,
    vindex: Option<Lanes<32>>,
    voffset: Option<Lanes<32>>,
    exec: Option<U<64>>,
    #[serde(default = "yes")]
    wave64: bool,
    align_mode: Option<NumOrName<2>>,
    #[serde(alias = "glc")]
    r#return: Option<bool>,
    #[serde(default)]
    lanes: ListLanes,
}

fn yes() -> bool {
    true
}

/// Which lanes the result lists.
#[derive(Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum ListLanes {
    /// The active lanes.
    #[default]
    Active,
    /// Every lane of the wave.
    All,
}

/// The V# as named fields (SPEC §1.1), each the field's raw value. A
/// field the profile lacks is an error ([`VsharpIn::check`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VsharpIn {
    base: Option<U<48>>,
    stride: Option<U<14>>,
    num_records: Option<U<32>>,
    #[serde(alias = "swizzle_en", alias = "swizzle_enable")]
    swizzle: Option<U<2>>,
    cache_swizzle: Option<U<1>>,
    elem_size: Option<U<2>>,
    index_stride: Option<U<2>>,
    add_tid: Option<U<1>>,
    #[serde(alias = "dfmt")]
    format: Option<NumOrName<6>>,
    nfmt: Option<U<3>>,
    dst_sel: Option<U<12>>,
    oob_select: Option<U<2>>,
    #[serde(rename = "type")]
    rtype: Option<U<2>>,
    hash_en: Option<U<1>>,
    heap: Option<U<1>>,
}

impl VsharpIn {
    /// The fields present that `profile`'s V# does not have.
    fn check(&self, profile: Profile) -> Result<(), String> {
        let gfx9 = is_gfx9(profile);
        let only = |present: bool, name: &str, on_gfx9: bool| -> Result<(), String> {
            if present && on_gfx9 != gfx9 {
                return Err(at(
                    &format!("vsharp.{name}"),
                    format!("{profile}'s V# has no {name} (SPEC §1.1)"),
                ));
            }
            Ok(())
        };
        only(self.cache_swizzle.is_some(), "cache_swizzle", true)?;
        only(self.elem_size.is_some(), "elem_size", true)?;
        only(self.nfmt.is_some(), "nfmt", true)?;
        only(self.hash_en.is_some(), "hash_en", true)?;
        only(self.heap.is_some(), "heap", true)?;
        only(self.oob_select.is_some(), "oob_select", false)?;
        Ok(())
    }

    fn fields(&self, profile: Profile) -> Result<VsharpFields, String> {
        self.check(profile)?;
        let swizzle = match self.swizzle {
            None => 0,
            Some(s) if is_gfx9(profile) => s.at_most(1, "vsharp.swizzle", " on gfx9")? as u32,
            Some(s) => s.u32(),
        };
        Ok(VsharpFields {
            base: self.base.map_or(0, U::u64),
            stride: self.stride.map_or(0, U::u32),
            num_records: self.num_records.map_or(0, U::u32),
            swizzle,
            cache_swizzle: self.cache_swizzle.map_or(0, U::u32),
            elem_size: self.elem_size.map_or(0, U::u32),
            index_stride: self.index_stride.map_or(0, U::u32),
            add_tid: self.add_tid.is_some_and(|v| v.get() == 1),
            format: match &self.format {
                None => 0,
                Some(f) => format_code(profile, f, Place::Vsharp)?,
            },
            nfmt: self.nfmt.map_or(0, U::u32),
            dst_sel: self.dst_sel.map_or(0, U::u32),
            oob_select: self.oob_select.map_or(0, U::u32),
            rtype: self.rtype.map_or(0, U::u32),
        })
    }
}

fn is_gfx9(profile: Profile) -> bool {
    TaParams::of(profile).format == FormatEncoding::DfmtNfmt
}

/// The 128-bit V# of a request: a number (a hex string) or named fields.
fn vsharp_of(profile: Profile, v: &Value) -> Result<u128, String> {
    match v {
        Value::Object(_) => Ok(from_value::<VsharpIn>(v, "vsharp")?
            .fields(profile)?
            .encode(profile)),
        _ => from_value::<U<128>>(v, "vsharp")
            .map(U::get)
            .map_err(|e| format!("{e} (the V# is a 128-bit number or an object of named fields)")),
    }
}

/// Where a format code is given: the V#'s `format` field, or a tbuffer
/// instruction's `format` (gfx9 `{nfmt, dfmt}` or dfmt; gfx11 the code).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Vsharp,
    Instr,
    /// The `dfmt` of an instruction's `{"dfmt", "nfmt"}`.
    InstrDfmt,
}

impl Place {
    fn path(self) -> &'static str {
        match self {
            Place::Vsharp => "vsharp.format",
            Place::Instr => "format",
            Place::InstrDfmt => "format.dfmt",
        }
    }
}

/// A format code by number or LLVM name: gfx9 a dfmt (or `{nfmt, dfmt}`
/// for a tbuffer's 7-bit format), gfx11 the unified code.
fn format_code<const B: u32>(
    profile: Profile,
    v: &NumOrName<B>,
    place: Place,
) -> Result<u32, String> {
    let gfx9 = is_gfx9(profile);
    match v {
        NumOrName::Name(s) => {
            let found = if gfx9 {
                gfx9_dfmt_by_name(s)
            } else {
                gfx11_format_by_name(s)
            };
            found.ok_or_else(|| {
                let eg = if gfx9 {
                    "BUF_DATA_FORMAT_32"
                } else {
                    "BUF_FMT_32_FLOAT"
                };
                at(
                    place.path(),
                    format!("unknown format `{s}` on {profile} (e.g. {eg})"),
                )
            })
        }
        NumOrName::Num(n) => {
            let (max, why) = match (gfx9, place) {
                (true, Place::Instr) => (127, " on gfx9: {nfmt, dfmt}"),
                (true, _) => (15, " on gfx9: a dfmt"),
                (false, Place::Vsharp) => (63, " on gfx11"),
                (false, _) => (127, " on gfx11"),
            };
            Ok(n.at_most(max, place.path(), why)? as u32)
        }
    }
}

/// gfx9 MTBUF `format` as `{dfmt, nfmt}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Gfx9Format {
    dfmt: Option<NumOrName<4>>,
    nfmt: Option<U<3>>,
}

/// A tbuffer instruction's `format`.
fn instr_format(profile: Profile, v: &Value) -> Result<u32, String> {
    if v.is_object() && is_gfx9(profile) {
        let f: Gfx9Format = from_value(v, "format")?;
        let dfmt = match &f.dfmt {
            Some(d) => format_code(profile, d, Place::InstrDfmt)?,
            None => 0,
        };
        return Ok(dfmt | f.nfmt.map_or(0, U::u32) << 4);
    }
    let f: NumOrName<7> = from_value(v, "format")?;
    format_code(profile, &f, Place::Instr)
}

fn hex(x: u64) -> Value {
    Value::String(format!("{x:#x}"))
}

fn eval_one(profile: Profile, req: &Value) -> Result<Value, String> {
    let q: Request = from_value(req, "")?;
    let name = q.instr.as_deref().ok_or_else(|| {
        "missing `instr` (an instruction name, e.g. \"buffer_load_dword\")".to_string()
    })?;
    let (kind, mut op, size) = parse_name(name)?;
    if let Some(r) = q.r#return {
        if !op.is_atomic() {
            return Err(format!(
                "`return`/`glc` applies to atomics only, not `{name}`"
            ));
        }
        if r {
            op = Op::AtomicRet;
        }
    }
    let fmt = match (kind, &q.format) {
        (Kind::Mtbuf, Some(f)) => instr_format(profile, f)?,
        (Kind::Mtbuf, None) => {
            return Err(format!(
                "`{name}` needs `format` (the instruction's format)"
            ))
        }
        (_, Some(_)) => return Err(format!(
            "`format` is for tbuffer (MTBUF) instructions; `{name}` takes its format from the V#"
        )),
        (_, None) => 0,
    };
    let vsharp = vsharp_of(
        profile,
        q.vsharp
            .as_ref()
            .ok_or_else(|| "missing `vsharp` (hex string or named fields)".to_string())?,
    )?;
    let align_mode = match &q.align_mode {
        None => 0,
        Some(NumOrName::Num(n)) => n.u32(),
        Some(NumOrName::Name(s)) => match ALIGN_MODES.iter().position(|m| m == s) {
            Some(m) => m as u32,
            None => {
                return Err(at(
                    "align_mode",
                    format!("`{s}` is not 0–3 or one of {}", ALIGN_MODES.join(", ")),
                ))
            }
        },
    };
    let wave64 = q.wave64;
    if !wave64 && !profile.wave32() {
        return Err(at("wave64", format!("{profile} has no wave32")));
    }
    let nlanes = if wave64 { 64 } else { 32 };
    let wave_mask = if wave64 { u64::MAX } else { 0xFFFF_FFFF };
    let exec = match q.exec {
        Some(e) => e.at_most(wave_mask.into(), "exec", &format!(" for a wave{nlanes}"))? as u64,
        None => wave_mask,
    };
    let lane_values = |l: &Option<Lanes<32>>, path: &str| -> Result<[u32; 64], String> {
        let mut out = [0u32; 64];
        if let Some(l) = l {
            for (o, v) in out.iter_mut().zip(l.resolve(nlanes, path)?) {
                *o = v as u32;
            }
        }
        Ok(out)
    };
    let instr = Instr {
        vsharp,
        kind,
        op,
        size,
        fmt,
        offen: q.offen,
        idxen: q.idxen,
        inst_offset: q.offset.map_or(0, U::u32),
        soffset: q.soffset.map_or(0, U::u32),
        align_mode,
        wave64,
        exec,
        vindex: lane_values(&q.vindex, "vindex")?,
        voffset: lane_values(&q.voffset, "voffset")?,
    };
    let all_lanes = q.lanes == ListLanes::All;

    let mut r = LaneResults::default();
    compute(profile, &instr, &mut r, &mut Events::default());
    let lb = TaParams::of(profile).line_bytes;
    let mut pcs = Pieces::default();
    pieces(&r, lb, &mut pcs);
    let reqs = coalesce(pcs.as_slice(), lb);

    let mut lanes = Vec::new();
    for l in 0..nlanes {
        let active = r.active >> l & 1 != 0;
        if !active && !all_lanes {
            continue;
        }
        // One entry per slot of the access: none for an invalid format.
        let s = r.shape.slots as usize;
        let mut o = Map::new();
        o.insert("lane".into(), json!(l));
        o.insert("active".into(), json!(active));
        o.insert(
            "addr".into(),
            Value::Array((0..s).map(|d| hex(r.addr[4 * l + d])).collect()),
        );
        o.insert(
            "in_range".into(),
            json!((0..s)
                .map(|d| get_bit(&r.inrange, 4 * l + d))
                .collect::<Vec<_>>()),
        );
        o.insert(
            "access".into(),
            json!((0..s)
                .map(|d| get_bit(&r.access, 4 * l + d))
                .collect::<Vec<_>>()),
        );
        o.insert("memviol".into(), json!(r.memviol >> l & 1 != 0));
        lanes.push(Value::Object(o));
    }
    let class = match r.shape.class {
        Class::NonFormat => "non-format",
        Class::Format => "format",
        Class::Atomic => "atomic",
    };
    let lines: Vec<Value> = reqs
        .iter()
        .map(|q| json!({"addr": hex(q.addr), "mask": format!("{:#x}", q.mask), "last": q.last}))
        .collect();
    Ok(json!({
        "instr": name,
        "profile": profile.name(),
        "access": {
            "class": class,
            "bytes": r.shape.bytes,
            "dwords": r.shape.slots,
            "dword_bytes": r.shape.slot_bytes,
            "valid_format": r.shape.slots > 0,
        },
        "lanes": lanes,
        "lines": lines,
        "cycles": reqs.len().max(1) + 1,
    }))
}

/// `gpucosim eval --unit ta` on `profile`: one request object in, its
/// result out (schema in `docs/ta.md`, section "eval"). Errors are one line
/// naming the problem.
pub fn evaluator(profile: Profile) -> Evaluator {
    Box::new(move |r| eval_one(profile, r))
}
