//! The LDS model against SPEC §2's worked examples and properties.

use gpucosim_model::lds::isa::code_of;
use gpucosim_model::lds::ports::lds_ports as P;
use gpucosim_model::lds::tlm::{Lds, Request, LANES, SLOTS};
use gpucosim_model::lds::LdsModel;
use gpucosim_model::{Profile, Unit};
use proptest::prelude::*;

fn op(name: &str) -> u8 {
    code_of(name).unwrap_or_else(|| panic!("no op {name}"))
}

fn req(name: &str, exec: u64, addr: impl Fn(usize) -> u32) -> Request {
    let mut r = Request {
        op: op(name),
        exec,
        lds_size: 64 * 1024,
        ..Request::default()
    };
    for l in 0..LANES {
        r.addr[l] = addr(l);
    }
    r
}

fn cycles(profile: Profile, r: &Request) -> u16 {
    Lds::new(profile).run(r, |_| {})
}

/// SPEC §2.2: a wave64 b32 read on 32 banks costs 2 (stride 1), 4 (stride 2),
/// 64 (stride 32), 2 (stride 33) and 2 (one address) cycles. Fails if the
/// arbitration serves a different number of dwords per bank per cycle.
#[test]
fn spec_cycle_counts_on_32_banks() {
    for (stride, want) in [(1u32, 2u16), (2, 4), (4, 8), (32, 64), (33, 2), (0, 2)] {
        let r = req("ds_read_b32", u64::MAX, |l| 4 * stride * l as u32);
        assert_eq!(cycles(Profile::Gfx9, &r), want, "gfx9 stride {stride}");
        let mut cu = r.clone();
        cu.wgp = false;
        assert_eq!(
            cycles(Profile::Gfx11, &cu),
            want,
            "gfx11 CU stride {stride}"
        );
    }
}

/// On 64 banks (gfx11 WGP mode) a 32-lane pass of stride 2 is conflict free
/// and stride 64 serialises.
#[test]
fn cycle_counts_on_64_banks() {
    for (stride, want) in [(1u32, 2u16), (2, 2), (4, 4), (32, 32), (64, 64), (65, 2)] {
        let r = req("ds_read_b32", u64::MAX, |l| 4 * stride * l as u32);
        assert_eq!(cycles(Profile::Gfx11, &r), want, "stride {stride}");
    }
    let mut w32 = req("ds_read_b32", u64::MAX, |l| 4 * l as u32);
    w32.wave64 = false;
    assert_eq!(cycles(Profile::Gfx11, &w32), 1, "wave32 stride 1");
}

#[test]
fn exec_zero_and_skipped_passes() {
    let r = req("ds_read_b32", 0, |l| 4 * l as u32);
    assert_eq!(cycles(Profile::Gfx9, &r), 1, "exec = 0 is one cycle");
    let r = req("ds_read_b32", 0xFFFF_FFFF << 32, |l| 4 * l as u32);
    assert_eq!(cycles(Profile::Gfx9, &r), 1, "pass 0 skipped");
    let r = req("ds_read_b64", 1, |_| 0);
    assert_eq!(cycles(Profile::Gfx9, &r), 1, "b64: two banks, one cycle");
    let mut w32 = req("ds_read_b32", 0xFFFF_FFFF << 32, |l| 4 * l as u32);
    w32.wave64 = false;
    assert_eq!(
        cycles(Profile::Gfx11, &w32),
        1,
        "wave32 ignores the upper exec half"
    );
    let mut bad = req("ds_read_b32", u64::MAX, |_| 0);
    bad.op = 13;
    assert_eq!(
        cycles(Profile::Gfx9, &bad),
        1,
        "an undefined op is one cycle"
    );
    // All lanes out of range: the pass still lasts one cycle.
    let mut r = req("ds_read_b32", u64::MAX, |l| 4 * l as u32);
    r.lds_size = 0;
    assert_eq!(cycles(Profile::Gfx9, &r), 2);
}

fn mem(lds: &Lds, byte: u32) -> u32 {
    lds.ram[(byte / 4) as usize]
}

