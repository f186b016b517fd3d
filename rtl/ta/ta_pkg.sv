// Texture-cache address unit: shared types, encodings, format tables and the
// per-profile parameter table. Semantics: SPEC §1; cycle contract: docs/ta.md.

package ta_pkg;

  // ---------------------------------------------------------------------------
  // Geometry
  // ---------------------------------------------------------------------------

  localparam int unsigned NumLanes = 64;
  localparam int unsigned NumDw    = 4;                   // dword slots per lane
  localparam int unsigned NumSlots = NumLanes * NumDw;    // 256
  localparam int unsigned SlotW    = $clog2(NumSlots);    // 8
  localparam int unsigned AddrW    = 48;
  localparam int unsigned MaskW    = 128;                 // width of line_mask_o

  // ---------------------------------------------------------------------------
  // Per-profile parameters (one row per generation, selected by GFX)
  // ---------------------------------------------------------------------------

  typedef enum logic [0:0] {
    VsGfx9  = 1'b0,  // gfx9 V#: dfmt/nfmt, cache_swizzle/swizzle_en, elem_size
    VsGfx11 = 1'b1   // gfx11 V#: unified FORMAT, 2-bit swizzle_enable, oob_select
  } vsharp_layout_e;

  typedef enum logic [0:0] {
    RangeGfx9  = 1'b0,  // stride == 0 / stride != 0 rule, soffset included
    RangeGfx11 = 1'b1   // OOB_SELECT modes, payload-based, soffset excluded
  } range_rule_e;

  typedef enum logic [0:0] {
    FmtGfx9  = 1'b0,  // 4-bit dfmt (MTBUF: fmt_i[3:0])
    FmtGfx11 = 1'b1   // unified FORMAT (MTBUF: fmt_i[6:0]; V#: 6 bits)
  } fmt_table_e;

  typedef struct packed {
    logic [3:0]     line_lg;  // log2 of the texture-cache line size in bytes
    logic           wave32;   // wave32 exists (wave64_i honoured)
    vsharp_layout_e vsharp;
    range_rule_e    range;
    fmt_table_e     fmt;
  } profile_t;

  // The profile table. A new generation is a new row.
  function automatic profile_t profile_of(int unsigned gfx);
    profile_t p;
    case (gfx)
      11:      p = '{line_lg: 4'd7, wave32: 1'b1, vsharp: VsGfx11, range: RangeGfx11,
                     fmt: FmtGfx11};
      default: p = '{line_lg: 4'd6, wave32: 1'b0, vsharp: VsGfx9, range: RangeGfx9,
                     fmt: FmtGfx9};
    endcase
    return p;
  endfunction

  // ---------------------------------------------------------------------------
  // Instruction encodings (ports kind_i, op_i)
  // ---------------------------------------------------------------------------

  typedef enum logic [1:0] {
    KindMubuf    = 2'd0,  // MUBUF non-format (size from the opcode, size_i)
    KindMubufFmt = 2'd1,  // MUBUF *_FORMAT_* (format from the V#)
    KindMtbuf    = 2'd2   // MTBUF (format from the instruction, fmt_i)
  } kind_e;

  typedef enum logic [1:0] {
    OpLoad      = 2'd0,
    OpStore     = 2'd1,
    OpAtomic    = 2'd2,  // atomic without return
    OpAtomicRet = 2'd3   // atomic with return
  } op_e;

  typedef enum logic [1:0] {
    AlignDword       = 2'd0,  // low bits cleared to min(size, 4)
    AlignDwordStrict = 2'd1,  // must be aligned to min(size, 4)
    AlignStrict      = 2'd2,  // must be aligned to the access size
    AlignUnaligned   = 2'd3   // anything goes
  } align_mode_e;

  // ---------------------------------------------------------------------------
  // Format tables: element size in bytes, 0 = invalid (the access is dropped)
  // ---------------------------------------------------------------------------

  // gfx9 data format (dfmt), CLRX / SPEC §1.2.
  function automatic logic [4:0] gfx9_dfmt_bytes(logic [3:0] dfmt);
    logic [4:0] b;
    case (dfmt)
      4'd1:                          b = 5'd1;   // 8
      4'd2, 4'd3:                    b = 5'd2;   // 16, 8_8
      4'd4, 4'd5, 4'd6, 4'd7, 4'd8,
      4'd9, 4'd10:                   b = 5'd4;   // 32, 16_16, 10_11_11, 11_11_10,
                                                 // 10_10_10_2, 2_10_10_10, 8_8_8_8
      4'd11, 4'd12:                  b = 5'd8;   // 32_32, 16_16_16_16
      4'd13:                         b = 5'd12;  // 32_32_32
      4'd14:                         b = 5'd16;  // 32_32_32_32
      default:                       b = 5'd0;   // 0 invalid, 15 reserved
    endcase
    return b;
  endfunction

  // gfx11 unified FORMAT, from `llvm-mc -arch=amdgcn -mcpu=gfx1100` disassembling
  // `tbuffer_load_format_x v1, off, s[0:3], 0 format:N` for N = 0..127:
  //   0 BUF_FMT_INVALID; 1..6 8_{UNORM,SNORM,USCALED,SSCALED,UINT,SINT};
  //   7..13 16_{UNORM,SNORM,USCALED,SSCALED,UINT,SINT,FLOAT}; 14..19 8_8_*;
  //   20..22 32_{UINT,SINT,FLOAT}; 23..29 16_16_*; 30 10_11_11_FLOAT;
  //   31 11_11_10_FLOAT; 32..35 10_10_10_2_{UNORM,SNORM,UINT,SINT};
  //   36..41 2_10_10_10_*; 42..47 8_8_8_8_*; 48..50 32_32_*;
  //   51..57 16_16_16_16_*; 58..60 32_32_32_*; 61..63 32_32_32_32_*;
  //   64..127 no symbolic name (no table entry: invalid).
  function automatic logic [4:0] gfx11_fmt_bytes(logic [6:0] fmt);
    logic [4:0] b;
    if (fmt == 7'd0 || fmt >= 7'd64) begin
      b = 5'd0;
    end else if (fmt <= 7'd6) begin
      b = 5'd1;   // 8
    end else if (fmt <= 7'd19) begin
      b = 5'd2;   // 16, 8_8
    end else if (fmt <= 7'd47) begin
      b = 5'd4;   // 32, 16_16, 10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10, 8_8_8_8
    end else if (fmt <= 7'd57) begin
      b = 5'd8;   // 32_32, 16_16_16_16
    end else if (fmt <= 7'd60) begin
      b = 5'd12;  // 32_32_32
    end else begin
      b = 5'd16;  // 32_32_32_32
    end
    return b;
  endfunction

  // ---------------------------------------------------------------------------
  // Decoded instruction: everything the per-lane datapath needs, common to all
  // lanes (produced by ta_decode from the V# and the instruction inputs).
  // ---------------------------------------------------------------------------

  typedef struct packed {
    // V#
    logic [47:0] base;
    logic [13:0] stride;
    logic [31:0] num_records;
    logic        swizzle;      // swizzled addressing
    logic [2:0]  es_lg;        // log2 swizzle element size ES (1..4)
    logic [2:0]  is_lg;        // log2 index stride IS (3..6)
    logic        add_tid;
    logic [1:0]  oob_select;   // gfx11 range-check mode
    logic        type_ok;      // resource type 0 (buffer)
    // Instruction
    logic        offen;
    logic        idxen;
    logic [11:0] inst_offset;
    logic [31:0] soffset;
    logic        wave64;
    // Access shape
    logic [2:0]  nslots;       // dword slots of the access (0 = invalid format)
    logic [1:0]  slot_lg;      // log2 slot size in bytes (0, 1, 2)
    logic        aon;          // all-or-nothing range check (format ops, atomics)
    logic [4:0]  payload;      // bytes of the whole access (gfx11 all-or-nothing)
    logic [3:0]  align_mask;   // address bits that must be zero, else MEMVIOL
    logic [1:0]  clear_mask;   // address bits cleared (alignment mode DWORD)
  } inst_t;

endpackage
