//! `gpucosim eval --unit lds`: requests run in order on one LDS
//! (`docs/lds.md`, section "`gpucosim eval --unit lds`").

use crate::testbench::Evaluator;
use gpucosim_model::lds::isa::{self, PLAIN_NAMES};
use gpucosim_model::lds::tlm::{geometry, Lds, Request, LANES, SLOTS};
use gpucosim_model::Profile;
use serde_json::{json, Map, Value};

const FIELDS: &[&str] = &[
    "op",
    "wave64",
    "mode",
    "unaligned",
    "exec",
    "addr",
    "data0",
    "data1",
    "offset",
    "offset0",
    "offset1",
    "m0",
    "lds_size",
    "lds_base",
    "memory",
];

fn num(v: &Value, what: &str) -> Result<u64, String> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| format!("`{what}`: expected a non-negative integer, got {n}")),
        Value::String(s) => {
            let t = s.trim().replace('_', "");
            let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => t.parse::<u64>(),
            };
            r.map_err(|_| {
                format!("`{what}`: `{s}` is not a non-negative number (decimal or 0x hex)")
            })
        }
        _ => Err(format!(
            "`{what}` must be a number or a numeric string, got {v}"
        )),
    }
}

fn bounded(v: &Value, what: &str, max: u64) -> Result<u64, String> {
    let n = num(v, what)?;
    if n > max {
        return Err(format!("`{what}` = {n} is out of range (at most {max})"));
    }
    Ok(n)
}

fn per_lane(v: Option<&Value>, what: &str, max: u64) -> Result<[u64; LANES], String> {
    let mut out = [0u64; LANES];
    match v {
        None => {}
        Some(Value::Array(a)) => {
            if a.len() > LANES {
                return Err(format!("`{what}` has {} entries, at most {LANES}", a.len()));
            }
            for (l, x) in a.iter().enumerate() {
                out[l] = bounded(x, &format!("{what}[{l}]"), max)?;
            }
        }
        Some(x) => out = [bounded(x, what, max)?; LANES],
    }
    Ok(out)
}

fn hex(v: u128) -> String {
    format!("{v:#x}")
}

fn parse_request(profile: Profile, v: &Value) -> Result<(Request, Vec<(u32, u32)>), String> {
    let o = v.as_object().ok_or("each request must be a JSON object")?;
    if let Some(k) = o.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "unknown field `{k}` (expected: {})",
            FIELDS.join(", ")
        ));
    }
    let name = o
        .get("op")
        .and_then(Value::as_str)
        .ok_or("missing `op` (an op name such as \"ds_read_b32\")")?;
    let code = isa::code_of(name).ok_or_else(|| {
        let plain: Vec<&str> = PLAIN_NAMES.iter().map(|(n, _)| *n).collect();
        format!(
            "unknown op `{name}` (expected one of {} or an atomic such as ds_add_rtn_u32, ds_cmpst_b32)",
            plain.join(", ")
        )
    })?;
    let gfx11 = profile.wave32();
    let flag = |k: &str, d: bool| -> Result<bool, String> {
        match o.get(k) {
            None => Ok(d),
            Some(Value::Bool(b)) => Ok(*b),
            Some(x) => Err(format!("`{k}` must be true or false, got {x}")),
        }
    };
    let wave64 = flag("wave64", true)?;
    if !gfx11 && !wave64 {
        return Err("gfx9 has no wave32 (`wave64` must be true)".into());
    }
    let wgp = match o.get("mode").map(|m| m.as_str()) {
        None => true,
        Some(Some("wgp")) => true,
        Some(Some("cu")) if gfx11 => false,
        Some(Some("cu")) => return Err("gfx9 has no CU/WGP mode (omit `mode`)".into()),
        Some(_) => return Err("`mode` must be \"wgp\" or \"cu\"".into()),
    };
    let (_, ram_dw) = geometry(profile, wgp);
    let mut r = Request {
        op: code,
        wave64,
        wgp,
        unaligned: flag("unaligned", false)?,
        exec: match o.get("exec") {
            Some(x) => num(x, "exec")?,
            None if wave64 => u64::MAX,
            None => 0xFFFF_FFFF,
        },
        ..Request::default()
    };
    if let Some(x) = o.get("offset") {
        if o.contains_key("offset0") || o.contains_key("offset1") {
            return Err("give either `offset` or `offset0`/`offset1`, not both".into());
        }
        let off = bounded(x, "offset", 0xFFFF)?;
        r.offset0 = off as u8;
        r.offset1 = (off >> 8) as u8;
    }
    if let Some(x) = o.get("offset0") {
        r.offset0 = bounded(x, "offset0", 255)? as u8;
    }
    if let Some(x) = o.get("offset1") {
        r.offset1 = bounded(x, "offset1", 255)? as u8;
    }
    if let Some(x) = o.get("m0") {
        r.m0 = bounded(x, "m0", u32::MAX.into())? as u32;
    }
    r.lds_size = match o.get("lds_size") {
        Some(x) => bounded(x, "lds_size", 0x3FFFF)? as u32,
        None => ram_dw * 4,
    };
    if let Some(x) = o.get("lds_base") {
        r.lds_base = bounded(x, "lds_base (256-byte blocks)", 511)? as u16;
    }
    let addr = per_lane(o.get("addr"), "addr", u32::MAX.into())?;
    for (dst, a) in r.addr.iter_mut().zip(addr) {
        *dst = a as u32;
    }
    r.data0 = per_lane(o.get("data0"), "data0", u64::MAX)?;
    r.data1 = per_lane(o.get("data1"), "data1", u64::MAX)?;
    let mut mem = Vec::new();
    match o.get("memory") {
        None => {}
        Some(Value::Object(m)) => {
            for (k, x) in m {
                let a = num(&Value::String(k.clone()), "memory address")?;
                if a % 4 != 0 || a >= u64::from(ram_dw) * 4 {
                    return Err(format!(
                        "memory address {k} must be a dword-aligned byte address below {:#x}",
                        ram_dw * 4
                    ));
                }
                mem.push((
                    a as u32,
                    bounded(x, &format!("memory[{k}]"), u32::MAX.into())? as u32,
                ));
            }
        }
        Some(_) => return Err("`memory` must be an object of byte address → dword value".into()),
    }
    Ok((r, mem))
}