/// 64 lanes add 1 to one dword: lanes are served one per cycle in lane
/// order, each sees the previous sum.
#[test]
fn atomic_add_serialises_in_lane_order() {
    for p in Profile::all() {
        let mut lds = Lds::new(p);
        let mut r = req("ds_add_rtn_u32", u64::MAX, |_| 8);
        r.data0 = [1; LANES];
        let n = lds.run(&r, |_| {});
        assert_eq!(n, 64, "{p}");
        for l in 0..LANES {
            assert_eq!(lds.out.rdata[l], l as u128, "{p} lane {l}");
        }
        assert_eq!(mem(&lds, 8), 64);
        // Without return: same memory effect, zero results.
        let r2 = Request {
            op: op("ds_add_u32"),
            ..r.clone()
        };
        lds.run(&r2, |_| {});
        assert_eq!(mem(&lds, 8), 128);
        assert!(lds.out.rdata.iter().all(|&d| d == 0));
    }
}

#[test]
fn atomic_ops_compute_per_spec() {
    let cases: &[(&str, u32, u32, u32, u32)] = &[
        // op, mem, d0, d1, new mem
        ("ds_sub_rtn_u32", 10, 3, 0, 7),
        ("ds_rsub_rtn_u32", 10, 3, 0, 3u32.wrapping_sub(10)),
        ("ds_inc_rtn_u32", 5, 5, 0, 0),
        ("ds_inc_rtn_u32", 4, 5, 0, 5),
        ("ds_dec_rtn_u32", 0, 9, 0, 9),
        ("ds_dec_rtn_u32", 10, 9, 0, 9),
        ("ds_dec_rtn_u32", 4, 9, 0, 3),
        ("ds_min_rtn_i32", 5, (-3i32) as u32, 0, (-3i32) as u32),
        ("ds_max_rtn_i32", 5, (-3i32) as u32, 0, 5),
        ("ds_min_rtn_u32", 5, (-3i32) as u32, 0, 5),
        ("ds_max_rtn_u32", 5, (-3i32) as u32, 0, (-3i32) as u32),
        ("ds_and_rtn_b32", 0b1100, 0b1010, 0, 0b1000),
        ("ds_or_rtn_b32", 0b1100, 0b1010, 0, 0b1110),
        ("ds_xor_rtn_b32", 0b1100, 0b1010, 0, 0b0110),
        ("ds_wrxchg_rtn_b32", 1, 2, 0, 2),
    ];
    for &(name, m, d0, d1, want) in cases {
        for p in Profile::all() {
            let mut lds = Lds::new(p);
            lds.ram[1] = m;
            let mut r = req(name, 1, |_| 4);
            r.data0[0] = u64::from(d0);
            r.data1[0] = u64::from(d1);
            lds.run(&r, |_| {});
            assert_eq!(lds.ram[1], want, "{name} {p}");
            assert_eq!(
                lds.out.rdata[0],
                u128::from(m),
                "{name} {p} returns the pre-op value"
            );
        }
    }
}

/// gfx9 `ds_cmpst_b32` compares DATA0 and stores DATA1; gfx11
/// `ds_cmpstore_b32` stores DATA0 and compares DATA1.
#[test]
fn cmpst_operand_order() {
    for (p, name, d0, d1) in [
        (Profile::Gfx9, "ds_cmpst_rtn_b32", 7u64, 99u64),
        (Profile::Gfx11, "ds_cmpstore_rtn_b32", 99, 7),
    ] {
        let mut lds = Lds::new(p);
        lds.ram[0] = 7;
        let mut r = req(name, 1, |_| 0);
        r.data0[0] = d0;
        r.data1[0] = d1;
        lds.run(&r, |_| {});
        assert_eq!((lds.ram[0], lds.out.rdata[0]), (99, 7), "{p} match");
        lds.run(&r, |_| {});
        assert_eq!((lds.ram[0], lds.out.rdata[0]), (99, 99), "{p} no match");
    }
}

#[test]
fn misaligned_atomic_raises_memviol_and_does_nothing() {
    let mut lds = Lds::new(Profile::Gfx9);
    let mut r = req("ds_add_rtn_u32", 0b11, |l| if l == 0 { 2 } else { 4 });
    r.data0 = [5; LANES];
    lds.run(&r, |_| {});
    assert_eq!(lds.out.memviol, 0b01);
    assert_eq!(lds.ram[0], 0);
    assert_eq!(lds.ram[1], 5);
    assert_eq!(lds.out.rdata[0], 0);
}

