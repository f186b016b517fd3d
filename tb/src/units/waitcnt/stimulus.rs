//! The `waitcnt` stimulus: per-wave instructions, waits and pauses biased
//! by knobs (optionally with injected protocol errors), and directed
//! corners.

use super::txn::WaitcntTxn;
use crate::testbench::{Knob, KnobValues, PERCENT};
use gpucosim_model::waitcnt::{encode, Class, Counter, Thresholds, WaitcntParams, WAVES};
use gpucosim_model::Profile;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Knobs of the random stimulus (`--knob name=value`). Percentages are of
/// generated transactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WaitcntKnobs {
    /// Waves in use (1..16).
    pub waves: u8,
    /// Shortest return latency.
    pub lat_min: u16,
    /// Longest ordinary return latency.
    pub lat_max: u16,
    /// Percentage of issues with a long latency (up to `lat_long_max`).
    pub lat_long_pct: u8,
    /// Longest long latency.
    pub lat_long_max: u16,
    /// Percentage of issues that are bursts of 2..`burst_max` instructions.
    pub burst_pct: u8,
    /// Largest ordinary burst.
    pub burst_max: u8,
    /// Percentage of transactions that are long, slow bursts meant to fill a
    /// counter (saturation pressure).
    pub sat_pct: u8,
    /// Percentage of waits.
    pub wait_pct: u8,
    /// Percentage of sequencer pauses.
    pub idle_pct: u8,
    /// Percentage of injected protocol errors (default 0): the three
    /// `bad_*` kinds, and on profiles without VS_CNT also
    /// `s_waitcnt_vscnt` waits.
    pub err_pct: u8,
}

/// The knobs, their values and meanings (docs/waitcnt.md "Stimulus knobs"
/// is generated from it). Percentages are of generated transactions.
pub const KNOBS: &[Knob] = &[
    Knob { name: "waves", values: KnobValues::Int(1, WAVES as i64), help: "waves in use" },
    Knob { name: "lat_min", values: KnobValues::Int(1, u16::MAX as i64), help: "shortest return latency" },
    Knob { name: "lat_max", values: KnobValues::Int(1, u16::MAX as i64), help: "longest ordinary return latency (at least `lat_min`)" },
    Knob { name: "lat_long_pct", values: PERCENT, help: "issues with a long latency, up to `lat_long_max`" },
    Knob { name: "lat_long_max", values: KnobValues::Int(1, u16::MAX as i64), help: "longest long latency (at least `lat_max`)" },
    Knob { name: "burst_pct", values: PERCENT, help: "issues that are bursts of 2..`burst_max` instructions (returns then come in bursts too)" },
    Knob { name: "burst_max", values: KnobValues::Int(2, 255), help: "largest ordinary burst" },
    Knob { name: "sat_pct", values: PERCENT, help: "long, slow bursts of LDS, SMEM2, exports, GDS (filling EXP_CNT), VMEM loads or stores, one more than the counter holds: saturation pressure" },
    Knob { name: "wait_pct", values: PERCENT, help: "waits: `vmcnt(0)`, `lgkmcnt(0)`, both, `expcnt(0)`, small `vmcnt(k)`/`lgkmcnt(k)`, all three 0, `s_waitcnt_vscnt` (gfx11), raw random immediates, random thresholds" },
    Knob { name: "idle_pct", values: PERCENT, help: "sequencer pauses of 1..8 cycles" },
    Knob { name: "err_pct", values: PERCENT, help: "injected protocol errors (the four `bad_*` kinds; on gfx9 also `s_waitcnt_vscnt` waits, one in eight); also inputs in the reset cycles" },
];

/// The rules between knobs.
pub fn rules(k: &WaitcntKnobs) -> Result<(), String> {
    if k.lat_max < k.lat_min {
        return Err(format!(
            "knob `lat_max` {} is below `lat_min` {}",
            k.lat_max, k.lat_min
        ));
    }
    if k.lat_long_max < k.lat_max {
        return Err(format!(
            "knob `lat_long_max` {} is below `lat_max` {}",
            k.lat_long_max, k.lat_max
        ));
    }
    let sum =
        u32::from(k.err_pct) + u32::from(k.idle_pct) + u32::from(k.wait_pct) + u32::from(k.sat_pct);
    if sum > 100 {
        return Err(format!(
            "knobs `err_pct` {}, `idle_pct` {}, `wait_pct` {} and `sat_pct` {} add up to {sum}, more than 100",
            k.err_pct, k.idle_pct, k.wait_pct, k.sat_pct
        ));
    }
    Ok(())
}

impl Default for WaitcntKnobs {
    fn default() -> Self {
        WaitcntKnobs {
            waves: 16,
            lat_min: 1,
            lat_max: 40,
            lat_long_pct: 5,
            lat_long_max: 400,
            burst_pct: 15,
            burst_max: 8,
            sat_pct: 3,
            wait_pct: 15,
            idle_pct: 4,
            err_pct: 0,
        }
    }
}

