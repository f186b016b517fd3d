// Generated from model/src/ta (isa.rs LANES, ADDR_W, Kind, Op, ALIGN_MODES, VsField, format tables; tlm.rs SLOTS, NSLOTS; params.rs PARAMS, MAX_LINE_BYTES) for the ta RTL package. Do not edit:
// regenerate with `GPUCOSIM_BLESS=1 cargo test -p gpucosim --test rtl_generated`.
  // Geometry.
  localparam int unsigned NumLanes = 64;   // LANES
  localparam int unsigned NumDw    = 4;    // SLOTS: dword slots per lane
  localparam int unsigned NumSlots = 256;  // NSLOTS = NumLanes * NumDw
  localparam int unsigned SlotW    = 8;    // $clog2(NumSlots)
  localparam int unsigned AddrW    = 48;   // ADDR_W: bits of a byte address
  localparam int unsigned MaskW    = 128;  // MAX_LINE_BYTES: width of line_mask_o

  // Instruction kind (kind_i; 3 is taken as MTBUF).
  typedef enum logic [1:0] {
    KindMubuf = 2'd0,
    KindMubufFormat = 2'd1,
    KindMtbuf = 2'd2
  } kind_e;

  // Operation (op_i).
  typedef enum logic [1:0] {
    OpLoad = 2'd0,
    OpStore = 2'd1,
    OpAtomic = 2'd2,
    OpAtomicRet = 2'd3
  } op_e;

  // SH_MEM_CONFIG.alignment_mode (align_mode_i).
  typedef enum logic [1:0] {
    AlignDword = 2'd0,
    AlignDwordStrict = 2'd1,
    AlignStrict = 2'd2,
    AlignUnaligned = 2'd3
  } align_mode_e;

  // The profile table: the GFX parameter selects a row; other values take gfx9's.
  function automatic profile_t profile_of(int unsigned gfx);
    profile_t p;
    case (gfx)
      default: begin  // gfx9
        p = '{line_lg: 4'd6, wave32: 1'b0, vsharp: VsGfx9, range: RangeGfx9, fmt: FmtGfx9};
      end
      11: begin  // gfx11
        p = '{line_lg: 4'd7, wave32: 1'b1, vsharp: VsGfx11, range: RangeGfx11, fmt: FmtGfx11};
      end
    endcase
    return p;
  endfunction

  // V# fields: lowest bit and width per profile (width 0: the profile has none).
  typedef enum logic [3:0] {
    VsBase = 4'd0,
    VsStride = 4'd1,
    VsCacheSwizzle = 4'd2,
    VsSwizzle = 4'd3,
    VsNumRecords = 4'd4,
    VsDstSel = 4'd5,
    VsNfmt = 4'd6,
    VsFormat = 4'd7,
    VsElemSize = 4'd8,
    VsIndexStride = 4'd9,
    VsAddTid = 4'd10,
    VsOobSelect = 4'd11,
    VsType = 4'd12
  } vs_field_e;

  function automatic int unsigned vs_lo(int unsigned gfx, vs_field_e f);
    int unsigned r;
    r = 0;
    case (gfx)
      default: begin  // gfx9
        unique case (f)
          VsBase: r = 0;
          VsStride: r = 48;
          VsCacheSwizzle: r = 62;
          VsSwizzle: r = 63;
          VsNumRecords: r = 64;
          VsDstSel: r = 96;
          VsNfmt: r = 108;
          VsFormat: r = 111;
          VsElemSize: r = 115;
          VsIndexStride: r = 117;
          VsAddTid: r = 119;
          VsOobSelect: r = 0;
          VsType: r = 126;
          default: r = 0;
        endcase
      end
      11: begin  // gfx11
        unique case (f)
          VsBase: r = 0;
          VsStride: r = 48;
          VsCacheSwizzle: r = 0;
          VsSwizzle: r = 62;
          VsNumRecords: r = 64;
          VsDstSel: r = 96;
          VsNfmt: r = 0;
          VsFormat: r = 108;
          VsElemSize: r = 0;
          VsIndexStride: r = 117;
          VsAddTid: r = 119;
          VsOobSelect: r = 124;
          VsType: r = 126;
          default: r = 0;
        endcase
      end
    endcase
    return r;
  endfunction

  function automatic int unsigned vs_width(int unsigned gfx, vs_field_e f);
    int unsigned r;
    r = 0;
    case (gfx)
      default: begin  // gfx9
        unique case (f)
          VsBase: r = 48;
          VsStride: r = 14;
          VsCacheSwizzle: r = 1;
          VsSwizzle: r = 1;
          VsNumRecords: r = 32;
          VsDstSel: r = 12;
          VsNfmt: r = 3;
          VsFormat: r = 4;
          VsElemSize: r = 2;
          VsIndexStride: r = 2;
          VsAddTid: r = 1;
          VsOobSelect: r = 0;
          VsType: r = 2;
          default: r = 0;
        endcase
      end
      11: begin  // gfx11
        unique case (f)
          VsBase: r = 48;
          VsStride: r = 14;
          VsCacheSwizzle: r = 0;
          VsSwizzle: r = 2;
          VsNumRecords: r = 32;
          VsDstSel: r = 12;
          VsNfmt: r = 0;
          VsFormat: r = 6;
          VsElemSize: r = 0;
          VsIndexStride: r = 2;
          VsAddTid: r = 1;
          VsOobSelect: r = 2;
          VsType: r = 2;
          default: r = 0;
        endcase
      end
    endcase
    return r;
  endfunction

  // gfx9 data format (dfmt): element size in bytes, 0 = invalid or reserved.
  function automatic logic [4:0] gfx9_dfmt_bytes(logic [3:0] dfmt);
    logic [4:0] b;
    unique case (dfmt)
      4'd0, 4'd15: b = 5'd0;
      4'd1: b = 5'd1;
      4'd2, 4'd3: b = 5'd2;
      4'd4, 4'd5, 4'd6, 4'd7, 4'd8, 4'd9, 4'd10: b = 5'd4;
      4'd11, 4'd12: b = 5'd8;
      4'd13: b = 5'd12;
      4'd14: b = 5'd16;
      default: b = 5'd0;
    endcase
    return b;
  endfunction

  // gfx11 unified FORMAT: element size in bytes, 0 = invalid (0, and 64..127,
  // which have no symbolic name).
  function automatic logic [4:0] gfx11_fmt_bytes(logic [6:0] fmt);
    logic [4:0] b;
    unique case (fmt)
      7'd0, 7'd64, 7'd65, 7'd66, 7'd67, 7'd68, 7'd69, 7'd70,
        7'd71, 7'd72, 7'd73, 7'd74, 7'd75, 7'd76, 7'd77, 7'd78,
        7'd79, 7'd80, 7'd81, 7'd82, 7'd83, 7'd84, 7'd85, 7'd86,
        7'd87, 7'd88, 7'd89, 7'd90, 7'd91, 7'd92, 7'd93, 7'd94,
        7'd95, 7'd96, 7'd97, 7'd98, 7'd99, 7'd100, 7'd101, 7'd102,
        7'd103, 7'd104, 7'd105, 7'd106, 7'd107, 7'd108, 7'd109, 7'd110,
        7'd111, 7'd112, 7'd113, 7'd114, 7'd115, 7'd116, 7'd117, 7'd118,
        7'd119, 7'd120, 7'd121, 7'd122, 7'd123, 7'd124, 7'd125, 7'd126,
        7'd127: b = 5'd0;
      7'd1, 7'd2, 7'd3, 7'd4, 7'd5, 7'd6: b = 5'd1;
      7'd7, 7'd8, 7'd9, 7'd10, 7'd11, 7'd12, 7'd13, 7'd14,
        7'd15, 7'd16, 7'd17, 7'd18, 7'd19: b = 5'd2;
      7'd20, 7'd21, 7'd22, 7'd23, 7'd24, 7'd25, 7'd26, 7'd27,
        7'd28, 7'd29, 7'd30, 7'd31, 7'd32, 7'd33, 7'd34, 7'd35,
        7'd36, 7'd37, 7'd38, 7'd39, 7'd40, 7'd41, 7'd42, 7'd43,
        7'd44, 7'd45, 7'd46, 7'd47: b = 5'd4;
      7'd48, 7'd49, 7'd50, 7'd51, 7'd52, 7'd53, 7'd54, 7'd55,
        7'd56, 7'd57: b = 5'd8;
      7'd58, 7'd59, 7'd60: b = 5'd12;
      7'd61, 7'd62, 7'd63: b = 5'd16;
      default: b = 5'd0;
    endcase
    return b;
  endfunction