/// Four lanes write the bytes of one dword in one cycle, plus a fifth lane
/// writing the whole dword first: per byte the highest lane wins.
#[test]
fn sub_dword_writes_merge_highest_lane_wins() {
    let mut lds = Lds::new(Profile::Gfx11);
    let mut r = req("ds_write_b32", 1, |_| 16);
    r.data0[0] = 0xAAAA_AAAA;
    lds.run(&r, |_| {});
    let mut r = req("ds_write_b8", 0b11111, |l| {
        16 + [0, 1, 2, 1, 3].get(l).copied().unwrap_or(0)
    });
    for l in 0..5 {
        r.data0[l] = 0x10 + l as u64;
    }
    let mut grants = vec![];
    let n = lds.run(&r, |s| grants.push(s.grant_lanes));
    assert_eq!(n, 1, "broadcast: one cycle");
    assert_eq!(grants, vec![0b11111]);
    assert_eq!(lds.ram[4], 0x1412_1310);
}

#[test]
fn loads_sign_extend_and_place_bytes() {
    let mut lds = Lds::new(Profile::Gfx9);
    lds.ram[0] = 0x8070_F0E0;
    lds.ram[1] = 0x1122_3344;
    let run = |lds: &mut Lds, name: &str, a: u32, unaligned: bool| {
        let mut r = req(name, 1, |_| a);
        r.unaligned = unaligned;
        lds.run(&r, |_| {});
        lds.out.rdata[0]
    };
    assert_eq!(run(&mut lds, "ds_read_u8", 1, false), 0xF0);
    assert_eq!(run(&mut lds, "ds_read_i8", 1, false), 0xFFFF_FFF0);
    assert_eq!(run(&mut lds, "ds_read_i8", 2, false), 0x70);
    assert_eq!(run(&mut lds, "ds_read_i16", 2, false), 0xFFFF_8070);
    assert_eq!(
        run(&mut lds, "ds_read_u16", 3, false),
        0x8070,
        "DWORD mode aligns down"
    );
    assert_eq!(
        run(&mut lds, "ds_read_u16", 3, true),
        0x4480,
        "UNALIGNED straddles"
    );
    assert_eq!(run(&mut lds, "ds_read_b32", 2, true), 0x3344_8070);
    assert_eq!(run(&mut lds, "ds_read_b32", 2, false), 0x8070_F0E0);
    assert_eq!(
        run(&mut lds, "ds_read_b64", 4, false),
        0x1122_3344_8070_F0E0
    );
    assert_eq!(run(&mut lds, "ds_read_b64", 4, true), 0x1122_3344);
}

#[test]
fn read2_and_st64_addressing() {
    let mut lds = Lds::new(Profile::Gfx11);
    for d in 0..RAM {
        lds.ram[d] = d as u32;
    }
    let mut r = req("ds_read2_b32", 1, |_| 8);
    r.offset0 = 1;
    r.offset1 = 3;
    lds.run(&r, |_| {});
    assert_eq!(lds.out.rdata[0], 3 | 5 << 32);
    let mut r = req("ds_read2st64_b64", 1, |_| 0);
    r.offset0 = 1;
    r.offset1 = 2;
    lds.run(&r, |_| {});
    // element 0 at byte 512 (dwords 128, 129), element 1 at 1024 (256, 257)
    assert_eq!(lds.out.rdata[0], 128 | 129 << 32 | 256 << 64 | 257 << 96);
    let mut r = req("ds_read_addtid_b32", 0b110, |_| 0xDEAD);
    r.offset0 = 4;
    r.m0 = 8 | 3;
    lds.run(&r, |_| {});
    assert_eq!(lds.out.rdata[1], 4);
    assert_eq!(lds.out.rdata[2], 5);
    assert_eq!(lds.out.rdata[0], 0, "inactive lane");
}
const RAM: usize = 1024;

#[test]
fn out_of_range_is_per_dword() {
    let mut lds = Lds::new(Profile::Gfx9);
    lds.ram[62] = 0x1234;
    lds.ram[63] = 0x5678;
    let mut r = req("ds_read_b64", 1, |_| 248);
    r.lds_size = 252;
    lds.run(&r, |_| {});
    assert_eq!(lds.out.rdata[0], 0x1234);
    assert_eq!(lds.out.oor[0], 0b10);
    let mut w = req("ds_write_b64", 1, |_| 248);
    w.lds_size = 252;
    w.data0[0] = 0xAAAA_BBBB_CCCC_DDDD;
    lds.run(&w, |_| {});
    assert_eq!((lds.ram[62], lds.ram[63]), (0xCCCC_DDDD, 0x5678));
    // The base moves the physical address, not the check.
    let mut w = req("ds_write_b32", 1, |_| 4);
    w.lds_size = 256;
    w.lds_base = 2;
    w.data0[0] = 9;
    lds.run(&w, |_| {});
    assert_eq!(lds.ram[128 + 1], 9);
}

