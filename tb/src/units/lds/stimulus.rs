//! The `lds` stimulus: stores, loads and atomics over a small shared
//! address window (so loads see earlier stores), biased by knobs, and
//! directed corners.

use super::txn::LdsTxn;
use crate::testbench::{Knob, KnobValues, PERCENT};
use gpucosim_model::lds::isa::{self, Kind, OpInfo};
use gpucosim_model::lds::tlm::{geometry, Request, LANES};
use gpucosim_model::lds::LdsParams;
use gpucosim_model::Profile;
use crate::draw::{splitmix64, Draw};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

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
    /// Percent of DWORD-mode loads and stores with misaligned lanes (the
    /// unit aligns them down; default 0).
    pub misalign_dword: u32,
    /// Percent of instructions whose lane addresses are moved to just
    /// below 2^32, so that addresses and bytes wrap to 0 (default 0).
    pub wrap: u32,
}

/// The exec patterns of the `exec` knob.
pub const EXEC_PATTERNS: &[&str] = &["mix", "full", "random", "sparse", "zero", "upper"];

/// The knobs, their values and meanings (docs/lds.md "Stimulus knobs" is
/// generated from it).
pub const KNOBS: &[Knob] = &[
    Knob { name: "stride", values: KnobValues::Int(-1, u32::MAX as i64), help: "dword stride between lanes: -1 draws a pattern per instruction (0 = broadcast, 1, 2, 4, 8, 16, 32, 33, 64, 3, random per lane), else fixed" },
    Knob { name: "window", values: KnobValues::Int(1, 1 << 15), help: "dwords of the shared address window (a power of two preferred)" },
    Knob { name: "w_load", values: KnobValues::Int(0, 1 << 20), help: "relative weight of loads (the four weights add up to at least 1)" },
    Knob { name: "w_store", values: KnobValues::Int(0, 1 << 20), help: "relative weight of stores" },
    Knob { name: "w_atomic", values: KnobValues::Int(0, 1 << 20), help: "relative weight of atomics" },
    Knob { name: "w_permute", values: KnobValues::Int(0, 1 << 20), help: "relative weight of permutes" },
    Knob { name: "unaligned", values: PERCENT, help: "instructions issued in UNALIGNED mode (with misaligned lanes)" },
    Knob { name: "misalign", values: PERCENT, help: "atomics with misaligned lanes (MEMVIOL)" },
    Knob { name: "range_edge", values: PERCENT, help: "instructions whose allocation ends inside the window (out of range)" },
    Knob { name: "base", values: PERCENT, help: "instructions with a non-zero LDS_BASE" },
    Knob { name: "exec", values: KnobValues::Word(EXEC_PATTERNS), help: "exec pattern (`mix` draws one of the others per instruction)" },
    Knob { name: "wave32", values: PERCENT, help: "gfx11: wave32 instructions" },
    Knob { name: "cu_mode", values: PERCENT, help: "gfx11: CU-mode instructions" },
    Knob { name: "max_gap", values: KnobValues::Int(0, 255), help: "largest idle gap between instructions, in cycles" },
    Knob { name: "invalid", values: PERCENT, help: "instructions with an undefined op code" },
    Knob { name: "misalign_dword", values: PERCENT, help: "DWORD-mode loads and stores with misaligned lanes (the unit aligns them down)" },
    Knob { name: "wrap", values: PERCENT, help: "instructions whose lane addresses are moved to just below 2^32, so that addresses and bytes wrap to 0" },
];

/// The rules between knobs.
pub fn rules(k: &LdsKnobs) -> Result<(), String> {
    if u64::from(k.w_load) + u64::from(k.w_store) + u64::from(k.w_atomic) + u64::from(k.w_permute)
        == 0
    {
        return Err(
            "knobs `w_load`, `w_store`, `w_atomic` and `w_permute` are all 0: no instruction could be drawn"
                .into(),
        );
    }
    Ok(())
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
            misalign_dword: 0,
            wrap: 0,
        }
    }
}

