use gpucosim_kernel::emu::ops::*;

#[test]
fn mnemonics_of_both_profiles() {
    assert_eq!(decode("ds_load_2addr_stride64_b32").unwrap(), Op::Ds(8));
    assert_eq!(decode("ds_read2st64_b32").unwrap(), Op::Ds(8));
    assert_eq!(decode("ds_store_b32").unwrap(), Op::Ds(18));
    assert_eq!(decode("ds_add_u32").unwrap(), Op::Ds(32));
    assert_eq!(decode("ds_storexchg_rtn_b32").unwrap(), Op::Ds(48 + 12));
    assert_eq!(decode("ds_read_b128").unwrap(), Op::Ds(12));
    assert_eq!(
        decode("v_lshlrev_b16_e32").unwrap(),
        Op::VAlu16(Alu::ShlRev, false)
    );
    assert_eq!(decode("v_add_nc_u16").unwrap(), Op::VAlu16(Alu::Add, false));
    assert_eq!(
        decode("v_cmp_gt_i16_e32").unwrap(),
        Op::VCmp(Cmp::Gt, ty("i16").unwrap(), false)
    );
    assert_eq!(decode("ds_load_b96").unwrap(), Op::Ds(11));
    assert_eq!(decode("ds_store_b128").unwrap(), Op::Ds(26));
    assert!(decode("ds_read_b256")
        .unwrap_err()
        .contains("no such operation"));
    assert_eq!(
        decode("v_cmpx_gt_u32_e32").unwrap(),
        Op::VCmp(Cmp::Gt, ty("u32").unwrap(), true)
    );
    assert_eq!(decode("v_add_nc_u32_e32").unwrap(), Op::VAlu(Alu::Add));
    assert_eq!(decode("v_lshl_or_b32").unwrap(), Op::VAlu(Alu::ShlOr));
    assert_eq!(
        decode("s_and_saveexec_b64").unwrap(),
        Op::SSaveexec(Save::And, true)
    );
    assert_eq!(
        decode("s_and_not1_b32").unwrap(),
        Op::SAlu(Alu::AndN2, false)
    );
    assert_eq!(decode("s_lshl_b64").unwrap(), Op::SAlu(Alu::Shl, true));
    assert_eq!(decode("s_load_dwordx4").unwrap(), Op::SLoad(4));
    assert_eq!(decode("s_load_b128").unwrap(), Op::SLoad(4));
    assert_eq!(
        decode("global_atomic_add").unwrap(),
        Op::Global(
            Mem::Atomic {
                op: MemAtomic::Add,
                bytes: 4
            },
            false
        )
    );
    assert_eq!(
        decode("global_atomic_min_u32").unwrap(),
        Op::Global(
            Mem::Atomic {
                op: MemAtomic::MinU,
                bytes: 4
            },
            false
        )
    );
    assert_eq!(
        decode("buffer_load_b128").unwrap(),
        Op::Buffer(Mem::Load {
            bytes: 16,
            signed: false
        })
    );
    assert_eq!(
        decode("v_fma_f32").unwrap(),
        Op::VF32(gpucosim_kernel::emu::float::F32::Fma)
    );
    assert_eq!(
        decode("v_fma_f64").unwrap(),
        Op::VWide(gpucosim_kernel::emu::wide::Wide::Fma)
    );
    assert_eq!(
        decode("v_pk_fma_f16").unwrap(),
        Op::VPkF16(gpucosim_kernel::emu::half::F16::Fma)
    );
    assert_eq!(decode("v_pk_add_u16").unwrap(), Op::VPk16(Alu::Add, false));
    assert_eq!(decode("v_pk_fma_mix_f32").unwrap(), Op::VFloat);
    assert_eq!(
        decode("v_fma_f16").unwrap(),
        Op::VF16(gpucosim_kernel::emu::half::F16::Fma)
    );
    assert_eq!(decode("v_div_scale_f64").unwrap(), Op::VDivScale(true));
    assert!(matches!(
        decode("v_cmpx_nge_f64_e32").unwrap(),
        Op::VCmpF64(_, true)
    ));
    assert!(matches!(
        decode("v_cmpx_gt_f16").unwrap(),
        Op::VCmpF16(_, true)
    ));
    assert!(decode("v_cmpx_gt_bf16").is_err());
    assert_eq!(decode("v_perm_b32").unwrap(), Op::VAlu(Alu::Perm));
    assert_eq!(decode("v_movrels_b32").unwrap(), Op::VMovRel(true, false));
    assert!(matches!(
        decode("v_cmpx_ngt_f32_e32").unwrap(),
        Op::VCmpF(_, true)
    ));
    assert_eq!(decode("v_cmpx_class_f32").unwrap(), Op::VCmpClass(true));
    assert_eq!(decode("v_cmp_class_f32").unwrap(), Op::VCmpClass(false));
    assert_eq!(decode("v_cmp_class_f64").unwrap(), Op::VCmpClass64(false));
    assert!(decode("v_frobnicate_b32").is_err());
    assert_eq!(decode("s_mov_b64").unwrap(), Op::SUn(Un::Mov, true));
    assert_eq!(
        decode("s_cmp_lg_u64").unwrap(),
        Op::SCmp(Cmp::Ne, ty("u64").unwrap(), false)
    );
}

#[test]
fn alu_corner_cases() {
    assert_eq!(
        Alu::BfeU.apply([0xabcd_1234, 10, 10,], false),
        (0xabcd_1234u64 >> 10) & 0x3ff
    );
    assert_eq!(Alu::BfeI.apply([0x8000_0000, 28, 4], false), 0xffff_fff8);
    assert_eq!(Alu::MadU24.apply([0x100_0003, 5, 1], false), 16);
    assert_eq!(Alu::ShlRev.apply([34, 1, 0], false), 4);
    assert_eq!(Alu::SarRev.apply([4, 0x8000_0000, 0], false), 0xf800_0000);
    assert_eq!(
        Alu::MulHiU.apply([0xffff_ffff, 0xffff_ffff, 0], false),
        0xffff_fffe
    );
    assert_eq!(Alu::Med3I.apply([5, 0xffff_ffff, 3], false), 3);
    // min(max(a, b), c) and max(min(a, b), c), signed and unsigned.
    assert_eq!(Alu::MaxMinU.apply([5, 9, 7], false), 7);
    assert_eq!(Alu::MaxMinU.apply([5, 0xffff_ffff, 7], false), 7);
    assert_eq!(Alu::MaxMinI.apply([5, 0xffff_ffff, 7], false), 5);
    assert_eq!(Alu::MinMaxU.apply([5, 9, 7], false), 7);
    assert_eq!(Alu::MinMaxU.apply([5, 9, 2], false), 5);
    assert_eq!(
        Alu::MinMaxI.apply([5, 0xffff_ffff, 0xffff_fffe], false),
        0xffff_ffff
    );
    assert_eq!(decode("v_maxmin_u32").unwrap(), Op::VAlu(Alu::MaxMinU));
    assert_eq!(decode("v_minmax_i32").unwrap(), Op::VAlu(Alu::MinMaxI));
    assert_eq!(Un::Flbit.apply(1, false), 31);
    assert_eq!(MemAtomic::Dec.apply(0, 7, 0, 4), 7);
}