#[test]
fn permutes() {
    for p in Profile::all() {
        let mut r = req("ds_bpermute_b32", !(1u64 << 5), |l| 4 * (l as u32 + 1));
        for l in 0..LANES {
            r.data0[l] = 100 + l as u64;
        }
        let mut lds = Lds::new(p);
        let n = lds.run(&r, |_| {});
        assert_eq!(n, 2, "{p}: one cycle per pass");
        assert_eq!(lds.out.rdata[0], 101);
        assert_eq!(lds.out.rdata[4], 0, "{p}: reading a disabled lane gives 0");
        assert_eq!(lds.out.rdata[5], 0, "{p}: disabled lane not written");
        let wrap = if p == Profile::Gfx9 { 132 } else { 100 };
        assert_eq!(
            lds.out.rdata[31], wrap,
            "{p}: lane 31 reads lane 32 or wraps in its half"
        );
        let top = if p == Profile::Gfx9 { 100 } else { 132 };
        assert_eq!(lds.out.rdata[63], top, "{p}");
        // permute: all lanes to lane 7, the highest source wins.
        let mut q = req("ds_permute_b32", 0xFF, |_| 28);
        q.data0 = r.data0;
        lds.run(&q, |_| {});
        assert_eq!(lds.out.rdata[7], 107);
        assert_eq!(lds.out.rdata[0], 0);
    }
}

/// The port-level model: acceptance, BUSY cycles with grants, a done cycle
/// with the results, back-to-back acceptance in the done cycle.
#[test]
fn unit_timing_through_the_ports() {
    let mut m = LdsModel::new(Profile::Gfx9);
    let t = &P::TABLE;
    let mut inp = vec![0u32; t.in_words()];
    let mut out = vec![0u32; t.out_words()];
    m.step(&inp, &mut out);
    assert!(P::req_ready_o.bit(&out), "reset shows ready");
    P::rst_ni.set(&mut inp, 1);
    P::req_valid_i.set(&mut inp, 1);
    P::op_i.set(&mut inp, u64::from(op("ds_write_b32")));
    P::exec_i.set(&mut inp, u64::MAX);
    P::lds_size_i.set(&mut inp, 65536);
    for l in 0..64 {
        P::addr_i.set_elem(&mut inp, l, 8 * l as u64);
        P::data0_i.set_elem(&mut inp, l, 1000 + l as u64);
    }
    m.step(&inp, &mut out); // accept
    assert!(P::req_ready_o.bit(&out));
    P::req_valid_i.set(&mut inp, 0);
    for _ in 0..4 {
        m.step(&inp, &mut out);
        assert!(P::busy_o.bit(&out) && !P::req_ready_o.bit(&out) && !P::done_o.bit(&out));
        assert_eq!(
            P::grant_banks_o.get(&out),
            0x5555_5555,
            "stride 2: even banks"
        );
    }
    // Read back, accepted in the done cycle.
    let mut out2 = out.clone();
    P::req_valid_i.set(&mut inp, 1);
    P::op_i.set(&mut inp, u64::from(op("ds_read_b32")));
    m.step(&inp, &mut out2);
    assert!(P::done_o.bit(&out2) && P::req_ready_o.bit(&out2) && !P::busy_o.bit(&out2));
    assert_eq!(P::cycles_o.get(&out2), 4);
    P::req_valid_i.set(&mut inp, 0);
    loop {
        m.step(&inp, &mut out2);
        if P::done_o.bit(&out2) {
            break;
        }
        assert!(!P::req_ready_o.bit(&out2));
    }
    for l in 0..64 {
        assert_eq!(P::rdata_o.slice(&out2)[4 * l], 1000 + l as u32);
    }
    assert_eq!(
        m.coverage().hits[m
            .coverage()
            .names
            .iter()
            .position(|n| *n == "back_to_back")
            .unwrap()],
        1
    );
}

/// A byte-addressed reference memory: applies each store's bytes in
/// ascending (lane, element, byte) order and reads loads byte by byte.
struct RefMem {
    bytes: Vec<u8>,
}

