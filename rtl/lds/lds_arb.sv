// Bank arbitration of one BUSY cycle (SPEC 2.2, docs/lds.md "Arbitration"):
// per bank the pending slot of the current pass with the lowest (lane, k)
// wins; non-atomic slots on the winner's dword are served with it
// (broadcast); atomics serve the winner only.
module lds_arb
  import lds_pkg::*;
(
  input  logic                      pass_i,
  input  logic                      atomic_i,
  input  logic [NumSlots-1:0]       pend_i,
  input  slot_t                     slot_i [NumSlots],
  output logic [NumSlots-1:0]       served_o,
  output logic [MaxBanks-1:0]       win_valid_o,
  output logic [MaxBanks-1:0][8:0]  win_slot_o
);

  logic [PassSlots-1:0]       pend_p;
  logic [8:0]                 base;         // first slot of the pass
  logic [PassSlots-1:0]       served_p;
  logic [MaxBanks-1:0][15:0]  win_dword;
  logic [MaxBanks-1:0][7:0]   win_local;

  assign pend_p = pass_i ? pend_i[NumSlots-1:PassSlots] : pend_i[PassSlots-1:0];
  assign base   = pass_i ? 9'(PassSlots) : 9'd0;

  // Descending scan: the last write to a bank's entry is its lowest slot.
  always_comb begin
    win_valid_o = '0;
    win_local   = '0;
    win_dword   = '0;
    if (|pend_p) begin  // nothing to arbitrate while idle
      for (int i = PassSlots - 1; i >= 0; i--) begin
        if (pend_p[i]) begin
          win_valid_o[slot_i[base + 9'(i)].bank] = 1'b1;
          win_local[slot_i[base + 9'(i)].bank]   = 8'(i);
          win_dword[slot_i[base + 9'(i)].bank]   = slot_i[base + 9'(i)].dword;
        end
      end
    end
  end

  always_comb begin
    served_p = '0;
    for (int unsigned i = 0; i < PassSlots; i++) begin
      if (!pend_p[i]) continue;  // only a pending slot is served
      if (atomic_i) begin
        served_p[i] = pend_p[i] && (win_local[slot_i[base + 9'(i)].bank] == 8'(i));
      end else begin
        served_p[i] = pend_p[i] && (win_dword[slot_i[base + 9'(i)].bank] == slot_i[base + 9'(i)].dword);
      end
    end
  end

  // Global slot index of each bank's winner.
  always_comb begin
    for (int unsigned b = 0; b < MaxBanks; b++) begin
      win_slot_o[b] = {1'b0, win_local[b]} + base;
    end
  end

  assign served_o = pass_i ? {served_p, {PassSlots{1'b0}}} : {{PassSlots{1'b0}}, served_p};

endmodule
