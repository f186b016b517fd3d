// Generated from the port tables by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.
//
// gpucosim's reference model of ta_top as a module with exactly its ports:
// its outputs are what the model predicts. The outputs of the cycle are
// evaluated whenever an input changes and after each rising edge of clk_i;
// the edge advances the model with the inputs it saw. rst_ni is
// asynchronous, as in ta_top. Needs package gpucosim_dpi and
// libgpucosim_dpi (docs/dpi.md).
module ta_ref #(
  parameter int unsigned GFX = 9
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic req_valid_i,
  input  logic [127:0] vsharp_i,
  input  logic [1:0] kind_i,
  input  logic [1:0] op_i,
  input  logic [4:0] size_i,
  input  logic [6:0] fmt_i,
  input  logic offen_i,
  input  logic idxen_i,
  input  logic [11:0] inst_offset_i,
  input  logic [31:0] soffset_i,
  input  logic [1:0] align_mode_i,
  input  logic wave64_i,
  input  logic [63:0] exec_i,
  input  logic [63:0][31:0] vindex_i,
  input  logic [63:0][31:0] voffset_i,
  input  logic line_ready_i,
  output logic req_ready_o,
  output logic lane_valid_o,
  output logic [255:0][47:0] lane_addr_o,
  output logic [255:0] lane_inrange_o,
  output logic [255:0] lane_access_o,
  output logic [63:0] lane_memviol_o,
  output logic line_valid_o,
  output logic [47:0] line_addr_o,
  output logic [127:0] line_mask_o,
  output logic [1:0] line_op_o,
  output logic line_last_o
);

  import gpucosim_dpi::*;

  chandle model;
  // Read at the edge and by the evaluation at any change.
  /* verilator lint_off SYNCASYNCNET */
  bit     live;   // the model exists
  bit     edges;  // toggles after every rising edge
  bit [TaInBits-1:0]  in_w;
  /* verilator lint_on SYNCASYNCNET */
  /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits
  bit [TaOutBits-1:0] out_w;
  /* verilator lint_on UNUSEDSIGNAL */

  initial begin
    model = gpucosim_model_new("ta", $sformatf("gfx%0d", GFX));
    if (model == null) $fatal(1, "ta_ref: %s", gpucosim_last_error());
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
    in_w[64 +: 128] = vsharp_i;
    in_w[192 +: 2] = kind_i;
    in_w[194 +: 30] = '0;
    in_w[224 +: 2] = op_i;
    in_w[226 +: 30] = '0;
    in_w[256 +: 5] = size_i;
    in_w[261 +: 27] = '0;
    in_w[288 +: 7] = fmt_i;
    in_w[295 +: 25] = '0;
    in_w[320 +: 1] = offen_i;
    in_w[321 +: 31] = '0;
    in_w[352 +: 1] = idxen_i;
    in_w[353 +: 31] = '0;
    in_w[384 +: 12] = inst_offset_i;
    in_w[396 +: 20] = '0;
    in_w[416 +: 32] = soffset_i;
    in_w[448 +: 2] = align_mode_i;
    in_w[450 +: 30] = '0;
    in_w[480 +: 1] = wave64_i;
    in_w[481 +: 31] = '0;
    in_w[512 +: 64] = exec_i;
    in_w[576 +: 2048] = vindex_i;
    in_w[2624 +: 2048] = voffset_i;
    in_w[4672 +: 1] = line_ready_i;
    in_w[4673 +: 31] = '0;
  end

  // The outputs of the cycle for the current inputs and state.
  always @(in_w, edges, live) begin
    if (live && gpucosim_ta_eval(model, in_w, out_w) != 0)
      $fatal(1, "ta_ref: %s", gpucosim_last_error());
  end

  // The rising edge, with the inputs just before it.
  always @(posedge clk_i) begin
    if (live && gpucosim_ta_tick(model, in_w) != 0)
      $fatal(1, "ta_ref: %s", gpucosim_last_error());
    edges <= ~edges;
  end

  assign req_ready_o = out_w[0 +: 1];
  assign lane_valid_o = out_w[32 +: 1];
  assign lane_addr_o = out_w[64 +: 12288];
  assign lane_inrange_o = out_w[12352 +: 256];
  assign lane_access_o = out_w[12608 +: 256];
  assign lane_memviol_o = out_w[12864 +: 64];
  assign line_valid_o = out_w[12928 +: 1];
  assign line_addr_o = out_w[12960 +: 48];
  assign line_mask_o = out_w[13024 +: 128];
  assign line_op_o = out_w[13152 +: 2];
  assign line_last_o = out_w[13184 +: 1];

endmodule
