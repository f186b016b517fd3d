use gpucosim_kernel::asm::Inst;
use gpucosim_kernel::table::*;
use gpucosim_model::waitcnt::Class;
use gpucosim_model::Profile;

fn inst(text: &str) -> Inst {
    let (m, o) = text.split_once(' ').unwrap_or((text, ""));
    Inst {
        line: 1,
        addr: Some(0x10),
        mnemonic: m.into(),
        operands: o.into(),
    }
}

fn c(p: Profile, text: &str) -> Classified {
    classify(p, &inst(text)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A load's destination must name a register: a load cut short or
/// with a word there is an error, not a load that writes nothing.
#[test]
fn a_load_without_a_destination_register_is_an_error() {
    let p = Profile::Gfx9;
    for (text, want) in [
        ("s_load_dword", "no operands, where a load writes operand 0"),
        ("s_load_dword banana, s[0:1], 0x4", "operand 0 `banana`"),
        ("global_load_dword off, v[0:1], off", "operand 0 `off`"),
        ("ds_read_b32", "no operands"),
        ("buffer_atomic_add v1, v2, s[0:3], 0 offen glc", ""),
    ] {
        match classify(p, &inst(text)) {
            Err(e) => assert!(!want.is_empty() && e.contains(want), "{text}: {e}"),
            Ok(_) => assert!(want.is_empty(), "{text} is refused"),
        }
    }
    // A store or an atomic without return writes no register.
    c(p, "global_store_dword v[0:1], v2, off");
    c(p, "buffer_atomic_add v1, v2, s[0:3], 0 offen");
    c(p, "buffer_load_dword v1, s[0:3], 0 offen lds");
}

#[test]
fn the_shipped_table_parses_and_globs_match() {
    assert!(rules().len() > 50);
    assert!(glob("ds_*_rtn_*", "ds_add_rtn_u32"));
    assert!(!glob("ds_*_rtn_*", "ds_add_u32"));
    assert!(glob("s_*", "s_mov_b32"));
    assert!(glob("exp", "exp"));
    assert!(!glob("exp", "export"));
}

#[test]
fn registers_and_ranges() {
    let r = regs_in("v[2:3], v1 offset1:2").unwrap();
    assert_eq!(r.text(), "v[1:3]");
    let r =
        regs_in("s[4:5], vcc, -|v7|, 0x1f, format:[BUF_FMT_32_FLOAT], sendmsg(MSG_GS)").unwrap();
    assert_eq!(r.text(), "v7, s[4:5], vcc_lo, vcc_hi");
    assert_eq!(
        regs_in("exec_lo, m0, ttmp3").unwrap().text(),
        "ttmp3, exec_lo, m0"
    );
    assert!(regs_in("v[3:2]").is_err());
    // A register number past its file is refused, not read as a symbol.
    for (r, file) in [
        ("v999", "v0 to v255"),
        ("s106", "s0 to s105"),
        ("ttmp16", "ttmp0 to ttmp15"),
    ] {
        assert_eq!(
            regs_in(&format!("{r}, 0")).unwrap_err(),
            format!("`{r}` is not a register ({file})")
        );
    }
    assert_eq!(
        regs_in("v255, s105, ttmp15").unwrap().text(),
        "v255, s105, ttmp15"
    );
    assert!(regs_in("instid0(VALU_DEP_1) | instskip(NEXT)")
        .unwrap()
        .is_empty());
}

#[test]
fn classes_weights_and_operands() {
    use Profile::*;
    let x = c(Gfx9, "s_load_dword s7, s[4:5], 0x10");
    assert_eq!(
        x.effect,
        Effect::Mem {
            class: Class::Smem1,
            dst: regs_in("s7").unwrap()
        }
    );
    assert_eq!(x.reads, regs_in("s[4:5]").unwrap());
    let x = c(Gfx11, "s_load_b128 s[0:3], s[0:1], null");
    assert!(matches!(
        x.effect,
        Effect::Mem {
            class: Class::Smem2,
            ..
        }
    ));
    let x = c(Gfx9, "global_atomic_add v0, v1, s[0:1] glc");
    assert!(
        matches!(x.effect, Effect::Mem { class: Class::VmemLoad, dst } if dst == regs_in("v0").unwrap())
    );
    // Global cmpswap names its destination; MUBUF returns the old value
    // into the first half of its {data, compare} operand, which it reads.
    let x = c(
        Gfx9,
        "global_atomic_cmpswap_x2 v[0:1], v2, v[4:7], s[0:1] glc",
    );
    assert!(matches!(x.effect, Effect::Mem { dst, .. } if dst == regs_in("v[0:1]").unwrap()));
    assert!(x.reads.meets(&regs_in("v[4:7]").unwrap()));
    let x = c(
        Gfx11,
        "buffer_atomic_cmpswap_b32 v[0:1], off, s[0:3], 0 glc",
    );
    assert!(matches!(x.effect, Effect::Mem { dst, .. } if dst == regs_in("v0").unwrap()));
    assert!(x.reads.meets(&regs_in("v1").unwrap()));
    let x = c(Gfx9, "buffer_atomic_add v3, off, s[0:3], 0 glc");
    assert!(matches!(x.effect, Effect::Mem { dst, .. } if dst == regs_in("v3").unwrap()));
    assert!(x.reads.meets(&regs_in("v3").unwrap()));
    let x = c(Gfx9, "global_atomic_add v0, v1, s[0:1]");
    assert!(matches!(x.effect, Effect::Mem { class: Class::VmemStore, dst } if dst.is_empty()));
    let x = c(Gfx9, "ds_add_rtn_u32 v3, v1, v2 gds");
    assert!(matches!(
        x.effect,
        Effect::Mem {
            class: Class::Gds,
            ..
        }
    ));
    let x = c(Gfx9, "ds_write_b32 v1, v2");
    assert!(matches!(x.effect, Effect::Mem { class: Class::Lds, dst } if dst.is_empty()));
    // It accesses the LDS: it reads what an LDS DMA load writes there.
    let mut want = regs_in("v1, v2, exec").unwrap();
    want.add(LDS_DMA);
    assert_eq!(x.reads, want);
    let x = c(Gfx11, "v_cmpx_gt_u32_e32 0x80, v0");
    assert!(x.writes.is_empty());
    let x = c(Gfx9, "v_add_co_u32_e32 v1, vcc, s0, v1");
    assert_eq!(x.writes, regs_in("v1").unwrap());
    assert_eq!(c(Gfx9, "buffer_wbinvl1_vol").effect, Effect::Fence);
    // LDS DMA: the load writes the LDS, read by the LDS accesses after
    // it; its operand 0 is an address.
    for (p, t) in [
        (Gfx9, "buffer_load_dword v1, s[0:3], 0 offen lds"),
        (Gfx11, "buffer_load_lds_b32 v1, s[0:3], 0 offen"),
    ] {
        let x = c(p, t);
        assert!(
            matches!(x.effect, Effect::Mem { class: Class::VmemLoad, dst } if dst == Regs::LDS_DMA),
            "{t}"
        );
        assert!(x.reads.meets(&regs_in("v1").unwrap()), "{t}");
    }
    assert_eq!(Regs::LDS_DMA.text(), "LDS");
    for (p, t, reads) in [
        (Gfx9, "ds_read_b32 v1, v0", true),
        (Gfx9, "ds_write_b32 v1, v0", true),
        (Gfx11, "ds_add_rtn_u32 v1, v0, v2", true),
        (Gfx9, "flat_load_dword v1, v[2:3]", true),
        (Gfx9, "ds_bpermute_b32 v1, v0, v2", false),
        (Gfx9, "ds_add_u32 v0, v1 gds", false),
        (Gfx9, "global_load_dword v1, v[2:3], off", false),
    ] {
        assert_eq!(c(p, t).reads.meets(&Regs::LDS_DMA), reads, "{t}");
    }
}

#[test]
fn waits_and_branches() {
    use Profile::*;
    let w = |p, t| match c(p, t).effect {
        Effect::Wait(t) => t.as_array(),
        e => panic!("{e:?}"),
    };
    assert_eq!(w(Gfx9, "s_waitcnt vmcnt(0) lgkmcnt(0)"), [0, 0, 7, 0]);
    assert_eq!(w(Gfx9, "s_waitcnt lgkmcnt(1) & vmcnt(3)")[..2], [3, 1]);
    assert_eq!(w(Gfx9, "s_waitcnt 0"), [0, 0, 0, 0]);
    assert_eq!(w(Gfx11, "s_waitcnt_vscnt null, 0x0")[3], 0);
    assert_eq!(w(Gfx11, "s_waitcnt_vscnt null, 0xffc1")[3], 1);
    assert_eq!(w(Gfx11, "s_waitcnt_vscnt null, 0x1")[..3], [63, 63, 7]);
    assert_eq!(
        c(Gfx9, "s_branch .LBB0_3").effect,
        Effect::Branch(".LBB0_3".into())
    );
    assert_eq!(
        c(Gfx11, "s_cbranch_execz 10").effect,
        Effect::CBranch("@0x3c".into())
    );
    assert_eq!(
        c(Gfx11, "s_cbranch_execz -2").effect,
        Effect::CBranch("@0xc".into())
    );
    // llvm-objdump prints SOPP's simm16 unsigned: 65534 is -2.
    assert_eq!(
        c(Gfx9, "s_cbranch_execnz 65534").effect,
        Effect::CBranch("@0xc".into())
    );
    assert_eq!(
        c(Gfx9, "s_branch 32767").effect,
        Effect::Branch("@0x20010".into())
    );
    assert!(classify(Gfx9, &inst("s_branch 65536")).is_err());
    for bad in [
        "s_setpc_b64 s[0:1]",
        "s_dcache_inv",
        "foo_bar v1",
        "s_waitcnt vmcnt(64)",
    ] {
        assert!(classify(Gfx9, &inst(bad)).is_err(), "{bad}");
    }
}
