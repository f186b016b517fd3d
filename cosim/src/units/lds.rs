//! Testbench of the `lds` unit: seeded stimulus mixing stores, loads and
//! atomics over a small shared address window (so loads see earlier stores),
//! a driver for the `req_valid_i` / `req_ready_o` handshake, and `eval`.
//! The cycle contract is `docs/lds.md`.

use crate::testbench::{Drive, Driver, Testbench, TxnSource};
use gpucosim_model::lds::isa::{self, Kind, OpInfo, PLAIN_NAMES};
use gpucosim_model::lds::ports::lds_ports as P;
use gpucosim_model::lds::tlm::{geometry, Lds, Request, LANES, SLOTS};
use gpucosim_model::lds::{LdsModel, LdsParams};
use gpucosim_model::ports::PortTable;
use gpucosim_model::{Profile, Unit};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// One LDS instruction with the wave state it is issued with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LdsTxn {
    /// `op_i` code (`docs/lds.md`).
    pub op: u8,
    /// Wave64 (gfx9 ignores it).
    pub wave64: bool,
    /// gfx11 WGP mode.
    pub wgp: bool,
    /// Alignment mode UNALIGNED.
    pub unaligned: bool,
    /// Exec mask.
    pub exec: u64,
    /// offset0 field.
    pub offset0: u8,
    /// offset1 field.
    pub offset1: u8,
    /// M0.
    pub m0: u32,
    /// LDS_BASE in 256-byte blocks.
    pub lds_base: u16,
    /// Allocation size in bytes.
    pub lds_size: u32,
    /// Per-lane address (64 entries).
    pub addr: Vec<u32>,
    /// Per-lane DATA0 (64 entries).
    pub data0: Vec<u64>,
    /// Per-lane DATA1 (64 entries).
    pub data1: Vec<u64>,
    /// Idle cycles before the instruction is offered.
    pub gap: u8,
}

/// Knobs biasing the random stimulus (`--knob name=value`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LdsKnobs {
    /// Dword stride between lanes: -1 draws a pattern per instruction from
    /// {0 (broadcast), 1, 2, 4, 8, 16, 32, 33, 64, 3, random per lane};
    /// any other value fixes it (0 = every lane on one address).
    pub stride: i64,
    /// Size of the shared address window in dwords (power of two preferred).
    pub window: u32,
    /// Relative weight of loads.
    pub w_load: u32,
    /// Relative weight of stores.
    pub w_store: u32,
    /// Relative weight of atomics.
    pub w_atomic: u32,
    /// Relative weight of permutes.
    pub w_permute: u32,
    /// Percent of instructions issued in UNALIGNED mode (with misaligned lanes).
    pub unaligned: u32,
    /// Percent of atomics with misaligned lanes (MEMVIOL).
    pub misalign: u32,
    /// Percent of instructions whose allocation ends inside the window.
    pub range_edge: u32,
    /// Percent of instructions with a non-zero LDS_BASE.
    pub base: u32,
    /// Exec pattern: `mix`, `full`, `random`, `sparse`, `zero`, `upper`.
    pub exec: String,
    /// gfx11: percent of wave32 instructions.
    pub wave32: u32,
    /// gfx11: percent of CU-mode instructions.
    pub cu_mode: u32,
    /// Largest idle gap between instructions, in cycles.
    pub max_gap: u8,
    /// Percent of instructions with an undefined op code.
    pub invalid: u32,
}

impl Default for LdsKnobs {
    fn default() -> Self {
        LdsKnobs {
            stride: -1,
            window: 512,
            w_load: 35,
            w_store: 35,
            w_atomic: 25,
            w_permute: 5,
            unaligned: 20,
            misalign: 10,
            range_edge: 15,
            base: 10,
            exec: "mix".into(),
            wave32: 30,
            cu_mode: 30,
            max_gap: 2,
            invalid: 1,
        }
    }
}

/// The `lds` testbench.
pub struct LdsTestbench;

const STRIDES: &[u32] = &[0, 1, 2, 4, 8, 16, 32, 33, 64, 3];
const LOADS: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const STORES: &[u8] = &[16, 17, 18, 19, 20, 21, 22, 23, 24];
const INVALID: &[u8] = &[11, 15, 25, 27, 30, 31, 46, 47, 62, 63];

fn pct(rng: &mut ChaCha8Rng, p: u32) -> bool {
    rng.gen_range(0..100) < p
}

impl LdsTestbench {
    fn base_txn(profile: Profile) -> LdsTxn {
        LdsTxn {
            addr: vec![0; LANES],
            data0: vec![0; LANES],
            data1: vec![0; LANES],
            ..Self::base_txn_scalars(profile)
        }
    }