pub(super) const STRIDES: &[u32] = &[0, 1, 2, 4, 8, 16, 32, 33, 64, 3];
pub(super) const LOADS: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
pub(super) const STORES: &[u8] = &[16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26];
pub(super) const INVALID: &[u8] = &[13, 14, 15, 27, 30, 31, 46, 47, 62, 63];

/// `ds_read_b32` by every lane of a wave64 at address 0, data 0, the whole
/// default-mode RAM allocated.
pub(super) fn base_txn(profile: Profile) -> LdsTxn {
    LdsTxn {
        req: Request {
            op: 4,
            wave64: true,
            wgp: true,
            exec: u64::MAX,
            lds_size: geometry(profile, true).1 * 4,
            ..Request::default()
        },
        gap: 0,
    }
}

fn strided(profile: Profile, op: u8, stride: u32) -> LdsTxn {
    let mut t = base_txn(profile);
    t.req.op = op;
    for l in 0..LANES {
        t.req.addr[l] = 4 * stride * l as u32;
        t.req.data0[l] = 0x1000 + l as u64 * 0x1_0001;
        t.req.data1[l] = 1;
    }
    t
}

/// Draws a random transaction of the current stimulus version (3).
pub fn generate(profile: Profile, k: &LdsKnobs, rng: &mut ChaCha8Rng) -> LdsTxn {
    generate_version(crate::STIMULUS_VERSION, profile, k, rng)
}

gpucosim_model::hot_copies! {
    /// Draws a random transaction of stimulus version 2 or 3: the
    /// distribution of version 1 (`stimulus_v1.rs`), its fields cut from
    /// fewer random words ([`Draw`]), and each lane's second data word mixed
    /// from its first rather than drawn. Version 3 draws the lanes' first
    /// data words from one key ([`Draw::keyed`]) instead of a word each.
    ///
    /// On x86-64 CPUs with AVX2 or AVX-512 this runs a copy compiled for
    /// x86-64-v3 or v4 (`gpucosim_model::cpu`), where its passes over the 64
    /// lanes vectorise; every copy draws the same transactions
    /// (`tests/unit/units_lds_stimulus.rs`).
    pub fn generate_version(version: u32, profile: Profile, k: &LdsKnobs, rng: &mut ChaCha8Rng) -> LdsTxn
        = generate_body;
    copies generate_baseline, generate_x86_64_v3, generate_x86_64_v4, all in generate_copies;
}