fn latency(knobs: &WaitcntKnobs, rng: &mut ChaCha8Rng) -> u16 {
    let lo = knobs.lat_min.max(1);
    if rng.gen_range(0..100u8) < knobs.lat_long_pct {
        let hi = knobs.lat_long_max.max(lo);
        rng.gen_range(lo..=hi)
    } else {
        let hi = knobs.lat_max.max(lo);
        rng.gen_range(lo..=hi)
    }
}

/// A random wait, biased toward the forms compilers emit.
fn random_wait(profile: Profile, wave: u8, rng: &mut ChaCha8Rng) -> WaitcntTxn {
    let none = Thresholds::none(profile);
    let has_vs = WaitcntParams::of(profile).has_vs();
    let small = |rng: &mut ChaCha8Rng, max: u32| rng.gen_range(0..=max.min(4));
    let t = match rng.gen_range(0..10u8) {
        0 => Thresholds { vm: 0, ..none },
        1 => Thresholds { lgkm: 0, ..none },
        2 => Thresholds {
            vm: 0,
            lgkm: 0,
            ..none
        },
        3 => Thresholds { exp: 0, ..none },
        4 => Thresholds {
            vm: small(rng, none.vm),
            ..none
        },
        5 => Thresholds {
            lgkm: small(rng, none.lgkm),
            ..none
        },
        6 => Thresholds {
            vm: 0,
            lgkm: 0,
            exp: 0,
            vs: none.vs,
        },
        7 if has_vs => {
            // SPEC §3.2: the threshold is imm[5:0]; bits [15:6], set at
            // random here, are ignored.
            return WaitcntTxn::Wait {
                wave,
                imm: rng.gen_range(0..=2) | (rng.gen::<u16>() & 0xFFC0),
                vscnt: true,
            };
        }
        8 => {
            return WaitcntTxn::Wait {
                wave,
                imm: rng.gen(),
                vscnt: false,
            }
        }
        _ => Thresholds {
            vm: rng.gen_range(0..=none.vm),
            lgkm: rng.gen_range(0..=none.lgkm),
            exp: rng.gen_range(0..=none.exp),
            vs: none.vs,
        },
    };
    WaitcntTxn::Wait {
        wave,
        imm: encode(profile, &t),
        vscnt: false,
    }
}

fn legal_classes(profile: Profile) -> impl Iterator<Item = Class> {
    Class::ALL.into_iter().filter(move |c| c.legal(profile))
}

/// The class codes (0..15) the profile does not have.
fn illegal_codes(profile: Profile) -> impl Iterator<Item = u8> {
    (0..16u8).filter(move |&c| Class::from_code(c as u32).is_none_or(|c| !c.legal(profile)))
}

/// Draws a random transaction.
pub fn generate(profile: Profile, knobs: &WaitcntKnobs, rng: &mut ChaCha8Rng) -> WaitcntTxn {
    let waves = knobs.waves.clamp(1, WAVES as u8);
    let wave = rng.gen_range(0..waves);
    let roll = rng.gen_range(0..100u32);
    let mut at = knobs.err_pct as u32;
    if roll < at {
        // An `s_waitcnt_vscnt` where there is no VS_CNT (`illegal`); drawn
        // only on such profiles, so the others' streams are as before.
        if !WaitcntParams::of(profile).has_vs() && rng.gen_range(0..8u8) == 0 {
            return WaitcntTxn::Wait {
                wave,
                imm: rng.gen(),
                vscnt: true,
            };
        }
        // A class code the profile lacks (10 and 11 too on gfx9), or a
        // legal one.
        let code = if rng.gen_bool(0.25) {
            let n = illegal_codes(profile).count();
            illegal_codes(profile)
                .nth(rng.gen_range(0..n))
                .unwrap_or(15)
        } else {
            let n = legal_classes(profile).count();
            let c = legal_classes(profile).nth(rng.gen_range(0..n));
            c.map_or(0, |c| c.code() as u8)
        };
        return match rng.gen_range(0..7u8) {
            // An illegal return, half the time with an SMEM2 return of the
            // wave (weight 2 on LGKM_CNT: an underflow unless it holds 2).
            0 | 1 => WaitcntTxn::BadReturn {
                wave,
                code,
                also: (illegal_codes(profile).any(|c| c == code) && rng.gen_bool(0.5))
                    .then_some(Class::Smem2.code() as u8),
            },
            2 | 3 => WaitcntTxn::BadIssue { wave, code },
            // With an illegal code: `illegal` and `dual`; with
            // `s_waitcnt_vscnt` where there is no VS_CNT: `illegal` (the
            // wait's) and `dual`; meeting a waiting wave: `busy` as well.
            4 => WaitcntTxn::BadDual {
                wave,
                code,
                imm: rng.gen(),
                vscnt: rng.gen_bool(0.25),
                busy: rng.gen_bool(0.5),
            },
            // A wait to a waiting wave (`busy`; with `s_waitcnt_vscnt`
            // where there is no VS_CNT, `illegal` and `busy`).
            _ => WaitcntTxn::BadWait {
                wave,
                imm: rng.gen(),
                vscnt: rng.gen_bool(0.5),
            },
        };
    }
    at += knobs.idle_pct as u32;
    if roll < at {
        return WaitcntTxn::Idle {
            cycles: rng.gen_range(1..=8),
        };
    }
    at += knobs.wait_pct as u32;
    if roll < at {
        return random_wait(profile, wave, rng);
    }
    at += knobs.sat_pct as u32;
    if roll < at {
        // Fill a counter: a long burst of slow instructions on one counter.
        let stores = if WaitcntParams::of(profile).has_vs() {
            Counter::Vs
        } else {
            Counter::Vm
        };
        let (class, max) = match rng.gen_range(0..6u8) {
            0 => (Class::Lds, Counter::Lgkm.max(profile)),
            1 => (Class::Smem2, Counter::Lgkm.max(profile) / 2 + 1),
            2 => (Class::Export, Counter::Exp.max(profile)),
            3 => (Class::VmemStore, stores.max(profile)),
            // GDS fills EXP_CNT (and counts on LGKM_CNT), SPEC §3.1.
            4 => (Class::Gds, Counter::Exp.max(profile)),
            _ => (Class::VmemLoad, Counter::Vm.max(profile)),
        };
        let lo = knobs.lat_max.max(knobs.lat_min).max(1);
        let hi = knobs.lat_long_max.max(lo);
        return WaitcntTxn::Issue {
            wave,
            class,
            latency: rng.gen_range(lo..=hi),
            count: (max + 1 + rng.gen_range(0..4)).min(255) as u8,
        };
    }
    let n = legal_classes(profile).count();
    let class = legal_classes(profile)
        .nth(rng.gen_range(0..n))
        .unwrap_or(Class::Lds);
    let count = if rng.gen_range(0..100u8) < knobs.burst_pct {
        rng.gen_range(2..=knobs.burst_max.max(2))
    } else {
        1
    };
    WaitcntTxn::Issue {
        wave,
        class,
        latency: latency(knobs, rng),
        count,
    }
}

