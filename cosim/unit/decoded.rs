use gpucosim::decoded::*;
use gpucosim::testbench::Testbench;
use gpucosim::units::{lds::LdsTestbench, ta::TaTestbench, waitcnt::WaitcntTestbench};
use gpucosim_model::decode::Signal;
use gpucosim_model::Profile;

fn paths<B: Testbench>(profile: Profile) -> Vec<String> {
    let l = layout::<B>(profile);
    assert!(
        l.derived.len() > mask_signals::<B>().len(),
        "{}: the decoder's signals are missing",
        B::UNIT
    );
    l.derived.iter().map(Signal::path).collect()
}

#[test]
fn every_unit_has_its_masks_and_its_decoder() {
    for profile in [Profile::Gfx9, Profile::Gfx11] {
        let ta = paths::<TaTestbench>(profile);
        for p in [
            "tb.model.lane_inrange_o.lane32.dword0",
            "tb.rtl.lane_inrange_o.lane63.dword3",
            "tb.rtl.lane_access_o.lane0.dword1",
            "tb.model.lane_memviol_o.lane7",
            "tb.in.exec_i.lane63",
            "tb.in.instr",
            "tb.in.vsharp.num_records",
            "tb.in.vsharp.base",
        ] {
            assert!(ta.iter().any(|x| x == p), "{p} missing");
        }
        // Byte masks stay whole.
        assert!(!ta.iter().any(|x| x.contains("line_mask_o.")));
        let lds = paths::<LdsTestbench>(profile);
        for p in [
            "tb.model.grant_lanes_o.lane5",
            "tb.rtl.grant_banks_o.bank31",
            "tb.model.memviol_o.lane0",
            "tb.in.access.lane5.bank",
            "tb.in.access.lane5.dword",
        ] {
            assert!(lds.iter().any(|x| x == p), "{p} missing");
        }
        let w = paths::<WaitcntTestbench>(profile);
        for p in [
            "tb.model.stall_o.wave3",
            "tb.rtl.release_o.wave15",
            "tb.in.ret_valid_i.channel2",
            "tb.model.wave3.vm_cnt",
            "tb.rtl.wave15.lgkm_cnt",
            "tb.model.wave0.wait",
            "tb.in.wait",
        ] {
            assert!(w.iter().any(|x| x == p), "{p} missing");
        }
        assert_eq!(
            w.iter().any(|x| x == "tb.model.wave0.vs_cnt"),
            profile == Profile::Gfx11
        );
    }
    let it = items::<TaTestbench>();
    assert!(it.contains(&("lane_inrange_o".to_string(), "lane", 4)));
    assert!(it.contains(&("lane_memviol_o".to_string(), "lane", 1)));
}
