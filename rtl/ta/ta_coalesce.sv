// Texture-cache address unit: line coalescer (docs/ta.md "Line requests").
//
// The pieces of the current instruction: for every slot s (element
// 4*lane + dword) part 0 lies in line addr[s] / L and part 1 (only when the
// slot's bytes cross a line boundary) in the next line. The registered slot
// results give the pieces of the accepted instruction (part 0 of every slot
// accessed, part 1 of those that also cross); the coalescer keeps which of
// them have been sent (cleared when an instruction is loaded), so a piece is
// pending when it is a piece and not sent. Each cycle the lowest pending piece
// (slot, part) selects line X; the request covers every pending piece in X.
// Outputs are functions of registered state only.

module ta_coalesce #(
  parameter int unsigned GFX = 9
) (
  input  logic                                   clk_i,
  input  logic                                   rst_ni,
  // A new instruction is accepted: none of its pieces is sent yet.
  input  logic                                   load_i,
  // Registered state of the current instruction.
  input  logic [ta_pkg::NumSlots-1:0]            access_i,    // slots accessed
  input  logic [ta_pkg::NumSlots-1:0]            cross_i,     // slots crossing a line
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
  localparam int unsigned Group  = 32;              // slots skipped at once when none pends

  logic [NumSlots-1:0] sent0_q, sent1_q;   // pieces already requested
  logic [NumSlots-1:0] part0, part1;       // pending pieces
  logic [NumSlots-1:0] pend, first_oh;     // any part pending; lowest one-hot
  logic [SlotW-1:0]    sel;                // slot holding the lowest pending piece
  logic                sel_part;           // its lowest pending part
  logic [LineW-1:0]    line_x, line_xm1;   // selected line X, and X - 1
  logic [NumSlots-1:0] hit0, hit1;         // pending pieces in line X
  logic [LineB-1:0]    mask;

  localparam logic [SlotW-1:0][NumSlots-1:0] IdxPat = index_bit_patterns();

  assign part0 = access_i & ~sent0_q;
  assign part1 = access_i & cross_i & ~sent1_q;

  // --- Lowest pending piece: one-hot of the lowest pending slot, encoded ------
  assign pend     = part0 | part1;
  assign first_oh = pend & (~pend + NumSlots'(1));
  always_comb begin
    sel = '0;
    for (int b = 0; b < SlotW; b++) begin
      sel[b] = |(first_oh & IdxPat[b]);
    end
  end
  assign sel_part = !part0[sel];
  assign line_x   = addr_i[sel][AddrW-1:LineLg] + LineW'(sel_part);
  assign line_xm1 = line_x - LineW'(1);

  // --- Pieces in line X and their bytes ---------------------------------------
  // A slot's 1, 2 or 4 bytes from its offset o in its line: part 0's are
  // ones << o within the line; part 1's (o > L - 4) the bits of
  // ones << (o - (L - 4)) above the fourth, at the start of the next line.
  always_comb begin
    logic [47:0]       a;
    logic [LineLg-1:0] o;
    logic [1:0]        k;
    hit0 = '0;
    hit1 = '0;
    mask = '0;
    a    = '0;
    o    = '0;
    k    = '0;
    if (busy_o) begin  // nothing switches while no piece is pending
      for (int g = 0; g < NumSlots / Group; g++) begin
        if (|pend[Group * g +: Group]) begin  // skip a group with nothing pending
          for (int i = 0; i < Group; i++) begin
            if (pend[Group * g + i]) begin
              a = addr_i[Group * g + i];
              o = a[LineLg-1:0];
              k = 2'(o - LineLg'(LineB - 4));
              hit0[Group * g + i] = part0[Group * g + i] && (a[AddrW-1:LineLg] == line_x);
              hit1[Group * g + i] = part1[Group * g + i] && (a[AddrW-1:LineLg] == line_xm1);
              if (hit0[Group * g + i]) mask = mask | (LineB'(slot_ones(slot_lg_i)) << o);
              if (hit1[Group * g + i]) begin
                mask = mask | LineB'(4'((8'(slot_ones(slot_lg_i)) << k) >> 4));
              end
            end
          end
        end
      end
    end
  end

  assign busy_o      = |pend;
  assign line_addr_o = busy_o ? {line_x, {LineLg{1'b0}}} : '0;
  assign line_mask_o = MaskW'(mask);
  assign line_last_o = busy_o && !(|((part0 & ~hit0) | (part1 & ~hit1)));

  // --- Sent pieces --------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sent0_q <= '0;
      sent1_q <= '0;
    end else if (load_i) begin
      sent0_q <= '0;
      sent1_q <= '0;
    end else if (ready_i && busy_o) begin
      sent0_q <= sent0_q | hit0;
      sent1_q <= sent1_q | hit1;
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
