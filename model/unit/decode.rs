use gpucosim_model::decode::*;

#[test]
fn paths_and_texts() {
    let s = Signal::computed(Group::In, &["vsharp_i"], "num_records", Kind::Int(32), 3)
        .of_item("lane", 4);
    assert_eq!(s.path(), "tb.in.vsharp_i.num_records");
    assert_eq!(s.local_path(), "vsharp_i.num_records");
    assert_eq!(s.item, Some(("lane", 4)));
    assert_eq!(s.source, Source::Computed(3));
    let mut v = Value::Keep;
    set_text(&mut v, format_args!("a {}", 1));
    set_text(&mut v, format_args!("b {}", 2));
    assert_eq!(v, Value::Text("b 2".into()));
    assert_eq!(Kind::Text.width(), 0);
    assert_eq!(Kind::Int(6).width(), 6);
}
