use gpucosim_model::Profile;
use gpucosim_tb::run::*;
use gpucosim_tb::testbench::Testbench;
use gpucosim_tb::units::lds::LdsTestbench;
use gpucosim_tb::units::ta::TaTestbench;
use gpucosim_tb::units::waitcnt::WaitcntTestbench;

const CYCLES: u64 = 30_000;

/// Every cycle's inputs the driver of `B` drives on `view` in place of
/// the model, over a fresh run of `seed` (as [`record_inputs`]).
fn inputs_on<B: Testbench>(profile: Profile, seed: u64, view: DriverView) -> Vec<u32> {
    let knobs = B::Knobs::default();
    let run = ModelRun::<B>::new(profile, seed, &knobs, Stimulus::Fresh).with_model(Box::new(view));
    let mut rec = Vec::new();
    run_closed_loop(run, CYCLES, |inp, _| rec.extend_from_slice(inp));
    rec
}

/// `B`'s driver on a replay of the outputs it names in `DRIVER_READS`
/// drives the inputs it drives on the model, cycle for cycle; on a
/// replay of none of them (every output 0) it does not, so the
/// comparison sees the outputs at work. (Leaving out `stall_o` or
/// `issue_ack_o` of waitcnt, or `req_ready_o` of ta or lds, fails it;
/// waitcnt's `release_o` only closes the driver's record of the waits
/// in flight, which the inputs do not show.)
fn the_driver_reads_what_it_names<B: Testbench>() {
    for profile in Profile::all() {
        for seed in [1, 2] {
            let want = record_inputs::<B>(profile, seed, CYCLES).unwrap();
            let (view, last) = DriverView::record::<B>(profile, seed, CYCLES).unwrap();
            assert_eq!(last[..], want[want.len() - last.len()..]);
            let mut blind = view.clone();
            blind.ranges.clear();
            let got = inputs_on::<B>(profile, seed, view);
            assert!(
                got == want,
                "{} {profile} seed {seed}: a replay of {:?} drives other inputs",
                B::UNIT,
                B::DRIVER_READS
            );
            let blind = inputs_on::<B>(profile, seed, blind);
            assert!(
                blind != want,
                "{} {profile} seed {seed}: the driver drives the same without seeing any output",
                B::UNIT
            );
        }
        time_driver::<B>(profile, 1, 2_000).expect("the replay's last inputs are the model run's");
    }
}

#[test]
fn the_ta_driver_reads_what_it_names() {
    the_driver_reads_what_it_names::<TaTestbench>();
}

#[test]
fn the_lds_driver_reads_what_it_names() {
    the_driver_reads_what_it_names::<LdsTestbench>();
}

#[test]
fn the_waitcnt_driver_reads_what_it_names() {
    the_driver_reads_what_it_names::<WaitcntTestbench>();
}

/// A replay that misses an output the driver reads makes `time_driver`
/// fail, naming the unit and the list (ta's driver without
/// `req_ready_o` holds its first offer forever).
#[test]
fn time_driver_refuses_a_replay_that_drives_other_inputs() {
    let p = Profile::Gfx9;
    let (mut view, expect) = DriverView::record::<TaTestbench>(p, 1, 2_000).unwrap();
    time_on_view::<TaTestbench>(p, 1, 2_000, view.clone(), &expect).unwrap();
    view.ranges.clear();
    let e = time_on_view::<TaTestbench>(p, 1, 2_000, view, &expect).unwrap_err();
    let e = e.to_string();
    assert!(
        e.starts_with("unit ta: its driver drove other inputs") && e.contains("(req_ready_o)"),
        "{e}"
    );
}
