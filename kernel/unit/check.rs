use gpucosim_kernel::asm::parse;
use gpucosim_kernel::asm::Kernel;
use gpucosim_kernel::check::*;
use gpucosim_model::waitcnt::Counter;
use gpucosim_model::Profile;

/// A kernel of `body`, ended by `s_endpgm` where it does not end so.
fn prog(profile: Profile, body: &str) -> (Kernel, Profile) {
    let end = if body.trim_end().ends_with("s_endpgm") {
        ""
    } else {
        "s_endpgm\n"
    };
    let text = format!("\t.type k,@function\nk:\n{body}\n{end}");
    (parse(&text).unwrap().kernels.remove(0), profile)
}

/// A kernel whose last instruction the program reaches and which could
/// fall through (a file cut short) is refused; padding after the end,
/// which nothing reaches, and a last branch are not.
#[test]
fn running_past_the_last_instruction_is_an_error() {
    let flow = |body: &str| {
        let k = parse(&format!("\t.type k,@function\nk:\n{body}\n"))
            .unwrap()
            .kernels
            .remove(0);
        KernelFlow::new(&k, Gfx9).map(|_| ())
    };
    let cut = flow("global_load_dword v2, v[0:1], off\nv_add_f32 v3, v2, v2").unwrap_err();
    assert!(
        cut.ends_with("`v_add_f32 v3, v2, v2`, the last instruction of kernel `k`, runs on past its end (no `s_endpgm` or branch): is the file cut short?"),
        "{cut}"
    );
    assert!(flow("s_cmp_eq_u32 s0, 0\n.L1:\ns_cbranch_scc1 .L1").is_err());
    assert_eq!(flow("s_endpgm\ns_code_end\ns_code_end"), Ok(()));
    assert_eq!(
        flow("s_cbranch_scc1 .L1\ns_endpgm\n.L1:\ns_branch .L0\n.L0:\ns_endpgm"),
        Ok(())
    );
    assert_eq!(
        flow(".L1:\ns_nop 0\ns_cbranch_scc1 .L2\ns_branch .L1\n.L2:\ns_endpgm"),
        Ok(())
    );
}

fn hazards(p: Profile, body: &str) -> Vec<(HazardKind, usize, usize, String, Counter, u32)> {
    let (k, p) = prog(p, body);
    let pr = KernelFlow::new(&k, p).unwrap();
    pr.hazards(None)
        .into_iter()
        .map(|h| (h.kind, h.at, h.by, h.regs.text(), h.counter, h.needed))
        .collect()
}

use Counter::*;
use HazardKind::*;
use Profile::*;

#[test]
fn a_read_before_its_load_returns_is_raw() {
    let h = hazards(
        Gfx9,
        "global_load_dword v2, v[0:1], off\nv_add_f32 v3, v2, v2\ns_endpgm",
    );
    assert_eq!(h, [(Raw, 1, 0, "v2".into(), Vm, 0)]);
    assert!(hazards(
        Gfx9,
        "global_load_dword v2, v[0:1], off\ns_waitcnt vmcnt(0)\nv_add_f32 v3, v2, v2"
    )
    .is_empty());
}

