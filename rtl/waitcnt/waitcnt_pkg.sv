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

  // Instruction classes (issue_class_i / ret_class_i).
  localparam logic [3:0] ClsVmemLoad  = 4'd0;
  localparam logic [3:0] ClsVmemStore = 4'd1;
  localparam logic [3:0] ClsFlatLoad  = 4'd2;
  localparam logic [3:0] ClsFlatStore = 4'd3;
  localparam logic [3:0] ClsLds       = 4'd4;
  localparam logic [3:0] ClsGds       = 4'd5;
  localparam logic [3:0] ClsSmem1     = 4'd6;
  localparam logic [3:0] ClsSmem2     = 4'd7;
  localparam logic [3:0] ClsSendmsg   = 4'd8;
  localparam logic [3:0] ClsExport    = 4'd9;
  localparam logic [3:0] ClsLdsParam  = 4'd10;
  localparam logic [3:0] ClsLdsDirect = 4'd11;

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

  // Profile facts (the RTL's rows of model/src/profile.rs PROFILES).
  function automatic logic has_vs(int unsigned gfx);
    return gfx >= 11;
  endfunction

  // SPEC 3.1: GDS counts on EXP_CNT on every profile before gfx12 (LLVM 19).
  function automatic logic gds_on_exp(int unsigned gfx);
    return gfx < 12;
  endfunction

  function automatic logic has_lds_param(int unsigned gfx);
    return gfx >= 11;
  endfunction

  // Maximum of every counter.
  function automatic cnt_t cnt_max(int unsigned gfx);
    cnt_t m;
    m[CntVm]   = 6'd63;
    m[CntLgkm] = (gfx >= 11) ? 6'd63 : 6'd15;
    m[CntExp]  = 6'd7;
    m[CntVs]   = has_vs(gfx) ? 6'd63 : 6'd0;
    return m;
  endfunction

  // Whether a class code exists on the profile.
  function automatic logic cls_legal(int unsigned gfx, logic [3:0] cls);
    logic legal;
    unique case (cls)
      ClsLdsParam, ClsLdsDirect: legal = has_lds_param(gfx);
      4'd12, 4'd13, 4'd14, 4'd15: legal = 1'b0;
      default: legal = 1'b1;
    endcase
    return legal;
  endfunction

  // What an instruction of a class adds to each counter (its return takes
  // the same away). Zero for an illegal class.
  function automatic incr_t cls_incr(int unsigned gfx, logic [3:0] cls);
    incr_t inc;
    logic  st_vs;
    inc   = '0;
    st_vs = has_vs(gfx);
    unique case (cls)
      ClsVmemLoad: inc[CntVm] = 2'd1;
      ClsVmemStore: begin
        if (st_vs) inc[CntVs] = 2'd1;
        else       inc[CntVm] = 2'd1;
      end
      ClsFlatLoad: begin
        inc[CntVm]   = 2'd1;
        inc[CntLgkm] = 2'd1;
      end
      ClsFlatStore: begin
        if (st_vs) inc[CntVs] = 2'd1;
        else       inc[CntVm] = 2'd1;
        inc[CntLgkm] = 2'd1;
      end
      ClsLds, ClsSmem1, ClsSendmsg: inc[CntLgkm] = 2'd1;
      ClsGds: begin
        inc[CntLgkm] = 2'd1;
        inc[CntExp]  = {1'b0, gds_on_exp(gfx)};
      end
      ClsSmem2: inc[CntLgkm] = 2'd2;
      ClsExport: inc[CntExp] = 2'd1;
      ClsLdsParam, ClsLdsDirect: inc[CntExp] = {1'b0, has_lds_param(gfx)};
      default: inc = '0;
    endcase
    return inc;
  endfunction

  // Thresholds of an s_waitcnt (vscnt = 0) or s_waitcnt_vscnt (vscnt = 1)
  // immediate (SPEC 3.2). Unused bits are ignored.
  function automatic cnt_t decode_imm(int unsigned gfx, logic [15:0] imm, logic vscnt);
    cnt_t t;
    t = cnt_max(gfx);
    if (vscnt) begin
      if (has_vs(gfx)) t[CntVs] = imm[5:0];
    end else if (gfx >= 11) begin
      t[CntVm]   = imm[15:10];
      t[CntLgkm] = imm[9:4];
      t[CntExp]  = {3'b000, imm[2:0]};
    end else begin
      t[CntVm]   = {imm[15:14], imm[3:0]};
      t[CntLgkm] = {2'b00, imm[11:8]};
      t[CntExp]  = {3'b000, imm[6:4]};
    end
    return t;
  endfunction

endpackage