/// Directed transactions: SPEC §3 corners and the worked examples.
pub fn directed(profile: Profile) -> Vec<WaitcntTxn> {
    let none = Thresholds::none(profile);
    let vm0_lgkm0 = encode(
        profile,
        &Thresholds {
            vm: 0,
            lgkm: 0,
            ..none
        },
    );
    let lgkm0 = encode(profile, &Thresholds { lgkm: 0, ..none });
    let issue = |wave, class, latency, count| WaitcntTxn::Issue {
        wave,
        class,
        latency,
        count,
    };
    let mut v = vec![
        // docs/waitcnt.md worked example.
        issue(0, Class::Lds, 2, 1),
        issue(0, Class::VmemLoad, 4, 1),
        WaitcntTxn::Wait {
            wave: 0,
            imm: vm0_lgkm0,
            vscnt: false,
        },
        // Saturation of LGKM, then a wait for all of it.
        issue(1, Class::Lds, 150, (Counter::Lgkm.max(profile) + 2) as u8),
        WaitcntTxn::Wait {
            wave: 1,
            imm: lgkm0,
            vscnt: false,
        },
        // SMEM returns out of order, and out of order across LGKM kinds;
        // only lgkmcnt(0) is safe after SMEM.
        issue(2, Class::Smem2, 20, 1),
        issue(2, Class::Lds, 2, 1),
        issue(2, Class::Smem1, 5, 1),
        WaitcntTxn::Wait {
            wave: 2,
            imm: lgkm0,
            vscnt: false,
        },
        // FLAT counts on VM and LGKM; exports on EXP.
        issue(3, Class::FlatLoad, 6, 2),
        issue(3, Class::Export, 3, 8),
        WaitcntTxn::Wait {
            wave: 3,
            imm: encode(profile, &Thresholds { exp: 0, ..none }),
            vscnt: false,
        },
        // GDS counts on EXP_CNT on every profile and returns in any
        // order with exports (SPEC §3.1): the GDS overtakes the export.
        issue(6, Class::Export, 30, 1),
        issue(6, Class::Gds, 3, 1),
        WaitcntTxn::Wait {
            wave: 6,
            imm: encode(profile, &Thresholds { exp: 0, ..none }),
            vscnt: false,
        },
        // One GDS more than EXP_CNT holds: the last is held back by EXP.
        issue(7, Class::Gds, 150, (Counter::Exp.max(profile) + 1) as u8),
    ];
    if WaitcntParams::of(profile).has_vs() {
        v.push(issue(4, Class::VmemStore, 10, 3));
        v.push(issue(4, Class::VmemLoad, 30, 1));
        // `s_waitcnt_vscnt null, 0xffc0`: VS_CNT <= 0, bits [15:6]
        // ignored (SPEC §3.2).
        v.push(WaitcntTxn::Wait {
            wave: 4,
            imm: 0xFFC0,
            vscnt: true,
        });
        v.push(issue(5, Class::LdsParam, 3, 2));
    }
    v
}