/// In-order groups: the older of two VM loads has returned at vmcnt(1);
/// SMEM is in no order, so only lgkmcnt(0) (or a count below its
/// weight) proves it.
#[test]
fn ordering_groups_and_weights() {
    let two_loads = "global_load_dword v2, v[0:1], off\nglobal_load_dword v3, v[0:1], off\ns_waitcnt vmcnt(1)\nv_mov_b32 v4, v2\nv_mov_b32 v5, v3";
    assert_eq!(hazards(Gfx9, two_loads), [(Raw, 4, 1, "v3".into(), Vm, 0)]);
    // gfx9: a store is in the same group as loads, so it keeps the load
    // behind it; gfx11: stores count on VS, not VM.
    let store_after = "global_load_dword v2, v[0:1], off\nglobal_store_dword v[0:1], v3, off\ns_waitcnt vmcnt(1)\nv_mov_b32 v4, v2";
    assert!(hazards(Gfx9, store_after).is_empty());
    assert_eq!(
        hazards(Gfx11, store_after),
        [(Raw, 3, 0, "v2".into(), Vm, 0)]
    );
    // Two SMEM loads: lgkmcnt(1) does not prove either (any order).
    let smem = "s_load_dword s4, s[0:1], 0x0\ns_load_dword s5, s[0:1], 0x4\ns_waitcnt lgkmcnt(1)\ns_mov_b32 s6, s4";
    assert_eq!(hazards(Gfx9, smem), [(Raw, 3, 0, "s4".into(), Lgkm, 0)]);
    // Even a lone wide SMEM load (weight 2) needs lgkmcnt(0) (SPEC §3.1:
    // after SMEM only lgkmcnt(0) is safe).
    let wide = "s_load_dwordx2 s[4:5], s[0:1], 0x0\ns_waitcnt lgkmcnt(1)\ns_mov_b32 s6, s4";
    assert_eq!(hazards(Gfx9, wide), [(Raw, 2, 0, "s4".into(), Lgkm, 0)]);
    // LDS behind an SMEM: LDS is in order only among LDS.
    let lds =
        "ds_read_b32 v1, v0\ns_load_dword s4, s[0:1], 0x0\ns_waitcnt lgkmcnt(1)\nv_mov_b32 v2, v1";
    assert_eq!(hazards(Gfx9, lds), [(Raw, 3, 0, "v1".into(), Lgkm, 0)]);
    let lds2 = "ds_read_b32 v1, v0\nds_read_b32 v2, v0\ns_waitcnt lgkmcnt(1)\nv_mov_b32 v3, v1";
    assert!(hazards(Gfx9, lds2).is_empty());
}

#[test]
fn waw_except_behind_a_load_of_the_same_group() {
    let alu = "global_load_dword v2, v[0:1], off\nv_mov_b32 v2, 0";
    assert_eq!(hazards(Gfx9, alu), [(Waw, 1, 0, "v2".into(), Vm, 0)]);
    let vm = "global_load_dword v2, v[0:1], off\nglobal_load_dword v2, v[0:1], off offset:4";
    assert!(hazards(Gfx9, vm).is_empty());
    let mixed = "global_load_dword v2, v[0:1], off\nds_read_b32 v2, v0";
    assert_eq!(hazards(Gfx9, mixed), [(Waw, 1, 0, "v2".into(), Vm, 0)]);
}

/// A loop: the load of one iteration is still outstanding at the top of
/// the next; the join keeps it, and the wait after the loop covers it.
#[test]
fn loops_reach_a_fixed_point() {
    let body = "s_mov_b32 s2, 4\n.L1:\nglobal_load_dword v2, v[0:1], off\nv_mov_b32 v3, v2\ns_sub_u32 s2, s2, 1\ns_cbranch_scc1 .L1\ns_endpgm";
    assert_eq!(hazards(Gfx9, body), [(Raw, 2, 1, "v2".into(), Vm, 0)]);
    let body = "s_mov_b32 s2, 4\n.L1:\nv_mov_b32 v3, v2\nglobal_load_dword v2, v[0:1], off\ns_sub_u32 s2, s2, 1\ns_cbranch_scc1 .L1\ns_endpgm";
    // On the back edge the load of the previous iteration is pending;
    // the load itself returns after it (same group): no WAW.
    assert_eq!(hazards(Gfx9, body), [(Raw, 1, 2, "v2".into(), Vm, 0)]);
}

#[test]
fn redundant_waits_get_their_weakest_thresholds() {
    let (k, p) = prog(
        Gfx9,
        "global_load_dword v2, v[0:1], off\nglobal_load_dword v3, v[0:1], off\ns_waitcnt vmcnt(0) lgkmcnt(0)\nv_mov_b32 v4, v2\ns_waitcnt vmcnt(0)\nv_mov_b32 v5, v3\ns_waitcnt lgkmcnt(0)\nv_mov_b32 v6, 0\ns_waitcnt vmcnt(0)\ns_nop 0\ns_barrier\ns_endpgm",
    );
    let pr = KernelFlow::new(&k, p).unwrap();
    assert!(pr.hazards(None).is_empty());
    let r: Vec<Redundant> = pr
        .redundant()
        .into_iter()
        .filter(|r| !pr.at_fence(r.at))
        .collect();
    // Each wait is judged with the others as written: the vmcnt(0) at
    // 4 can go because the one at 2 drains VM, and the one at 2 could
    // be vmcnt(1) because the one at 4 covers v3 — not both at once.
    assert_eq!(r.len(), 3, "{r:?}");
    assert_eq!((r[0].at, r[0].weakest.vm, r[0].weakest.lgkm), (2, 1, 15));
    assert_eq!((r[1].at, r[2].at), (4, 6));
    assert!(r[1].removable(p) && r[2].removable(p));
    // The wait before the barrier serves the memory model: not judged.
    assert!(pr.at_fence(8) && !pr.at_fence(4) && !pr.at_fence(6));
}

