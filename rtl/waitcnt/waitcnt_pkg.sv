// Shared types and encodings of the s_waitcnt scoreboard.
// Cycle contract: docs/waitcnt.md. Architectural rules: SPEC.md section 3.

package waitcnt_pkg;

  localparam int unsigned NumWaves = 16;
  localparam int unsigned NumRet   = 4;
  localparam int unsigned NumCnt   = 4;   // VM, LGKM, EXP, VS
  localparam int unsigned CntW     = 6;   // widest counter of any profile
  localparam int unsigned DecW     = 4;   // sum of up to 4 returns of weight <= 2

  // Counter indices.
  localparam int unsigned CntVm   = 0;
  localparam int unsigned CntLgkm = 1;
  localparam int unsigned CntExp  = 2;
  localparam int unsigned CntVs   = 3;

  // Protocol errors (err_o): bit code-1 of a wave's element is set for every
  // error code raised on the wave in the cycle.
  localparam int unsigned NumErr    = 4;
  typedef logic [NumErr-1:0] err_t;
  localparam err_t ErrNone      = 4'b0000;
  localparam err_t ErrIllegal   = 4'b0001;  // code 1
  localparam err_t ErrBusy      = 4'b0010;  // code 2
  localparam err_t ErrDual      = 4'b0100;  // code 3
  localparam err_t ErrUnderflow = 4'b1000;  // code 4

  // Per-counter increments of one instruction (each 0..2).
  typedef logic [NumCnt-1:0][1:0] incr_t;
  // Per-counter values or thresholds.
  typedef logic [NumCnt-1:0][CntW-1:0] cnt_t;

  // Class codes and the per-profile rows, generated from the model's
  // tables (model/src/waitcnt/sv.rs).
`include "waitcnt_enc.svh"

endpackage
