// Generated from the port tables by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.
//
// gpucosim's reference model of lds_top as a module with exactly its ports:
// its outputs are what the model predicts. The outputs of the cycle are
// evaluated whenever an input changes and after each rising edge of clk_i;
// the edge advances the model with the inputs it saw. rst_ni is
// asynchronous, as in lds_top. Needs package gpucosim_dpi and
// libgpucosim_dpi (docs/dpi.md).
module lds_ref #(
  parameter int unsigned GFX = 9
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic req_valid_i,
  input  logic [5:0] op_i,
  input  logic wave64_i,
  input  logic wgp_i,
  input  logic unaligned_i,
  input  logic [63:0] exec_i,
  input  logic [7:0] offset0_i,
  input  logic [7:0] offset1_i,
  input  logic [31:0] m0_i,
  input  logic [8:0] lds_base_i,
  input  logic [17:0] lds_size_i,
  input  logic [63:0][31:0] addr_i,
  input  logic [63:0][63:0] data0_i,
  input  logic [63:0][63:0] data1_i,
  output logic req_ready_o,
  output logic busy_o,
  output logic [63:0] grant_lanes_o,
  output logic [63:0] grant_banks_o,
  output logic done_o,
  output logic [63:0][127:0] rdata_o,
  output logic [63:0][7:0] oor_o,
  output logic [63:0] memviol_o,
  output logic [15:0] cycles_o
);

  import gpucosim_dpi::*;

  chandle model;
  // Read at the edge and by the evaluation at any change.
  /* verilator lint_off SYNCASYNCNET */
  bit     live;   // the model exists
  bit     edges;  // toggles after every rising edge
  bit [LdsInBits-1:0]  in_w;
  /* verilator lint_on SYNCASYNCNET */
  /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits
  bit [LdsOutBits-1:0] out_w;
  /* verilator lint_on UNUSEDSIGNAL */

  initial begin
    model = gpucosim_model_new("lds", $sformatf("gfx%0d", GFX));
    if (model == null) $fatal(1, "lds_ref: %s", gpucosim_last_error());
    // Once every process has started: the first evaluation.
    /* verilator lint_off INITIALDLY */
    live <= 1'b1;
    /* verilator lint_on INITIALDLY */
  end

  final gpucosim_model_free(model);

  always_comb begin
    in_w[0 +: 1] = rst_ni;
    in_w[1 +: 31] = '0;
    in_w[32 +: 1] = req_valid_i;
    in_w[33 +: 31] = '0;
    in_w[64 +: 6] = op_i;
    in_w[70 +: 26] = '0;
    in_w[96 +: 1] = wave64_i;
    in_w[97 +: 31] = '0;
    in_w[128 +: 1] = wgp_i;
    in_w[129 +: 31] = '0;
    in_w[160 +: 1] = unaligned_i;
    in_w[161 +: 31] = '0;
    in_w[192 +: 64] = exec_i;
    in_w[256 +: 8] = offset0_i;
    in_w[264 +: 24] = '0;
    in_w[288 +: 8] = offset1_i;
    in_w[296 +: 24] = '0;
    in_w[320 +: 32] = m0_i;
    in_w[352 +: 9] = lds_base_i;
    in_w[361 +: 23] = '0;
    in_w[384 +: 18] = lds_size_i;
    in_w[402 +: 14] = '0;
    in_w[416 +: 2048] = addr_i;
    in_w[2464 +: 4096] = data0_i;
    in_w[6560 +: 4096] = data1_i;
  end

  // The outputs of the cycle for the current inputs and state.
  always @(in_w, edges, live) begin
    if (live && gpucosim_lds_eval(model, in_w, out_w) != 0)
      $fatal(1, "lds_ref: %s", gpucosim_last_error());
  end

  // The rising edge, with the inputs just before it.
  always @(posedge clk_i) begin
    if (live && gpucosim_lds_tick(model, in_w) != 0)
      $fatal(1, "lds_ref: %s", gpucosim_last_error());
    edges <= ~edges;
  end

  assign req_ready_o = out_w[0 +: 1];
  assign busy_o = out_w[32 +: 1];
  assign grant_lanes_o = out_w[64 +: 64];
  assign grant_banks_o = out_w[128 +: 64];
  assign done_o = out_w[192 +: 1];
  assign rdata_o = out_w[224 +: 8192];
  assign oor_o = out_w[8416 +: 512];
  assign memviol_o = out_w[8928 +: 64];
  assign cycles_o = out_w[8992 +: 16];

endmodule
