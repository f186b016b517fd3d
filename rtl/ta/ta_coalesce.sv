// Texture-cache address unit: line coalescer (docs/ta.md "Line requests").
//
// Holds the pending pieces of the current instruction: for every slot s
// (element 4*lane + dword) part 0 lies in line addr[s] / L and part 1 (only when
// the slot's bytes cross a line boundary) in the next line. Each cycle the
// lowest pending piece (slot, part) selects line X; the request covers every
// pending piece in X. Outputs are functions of the registered pending state and
// the registered slot addresses only.

module ta_coalesce #(
  parameter int unsigned GFX = 9
) (
  input  logic                                   clk_i,
  input  logic                                   rst_ni,
  // Load a new instruction's pieces (replaces the pending state).
  input  logic                                   load_i,
  input  logic [ta_pkg::NumSlots-1:0]            load_part0_i,
  input  logic [ta_pkg::NumSlots-1:0]            load_part1_i,
  // Registered state of the current instruction.
  input  logic [ta_pkg::NumSlots-1:0][47:0]      addr_i,      // slot byte addresses
  input  logic [1:0]                             slot_lg_i,   // log2 slot size
  // Request handshake.
  input  logic                                   ready_i,
  output logic                                   busy_o,      // pieces pending
  output logic [47:0]                            line_addr_o,
  output logic [ta_pkg::MaskW-1:0]               line_mask_o,
  output logic                                   line_last_o
);
  import ta_pkg::*;

  localparam profile_t    Prof   = profile_of(GFX);
  localparam int unsigned LineLg = int'(Prof.line_lg);
  localparam int unsigned LineB  = 1 << LineLg;
  localparam int unsigned LineW  = AddrW - LineLg;  // width of a line number

  logic [NumSlots-1:0] part0_q, part1_q;   // pending pieces
  logic [NumSlots-1:0] part0_d, part1_d;
  logic [NumSlots-1:0] pend, first_oh;     // any part pending; lowest one-hot
  logic [SlotW-1:0]    sel;                // slot holding the lowest pending piece
  logic                sel_part;           // its lowest pending part
  logic [LineW-1:0]    line_x, line_xm1;   // selected line X, and X - 1
  logic [NumSlots-1:0] hit0, hit1;         // pending pieces in line X
  logic [LineB+3:0]    span;               // a slot's bytes from the start of its line
  logic [LineB-1:0]    mask;

  localparam logic [SlotW-1:0][NumSlots-1:0] IdxPat = index_bit_patterns();

  // --- Lowest pending piece: one-hot of the lowest pending slot, encoded ------
  assign pend     = part0_q | part1_q;
  assign first_oh = pend & (~pend + NumSlots'(1));
  always_comb begin
    sel = '0;
    for (int b = 0; b < SlotW; b++) begin
      sel[b] = |(first_oh & IdxPat[b]);
    end
  end
  assign sel_part = !part0_q[sel];
  assign line_x   = addr_i[sel][AddrW-1:LineLg] + LineW'(sel_part);
  assign line_xm1 = line_x - LineW'(1);

  // --- Pieces in line X and their bytes ---------------------------------------
  always_comb begin
    hit0 = '0;
    hit1 = '0;
    mask = '0;
    span = '0;
    if (busy_o) begin  // nothing switches while no piece is pending
      for (int s = 0; s < NumSlots; s++) begin
        if (pend[s]) begin
          hit0[s] = part0_q[s] && (addr_i[s][AddrW-1:LineLg] == line_x);
          hit1[s] = part1_q[s] && (addr_i[s][AddrW-1:LineLg] == line_xm1);
          if (hit0[s] || hit1[s]) begin
            span = (LineB + 4)'(slot_ones(slot_lg_i)) << addr_i[s][LineLg-1:0];
            if (hit0[s]) mask = mask | span[LineB-1:0];
            if (hit1[s]) mask = mask | {{(LineB - 4){1'b0}}, span[LineB+3:LineB]};
          end
        end
      end
    end
  end

  assign busy_o      = |pend;
  assign line_addr_o = busy_o ? {line_x, {LineLg{1'b0}}} : '0;
  assign line_mask_o = MaskW'(mask);
  assign line_last_o = busy_o && !(|((part0_q & ~hit0) | (part1_q & ~hit1)));

  // --- Pending state ------------------------------------------------------------
  always_comb begin
    part0_d = part0_q;
    part1_d = part1_q;
    if (load_i) begin
      part0_d = load_part0_i;
      part1_d = load_part1_i;
    end else if (ready_i && busy_o) begin
      part0_d = part0_q & ~hit0;
      part1_d = part1_q & ~hit1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      part0_q <= '0;
      part1_q <= '0;
    end else begin
      part0_q <= part0_d;
      part1_q <= part1_d;
    end
  end

  // Bytes of a slot: 1, 2 or 4 ones.
  function automatic logic [3:0] slot_ones(logic [1:0] lg);
    return (lg == 2'd0) ? 4'b0001 : (lg == 2'd1) ? 4'b0011 : 4'b1111;
  endfunction

  // Pattern b has bit s set iff bit b of s is set: encodes a one-hot slot vector.
  function automatic logic [SlotW-1:0][NumSlots-1:0] index_bit_patterns();
    logic [SlotW-1:0][NumSlots-1:0] p;
    for (int b = 0; b < SlotW; b++) begin
      for (int s = 0; s < NumSlots; s++) begin
        p[b][s] = ((s >> b) & 1) != 0;
      end
    end
    return p;
  endfunction

endmodule
