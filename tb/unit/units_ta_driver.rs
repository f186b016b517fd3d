use crate::units_ta_stimulus::draw;
use gpucosim_model::ta::isa::LANES;
use gpucosim_model::ta::ports::ta_ports as p;
use gpucosim_model::ta::write_instr;
use gpucosim_model::ta::Instr;
use gpucosim_model::Profile;
use gpucosim_tb::run::{ModelRun, Stimulus};
use gpucosim_tb::testbench::{Drive, Driver};
use gpucosim_tb::units::ta::driver::*;
use gpucosim_tb::units::ta::stimulus::TaKnobs;
use gpucosim_tb::units::ta::TaTestbench;

#[test]
fn driver_offers_each_transaction_once_and_in_order() {
    // Instructions accepted = transactions taken: the model counts them.
    let profile = Profile::Gfx9;
    let k = TaKnobs::default();
    let txns = draw(profile, 3, 200, &k);
    let mut want = Vec::new();
    for t in &txns {
        let mut i = Instr::default();
        // As the ports carry it.
        let mut inp = vec![0u32; p::TABLE.in_words()];
        write_instr(&t.instr, &mut inp);
        gpucosim_model::ta::read_instr(&inp, &mut i);
        want.push(i);
    }
    let mut run = ModelRun::<TaTestbench>::new(profile, 3, &k, Stimulus::Replay(txns));
    let mut got = Vec::new();
    run.run_until_done(1_000_000, |_, inp, out| {
        // Taken in a cycle the unit shows `req_ready_o` (which depends
        // on its state only) with `req_valid_i` driven.
        if p::req_ready_o.bit(out) && p::req_valid_i.bit(inp) {
            let mut i = Instr::default();
            gpucosim_model::ta::read_instr(inp, &mut i);
            got.push(i);
        }
    })
    .expect("the driver finishes");
    assert_eq!(got.len(), want.len());
    assert!(
        got == want,
        "instructions accepted differ from those generated"
    );
}

#[test]
fn an_offer_held_while_the_unit_is_busy_is_driven_as_drive_drives_it() {
    // Two drivers over the same transactions and the same model outputs:
    // one asks `drive_held` first, on inputs scribbled over, the other
    // only `drive`, on zeroed inputs. Every cycle's inputs and status
    // must be the same, backpressure patterns and gaps included.
    use gpucosim_model::ta::TaModel;
    use gpucosim_model::Unit;
    for profile in Profile::all() {
        let k = TaKnobs::default();
        let txns = draw(profile, 5, 300, &k);
        let (iw, ow) = (p::TABLE.in_words(), p::TABLE.out_words());
        let (mut held, mut plain) = (TaDriver::new(), TaDriver::new());
        let (mut src_h, mut src_p) = (txns.clone().into_iter(), txns.into_iter());
        let mut model = TaModel::new(profile);
        let mut out = vec![0u32; ow];
        model.step(&vec![0u32; iw], &mut out);
        let mut held_cycles = 0;
        for cycle in 0..100_000 {
            let mut inp_h = vec![0xA5A5_5A5Au32; iw];
            let st_h = match held.drive_held(&out, &mut inp_h) {
                Some(st) => {
                    held_cycles += 1;
                    st
                }
                None => {
                    inp_h.fill(0);
                    p::rst_ni.set(&mut inp_h, 1);
                    held.drive(&out, &mut inp_h, &mut src_h)
                }
            };
            let mut inp_p = vec![0u32; iw];
            p::rst_ni.set(&mut inp_p, 1);
            let st_p = plain.drive(&out, &mut inp_p, &mut src_p);
            assert_eq!(inp_h, inp_p, "{profile}: inputs of cycle {cycle}");
            assert_eq!(st_h, st_p, "{profile}: status of cycle {cycle}");
            if st_p == Drive::Done {
                break;
            }
            model.step(&inp_p, &mut out);
        }
        assert_eq!(held.taken, 300, "{profile}: every transaction offered");
        assert!(held_cycles > 300, "{profile}: {held_cycles} cycles held");
    }
}

#[test]
fn write_instr_writes_just_the_request_ports() {
    // Every request port lies in REQUEST_PORTS, nothing else does.
    for (d, port) in p::TABLE.of(gpucosim_model::ports::Dir::In) {
        let inside =
            port.offset >= REQUEST_PORTS.start && port.offset + port.words() <= REQUEST_PORTS.end;
        let request = !matches!(d.name, "rst_ni" | "req_valid_i" | "line_ready_i");
        assert_eq!(inside, request, "{}", d.name);
    }
    let i = Instr {
        vsharp: u128::MAX,
        exec: u64::MAX,
        vindex: [u32::MAX; LANES],
        voffset: [u32::MAX; LANES],
        ..Instr::default()
    };
    let mut inp = vec![0u32; p::TABLE.in_words()];
    write_instr(&i, &mut inp);
    for (w, x) in inp.iter().enumerate() {
        assert!(REQUEST_PORTS.contains(&w) || *x == 0, "word {w}");
    }
}