    /// `base_txn` without lanes (empty per-lane vectors).
    fn base_txn_scalars(profile: Profile) -> LdsTxn {
        LdsTxn {
            op: 4,
            wave64: true,
            wgp: true,
            unaligned: false,
            exec: u64::MAX,
            offset0: 0,
            offset1: 0,
            m0: 0,
            lds_base: 0,
            lds_size: geometry(profile, true).1 * 4,
            addr: Vec::new(),
            data0: Vec::new(),
            data1: Vec::new(),
            gap: 0,
        }
    }
}

fn strided(profile: Profile, op: u8, stride: u32) -> LdsTxn {
    let mut t = LdsTestbench::base_txn(profile);
    t.op = op;
    for l in 0..LANES {
        t.addr[l] = 4 * stride * l as u32;
        t.data0[l] = 0x1000 + l as u64 * 0x1_0001;
        t.data1[l] = 1;
    }
    t
}

impl Testbench for LdsTestbench {
    type Txn = LdsTxn;
    type Knobs = LdsKnobs;
    type Driver = LdsDriver;

    const UNIT: &'static str = "lds";

    fn table() -> &'static PortTable {
        &P::TABLE
    }

    fn model(profile: Profile) -> Box<dyn Unit> {
        Box::new(LdsModel::new(profile))
    }

    fn generate(profile: Profile, k: &LdsKnobs, rng: &mut ChaCha8Rng) -> LdsTxn {
        let gfx11 = profile.wave32();
        let mut t = LdsTestbench::base_txn_scalars(profile);
        let window = k.window.clamp(1, 1 << 15);
        let pow2 = window.is_power_of_two();
        let total = k.w_load + k.w_store + k.w_atomic + k.w_permute;
        let pick = rng.gen_range(0..total.max(1));
        t.op = if pick < k.w_load {
            LOADS[rng.gen_range(0..LOADS.len())]
        } else if pick < k.w_load + k.w_store {
            STORES[rng.gen_range(0..STORES.len())]
        } else if pick < k.w_load + k.w_store + k.w_atomic {
            32 + 16 * rng.gen_range(0..2u8) + rng.gen_range(0..isa::ATOMICS)
        } else {
            28 + rng.gen_range(0..2u8)
        };
        if pct(rng, k.invalid) {
            t.op = INVALID[rng.gen_range(0..INVALID.len())];
        }
        let info = OpInfo::decode(t.op);
        if gfx11 {
            t.wave64 = !pct(rng, k.wave32);
            t.wgp = !pct(rng, k.cu_mode);
        }
        let ram_bytes = geometry(profile, t.wgp).1 * 4;
        t.lds_size = ram_bytes;
        t.unaligned = pct(rng, k.unaligned);
        t.exec = match k.exec.as_str() {
            "full" => u64::MAX,
            "random" => rng.gen(),
            "sparse" => rng.gen::<u64>() & rng.gen::<u64>() & rng.gen::<u64>(),
            "zero" => 0,
            "upper" => rng.gen::<u64>() & !0xFFFF_FFFF,
            _ => match rng.gen_range(0..10) {
                0..=4 => u64::MAX,
                5 | 6 => rng.gen(),
                7 => rng.gen::<u64>() & rng.gen::<u64>() & rng.gen::<u64>(),
                8 => 1u64 << rng.gen_range(0..64),
                _ => {
                    if rng.gen_range(0..4) == 0 {
                        0
                    } else {
                        rng.gen::<u64>() & !0xFFFF_FFFF
                    }
                }
            },
        };
        let stride = if k.stride >= 0 {
            Some(k.stride as u32)
        } else {
            let i = rng.gen_range(0..STRIDES.len() + 1);
            STRIDES.get(i).copied()
        };
        let start = rng.gen_range(0..window);
        let misalign = info.kind == Kind::Atomic && pct(rng, k.misalign);
        let small = rng.gen_range(0..3) == 0;
        // Filled lane by lane (the draws in the same order as ever) into
        // arrays, which become the vectors at the end: cheaper than zeroed
        // vectors or pushes.
        let mut addr = [0u32; LANES];
        let mut data0 = [0u64; LANES];
        let mut data1 = [0u64; LANES];
        for l in 0..LANES {
            let dw = match stride {
                // `% window` without a division for the usual power of two.
                Some(s) if pow2 => start.wrapping_add(s.wrapping_mul(l as u32)) & (window - 1),
                Some(s) => start.wrapping_add(s.wrapping_mul(l as u32)) % window,
                None => rng.gen_range(0..window),
            };
            let mut a = dw * 4;
            if (t.unaligned && rng.gen_range(0..3) == 0) || (misalign && rng.gen_range(0..4) == 0) {
                a += rng.gen_range(1..4);
            }
            addr[l] = a;
            data0[l] = if small {
                rng.gen_range(0..8)
            } else {
                rng.gen()
            };
            data1[l] = if small {
                rng.gen_range(0..8)
            } else {
                rng.gen()
            };
        }
        if info.kind == Kind::Permute || info.kind == Kind::Bpermute {
            for a in addr.iter_mut() {
                *a = rng.gen_range(0..256);
            }
        }
        t.addr = addr.to_vec();
        t.data0 = data0.to_vec();
        t.data1 = data1.to_vec();
        if info.two {
            t.offset0 = rng.gen_range(0..8);
            t.offset1 = rng.gen_range(0..8);
        } else if rng.gen_range(0..4) == 0 {
            t.offset0 = rng.gen_range(0..16) * 4;
        }
        if info.addtid {
            t.m0 = rng.gen_range(0..window) * 4 + rng.gen_range(0..4);
        }
        if pct(rng, k.range_edge) {
            let edge = (window * 4).min(ram_bytes);
            t.lds_size = edge.saturating_sub(rng.gen_range(0..64) * 4);
            if rng.gen_range(0..8) == 0 {
                t.lds_size = rng.gen_range(0..0x40000);
            }
        }
        if pct(rng, k.base) {
            t.lds_base = rng.gen_range(0..512);
        }
        t.gap = rng.gen_range(0..=k.max_gap);
        t
    }

    fn directed(profile: Profile) -> Vec<LdsTxn> {
        let mut v = Vec::new();
        let modes: &[bool] = if LdsParams::of(profile).cu_mode.is_some() {
            &[true, false]
        } else {
            &[true]
        };
        for &wgp in modes {
            let mut add = |mut t: LdsTxn| {
                t.wgp = wgp;
                t.lds_size = geometry(profile, wgp).1 * 4;
                v.push(t);
            };
            // SPEC 2.2's conflict examples, written then read back.
            for s in [1, 2, 32, 33, 0, 64] {
                add(strided(profile, 18, s));
                add(strided(profile, 4, s));
            }
            // 64 lanes adding 1 to one dword, returning the pre-op values.
            add(strided(profile, 48, 0));
            // cmpst with return, then exec = 0.
            add(strided(profile, 48 + 13, 1));
            let mut z = strided(profile, 4, 1);
            z.exec = 0;
            add(z);
            // Sub-dword stores merging in one dword, then a signed read.
            let mut b = strided(profile, 16, 0);
            for l in 0..LANES {
                b.addr[l] = l as u32 % 4;
            }
            add(b);
            add(strided(profile, 1, 0));
            // read2st64 and a permute.
            let mut r2 = strided(profile, 9, 1);
            r2.offset1 = 1;
            add(r2);
            add(strided(profile, 29, 1));
        }
        v
    }

    fn driver(_profile: Profile, _knobs: &LdsKnobs) -> LdsDriver {
        LdsDriver {
            pending: None,
            offering: None,
            packed: vec![0; P::TABLE.in_words()],
            gap: 0,
            taken: 0,
            in_flight: None,
        }
    }

    fn simplify(t: &LdsTxn) -> Vec<LdsTxn> {
        let mut v = Vec::new();
        let mut push = |f: &dyn Fn(&mut LdsTxn)| {
            let mut s = t.clone();
            f(&mut s);
            if s != *t && !v.contains(&s) {
                v.push(s);
            }
        };
        if t.exec != 0 {
            push(&|s| s.exec &= s.exec.wrapping_neg());
            push(&|s| s.exec &= 0xFFFF_FFFF);
            push(&|s| s.exec &= 0x5555_5555_5555_5555);
        }
        push(&|s| s.gap = 0);
        push(&|s| s.lds_base = 0);
        push(&|s| s.unaligned = false);
        push(&|s| {
            s.offset0 = 0;
            s.offset1 = 0;
            s.m0 = 0;
        });
        push(&|s| {
            s.data0.iter_mut().for_each(|d| *d = 0);
            s.data1.iter_mut().for_each(|d| *d = 0);
        });
        push(&|s| s.addr.iter_mut().for_each(|a| *a &= !3));
        v
    }
}