/// A release wait before `s_barrier` is at the fence whatever the
/// scheduler put between them (gfx11: VALU and SALU, `s_delay_alu`),
/// memory instructions included, unless a later wait releases its
/// counter instead or a branch comes first.
#[test]
fn release_waits_before_a_barrier_are_at_the_fence() {
    let body = "ds_store_b32 v0, v5\ns_waitcnt lgkmcnt(0)\nv_and_b32_e32 v3, 63, v3\ns_delay_alu instid0(VALU_DEP_1)\nv_lshlrev_b32_e32 v0, 2, v3\ns_add_i32 s0, s0, 1\nglobal_load_b32 v7, v[8:9], off\ns_barrier\nbuffer_gl0_inv\ns_waitcnt vmcnt(0)\nv_mov_b32 v1, v7\ns_endpgm";
    let (k, p) = prog(Gfx11, body);
    let pr = KernelFlow::with_fence(&k, p, BarrierFence::None).unwrap();
    assert!(pr.hazards(None).is_empty());
    let r: Vec<usize> = pr.redundant().iter().map(|r| r.at).collect();
    assert_eq!(r, [1], "without the fence, the release wait could go");
    assert!(
        pr.at_fence(1),
        "but it releases the LDS store at the barrier"
    );
    // A later lgkmcnt(0) before the barrier releases the store instead.
    let (k, p) = prog(
        Gfx11,
        &body.replace(
            "s_add_i32",
            "ds_store_b32 v0, v6\ns_waitcnt lgkmcnt(0)\ns_add_i32",
        ),
    );
    let pr = KernelFlow::with_fence(&k, p, BarrierFence::None).unwrap();
    assert!(!pr.at_fence(1) && pr.at_fence(6));
    // Nothing outstanding on its counter: it releases nothing.
    let (k, p) = prog(
        Gfx11,
        &body.replace("ds_store_b32 v0, v5", "v_mov_b32 v1, 0"),
    );
    assert!(!KernelFlow::with_fence(&k, p, BarrierFence::None)
        .unwrap()
        .at_fence(1));
    // A branch between: the barrier is on one path only.
    let (k, p) = prog(
        Gfx11,
        &body.replace("s_add_i32 s0, s0, 1", "s_cbranch_scc1 .L1\n.L1:"),
    );
    assert!(!KernelFlow::with_fence(&k, p, BarrierFence::None)
        .unwrap()
        .at_fence(1));
}

/// The acquire side of a global fence on gfx11 in WGP mode: a vector
/// memory load after `s_barrier` needs `buffer_gl0_inv` between.
#[test]
fn loads_after_a_global_barrier_need_an_l0_invalidate_in_wgp_mode() {
    use BarrierFence::{Global, Local};
    let stale = |p: Profile, body: &str, fence: BarrierFence, wgp: bool| {
        let (k, p) = prog(p, body);
        KernelFlow::with_acquire(&k, p, fence, wgp)
            .unwrap()
            .hazards(None)
            .into_iter()
            .filter(|h| h.kind == HazardKind::Stale)
            .map(|h| (h.at, h.by))
            .collect::<Vec<_>>()
    };
    let body = "s_barrier\nglobal_load_b32 v1, v0, s[0:1]\ns_waitcnt vmcnt(0)\nglobal_store_b32 v0, v1, s[0:1]\ns_endpgm";
    assert_eq!(stale(Gfx11, body, Global, true), [(1, 0)]);
    assert_eq!(stale(Gfx11, body, Global, false), [], "CU mode");
    assert_eq!(stale(Gfx11, body, Local, true), [], "a local fence");
    let inv = body.replace("s_barrier\n", "s_barrier\nbuffer_gl0_inv\n");
    assert_eq!(stale(Gfx11, &inv, Global, true), []);
    // Through a loop: the load at the top is reached from the barrier at
    // the bottom.
    let looped = "s_mov_b32 s2, 4\n.L:\nglobal_load_b32 v1, v0, s[0:1]\ns_waitcnt vmcnt(0)\ns_add_i32 s2, s2, -1\ns_barrier\ns_cmp_eq_u32 s2, 0\ns_cbranch_scc0 .L\ns_endpgm";
    assert_eq!(stale(Gfx11, looped, Global, true), [(1, 4)]);
    let gfx9 = "s_barrier\nglobal_load_dword v1, v0, s[0:1]\ns_waitcnt vmcnt(0)\ns_endpgm";
    assert_eq!(
        stale(Gfx9, gfx9, Global, true),
        [],
        "gfx9: one CU per work-group"
    );
}

