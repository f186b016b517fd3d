use gpucosim_kernel::asm;
use gpucosim_kernel::emu::*;
use gpucosim_model::Profile;
use launch::Launch;
use ops::Op;

fn edge() -> (asm::Program, Profile) {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/kernels/emu/edge.gfx900.s");
    gpucosim_kernel::read(&p, None).unwrap()
}

const LAUNCH: &str = r#"{"grid": [64], "lds_size": 512, "args": {"in": {"size": 256, "fill": "index"}, "out": {"size": 256}}}"#;

#[test]
fn the_lds_units_read_data_must_be_the_emulators() {
    let (prog, profile) = edge();
    let l = Launch::parse(LAUNCH, &prog, profile, None, None).unwrap();
    let k = &prog.kernels[0];
    let mut e = Emulator::new(profile, k, &l).unwrap();
    e.run().unwrap();
    assert_eq!(e.buffer_words("out").unwrap()[63], Some(63));
    // The unit's RAM holds a value the emulator's LDS does not: lane 63
    // reads dword 64 (in the 512-byte allocation, never written).
    let mut e = Emulator::new(profile, k, &l).unwrap();
    e.unit.ram[64] = 0xbad;
    let err = e.run().unwrap_err();
    assert!(
        err.contains("ds_read2_b32")
            && err.contains("lane 63: the LDS unit's model returned 0xbad0000003f, the emulator's LDS holds 0x3f"),
        "{err}"
    );
}

/// Runs the hand-written kernel `body` (an instruction a line) for
/// `target` on 64 work-items with one buffer argument `out` of `bytes`;
/// the buffer's words after the run.
fn run_hand(target: &str, body: &str, bytes: u32) -> Vec<Option<u32>> {
    run_hand_with(target, body, "", bytes).unwrap()
}

