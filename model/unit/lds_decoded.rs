use gpucosim_model::decode::{Decoder, Value};
use gpucosim_model::lds::decoded::*;
use gpucosim_model::lds::isa::code_of;
use gpucosim_model::lds::ports::lds_ports as P;
use gpucosim_model::lds::tlm::geometry;
use gpucosim_model::profile::Profile;

#[test]
fn banks_follow_the_model() {
    for (profile, wgp) in [
        (Profile::Gfx9, false),
        (Profile::Gfx11, true),
        (Profile::Gfx11, false),
    ] {
        let mut d = LdsDecoder::new(profile);
        let sigs = d.signals();
        let mut vals = vec![Value::Keep; sigs.len()];
        let mut inp = vec![0u32; P::TABLE.in_words()];
        P::rst_ni.set(&mut inp, 1);
        P::req_valid_i.set(&mut inp, 1);
        P::op_i.set(&mut inp, code_of("ds_write_b32").unwrap().into());
        P::wave64_i.set(&mut inp, 1);
        P::wgp_i.set(&mut inp, wgp.into());
        P::exec_i.set(&mut inp, 0b1011);
        P::lds_size_i.set(&mut inp, 4096);
        P::offset0_i.set(&mut inp, 8);
        for l in 0..4 {
            P::addr_i.set_elem(&mut inp, l, 4 * 37 * l as u64);
        }
        let mut out = vec![0u32; P::TABLE.out_words()];
        d.decode(&inp, &out, &out, &mut vals);
        assert!(vals.iter().all(|v| *v == Value::Keep), "not accepted");
        P::req_ready_o.set(&mut out, 1);
        d.decode(&inp, &out, &out, &mut vals);
        assert_eq!(
            vals[0],
            Value::Text("ds_write_b32 offset:8 exec:0xb".into())
        );
        let (banks, _) = geometry(profile, wgp);
        for l in [0u32, 1, 3] {
            let dword = 37 * l + 2;
            let b = sigs
                .iter()
                .position(|s| s.path() == format!("tb.in.access.lane{l}.bank"))
                .unwrap();
            assert_eq!(sigs[b].item, Some(("lane", l)));
            assert_eq!(vals[b], Value::Num((dword % banks).into()), "lane {l}");
            assert_eq!(vals[b + 1], Value::Num(dword.into()));
        }
        // Lane 2 is not in exec.
        assert_eq!(vals[1 + 2 * 2], Value::Unknown);
    }
}
