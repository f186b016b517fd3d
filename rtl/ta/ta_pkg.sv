// Texture-cache address unit: shared types, encodings, format tables and the
// per-profile parameter table. Semantics: SPEC §1; cycle contract: docs/ta.md.

package ta_pkg;

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

  // The geometry (lanes, dword slots, address and line-mask widths), the
  // request encodings, the profile table (a new generation is a new row of
  // model/src/ta/params.rs PARAMS), the V# field positions and the format
  // tables, generated from the model's tables (model/src/ta/svh.rs).
`include "ta_enc.svh"

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
