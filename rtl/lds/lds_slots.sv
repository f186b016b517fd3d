// Instruction decode at acceptance: the dword slots of every lane (address,
// range check, bank, byte enables, write data), MEMVIOL of misaligned atomics,
// and the permute results (docs/lds.md "Addresses and slots", "Data"),
// computed from the instruction's inputs and registered on the edge that
// accepts it. They are computed inside the clocked processes rather than in
// always_comb blocks feeding registers: as combinational logic of the inputs a
// simulator would evaluate them on every input change (twice a cycle in a
// Verilated model, and again after the edge), although only the accepting
// edge uses them.
module lds_slots
  import lds_pkg::*;
#(
  parameter int unsigned GFX = 9
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  // An instruction is accepted: decode it into the registers.
  input  logic                      en_i,
  // signext, rtn and atom are not needed to form the slots.
  /* verilator lint_off UNUSEDSIGNAL */
  input  opinfo_t                   info_i,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                      wgp_i,
  input  logic                      unaligned_i,
  input  logic [Lanes-1:0]          active_i,
  input  logic [7:0]                offset0_i,
  input  logic [7:0]                offset1_i,
  // M0 is dword aligned (SPEC 2.1): its low bits are ignored.
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [31:0]               m0_i,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [8:0]                lds_base_i,
  input  logic [17:0]               lds_size_i,
  input  logic [Lanes-1:0][31:0]    addr_i,
  input  logic [Lanes-1:0][63:0]    data0_i,
  input  logic [Lanes-1:0][63:0]    data1_i,
  // Registered, of the last accepted instruction.
  output slot_t                     slot_o [NumSlots],
  output logic [NumSlots-1:0]       live_o,     // slot exists and is in range
  output logic [NumSlots-1:0]       oor_o,      // slot exists and is out of range
  output logic [Lanes-1:0]          memviol_o,
  output logic [Lanes-1:0][31:0]    perm_o
);

  localparam bit Gfx9 = (GFX == 9);

  logic        big_mode;
  logic [5:0]  bank_mask;
  logic [RamAw-1:0] phys_mask;
  logic [15:0] off16;
  logic [31:0] adj;
  logic [31:0] align;
  logic        is_mem;

  assign big_mode  = !Gfx9 && wgp_i;
  assign bank_mask = big_mode ? 6'd63 : 6'd31;
  assign phys_mask = big_mode ? RamAw'(RamDwords - 1) : RamAw'(RamDwords / 2 - 1);
  assign off16     = {offset1_i, offset0_i};
  assign adj       = {27'd0, info_i.width} << (info_i.st64 ? 32'd6 : 32'd0);
  assign is_mem    = (info_i.kind == KindLoad) || (info_i.kind == KindStore) ||
                     (info_i.kind == KindAtomic);
  // DWORD mode aligns down to the element size, b96 (three dword accesses)
  // to 4 bytes (SPEC 2.3).
  assign align     = (info_i.width == 5'd12) ? 32'd4 : {27'd0, info_i.width};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    slot_t                slot [NumSlots];
    logic [NumSlots-1:0]  live, oor;
    logic [Lanes-1:0]     memviol;
    logic [31:0] a;
    logic [31:0] w;
    logic [1:0]  lo;
    logic [2:0]  ndw;
    logic [127:0] data;
    logic [29:0] dw;
    logic [31:0] rel;
    logic        mv;
    logic [8:0]  s;
    if (!rst_ni) begin
      slot_o    <= '{default: '0};
      live_o    <= '0;
      oor_o     <= '0;
      memviol_o <= '0;
    end else if (en_i) begin
      slot    = '{default: '0};
      live    = '0;
      oor     = '0;
      memviol = '0;
      rel     = '0;
      w       = {27'd0, info_i.width};
      for (int unsigned l = 0; l < Lanes; l++) begin
        for (int unsigned e = 0; e < 2; e++) begin
          if (info_i.addtid) begin
            a = {16'd0, off16} + (32'(l) << 2) + {m0_i[31:2], 2'b00};
          end else if (info_i.two) begin
            a = addr_i[l] + ((e == 0) ? {24'd0, offset0_i} : {24'd0, offset1_i}) * adj;
          end else begin
            a = addr_i[l] + {16'd0, off16};
          end
          mv = 1'b0;
          if (info_i.kind == KindAtomic) begin
            mv = (a[1:0] != 2'b00);
          end else if (!unaligned_i) begin
            a = a & ~(align - 32'd1);
          end
          if (active_i[l] && is_mem && (e == 0) && mv) begin
            memviol[l] = 1'b1;
          end
          // b96 and b128 take bytes 0-7 from DATA0 and 8-15 from DATA1.
          if (info_i.width > 5'd8) begin
            data = {data1_i[l], data0_i[l]};
          end else begin
            data = {64'd0, (e == 0) ? data0_i[l] : data1_i[l]};
          end
          lo   = a[1:0];
          ndw  = 3'(({30'd0, lo} + w + 32'd3) >> 2);
          // Up to three dwords of each of two elements, or five of one
          // b96 or b128 element.
          for (int unsigned j = 0; j < 5; j++) begin
            s  = 9'(SlotsPerLane * l + 3 * e + j);
            dw = a[31:2] + 30'(j);
            if ((3 * e + j < SlotsPerLane) && active_i[l] && is_mem && !mv &&
                ((e == 0) || info_i.two) && (3'(j) < ndw)) begin
              slot[s].exists = 1'b1;
              slot[s].oor    = ({2'b00, dw, 2'b00} >= {16'd0, lds_size_i});
              live[s]        = !slot[s].oor;
              oor[s]         = slot[s].oor;
              slot[s].dword  = dw[15:0];
              slot[s].phys   = (RamAw'({lds_base_i, 6'd0}) + dw[RamAw-1:0]) & phys_mask;
              slot[s].bank   = dw[5:0] & bank_mask;
              slot[s].rbase  = 6'(e * w + 4 * j) - 6'({4'd0, lo});
              for (int unsigned b = 0; b < 4; b++) begin
                rel = 32'(4 * j + b) - {30'd0, lo};
                if ((32'(4 * j + b) >= {30'd0, lo}) && (rel < w)) begin
                  slot[s].be[b]            = 1'b1;
                  slot[s].wdata[8*b +: 8]  = data[8*rel[3:0] +: 8];
                end
              end
            end
          end
        end
      end
      slot_o    <= slot;
      live_o    <= live;
      oor_o     <= oor;
      memviol_o <= memviol;
    end
  end

  // Permutes (SPEC 2.3): gfx9 across 64 lanes, gfx11 each 32-lane half alone.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    // Only the index bits of the byte address select the source lane.
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] ia;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [5:0]  src;
    logic [Lanes-1:0][31:0] perm;
    if (!rst_ni) begin
      perm_o <= '0;
    end else if (en_i) begin
      perm = '0;
      for (int unsigned i = 0; i < Lanes; i++) begin
        ia  = addr_i[i] + {16'd0, off16};
        src = Gfx9 ? ia[7:2] : {i[5], ia[6:2]};
        if (active_i[i]) begin
          if (info_i.kind == KindBpermute) begin
            if (active_i[src]) perm[i] = data0_i[src][31:0];
          end else if (info_i.kind == KindPermute) begin
            if (active_i[src]) perm[src] = data0_i[i][31:0];
          end
        end
      end
      perm_o <= perm;
    end
  end

endmodule
