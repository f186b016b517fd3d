use gpucosim_kernel::asm::parse;
use gpucosim_kernel::check::KernelFlow;
use gpucosim_kernel::waitcnt_stim::*;
use gpucosim_model::waitcnt::{encode, Class, Thresholds};
use gpucosim_model::Profile;
use gpucosim_tb::units::waitcnt::txn::WaitcntTxn;

fn program(body: &str) -> gpucosim_kernel::asm::Kernel {
    parse(&format!("\t.type k,@function\nk:\n{body}\n"))
        .unwrap()
        .kernels
        .remove(0)
}

/// Options whose stimulus could not be held are refused before any is
/// built, and every path stays within the bound they are judged by.
#[test]
fn options_are_held_to_the_limits_and_paths_to_their_bound() {
    let opts = |waves, max_iterations| StimOpts {
        waves,
        max_iterations,
    };
    assert_eq!(opts(4, 4).check(500), Ok(()));
    assert_eq!(opts(16, MAX_ITERATIONS).check(20), Ok(()));
    for it in [0, MAX_ITERATIONS + 1, u32::MAX] {
        assert_eq!(
            opts(4, it).check(10).unwrap_err(),
            format!("--iterations {it}: expected 1 to 10000")
        );
    }
    let err = opts(16, MAX_ITERATIONS).check(100).unwrap_err();
    assert!(err.contains("lower --iterations or --wave-count"), "{err}");
    let k = program(
        ".L1:\nglobal_load_dword v2, v[0:1], off\ns_cbranch_scc1 .L1\n.L2:\ns_waitcnt vmcnt(0)\ns_cbranch_scc0 .L2\ns_endpgm",
    );
    let pr = KernelFlow::new(&k, Profile::Gfx9).unwrap();
    for seed in 0..20 {
        let (_, paths) = stimulus_traced(&pr, seed, &opts(2, 3));
        for p in &paths {
            assert!(p.steps.len() as u64 <= path_bound(pr.cls.len(), 3));
        }
    }
}

#[test]
fn paths_follow_the_graph_and_loops_are_bounded() {
    let k = program(
        "s_load_dword s4, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n.L1:\nglobal_load_dword v2, v[0:1], off\ns_waitcnt vmcnt(0)\ns_cbranch_scc1 .L1\nglobal_store_dword v[0:1], v2, off\ns_endpgm",
    );
    let pr = KernelFlow::new(&k, Profile::Gfx11).unwrap();
    let opts = StimOpts {
        waves: 3,
        max_iterations: 5,
    };
    let a = stimulus(&pr, 7, &opts);
    assert_eq!(a, stimulus(&pr, 7, &opts), "deterministic per seed");
    assert_ne!(a, stimulus(&pr, 8, &opts));
    for w in 0..3u8 {
        let mine: Vec<&WaitcntTxn> = a
            .iter()
            .filter(|t| matches!(t, WaitcntTxn::Issue { wave, .. } | WaitcntTxn::Wait { wave, .. } if *wave == w))
            .collect();
        let loads = mine
            .iter()
            .filter(|t| {
                matches!(
                    t,
                    WaitcntTxn::Issue {
                        class: Class::VmemLoad,
                        ..
                    }
                )
            })
            .count();
        // The loop body runs once, plus 1..=5 taken back edges.
        assert!((2..=6).contains(&loads), "wave {w}: {loads} loads");
        assert!(matches!(
            mine[0],
            WaitcntTxn::Issue {
                class: Class::Smem1,
                ..
            }
        ));
        assert!(matches!(
            mine.last().unwrap(),
            WaitcntTxn::Issue {
                class: Class::VmemStore,
                ..
            }
        ));
        // gfx11 vmcnt(0): imm with vm 0, the rest not waiting.
        let vm0 = encode(
            Profile::Gfx11,
            &Thresholds {
                vm: 0,
                ..Thresholds::none(Profile::Gfx11)
            },
        );
        assert!(mine
            .iter()
            .any(|t| matches!(t, WaitcntTxn::Wait { imm, vscnt: false, .. } if *imm == vm0)));
    }
}
