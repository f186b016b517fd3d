use gpucosim_model::decode::{Decoder, Value};
use gpucosim_model::profile::Profile;
use gpucosim_model::ta::decoded::*;
use gpucosim_model::ta::isa::{Instr, Kind as IKind, Op, Vsharp};
use gpucosim_model::ta::ports::ta_ports as p;

/// The report's line names each field with its value.
#[test]
fn vsharp_text_names_every_field() {
    use gpucosim_model::ta::isa::VsharpFields;
    for profile in Profile::all() {
        let fields = VsharpFields {
            base: 0x2000,
            stride: 16,
            num_records: 256,
            add_tid: true,
            ..VsharpFields::default()
        };
        let t = vsharp_text(profile, fields.encode(profile));
        assert!(
            t.starts_with("base 0x2000 stride 16 ") && t.contains("num_records 256"),
            "{profile}: {t}"
        );
        assert!(t.contains("add_tid 1"), "{profile}: {t}");
    }
}
use gpucosim_model::decode::Source;
use gpucosim_model::ta::isa::VsharpFields;
use gpucosim_model::ta::write_instr;

fn frame(profile: Profile, instr: &Instr, ready: bool) -> (Vec<u32>, Vec<u32>) {
    let mut inp = vec![0u32; p::TABLE.in_words()];
    p::rst_ni.set(&mut inp, 1);
    p::req_valid_i.set(&mut inp, 1);
    write_instr(instr, &mut inp);
    let mut out = vec![0u32; p::TABLE.out_words()];
    p::req_ready_o.set(&mut out, ready.into());
    let _ = profile;
    (inp, out)
}

fn value<'a>(d: &TaDecoder, vals: &'a [Value], name: &str) -> &'a Value {
    let n = d
        .signals()
        .iter()
        .position(|s| s.local_path() == name)
        .unwrap_or_else(|| panic!("no {name}"));
    &vals[n]
}

#[test]
fn fields_are_taken_when_the_model_accepts() {
    for profile in [Profile::Gfx9, Profile::Gfx11] {
        let fields = VsharpFields {
            base: 0x1234_5678,
            stride: 16,
            num_records: 200,
            swizzle: 1,
            index_stride: 2,
            add_tid: true,
            format: 4,
            oob_select: 3,
            ..VsharpFields::default()
        };
        let instr = Instr {
            vsharp: fields.encode(profile),
            size: 8,
            offen: true,
            inst_offset: 12,
            exec: 0xff,
            ..Instr::default()
        };
        let mut d = TaDecoder::new(profile);
        let sigs = d.signals();
        assert!(sigs
            .iter()
            .enumerate()
            .all(|(n, s)| s.source == Source::Computed(n)));
        let mut vals = vec![Value::Keep; sigs.len()];
        // Offered, not accepted: nothing yet.
        let (inp, out) = frame(profile, &instr, false);
        d.decode(&inp, &out, &out, &mut vals);
        assert!(vals.iter().all(|v| *v == Value::Keep));
        let (inp, out) = frame(profile, &instr, true);
        d.decode(&inp, &out, &out, &mut vals);
        let vs = Vsharp::decode(profile, instr.vsharp);
        assert_eq!(*value(&d, &vals, "vsharp.base"), Value::Num(vs.base));
        assert_eq!(*value(&d, &vals, "vsharp.num_records"), Value::Num(200));
        assert_eq!(*value(&d, &vals, "vsharp.stride"), Value::Num(16));
        assert_eq!(*value(&d, &vals, "vsharp.add_tid"), Value::Num(1));
        assert_eq!(
            *value(&d, &vals, "vsharp.index_stride_elems"),
            Value::Num(vs.index_stride.into())
        );
        assert_eq!(
            *value(&d, &vals, "vsharp.swizzle_bytes"),
            Value::Num(vs.swizzle_es.unwrap_or(0).into())
        );
        assert_eq!(
            *value(&d, &vals, "instr"),
            Value::Text("buffer_load_dwordx2 offen offset:12 exec:0xff".into())
        );
        match profile {
            Profile::Gfx9 => {
                assert_eq!(*value(&d, &vals, "vsharp.dfmt"), Value::Num(4));
                assert_eq!(*value(&d, &vals, "vsharp.swizzle_en"), Value::Num(1));
                assert_eq!(
                    *value(&d, &vals, "vsharp.format_name"),
                    Value::Text("32".into())
                );
                assert!(sigs.iter().all(|s| s.name != "oob_select"));
            }
            Profile::Gfx11 => {
                assert_eq!(*value(&d, &vals, "vsharp.format"), Value::Num(4));
                assert_eq!(*value(&d, &vals, "vsharp.oob_select"), Value::Num(3));
                assert_eq!(
                    *value(&d, &vals, "vsharp.format_name"),
                    Value::Text("8_SSCALED".into())
                );
            }
        }
    }
}

#[test]
fn mtbuf_names_its_format() {
    let i = Instr {
        kind: IKind::Mtbuf,
        op: Op::Store,
        fmt: 4 << 4 | 11,
        exec: 1,
        ..Instr::default()
    };
    assert_eq!(
        instr_text(Profile::Gfx9, &i),
        "tbuffer_store_format dfmt:32_32 nfmt:4 exec:0x1"
    );
    let i = Instr { fmt: 50, ..i };
    assert_eq!(
        instr_text(Profile::Gfx11, &i),
        "tbuffer_store_format format:32_32_FLOAT exec:0x1"
    );
}