/// Offers each transaction after its idle gap and holds the offer
/// (`req_valid_i` and the payload) until the unit takes it, so an offer
/// made while BUSY is taken in the done cycle (back to back).
pub struct LdsDriver {
    pending: Option<LdsTxn>,
    offering: Option<LdsTxn>,
    packed: Vec<u32>,
    gap: u8,
    taken: usize,
    in_flight: Option<usize>,
}

impl LdsDriver {
    fn apply(t: &LdsTxn, inp: &mut [u32]) {
        P::req_valid_i.set(inp, 1);
        P::op_i.set(inp, u64::from(t.op));
        P::wave64_i.set(inp, u64::from(t.wave64));
        P::wgp_i.set(inp, u64::from(t.wgp));
        P::unaligned_i.set(inp, u64::from(t.unaligned));
        P::exec_i.set(inp, t.exec);
        P::offset0_i.set(inp, u64::from(t.offset0));
        P::offset1_i.set(inp, u64::from(t.offset1));
        P::m0_i.set(inp, u64::from(t.m0));
        P::lds_base_i.set(inp, u64::from(t.lds_base));
        P::lds_size_i.set(inp, u64::from(t.lds_size));
        for l in 0..LANES {
            P::addr_i.set_elem(inp, l, u64::from(t.addr.get(l).copied().unwrap_or(0)));
            P::data0_i.set_elem(inp, l, t.data0.get(l).copied().unwrap_or(0));
            P::data1_i.set_elem(inp, l, t.data1.get(l).copied().unwrap_or(0));
        }
    }
}