/// `run_hand` with `after` (data objects, …) after the function; the
/// emulation's error if it fails.
fn run_hand_with(
    target: &str,
    body: &str,
    after: &str,
    bytes: u32,
) -> Result<Vec<Option<u32>>, String> {
    let body: String = body.lines().map(|l| format!("\t{}\n", l.trim())).collect();
    let text = format!(
        "\t.amdgcn_target \"amdgcn-amd-amdhsa--{target}\"\n\t.type k,@function\nk:\n{body}.Lfunc_end0:\n{after}\
        \t.amdhsa_kernel k\n\t\t.amdhsa_user_sgpr_private_segment_buffer 1\n\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n\t\t.amdhsa_user_sgpr_count 6\n\t\t.amdhsa_system_vgpr_workitem_id 0\n\t.end_amdhsa_kernel\n\
        \t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .args:\n      - .name: out\n        .offset: 0\n        .size: 8\n        .value_kind: global_buffer\n    .name: k\n    .reqd_workgroup_size:\n      - 64\n      - 1\n      - 1\n\t.end_amdgpu_metadata\n"
    );
    let prog = asm::parse(&text).unwrap();
    let profile = if target == "gfx900" {
        Profile::Gfx9
    } else {
        Profile::Gfx11
    };
    let l = Launch::parse(
        &format!(r#"{{"grid": [64], "args": {{"out": {{"size": {bytes}}}}}}}"#),
        &prog,
        profile,
        None,
        None,
    )
    .unwrap();
    let mut e = Emulator::new(profile, &prog.kernels[0], &l)?;
    e.run()?;
    Ok(e.buffer_words("out").unwrap())
}

/// The integer ISA the public benchmark suites need, by hand: v_perm,
/// clamp on integer adds and subtracts (unsigned and signed), neg and
/// abs on v_cndmask, gfx9's GPR index mode and v_movrels.
#[test]
fn perm_clamp_cndmask_modifiers_and_register_indexing_by_hand() {
    let out = run_hand(
        "gfx900",
        "s_load_dwordx2 s[0:1], s[4:5], 0x0
            v_lshlrev_b32_e32 v9, 2, v0
            v_mov_b32_e32 v1, 0x11223344
            v_mov_b32_e32 v2, 0x55667788
            v_mov_b32_e32 v3, 0x0c010407
            v_perm_b32 v4, v1, v2, v3
            s_waitcnt lgkmcnt(0)
            global_store_dword v9, v4, s[0:1]
            v_mov_b32_e32 v3, 0x0d0b0809
            v_perm_b32 v4, v1, v2, v3
            global_store_dword v9, v4, s[0:1] offset:256
            v_mov_b32_e32 v5, 3
            v_sub_u32_e64 v6, v5, 5 clamp
            global_store_dword v9, v6, s[0:1] offset:512
            v_mov_b32_e32 v5, -2
            v_add_u32_e64 v6, v5, 5 clamp
            global_store_dword v9, v6, s[0:1] offset:768
            v_mov_b32_e32 v5, 0x7ffffffe
            v_add_i32 v6, v5, 5 clamp
            global_store_dword v9, v6, s[0:1] offset:1024
            v_sub_i32 v6, -5, v5 clamp
            global_store_dword v9, v6, s[0:1] offset:1280
            v_mov_b32_e32 v8, 0x80000004
            v_cmp_gt_u32_e32 vcc, 32, v0
            v_cndmask_b32_e64 v7, -v5, |v8|, vcc
            global_store_dword v9, v7, s[0:1] offset:1536
            v_mov_b32_e32 v20, 10
            v_mov_b32_e32 v21, 11
            v_mov_b32_e32 v22, 12
            v_mov_b32_e32 v23, 13
            s_mov_b32 s10, 2
            s_set_gpr_idx_on s10, gpr_idx(SRC0)
            v_mov_b32_e32 v24, v20
            s_set_gpr_idx_off
            s_mov_b32 m0, 3
            v_movrels_b32_e32 v25, v20
            v_mov_b32_e32 v26, 100
            s_mov_b32 m0, 1
            v_movreld_b32_e32 v20, v26
            v_add_u32_e32 v24, v24, v25
            v_add_u32_e32 v24, v24, v21
            global_store_dword v9, v24, s[0:1] offset:1792
            s_endpgm",
        2048,
    );
    for lane in 0..64 {
        let at = |k: usize| out[64 * k + lane];
        // {a, b} bytes 7 (0x11), 4 (0x44), 1 (0x77), then 0.
        assert_eq!(at(0), Some(0x0077_4411), "perm");
        // 9: sign of byte 3 (0x55: 0); 8: of byte 1 (0x77: 0); 11: of
        // byte 7 (0x11: 0); 13: 0xff.
        assert_eq!(at(1), Some(0xff00_0000), "perm signs");
        assert_eq!(at(2), Some(0), "3 - 5 saturates at 0");
        assert_eq!(at(3), Some(u32::MAX), "0xfffffffe + 5 saturates");
        assert_eq!(at(4), Some(0x7fff_ffff), "signed saturation up");
        assert_eq!(at(5), Some(0x8000_0000), "signed saturation down");
        let want = if lane < 32 { 4 } else { 0xffff_fffe };
        assert_eq!(at(6), Some(want), "cndmask with |v8| and -v5");
        // v22 (12) + v23 (13) + v21 (100, written through M0 = 1).
        assert_eq!(at(7), Some(125), "indexed moves");
    }
}

/// Lane masks that LLVM builds from an undefined register and EXEC
/// (`s_andn2_b64 s, s, exec` …) keep the bits EXEC decides, so the
/// loops that use them run; a mask that is really unknown stays an
/// error.
#[test]
fn scalar_masks_keep_the_bits_they_know() {
    let out = run_hand_with(
        "gfx900",
        "s_load_dwordx2 s[0:1], s[4:5], 0x0
            v_lshlrev_b32_e32 v9, 2, v0
            v_cmp_gt_u32_e32 vcc, 16, v0
            s_and_saveexec_b64 s[2:3], vcc
            s_andn2_b64 s[18:19], s[18:19], exec
            s_and_b64 s[20:21], exec, s[18:19]
            s_cbranch_scc1 .Lbad
            s_or_b64 s[24:25], s[18:19], exec
            s_and_saveexec_b64 s[26:27], s[24:25]
            v_mov_b32_e32 v1, 7
            s_waitcnt lgkmcnt(0)
            global_store_dword v9, v1, s[0:1]
            .Lbad:
            s_endpgm",
        "",
        256,
    )
    .unwrap();
    for (lane, v) in out.iter().enumerate() {
        assert_eq!(*v, Some(if lane < 16 { 7 } else { 0 }), "lane {lane}");
    }
    let e = run_hand_with(
        "gfx900",
        "v_cmp_gt_u32_e32 vcc, 16, v0
            s_and_saveexec_b64 s[2:3], vcc
            s_andn2_b64 s[18:19], s[18:19], exec
            s_mov_b64 exec, s[18:19]
            s_endpgm",
        "",
        256,
    )
    .unwrap_err();
    assert!(e.contains("EXEC would depend on a symbolic value"), "{e}");
}

/// A data object of the file (a lookup table) read through
/// `s_getpc_b64` and the `@rel32@lo`/`@rel32@hi` adds, its bytes as
/// its directives give them; the bytes past the kernel argument segment
/// up to 16 are there, unknown.
#[test]
fn data_objects_are_read_through_getpc() {
    let table = "\t.type tbl,@object
\t.section .rodata,\"a\",@progbits
\t.p2align 4
tbl:
\t.long 10, 20
\t.long 0x1e
\t.short 40, 0
\t.byte 50, 0, 0, 0
\t.zero 4
\t.size tbl, 24
";
    let body = "s_load_dwordx4 s[0:3], s[4:5], 0x0
            s_getpc_b64 s[6:7]
            s_add_u32 s6, s6, tbl@rel32@lo+8
            s_addc_u32 s7, s7, tbl@rel32@hi+16
            v_lshlrev_b32_e32 v1, 2, v0
            v_and_b32_e32 v2, 3, v0
            v_lshlrev_b32_e32 v2, 2, v2
            global_load_dword v3, v2, s[6:7]
            v_mov_b32_e32 v4, s2
            s_waitcnt vmcnt(0) lgkmcnt(0)
            global_store_dword v1, v3, s[0:1]
            global_store_dword v1, v4, s[0:1] offset:256
            s_endpgm";
    for target in ["gfx900", "gfx1100"] {
        let out = run_hand_with(target, body, table, 512).unwrap();
        for lane in 0..64 {
            assert_eq!(
                out[lane],
                Some([20, 30, 40, 50][lane % 4]),
                "{target} lane {lane}"
            );
            assert_eq!(out[64 + lane], None, "{target}: kernarg padding is unknown");
        }
    }
    let e = run_hand_with("gfx900", &body.replace("tbl@", "nowhere@"), table, 512).unwrap_err();
    assert!(
        e.contains("`nowhere` is not a data object of the file"),
        "{e}"
    );
    let e = run_hand_with(
        "gfx900",
        &body.replace(
            "s_addc_u32 s7, s7, tbl@rel32@hi+16",
            "s_nop 0\ns_addc_u32 s7, s7, tbl@rel32@hi+16",
        ),
        table,
        512,
    )
    .unwrap_err();
    assert!(e.contains("a PC-relative address other than"), "{e}");
    let broken = table.replace("\t.zero 4", "\t.quad other");
    let out = run_hand_with("gfx900", body, &broken, 512).unwrap();
    assert_eq!(out[0], None, "a table with an address in it reads unknown");
}

/// binary16 by hand on both profiles: a conversion, a fused
/// multiply-add whose op_sel reads and writes high halves, an add with
/// an inline constant (the binary16 0.5), a compare with a literal; gfx9
/// zeroes a 16-bit result's high half, gfx11 keeps it.
#[test]
fn binary16_and_op_sel_by_hand() {
    for target in ["gfx900", "gfx1100"] {
        let out = run_hand(
            target,
            "s_load_dwordx2 s[0:1], s[4:5], 0x0
                v_lshlrev_b32_e32 v9, 2, v0
                v_cvt_f32_u32_e32 v1, v0
                v_mov_b32_e32 v2, 0
                v_cvt_f16_f32_e32 v2, v1
                v_mov_b32_e32 v3, 0x3c004000
                v_mov_b32_e32 v4, 0
                v_fma_f16 v4, v2, v3, v3 op_sel:[0,1,0,1]
                v_mov_b32_e32 v5, 0xdead0000
                v_add_f16_e32 v5, 0.5, v2
                v_cmp_gt_f16_e32 vcc, 0x5000, v2
                v_cndmask_b32_e64 v6, 0, 1, vcc
                v_cvt_f32_f16_e32 v7, v5
                s_waitcnt lgkmcnt(0)
                global_store_dword v9, v4, s[0:1]
                global_store_dword v9, v5, s[0:1] offset:256
                global_store_dword v9, v6, s[0:1] offset:512
                global_store_dword v9, v7, s[0:1] offset:768
                s_endpgm",
            1024,
        );
        for lane in 0..64 {
            let h = |x: f64| u32::from(half::from_f64(x));
            let at = |k: usize| out[64 * k + lane];
            // lane * 1.0 (high half of v3) + 2.0 (low half of v3),
            // into the high half; the low half kept.
            assert_eq!(at(0), Some(h(lane as f64 + 2.0) << 16), "{target} fma");
            let high = if target == "gfx900" { 0 } else { 0xdead_0000 };
            assert_eq!(at(1), Some(high | h(lane as f64 + 0.5)), "{target} add");
            assert_eq!(at(2), Some(u32::from(lane < 32)), "{target} compare");
            assert_eq!(at(3), Some((lane as f32 + 0.5).to_bits()), "{target} widen");
        }
    }
}

/// Packed 16-bit math by hand: op_sel picks the halves that feed the
/// low result, op_sel_hi those that feed the high one (all high halves
/// by default; an inline constant's high half is 0), neg_lo and neg_hi
/// negate per half.
#[test]
fn packed_math_by_hand() {
    for target in ["gfx900", "gfx1100"] {
        let out = run_hand(
            target,
            "s_load_dwordx2 s[0:1], s[4:5], 0x0
                v_lshlrev_b32_e32 v9, 2, v0
                v_mov_b32_e32 v1, 0x50003
                v_mov_b32_e32 v2, 0x20007
                v_pk_add_u16 v3, v1, v2
                v_pk_sub_i16 v4, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]
                v_pk_lshlrev_b16 v5, 1, v1 op_sel_hi:[0,1]
                v_mov_b32_e32 v6, 0x3c004000
                v_pk_fma_f16 v7, v6, v6, 1.0 op_sel_hi:[1,1,0] neg_lo:[1,0,0]
                v_pk_mad_u16 v8, v1, v2, v1
                s_waitcnt lgkmcnt(0)
                global_store_dword v9, v3, s[0:1]
                global_store_dword v9, v4, s[0:1] offset:256
                global_store_dword v9, v5, s[0:1] offset:512
                global_store_dword v9, v7, s[0:1] offset:768
                global_store_dword v9, v8, s[0:1] offset:1024
                s_endpgm",
            1280,
        );
        for lane in 0..64 {
            let at = |k: usize| out[64 * k + lane];
            assert_eq!(at(0), Some(0x0007_000a), "{target} add");
            assert_eq!(at(1), Some(0x0001_fffe), "{target} sub with op_sel");
            assert_eq!(at(2), Some(0x000a_0006), "{target} shift by a constant");
            assert_eq!(at(3), Some(0x4000_c200), "{target} fma with neg_lo");
            assert_eq!(at(4), Some(0x000f_0018), "{target} mad");
        }
    }
}

