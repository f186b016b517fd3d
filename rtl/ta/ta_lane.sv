// Texture-cache address unit: one lane's address, range check and alignment
// check for its four dword slots (SPEC §1.3-§1.5, docs/ta.md "Per-lane results").
// Purely combinational; instantiated once per lane.

module ta_lane #(
  parameter int unsigned GFX  = 9,
  parameter int unsigned Lane = 0
) (
  input  ta_pkg::inst_t     inst_i,
  input  logic              exec_i,
  input  logic [31:0]       vindex_i,
  input  logic [31:0]       voffset_i,
  output logic [3:0][47:0]  addr_o,     // final byte address per slot
  output logic [3:0]        inrange_o,
  output logic [3:0]        access_o,
  output logic              memviol_o,
  output logic [3:0]        cross_o     // slot's bytes cross a line boundary
);
  import ta_pkg::*;

  localparam profile_t    Prof     = profile_of(GFX);
  localparam int unsigned LineLg   = int'(Prof.line_lg);
  localparam int unsigned LineB    = 1 << LineLg;
  localparam logic [31:0] LaneId   = 32'(Lane);

  logic        active;
  logic [31:0] index, offset;
  logic [31:0] idx_x_stride;      // index * stride (linear)
  logic [31:0] idx_msb_x_stride;  // index / IS * stride (swizzled)
  logic [31:0] idx_lsb_term;      // index % IS * ES (swizzled)
  logic [31:0] es_mask;           // ES - 1
  logic [31:0] is_mask;           // IS - 1
  logic [47:0] base_sum;          // base + soffset
  logic [4:0]  slot_bytes;
  logic [3:0]  oor;               // per slot out of range
  logic [3:0]  in_access;         // slot is part of the access
  logic [3:0][31:0] off_d;        // offset of slot d
  logic [3:0][31:0] bo_d;         // buffer offset of slot d
  logic [3:0][47:0] raw_d;        // address before alignment clearing
  logic        verdict;           // all-or-nothing lane verdict: in range

  // A lane is active when its exec bit is set and it exists in the wave.
  assign active = exec_i && (Lane < 32 || inst_i.wave64);

  always_comb begin
    index  = (inst_i.idxen ? vindex_i : 32'd0) + (inst_i.add_tid ? LaneId : 32'd0);
    offset = (inst_i.offen ? voffset_i : 32'd0) + {20'd0, inst_i.inst_offset};
    es_mask = (32'd1 << inst_i.es_lg) - 32'd1;
    is_mask = (32'd1 << inst_i.is_lg) - 32'd1;
    idx_x_stride     = index * {18'd0, inst_i.stride};
    idx_msb_x_stride = (index >> inst_i.is_lg) * {18'd0, inst_i.stride};
    idx_lsb_term     = (index & is_mask) << inst_i.es_lg;
    base_sum   = inst_i.base + {16'd0, inst_i.soffset};
    slot_bytes = 5'd1 << inst_i.slot_lg;

    for (int d = 0; d < 4; d++) begin
      off_d[d] = offset + 32'(4 * d);
      if (inst_i.swizzle) begin
        bo_d[d] = ((idx_msb_x_stride + (off_d[d] & ~es_mask)) << inst_i.is_lg)
                  + idx_lsb_term + (off_d[d] & es_mask);
      end else begin
        bo_d[d] = idx_x_stride + off_d[d];
      end
      raw_d[d]  = base_sum + {16'd0, bo_d[d]};
      addr_o[d] = raw_d[d] & ~{46'd0, inst_i.clear_mask};
      in_access[d] = (3'(d) < inst_i.nslots);
      cross_o[d] = ({1'b0, addr_o[d][LineLg-1:0]} + (LineLg + 1)'(slot_bytes))
                   > (LineLg + 1)'(LineB);
      oor[d] = slot_oor(index, off_d[d], bo_d[d], inst_i.aon ? inst_i.payload : slot_bytes,
                        inst_i.num_records, inst_i.stride, inst_i.soffset,
                        inst_i.idxen || inst_i.add_tid, inst_i.swizzle, inst_i.oob_select);
    end

    // Range verdicts: per dword, or all-or-nothing per lane.
    if (Prof.range == RangeGfx11) begin
      verdict = !oor[0];                       // once, at the start, whole payload
    end else begin
      verdict = !(|(oor & in_access));         // any dword of the access
    end
    for (int d = 0; d < 4; d++) begin
      inrange_o[d] = in_access[d] && (inst_i.aon ? verdict : !oor[d]);
    end

    // MEMVIOL: active, valid access to a buffer resource, slot 0 misaligned.
    memviol_o = active && inst_i.type_ok && (inst_i.nslots != 3'd0)
                && ((raw_d[0][3:0] & inst_i.align_mask) != 4'd0);
    access_o = inrange_o & {4{active && inst_i.type_ok && !memviol_o}};
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