impl Driver<LdsTxn> for LdsDriver {
    fn drive(&mut self, prev: &[u32], inp: &mut [u32], src: &mut dyn TxnSource<LdsTxn>) -> Drive {
        // `prev` shows the cycle before this one: if we offered then and the
        // unit was ready, it took the instruction at that cycle's edge.
        let ready_prev = P::req_ready_o.bit(prev);
        let mut just_taken = false;
        if self.offering.is_some() {
            if ready_prev {
                self.offering = None;
                self.in_flight = Some(self.taken - 1);
                just_taken = true;
            } else {
                // Hold the offer (valid and payload, packed once) until it is taken.
                inp.copy_from_slice(&self.packed);
                return Drive::Busy;
            }
        }
        if self.pending.is_none() {
            self.pending = src.next_txn();
            if let Some(t) = &self.pending {
                self.gap = t.gap;
                self.taken += 1;
            }
        }
        match &self.pending {
            None => {
                if ready_prev && !just_taken {
                    self.in_flight = None;
                    Drive::Done
                } else {
                    Drive::Busy
                }
            }
            Some(_) if self.gap > 0 => {
                self.gap -= 1;
                Drive::Busy
            }
            Some(t) => {
                // `inp` is zeroed with `rst_ni` high: apply the offer there
                // and keep a copy to hold it.
                Self::apply(t, inp);
                self.packed.copy_from_slice(inp);
                self.offering = self.pending.take();
                Drive::Busy
            }
        }
    }

    fn in_flight(&self) -> Option<usize> {
        self.in_flight
    }
}

// ---------------------------------------------------------------------------
// eval
// ---------------------------------------------------------------------------

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

pub(crate) fn run_one(lds: &mut Lds, profile: Profile, v: &Value) -> Result<Value, String> {
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

/// `gpucosim eval --unit lds`: runs one request object, or an array of them
/// in order on one LDS (memory carries over), and returns per-lane results,
/// the cycle count, the per-cycle grant schedule and the dwords touched.
/// Schema and example: `docs/lds.md`.
pub fn eval_json(profile: Profile, input: &Value) -> Result<Value, String> {
    // One LDS for the whole array: later requests see earlier stores.
    let mut lds = Lds::new(profile);
    super::each_request(input, |r| run_one(&mut lds, profile, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

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

    #[test]
    fn generation_is_deterministic_and_covers_the_model() {
        for p in Profile::all() {
            let k = LdsKnobs::default();
            let a: Vec<_> = {
                let mut rng = ChaCha8Rng::seed_from_u64(7);
                (0..50)
                    .map(|_| LdsTestbench::generate(p, &k, &mut rng))
                    .collect()
            };
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let b: Vec<_> = (0..50)
                .map(|_| LdsTestbench::generate(p, &k, &mut rng))
                .collect();
            assert_eq!(a, b);
            // Drive the model with directed + random stimulus until done.
            let mut txns = LdsTestbench::directed(p).into_iter().chain(a);
            let mut m = LdsTestbench::model(p);
            let mut d = LdsTestbench::driver(p, &k);
            let t = LdsTestbench::table();
            let mut out = vec![0u32; t.out_words()];
            let mut prev = out.clone();
            let mut dones = 0;
            for _ in 0..100_000 {
                let mut inp = vec![0u32; t.in_words()];
                P::rst_ni.set(&mut inp, 1);
                if d.drive(&prev, &mut inp, &mut txns) == Drive::Done {
                    break;
                }
                m.step(&inp, &mut out);
                dones += P::done_o.bit(&out) as usize;
                prev.copy_from_slice(&out);
            }
            assert!(txns.next().is_none());
            assert_eq!(
                dones,
                LdsTestbench::directed(p).len() + 50,
                "{p}: every instruction completes"
            );
            let c = m.coverage();
            assert!(
                c.covered() * 10 >= c.names.len() * 8,
                "{p}: holes {:?}",
                c.holes()
            );
        }
    }
}
