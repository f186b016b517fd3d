use gpucosim_model::profile::Profile;
use gpucosim_model::ta::isa::*;
use gpucosim_model::ta::params::TaParams;
use DataFormat as D;
use NumFormat as N;

#[test]
fn encoding_places_every_field_where_its_layout_says() {
    // Against the layout's own `put` of every field of `VsField::ALL`
    // (each a different odd pattern, wider than the widest field), so
    // that a field left out of `encode`, or put in another's place,
    // shows.
    for profile in Profile::all() {
        let l = &TaParams::of(profile).vsharp;
        for seed in 0..64u64 {
            let x = |k: u64| {
                (seed + 1)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .rotate_left(7 * k as u32)
                    | 1
            };
            let v = VsharpFields {
                base: x(0),
                stride: x(1) as u32,
                num_records: x(2) as u32,
                swizzle: x(3) as u32,
                cache_swizzle: x(4) as u32,
                elem_size: x(5) as u32,
                index_stride: x(6) as u32,
                add_tid: x(7) & 2 != 0,
                format: x(8) as u32,
                nfmt: x(9) as u32,
                dst_sel: x(10) as u32,
                oob_select: x(11) as u32,
                rtype: x(12) as u32,
            };
            let want = VsField::ALL.iter().fold(0, |w, &f| w | l.put(f, v.get(f)));
            assert_eq!(v.encode(profile), want, "{profile} {v:?}");
        }
    }
}

#[test]
fn gfx11_code_edges() {
    assert_eq!(gfx11_format(0), None);
    assert_eq!(gfx11_format(1), Some((D::F8, N::Unorm)));
    assert_eq!(gfx11_format(63), Some((D::F32_32_32_32, N::Float)));
    assert_eq!(
        gfx11_format(64),
        None,
        "7-bit MTBUF codes past the table are invalid"
    );
    assert_eq!(gfx11_format(127), None);
}

#[test]
fn names_round_trip() {
    for code in 1..=63 {
        let (d, f) = gfx11_format(code).unwrap();
        let name = format!("BUF_FMT_{}_{}", d.name(), f.name());
        assert_eq!(gfx11_format_by_name(&name), Some(code), "{name}");
    }
    assert_eq!(gfx9_dfmt_by_name("BUF_DATA_FORMAT_32_32_32"), Some(13));
    assert_eq!(gfx9_dfmt_by_name("nope"), None);
}

#[test]
fn spec_element_sizes() {
    // SPEC §1.2: 8→1, 16→2, 8_8→2, 32→4, ..., 32_32_32_32→16; 0 and 15 dropped.
    let sizes: Vec<Option<u32>> = GFX9_DFMT.iter().map(|d| d.elem_bytes()).collect();
    let want = [
        None,
        Some(1),
        Some(2),
        Some(2),
        Some(4),
        Some(4),
        Some(4),
        Some(4),
        Some(4),
        Some(4),
        Some(4),
        Some(8),
        Some(8),
        Some(12),
        Some(16),
        None,
    ];
    assert_eq!(sizes, want);
}
