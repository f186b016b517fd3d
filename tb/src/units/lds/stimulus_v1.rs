//! Version 1 of the `lds` random stimulus, kept unchanged so that bundles
//! and seeds recorded under it replay exactly (`crate::draw`); fresh runs
//! draw version 2 (`super::stimulus::generate`).

use super::stimulus::{base_txn, LdsKnobs, INVALID, LOADS, STORES, STRIDES};
use super::txn::LdsTxn;
use gpucosim_model::lds::isa::{self, Kind, OpInfo};
use gpucosim_model::lds::tlm::{geometry, LANES};
use gpucosim_model::Profile;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

fn pct(rng: &mut ChaCha8Rng, p: u32) -> bool {
    rng.gen_range(0..100) < p
}

/// Draws a random transaction of stimulus version 1.
pub fn generate(profile: Profile, k: &LdsKnobs, rng: &mut ChaCha8Rng) -> LdsTxn {
    let gfx11 = profile.wave32();
    let mut t = base_txn(profile);
    let window = k.window.clamp(1, 1 << 15);
    let pow2 = window.is_power_of_two();
    let total = k.w_load + k.w_store + k.w_atomic + k.w_permute;
    let pick = rng.gen_range(0..total.max(1));
    t.req.op = if pick < k.w_load {
        LOADS[rng.gen_range(0..LOADS.len())]
    } else if pick < k.w_load + k.w_store {
        STORES[rng.gen_range(0..STORES.len())]
    } else if pick < k.w_load + k.w_store + k.w_atomic {
        32 + 16 * rng.gen_range(0..2u8) + rng.gen_range(0..isa::ATOMICS)
    } else {
        28 + rng.gen_range(0..2u8)
    };
    if pct(rng, k.invalid) {
        t.req.op = INVALID[rng.gen_range(0..INVALID.len())];
    }
    let info = OpInfo::decode(t.req.op);
    if gfx11 {
        t.req.wave64 = !pct(rng, k.wave32);
        t.req.wgp = !pct(rng, k.cu_mode);
    }
    let ram_bytes = geometry(profile, t.req.wgp).1 * 4;
    t.req.lds_size = ram_bytes;
    t.req.unaligned = pct(rng, k.unaligned);
    t.req.exec = match k.exec.as_str() {
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
    // Filled lane by lane (the draws in the same order as ever).
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
        if (t.req.unaligned && rng.gen_range(0..3) == 0) || (misalign && rng.gen_range(0..4) == 0) {
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
    t.req.addr = addr;
    t.req.data0 = data0;
    t.req.data1 = data1;
    if info.two {
        t.req.offset0 = rng.gen_range(0..8);
        t.req.offset1 = rng.gen_range(0..8);
    } else if rng.gen_range(0..4) == 0 {
        t.req.offset0 = rng.gen_range(0..16) * 4;
    }
    if info.addtid {
        t.req.m0 = rng.gen_range(0..window) * 4 + rng.gen_range(0..4);
    }
    if pct(rng, k.range_edge) {
        let edge = (window * 4).min(ram_bytes);
        t.req.lds_size = edge.saturating_sub(rng.gen_range(0..64) * 4);
        if rng.gen_range(0..8) == 0 {
            t.req.lds_size = rng.gen_range(0..0x40000);
        }
    }
    if pct(rng, k.base) {
        t.req.lds_base = rng.gen_range(0..512);
    }
    // Drawn only when asked for, so the default stream is as before.
    let mem = matches!(info.kind, Kind::Load | Kind::Store);
    if k.misalign_dword > 0 && mem && !t.req.unaligned && pct(rng, k.misalign_dword) {
        for a in t.req.addr.iter_mut() {
            if rng.gen_range(0..2) == 0 {
                *a += rng.gen_range(1..4);
            }
        }
    }
    if k.wrap > 0 && pct(rng, k.wrap) {
        let down = rng.gen_range(1..=64u32) * 4 + rng.gen_range(0..4);
        for a in t.req.addr.iter_mut() {
            *a = a.wrapping_sub(down);
        }
        if info.addtid {
            t.req.offset1 = 0xFF;
            t.req.offset0 = rng.gen();
            t.req.m0 = 0u32.wrapping_sub(down);
        }
    }
    t.gap = rng.gen_range(0..=k.max_gap);
    t
}