/// DPP by hand: each control's source lane, a shift out of its row
/// leaving the lane unwritten or, with bound_ctrl, reading 0, the row
/// mask, an inactive source lane, and gfx11's dpp8, row_xmask and
/// row_share.
#[test]
fn dpp_moves_source_zero_across_lanes_by_hand() {
    let out = run_hand(
        "gfx900",
        "s_load_dwordx2 s[0:1], s[4:5], 0x0
            v_lshlrev_b32_e32 v9, 2, v0
            v_mov_b32_e32 v1, v0
            v_mov_b32_dpp v2, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
            v_mov_b32_e32 v3, 100
            v_mov_b32_dpp v3, v1 row_shr:1 row_mask:0xf bank_mask:0xf
            v_mov_b32_e32 v4, 100
            v_add_u32_dpp v4, v1, v1 row_shl:2 row_mask:0xf bank_mask:0xf bound_ctrl:0
            v_mov_b32_e32 v5, 100
            v_mov_b32_dpp v5, v1 row_bcast:15 row_mask:0xa bank_mask:0xf
            v_mov_b32_dpp v6, v1 wave_ror:1 row_mask:0xf bank_mask:0xf
            v_mov_b32_dpp v7, v1 row_mirror row_mask:0xf bank_mask:0xf
            v_mov_b32_e32 v8, 100
            v_and_b32_e32 v10, 1, v0
            v_cmp_eq_u32_e32 vcc, 0, v10
            s_and_saveexec_b64 s[2:3], vcc
            v_mov_b32_dpp v8, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
            v_mov_b32_dpp v1, v1 quad_perm:[2,2,2,2] row_mask:0xf bank_mask:0xf
            s_or_b64 exec, exec, s[2:3]
            s_waitcnt lgkmcnt(0)
            global_store_dword v9, v2, s[0:1]
            global_store_dword v9, v3, s[0:1] offset:256
            global_store_dword v9, v4, s[0:1] offset:512
            global_store_dword v9, v5, s[0:1] offset:768
            global_store_dword v9, v6, s[0:1] offset:1024
            global_store_dword v9, v7, s[0:1] offset:1280
            global_store_dword v9, v8, s[0:1] offset:1536
            global_store_dword v9, v1, s[0:1] offset:1792
            s_endpgm",
        2048,
    );
    for l in 0..64u32 {
        let at = |k: usize| out[64 * k + l as usize].unwrap();
        let i = l % 16;
        assert_eq!(at(0), l ^ 1, "quad_perm {l}");
        assert_eq!(at(1), if i >= 1 { l - 1 } else { 100 }, "row_shr {l}");
        assert_eq!(at(2), if i < 14 { l + 2 } else { 0 } + l, "row_shl {l}");
        let bcast = if (16..32).contains(&l) || l >= 48 {
            l - i - 1
        } else {
            100
        };
        assert_eq!(at(3), bcast, "row_bcast:15 with row_mask 0xa {l}");
        assert_eq!(at(4), (l + 63) % 64, "wave_ror {l}");
        assert_eq!(at(5), (l - i) + 15 - i, "row_mirror {l}");
        // Even lanes read odd ones, which are inactive: not written.
        assert_eq!(at(6), 100, "inactive source {l}");
        // In place: even lanes read lane 2 of their quad (even, active).
        let want = if l % 2 == 0 { (l & !3) | 2 } else { l };
        assert_eq!(at(7), want, "in place {l}");
    }
    let out = run_hand(
        "gfx1100",
        "s_load_b64 s[0:1], s[4:5], 0x0
            v_lshlrev_b32_e32 v9, 2, v0
            v_mov_b32_e32 v1, v0
            v_mov_b32_dpp v2, v1 dpp8:[7,6,5,4,3,2,1,0]
            v_mov_b32_dpp v3, v1 row_xmask:3 row_mask:0xf bank_mask:0xf
            v_mov_b32_dpp v4, v1 row_share:5 row_mask:0xf bank_mask:0xf
            s_waitcnt lgkmcnt(0)
            global_store_b32 v9, v2, s[0:1]
            global_store_b32 v9, v3, s[0:1] offset:256
            global_store_b32 v9, v4, s[0:1] offset:512
            s_endpgm",
        768,
    );
    // Values out of range are refused, not truncated.
    for (bad, want) in [
        ("row_share:16", "`row_share:16` is 0 to 15"),
        ("row_shr:0", "`row_shr:0` shifts by 1 to 15"),
        ("row_mask:0x1f", "`row_mask:0x1f` is 0 to 15"),
        ("dpp8:[0,1,2,3,4,5,6,8]", "needs 8 lanes below 8"),
    ] {
        let e = run_hand_with(
            "gfx1100",
            &format!("v_mov_b32_dpp v2, v0 {bad}\ns_endpgm"),
            "",
            256,
        )
        .unwrap_err();
        assert!(e.contains(want), "{bad}: {e}");
    }
    let e = run_hand_with(
        "gfx1100",
        "v_add_f16_e64 v4, v0, v0 op_sel:[0,0,0,1]\ns_endpgm",
        "",
        256,
    )
    .unwrap_err();
    assert!(e.contains("op_sel has 4 entries"), "{e}");
    for l in 0..64u32 {
        let at = |k: usize| out[64 * k + l as usize].unwrap();
        assert_eq!(at(0), (l & !7) | (7 - (l & 7)), "dpp8 {l}");
        assert_eq!(at(1), (l & !15) | ((l & 15) ^ 3), "row_xmask {l}");
        assert_eq!(at(2), (l & !15) | 5, "row_share {l}");
    }
}

