use gpucosim_model::decode::Source;
use gpucosim_model::decode::{Decoder, Value};
use gpucosim_model::profile::Profile;
use gpucosim_model::waitcnt::decoded::*;
use gpucosim_model::waitcnt::encode;
use gpucosim_model::waitcnt::isa::Class;
use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::Thresholds;

#[test]
fn counters_and_waits_per_wave() {
    let profile = Profile::Gfx9;
    let mut d = WaitcntDecoder::new(profile);
    let sigs = d.signals();
    assert!(sigs
        .iter()
        .enumerate()
        .all(|(n, s)| s.source == Source::Computed(n)));
    // gfx9 has no VS_CNT.
    assert!(!sigs.iter().any(|s| s.name == "vs_cnt"));
    let at = |path: &str| sigs.iter().position(|s| s.path() == path).unwrap();
    let mut vals = vec![Value::Keep; sigs.len()];
    let mut inp = vec![0u32; P::TABLE.in_words()];
    P::rst_ni.set(&mut inp, 1);
    P::wait_valid_i.set(&mut inp, 1);
    P::wait_wave_i.set(&mut inp, 3);
    let t = Thresholds {
        vm: 0,
        ..Thresholds::none(profile)
    };
    P::wait_imm_i.set(&mut inp, encode(profile, &t).into());
    P::ret_valid_i.set(&mut inp, 0b0100);
    P::ret_wave_i.set_elem(&mut inp, 2, 1);
    P::ret_class_i.set_elem(&mut inp, 2, Class::Smem1.code().into());
    let mut model = vec![0u32; P::TABLE.out_words()];
    P::vm_cnt_o.set_elem(&mut model, 3, 5);
    P::stall_o.set(&mut model, 1 << 3);
    let rtl = vec![0u32; P::TABLE.out_words()];
    d.decode(&inp, &model, &rtl, &mut vals);
    assert_eq!(vals[at("tb.model.wave3.vm_cnt")], Value::Num(5));
    assert_eq!(vals[at("tb.rtl.wave3.vm_cnt")], Value::Num(0));
    assert_eq!(
        vals[at("tb.model.wave3.wait")],
        Value::Text("s_waitcnt vmcnt(0)".into())
    );
    // The RTL does not show wave 3 waiting.
    assert_eq!(vals[at("tb.rtl.wave3.wait")], Value::Text("-".into()));
    assert_eq!(
        vals[at("tb.in.wait")],
        Value::Text("wave 3 s_waitcnt vmcnt(0)".into())
    );
    assert_eq!(vals[at("tb.in.issue")], Value::Text("-".into()));
    assert_eq!(
        vals[at("tb.in.ret")],
        Value::Text("ch2 wave 1 smem1".into())
    );
    assert_eq!(sigs[at("tb.model.wave3.wait")].item, Some(("wave", 3)));
    // Next cycle: nothing offered, the model still stalls: held.
    P::wait_valid_i.set(&mut inp, 0);
    d.decode(&inp, &model, &rtl, &mut vals);
    assert_eq!(vals[at("tb.model.wave3.wait")], Value::Keep);
    assert_eq!(vals[at("tb.in.wait")], Value::Text("-".into()));
}
