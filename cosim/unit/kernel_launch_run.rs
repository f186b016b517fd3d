use gpucosim::kernel::launch_run::*;
use gpucosim::kernel::waitcnt_stim::StimOpts;
use gpucosim_model::Profile;

fn kernel_run(launch: bool, waitcnt_stim: Option<StimOpts>, cycles: Option<u64>) -> KernelRun {
    KernelRun {
        file: "k s.s".into(),
        kernel: "k".into(),
        profile: Profile::Gfx9,
        unit: if launch { "lds" } else { "waitcnt" }.into(),
        seed: 3,
        launch: launch.then(|| "l.json".into()),
        waitcnt_stim,
        cycles,
        rtl_arg: None,
    }
}

/// The one budget rule: `--cycles` when given, else enough for a
/// launch's traffic, else the replay's default.
#[test]
fn the_budget_is_cycles_else_the_traffics_need_else_the_replays_default() {
    let need = Need {
        busy: 4224,
        transactions: 128,
    };
    assert_eq!(need.cycles(), 2 * (4224 + 6 * 128) + 1000);
    assert_eq!(kernel_run(true, None, None).budget(Some(need)), 10984);
    assert_eq!(kernel_run(true, None, Some(300)).budget(Some(need)), 300);
    assert_eq!(kernel_run(false, None, None).budget(None), REPLAY_CYCLES);
    assert_eq!(kernel_run(false, None, Some(7)).budget(None), 7);
}

/// `kernel run`'s replay names all its settings (the budget too); a
/// launch names the `--cycles` given only; the spec is the kernel's.
#[test]
fn the_reproduce_command_is_kernel_run() {
    let opts = StimOpts {
        waves: 2,
        max_iterations: 5,
    };
    assert_eq!(
        kernel_run(false, Some(opts), None).reproduce().to_string(),
        "gpucosim kernel run 'k s.s' --profile gfx9 --seed 3 --kernel k --wave-count 2 --iterations 5 --cycles 1000000"
    );
    assert_eq!(
        kernel_run(false, None, Some(50000)).reproduce().to_string(),
        "gpucosim kernel run 'k s.s' --profile gfx9 --seed 3 --kernel k --cycles 50000"
    );
    let launch = kernel_run(true, None, None);
    assert_eq!(
        launch.reproduce().to_string(),
        "gpucosim kernel run 'k s.s' --launch l.json --profile gfx9 --seed 3 --kernel k"
    );
    let spec = launch.spec(1234);
    assert_eq!(spec.name(), "lds.gfx9.k.3");
    assert_eq!(spec.cycles, 1234);
    assert_eq!(spec.repro_command(), launch.reproduce().to_string());
}

/// An incomplete run says how far it got, as `kernel run` and as a
/// regression job.
#[test]
fn incomplete_runs_say_where_the_budget_ended() {
    let short = Incomplete {
        budget: 300,
        consumed: 21,
        total: 128,
    };
    assert_eq!(
        short.line(),
        "the cycle budget ended after 21 of 128 transactions"
    );
    assert_eq!(
        short.message(),
        "the cycle budget of 300 cycles ended after 21 of the kernel's 128 transactions: raise --cycles"
    );
    let undrained = Incomplete {
        consumed: 128,
        ..short
    };
    assert_eq!(
        undrained.line(),
        "the cycle budget ended before the last of 128 transactions had finished"
    );
    assert_eq!(
        undrained.message(),
        "the cycle budget of 300 cycles ended before the last of the kernel's 128 transactions had finished: raise --cycles"
    );
}
