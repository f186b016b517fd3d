// Generated from model/src/lds (tlm.rs sizes, params.rs MAX_BANKS, isa.rs Kind, Atomic, OpInfo::decode) for the lds RTL package. Do not edit:
// regenerate with `GPUCOSIM_BLESS=1 cargo test -p gpucosim --test rtl_generated`.
  // Sizes.
  localparam int unsigned Lanes        = 64;     // LANES
  localparam int unsigned SlotsPerLane = 6;      // SLOTS: dword slots per lane
  localparam int unsigned NumSlots     = 384;    // NSLOTS = Lanes * SlotsPerLane
  localparam int unsigned PassSlots    = 192;    // PASS_SLOTS: of a 32-lane pass
  localparam int unsigned MaxBanks     = 64;     // MAX_BANKS: of any mode
  localparam int unsigned RamDwords    = 32768;  // RAM_DWORDS: the largest RAM
  localparam int unsigned RamAw        = 15;     // RAM_AW = $clog2(RamDwords)

  // What an operation does with memory.
  typedef enum logic [2:0] {
    KindInvalid = 3'd0,
    KindLoad = 3'd1,
    KindStore = 3'd2,
    KindAtomic = 3'd3,
    KindPermute = 3'd4,
    KindBpermute = 3'd5
  } kind_e;

  // 32-bit atomic operations: op_i[3:0] of an atomic (op_i[5] set, op_i[4] = return).
  localparam logic [3:0] AtomAdd = 4'd0;
  localparam logic [3:0] AtomSub = 4'd1;
  localparam logic [3:0] AtomRsub = 4'd2;
  localparam logic [3:0] AtomInc = 4'd3;
  localparam logic [3:0] AtomDec = 4'd4;
  localparam logic [3:0] AtomMinI = 4'd5;
  localparam logic [3:0] AtomMaxI = 4'd6;
  localparam logic [3:0] AtomMinU = 4'd7;
  localparam logic [3:0] AtomMaxU = 4'd8;
  localparam logic [3:0] AtomAnd = 4'd9;
  localparam logic [3:0] AtomOr = 4'd10;
  localparam logic [3:0] AtomXor = 4'd11;
  localparam logic [3:0] AtomWrxchg = 4'd12;
  localparam logic [3:0] AtomCmpst = 4'd13;

  // Everything the unit needs to know about an op_i code.
  typedef struct packed {
    kind_e      kind;
    logic [4:0] width;   // element bytes: 1, 2, 4, 8, 12, 16
    logic       two;     // read2 / write2
    logic       st64;
    logic       addtid;
    logic       signext; // signed sub-dword load
    logic       rtn;     // returns data
    logic [3:0] atom;
  } opinfo_t;

  // The op_i decode table: every code (unknown codes are KindInvalid).
  function automatic opinfo_t decode_op(input logic [5:0] op);
    opinfo_t o;
    unique case (op)
      6'd0: o = '{kind: KindLoad, width: 5'd1, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd1: o = '{kind: KindLoad, width: 5'd1, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b1, rtn: 1'b1, atom: 4'd0};
      6'd2: o = '{kind: KindLoad, width: 5'd2, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd3: o = '{kind: KindLoad, width: 5'd2, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b1, rtn: 1'b1, atom: 4'd0};
      6'd4: o = '{kind: KindLoad, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd5: o = '{kind: KindLoad, width: 5'd8, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd6: o = '{kind: KindLoad, width: 5'd4, two: 1'b1, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd7: o = '{kind: KindLoad, width: 5'd8, two: 1'b1, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd8: o = '{kind: KindLoad, width: 5'd4, two: 1'b1, st64: 1'b1, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd9: o = '{kind: KindLoad, width: 5'd8, two: 1'b1, st64: 1'b1, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd10: o = '{kind: KindLoad, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b1, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd11: o = '{kind: KindLoad, width: 5'd12, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd12: o = '{kind: KindLoad, width: 5'd16, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd13: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd14: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd15: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd16: o = '{kind: KindStore, width: 5'd1, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd17: o = '{kind: KindStore, width: 5'd2, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd18: o = '{kind: KindStore, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd19: o = '{kind: KindStore, width: 5'd8, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd20: o = '{kind: KindStore, width: 5'd4, two: 1'b1, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd21: o = '{kind: KindStore, width: 5'd8, two: 1'b1, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd22: o = '{kind: KindStore, width: 5'd4, two: 1'b1, st64: 1'b1, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd23: o = '{kind: KindStore, width: 5'd8, two: 1'b1, st64: 1'b1, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd24: o = '{kind: KindStore, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b1, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd25: o = '{kind: KindStore, width: 5'd12, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd26: o = '{kind: KindStore, width: 5'd16, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd27: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd28: o = '{kind: KindPermute, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd29: o = '{kind: KindBpermute, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd30: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd31: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd32: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd33: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd1};
      6'd34: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd2};
      6'd35: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd3};
      6'd36: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd4};
      6'd37: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd5};
      6'd38: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd6};
      6'd39: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd7};
      6'd40: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd8};
      6'd41: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd9};
      6'd42: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd10};
      6'd43: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd11};
      6'd44: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd12};
      6'd45: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd13};
      6'd46: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd47: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd48: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd0};
      6'd49: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd1};
      6'd50: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd2};
      6'd51: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd3};
      6'd52: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd4};
      6'd53: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd5};
      6'd54: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd6};
      6'd55: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd7};
      6'd56: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd8};
      6'd57: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd9};
      6'd58: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd10};
      6'd59: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd11};
      6'd60: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd12};
      6'd61: o = '{kind: KindAtomic, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b1, atom: 4'd13};
      6'd62: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      6'd63: o = '{kind: KindInvalid, width: 5'd4, two: 1'b0, st64: 1'b0, addtid: 1'b0, signext: 1'b0, rtn: 1'b0, atom: 4'd0};
      default: o = '0;
    endcase
    return o;
  endfunction
