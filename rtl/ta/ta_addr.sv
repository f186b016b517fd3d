// Texture-cache address unit: address, range check and alignment check of all
// 64 lanes x 4 dword slots (SPEC §1.3-§1.5, docs/ta.md "Per-lane results"),
// computed from the instruction's inputs and registered on the edge that
// accepts it. The registers are the unit's lane_* outputs.
//
// The datapath is computed inside the clocked process rather than in an
// always_comb block feeding a register: it depends on the inputs, so as
// combinational logic a simulator evaluates it on every input change (twice
// a cycle in a Verilated model, and again after the edge), although its
// result is only used on the accepting edge. It is written as a loop over the
// 64 lanes rather than 64 module instances, so the generated C++ holds one
// copy of the lane datapath.

module ta_addr #(
  parameter int unsigned GFX = 9
) (
  input  logic                                     clk_i,
  input  logic                                     rst_ni,
  input  logic                                     en_i,       // an instruction is accepted
  input  ta_pkg::inst_t                            inst_i,
  input  logic [ta_pkg::NumLanes-1:0]              exec_i,
  input  logic [ta_pkg::NumLanes-1:0][31:0]        vindex_i,
  input  logic [ta_pkg::NumLanes-1:0][31:0]        voffset_i,
  // Registered results of the last accepted instruction.
  output logic [ta_pkg::NumSlots-1:0][47:0]        addr_o,     // final address per slot
  output logic [ta_pkg::NumSlots-1:0]              inrange_o,
  output logic [ta_pkg::NumSlots-1:0]              access_o,
  output logic [ta_pkg::NumSlots-1:0]              cross_o,    // bytes cross a line boundary
  output logic [ta_pkg::NumLanes-1:0]              memviol_o
);
  import ta_pkg::*;

  localparam profile_t    Prof   = profile_of(GFX);
  localparam int unsigned LineLg = int'(Prof.line_lg);
  localparam int unsigned LineB  = 1 << LineLg;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    logic [4:0]               slot_bytes;   // bytes of one slot (1, 2, 4)
    logic [31:0]              es_mask;      // swizzle ES - 1
    logic [31:0]              is_mask;      // swizzle IS - 1
    logic [47:0]              base_sum;     // base + soffset (48-bit wrap)
    logic [4:0]               chk_bytes;    // payload of a range check (gfx11)
    logic [NumLanes-1:0]      active;       // exec set and lane exists in the wave
    logic [31:0]              index, offset, off_d, bo;
    logic [47:0]              raw;          // address before alignment clearing
    logic [3:0]               raw0_lo;      // low bits of slot 0's address before clearing
    logic [NumDw-1:0]         oor;          // slot out of range (own rule)
    logic [NumDw-1:0]         in_access;    // slot is part of the access
    logic                     verdict;
    logic [NumDw-1:0][47:0]   lane_addr;
    logic [NumDw-1:0]         lane_inrange, lane_access, lane_cross;
    logic [NumSlots-1:0][47:0] addr;
    logic [NumSlots-1:0]      inrange, access, crosses;
    logic [NumLanes-1:0]      memviol;
    if (!rst_ni) begin
      // A '0 fill of the 256 x 48-bit address register, not a replication.
      /* verilator lint_off WIDTHCONCAT */
      addr_o    <= '0;
      /* verilator lint_on WIDTHCONCAT */
      inrange_o <= '0;
      access_o  <= '0;
      cross_o   <= '0;
      memviol_o <= '0;
    end else if (en_i) begin
      slot_bytes = 5'd1 << inst_i.slot_lg;
      es_mask    = (32'd1 << inst_i.es_lg) - 32'd1;
      is_mask    = (32'd1 << inst_i.is_lg) - 32'd1;
      base_sum   = inst_i.base + {16'd0, inst_i.soffset};
      chk_bytes  = inst_i.aon ? inst_i.payload : slot_bytes;
      active     = exec_i & (inst_i.wave64 ? {NumLanes{1'b1}} : {{(NumLanes / 2){1'b0}},
                                                                 {(NumLanes / 2){1'b1}}});
      for (int l = 0; l < NumLanes; l++) begin
        // SPEC §1.3: index and offset wrap at 2^32; slot d is at offset + 4*d.
        index   = (inst_i.idxen ? vindex_i[l] : 32'd0)
                  + (inst_i.add_tid ? 32'(l) : 32'd0);
        offset  = (inst_i.offen ? voffset_i[l] : 32'd0) + {20'd0, inst_i.inst_offset};
        raw0_lo = '0;
        for (int d = 0; d < NumDw; d++) begin
          off_d = offset + 32'(4 * d);
          if (inst_i.swizzle) begin
            bo = ((((index >> inst_i.is_lg) * {18'd0, inst_i.stride}) + (off_d & ~es_mask))
                  << inst_i.is_lg)
                 + ((index & is_mask) << inst_i.es_lg) + (off_d & es_mask);
          end else begin
            bo = index * {18'd0, inst_i.stride} + off_d;
          end
          raw           = base_sum + {16'd0, bo};
          lane_addr[d]  = raw & ~{46'd0, inst_i.clear_mask};
          if (d == 0) raw0_lo = raw[3:0];
          in_access[d]  = (3'(d) < inst_i.nslots);
          lane_cross[d] = ({1'b0, lane_addr[d][LineLg-1:0]} + (LineLg + 1)'(slot_bytes))
                          > (LineLg + 1)'(LineB);
          oor[d] = slot_oor(index, off_d, bo, chk_bytes, inst_i.num_records, inst_i.stride,
                            inst_i.soffset, inst_i.idxen || inst_i.add_tid, inst_i.swizzle,
                            inst_i.oob_select);
        end
        // MEMVIOL: active, valid access to a buffer resource, slot 0 misaligned
        // (judged before alignment-mode clearing).
        memviol[l] = active[l] && inst_i.type_ok && (inst_i.nslots != 3'd0)
                     && ((raw0_lo & inst_i.align_mask) != 4'd0);
        if (Prof.range == RangeGfx11) begin
          verdict = !oor[0];                        // once, at the start
        end else begin
          verdict = !(|(oor & in_access));           // any dword
        end
        lane_inrange = in_access & (inst_i.aon ? {NumDw{verdict}} : ~oor);
        lane_access  = lane_inrange & {NumDw{active[l] && inst_i.type_ok && !memviol[l]}};
        addr[NumDw * l +: NumDw]    = lane_addr;
        inrange[NumDw * l +: NumDw] = lane_inrange;
        access[NumDw * l +: NumDw]  = lane_access;
        crosses[NumDw * l +: NumDw] = lane_cross;
      end
      addr_o    <= addr;
      inrange_o <= inrange;
      access_o  <= access;
      cross_o   <= crosses;
      memviol_o <= memviol;
    end
  end

  // Out-of-range test of one slot (SPEC §1.4). Sums against num_records and
  // stride are computed without wrap-around (33 bits).
  function automatic logic slot_oor(logic [31:0] idx, logic [31:0] off, logic [31:0] bo,
                                    logic [4:0] payload, logic [31:0] num_records,
                                    logic [13:0] stride, logic [31:0] soffset,
                                    logic idx_checked, logic swizzle, logic [1:0] oob);
    logic [32:0] nr, st;
    logic        r;
    nr = {1'b0, num_records};
    st = {19'd0, stride};
    if (Prof.range == RangeGfx11) begin
      unique case (oob)
        2'd0:    r = (idx >= num_records) || ({1'b0, off} + 33'(payload) > st);
        2'd1:    r = (idx >= num_records);
        2'd2:    r = (num_records == 32'd0);
        default: begin
          if (swizzle && stride != 14'd0) begin
            r = (idx >= num_records) || ({1'b0, off} + 33'(payload) > st);
          end else begin
            r = ({1'b0, bo} + 33'(payload) > nr);
          end
        end
      endcase
    end else begin
      // gfx9: no payload; soffset included when stride == 0.
      if (stride == 14'd0) begin
        r = ({1'b0, bo} + {1'b0, soffset} >= nr);
      end else begin
        r = (idx >= num_records) || (idx_checked && ({1'b0, off} >= st));
      end
    end
    return r;
  endfunction

endmodule