/// The instruction table decides the no-ops, the end, barriers and
/// refusals, for the analysis and the emulator alike; the decoder's
/// reading of every other instruction must agree with the table's kind.
#[test]
fn one_table_for_the_analysis_and_the_emulator() {
    use gpucosim_kernel::table::Category;
    let op = |p: Profile, m: &str, o: &str| decode_one(p, m, o).map(|i| i.op);
    for p in [Profile::Gfx9, Profile::Gfx11] {
        assert_eq!(op(p, "s_waitcnt", "vmcnt(0)"), Ok(Op::Nop));
        assert_eq!(op(p, "s_nop", "0"), Ok(Op::Nop));
        assert_eq!(op(p, "s_dcache_inv", ""), Ok(Op::Nop));
        assert_eq!(op(p, "s_endpgm", ""), Ok(Op::End));
        assert_eq!(op(p, "s_barrier", ""), Ok(Op::Barrier));
        for m in ["s_sethalt", "s_trap", "s_setreg_b32", "s_endpgm_saved"] {
            let e = op(p, m, "0").unwrap_err();
            assert!(
                e.contains("is not emulated (instructions.txt line"),
                "{m}: {e}"
            );
        }
        let e = op(p, "s_setpc_b64", "s[0:1]").unwrap_err();
        assert!(e.contains("indirect branches"), "{e}");
        assert!(matches!(op(p, "ds_write_b32", "v0, v1"), Ok(Op::Ds(_))));
    }
    assert_eq!(op(Profile::Gfx11, "buffer_gl0_inv", ""), Ok(Op::Nop));
    assert!(op(Profile::Gfx9, "buffer_gl0_inv", "").is_err());
    assert_eq!(op(Profile::Gfx9, "buffer_wbinvl1_vol", ""), Ok(Op::Nop));
    // The check can fire: an operation read against another kind.
    assert!(agrees(Op::Ds(0), Category::Ds));
    assert!(!agrees(Op::Ds(0), Category::Vmem));
    assert!(!agrees(Op::Nop, Category::Other));
    assert!(!agrees(Op::VAlu(ops::Alu::Add), Category::Smem));
}