#[inline(always)]
fn generate_body(version: u32, profile: Profile, k: &LdsKnobs, rng: &mut ChaCha8Rng) -> LdsTxn {
    debug_assert!(version >= 2, "version 1 is stimulus_v1.rs");
    let d = &mut Draw::new(rng);
    let gfx11 = profile.wave32();
    let mut t = base_txn(profile);
    let window = k.window.clamp(1, 1 << 15);
    let pow2 = window.is_power_of_two();
    let total = k.w_load + k.w_store + k.w_atomic + k.w_permute;
    let pick = d.below(u64::from(total.max(1))) as u32;
    t.req.op = if pick < k.w_load {
        d.pick(LOADS)
    } else if pick < k.w_load + k.w_store {
        d.pick(STORES)
    } else if pick < k.w_load + k.w_store + k.w_atomic {
        32 + 16 * d.bits(1) as u8 + d.below(isa::ATOMICS.into()) as u8
    } else {
        28 + d.bits(1) as u8
    };
    if d.pct(k.invalid) {
        t.req.op = d.pick(INVALID);
    }
    let info = OpInfo::decode(t.req.op);
    if gfx11 {
        t.req.wave64 = !d.pct(k.wave32);
        t.req.wgp = !d.pct(k.cu_mode);
    }
    let ram_bytes = geometry(profile, t.req.wgp).1 * 4;
    t.req.lds_size = ram_bytes;
    t.req.unaligned = d.pct(k.unaligned);
    let sparse = |d: &mut Draw| d.u64() & d.u64() & d.u64();
    t.req.exec = match k.exec.as_str() {
        "full" => u64::MAX,
        "random" => d.u64(),
        "sparse" => sparse(d),
        "zero" => 0,
        "upper" => d.u64() & !0xFFFF_FFFF,
        _ => match d.below(10) {
            0..=4 => u64::MAX,
            5 | 6 => d.u64(),
            7 => sparse(d),
            8 => 1u64 << d.bits(6),
            _ => {
                if d.bits(2) == 0 {
                    0
                } else {
                    d.u64() & !0xFFFF_FFFF
                }
            }
        },
    };
    let stride = if k.stride >= 0 {
        Some(k.stride as u32)
    } else {
        STRIDES.get(d.below(STRIDES.len() as u64 + 1) as usize).copied()
    };
    let start = d.below(window.into()) as u32;
    let misalign = info.kind == Kind::Atomic && d.pct(k.misalign);
    let small = d.below(3) == 0;
    let keyed: Option<[u64; LANES]> = (version >= 3 && !small).then(|| d.keyed());
    // Built in place: the request is 1.3 KB.
    let r = &mut t.req;
    let lane_dword = |l: usize, s: u32| {
        let dw = start.wrapping_add(s.wrapping_mul(l as u32));
        // `% window` without a division for the usual power of two.
        if pow2 {
            dw & (window - 1)
        } else {
            dw % window
        }
    };
    match (stride, &keyed) {
        // Nothing drawn per lane: passes of plain arithmetic over the lanes.
        (Some(s), Some(words)) if !r.unaligned && !misalign => {
            for (l, a) in r.addr.iter_mut().enumerate() {
                *a = lane_dword(l, s) * 4;
            }
            r.data0 = *words;
        }
        // Lane by lane, in the order the fields are drawn.
        _ => {
            for l in 0..LANES {
                let dw = match stride {
                    Some(s) => lane_dword(l, s),
                    None => d.below(window.into()) as u32,
                };
                let mut a = dw * 4;
                if (r.unaligned && d.below(3) == 0) || (misalign && d.bits(2) == 0) {
                    a += d.range32(1, 4);
                }
                r.addr[l] = a;
                if small {
                    r.data0[l] = d.bits(3);
                    r.data1[l] = d.bits(3);
                } else {
                    r.data0[l] = match &keyed {
                        Some(words) => words[l],
                        None => d.u64(),
                    };
                }
            }
        }
    }
    if !small {
        // The second word from the first, by the SplitMix64 finaliser: the
        // two differ in about half their bits and neither predicts the
        // other's low bits.
        for (d1, d0) in r.data1.iter_mut().zip(&r.data0) {
            *d1 = splitmix64(*d0);
        }
    }
    if info.kind == Kind::Permute || info.kind == Kind::Bpermute {
        for a in r.addr.iter_mut() {
            *a = d.bits(8) as u32;
        }
    }
    if info.two {
        t.req.offset0 = d.bits(3) as u8;
        t.req.offset1 = d.bits(3) as u8;
    } else if d.bits(2) == 0 {
        t.req.offset0 = d.bits(4) as u8 * 4;
    }
    if info.addtid {
        t.req.m0 = d.below(window.into()) as u32 * 4 + d.bits(2) as u32;
    }
    if d.pct(k.range_edge) {
        let edge = (window * 4).min(ram_bytes);
        t.req.lds_size = edge.saturating_sub(d.bits(6) as u32 * 4);
        if d.bits(3) == 0 {
            t.req.lds_size = d.bits(18) as u32;
        }
    }
    if d.pct(k.base) {
        t.req.lds_base = d.bits(9) as u16;
    }
    let mem = matches!(info.kind, Kind::Load | Kind::Store);
    if k.misalign_dword > 0 && mem && !t.req.unaligned && d.pct(k.misalign_dword) {
        for a in t.req.addr.iter_mut() {
            if d.bits(1) == 0 {
                *a += d.range32(1, 4);
            }
        }
    }
    if k.wrap > 0 && d.pct(k.wrap) {
        let down = d.range32(1, 65) * 4 + d.bits(2) as u32;
        for a in t.req.addr.iter_mut() {
            *a = a.wrapping_sub(down);
        }
        if info.addtid {
            t.req.offset1 = 0xFF;
            t.req.offset0 = d.bits(8) as u8;
            t.req.m0 = 0u32.wrapping_sub(down);
        }
    }
    t.gap = d.below(u64::from(k.max_gap) + 1) as u8;
    t
}

