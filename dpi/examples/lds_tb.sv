// Generated from the port tables by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.
//
// Example testbench: lds_top (the DUT) and lds_ref (gpucosim's model) side
// by side, driven by gpucosim's stimulus for the seed (the inputs
// `gpucosim run --unit lds --seed N` gives the RTL), every output
// compared every cycle before the rising edge; a mismatch is an $error
// naming the cycle, the port (the first differing element of an array),
// both values and what is in flight.
//
// Plusargs: +seed=N (1), +cycles=N (10000), +knobs=name=value,... (none),
// +max_mismatches=N (1: stop at the first).
module lds_tb #(
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
  logic req_valid_i;
  logic [5:0] op_i;
  logic wave64_i;
  logic wgp_i;
  logic unaligned_i;
  logic [63:0] exec_i;
  logic [7:0] offset0_i;
  logic [7:0] offset1_i;
  logic [31:0] m0_i;
  logic [8:0] lds_base_i;
  logic [17:0] lds_size_i;
  logic [63:0][31:0] addr_i;
  logic [63:0][63:0] data0_i;
  logic [63:0][63:0] data1_i;

  // Outputs of each side.
  logic dut_req_ready_o, ref_req_ready_o;
  logic dut_busy_o, ref_busy_o;
  logic [63:0] dut_grant_lanes_o, ref_grant_lanes_o;
  logic [63:0] dut_grant_banks_o, ref_grant_banks_o;
  logic dut_done_o, ref_done_o;
  logic [63:0][127:0] dut_rdata_o, ref_rdata_o;
  logic [63:0][7:0] dut_oor_o, ref_oor_o;
  logic [63:0] dut_memviol_o, ref_memviol_o;
  logic [15:0] dut_cycles_o, ref_cycles_o;

  lds_top #(.GFX(GFX)) dut (
    .clk_i,
    .rst_ni,
    .req_valid_i,
    .op_i,
    .wave64_i,
    .wgp_i,
    .unaligned_i,
    .exec_i,
    .offset0_i,
    .offset1_i,
    .m0_i,
    .lds_base_i,
    .lds_size_i,
    .addr_i,
    .data0_i,
    .data1_i,
    .req_ready_o(dut_req_ready_o),
    .busy_o(dut_busy_o),
    .grant_lanes_o(dut_grant_lanes_o),
    .grant_banks_o(dut_grant_banks_o),
    .done_o(dut_done_o),
    .rdata_o(dut_rdata_o),
    .oor_o(dut_oor_o),
    .memviol_o(dut_memviol_o),
    .cycles_o(dut_cycles_o)
  );

  lds_ref #(.GFX(GFX)) golden (
    .clk_i,
    .rst_ni,
    .req_valid_i,
    .op_i,
    .wave64_i,
    .wgp_i,
    .unaligned_i,
    .exec_i,
    .offset0_i,
    .offset1_i,
    .m0_i,
    .lds_base_i,
    .lds_size_i,
    .addr_i,
    .data0_i,
    .data1_i,
    .req_ready_o(ref_req_ready_o),
    .busy_o(ref_busy_o),
    .grant_lanes_o(ref_grant_lanes_o),
    .grant_banks_o(ref_grant_banks_o),
    .done_o(ref_done_o),
    .rdata_o(ref_rdata_o),
    .oor_o(ref_oor_o),
    .memviol_o(ref_memviol_o),
    .cycles_o(ref_cycles_o)
  );

  longint unsigned seed = 1, cycles = 10000, cycle;
  int unsigned     max_mismatches = 1, mismatches;
  string           knobs = "";
  chandle          stim;
  /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits
  bit [LdsInBits-1:0] stim_w;
  /* verilator lint_on UNUSEDSIGNAL */

  // The inputs of the next cycle (non-blocking: after the rising edge).
  task automatic drive();
    if (gpucosim_lds_stim_next(stim, stim_w) < 0) $fatal(1, "lds_tb: %s", gpucosim_last_error());
    /* verilator lint_off INITIALDLY */ // the first call, at time 0
    rst_ni <= stim_w[0 +: 1];
    req_valid_i <= stim_w[32 +: 1];
    op_i <= stim_w[64 +: 6];
    wave64_i <= stim_w[96 +: 1];
    wgp_i <= stim_w[128 +: 1];
    unaligned_i <= stim_w[160 +: 1];
    exec_i <= stim_w[192 +: 64];
    offset0_i <= stim_w[256 +: 8];
    offset1_i <= stim_w[288 +: 8];
    m0_i <= stim_w[320 +: 32];
    lds_base_i <= stim_w[352 +: 9];
    lds_size_i <= stim_w[384 +: 18];
    addr_i <= stim_w[416 +: 2048];
    data0_i <= stim_w[2464 +: 4096];
    data1_i <= stim_w[6560 +: 4096];
    /* verilator lint_on INITIALDLY */
  endtask

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("cycles=%d", cycles));
    void'($value$plusargs("knobs=%s", knobs));
    void'($value$plusargs("max_mismatches=%d", max_mismatches));
    stim = gpucosim_stim_new("lds", $sformatf("gfx%0d", GFX), seed, knobs);
    if (stim == null) $fatal(1, "lds_tb: %s", gpucosim_last_error());
    drive();
  end

  final gpucosim_stim_free(stim);

  function automatic void mismatch(string what);
    mismatches++;
    $error("lds gfx%0d seed %0d cycle %0d: %s (in flight: %s); reproduce: +seed=%0d +cycles=%0d%s",
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
    if (dut_req_ready_o !== ref_req_ready_o) mismatch($sformatf("req_ready_o: DUT %h, model %h", dut_req_ready_o, ref_req_ready_o));
    if (dut_busy_o !== ref_busy_o) mismatch($sformatf("busy_o: DUT %h, model %h", dut_busy_o, ref_busy_o));
    if (dut_grant_lanes_o !== ref_grant_lanes_o) mismatch($sformatf("grant_lanes_o: DUT %h, model %h", dut_grant_lanes_o, ref_grant_lanes_o));
    if (dut_grant_banks_o !== ref_grant_banks_o) mismatch($sformatf("grant_banks_o: DUT %h, model %h", dut_grant_banks_o, ref_grant_banks_o));
    if (dut_done_o !== ref_done_o) mismatch($sformatf("done_o: DUT %h, model %h", dut_done_o, ref_done_o));
    if (dut_rdata_o !== ref_rdata_o)
      for (int i = 0; i < 64; i++)
        if (dut_rdata_o[i] !== ref_rdata_o[i]) begin
          mismatch($sformatf("rdata_o[%0d]: DUT %h, model %h", i, dut_rdata_o[i], ref_rdata_o[i]));
          break;
        end
    if (dut_oor_o !== ref_oor_o)
      for (int i = 0; i < 64; i++)
        if (dut_oor_o[i] !== ref_oor_o[i]) begin
          mismatch($sformatf("oor_o[%0d]: DUT %h, model %h", i, dut_oor_o[i], ref_oor_o[i]));
          break;
        end
    if (dut_memviol_o !== ref_memviol_o) mismatch($sformatf("memviol_o: DUT %h, model %h", dut_memviol_o, ref_memviol_o));
    if (dut_cycles_o !== ref_cycles_o) mismatch($sformatf("cycles_o: DUT %h, model %h", dut_cycles_o, ref_cycles_o));
    if (max_mismatches != 0 && mismatches >= max_mismatches)
      $fatal(1, "lds_tb: %0d mismatch(es) by cycle %0d", mismatches, cycle);
    if (cycle + 1 >= cycles) begin
      $display("lds_tb: gfx%0d seed %0d: %0d cycles, %0d transactions, %0d mismatches; %s",
               GFX, seed, cycle + 1, gpucosim_stim_txns(stim), mismatches,
               gpucosim_model_cov_summary(golden.model));
      if (mismatches != 0) $fatal(1, "lds_tb: %0d mismatch(es)", mismatches);
      $finish;
    end
  end

endmodule