fn run_one(lds: &mut Lds, profile: Profile, v: &Value) -> Result<Value, String> {
    let (r, mem) = parse_request(profile, v)?;
    let (_, ram_dw) = geometry(profile, r.wgp);
    let phys =
        |dword: u32| ((u32::from(r.lds_base) * 64).wrapping_add(dword) & (ram_dw - 1)) as usize;
    for &(a, x) in &mem {
        lds.ram[phys(a / 4)] = x;
    }
    let mut schedule = Vec::new();
    let cycles = lds.run(&r, |s| {
        let mut grants = Vec::new();
        for i in s.served() {
            let sl = s.slot(i);
            grants.push(json!(format!(
                "lane{}.k{} bank{} {:#x}",
                i / SLOTS,
                i % SLOTS,
                sl.bank,
                u64::from(sl.dword) * 4
            )));
        }
        schedule.push(json!({
            "cycle": schedule.len() + 1,
            "pass": s.pass(),
            "lanes": hex(s.grant_lanes.into()),
            "banks": hex(s.grant_banks.into()),
            "grants": grants,
        }));
    });
    let info = lds.info();
    let active = lds.active();
    let mut lanes = Vec::new();
    let mut touched = std::collections::BTreeMap::new();
    for l in 0..LANES {
        let is_active = active >> l & 1 != 0;
        if !is_active && lds.out.memviol >> l & 1 == 0 {
            continue;
        }
        let mut e = Map::new();
        e.insert("lane".into(), json!(l));
        if info.rtn {
            e.insert("data".into(), json!(hex(lds.out.rdata[l])));
        }
        if lds.out.oor[l] != 0 {
            e.insert("oor_slots".into(), json!(lds.out.oor[l]));
        }
        if lds.out.memviol >> l & 1 != 0 {
            e.insert("memviol".into(), json!(true));
        }
        lanes.push(Value::Object(e));
        for k in 0..SLOTS {
            let s = lds.slot(SLOTS * l + k);
            if s.exists && !s.oor {
                touched.insert(s.dword, lds.ram[s.phys as usize]);
            }
        }
    }
    let memory: Map<String, Value> = touched
        .into_iter()
        .map(|(d, x)| (hex(u128::from(d) * 4), json!(hex(x.into()))))
        .collect();
    Ok(json!({
        "op": isa::name_of(info.code, profile).unwrap_or_else(|| "invalid".into()),
        "cycles": cycles,
        "memviol": hex(lds.out.memviol.into()),
        "lanes": lanes,
        "schedule": schedule,
        "memory": memory,
    }))
}