/// Directed transactions: SPEC §2 corners on each mode of the profile.
pub fn directed(profile: Profile) -> Vec<LdsTxn> {
    let mut v = Vec::new();
    let modes: &[bool] = if LdsParams::of(profile).cu_mode.is_some() {
        &[true, false]
    } else {
        &[true]
    };
    for &wgp in modes {
        let mut add = |mut t: LdsTxn| {
            t.req.wgp = wgp;
            t.req.lds_size = geometry(profile, wgp).1 * 4;
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
        z.req.exec = 0;
        add(z);
        // Sub-dword stores merging in one dword, then a signed read.
        let mut b = strided(profile, 16, 0);
        for l in 0..LANES {
            b.req.addr[l] = l as u32 % 4;
        }
        add(b);
        add(strided(profile, 1, 0));
        // read2st64 and a permute.
        let mut r2 = strided(profile, 9, 1);
        r2.req.offset1 = 1;
        add(r2);
        add(strided(profile, 29, 1));
        // wave64_i low: gfx9 ignores it (every wave is a wave64), gfx11
        // runs a wave32 and ignores exec's upper half.
        for op in [18, 4] {
            let mut w = strided(profile, op, 1);
            w.req.wave64 = false;
            w.req.exec = 0xF0F0_0000_8000_0001;
            add(w);
        }
        // No lane active: a store, an atomic with return and an UNALIGNED
        // load each still pass through the unit and complete.
        for op in [18, 48, 12] {
            let mut z = strided(profile, op, 1);
            z.req.exec = 0;
            z.req.unaligned = op == 12;
            add(z);
        }
        // UNALIGNED b64, b96 and b128 stores, then loads, lane l at byte
        // offset l % 16 of its own 32-byte slot: every byte enable pattern
        // of every width.
        for (st, ld) in [(19, 5), (25, 11), (26, 12)] {
            for op in [st, ld] {
                let mut u = strided(profile, op, 8);
                u.req.unaligned = true;
                for l in 0..LANES {
                    u.req.addr[l] = 32 * l as u32 + (l as u32 % 16);
                    u.req.data1[l] = 0xA5A5_0000 ^ u.req.data0[l].rotate_left(13);
                }
                add(u);
            }
        }
        // LDS_BASE's low bits (64-byte units): stores through bases 1, 2
        // and 3, read back with base 0 where they land.
        for base in 1..4u16 {
            let mut st = strided(profile, 18, 1);
            st.req.lds_base = base;
            st.req.lds_size -= u32::from(base) * 64;
            for l in 0..LANES {
                st.req.data0[l] = 0x5A00_0000 + (u64::from(base) << 16) + l as u64;
            }
            add(st);
            let mut ld = strided(profile, 4, 1);
            for l in 0..LANES {
                ld.req.addr[l] = u32::from(base) * 64 + 4 * l as u32;
            }
            add(ld);
        }
        // Signed 16-bit reads: halves with bit 15 set stored at both
        // halves of each dword, read back sign-extended and zero-extended.
        let mut h = strided(profile, 17, 0);
        for l in 0..LANES {
            h.req.addr[l] = 2 * l as u32;
            h.req.data0[l] = 0x8000 | (l as u64 * 0x0203);
        }
        add(h);
        for op in [3, 2] {
            let mut r = strided(profile, op, 0);
            for l in 0..LANES {
                r.req.addr[l] = 2 * l as u32;
            }
            add(r);
        }
    }
    v
}