/// binary64: a compare into EXEC with a literal (the high half of the
/// value), conversions, and a division through LLVM's expansion.
#[test]
fn binary64_compares_and_divides_by_hand() {
    let out = run_hand(
        "gfx900",
        "s_load_dwordx2 s[0:1], s[4:5], 0x0
            v_lshlrev_b32_e32 v1, 2, v0
            v_cvt_f64_u32_e32 v[2:3], v0
            v_add_f64 v[2:3], v[2:3], 1.0
            v_div_scale_f64 v[4:5], s[2:3], v[2:3], v[2:3], 1.0
            v_rcp_f64_e32 v[6:7], v[4:5]
            v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
            v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
            v_div_scale_f64 v[8:9], vcc, 1.0, v[2:3], 1.0
            v_fma_f64 v[10:11], -v[4:5], v[6:7], 1.0
            v_fma_f64 v[6:7], v[6:7], v[10:11], v[6:7]
            v_mul_f64 v[10:11], v[8:9], v[6:7]
            v_fma_f64 v[4:5], -v[4:5], v[10:11], v[8:9]
            v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[10:11]
            v_div_fixup_f64 v[4:5], v[4:5], v[2:3], 1.0
            v_cvt_f32_f64_e32 v12, v[4:5]
            s_waitcnt lgkmcnt(0)
            global_store_dword v1, v12, s[0:1]
            v_cmpx_ngt_f64_e32 0x40400000, v[2:3]
            v_mov_b32_e32 v13, 1
            global_store_dword v1, v13, s[0:1] offset:256
            s_endpgm",
        512,
    );
    for lane in 0..64 {
        let want = (1.0 / (lane as f64 + 1.0)) as f32;
        assert_eq!(out[lane], Some(want.to_bits()), "1 / {}", lane + 1);
        assert_eq!(out[64 + lane], Some(u32::from(lane >= 31)), "lane {lane}");
    }
}

