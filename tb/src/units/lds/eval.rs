//! `gpucosim eval --unit lds`: requests run in order on one LDS
//! (`docs/lds.md`, section "`gpucosim eval --unit lds`").

use crate::testbench::Evaluator;
use crate::units::input::{at, from_value, Lanes, U};
use gpucosim_model::lds::isa::{self, PLAIN_NAMES};
use gpucosim_model::lds::tlm::{geometry, Lds, Request, LANES, SLOTS};
use gpucosim_model::Profile;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// A request (`docs/lds.md`): typed by serde, numbers by the one number
/// rule ([`U`]), flags `true`/`false`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Req {
    op: Option<String>,
    #[serde(default = "yes")]
    wave64: bool,
    #[serde(default)]
    mode: Mode,
    #[serde(default)]
    unaligned: bool,
    exec: Option<U<64>>,
    addr: Option<Lanes<32>>,
    data0: Option<Lanes<64>>,
    data1: Option<Lanes<64>>,
    offset: Option<U<16>>,
    offset0: Option<U<8>>,
    offset1: Option<U<8>>,
    m0: Option<U<32>>,
    lds_size: Option<U<32>>,
    lds_base: Option<U<32>>,
    memory: Option<BTreeMap<String, U<32>>>,
    #[serde(default)]
    dump: bool,
}

fn yes() -> bool {
    true
}

/// gfx11's LDS mode.
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Mode {
    #[default]
    Wgp,
    Cu,
}

/// The allocation granularity of `lds_base`, in bytes.
const BASE_BYTES: u32 = 256;

fn hex(v: u128) -> String {
    format!("{v:#x}")
}

/// A parsed request: the model's request, the dwords to preload
/// (relative dword address, value) and whether to dump the RAM.
struct Parsed {
    req: Request,
    memory: Vec<(u32, u32)>,
    dump: bool,
}

fn parse_request(profile: Profile, v: &Value) -> Result<Parsed, String> {
    let q: Req = from_value(v, "")?;
    let name =
        q.op.as_deref()
            .ok_or("missing `op` (an op name such as \"ds_read_b32\")")?;
    let code = isa::code_of(name).ok_or_else(|| {
        let plain: Vec<&str> = PLAIN_NAMES.iter().map(|(n, _)| *n).collect();
        at(
            "op",
            format!(
                "unknown op `{name}` (expected one of {} or an atomic such as ds_add_rtn_u32, ds_cmpst_b32)",
                plain.join(", ")
            ),
        )
    })?;
    let gfx11 = profile.wave32();
    if !gfx11 && !q.wave64 {
        return Err(at("wave64", "gfx9 has no wave32"));
    }
    if !gfx11 && q.mode == Mode::Cu {
        return Err(at("mode", "gfx9 has no CU/WGP mode (omit `mode`)"));
    }
    let wgp = q.mode == Mode::Wgp;
    let (_, ram_dw) = geometry(profile, wgp);
    let ram_bytes = ram_dw * 4;
    let mode = if !gfx11 {
        String::new()
    } else if wgp {
        " in WGP mode".into()
    } else {
        " in CU mode".into()
    };
    let nlanes = if q.wave64 { 64 } else { 32 };
    let wave_mask = if q.wave64 { u64::MAX } else { 0xFFFF_FFFF };
    let mut r = Request {
        op: code,
        wave64: q.wave64,
        wgp,
        unaligned: q.unaligned,
        exec: match q.exec {
            Some(e) => e.at_most(wave_mask.into(), "exec", &format!(" for a wave{nlanes}"))? as u64,
            None => wave_mask,
        },
        ..Request::default()
    };
    if let Some(off) = q.offset {
        if q.offset0.is_some() || q.offset1.is_some() {
            return Err("give either `offset` or `offset0`/`offset1`, not both".into());
        }
        r.offset0 = off.get() as u8;
        r.offset1 = (off.get() >> 8) as u8;
    }
    if let Some(o) = q.offset0 {
        r.offset0 = o.get() as u8;
    }
    if let Some(o) = q.offset1 {
        r.offset1 = o.get() as u8;
    }
    r.m0 = q.m0.map_or(0, U::u32);
    r.lds_size = match q.lds_size {
        Some(s) => s.at_most(
            ram_bytes.into(),
            "lds_size",
            &format!(" bytes, the LDS of {profile}{mode}"),
        )? as u32,
        None => ram_bytes,
    };
    if let Some(b) = q.lds_base {
        let b = b.at_most(
            (ram_bytes - BASE_BYTES).into(),
            "lds_base",
            &format!(", the last block of the LDS of {profile}{mode}"),
        )? as u32;
        if !b.is_multiple_of(BASE_BYTES) {
            return Err(at(
                "lds_base",
                format!(
                    "{b:#x} is not a multiple of {BASE_BYTES} bytes (the allocation granularity)"
                ),
            ));
        }
        r.lds_base = (b / BASE_BYTES) as u16;
    }
    if let Some(a) = &q.addr {
        for (dst, v) in r.addr.iter_mut().zip(a.resolve(nlanes, "addr")?) {
            *dst = v as u32;
        }
    }
    if let Some(d) = &q.data0 {
        for (dst, v) in r.data0.iter_mut().zip(d.resolve(nlanes, "data0")?) {
            *dst = v as u64;
        }
    }
    if let Some(d) = &q.data1 {
        for (dst, v) in r.data1.iter_mut().zip(d.resolve(nlanes, "data1")?) {
            *dst = v as u64;
        }
    }
    let mut memory: Vec<(u32, u32)> = Vec::new();
    for (k, x) in q.memory.iter().flatten() {
        let path = format!("memory[{k}]");
        let a = U::<32>::parse(k).map_err(|e| at(&path, format!("{e} (a byte address)")))?;
        let a = a.at_most(
            u128::from(r.lds_size.max(1) - 1),
            &path,
            ", the allocation's last byte (addresses are relative to `lds_base`)",
        )? as u32;
        if !a.is_multiple_of(4) {
            return Err(at(&path, "not a dword-aligned byte address"));
        }
        if memory.iter().any(|&(d, _)| d == a / 4) {
            return Err(at(&path, format!("address {a:#x} is given twice")));
        }
        memory.push((a / 4, x.u32()));
    }
    if r.lds_size == 0 {
        if let Some(k) = q.memory.iter().flatten().next().map(|(k, _)| k) {
            return Err(at(
                &format!("memory[{k}]"),
                "the allocation is empty (`lds_size` 0)",
            ));
        }
    }
    Ok(Parsed {
        req: r,
        memory,
        dump: q.dump,
    })
}

