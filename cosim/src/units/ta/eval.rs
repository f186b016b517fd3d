//! `gpucosim eval --unit ta`: what the unit does with one buffer
//! instruction given by name and fields (`docs/ta.md`, section "eval").

use crate::testbench::Evaluator;
use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::isa::{gfx11_format_by_name, gfx9_dfmt_by_name, LANES};
use gpucosim_model::ta::tlm::{coalesce, compute, get_bit, pieces, Pieces};
use gpucosim_model::ta::{Class, FormatEncoding, Instr, Kind, LaneResults, Op, TaParams, VsharpFields};
use gpucosim_model::Profile;
use serde_json::{json, Map, Value};

fn num(v: &Value, what: &str, max: u128) -> Result<u128, String> {
    let x = match v {
        Value::Number(n) => n
            .as_u64()
            .map(|x| x as u128)
            .ok_or_else(|| format!("`{what}`: expected a non-negative integer, got {n}"))?,
        Value::String(s) => {
            let t = s.trim().replace('_', "");
            let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => u128::from_str_radix(h, 16),
                None => t.parse::<u128>(),
            };
            r.map_err(|_| format!("`{what}`: `{s}` is not a number (decimal or 0x hex)"))?
        }
        Value::Bool(b) => *b as u128,
        _ => {
            return Err(format!(
                "`{what}`: expected a number or a hex string, got {v}"
            ))
        }
    };
    if x > max {
        return Err(format!("`{what}`: {x:#x} does not fit (max {max:#x})"));
    }
    Ok(x)
}

fn flag(v: &Value, what: &str) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Number(_) => Ok(num(v, what, 1)? == 1),
        _ => Err(format!("`{what}`: expected true/false, got {v}")),
    }
}

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

fn vsharp_of(profile: Profile, v: &Value) -> Result<u128, String> {
    match v {
        Value::String(_) | Value::Number(_) => num(v, "vsharp", u128::MAX),
        Value::Object(m) => {
            let mut f = VsharpFields::default();
            for (k, x) in m {
                let w = |bits: u32| -> Result<u32, String> {
                    Ok(num(x, &format!("vsharp.{k}"), (1u128 << bits) - 1)? as u32)
                };
                match k.as_str() {
                    "base" => f.base = num(x, "vsharp.base", (1 << 48) - 1)? as u64,
                    "stride" => f.stride = w(14)?,
                    "num_records" => f.num_records = w(32)?,
                    "swizzle_en" | "swizzle_enable" | "swizzle" => {
                        f.swizzle = w(if TaParams::of(profile).format == FormatEncoding::DfmtNfmt { 1 } else { 2 })?
                    }
                    "cache_swizzle" => f.cache_swizzle = w(1)?,
                    "elem_size" => f.elem_size = w(2)?,
                    "index_stride" => f.index_stride = w(2)?,
                    "add_tid" => f.add_tid = flag(x, "vsharp.add_tid")?,
                    "dfmt" | "format" => f.format = format_code(profile, x, true)?,
                    "nfmt" => f.nfmt = w(3)?,
                    "dst_sel" => f.dst_sel = w(12)?,
                    "oob_select" => f.oob_select = w(2)?,
                    "type" => f.rtype = w(2)?,
                    "hash_en" | "heap" => {
                        w(1)?;
                    }
                    _ => return Err(format!("vsharp: unknown field `{k}` (base, stride, num_records, swizzle, cache_swizzle, elem_size, index_stride, add_tid, format/dfmt, nfmt, dst_sel, oob_select, type)")),
                }
            }
            let gfx9 = TaParams::of(profile).format == FormatEncoding::DfmtNfmt;
            if gfx9 && m.contains_key("oob_select") {
                return Err("vsharp.oob_select: gfx9 has no OOB_SELECT".into());
            }
            if !gfx9 && (m.contains_key("elem_size") || m.contains_key("nfmt")) {
                return Err("vsharp: gfx11 has no elem_size/nfmt (swizzle 1 = 4-byte, 3 = 16-byte elements; format is the unified code)".into());
            }
            Ok(f.encode(profile))
        }
        _ => Err("`vsharp`: expected a 128-bit hex string or an object of named fields".into()),
    }
}

/// A format code: gfx9 the dfmt (V#) or `{nfmt, dfmt}` (MTBUF), gfx11 the
/// unified code; by number or LLVM name.
fn format_code(profile: Profile, v: &Value, vsharp: bool) -> Result<u32, String> {
    let gfx9 = TaParams::of(profile).format == FormatEncoding::DfmtNfmt;
    let what = if vsharp { "vsharp.format" } else { "format" };
    match v {
        Value::String(s) if !s.trim_start().starts_with(|c: char| c.is_ascii_digit()) => {
            let found = if gfx9 {
                gfx9_dfmt_by_name(s)
            } else {
                gfx11_format_by_name(s)
            };
            found.ok_or_else(|| {
                format!(
                    "`{what}`: unknown format `{s}` on {profile} (e.g. {})",
                    if gfx9 {
                        "BUF_DATA_FORMAT_32"
                    } else {
                        "BUF_FMT_32_FLOAT"
                    }
                )
            })
        }
        Value::Object(m) if gfx9 && !vsharp => {
            let mut code = 0;
            for (k, x) in m {
                match k.as_str() {
                    "dfmt" => code |= format_code(profile, x, true)?,
                    "nfmt" => code |= (num(x, "format.nfmt", 7)? as u32) << 4,
                    _ => return Err(format!("`format`: unknown field `{k}` (dfmt, nfmt)")),
                }
            }
            Ok(code)
        }
        _ => {
            let max = match (gfx9, vsharp) {
                (true, true) => 15,
                (false, true) => 63,
                _ => 127,
            };
            Ok(num(v, what, max)? as u32)
        }
    }
}