/// `v_mad_u64_u32` with a 64-bit addend whose high half was never
/// written: the low half of the result is known (it is an address
/// here), the high half is not.
#[test]
fn a_mad_u64s_low_half_does_not_depend_on_the_addends_high_half() {
    let out = run_hand(
        "gfx900",
        "s_load_dwordx2 s[0:1], s[4:5], 0x0
            v_mov_b32_e32 v4, 8
            v_mad_u64_u32 v[2:3], s[6:7], v0, 4, v[4:5]
            v_lshlrev_b32_e32 v6, 2, v0
            v_add_u32_e32 v6, 0x200, v6
            s_waitcnt lgkmcnt(0)
            global_store_dword v2, v0, s[0:1]
            global_store_dword v6, v3, s[0:1]
            s_endpgm",
        1024,
    );
    for lane in 0..64 {
        assert_eq!(out[lane + 2], Some(lane as u32), "out[{}]", lane + 2);
        assert_eq!(out[128 + lane], None, "the high half is unknown");
    }
}

/// 16-bit VALU and compares: the low halves, sign-extended where signed,
/// a shift amount's low four bits; gfx9 zeroes the destination's high
/// half, gfx11 keeps it.
#[test]
fn sixteen_bit_alu_by_hand() {
    for (target, profile) in [("gfx900", Profile::Gfx9), ("gfx1100", Profile::Gfx11)] {
        let out = run_hand(
            target,
            "s_load_dwordx2 s[0:1], s[4:5], 0x0
                v_mov_b32_e32 v1, 0x1234ffff
                v_add_u16_e32 v1, 2, v1
                v_mov_b32_e32 v2, 0xabcd8000
                v_ashrrev_i16_e32 v2, 17, v2
                v_mov_b32_e32 v3, 0xfffe
                v_cmp_gt_i16_e32 vcc, 1, v3
                v_cndmask_b32_e64 v4, 7, 9, vcc
                v_cmp_gt_u16_e32 vcc, 1, v3
                v_cndmask_b32_e64 v6, 7, 9, vcc
                v_add_u32_e32 v4, v4, v6
                v_lshlrev_b32_e32 v5, 4, v0
                s_waitcnt lgkmcnt(0)
                global_store_dword v5, v1, s[0:1]
                global_store_dword v5, v2, s[0:1] offset:4
                global_store_dword v5, v4, s[0:1] offset:8
                s_endpgm",
            1024,
        );
        // 0xffff + 2 wraps to 1; 0x8000 >> (17 & 15) arithmetic is
        // 0xc000; 1 > -2 signed (9), 1 > 65534 unsigned is false (7).
        let (add, sar) = if profile == Profile::Gfx9 {
            (0x0000_0001, 0x0000_c000)
        } else {
            (0x1234_0001, 0xabcd_c000)
        };
        for lane in 0..64 {
            assert_eq!(out[4 * lane], Some(add), "{target} lane {lane}");
            assert_eq!(out[4 * lane + 1], Some(sar), "{target} lane {lane}");
            assert_eq!(out[4 * lane + 2], Some(9 + 7), "{target} lane {lane}");
        }
    }
}

