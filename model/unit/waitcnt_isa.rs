use gpucosim_model::profile::Profile;
use gpucosim_model::waitcnt::isa::*;
use proptest::prelude::*;

#[test]
fn spec_3_2_examples() {
    let g9 = Profile::Gfx9;
    let g11 = Profile::Gfx11;
    let t = decode_word(g9, 0xBF8C_0070).unwrap();
    assert_eq!((t.vm, t.exp, t.lgkm), (0, 7, 0));
    assert_eq!(decode(g9, 0xCF7F), Thresholds::none(g9));
    assert_eq!(encode(g9, &Thresholds::none(g9)), 0xCF7F);
    let t = decode_word(g11, 0xBF89_0007).unwrap();
    assert_eq!((t.vm, t.exp, t.lgkm), (0, 7, 0));
    assert_eq!(decode(g11, 0xFFF7), Thresholds::none(g11));
    assert_eq!(encode(g11, &Thresholds::none(g11)), 0xFFF7);
    assert!(decode_word(g9, 0xBF89_0007).is_err());
    assert!(decode_word(g11, 0xBF8C_0070).is_err());
}

/// SPEC §3.2: gfx11 `s_waitcnt_vscnt null, imm` is `0xBC7C0000 | imm`,
/// threshold imm[5:0], bits [15:6] ignored; gfx9 rejects the word and
/// says why. Fails if the opcode, the field or the error changes.
#[test]
fn vscnt_words() {
    let g11 = Profile::Gfx11;
    let w = decode_wait_word(g11, 0xBC7C_0005).unwrap();
    assert_eq!(
        w,
        Wait {
            vscnt: true,
            imm: 5
        }
    );
    assert_eq!(w.text(g11), "s_waitcnt_vscnt null, 0x5");
    let t = decode_word(g11, 0xBC7C_FFC5).unwrap();
    assert_eq!((t.vs, t.vm, t.lgkm, t.exp), (5, 63, 63, 7));
    assert_eq!(
        decode_wait_word(g11, 0xBC7C_FFC5).unwrap().text(g11),
        "s_waitcnt_vscnt null, 0xffc5"
    );
    // A plain s_waitcnt leaves VS at its maximum.
    assert_eq!(decode_word(g11, 0xBF89_0000).unwrap().vs, 63);
    // Another SOPK destination (m0 = 0xBC7D) is not the null form.
    let e = decode_wait_word(g11, 0xBC7D_0005).unwrap_err();
    assert!(e.contains("not an s_waitcnt on gfx11"), "{e}");
    let e = decode_wait_word(Profile::Gfx9, 0xBC7C_0005).unwrap_err();
    assert!(
        e.contains("s_waitcnt_vscnt") && e.contains("gfx9 has no VS_CNT"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    assert!(decode_word(Profile::Gfx9, 0xBC7C_0005).is_err());
}

#[test]
fn gfx9_vmcnt_is_split() {
    // vmcnt 0b110101: low 4 bits in [3:0], high 2 bits in [15:14].
    let t = decode(Profile::Gfx9, 0xC005);
    assert_eq!(t.vm, 0b11_0101);
    assert_eq!(t.lgkm, 0);
    assert_eq!(t.exp, 0);
}

#[test]
fn vscnt_only_on_gfx11() {
    assert_eq!(decode_vscnt(Profile::Gfx9, 3), None);
    let t = decode_vscnt(Profile::Gfx11, 0xFFC3).unwrap();
    assert_eq!(t.vs, 3);
    assert_eq!(t.vm, 63);
}

#[test]
fn text_matches_llvm_style() {
    let g9 = Profile::Gfx9;
    assert_eq!(
        decode(g9, 0xCF7F).text(g9),
        "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)"
    );
    assert_eq!(decode(g9, 0x0F7F).text(g9), "s_waitcnt vmcnt(15)");
    assert_eq!(
        decode(g9, 0).text(g9),
        "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"
    );
}

proptest! {
    /// Property: decoding then encoding gives the immediate with its unused
    /// bits cleared, on every profile.
    #[test]
    fn decode_encode_clears_only_unused_bits(imm in any::<u16>()) {
        let used9: u16 = !((1 << 7) | (1 << 12) | (1 << 13));
        let used11: u16 = !(1 << 3);
        prop_assert_eq!(encode(Profile::Gfx9, &decode(Profile::Gfx9, imm)), imm & used9);
        prop_assert_eq!(encode(Profile::Gfx11, &decode(Profile::Gfx11, imm)), imm & used11);
    }

    /// Property: encoding then decoding any in-range thresholds is the identity.
    #[test]
    fn encode_decode_is_identity(vm in 0u32..64, lgkm in 0u32..64, exp in 0u32..8) {
        for p in Profile::all() {
            let t = Thresholds { vm, lgkm: lgkm & Counter::Lgkm.max(p), exp, vs: Counter::Vs.max(p) };
            prop_assert_eq!(decode(p, encode(p, &t)), t);
        }
    }
}

#[test]
fn codes_round_trip_and_names_are_unique() {
    for c in Class::ALL {
        assert_eq!(Class::from_code(c.code()), Some(c));
        assert_eq!(Class::from_name(c.name()), Some(c));
    }
    assert_eq!(Class::from_code(12), None);
}

#[test]
fn serde_names_are_the_documented_names() {
    for c in Class::ALL {
        let j = serde_json::to_string(&c).unwrap();
        assert_eq!(j, format!("\"{}\"", c.name()));
        assert_eq!(serde_json::from_str::<Class>(&j).unwrap(), c);
    }
}

#[test]
fn counter_maxima_follow_the_profile_widths() {
    assert_eq!(Counter::Lgkm.max(Profile::Gfx9), 15);
    assert_eq!(Counter::Lgkm.max(Profile::Gfx11), 63);
    assert_eq!(Counter::Vs.max(Profile::Gfx9), 0);
    assert_eq!(Counter::Exp.max(Profile::Gfx11), 7);
}