fn run_one(lds: &mut Lds, profile: Profile, v: &Value) -> Result<Value, String> {
    let Parsed {
        req: r,
        memory: mem,
        dump,
    } = parse_request(profile, v)?;
    let (_, ram_dw) = geometry(profile, r.wgp);
    let phys =
        |dword: u32| ((u32::from(r.lds_base) * 64).wrapping_add(dword) & (ram_dw - 1)) as usize;
    for &(d, x) in &mem {
        lds.ram[phys(d)] = x;
    }
    let mut schedule = Vec::new();
    let cycles = lds.run(&r, |s| {
        let mut grants = Vec::new();
        for i in s.served() {
            let sl = s.slot(i);
            grants.push(json!({
                "lane": i / SLOTS,
                "slot": i % SLOTS,
                "bank": sl.bank,
                "addr": hex(u128::from(sl.dword) * 4),
            }));
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
    let mut out = json!({
        "op": isa::name_of(info.code, profile).unwrap_or_else(|| "invalid".into()),
        "cycles": cycles,
        "memviol": hex(lds.out.memviol.into()),
        "lanes": lanes,
        "schedule": schedule,
        "memory": memory,
    });
    if dump {
        // Every non-zero dword of the mode's RAM, by physical byte address.
        let ram: Map<String, Value> = lds.ram[..ram_dw as usize]
            .iter()
            .enumerate()
            .filter(|(_, &x)| x != 0)
            .map(|(p, &x)| (hex(p as u128 * 4), json!(hex(x.into()))))
            .collect();
        out["ram"] = Value::Object(ram);
    }
    Ok(out)
}

/// `gpucosim eval --unit lds` on `profile`: runs requests in order on one
/// LDS (memory carries over from request to request) and returns, per
/// request, per-lane results, the cycle count, the per-cycle grant schedule
/// and the dwords touched. Schema and example: `docs/lds.md`.
pub fn evaluator(profile: Profile) -> Evaluator {
    let mut lds = Lds::new(profile);
    Box::new(move |r| run_one(&mut lds, profile, r))
}