/// `v_cmp_class_f32` by hand: a quiet NaN against "any NaN" (1), a
/// positive denormal against its class (2), the same negated by a
/// source modifier against "negative denormal" (4): 7 in every lane.
#[test]
fn class_compares_by_hand() {
    let out = run_hand(
        "gfx900",
        "s_load_dwordx2 s[0:1], s[4:5], 0x0
            v_mov_b32_e32 v1, 0x7fc00000
            v_mov_b32_e32 v7, 3
            v_cmp_class_f32_e32 vcc, v1, v7
            v_cndmask_b32_e64 v2, 0, 1, vcc
            v_mov_b32_e32 v1, 1
            v_mov_b32_e32 v7, 0x80
            v_cmp_class_f32_e32 vcc, v1, v7
            v_cndmask_b32_e64 v3, 0, 2, vcc
            v_mov_b32_e32 v7, 0x10
            v_cmp_class_f32_e64 s[2:3], -v1, v7
            v_cndmask_b32_e64 v4, 0, 4, s[2:3]
            v_add_u32_e32 v2, v2, v3
            v_add_u32_e32 v2, v2, v4
            v_lshlrev_b32_e32 v5, 2, v0
            s_waitcnt lgkmcnt(0)
            global_store_dword v5, v2, s[0:1]
            s_endpgm",
        256,
    );
    assert_eq!(out.len(), 64);
    for (lane, v) in out.iter().enumerate() {
        assert_eq!(*v, Some(7), "lane {lane}");
    }
}

/// A hand-written kernel whose every value is worked out by hand:
/// the SCC carry chain, a scalar loop, compares into VCC, cndmask,
/// saveexec, carries across 64-bit vector adds.
#[test]
fn scalar_and_vector_alu_by_hand() {
    let out = run_hand(
        "gfx900",
        "s_load_dwordx2 s[0:1], s[4:5], 0x0
            s_mov_b32 s2, -1
            s_mov_b32 s3, 0
            s_add_u32 s2, s2, 1
            s_addc_u32 s3, s3, 0
            s_cselect_b32 s6, 7, 9
            s_mov_b32 s7, 0
            .Lloop:
            s_add_i32 s7, s7, 3
            s_cmp_lt_u32 s7, 10
            s_cbranch_scc1 .Lloop
            v_cmp_gt_u32_e32 vcc, 5, v0
            v_cndmask_b32_e64 v1, 100, 200, vcc
            s_and_saveexec_b64 s[8:9], vcc
            v_add_u32_e32 v1, 1, v1
            s_or_b64 exec, exec, s[8:9]
            v_mov_b32_e32 v2, -1
            v_add_co_u32_e32 v2, vcc, v2, v0
            v_addc_co_u32_e32 v4, vcc, 0, v0, vcc
            v_mad_u32_u24 v1, v4, s3, v1
            v_bfe_u32 v5, v2, 1, 2
            v_lshl_or_b32 v1, v5, 16, v1
            s_add_u32 s10, s6, s7
            v_add_u32_e32 v1, s10, v1
            v_lshlrev_b32_e32 v3, 2, v0
            s_waitcnt lgkmcnt(0)
            global_store_dword v3, v1, s[0:1]
            s_endpgm",
        256,
    );
    for (lane, o) in out.iter().enumerate() {
        let lane = lane as u32;
        // s2:s3 = 0xffffffff + 1 = 0x1_0000_0000: s3 = 1; SCC after
        // the addc is 0, so s6 = 9; the loop ends at s7 = 12.
        let base = if lane < 5 { 201 } else { 100 };
        // v2 = lane - 1 with a carry out for lane >= 1; v4 = lane +
        // carry; v1 += v4 * 1; v5 = bits 2:1 of v2.
        let v2 = lane.wrapping_sub(1);
        let v4 = lane + u32::from(lane >= 1);
        let v5 = (v2 >> 1) & 3;
        let want = ((v5 << 16) | (base + v4)) + 21;
        assert_eq!(*o, Some(want), "lane {lane}");
    }
}

