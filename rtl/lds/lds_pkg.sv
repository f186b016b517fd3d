// Shared types and encodings of the LDS bank arbiter and RAM.
// The cycle contract is docs/lds.md; op codes as model/src/lds/op.rs.
package lds_pkg;

  localparam int unsigned Lanes        = 64;
  localparam int unsigned SlotsPerLane = 6;
  localparam int unsigned NumSlots     = Lanes * SlotsPerLane;
  localparam int unsigned PassSlots    = NumSlots / 2;
  localparam int unsigned MaxBanks     = 64;
  localparam int unsigned RamDwords    = 32768;
  localparam int unsigned RamAw        = 15;

  typedef enum logic [2:0] {
    KindInvalid  = 3'd0,
    KindLoad     = 3'd1,
    KindStore    = 3'd2,
    KindAtomic   = 3'd3,
    KindPermute  = 3'd4,
    KindBpermute = 3'd5
  } kind_e;

  localparam logic [3:0] AtomAdd    = 4'd0;
  localparam logic [3:0] AtomSub    = 4'd1;
  localparam logic [3:0] AtomRsub   = 4'd2;
  localparam logic [3:0] AtomInc    = 4'd3;
  localparam logic [3:0] AtomDec    = 4'd4;
  localparam logic [3:0] AtomMinI   = 4'd5;
  localparam logic [3:0] AtomMaxI   = 4'd6;
  localparam logic [3:0] AtomMinU   = 4'd7;
  localparam logic [3:0] AtomMaxU   = 4'd8;
  localparam logic [3:0] AtomAnd    = 4'd9;
  localparam logic [3:0] AtomOr     = 4'd10;
  localparam logic [3:0] AtomXor    = 4'd11;
  localparam logic [3:0] AtomWrxchg = 4'd12;
  localparam logic [3:0] AtomCmpst  = 4'd13;

  typedef struct packed {
    kind_e      kind;
    logic [3:0] width;   // element bytes: 1, 2, 4, 8
    logic       two;     // read2 / write2
    logic       st64;
    logic       addtid;
    logic       signext; // signed sub-dword load
    logic       rtn;     // returns data
    logic [3:0] atom;
  } opinfo_t;

  // One dword slot of a lane (docs/lds.md "Addresses and slots").
  typedef struct packed {
    logic              exists;
    logic              oor;
    logic [15:0]       dword;  // relative dword address (in-range slots fit 16 bits)
    logic [RamAw-1:0]  phys;
    logic [5:0]        bank;
    logic [3:0]        be;
    logic [31:0]       wdata;
    logic signed [5:0] rbase;  // result byte position of dword byte 0
  } slot_t;

  function automatic opinfo_t op_info(input kind_e kind, input logic [3:0] width,
                                      input logic two, input logic st64);
    opinfo_t o;
    o.kind    = kind;
    o.width   = width;
    o.two     = two;
    o.st64    = st64;
    o.addtid  = 1'b0;
    o.signext = 1'b0;
    o.rtn     = (kind == KindLoad) || (kind == KindPermute) || (kind == KindBpermute);
    o.atom    = 4'd0;
    return o;
  endfunction

  function automatic opinfo_t decode_op(input logic [5:0] op);
    opinfo_t o;
    o = op_info(KindInvalid, 4'd4, 1'b0, 1'b0);
    unique case (op)
      6'd0:  o = op_info(KindLoad, 4'd1, 1'b0, 1'b0);
      6'd1:  begin o = op_info(KindLoad, 4'd1, 1'b0, 1'b0); o.signext = 1'b1; end
      6'd2:  o = op_info(KindLoad, 4'd2, 1'b0, 1'b0);
      6'd3:  begin o = op_info(KindLoad, 4'd2, 1'b0, 1'b0); o.signext = 1'b1; end
      6'd4:  o = op_info(KindLoad, 4'd4, 1'b0, 1'b0);
      6'd5:  o = op_info(KindLoad, 4'd8, 1'b0, 1'b0);
      6'd6:  o = op_info(KindLoad, 4'd4, 1'b1, 1'b0);
      6'd7:  o = op_info(KindLoad, 4'd8, 1'b1, 1'b0);
      6'd8:  o = op_info(KindLoad, 4'd4, 1'b1, 1'b1);
      6'd9:  o = op_info(KindLoad, 4'd8, 1'b1, 1'b1);
      6'd10: begin o = op_info(KindLoad, 4'd4, 1'b0, 1'b0); o.addtid = 1'b1; end
      6'd16: o = op_info(KindStore, 4'd1, 1'b0, 1'b0);
      6'd17: o = op_info(KindStore, 4'd2, 1'b0, 1'b0);
      6'd18: o = op_info(KindStore, 4'd4, 1'b0, 1'b0);
      6'd19: o = op_info(KindStore, 4'd8, 1'b0, 1'b0);
      6'd20: o = op_info(KindStore, 4'd4, 1'b1, 1'b0);
      6'd21: o = op_info(KindStore, 4'd8, 1'b1, 1'b0);
      6'd22: o = op_info(KindStore, 4'd4, 1'b1, 1'b1);
      6'd23: o = op_info(KindStore, 4'd8, 1'b1, 1'b1);
      6'd24: begin o = op_info(KindStore, 4'd4, 1'b0, 1'b0); o.addtid = 1'b1; end
      6'd28: o = op_info(KindPermute, 4'd4, 1'b0, 1'b0);
      6'd29: o = op_info(KindBpermute, 4'd4, 1'b0, 1'b0);
      default: begin
        if (op[5] && (op[3:0] <= AtomCmpst)) begin
          o      = op_info(KindAtomic, 4'd4, 1'b0, 1'b0);
          o.atom = op[3:0];
          o.rtn  = op[4];
        end
      end
    endcase
    return o;
  endfunction

  // New memory value of a 32-bit atomic (SPEC 2.3). store_d0: cmpst stores
  // DATA0 and compares DATA1 (gfx11); else compares DATA0, stores DATA1.
  function automatic logic [31:0] atomic_apply(input logic [3:0] atom, input logic [31:0] mem,
                                               input logic [31:0] d0, input logic [31:0] d1,
                                               input logic store_d0);
    logic [31:0] r;
    unique case (atom)
      AtomAdd:    r = mem + d0;
      AtomSub:    r = mem - d0;
      AtomRsub:   r = d0 - mem;
      AtomInc:    r = (mem >= d0) ? 32'd0 : mem + 32'd1;
      AtomDec:    r = ((mem == 32'd0) || (mem > d0)) ? d0 : mem - 32'd1;
      AtomMinI:   r = ($signed(mem) < $signed(d0)) ? mem : d0;
      AtomMaxI:   r = ($signed(mem) > $signed(d0)) ? mem : d0;
      AtomMinU:   r = (mem < d0) ? mem : d0;
      AtomMaxU:   r = (mem > d0) ? mem : d0;
      AtomAnd:    r = mem & d0;
      AtomOr:     r = mem | d0;
      AtomXor:    r = mem ^ d0;
      AtomWrxchg: r = d0;
      AtomCmpst:  begin
        if (store_d0) r = (mem == d1) ? d0 : mem;
        else          r = (mem == d0) ? d1 : mem;
      end
      default:    r = mem;
    endcase
    return r;
  endfunction

endpackage
