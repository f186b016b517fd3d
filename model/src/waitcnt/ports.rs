//! Top-level ports of the s_waitcnt scoreboard (`waitcnt_top`).
//! The cycle contract is in `docs/waitcnt.md`.

use super::cycle::{NUM_ERRORS, RET_CHANNELS, WAVES, WAVE_W};
use super::isa::{Counter, CLASS_W, NUM_COUNTERS};

crate::ports! {
    /// Ports of `waitcnt_top`.
    pub mod waitcnt_ports("waitcnt", "waitcnt_top") {
        /// Asynchronous active-low reset.
        input rst_ni: 1,
        /// An instruction that counts is offered for issue this cycle.
        input issue_valid_i: 1,
        /// Wave of the offered instruction (0..15).
        input issue_wave_i: WAVE_W,
        /// Class of the offered instruction (`Class` code, docs/waitcnt.md).
        input issue_class_i: CLASS_W,
        /// Return channel k carries a return event this cycle (bit k).
        input ret_valid_i: RET_CHANNELS,
        /// Wave of the return event on channel k (element k).
        input ret_wave_i: WAVE_W x RET_CHANNELS,
        /// Class of the instruction that returned on channel k (element k).
        input ret_class_i: CLASS_W x RET_CHANNELS,
        /// An `s_waitcnt` (or `s_waitcnt_vscnt`) is offered this cycle.
        input wait_valid_i: 1,
        /// Wave of the offered wait.
        input wait_wave_i: WAVE_W,
        /// 1: `s_waitcnt_vscnt` (gfx11 only), 0: `s_waitcnt`.
        input wait_vscnt_i: 1,
        /// The wait's 16-bit immediate.
        input wait_imm_i: 16,

        /// The offered issue is accepted and counted this cycle.
        output issue_ack_o: 1,
        /// The offered issue is held back: bit c set for each counter that
        /// would overflow (0 VM, 1 LGKM, 2 EXP, 3 VS); 0 = not held back.
        output issue_sat_o: NUM_COUNTERS,
        /// VM_CNT of wave w (element w), as registered at the start of the cycle.
        output vm_cnt_o: (Counter::Vm.widest()) x WAVES,
        /// LGKM_CNT of wave w.
        output lgkm_cnt_o: (Counter::Lgkm.widest()) x WAVES,
        /// EXP_CNT of wave w.
        output exp_cnt_o: (Counter::Exp.widest()) x WAVES,
        /// VS_CNT of wave w (always 0 on profiles without it).
        output vs_cnt_o: (Counter::Vs.widest()) x WAVES,
        /// Wave w has an s_waitcnt that is not satisfied this cycle (bit w).
        output stall_o: WAVES,
        /// Wave w's s_waitcnt is satisfied this cycle; the wave proceeds next cycle.
        output release_o: WAVES,
        /// Protocol errors of wave w this cycle (element w): bit `code - 1`
        /// set for each error code raised (1 illegal, 2 busy, 3 dual,
        /// 4 underflow); 0 = none.
        output err_o: NUM_ERRORS x WAVES,
    }
}
