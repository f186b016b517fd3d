// Shared types and encodings of the LDS bank arbiter and RAM.
// The cycle contract is docs/lds.md; the sizes (lanes, slots, banks, RAM),
// op kinds, atomic codes and op_i decode table are generated from
// model/src/lds (lds_enc.svh).
package lds_pkg;

`include "lds_enc.svh"

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
