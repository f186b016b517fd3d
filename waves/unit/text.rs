use gpucosim_waves::text::*;
use gpucosim_waves::Layout;
use gpucosim_waves::{Capture, Meta, VcdWriter};

gpucosim_model::ports! {
    mod toy("toy", "toy_top") { input rst_ni: 1, input v_i: 128, output m_o: 128, output a_o: 8 x 4 }
}

fn capture() -> Capture {
    let t = &toy::TABLE;
    let mut cap = Capture::new(t, 16);
    for c in 0..6u64 {
        let inp = vec![1, c as u32, 0, 0, 7];
        let mut model = vec![0u32; t.out_words()];
        toy::m_o.set_bit(&mut model, 100, true);
        toy::a_o.set_elem(&mut model, 2, c);
        let mut rtl = model.clone();
        if c == 4 {
            toy::m_o.set_bit(&mut rtl, 70, true);
            toy::a_o.set_elem(&mut rtl, 2, 0xee);
        }
        cap.record(c, &inp, &model, &rtl);
    }
    cap
}

#[test]
fn frames_and_vcd_give_the_same_table() {
    let layout = Layout::new(&toy::TABLE);
    let cap = capture();
    let picks = vec![
        Pick::new(&layout, "m_o", None, Some(70)).unwrap(),
        Pick::new(&layout, "a_o", Some(2), None).unwrap(),
        Pick::new(&layout, "v_i", None, None).unwrap(),
    ];
    let a = Trace::from_frames(&layout, cap.frames(), &picks).render();
    assert!(a.contains("m_o[127:64]"), "{a}");
    let rows: Vec<&str> = a.lines().collect();
    assert!(
        rows[2].contains("1000000040*") && rows[4].contains("ee*"),
        "{a}"
    );
    assert!(
        rows[1].starts_with("m_o[127:64] model") && rows[5].starts_with("v_i[63:0]   in"),
        "{a}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.vcd");
    gpucosim_waves::write_capture(
        &path,
        &toy::TABLE,
        &cap,
        &Meta::default(),
        gpucosim_waves::WaveFormat::Vcd,
    )
    .unwrap();
    let b = Trace::read_vcd(&path, None, |_| picks.clone())
        .unwrap()
        .render();
    assert_eq!(a, b);
    assert_eq!(
        first_mismatch(&path).unwrap(),
        Some((4, vec!["m_o".to_string(), "a_o".to_string()]))
    );
    let c = Trace::read_vcd(&path, Some((3, 4)), |_| picks.clone()).unwrap();
    assert_eq!(c.cycles, [3, 4]);
    let _ = VcdWriter::new(Vec::new(), &toy::TABLE, &Meta::default()).unwrap();
}
