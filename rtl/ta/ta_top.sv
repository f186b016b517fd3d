// Texture-cache address unit for MUBUF / MTBUF buffer instructions.
// Semantics: SPEC §1. Cycle contract and RTL structure: docs/ta.md.
//
// IDLE: req_ready_o = 1; an offered instruction is decoded and all 64 lanes are
// addressed from the inputs on the edge that accepts it, into the lane_*
// registers. ACTIVE: the first cycle shows the per-lane results (lane_valid_o);
// every ACTIVE cycle with pending pieces offers one line request. Every output
// comes from registered state.

module ta_top #(
  parameter int unsigned GFX = 9
) (
`include "ta_ports.svh"
);
  import ta_pkg::*;

  typedef enum logic [0:0] {
    StIdle   = 1'b0,
    StActive = 1'b1
  } state_e;

  state_e state_q, state_d;
  logic   capture;

  // --- Decode, per-lane datapath and its result registers ---------------------
  inst_t                     inst;
  logic [NumSlots-1:0]       cross_q;
  logic                      lane_valid_q;
  logic [1:0]                op_q;
  logic [1:0]                slot_lg_q;

  assign capture = (state_q == StIdle) && req_valid_i;

  ta_decode #(
    .GFX (GFX)
  ) u_decode (
    .vsharp_i      (vsharp_i),
    .kind_i        (kind_i),
    .op_i          (op_i),
    .size_i        (size_i),
    .fmt_i         (fmt_i),
    .offen_i       (offen_i),
    .idxen_i       (idxen_i),
    .inst_offset_i (inst_offset_i),
    .soffset_i     (soffset_i),
    .align_mode_i  (align_mode_i),
    .wave64_i      (wave64_i),
    .inst_o        (inst)
  );

  // The slot results are registered in ta_addr on the accepting edge; its
  // registers drive the lane_* outputs.
  ta_addr #(
    .GFX (GFX)
  ) u_addr (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .en_i      (capture),
    .inst_i    (inst),
    .exec_i    (exec_i),
    .vindex_i  (vindex_i),
    .voffset_i (voffset_i),
    .addr_o    (lane_addr_o),
    .inrange_o (lane_inrange_o),
    .access_o  (lane_access_o),
    .cross_o   (cross_q),
    .memviol_o (lane_memviol_o)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      op_q      <= '0;
      slot_lg_q <= '0;
    end else if (capture) begin
      op_q      <= op_i;
      slot_lg_q <= inst.slot_lg;
    end
  end

  // --- Coalescer ------------------------------------------------------------------
  logic        busy, line_last;
  logic [47:0] line_addr;
  logic [MaskW-1:0] line_mask;

  ta_coalesce #(
    .GFX (GFX)
  ) u_coalesce (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .load_i      (capture),
    .access_i    (lane_access_o),
    .cross_i     (cross_q),
    .addr_i      (lane_addr_o),
    .slot_lg_i   (slot_lg_q),
    .ready_i     (line_ready_i),
    .busy_o      (busy),
    .line_addr_o (line_addr),
    .line_mask_o (line_mask),
    .line_last_o (line_last)
  );

  // --- Control --------------------------------------------------------------------
  always_comb begin
    state_d = state_q;
    unique case (state_q)
      StIdle:   if (req_valid_i) state_d = StActive;
      StActive: if (!busy || (line_ready_i && line_last)) state_d = StIdle;
      default:  state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= StIdle;
      lane_valid_q <= 1'b0;
    end else begin
      state_q      <= state_d;
      lane_valid_q <= capture;
    end
  end

  // --- Outputs --------------------------------------------------------------------
  // Pieces are pending only in ACTIVE, so the line outputs are zero elsewhere.
  assign req_ready_o    = (state_q == StIdle);
  assign lane_valid_o   = lane_valid_q;
  assign line_valid_o   = busy;
  assign line_addr_o    = line_addr;
  assign line_mask_o    = line_mask;
  assign line_op_o      = busy ? op_q : 2'd0;
  assign line_last_o    = line_last;

endmodule
