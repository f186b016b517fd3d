// Generated from the port tables by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.
//
// Example testbench: waitcnt_top (the DUT) and waitcnt_ref (gpucosim's model) side
// by side, driven by gpucosim's stimulus for the seed (the inputs
// `gpucosim run --unit waitcnt --seed N` gives the RTL), every output
// compared every cycle before the rising edge; a mismatch is an $error
// naming the cycle, the port (the first differing element of an array),
// both values and what is in flight.
//
// Plusargs: +seed=N (1), +cycles=N (10000), +knobs=name=value,... (none),
// +max_mismatches=N (1: stop at the first).
module waitcnt_tb #(
  parameter int unsigned GFX = 9
);

  import gpucosim_dpi::*;

  // High from time 0 without an edge: the first cycle is compared at
  // the first falling edge, before the first rising one.
  /* verilator lint_off PROCASSINIT */
  bit clk_i = 1'b1;
  /* verilator lint_on PROCASSINIT */
  always #5 clk_i = ~clk_i;

  // Inputs, from the stimulus.
  logic rst_ni;
  logic issue_valid_i;
  logic [3:0] issue_wave_i;
  logic [3:0] issue_class_i;
  logic [3:0] ret_valid_i;
  logic [3:0][3:0] ret_wave_i;
  logic [3:0][3:0] ret_class_i;
  logic wait_valid_i;
  logic [3:0] wait_wave_i;
  logic wait_vscnt_i;
  logic [15:0] wait_imm_i;

  // Outputs of each side.
  logic dut_issue_ack_o, ref_issue_ack_o;
  logic [3:0] dut_issue_sat_o, ref_issue_sat_o;
  logic [15:0][5:0] dut_vm_cnt_o, ref_vm_cnt_o;
  logic [15:0][5:0] dut_lgkm_cnt_o, ref_lgkm_cnt_o;
  logic [15:0][2:0] dut_exp_cnt_o, ref_exp_cnt_o;
  logic [15:0][5:0] dut_vs_cnt_o, ref_vs_cnt_o;
  logic [15:0] dut_stall_o, ref_stall_o;
  logic [15:0] dut_release_o, ref_release_o;
  logic [15:0][3:0] dut_err_o, ref_err_o;

  waitcnt_top #(.GFX(GFX)) dut (
    .clk_i,
    .rst_ni,
    .issue_valid_i,
    .issue_wave_i,
    .issue_class_i,
    .ret_valid_i,
    .ret_wave_i,
    .ret_class_i,
    .wait_valid_i,
    .wait_wave_i,
    .wait_vscnt_i,
    .wait_imm_i,
    .issue_ack_o(dut_issue_ack_o),
    .issue_sat_o(dut_issue_sat_o),
    .vm_cnt_o(dut_vm_cnt_o),
    .lgkm_cnt_o(dut_lgkm_cnt_o),
    .exp_cnt_o(dut_exp_cnt_o),
    .vs_cnt_o(dut_vs_cnt_o),
    .stall_o(dut_stall_o),
    .release_o(dut_release_o),
    .err_o(dut_err_o)
  );

  waitcnt_ref #(.GFX(GFX)) golden (
    .clk_i,
    .rst_ni,
    .issue_valid_i,
    .issue_wave_i,
    .issue_class_i,
    .ret_valid_i,
    .ret_wave_i,
    .ret_class_i,
    .wait_valid_i,
    .wait_wave_i,
    .wait_vscnt_i,
    .wait_imm_i,
    .issue_ack_o(ref_issue_ack_o),
    .issue_sat_o(ref_issue_sat_o),
    .vm_cnt_o(ref_vm_cnt_o),
    .lgkm_cnt_o(ref_lgkm_cnt_o),
    .exp_cnt_o(ref_exp_cnt_o),
    .vs_cnt_o(ref_vs_cnt_o),
    .stall_o(ref_stall_o),
    .release_o(ref_release_o),
    .err_o(ref_err_o)
  );

  longint unsigned seed = 1, cycles = 10000, cycle;
  int unsigned     max_mismatches = 1, mismatches;
  string           knobs = "";
  chandle          stim;
  /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits
  bit [WaitcntInBits-1:0] stim_w;
  /* verilator lint_on UNUSEDSIGNAL */

  // The inputs of the next cycle (non-blocking: after the rising edge).
  task automatic drive();
    if (gpucosim_waitcnt_stim_next(stim, stim_w) < 0) $fatal(1, "waitcnt_tb: %s", gpucosim_last_error());
    /* verilator lint_off INITIALDLY */ // the first call, at time 0
    rst_ni <= stim_w[0 +: 1];
    issue_valid_i <= stim_w[32 +: 1];
    issue_wave_i <= stim_w[64 +: 4];
    issue_class_i <= stim_w[96 +: 4];
    ret_valid_i <= stim_w[128 +: 4];
    ret_wave_i <= stim_w[160 +: 16];
    ret_class_i <= stim_w[192 +: 16];
    wait_valid_i <= stim_w[224 +: 1];
    wait_wave_i <= stim_w[256 +: 4];
    wait_vscnt_i <= stim_w[288 +: 1];
    wait_imm_i <= stim_w[320 +: 16];
    /* verilator lint_on INITIALDLY */
  endtask

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("cycles=%d", cycles));
    void'($value$plusargs("knobs=%s", knobs));
    void'($value$plusargs("max_mismatches=%d", max_mismatches));
    stim = gpucosim_stim_new("waitcnt", $sformatf("gfx%0d", GFX), seed, knobs);
    if (stim == null) $fatal(1, "waitcnt_tb: %s", gpucosim_last_error());
    drive();
  end

  final gpucosim_stim_free(stim);

  function automatic void mismatch(string what);
    mismatches++;
    $error("waitcnt gfx%0d seed %0d cycle %0d: %s (in flight: %s); reproduce: +seed=%0d +cycles=%0d%s",
           GFX, seed, cycle, what, gpucosim_model_in_flight(golden.model), seed, cycle + 1,
           knobs == "" ? "" : {" +knobs=", knobs});
  endfunction

  // The next cycle's inputs after every rising edge.
  always @(posedge clk_i) begin
    cycle <= cycle + 1;
    drive();
  end

  // Every output of the cycle compared at the falling edge: the inputs
  // have changed after the rising one and the outputs have settled.
  always @(negedge clk_i) begin
    if (dut_issue_ack_o !== ref_issue_ack_o) mismatch($sformatf("issue_ack_o: DUT %h, model %h", dut_issue_ack_o, ref_issue_ack_o));
    if (dut_issue_sat_o !== ref_issue_sat_o) mismatch($sformatf("issue_sat_o: DUT %h, model %h", dut_issue_sat_o, ref_issue_sat_o));
    if (dut_vm_cnt_o !== ref_vm_cnt_o)
      for (int i = 0; i < 16; i++)
        if (dut_vm_cnt_o[i] !== ref_vm_cnt_o[i]) begin
          mismatch($sformatf("vm_cnt_o[%0d]: DUT %h, model %h", i, dut_vm_cnt_o[i], ref_vm_cnt_o[i]));
          break;
        end
    if (dut_lgkm_cnt_o !== ref_lgkm_cnt_o)
      for (int i = 0; i < 16; i++)
        if (dut_lgkm_cnt_o[i] !== ref_lgkm_cnt_o[i]) begin
          mismatch($sformatf("lgkm_cnt_o[%0d]: DUT %h, model %h", i, dut_lgkm_cnt_o[i], ref_lgkm_cnt_o[i]));
          break;
        end
    if (dut_exp_cnt_o !== ref_exp_cnt_o)
      for (int i = 0; i < 16; i++)
        if (dut_exp_cnt_o[i] !== ref_exp_cnt_o[i]) begin
          mismatch($sformatf("exp_cnt_o[%0d]: DUT %h, model %h", i, dut_exp_cnt_o[i], ref_exp_cnt_o[i]));
          break;
        end
    if (dut_vs_cnt_o !== ref_vs_cnt_o)
      for (int i = 0; i < 16; i++)
        if (dut_vs_cnt_o[i] !== ref_vs_cnt_o[i]) begin
          mismatch($sformatf("vs_cnt_o[%0d]: DUT %h, model %h", i, dut_vs_cnt_o[i], ref_vs_cnt_o[i]));
          break;
        end
    if (dut_stall_o !== ref_stall_o) mismatch($sformatf("stall_o: DUT %h, model %h", dut_stall_o, ref_stall_o));
    if (dut_release_o !== ref_release_o) mismatch($sformatf("release_o: DUT %h, model %h", dut_release_o, ref_release_o));
    if (dut_err_o !== ref_err_o)
      for (int i = 0; i < 16; i++)
        if (dut_err_o[i] !== ref_err_o[i]) begin
          mismatch($sformatf("err_o[%0d]: DUT %h, model %h", i, dut_err_o[i], ref_err_o[i]));
          break;
        end
    if (max_mismatches != 0 && mismatches >= max_mismatches)
      $fatal(1, "waitcnt_tb: %0d mismatch(es) by cycle %0d", mismatches, cycle);
    if (cycle + 1 >= cycles) begin
      $display("waitcnt_tb: gfx%0d seed %0d: %0d cycles, %0d transactions, %0d mismatches; %s",
               GFX, seed, cycle + 1, gpucosim_stim_txns(stim), mismatches,
               gpucosim_model_cov_summary(golden.model));
      if (mismatches != 0) $fatal(1, "waitcnt_tb: %0d mismatch(es)", mismatches);
      $finish;
    end
  end

endmodule