/// `gpucosim eval --unit lds` on `profile`: runs requests in order on one
/// LDS (memory carries over from request to request) and returns, per
/// request, per-lane results, the cycle count, the per-cycle grant schedule
/// and the dwords touched. Schema and example: `docs/lds.md`.
pub fn evaluator(profile: Profile) -> Evaluator {
    let mut lds = Lds::new(profile);
    Box::new(move |r| run_one(&mut lds, profile, r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_json(profile: Profile, input: &Value) -> Result<Value, String> {
        crate::units::each_request(input, evaluator(profile))
    }

    #[test]
    fn eval_reports_spec_cycle_counts_and_atomics() {
        let v = eval_json(
            Profile::Gfx9,
            &json!({"op": "ds_read_b32", "addr": (0..64).map(|l| 8 * l).collect::<Vec<_>>()}),
        )
        .unwrap();
        assert_eq!(v["cycles"], 4, "stride 2 on 32 banks");
        assert_eq!(v["schedule"].as_array().unwrap().len(), 4);
        let v = eval_json(
            Profile::Gfx11,
            &json!([
                {"op": "ds_write_b32", "addr": 16, "exec": 1, "data0": 7},
                {"op": "ds_cmpstore_rtn_b32", "addr": 16, "exec": 1, "data0": 9, "data1": 7},
                {"op": "ds_read_b32", "addr": 16, "exec": 1, "memory": {"0x20": 5}}
            ]),
        )
        .unwrap();
        assert_eq!(v[1]["lanes"][0]["data"], "0x7");
        assert_eq!(v[2]["lanes"][0]["data"], "0x9");
        assert_eq!(v[2]["cycles"], 1);
    }

    /// Each cycle of the schedule lists exactly the slots it serves: a
    /// two-pass instruction after another one lists no grant of the other
    /// pass or of the earlier instruction.
    #[test]
    fn eval_schedule_lists_only_the_cycles_grants() {
        let stride4: Vec<u32> = (0..64).map(|l| 16 * l).collect();
        let v = eval_json(
            Profile::Gfx9,
            &json!([
                {"op": "ds_read_b32", "addr": stride4},
                {"op": "ds_write_b64", "addr": stride4, "exec": "0xFFFF0000FFFF0000"}
            ]),
        )
        .unwrap();
        for r in v.as_array().unwrap() {
            let mut total = 0;
            for c in r["schedule"].as_array().unwrap() {
                let lanes =
                    u64::from_str_radix(c["lanes"].as_str().unwrap().trim_start_matches("0x"), 16)
                        .unwrap();
                let grants = c["grants"].as_array().unwrap();
                let mut seen = 0u64;
                for g in grants {
                    let g = g.as_str().unwrap();
                    let lane: u32 = g[4..g.find('.').unwrap()].parse().unwrap();
                    seen |= 1 << lane;
                }
                assert_eq!(seen, lanes, "cycle {}: {grants:?}", c["cycle"]);
                total += grants.len();
            }
            // 64 lanes of one dword, or 32 lanes of two.
            assert_eq!(total, 64, "{}: every slot granted once", r["op"]);
        }
        assert_eq!(v[0]["cycles"], 8, "stride 4 dwords on 32 banks");
    }

    #[test]
    fn eval_errors_are_one_line() {
        for bad in [
            json!({"op": "ds_nope"}),
            json!({"op": "ds_read_b32", "addr": "zz"}),
            json!({"op": "ds_read_b32", "offset0": 300}),
            json!({"op": "ds_read_b32", "colour": 1}),
            json!({"op": "ds_read_b32", "memory": {"3": 1}}),
            json!(5),
        ] {
            let e = eval_json(Profile::Gfx9, &bad).unwrap_err();
            assert!(!e.is_empty() && !e.contains('\n'), "{e}");
        }
        assert!(eval_json(
            Profile::Gfx9,
            &json!({"op": "ds_read_b32", "wave64": false})
        )
        .is_err());
    }
}
