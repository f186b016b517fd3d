// LDS bank arbiter and RAM (SPEC 2). Cycle contract: docs/lds.md.
// IDLE accepts an instruction; BUSY serves its dword slots bank by bank, pass
// by pass; the cycle after the last BUSY cycle shows done_o and the results.
module lds_top
  import lds_pkg::*;
#(
  parameter int unsigned GFX = 9
) (
`include "lds_ports.svh"
);

  localparam bit Gfx9 = (GFX == 9);
  // cmpst operand order: gfx11 ds_cmpstore_b32 stores DATA0 (profile table row).
  localparam bit CmpstStoreD0 = !Gfx9;
  // Slots skipped at once where none is served.
  localparam int unsigned Group = 32;

  // ---------------------------------------------------------------------------
  // Registered state
  // ---------------------------------------------------------------------------
  logic                        busy_q, done_q, pass_q;
  // two, st64 and addtid only shape the slots at acceptance.
  /* verilator lint_off UNUSEDSIGNAL */
  opinfo_t                     info_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [31:0]                 active_hi_q;  // active lanes of pass 1
  logic [NumSlots-1:0]         served_q;     // slots served so far
  logic [Lanes-1:0][31:0]      d0_q, d1_q;
  logic [Lanes-1:0][127:0]     res_q;
  logic [15:0]                 cycles_q;
  // Results of the last completed instruction.
  logic [Lanes-1:0][127:0]     rdata_q;
  logic [Lanes-1:0][7:0]       oor_q;
  logic [Lanes-1:0]            memviol_out_q;
  logic [15:0]                 cycles_out_q;

  // ---------------------------------------------------------------------------
  // Acceptance: decode the offered instruction (into lds_slots' registers)
  // ---------------------------------------------------------------------------
  opinfo_t                 info_in;
  logic                    wave64;
  logic [Lanes-1:0]        active_in;
  slot_t                   slot_q [NumSlots];  // the slots of the current instruction
  logic [NumSlots-1:0]     live_q;     // slots to serve (existing, in range)
  logic [NumSlots-1:0]     slot_oor_q; // slots existing and out of range
  logic [Lanes-1:0]        memviol_q;
  logic [Lanes-1:0][31:0]  perm_q;     // permute results
  logic [NumSlots-1:0]     pend;       // slots still to serve
  logic                    accept;

  assign info_in   = decode_op(op_i);
  assign wave64    = Gfx9 || wave64_i;
  assign active_in = (info_in.kind == KindInvalid) ? '0 :
                     (exec_i & (wave64 ? {Lanes{1'b1}} : {32'd0, 32'hFFFF_FFFF}));
  assign accept    = !busy_q && req_valid_i;

  lds_slots #(.GFX(GFX)) u_slots (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .en_i        (accept),
    .info_i      (info_in),
    .wgp_i       (wgp_i),
    .unaligned_i (unaligned_i),
    .active_i    (active_in),
    .offset0_i   (offset0_i),
    .offset1_i   (offset1_i),
    .m0_i        (m0_i),
    .lds_base_i  (lds_base_i),
    .lds_size_i  (lds_size_i),
    .addr_i      (addr_i),
    .data0_i     (data0_i),
    .data1_i     (data1_i),
    .slot_o      (slot_q),
    .live_o      (live_q),
    .oor_o       (slot_oor_q),
    .memviol_o   (memviol_q),
    .perm_o      (perm_q)
  );

  assign pend = live_q & ~served_q;

  // ---------------------------------------------------------------------------
  // Arbitration and RAM access of the current BUSY cycle
  // ---------------------------------------------------------------------------
  logic [NumSlots-1:0]            served;
  logic [MaxBanks-1:0]            win_valid;
  logic [MaxBanks-1:0][8:0]       win_slot;
  logic [MaxBanks-1:0][RamAw-1:0] ram_addr;
  logic [MaxBanks-1:0][31:0]      ram_rdata, ram_wdata;
  logic [MaxBanks-1:0]            ram_we;
  logic [Lanes-1:0][127:0]        res_d;

  lds_arb u_arb (
    .pass_i      (pass_q),
    .atomic_i    (info_q.kind == KindAtomic),
    .pend_i      (busy_q ? pend : '0),
    .slot_i      (slot_q),
    .served_o    (served),
    .win_valid_o (win_valid),
    .win_slot_o  (win_slot)
  );

  always_comb begin
    for (int unsigned b = 0; b < MaxBanks; b++) begin
      ram_addr[b] = slot_q[win_slot[b]].phys;
    end
  end

  lds_ram u_ram (
    .clk_i   (clk_i),
    .addr_i  (ram_addr),
    .rdata_o (ram_rdata),
    .we_i    (ram_we),
    .wdata_i (ram_wdata)
  );

  // Writes per bank (stores merged in ascending (lane, k) order, so the
  // highest wins per byte; atomics one read-modify-write per bank) and the
  // lanes' results with this cycle's reads deposited. Groups of slots with
  // none served are skipped.
  always_comb begin
    logic [5:0] b;
    int unsigned lane;
    logic [3:0] pos;
    ram_we    = '0;
    ram_wdata = ram_rdata;
    res_d     = res_q;
    for (int unsigned g = 0; g < NumSlots / Group; g++) begin
      if (|served[Group * g +: Group]) begin
        for (int unsigned i = Group * g; i < Group * (g + 1); i++) begin
          if (served[i]) begin
            b    = slot_q[i].bank;
            lane = i / SlotsPerLane;
            unique case (info_q.kind)
              KindStore: begin
                ram_we[b] = 1'b1;
                for (int unsigned j = 0; j < 4; j++) begin
                  if (slot_q[i].be[j]) ram_wdata[b][8*j +: 8] = slot_q[i].wdata[8*j +: 8];
                end
              end
              KindAtomic: begin
                ram_we[b]    = 1'b1;
                ram_wdata[b] = atomic_apply(info_q.atom, ram_rdata[b], d0_q[lane], d1_q[lane],
                                            CmpstStoreD0);
                if (info_q.rtn) res_d[lane] = {96'd0, ram_rdata[b]};
              end
              KindLoad: begin
                for (int unsigned j = 0; j < 4; j++) begin
                  // be marks exactly the bytes whose position is 0..15.
                  pos = 4'(slot_q[i].rbase) + 4'(j);
                  if (slot_q[i].be[j]) res_d[lane][8*pos +: 8] = ram_rdata[b][8*j +: 8];
                end
              end
              default: ;
            endcase
          end
        end
      end
    end
  end

  logic [PassSlots-1:0]    left_p;
  logic                    left, next_pass, finish;

  assign left_p    = pass_q ? (pend[NumSlots-1:PassSlots] & ~served[NumSlots-1:PassSlots])
                            : (pend[PassSlots-1:0] & ~served[PassSlots-1:0]);
  assign left      = |left_p;
  assign next_pass = !pass_q && (|active_hi_q);
  assign finish    = busy_q && !left && !next_pass;

  // ---------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    // Results at completion: the permute results or the reads deposited, with
    // sign extension of signed sub-dword loads (a permute has no slots, so
    // nothing is deposited); out of range per slot.
    logic [Lanes-1:0][127:0] rdata_fin;
    logic [Lanes-1:0][7:0]   oor_fin;
    logic [127:0]            r;
    if (!rst_ni) begin
      busy_q        <= 1'b0;
      done_q        <= 1'b0;
      pass_q        <= 1'b0;
      info_q        <= '0;
      active_hi_q   <= '0;
      served_q      <= '0;
      d0_q          <= '0;
      d1_q          <= '0;
      res_q         <= '0;
      cycles_q      <= '0;
      rdata_q       <= '0;
      oor_q         <= '0;
      memviol_out_q <= '0;
      cycles_out_q  <= '0;
    end else begin
      done_q <= finish;
      if (accept) begin
        busy_q      <= 1'b1;
        info_q      <= info_in;
        active_hi_q <= active_in[Lanes-1:32];
        pass_q      <= (active_in[31:0] == 32'd0) && (|active_in[Lanes-1:32]);
        served_q    <= '0;
        for (int unsigned l = 0; l < Lanes; l++) begin
          d0_q[l] <= data0_i[l][31:0];
          d1_q[l] <= data1_i[l][31:0];
        end
        res_q       <= '0;
        cycles_q    <= '0;
      end else if (busy_q) begin
        served_q <= served_q | served;
        res_q    <= res_d;
        cycles_q <= cycles_q + 16'd1;
        if (!left && next_pass) begin
          pass_q <= 1'b1;
        end
        if (finish) begin
          for (int unsigned l = 0; l < Lanes; l++) begin
            r = res_d[l] | {96'd0, perm_q[l]};
            if (info_q.signext && (info_q.width == 5'd1)) begin
              rdata_fin[l] = {96'd0, {24{r[7]}}, r[7:0]};
            end else if (info_q.signext && (info_q.width == 5'd2)) begin
              rdata_fin[l] = {96'd0, {16{r[15]}}, r[15:0]};
            end else begin
              rdata_fin[l] = r;
            end
            oor_fin[l] = {2'b00, slot_oor_q[SlotsPerLane * l +: SlotsPerLane]};
          end
          busy_q        <= 1'b0;
          rdata_q       <= rdata_fin;
          oor_q         <= oor_fin;
          memviol_out_q <= memviol_q;
          cycles_out_q  <= cycles_q + 16'd1;
        end
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Outputs (registered state only)
  // ---------------------------------------------------------------------------
  always_comb begin
    grant_lanes_o = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      grant_lanes_o[l] = |served[SlotsPerLane * l +: SlotsPerLane];
    end
  end

  assign req_ready_o   = !busy_q;
  assign busy_o        = busy_q;
  assign grant_banks_o = win_valid;
  assign done_o        = done_q;
  assign rdata_o       = rdata_q;
  assign oor_o         = oor_q;
  assign memviol_o     = memviol_out_q;
  assign cycles_o      = cycles_out_q;

endmodule