fn lane_values(v: Option<&Value>, what: &str) -> Result<[u32; LANES], String> {
    let mut out = [0u32; LANES];
    match v {
        None => {}
        Some(Value::Array(a)) => {
            if a.len() > LANES {
                return Err(format!("`{what}`: {} values for at most 64 lanes", a.len()));
            }
            for (l, x) in a.iter().enumerate() {
                out[l] = num(x, &format!("{what}[{l}]"), u32::MAX as u128)? as u32;
            }
        }
        Some(x) => out = [num(x, what, u32::MAX as u128)? as u32; LANES],
    }
    Ok(out)
}

fn hex(x: u64) -> Value {
    Value::String(format!("{x:#x}"))
}

fn eval_one(profile: Profile, req: &Value) -> Result<Value, String> {
    let m = req
        .as_object()
        .ok_or_else(|| "each request must be a JSON object".to_string())?;
    const KEYS: &[&str] = &[
        "instr",
        "format",
        "vsharp",
        "offen",
        "idxen",
        "offset",
        "inst_offset",
        "soffset",
        "vindex",
        "voffset",
        "exec",
        "wave64",
        "align_mode",
        "return",
        "glc",
        "lanes",
    ];
    if let Some(k) = m.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown request field `{k}` (known: {})",
            KEYS.join(", ")
        ));
    }
    let name = m.get("instr").and_then(Value::as_str).ok_or_else(|| {
        "missing `instr` (an instruction name, e.g. \"buffer_load_dword\")".to_string()
    })?;
    let (kind, mut op, size) = parse_name(name)?;
    let ret = m.get("return").or_else(|| m.get("glc"));
    if let Some(r) = ret {
        if !op.is_atomic() {
            return Err(format!(
                "`return`/`glc` applies to atomics only, not `{name}`"
            ));
        }
        if flag(r, "return")? {
            op = Op::AtomicRet;
        }
    }
    let fmt = match (kind, m.get("format")) {
        (Kind::Mtbuf, Some(f)) => format_code(profile, f, false)?,
        (Kind::Mtbuf, None) => {
            return Err(format!(
                "`{name}` needs `format` (the instruction's format)"
            ))
        }
        (_, Some(_)) => {
            return Err(format!(
            "`format` is for tbuffer (MTBUF) instructions; `{name}` takes its format from the V#"
        ))
        }
        (_, None) => 0,
    };
    let vsharp = vsharp_of(
        profile,
        m.get("vsharp")
            .ok_or_else(|| "missing `vsharp` (hex string or named fields)".to_string())?,
    )?;
    let get_flag = |k: &str| {
        m.get(k)
            .map(|v| flag(v, k))
            .transpose()
            .map(|b| b.unwrap_or(false))
    };
    let align_mode = match m.get("align_mode") {
        None => 0,
        Some(Value::String(s)) if !s.starts_with(|c: char| c.is_ascii_digit()) => {
            match s.to_ascii_lowercase().as_str() {
                "dword" => 0,
                "dword_strict" => 1,
                "strict" => 2,
                "unaligned" => 3,
                _ => {
                    return Err(format!(
                        "`align_mode`: `{s}` is not dword, dword_strict, strict or unaligned"
                    ))
                }
            }
        }
        Some(v) => num(v, "align_mode", 3)? as u32,
    };
    let wave64 = match m.get("wave64") {
        None => true,
        Some(v) => flag(v, "wave64")?,
    };
    if !wave64 && !profile.wave32() {
        return Err(format!("{profile} has no wave32"));
    }
    let exec_default = if wave64 { u64::MAX } else { 0xFFFF_FFFF };
    let instr = Instr {
        vsharp,
        kind,
        op,
        size,
        fmt,
        offen: get_flag("offen")?,
        idxen: get_flag("idxen")?,
        inst_offset: match m.get("offset").or_else(|| m.get("inst_offset")) {
            Some(v) => num(v, "offset", 4095)? as u32,
            None => 0,
        },
        soffset: match m.get("soffset") {
            Some(v) => num(v, "soffset", u32::MAX as u128)? as u32,
            None => 0,
        },
        align_mode,
        wave64,
        exec: match m.get("exec") {
            Some(v) => num(v, "exec", u64::MAX as u128)? as u64,
            None => exec_default,
        },
        vindex: lane_values(m.get("vindex"), "vindex")?,
        voffset: lane_values(m.get("voffset"), "voffset")?,
    };
    let all_lanes = match m.get("lanes").map(|v| v.as_str()) {
        None | Some(Some("active")) => false,
        Some(Some("all")) => true,
        _ => return Err("`lanes`: \"active\" (default) or \"all\"".into()),
    };

    let mut r = LaneResults::default();
    compute(profile, &instr, &mut r, &mut Events::default());
    let lb = TaParams::of(profile).line_bytes;
    let mut pcs = Pieces::default();
    pieces(&r, lb, &mut pcs);
    let reqs = coalesce(pcs.as_slice(), lb);

    let nlanes = if wave64 { 64 } else { 32 };
    let mut lanes = Vec::new();
    for l in 0..nlanes {
        let active = r.active >> l & 1 != 0;
        if !active && !all_lanes {
            continue;
        }
        let s = r.shape.slots as usize;
        let mut o = Map::new();
        o.insert("lane".into(), json!(l));
        o.insert("active".into(), json!(active));
        o.insert(
            "addr".into(),
            Value::Array((0..s.max(1)).map(|d| hex(r.addr[4 * l + d])).collect()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_json(profile: Profile, input: &Value) -> Result<Value, String> {
        crate::units::each_request(input, evaluator(profile))
    }

    #[test]
    fn eval_seed001_swizzle_example() {
        let req = json!({
            "instr": "buffer_load_dword",
            "vsharp": {"base": "0x1000", "stride": 16, "num_records": 100, "swizzle": 1,
                       "elem_size": 1, "index_stride": 0},
            "idxen": true, "offen": true, "soffset": "0x20",
            "vindex": [10], "voffset": [8], "exec": "0x1"
        });
        let r = eval_json(Profile::Gfx9, &req).unwrap();
        // (10/8*16 + 8/4*4)*8 + 10%8*4 + 8%4 = 200; + base + soffset.
        assert_eq!(r["lanes"][0]["addr"][0], "0x10e8");
        assert_eq!(r["lanes"][0]["in_range"][0], true);
        assert_eq!(r["lines"][0]["addr"], "0x10c0");
        assert_eq!(r["lines"][0]["mask"], format!("{:#x}", 0xFu128 << 40));
        assert_eq!(r["cycles"], 2);
    }

    #[test]
    fn eval_accepts_names_hex_vsharp_and_arrays() {
        let vs = VsharpFields {
            base: 0x4000,
            num_records: 64,
            oob_select: 3,
            ..Default::default()
        };
        let hexv = format!("{:#x}", vs.encode(Profile::Gfx11));
        let req = json!([
            {"instr": "buffer_load_dwordx2", "vsharp": hexv, "offen": true, "voffset": [0, 8, 56, 60], "exec": "0xf"},
            {"instr": "tbuffer_store_format_xyzw", "format": "BUF_FMT_32_32_32_32_FLOAT", "vsharp": hexv, "exec": 1},
            {"instr": "buffer_atomic_cmpswap_x2", "return": true, "vsharp": hexv, "exec": 1},
            {"instr": "buffer_load_short_d16", "vsharp": hexv, "wave64": false}
        ]);
        let r = eval_json(Profile::Gfx11, &req).unwrap();
        // dwordx2 at 60: dword 0 (60+4 <= 64) in, dword 1 (64+4 > 64) out.
        assert_eq!(r[0]["lanes"][3]["in_range"], json!([true, false]));
        assert_eq!(r[0]["lines"].as_array().unwrap().len(), 1);
        assert_eq!(r[1]["access"]["bytes"], 16);
        assert_eq!(r[2]["access"]["class"], "atomic");
        assert_eq!(r[2]["access"]["bytes"], 8);
        assert_eq!(r[3]["lanes"].as_array().unwrap().len(), 32);
        assert_eq!(r[3]["access"]["bytes"], 2);
    }

    #[test]
    fn eval_errors_are_one_line() {
        let cases = [
            json!({"instr": "buffer_load_qword", "vsharp": "0x0"}),
            json!({"instr": "tbuffer_load_format_x", "vsharp": "0x0"}),
            json!({"instr": "buffer_load_dword", "vsharp": {"bogus": 1}}),
            json!({"instr": "buffer_load_dword", "vsharp": "0xzz"}),
            json!({"instr": "buffer_load_dword", "vsharp": "0x0", "voffset": [-1]}),
            json!({"instr": "buffer_load_dword", "vsharp": "0x0", "offset": 4096}),
            json!({"instr": "buffer_load_dword", "vsharp": "0x0", "wave64": false}),
            json!({"instr": "buffer_load_dword", "vsharp": {"oob_select": 1}}),
            json!({"instr": "buffer_store_ubyte", "vsharp": "0x0"}),
            json!({"vsharp": "0x0"}),
            json!(3),
            json!([{"instr": "buffer_load_dword", "vsharp": "0x0", "typo": 1}]),
        ];
        for c in cases {
            let e = eval_json(Profile::Gfx9, &c).expect_err(&c.to_string());
            assert!(!e.is_empty() && !e.contains('\n'), "{e}");
        }
    }
}