/// Barriers as fences: a store that may be outstanding at `s_barrier`
/// is a FENCE hazard (LDS stores and LDS DMA under `local`, vector
/// memory stores too under `global`), with the wait it needs; reads
/// and permutes are not fenced; `none` fences nothing.
#[test]
fn barriers_fence_the_stores_before_them() {
    let fenced = |p: Profile, body: &str, fence: BarrierFence| {
        let (k, p) = prog(p, body);
        let pr = KernelFlow::with_fence(&k, p, fence).unwrap();
        pr.hazards(None)
            .into_iter()
            .map(|h| (h.kind, h.at, h.by, h.regs.text(), h.counter, h.needed))
            .collect::<Vec<_>>()
    };
    use BarrierFence::{Global, Local, None as Off};
    let lds = "ds_write_b32 v0, v1\nv_add_u32_e32 v2, 1, v2\ns_barrier\ns_endpgm";
    let hit = vec![(Fence, 2, 0, "the LDS stored to".to_string(), Lgkm, 0)];
    assert_eq!(fenced(Gfx9, lds, Local), hit);
    assert_eq!(fenced(Gfx9, lds, Global), hit);
    assert_eq!(fenced(Gfx9, lds, Off), []);
    // The release wait ends it; a younger LDS store behind it lets
    // lgkmcnt(1) prove the older one returned.
    assert_eq!(
        fenced(
            Gfx9,
            &lds.replace("s_barrier", "s_waitcnt lgkmcnt(0)\ns_barrier"),
            Local
        ),
        []
    );
    let two = "ds_write_b32 v0, v1\nds_write_b32 v3, v1\ns_waitcnt lgkmcnt(1)\ns_barrier\ns_endpgm";
    assert_eq!(
        fenced(Gfx9, two, Local),
        [(Fence, 3, 1, "the LDS stored to".to_string(), Lgkm, 0)]
    );
    // Atomics write the LDS; reads and permutes do not.
    let atomic = lds.replace("ds_write_b32 v0, v1", "ds_add_u32 v0, v1");
    assert_eq!(fenced(Gfx9, &atomic, Local).len(), 1);
    for read in ["ds_read_b32 v4, v0", "ds_bpermute_b32 v4, v0, v1"] {
        let body = lds.replace("ds_write_b32 v0, v1", read);
        assert_eq!(fenced(Gfx9, &body, Global), [], "{read}");
    }
    // Global stores: only under `global`, on vmcnt (gfx9) or vscnt
    // (gfx11).
    let global = "global_store_dword v[0:1], v2, off\ns_barrier\ns_endpgm";
    assert_eq!(fenced(Gfx9, global, Local), []);
    assert_eq!(
        fenced(Gfx9, global, Global),
        [(Fence, 1, 0, "the memory stored to".to_string(), Vm, 0)]
    );
    let global11 = "global_store_b32 v[0:1], v2, off\ns_barrier\ns_endpgm";
    assert_eq!(
        fenced(Gfx11, global11, Global),
        [(Fence, 1, 0, "the memory stored to".to_string(), Vs, 0)]
    );
    // LDS DMA writes the LDS through vmcnt.
    let dma = "buffer_load_dword v1, s[0:3], 0 offen lds\ns_barrier\ns_endpgm";
    assert_eq!(
        fenced(Gfx9, dma, Local),
        [(Fence, 1, 0, "LDS".to_string(), Vm, 0)]
    );
    assert_eq!("global".parse::<BarrierFence>(), Ok(Global));
    assert_eq!(
        "fence".parse::<BarrierFence>(),
        Err("`fence` is not a barrier fence: none, local or global".to_string())
    );
}
