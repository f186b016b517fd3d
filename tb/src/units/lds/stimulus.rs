//! The `lds` stimulus: stores, loads and atomics over a small shared
//! address window (so loads see earlier stores), biased by knobs, and
//! directed corners.

use super::txn::LdsTxn;
use crate::testbench::{Knob, KnobValues, PERCENT};
use gpucosim_model::lds::isa::{self, Kind, OpInfo};
use gpucosim_model::lds::tlm::{geometry, Request, LANES};
use gpucosim_model::lds::LdsParams;
use gpucosim_model::Profile;
use rand::Rng;
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

const STRIDES: &[u32] = &[0, 1, 2, 4, 8, 16, 32, 33, 64, 3];
const LOADS: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const STORES: &[u8] = &[16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26];
const INVALID: &[u8] = &[13, 14, 15, 27, 30, 31, 46, 47, 62, 63];

fn pct(rng: &mut ChaCha8Rng, p: u32) -> bool {
    rng.gen_range(0..100) < p
}

/// `ds_read_b32` by every lane of a wave64 at address 0, data 0, the whole
/// default-mode RAM allocated.
fn base_txn(profile: Profile) -> LdsTxn {
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

/// Draws a random transaction.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{ModelRun, Stimulus};
    use crate::testbench::Testbench;
    use crate::units::lds::LdsTestbench;
    use gpucosim_model::lds::ports::lds_ports as P;
    use rand::SeedableRng;

    #[test]
    fn generation_is_deterministic_and_covers_the_model() {
        for p in Profile::all() {
            let k = LdsKnobs::default();
            let a: Vec<_> = {
                let mut rng = ChaCha8Rng::seed_from_u64(7);
                (0..50).map(|_| generate(p, &k, &mut rng)).collect()
            };
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let b: Vec<_> = (0..50).map(|_| generate(p, &k, &mut rng)).collect();
            assert_eq!(a, b);
            // Drive the model with directed + random stimulus until done.
            let mut txns = LdsTestbench::directed(p);
            txns.extend(a);
            let n = txns.len();
            let mut run = ModelRun::<LdsTestbench>::new(p, 7, &k, Stimulus::Replay(txns));
            let mut dones = 0;
            run.run_until_done(100_000, |_, _, out| {
                dones += P::done_o.bit(out) as usize;
            })
            .expect("the driver finishes");
            assert_eq!(run.txn_count(), n, "{p}: every transaction is taken");
            assert_eq!(dones, n, "{p}: every instruction completes");
            let c = run.coverage();
            assert!(
                c.covered() * 10 >= c.names.len() * 8,
                "{p}: holes {:?}",
                c.holes()
            );
        }
    }
}
