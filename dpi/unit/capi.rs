use gpucosim_dpi::capi::*;
use gpucosim_tb::units;
use std::ffi::CStr;

fn err() -> String {
    unsafe { CStr::from_ptr(gpucosim_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Every registered unit has its per-unit entry points, named as the
/// SystemVerilog package declares them.
#[test]
fn every_unit_has_its_entry_points() {
    let have: Vec<&str> = PER_UNIT.iter().map(|(u, _)| *u).collect();
    assert_eq!(have, units::UNITS);
    for (u, names) in PER_UNIT {
        for (n, what) in names.iter().zip(["eval", "tick", "step", "stim_next"]) {
            assert_eq!(*n, per_unit_name(u, what));
        }
    }
}

#[test]
fn errors_are_return_codes_with_a_message() {
    unsafe {
        let m = gpucosim_model_new(c"tex".as_ptr(), c"gfx9".as_ptr());
        assert!(m.is_null());
        assert!(err().contains("unknown unit `tex`"), "{}", err());
        assert!(gpucosim_model_new(std::ptr::null(), c"gfx9".as_ptr()).is_null());
        assert!(err().contains("unit is NULL"), "{}", err());
        assert_eq!(gpucosim_model_reset(std::ptr::null_mut()), -1);
        assert!(err().contains("handle is NULL"), "{}", err());

        // A knob out of its range, as `--knob` refuses it.
        let s = gpucosim_stim_new(
            c"ta".as_ptr(),
            c"gfx9".as_ptr(),
            1,
            c"stall_pct=200".as_ptr(),
        );
        assert!(s.is_null());
        assert!(
            err().contains("knob `stall_pct` of unit ta: `200` is not an integer in 0..=100"),
            "{}",
            err()
        );
        let s = gpucosim_stim_new(
            c"ta".as_ptr(),
            c"gfx9".as_ptr(),
            1,
            c"stall_pct=100".as_ptr(),
        );
        assert!(!s.is_null());
        gpucosim_stim_free(s);

        let m = gpucosim_model_new(c"lds".as_ptr(), c"gfx11".as_ptr());
        assert!(!m.is_null());
        let n_in = gpucosim_model_in_words(m) as usize;
        let n_out = gpucosim_model_out_words(m) as usize;
        let inp = vec![0u32; n_in];
        let mut out = vec![0u32; n_out];
        // A model of another unit through a per-unit entry point.
        assert_eq!(ta::eval(m, inp.as_ptr(), out.as_mut_ptr()), -1);
        assert!(err().contains("model of unit lds, not ta"), "{}", err());
        assert_eq!(
            gpucosim_model_step(m, std::ptr::null(), out.as_mut_ptr()),
            -1
        );
        assert!(err().contains("input buffer is NULL"), "{}", err());
        assert_eq!(lds::eval(m, inp.as_ptr(), out.as_mut_ptr()), 0);
        // In reset, lds shows req_ready_o = 1 and nothing else.
        assert_eq!(out[0], 1);
        assert!(gpucosim_model_cov_name(m, 100_000).is_null());
        assert!(err().contains("no bin 100000"), "{}", err());
        assert_eq!(gpucosim_model_cov_hits(m, -1), -1);
        let bins = gpucosim_model_cov_bins(m);
        assert!(bins > 0);
        let s = CStr::from_ptr(gpucosim_model_cov_summary(m)).to_string_lossy();
        assert!(
            s.starts_with(&format!("lds gfx11: covered 0/{bins} bins")),
            "{s}"
        );
        gpucosim_model_free(m);

        assert!(
            gpucosim_stim_new(c"waitcnt".as_ptr(), c"gfx9".as_ptr(), 1, c"x".as_ptr()).is_null()
        );
        assert!(err().contains("not name=value"), "{}", err());
        let s = gpucosim_stim_new(c"waitcnt".as_ptr(), c"gfx9".as_ptr(), 1, std::ptr::null());
        assert!(!s.is_null());
        let mut v = vec![
            0u32;
            units::port_tables()
                .find(|t| t.unit == "waitcnt")
                .unwrap()
                .in_words()
        ];
        assert_eq!(lds::stim_next(s, v.as_mut_ptr()), -1);
        assert!(
            err().contains("stimulus of unit waitcnt, not lds"),
            "{}",
            err()
        );
        assert_eq!(waitcnt::stim_next(s, v.as_mut_ptr()), 1);
        assert_eq!(v[0] & 1, 0, "the first cycles are reset cycles");
        gpucosim_stim_free(s);
        gpucosim_model_free(std::ptr::null_mut());
    }
}
