// Texture-cache address unit: V# and instruction decode (SPEC §1.1, §1.2, §1.5).
// Purely combinational; produces the lane-independent part of the access.

module ta_decode #(
  parameter int unsigned GFX = 9
) (
  input  logic [127:0]   vsharp_i,
  input  logic [1:0]     kind_i,
  input  logic [1:0]     op_i,
  input  logic [4:0]     size_i,
  input  logic [6:0]     fmt_i,
  input  logic           offen_i,
  input  logic           idxen_i,
  input  logic [11:0]    inst_offset_i,
  input  logic [31:0]    soffset_i,
  input  logic [1:0]     align_mode_i,
  input  logic           wave64_i,
  output ta_pkg::inst_t  inst_o
);
  import ta_pkg::*;

  localparam profile_t Prof = profile_of(GFX);

  // Where this profile's V# keeps each field (ta_enc.svh, from the model's table).
  localparam int unsigned BaseLo   = vs_lo(GFX, VsBase);
  localparam int unsigned StrideLo = vs_lo(GFX, VsStride);
  localparam int unsigned RecLo    = vs_lo(GFX, VsNumRecords);
  localparam int unsigned IsLo     = vs_lo(GFX, VsIndexStride);
  localparam int unsigned TidLo    = vs_lo(GFX, VsAddTid);
  localparam int unsigned TypeLo   = vs_lo(GFX, VsType);
  localparam int unsigned SwzLo    = vs_lo(GFX, VsSwizzle);
  localparam int unsigned EsLo     = vs_lo(GFX, VsElemSize);
  localparam int unsigned OobLo    = vs_lo(GFX, VsOobSelect);
  localparam int unsigned FmtLo    = vs_lo(GFX, VsFormat);

  logic       atomic, format;
  logic [4:0] fmt_bytes;   // element size of the format, 0 = invalid
  logic [4:0] acc_bytes;   // bytes of the whole access
  logic [1:0] slot_lg;
  logic [2:0] nslots;

  // --- V# fields --------------------------------------------------------------
  always_comb begin
    inst_o = '0;
    inst_o.base        = vsharp_i[BaseLo +: 48];
    inst_o.stride      = vsharp_i[StrideLo +: 14];
    inst_o.num_records = vsharp_i[RecLo +: 32];
    inst_o.is_lg       = 3'd3 + {1'b0, vsharp_i[IsLo +: 2]};
    inst_o.add_tid     = vsharp_i[TidLo];
    inst_o.type_ok     = (vsharp_i[TypeLo +: 2] == 2'd0);
    if (Prof.vsharp == VsGfx11) begin
      // swizzle_enable (2 bits): 1 = 4-byte, 3 = 16-byte elements; 0 off, 2 reserved (off).
      inst_o.swizzle    = vsharp_i[SwzLo];
      inst_o.es_lg      = vsharp_i[SwzLo + 1] ? 3'd4 : 3'd2;
      inst_o.oob_select = vsharp_i[OobLo +: 2];
    end else begin
      // swizzle_en (1 bit); ES = 2 << elem_size.
      inst_o.swizzle    = vsharp_i[SwzLo];
      inst_o.es_lg      = 3'd1 + {1'b0, vsharp_i[EsLo +: 2]};
      inst_o.oob_select = 2'd0;
    end

    // --- Instruction --------------------------------------------------------
    inst_o.offen       = offen_i;
    inst_o.idxen       = idxen_i;
    inst_o.inst_offset = inst_offset_i;
    inst_o.soffset     = soffset_i;
    inst_o.wave64      = Prof.wave32 ? wave64_i : 1'b1;

    // --- Access shape -------------------------------------------------------
    inst_o.nslots     = nslots;
    inst_o.slot_lg    = slot_lg;
    inst_o.aon        = atomic | format;
    inst_o.payload    = acc_bytes;
    inst_o.align_mask = 4'd0;
    inst_o.clear_mask = 2'd0;
    if (atomic) begin
      inst_o.align_mask = acc_bytes[3] ? 4'd7 : 4'd3;
    end else if (format) begin
      inst_o.align_mask = {2'b00, slot_mask(slot_lg)};
    end else begin
      unique case (align_mode_e'(align_mode_i))
        AlignDword:       inst_o.clear_mask = slot_mask(slot_lg);
        AlignDwordStrict: inst_o.align_mask = {2'b00, slot_mask(slot_lg)};
        AlignStrict:      inst_o.align_mask = strict_mask(acc_bytes);
        AlignUnaligned:   inst_o.align_mask = 4'd0;
        default:          inst_o.align_mask = 4'd0;
      endcase
    end
  end

  // --- Operation class and access size (SPEC §1.2; docs/ta.md "slots") ----------
  always_comb begin
    // The kind decides the class: a format kind with an atomic op (no such
    // instruction exists) is taken as the format op; kind 3 as MTBUF.
    format = (kind_i != 2'(KindMubuf));
    atomic = !format && op_i[1];
    // Format source: MTBUF (kind_i[1]) from the instruction, MUBUF format from the V#.
    if (Prof.fmt == FmtGfx11) begin
      fmt_bytes = gfx11_fmt_bytes(kind_i[1] ? fmt_i : {1'b0, vsharp_i[FmtLo +: 6]});
    end else begin
      fmt_bytes = gfx9_dfmt_bytes(kind_i[1] ? fmt_i[3:0] : vsharp_i[FmtLo +: 4]);
    end

    if (atomic) begin
      acc_bytes = (size_i == 5'd8) ? 5'd8 : 5'd4;
    end else if (format) begin
      acc_bytes = fmt_bytes;
    end else begin
      unique case (size_i)
        5'd1, 5'd2, 5'd4, 5'd8, 5'd12, 5'd16: acc_bytes = size_i;
        default:                              acc_bytes = 5'd4;
      endcase
    end

    // ceil(bytes / 4) slots of min(bytes, 4) bytes; 0 bytes (invalid format): no slot.
    nslots = 3'((acc_bytes + 5'd3) >> 2);
    if (acc_bytes == 5'd1 || acc_bytes == 5'd0) begin
      slot_lg = 2'd0;
    end else if (acc_bytes == 5'd2) begin
      slot_lg = 2'd1;
    end else begin
      slot_lg = 2'd2;
    end
  end

  // STRICT alignment of a non-format access: its size; 12 bytes (three dword
  // accesses) needs 4 (SPEC §1.5, Decided).
  function automatic logic [3:0] strict_mask(logic [4:0] bytes);
    logic [3:0] m;
    case (bytes)
      5'd1:    m = 4'd0;
      5'd2:    m = 4'd1;
      5'd8:    m = 4'd7;
      5'd16:   m = 4'd15;
      default: m = 4'd3;  // 4, 12
    endcase
    return m;
  endfunction

  // dst_sel (number formats, SEL_1 components) does not change which bytes are
  // addressed; hash_en / heap / unused bits likewise; op_i[0] only tells loads
  // from stores (and return from no-return), which the address path ignores.
  logic unused_inputs;
  assign unused_inputs = ^{vsharp_i[123:120], vsharp_i[107:96], op_i[0]};

  // Low-address-bit mask of a slot size: 1 -> 0, 2 -> 1, 4 -> 3.
  function automatic logic [1:0] slot_mask(logic [1:0] lg);
    return (lg == 2'd0) ? 2'd0 : (lg == 2'd1) ? 2'd1 : 2'd3;
  endfunction

endmodule
