// Generated from the port tables by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.
//
// Example testbench: ta_top (the DUT) and ta_ref (gpucosim's model) side
// by side, driven by gpucosim's stimulus for the seed (the inputs
// `gpucosim run --unit ta --seed N` gives the RTL), every output
// compared every cycle before the rising edge; a mismatch is an $error
// naming the cycle, the port (the first differing element of an array),
// both values and what is in flight.
//
// Plusargs: +seed=N (1), +cycles=N (10000), +knobs=name=value,... (none),
// +max_mismatches=N (1: stop at the first).
module ta_tb #(
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
  logic [127:0] vsharp_i;
  logic [1:0] kind_i;
  logic [1:0] op_i;
  logic [4:0] size_i;
  logic [6:0] fmt_i;
  logic offen_i;
  logic idxen_i;
  logic [11:0] inst_offset_i;
  logic [31:0] soffset_i;
  logic [1:0] align_mode_i;
  logic wave64_i;
  logic [63:0] exec_i;
  logic [63:0][31:0] vindex_i;
  logic [63:0][31:0] voffset_i;
  logic line_ready_i;

  // Outputs of each side.
  logic dut_req_ready_o, ref_req_ready_o;
  logic dut_lane_valid_o, ref_lane_valid_o;
  logic [255:0][47:0] dut_lane_addr_o, ref_lane_addr_o;
  logic [255:0] dut_lane_inrange_o, ref_lane_inrange_o;
  logic [255:0] dut_lane_access_o, ref_lane_access_o;
  logic [63:0] dut_lane_memviol_o, ref_lane_memviol_o;
  logic dut_line_valid_o, ref_line_valid_o;
  logic [47:0] dut_line_addr_o, ref_line_addr_o;
  logic [127:0] dut_line_mask_o, ref_line_mask_o;
  logic [1:0] dut_line_op_o, ref_line_op_o;
  logic dut_line_last_o, ref_line_last_o;

  ta_top #(.GFX(GFX)) dut (
    .clk_i,
    .rst_ni,
    .req_valid_i,
    .vsharp_i,
    .kind_i,
    .op_i,
    .size_i,
    .fmt_i,
    .offen_i,
    .idxen_i,
    .inst_offset_i,
    .soffset_i,
    .align_mode_i,
    .wave64_i,
    .exec_i,
    .vindex_i,
    .voffset_i,
    .line_ready_i,
    .req_ready_o(dut_req_ready_o),
    .lane_valid_o(dut_lane_valid_o),
    .lane_addr_o(dut_lane_addr_o),
    .lane_inrange_o(dut_lane_inrange_o),
    .lane_access_o(dut_lane_access_o),
    .lane_memviol_o(dut_lane_memviol_o),
    .line_valid_o(dut_line_valid_o),
    .line_addr_o(dut_line_addr_o),
    .line_mask_o(dut_line_mask_o),
    .line_op_o(dut_line_op_o),
    .line_last_o(dut_line_last_o)
  );

  ta_ref #(.GFX(GFX)) golden (
    .clk_i,
    .rst_ni,
    .req_valid_i,
    .vsharp_i,
    .kind_i,
    .op_i,
    .size_i,
    .fmt_i,
    .offen_i,
    .idxen_i,
    .inst_offset_i,
    .soffset_i,
    .align_mode_i,
    .wave64_i,
    .exec_i,
    .vindex_i,
    .voffset_i,
    .line_ready_i,
    .req_ready_o(ref_req_ready_o),
    .lane_valid_o(ref_lane_valid_o),
    .lane_addr_o(ref_lane_addr_o),
    .lane_inrange_o(ref_lane_inrange_o),
    .lane_access_o(ref_lane_access_o),
    .lane_memviol_o(ref_lane_memviol_o),
    .line_valid_o(ref_line_valid_o),
    .line_addr_o(ref_line_addr_o),
    .line_mask_o(ref_line_mask_o),
    .line_op_o(ref_line_op_o),
    .line_last_o(ref_line_last_o)
  );

  longint unsigned seed = 1, cycles = 10000, cycle;
  int unsigned     max_mismatches = 1, mismatches;
  string           knobs = "";
  chandle          stim;
  /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits
  bit [TaInBits-1:0] stim_w;
  /* verilator lint_on UNUSEDSIGNAL */

  // The inputs of the next cycle (non-blocking: after the rising edge).
  task automatic drive();
    if (gpucosim_ta_stim_next(stim, stim_w) < 0) $fatal(1, "ta_tb: %s", gpucosim_last_error());
    /* verilator lint_off INITIALDLY */ // the first call, at time 0
    rst_ni <= stim_w[0 +: 1];
    req_valid_i <= stim_w[32 +: 1];
    vsharp_i <= stim_w[64 +: 128];
    kind_i <= stim_w[192 +: 2];
    op_i <= stim_w[224 +: 2];
    size_i <= stim_w[256 +: 5];
    fmt_i <= stim_w[288 +: 7];
    offen_i <= stim_w[320 +: 1];
    idxen_i <= stim_w[352 +: 1];
    inst_offset_i <= stim_w[384 +: 12];
    soffset_i <= stim_w[416 +: 32];
    align_mode_i <= stim_w[448 +: 2];
    wave64_i <= stim_w[480 +: 1];
    exec_i <= stim_w[512 +: 64];
    vindex_i <= stim_w[576 +: 2048];
    voffset_i <= stim_w[2624 +: 2048];
    line_ready_i <= stim_w[4672 +: 1];
    /* verilator lint_on INITIALDLY */
  endtask

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("cycles=%d", cycles));
    void'($value$plusargs("knobs=%s", knobs));
    void'($value$plusargs("max_mismatches=%d", max_mismatches));
    stim = gpucosim_stim_new("ta", $sformatf("gfx%0d", GFX), seed, knobs);
    if (stim == null) $fatal(1, "ta_tb: %s", gpucosim_last_error());
    drive();
  end

  final gpucosim_stim_free(stim);

  function automatic void mismatch(string what);
    mismatches++;
    $error("ta gfx%0d seed %0d cycle %0d: %s (in flight: %s); reproduce: +seed=%0d +cycles=%0d%s",
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
    if (dut_lane_valid_o !== ref_lane_valid_o) mismatch($sformatf("lane_valid_o: DUT %h, model %h", dut_lane_valid_o, ref_lane_valid_o));
    if (dut_lane_addr_o !== ref_lane_addr_o)
      for (int i = 0; i < 256; i++)
        if (dut_lane_addr_o[i] !== ref_lane_addr_o[i]) begin
          mismatch($sformatf("lane_addr_o[%0d]: DUT %h, model %h", i, dut_lane_addr_o[i], ref_lane_addr_o[i]));
          break;
        end
    if (dut_lane_inrange_o !== ref_lane_inrange_o) mismatch($sformatf("lane_inrange_o: DUT %h, model %h", dut_lane_inrange_o, ref_lane_inrange_o));
    if (dut_lane_access_o !== ref_lane_access_o) mismatch($sformatf("lane_access_o: DUT %h, model %h", dut_lane_access_o, ref_lane_access_o));
    if (dut_lane_memviol_o !== ref_lane_memviol_o) mismatch($sformatf("lane_memviol_o: DUT %h, model %h", dut_lane_memviol_o, ref_lane_memviol_o));
    if (dut_line_valid_o !== ref_line_valid_o) mismatch($sformatf("line_valid_o: DUT %h, model %h", dut_line_valid_o, ref_line_valid_o));
    if (dut_line_addr_o !== ref_line_addr_o) mismatch($sformatf("line_addr_o: DUT %h, model %h", dut_line_addr_o, ref_line_addr_o));
    if (dut_line_mask_o !== ref_line_mask_o) mismatch($sformatf("line_mask_o: DUT %h, model %h", dut_line_mask_o, ref_line_mask_o));
    if (dut_line_op_o !== ref_line_op_o) mismatch($sformatf("line_op_o: DUT %h, model %h", dut_line_op_o, ref_line_op_o));
    if (dut_line_last_o !== ref_line_last_o) mismatch($sformatf("line_last_o: DUT %h, model %h", dut_line_last_o, ref_line_last_o));
    if (max_mismatches != 0 && mismatches >= max_mismatches)
      $fatal(1, "ta_tb: %0d mismatch(es) by cycle %0d", mismatches, cycle);
    if (cycle + 1 >= cycles) begin
      $display("ta_tb: gfx%0d seed %0d: %0d cycles, %0d transactions, %0d mismatches; %s",
               GFX, seed, cycle + 1, gpucosim_stim_txns(stim), mismatches,
               gpucosim_model_cov_summary(golden.model));
      if (mismatches != 0) $fatal(1, "ta_tb: %0d mismatch(es)", mismatches);
      $finish;
    end
  end

endmodule
