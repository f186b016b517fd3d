use gpucosim_kernel::emu::decode::*;

#[test]
fn sdwa_fields_read_and_write() {
    let w0 = Sel::of("WORD_0").unwrap();
    let b3 = Sel::of("BYTE_3").unwrap();
    assert_eq!(w0.read(0x1234_8765, false), 0x8765);
    assert_eq!(w0.read(0x1234_8765, true), 0xffff_8765);
    assert_eq!(b3.read(0x8012_3456, false), 0x80);
    let mut sd = Sdwa {
        dst: Sel::of("WORD_1").unwrap(),
        unused: Unused::Preserve,
        ..Sdwa::default()
    };
    assert_eq!(sd.write(0xaaaa_bbbb, 0x1234), 0x1234_bbbb);
    sd.unused = Unused::Pad;
    assert_eq!(sd.write(0xaaaa_bbbb, 0x1234), 0x1234_0000);
    sd.dst = Sel::of("BYTE_1").unwrap();
    sd.unused = Unused::Sext;
    assert_eq!(sd.write(0, 0x80), 0xffff_8000);
    let mut m = Mods::default();
    read_mods(
        &[
            "dst_sel:WORD_1",
            "dst_unused:UNUSED_PRESERVE",
            "src0_sel:BYTE_2",
        ],
        &mut m,
    )
    .unwrap();
    let sd = m.sdwa.unwrap();
    assert_eq!(
        (sd.dst, sd.unused, sd.src[0]),
        (Sel(16, 16), Unused::Preserve, Sel(16, 8))
    );
    assert!(read_mods(&["src1_sel:NIBBLE"], &mut m).is_err());
    assert_eq!(
        operand_with_mods("-|v3|"),
        Some((Opnd::V(3, 1), true, true))
    );
    assert_eq!(
        operand_with_mods("neg(abs(s2))"),
        Some((Opnd::S(2, 1), true, true))
    );
    assert_eq!(
        operand_with_mods("-2.0"),
        Some((Opnd::Float(0xc000_0000, (-2.0f64).to_bits()), false, false))
    );
}

#[test]
fn operands_and_modifiers() {
    assert_eq!(operand("s[4:5]"), Some(Opnd::S(4, 2)));
    assert_eq!(operand("v[2:5]"), Some(Opnd::V(2, 4)));
    assert_eq!(operand("vcc_lo"), Some(Opnd::S(VCC, 1)));
    assert_eq!(operand("0x27fac"), Some(Opnd::Imm(0x27fac)));
    assert_eq!(operand("-1"), Some(Opnd::Imm(u64::MAX)));
    assert_eq!(
        operand("1.0"),
        Some(Opnd::Float(0x3f80_0000, 0x3ff0_0000_0000_0000))
    );
    assert_eq!(operand(".LBB0_2"), None);
    assert_eq!(operand("v255"), Some(Opnd::V(255, 1)));
    assert_eq!(operand("v256"), None);
    assert_eq!(operand("v[254:256]"), None);
    assert_eq!(operand("s[126:127]"), Some(Opnd::S(126, 2)));
    assert_eq!(operand("s128"), None);
    let (o, m) = split_mods("v1 offset1:2 format:[BUF_FMT_32_FLOAT, x]");
    assert_eq!(o, "v1");
    assert_eq!(m, ["offset1:2", "format:[BUF_FMT_32_FLOAT, x]"]);
    let mut mods = Mods::default();
    read_mods(&m, &mut mods).unwrap();
    assert_eq!(mods.offset1, Some(2));
    assert_eq!(mods.format.as_deref(), Some("BUF_FMT_32_FLOAT, x"));
}
