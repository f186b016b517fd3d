// s_waitcnt scoreboard: per-wave VM/LGKM/EXP(/VS) counters of 16 waves,
// saturation, s_waitcnt stalls and protocol errors.
// Cycle contract: docs/waitcnt.md. Outputs other than the counters are
// combinational in the registered state and this cycle's inputs.

module waitcnt_top #(
  parameter int unsigned GFX = 9
) (
`include "waitcnt_ports.svh"
);

  import waitcnt_pkg::*;

  localparam cnt_t CntMax = cnt_max(GFX);
  localparam logic HasVs  = has_vs(GFX);

  // Registered state.
  cnt_t [NumWaves-1:0]    cnt_q, cnt_d;
  cnt_t [NumWaves-1:0]    thr_q, thr_d;
  logic [NumWaves-1:0]    waiting_q, waiting_d;

  // Combinational results of the cycle.
  err_t [NumWaves-1:0]                        err;
  logic [NumWaves-1:0][NumCnt-1:0][DecW-1:0]  dec;
  logic [NumWaves-1:0]                        stall, release_w;
  logic                                       dual, issue_legal, issue_ok, issue_ack;
  logic [NumCnt-1:0]                          issue_sat;
  logic                                       wait_legal, wait_ok;
  incr_t                                      issue_inc, ret_inc;
  cnt_t                                       new_thr, thr_sel;
  logic                                       satisfied, pending;
  logic [CntW:0]                              sum;

  // Adds error `code` (one bit) to a wave's errors of the cycle.
  function automatic err_t merge_err(err_t cur, err_t code);
    return cur | code;
  endfunction

  always_comb begin
    err       = '0;
    dec       = '0;
    stall     = '0;
    release_w = '0;
    cnt_d     = cnt_q;
    thr_d     = thr_q;

    // Issue.
    dual        = issue_valid_i && wait_valid_i && (issue_wave_i == wait_wave_i);
    issue_legal = cls_legal(GFX, issue_class_i);
    issue_inc   = cls_incr(GFX, issue_class_i);
    if (issue_valid_i) begin
      if (!issue_legal)           err[issue_wave_i] = merge_err(err[issue_wave_i], ErrIllegal);
      if (waiting_q[issue_wave_i]) err[issue_wave_i] = merge_err(err[issue_wave_i], ErrBusy);
      if (dual)                   err[issue_wave_i] = merge_err(err[issue_wave_i], ErrDual);
    end
    issue_ok  = issue_valid_i && issue_legal && !waiting_q[issue_wave_i] && !dual;
    issue_sat = '0;
    for (int unsigned c = 0; c < NumCnt; c++) begin
      sum = {1'b0, cnt_q[issue_wave_i][c]} + {{(CntW + 1 - IncrW){1'b0}}, issue_inc[c]};
      if (sum > {1'b0, CntMax[c]}) issue_sat[c] = issue_ok;
    end
    issue_ack = issue_ok && (issue_sat == '0);

    // Wait.
    wait_legal = !wait_vscnt_i || HasVs;
    if (wait_valid_i) begin
      if (!wait_legal)           err[wait_wave_i] = merge_err(err[wait_wave_i], ErrIllegal);
      if (waiting_q[wait_wave_i]) err[wait_wave_i] = merge_err(err[wait_wave_i], ErrBusy);
      if (dual)                  err[wait_wave_i] = merge_err(err[wait_wave_i], ErrDual);
    end
    wait_ok = wait_valid_i && wait_legal && !waiting_q[wait_wave_i] && !dual;
    new_thr = decode_imm(GFX, wait_imm_i, wait_vscnt_i);

    // Returns.
    for (int unsigned k = 0; k < NumRet; k++) begin
      ret_inc = cls_incr(GFX, ret_class_i[k]);
      if (ret_valid_i[k]) begin
        if (!cls_legal(GFX, ret_class_i[k])) begin
          err[ret_wave_i[k]] = merge_err(err[ret_wave_i[k]], ErrIllegal);
        end else begin
          for (int unsigned c = 0; c < NumCnt; c++) begin
            dec[ret_wave_i[k]][c] = dec[ret_wave_i[k]][c] + {{(DecW - IncrW){1'b0}}, ret_inc[c]};
          end
        end
      end
    end

    // Per wave: underflow, stall and release, next counters.
    for (int unsigned w = 0; w < NumWaves; w++) begin
      for (int unsigned c = 0; c < NumCnt; c++) begin
        if ({{(CntW - DecW){1'b0}}, dec[w][c]} > cnt_q[w][c]) begin
          err[w]      = merge_err(err[w], ErrUnderflow);
          cnt_d[w][c] = '0;
        end else begin
          cnt_d[w][c] = cnt_q[w][c] - {{(CntW - DecW){1'b0}}, dec[w][c]};
        end
        if (issue_ack && (issue_wave_i == w[3:0])) begin
          cnt_d[w][c] = cnt_d[w][c] + {{(CntW - IncrW){1'b0}}, issue_inc[c]};
        end
      end
      pending   = waiting_q[w] || (wait_ok && (wait_wave_i == w[3:0]));
      thr_sel   = waiting_q[w] ? thr_q[w] : new_thr;
      satisfied = 1'b1;
      for (int unsigned c = 0; c < NumCnt; c++) begin
        if (cnt_q[w][c] > thr_sel[c]) satisfied = 1'b0;
      end
      stall[w]     = pending && !satisfied;
      release_w[w] = pending && satisfied;
      if (wait_ok && (wait_wave_i == w[3:0])) thr_d[w] = new_thr;
    end
    waiting_d = stall;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q     <= '0;
      thr_q     <= {NumWaves{CntMax}};
      waiting_q <= '0;
    end else begin
      cnt_q     <= cnt_d;
      thr_q     <= thr_d;
      waiting_q <= waiting_d;
    end
  end

  // Outputs. Everything combinational is forced to 0 while in reset.
  always_comb begin
    for (int unsigned w = 0; w < NumWaves; w++) begin
      vm_cnt_o[w]   = cnt_q[w][CntVm];
      lgkm_cnt_o[w] = cnt_q[w][CntLgkm];
      exp_cnt_o[w]  = cnt_q[w][CntExp][2:0];
      vs_cnt_o[w]   = cnt_q[w][CntVs];
      err_o[w]      = rst_ni ? err[w] : ErrNone;
    end
    issue_ack_o = rst_ni && issue_ack;
    issue_sat_o = rst_ni ? issue_sat : '0;
    stall_o     = rst_ni ? stall : '0;
    release_o   = rst_ni ? release_w : '0;
  end

endmodule
