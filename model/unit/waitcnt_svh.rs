use gpucosim_model::profile::Profile;
use gpucosim_model::waitcnt::isa::CNT_W;
use gpucosim_model::waitcnt::params::WaitcntParams;
use gpucosim_model::waitcnt::svh::*;

#[test]
fn sizes_and_error_codes_render() {
    assert_eq!((INCR_W, DEC_W, CNT_W), (2, 4, 6));
    let t = enc_svh();
    assert!(t.contains("localparam int unsigned NumWaves = 16;"), "{t}");
    assert!(t.contains("localparam int unsigned CntLgkm = 1;"), "{t}");
    assert!(
        t.contains("localparam err_t ErrNone      = 4'b0000;"),
        "{t}"
    );
    assert!(
        t.contains("localparam err_t ErrUnderflow = 4'b1000;  // code 4"),
        "{t}"
    );
}

#[test]
fn immediate_fields_render_as_slices() {
    let g9 = WaitcntParams::of(Profile::Gfx9);
    assert_eq!(
        slice(&[g9.wait_vm_lo, g9.wait_vm_hi]),
        "{imm[15:14], imm[3:0]}"
    );
    assert_eq!(slice(&[g9.wait_lgkm]), "{2'b00, imm[11:8]}");
    let g11 = WaitcntParams::of(Profile::Gfx11);
    assert_eq!(slice(&[g11.wait_vm_lo, g11.wait_vm_hi]), "imm[15:10]");
    assert_eq!(slice(&[g11.wait_exp]), "{3'b000, imm[2:0]}");
}
