// Generated from model/src/waitcnt (cycle.rs sizes, ErrCode; isa.rs sizes, Class; params.rs PARAMS; tlm.rs Class::incr, MAX_INCR) for the waitcnt RTL package. Do not edit:
// regenerate with `GPUCOSIM_BLESS=1 cargo test -p gpucosim --test rtl_generated`.
  // Sizes.
  localparam int unsigned NumWaves = 16;  // WAVES
  localparam int unsigned NumRet   = 4;   // RET_CHANNELS: return channels
  localparam int unsigned NumCnt   = 4;   // NUM_COUNTERS: VM, LGKM, EXP, VS
  localparam int unsigned CntW     = 6;   // CNT_W: widest counter of any profile
  localparam int unsigned IncrW    = 2;   // bits of MAX_INCR
  localparam int unsigned DecW     = 4;   // bits of NumRet * MAX_INCR

  // Counter indices.
  localparam int unsigned CntVm   = 0;
  localparam int unsigned CntLgkm = 1;
  localparam int unsigned CntExp  = 2;
  localparam int unsigned CntVs   = 3;

  // Protocol errors (err_o): bit code-1 of a wave's element is set for every
  // error code raised on the wave in the cycle.
  localparam int unsigned NumErr = 4;  // NUM_ERRORS
  typedef logic [NumErr-1:0] err_t;
  localparam err_t ErrNone      = 4'b0000;
  localparam err_t ErrIllegal   = 4'b0001;  // code 1
  localparam err_t ErrBusy      = 4'b0010;  // code 2
  localparam err_t ErrDual      = 4'b0100;  // code 3
  localparam err_t ErrUnderflow = 4'b1000;  // code 4

  // Per-counter increments of one instruction (each 0..MAX_INCR).
  typedef logic [NumCnt-1:0][IncrW-1:0] incr_t;
  // Per-counter values or thresholds.
  typedef logic [NumCnt-1:0][CntW-1:0] cnt_t;

  // Instruction classes (issue_class_i / ret_class_i).
  localparam logic [3:0] ClsVmemLoad = 4'd0;
  localparam logic [3:0] ClsVmemStore = 4'd1;
  localparam logic [3:0] ClsFlatLoad = 4'd2;
  localparam logic [3:0] ClsFlatStore = 4'd3;
  localparam logic [3:0] ClsLds = 4'd4;
  localparam logic [3:0] ClsGds = 4'd5;
  localparam logic [3:0] ClsSmem1 = 4'd6;
  localparam logic [3:0] ClsSmem2 = 4'd7;
  localparam logic [3:0] ClsSendmsg = 4'd8;
  localparam logic [3:0] ClsExport = 4'd9;
  localparam logic [3:0] ClsLdsParam = 4'd10;
  localparam logic [3:0] ClsLdsDirect = 4'd11;

  // Per profile: the GFX parameter selects a row; other values take gfx9's.
  function automatic logic has_vs(int unsigned gfx);
    logic r;
    case (gfx)
      default: begin  // gfx9
        r = 1'b0;
      end
      11: begin  // gfx11
        r = 1'b1;
      end
    endcase
    return r;
  endfunction

  // Maximum of every counter (0: the profile has none).
  function automatic cnt_t cnt_max(int unsigned gfx);
    cnt_t m;
    case (gfx)
      default: begin  // gfx9
        m[CntVm] = 6'd63;
        m[CntLgkm] = 6'd15;
        m[CntExp] = 6'd7;
        m[CntVs] = 6'd0;
      end
      11: begin  // gfx11
        m[CntVm] = 6'd63;
        m[CntLgkm] = 6'd63;
        m[CntExp] = 6'd7;
        m[CntVs] = 6'd63;
      end
    endcase
    return m;
  endfunction

  // Whether a class code exists on the profile.
  function automatic logic cls_legal(int unsigned gfx, logic [3:0] cls);
    logic r;
    r = 1'b0;
    case (gfx)
      default: begin  // gfx9
        unique case (cls)
          ClsVmemLoad, ClsVmemStore, ClsFlatLoad, ClsFlatStore, ClsLds, ClsGds, ClsSmem1, ClsSmem2, ClsSendmsg, ClsExport: r = 1'b1;
          default: r = 1'b0;
        endcase
      end
      11: begin  // gfx11
        unique case (cls)
          ClsVmemLoad, ClsVmemStore, ClsFlatLoad, ClsFlatStore, ClsLds, ClsGds, ClsSmem1, ClsSmem2, ClsSendmsg, ClsExport, ClsLdsParam, ClsLdsDirect: r = 1'b1;
          default: r = 1'b0;
        endcase
      end
    endcase
    return r;
  endfunction

  // What an instruction of a class adds to each counter (its return takes
  // the same away). Zero for an illegal class.
  function automatic incr_t cls_incr(int unsigned gfx, logic [3:0] cls);
    incr_t inc;
    inc = '0;
    case (gfx)
      default: begin  // gfx9
        unique case (cls)
          ClsVmemLoad: inc[CntVm] = 2'd1;  // gfx9 vmem_load
          ClsVmemStore: inc[CntVm] = 2'd1;  // gfx9 vmem_store
          ClsFlatLoad: begin inc[CntVm] = 2'd1; inc[CntLgkm] = 2'd1; end  // gfx9 flat_load
          ClsFlatStore: begin inc[CntVm] = 2'd1; inc[CntLgkm] = 2'd1; end  // gfx9 flat_store
          ClsLds: inc[CntLgkm] = 2'd1;  // gfx9 lds
          ClsGds: begin inc[CntLgkm] = 2'd1; inc[CntExp] = 2'd1; end  // gfx9 gds
          ClsSmem1: inc[CntLgkm] = 2'd1;  // gfx9 smem1
          ClsSmem2: inc[CntLgkm] = 2'd2;  // gfx9 smem2
          ClsSendmsg: inc[CntLgkm] = 2'd1;  // gfx9 sendmsg
          ClsExport: inc[CntExp] = 2'd1;  // gfx9 export
          ClsLdsParam: inc = '0;  // gfx9 lds_param
          ClsLdsDirect: inc = '0;  // gfx9 lds_direct
          default: inc = '0;
        endcase
      end
      11: begin  // gfx11
        unique case (cls)
          ClsVmemLoad: inc[CntVm] = 2'd1;  // gfx11 vmem_load
          ClsVmemStore: inc[CntVs] = 2'd1;  // gfx11 vmem_store
          ClsFlatLoad: begin inc[CntVm] = 2'd1; inc[CntLgkm] = 2'd1; end  // gfx11 flat_load
          ClsFlatStore: begin inc[CntLgkm] = 2'd1; inc[CntVs] = 2'd1; end  // gfx11 flat_store
          ClsLds: inc[CntLgkm] = 2'd1;  // gfx11 lds
          ClsGds: begin inc[CntLgkm] = 2'd1; inc[CntExp] = 2'd1; end  // gfx11 gds
          ClsSmem1: inc[CntLgkm] = 2'd1;  // gfx11 smem1
          ClsSmem2: inc[CntLgkm] = 2'd2;  // gfx11 smem2
          ClsSendmsg: inc[CntLgkm] = 2'd1;  // gfx11 sendmsg
          ClsExport: inc[CntExp] = 2'd1;  // gfx11 export
          ClsLdsParam: inc[CntExp] = 2'd1;  // gfx11 lds_param
          ClsLdsDirect: inc[CntExp] = 2'd1;  // gfx11 lds_direct
          default: inc = '0;
        endcase
      end
    endcase
    return inc;
  endfunction

  // Thresholds of an s_waitcnt (vscnt = 0) or s_waitcnt_vscnt (vscnt = 1)
  // immediate (SPEC 3.2). Unused bits are ignored.
  function automatic cnt_t decode_imm(int unsigned gfx, logic [15:0] imm, logic vscnt);
    cnt_t t;
    t = cnt_max(gfx);
    case (gfx)
      default: begin  // gfx9
        if (!vscnt) begin
          t[CntVm] = {imm[15:14], imm[3:0]};  // gfx9 vmcnt
          t[CntLgkm] = {2'b00, imm[11:8]};  // gfx9 lgkmcnt
          t[CntExp] = {3'b000, imm[6:4]};  // gfx9 expcnt
        end
      end
      11: begin  // gfx11
        if (vscnt) t[CntVs] = imm[5:0];  // gfx11 vscnt
        else begin
          t[CntVm] = imm[15:10];  // gfx11 vmcnt
          t[CntLgkm] = imm[9:4];  // gfx11 lgkmcnt
          t[CntExp] = {3'b000, imm[2:0]};  // gfx11 expcnt
        end
      end
    endcase
    return t;
  endfunction

