use gpucosim_model::profile::Profile;
use gpucosim_model::ta::cover::Events;
use gpucosim_model::ta::isa::VsharpFields;
use gpucosim_model::ta::isa::{Instr, Kind, Op, ADDR_MASK, LANES};
use gpucosim_model::ta::tlm::*;

/// SplitMix64: a small, self-contained stream of test values.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random instruction: half with a V# of random bits, half with
/// small fields (lanes sharing lines, every addressing mode); lane
/// values small, near 2^32 or anything.
fn instr(profile: Profile, m: &mut Mix) -> Instr {
    let vsharp = if m.below(2) == 0 {
        u128::from(m.next()) | u128::from(m.next()) << 64
    } else {
        VsharpFields {
            base: [0, m.below(1 << 20), ADDR_MASK - m.below(1 << 12)][m.below(3) as usize],
            stride: m.below(80) as u32,
            num_records: m.below(600) as u32,
            swizzle: m.below(4) as u32,
            elem_size: m.below(4) as u32,
            index_stride: m.below(4) as u32,
            add_tid: m.below(2) == 0,
            format: m.below(64) as u32,
            oob_select: m.below(4) as u32,
            rtype: (m.below(8) == 0) as u32,
            ..Default::default()
        }
        .encode(profile)
    };
    let lanes = m.below(3);
    let lane = |m: &mut Mix| match lanes {
        0 => m.below(100) as u32,
        1 => u32::MAX - m.below(300) as u32,
        _ => m.next() as u32,
    };
    let mut i = Instr {
        vsharp,
        kind: Kind::from_bits(m.below(4) as u32),
        op: Op::from_bits(m.below(4) as u32),
        size: [1, 2, 3, 4, 8, 12, 16, 32][m.below(8) as usize],
        fmt: m.below(128) as u32,
        offen: m.below(2) == 0,
        idxen: m.below(2) == 0,
        inst_offset: m.below(4096) as u32,
        soffset: [0, m.below(64) as u32, m.next() as u32][m.below(3) as usize],
        align_mode: m.below(4) as u32,
        wave64: m.below(2) == 0,
        exec: [u64::MAX, m.next(), 0][m.below(3) as usize],
        ..Instr::default()
    };
    for l in 0..LANES {
        i.vindex[l] = lane(m);
        i.voffset[l] = lane(m);
    }
    i
}

/// Property: the datapath's copies for x86-64-v3 and v4 and its
/// baseline copy give the same lane results and coverage events (where
/// this CPU can run them; `compute` always runs one of them), each copy
/// in working storage it keeps from one instruction to the next, as the
/// cycle model does, against the baseline in fresh storage.
#[test]
fn every_datapath_copy_gives_the_same_results() {
    let mut m = Mix(1);
    for profile in Profile::all() {
        let copies = compute_copies();
        let mut kept: Vec<Scratch> = copies.iter().map(|_| Scratch::default()).collect();
        for _ in 0..3000 {
            let i = instr(profile, &mut m);
            let (mut base, mut base_ev) = (LaneResults::default(), Events::default());
            compute_baseline(
                profile,
                &i,
                &mut base,
                &mut base_ev,
                &mut Scratch::default(),
            );
            for ((name, copy), scratch) in copies.iter().zip(&mut kept) {
                let (mut r, mut ev) = (LaneResults::default(), Events::default());
                copy(profile, &i, &mut r, &mut ev, scratch);
                assert_eq!((&r, ev), (&base, base_ev), "{name}: {i:?}");
            }
        }
    }
}
