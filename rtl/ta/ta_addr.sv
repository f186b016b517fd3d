// Texture-cache address unit: address, range check and alignment check of all
// 64 lanes x 4 dword slots (SPEC §1.3-§1.5, docs/ta.md "Per-lane results").
// Purely combinational.
//
// The datapath is written as loops over the 256 slots rather than 64 module
// instances: Verilator keeps a loop this long as a loop, so the generated C++
// holds one copy of the slot datapath and builds in seconds.

module ta_addr #(
  parameter int unsigned GFX = 9
) (
  input  logic                                     en_i,       // an instruction is accepted
  input  ta_pkg::inst_t                            inst_i,
  input  logic [ta_pkg::NumLanes-1:0]              exec_i,
  input  logic [ta_pkg::NumLanes-1:0][31:0]        vindex_i,
  input  logic [ta_pkg::NumLanes-1:0][31:0]        voffset_i,
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

  logic [4:0]          slot_bytes;   // bytes of one slot (1, 2, 4)
  logic [31:0]         es_mask;      // swizzle ES - 1
  logic [31:0]         is_mask;      // swizzle IS - 1
  logic [47:0]         base_sum;     // base + soffset (48-bit wrap)
  logic [4:0]          chk_bytes;    // payload of a range check (gfx11)
  logic [NumLanes-1:0] active;       // exec set and lane exists in the wave
  logic [NumSlots-1:0] oor;          // slot out of range (own rule)
  logic [NumSlots-1:0] in_access;    // slot is part of the access
  logic [NumLanes-1:0][3:0] raw0_lo;  // low bits of slot 0's address before clearing

  always_comb begin
    slot_bytes = 5'd1 << inst_i.slot_lg;
    es_mask    = (32'd1 << inst_i.es_lg) - 32'd1;
    is_mask    = (32'd1 << inst_i.is_lg) - 32'd1;
    base_sum   = inst_i.base + {16'd0, inst_i.soffset};
    chk_bytes  = inst_i.aon ? inst_i.payload : slot_bytes;
    active     = exec_i & (inst_i.wave64 ? {NumLanes{1'b1}} : {{(NumLanes / 2){1'b0}},
                                                                {(NumLanes / 2){1'b1}}});
  end

  // --- Per slot: address, own range verdict ---------------------------------------
  // Operand isolation: the slot datapath only switches in the cycle an
  // instruction is accepted (its results are registered then and only then).
  always_comb begin
    logic [31:0] index, offset, off_d, bo;
    logic [5:0]  lane;
    logic [1:0]  d;
    logic [47:0] raw;           // address before alignment clearing
    // A '0 fill of the 256 x 48-bit address vector, not a replication.
    /* verilator lint_off WIDTHCONCAT */
    addr_o    = '0;
    /* verilator lint_on WIDTHCONCAT */
    cross_o   = '0;
    oor       = '0;
    in_access = '0;
    raw0_lo   = '0;
    index     = '0;
    offset    = '0;
    off_d     = '0;
    bo        = '0;
    lane      = '0;
    d         = '0;
    raw       = '0;
    if (en_i) begin
      for (int s = 0; s < NumSlots; s++) begin
        lane   = 6'(s >> 2);
        d      = 2'(s);
        // SPEC §1.3: index and offset wrap at 2^32; slot d is at offset + 4*d.
        index  = (inst_i.idxen ? vindex_i[lane] : 32'd0)
                 + (inst_i.add_tid ? {26'd0, lane} : 32'd0);
        offset = (inst_i.offen ? voffset_i[lane] : 32'd0) + {20'd0, inst_i.inst_offset};
        off_d  = offset + {28'd0, d, 2'b00};
        if (inst_i.swizzle) begin
          bo = ((((index >> inst_i.is_lg) * {18'd0, inst_i.stride}) + (off_d & ~es_mask))
                << inst_i.is_lg)
               + ((index & is_mask) << inst_i.es_lg) + (off_d & es_mask);
        end else begin
          bo = index * {18'd0, inst_i.stride} + off_d;
        end
        raw          = base_sum + {16'd0, bo};
        addr_o[s]    = raw & ~{46'd0, inst_i.clear_mask};
        if (d == 2'd0) raw0_lo[lane] = raw[3:0];
        in_access[s] = ({1'b0, d} < inst_i.nslots);
        cross_o[s]   = ({1'b0, addr_o[s][LineLg-1:0]} + (LineLg + 1)'(slot_bytes))
                       > (LineLg + 1)'(LineB);
        oor[s] = slot_oor(index, off_d, bo, chk_bytes, inst_i.num_records, inst_i.stride,
                          inst_i.soffset, inst_i.idxen || inst_i.add_tid, inst_i.swizzle,
                          inst_i.oob_select);
      end
    end
  end

  // --- Per lane: MEMVIOL, all-or-nothing verdict, accesses ------------------------
  always_comb begin
    logic verdict;
    for (int l = 0; l < NumLanes; l++) begin
      // MEMVIOL: active, valid access to a buffer resource, slot 0 misaligned
      // (judged before alignment-mode clearing).
      memviol_o[l] = active[l] && inst_i.type_ok && (inst_i.nslots != 3'd0)
                     && ((raw0_lo[l] & inst_i.align_mask) != 4'd0);
      if (Prof.range == RangeGfx11) begin
        verdict = !oor[4 * l];                           // once, at the start
      end else begin
        verdict = !(|(oor[4 * l +: 4] & in_access[4 * l +: 4]));  // any dword
      end
      for (int d = 0; d < NumDw; d++) begin
        inrange_o[4 * l + d] = in_access[4 * l + d]
                               && (inst_i.aon ? verdict : !oor[4 * l + d]);
        access_o[4 * l + d]  = inrange_o[4 * l + d] && active[l] && inst_i.type_ok
                               && !memviol_o[l];
      end
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