#[test]
fn traffic_past_the_cap_is_an_error_that_says_to_sample() {
    let (prog, profile) = edge();
    let l = Launch::parse(LAUNCH, &prog, profile, None, None).unwrap();
    let mut e = Emulator::new(profile, &prog.kernels[0], &l).unwrap();
    e.max_traffic = 1;
    let err = e.run().unwrap_err();
    assert!(
        err.contains("more than 1 transactions to the LDS unit") && err.contains("\"sample\""),
        "{err}"
    );
}

/// The edge kernel with its LDS address moved 1 KiB up: past the
/// 512-byte allocation for every lane.
#[test]
fn a_launch_whose_lds_accesses_all_fall_out_of_range_is_an_error() {
    let (mut prog, profile) = edge();
    let k = &mut prog.kernels[0];
    let at = k
        .insts
        .iter()
        .position(|i| i.mnemonic == "ds_write_b32")
        .unwrap();
    let mut add = k.insts[at].clone();
    add.mnemonic = "v_add_u32_e32".into();
    add.operands = "v0, 0x400, v0".into();
    k.insts.insert(at, add);
    for v in k.labels.values_mut() {
        if *v >= at {
            *v += 1;
        }
    }
    let l = Launch::parse(LAUNCH, &prog, profile, None, None).unwrap();
    let err = emulate("edge", &prog, profile, l, false).unwrap_err();
    assert_eq!(
        err,
        "every LDS access of the launch is out of range (128 lanes of 2 `ds_*` executions, none within the 512-byte allocation): check `lds_size` and the `__local` arguments' sizes, or set \"allow_lds_out_of_range\": true in the launch if that is meant"
    );
    let opt_in = LAUNCH.replace("{\"grid\"", "{\"allow_lds_out_of_range\": true, \"grid\"");
    let l = Launch::parse(&opt_in, &prog, profile, None, None).unwrap();
    let em = emulate("edge", &prog, profile, l, false).unwrap();
    let t = &em.profile.total;
    assert_eq!((t.lds_lanes, t.lds_oor_lanes), (128, 128));
    let (_, out) = em.buffers.iter().find(|(n, _)| n == "out").unwrap();
    assert!(out.iter().all(|w| *w == Some(0)), "{out:?}");
    // The kernel as compiled: lane 63's second dword is past the
    // 256-byte static segment, but not in the 512-byte allocation.
    let (prog, profile) = edge();
    let l = Launch::parse(LAUNCH, &prog, profile, None, None).unwrap();
    let em = emulate("edge", &prog, profile, l, false).unwrap();
    assert_eq!(
        (em.profile.total.lds_lanes, em.profile.total.lds_oor_lanes),
        (128, 0)
    );
}

#[test]
fn a_symbolic_branch_or_exec_is_an_error() {
    let (prog, profile) = edge();
    let mut prog = prog;
    let k = &mut prog.kernels[0];
    // A float compare feeding the branch condition.
    let at = k
        .insts
        .iter()
        .position(|i| i.mnemonic == "ds_write_b32")
        .unwrap();
    let mut fcmp = k.insts[at].clone();
    fcmp.mnemonic = "v_cmp_gt_f32_e32".into();
    // v200 is never written: the compare's result is unknown.
    fcmp.operands = "vcc, v3, v200".into();
    let mut br = k.insts[at].clone();
    br.mnemonic = "s_cbranch_vccz".into();
    br.operands = ".LBB_x".into();
    k.insts.insert(at, br);
    k.insts.insert(at, fcmp);
    k.labels.insert(".LBB_x".into(), at + 2);
    let l = Launch::parse(LAUNCH, &prog, profile, None, None).unwrap();
    let err = Emulator::new(profile, &prog.kernels[0], &l)
        .unwrap()
        .run()
        .unwrap_err();
    assert!(
        err.contains("s_cbranch_vccz") && err.contains("the branch condition is symbolic"),
        "{err}"
    );
}