impl RefMem {
    fn elems(r: &Request, l: usize, w: u32, two: bool, st64: bool) -> Vec<(u32, u64)> {
        let off16 = (r.offset1 as u32) << 8 | r.offset0 as u32;
        let mut v = vec![];
        if two {
            let adj = w * if st64 { 64 } else { 1 };
            v.push((r.addr[l].wrapping_add(r.offset0 as u32 * adj), r.data0[l]));
            v.push((r.addr[l].wrapping_add(r.offset1 as u32 * adj), r.data1[l]));
        } else {
            v.push((r.addr[l].wrapping_add(off16), r.data0[l]));
        }
        if !r.unaligned {
            for e in v.iter_mut() {
                e.0 &= !(w - 1);
            }
        }
        v
    }
    fn phys(r: &Request, a: u32, ram_bytes: u32) -> Option<usize> {
        let dw = a >> 2;
        if dw as u64 * 4 >= r.lds_size as u64 {
            return None;
        }
        Some(((r.lds_base as u32 * 256 + dw * 4) % ram_bytes + (a & 3)) as usize)
    }
}

const STRIDES: &[u32] = &[0, 1, 2, 4, 8, 16, 32, 33, 64, 3];

fn arb_request(store: bool) -> impl Strategy<Value = Request> {
    let ops: &[&str] = if store {
        &[
            "ds_write_b8",
            "ds_write_b16",
            "ds_write_b32",
            "ds_write_b64",
            "ds_write2_b32",
            "ds_write2st64_b64",
        ]
    } else {
        &[
            "ds_read_u8",
            "ds_read_u16",
            "ds_read_b32",
            "ds_read_b64",
            "ds_read2_b32",
            "ds_read2st64_b64",
        ]
    };
    (
        proptest::sample::select(ops.to_vec()),
        proptest::sample::select(STRIDES.to_vec()),
        any::<u64>(),
        0u32..64,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        (0u8..4, 0u8..4),
        proptest::collection::vec(any::<u64>(), 64),
        proptest::collection::vec(any::<u64>(), 64),
    )
        .prop_map(
            |(name, stride, exec, start, unaligned, wave64, wgp, (o0, o1), d0, d1)| {
                let mut r = req(name, exec, |l| {
                    4 * start + 4 * stride * l as u32 + (l as u32 % 3) * unaligned as u32
                });
                r.unaligned = unaligned;
                r.wave64 = wave64;
                r.wgp = wgp;
                r.offset0 = o0;
                r.offset1 = o1;
                r.lds_size = 4096 + 512;
                r.lds_base = 3;
                r.data0.copy_from_slice(&d0);
                r.data1.copy_from_slice(&d1);
                r
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Property: under every conflict pattern (strides 0, 1, 2 … 64, odd,
    /// unaligned, partial exec, both modes), a load returns exactly what the
    /// earlier stores wrote, byte for byte, and out-of-range bytes read 0.
    #[test]
    fn loads_return_what_earlier_stores_wrote(
        profile in proptest::sample::select(vec![Profile::Gfx9, Profile::Gfx11]),
        stores in proptest::collection::vec(arb_request(true), 1..4),
        loads in proptest::collection::vec(arb_request(false), 1..4),
    ) {
        let mut lds = Lds::new(profile);
        let mut refm = RefMem { bytes: vec![0; 128 * 1024] };
        let gfx9 = profile == Profile::Gfx9;
        for r in stores.iter().chain(loads.iter()) {
            let wgp = r.wgp && !gfx9;
            let ram_bytes = if wgp { 128 * 1024 } else { 64 * 1024 };
            let info = gpucosim_model::lds::isa::OpInfo::decode(r.op);
            let w = info.width as u32;
            let wave64 = r.wave64 || gfx9;
            lds.run(r, |_| {});
            for l in 0..LANES {
                let active = r.exec >> l & 1 != 0 && (l < 32 || wave64);
                let mut want: u128 = 0;
                if active {
                    for (e, (a, d)) in RefMem::elems(r, l, w, info.two, info.st64).into_iter().enumerate() {
                        for i in 0..w {
                            let ba = a.wrapping_add(i);
                            let p = RefMem::phys(r, ba, ram_bytes);
                            if info.kind == gpucosim_model::lds::isa::Kind::Store {
                                if let Some(p) = p {
                                    refm.bytes[p] = (d >> (8 * i)) as u8;
                                }
                            } else if let Some(p) = p {
                                want |= (refm.bytes[p] as u128) << (8 * (e as u32 * w + i));
                            }
                        }
                    }
                }
                if info.kind != gpucosim_model::lds::isa::Kind::Store {
                    prop_assert_eq!(lds.out.rdata[l], want, "lane {} of {:?}", l, r.op);
                }
            }
        }
        for (d, v) in lds.ram.iter().enumerate() {
            let b = &refm.bytes[4 * d..4 * d + 4];
            prop_assert_eq!(*v, u32::from_le_bytes([b[0], b[1], b[2], b[3]]), "dword {}", d);
        }
    }
}

/// SPEC §2.1 (**Decided**): addtid addresses are `{offset1, offset0} +
/// lane_id * 4 + M0` with M0's low two bits ignored. In UNALIGNED mode
/// (where nothing else would realign the address) M0 = 0x100 | k reads,
/// for every k, lane l's dword at (0x10 + 4l + 0x100) / 4 = 0x44 + l, and
/// writes land there too. Fails if M0's low bits move the address.
#[test]
fn spec_2_1_addtid_ignores_m0_low_bits() {
    for p in Profile::all() {
        for k in 0..4u32 {
            let mut lds = Lds::new(p);
            for d in 0..RAM {
                lds.ram[d] = d as u32;
            }
            let mut r = req("ds_read_addtid_b32", 0b1011, |_| 0xDEAD_BEEF);
            r.unaligned = true;
            r.offset0 = 0x10;
            r.m0 = 0x100 | k;
            lds.run(&r, |_| {});
            for l in [0usize, 1, 3] {
                assert_eq!(
                    lds.out.rdata[l],
                    0x44 + l as u128,
                    "{p} M0 low {k} lane {l}"
                );
            }
            let mut w = req("ds_write_addtid_b32", 0b1, |_| 0);
            w.unaligned = true;
            w.offset0 = 0x10;
            w.m0 = 0x100 | k;
            w.data0[0] = 0x1234_5678;
            lds.run(&w, |_| {});
            assert_eq!(lds.ram[0x44], 0x1234_5678, "{p} M0 low {k}");
            assert_eq!(
                (lds.ram[0x43], lds.ram[0x45]),
                (0x43, 0x45),
                "{p} M0 low {k}"
            );
        }
    }
}

/// SPEC §2.1 (**Decided**): byte addresses are 32-bit and wrap; an
/// unaligned access running past 0xFFFFFFFF continues at 0, and each dword
/// is range checked on its own. A b32 at 0xFFFFFFFE (UNALIGNED) touches
/// bytes FFFFFFFE, FFFFFFFF (dword 0x3FFFFFFF, out of range: reads 0, writes
/// dropped) and bytes 0, 1 (dword 0, in range). With dword 0 = 0xAABBCCDD
/// the load returns bytes [0, 0, 0xDD, 0xCC] = 0xCCDD0000, out-of-range
/// mask 0b01 (slot 0 out, slot 1 in); storing 0x11223344 writes 0x22 to byte
/// 0 and 0x11 to byte 1: dword 0 becomes 0xAABB1122. Fails if the address
/// saturates or stops at 0xFFFFFFFF, or the whole access is judged as one.
#[test]
fn spec_2_1_addresses_wrap_and_each_dword_is_range_checked() {
    for p in Profile::all() {
        let mut lds = Lds::new(p);
        lds.ram[0] = 0xAABB_CCDD;
        let mut r = req("ds_read_b32", 1, |_| 0xFFFF_FFFE);
        r.unaligned = true;
        lds.run(&r, |_| {});
        assert_eq!(lds.out.rdata[0], 0xCCDD_0000, "{p}");
        assert_eq!(lds.out.oor[0], 0b01, "{p}");
        let mut w = req("ds_write_b32", 1, |_| 0xFFFF_FFFE);
        w.unaligned = true;
        w.data0[0] = 0x1122_3344;
        lds.run(&w, |_| {});
        assert_eq!(lds.ram[0], 0xAABB_1122, "{p}");
        assert_eq!(lds.out.oor[0], 0b01, "{p}");
        // The offset field wraps the same way: 0xFFFFFFF0 + 0x10 = 0.
        let mut r = req("ds_read_b32", 1, |_| 0xFFFF_FFF0);
        r.offset0 = 0x10;
        lds.run(&r, |_| {});
        assert_eq!(lds.out.rdata[0], 0xAABB_1122, "{p}");
        assert_eq!(lds.out.oor[0], 0, "{p}");
    }
}

/// The bytes `from..from + n` of the RAM, little-endian, as one value.
fn bytes(lds: &Lds, from: u32, n: u32) -> u128 {
    (0..n).fold(0, |v, i| {
        let b = from + i;
        v | u128::from(mem(lds, b & !3) >> (8 * (b & 3)) & 0xff) << (8 * i)
    })
}

/// SPEC §2.3 (decided): b96 and b128 take bytes 0-7 from DATA0 and 8-15
/// from DATA1; DWORD mode aligns a b96 down to 4 bytes and a b128 down to
/// 16; UNALIGNED mode accesses every dword the access overlaps (five for
/// a b128 at an odd address); each dword is range checked on its own.
/// Fails if b96 is aligned down to its size, if a byte above the element
/// is written, or if a read places its bytes wrongly.
#[test]
fn b96_and_b128_address_place_and_check_each_dword() {
    let (d0, d1) = (0x0807_0605_0403_0201u64, 0x100f_0e0d_0c0b_0a09u64);
    for p in Profile::all() {
        for (name, n, addr, unaligned, at) in [
            ("ds_write_b96", 12, 0x46, false, 0x44),
            ("ds_write_b96", 12, 0x44, false, 0x44),
            ("ds_write_b128", 16, 0x46, false, 0x40),
            ("ds_write_b128", 16, 0x4c, false, 0x40),
            ("ds_write_b96", 12, 0x43, true, 0x43),
            ("ds_write_b128", 16, 0x43, true, 0x43),
        ] {
            let mut lds = Lds::new(p);
            let mut w = req(name, 1, |_| addr);
            w.unaligned = unaligned;
            w.data0[0] = d0;
            w.data1[0] = d1;
            lds.run(&w, |_| {});
            let want = (u128::from(d1) << 64 | u128::from(d0)) & (u128::MAX >> (128 - 8 * n));
            assert_eq!(bytes(&lds, at, n), want, "{p} {name} at {addr:#x}");
            // Nothing outside the element.
            assert_eq!(bytes(&lds, at - 3, 3), 0, "{p} {name} below");
            assert_eq!(bytes(&lds, at + n, 4), 0, "{p} {name} above");
            let read = name.replace("write", "read");
            let mut r = req(&read, 1, |_| addr);
            r.unaligned = unaligned;
            lds.run(&r, |_| {});
            assert_eq!(lds.out.rdata[0], want, "{p} {read} at {addr:#x}");
            // The dwords touched: 3 or 4, one more when unaligned across.
            let dwords = if unaligned { n / 4 + 1 } else { n / 4 };
            assert_eq!(
                lds.out.oor[0], 0,
                "{p} {read}: {dwords} dwords, all in range"
            );
            // The last dword out of range: only it is dropped.
            let mut edge = r.clone();
            edge.lds_size = (at & !3) + 4 * (dwords - 1);
            lds.run(&edge, |_| {});
            assert_eq!(
                lds.out.oor[0],
                1 << (dwords - 1),
                "{p} {read}: only the last dword out of range"
            );
            assert_eq!(
                lds.out.rdata[0],
                want & !(u128::MAX << (8 * (4 * (dwords - 1) - (at & 3)))),
                "{p} {read}: the last dword reads 0"
            );
        }
    }
}

/// SPEC §2.2: a lane contributes one access per dword, so 32 lanes of a
/// b128 at consecutive 16-byte addresses put four accesses on every one
/// of 32 banks: 4 cycles a pass, 8 for a wave64; a b96 at 12-byte steps
/// (96 dwords over 32 banks) costs 3 a pass.
#[test]
fn b96_and_b128_conflicts_count_dwords() {
    let r = req("ds_read_b128", u64::MAX, |l| 16 * l as u32);
    assert_eq!(cycles(Profile::Gfx9, &r), 8);
    let r = req("ds_read_b96", u64::MAX, |l| 12 * l as u32);
    assert_eq!(cycles(Profile::Gfx9, &r), 6);
    let mut w32 = req("ds_write_b128", u64::MAX, |l| 16 * l as u32);
    w32.wave64 = false;
    assert_eq!(cycles(Profile::Gfx11, &w32), 2, "64 banks: two cycles");
}

/// SPEC §2.2's arbitration, cycle by cycle, over the slots `pending` (slot
/// indices, ascending) of one pass: in each cycle every bank's winner is
/// its lowest pending slot; a load or store serves with it every pending
/// slot on the winner's dword, an atomic only the winners. The slots
/// served in each cycle, ascending; one empty cycle if nothing is pending.
fn spec_schedule(lds: &Lds, mut pending: Vec<usize>, atomic: bool) -> Vec<Vec<usize>> {
    let mut cycles = Vec::new();
    while !pending.is_empty() || cycles.is_empty() {
        let mut winners: Vec<usize> = Vec::new();
        for &i in &pending {
            if !winners
                .iter()
                .any(|&w| lds.slot(w).bank == lds.slot(i).bank)
            {
                winners.push(i);
            }
        }
        let served: Vec<usize> = pending
            .iter()
            .copied()
            .filter(|&i| {
                winners.contains(&i)
                    || !atomic
                        && winners
                            .iter()
                            .any(|&w| lds.slot(w).dword == lds.slot(i).dword)
            })
            .collect();
        pending.retain(|i| !served.contains(i));
        cycles.push(served);
    }
    cycles
}

fn arb_any_request() -> impl Strategy<Value = Request> {
    let ops = vec![
        "ds_read_b32",
        "ds_read_u8",
        "ds_read_b64",
        "ds_read_b96",
        "ds_read_b128",
        "ds_read2_b32",
        "ds_read2st64_b64",
        "ds_write_b32",
        "ds_write_b16",
        "ds_write_b64",
        "ds_write_b128",
        "ds_write2_b64",
        "ds_add_u32",
        "ds_add_rtn_u32",
        "ds_max_u32",
    ];
    (
        proptest::sample::select(ops),
        // Strides whose lanes ascend, wrap in a small window, or repeat;
        // or a random address per lane (`None`).
        proptest::option::weighted(0.8, proptest::sample::select(STRIDES.to_vec())),
        0u32..600,
        prop_oneof![Just(u64::MAX), any::<u64>(), Just(0xFFFF_FFFF_0000_0000)],
        (any::<bool>(), any::<bool>(), any::<bool>(), 0u8..4, 0u8..4),
        prop_oneof![Just(64u32), Just(1024), Just(1 << 20)],
        proptest::collection::vec(0u32..4096, 64),
    )
        .prop_map(
            |(name, stride, start, exec, (unaligned, wave64, wgp, o0, o1), window, rnd)| {
                let mut r = req(name, exec, |l| match stride {
                    Some(s) => 4 * ((start + s * l as u32) % window),
                    None => 4 * rnd[l],
                });
                r.unaligned = unaligned;
                r.wave64 = wave64;
                r.wgp = wgp;
                r.offset0 = o0;
                r.offset1 = o1;
                r.lds_size = 12 * 1024;
                r
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Property: every pass serves, cycle by cycle, the slots SPEC §2.2's
    /// arbitration serves (`spec_schedule`, a direct simulation over the
    /// in-range slots of the pass's lanes), whether the lanes' dwords
    /// ascend, repeat, wrap or are random. Fails if the schedule the model
    /// computes at acceptance (each bank's dwords in the order of their
    /// first slot, atomics one slot a cycle) groups or orders a slot
    /// differently.
    #[test]
    fn each_pass_serves_what_the_spec_arbitration_serves(
        profile in proptest::sample::select(vec![Profile::Gfx9, Profile::Gfx11]),
        r in arb_any_request(),
    ) {
        let mut lds = Lds::new(profile);
        let mut got: Vec<(u8, Vec<usize>)> = Vec::new();
        lds.run(&r, |l| got.push((l.pass(), l.served().collect())));
        let atomic = lds.info().kind == gpucosim_model::lds::isa::Kind::Atomic;
        let (exists, oor) = (lds.slot_mask(), lds.oor_mask());
        let mut at = 0;
        while at < got.len() {
            let pass = got[at].0;
            let len = got[at..].iter().take_while(|(p, _)| *p == pass).count();
            let lanes = 32 * usize::from(pass)..32 * usize::from(pass) + 32;
            let pending: Vec<usize> = lanes
                .flat_map(|l| (0..SLOTS).map(move |k| (l, k)))
                .filter(|&(l, k)| exists[l] >> k & 1 != 0 && oor[l] >> k & 1 == 0)
                .map(|(l, k)| SLOTS * l + k)
                .collect();
            let want = spec_schedule(&lds, pending, atomic);
            let cycles: Vec<Vec<usize>> = got[at..at + len].iter().map(|(_, s)| s.clone()).collect();
            prop_assert_eq!(cycles, want, "pass {} of {:?}", pass, r);
            at += len;
        }
    }
}
