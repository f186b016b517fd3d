// Generated from the port tables by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.
//
// gpucosim's reference model of waitcnt_top as a module with exactly its ports:
// its outputs are what the model predicts. The outputs of the cycle are
// evaluated whenever an input changes and after each rising edge of clk_i;
// the edge advances the model with the inputs it saw. rst_ni is
// asynchronous, as in waitcnt_top. Needs package gpucosim_dpi and
// libgpucosim_dpi (docs/dpi.md).
module waitcnt_ref #(
  parameter int unsigned GFX = 9
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic issue_valid_i,
  input  logic [3:0] issue_wave_i,
  input  logic [3:0] issue_class_i,
  input  logic [3:0] ret_valid_i,
  input  logic [3:0][3:0] ret_wave_i,
  input  logic [3:0][3:0] ret_class_i,
  input  logic wait_valid_i,
  input  logic [3:0] wait_wave_i,
  input  logic wait_vscnt_i,
  input  logic [15:0] wait_imm_i,
  output logic issue_ack_o,
  output logic [3:0] issue_sat_o,
  output logic [15:0][5:0] vm_cnt_o,
  output logic [15:0][5:0] lgkm_cnt_o,
  output logic [15:0][2:0] exp_cnt_o,
  output logic [15:0][5:0] vs_cnt_o,
  output logic [15:0] stall_o,
  output logic [15:0] release_o,
  output logic [15:0][3:0] err_o
);

  import gpucosim_dpi::*;

  chandle model;
  // Read at the edge and by the evaluation at any change.
  /* verilator lint_off SYNCASYNCNET */
  bit     live;   // the model exists
  bit     edges;  // toggles after every rising edge
  bit [WaitcntInBits-1:0]  in_w;
  /* verilator lint_on SYNCASYNCNET */
  /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits
  bit [WaitcntOutBits-1:0] out_w;
  /* verilator lint_on UNUSEDSIGNAL */

  initial begin
    model = gpucosim_model_new("waitcnt", $sformatf("gfx%0d", GFX));
    if (model == null) $fatal(1, "waitcnt_ref: %s", gpucosim_last_error());
    // Once every process has started: the first evaluation.
    /* verilator lint_off INITIALDLY */
    live <= 1'b1;
    /* verilator lint_on INITIALDLY */
  end

  final gpucosim_model_free(model);

  always_comb begin
    in_w[0 +: 1] = rst_ni;
    in_w[1 +: 31] = '0;
    in_w[32 +: 1] = issue_valid_i;
    in_w[33 +: 31] = '0;
    in_w[64 +: 4] = issue_wave_i;
    in_w[68 +: 28] = '0;
    in_w[96 +: 4] = issue_class_i;
    in_w[100 +: 28] = '0;
    in_w[128 +: 4] = ret_valid_i;
    in_w[132 +: 28] = '0;
    in_w[160 +: 16] = ret_wave_i;
    in_w[176 +: 16] = '0;
    in_w[192 +: 16] = ret_class_i;
    in_w[208 +: 16] = '0;
    in_w[224 +: 1] = wait_valid_i;
    in_w[225 +: 31] = '0;
    in_w[256 +: 4] = wait_wave_i;
    in_w[260 +: 28] = '0;
    in_w[288 +: 1] = wait_vscnt_i;
    in_w[289 +: 31] = '0;
    in_w[320 +: 16] = wait_imm_i;
    in_w[336 +: 16] = '0;
  end

  // The outputs of the cycle for the current inputs and state.
  always @(in_w, edges, live) begin
    if (live && gpucosim_waitcnt_eval(model, in_w, out_w) != 0)
      $fatal(1, "waitcnt_ref: %s", gpucosim_last_error());
  end

  // The rising edge, with the inputs just before it.
  always @(posedge clk_i) begin
    if (live && gpucosim_waitcnt_tick(model, in_w) != 0)
      $fatal(1, "waitcnt_ref: %s", gpucosim_last_error());
    edges <= ~edges;
  end

  assign issue_ack_o = out_w[0 +: 1];
  assign issue_sat_o = out_w[32 +: 4];
  assign vm_cnt_o = out_w[64 +: 96];
  assign lgkm_cnt_o = out_w[160 +: 96];
  assign exp_cnt_o = out_w[256 +: 48];
  assign vs_cnt_o = out_w[320 +: 96];
  assign stall_o = out_w[416 +: 16];
  assign release_o = out_w[448 +: 16];
  assign err_o = out_w[480 +: 64];

endmodule
