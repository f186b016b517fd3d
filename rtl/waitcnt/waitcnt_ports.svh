// Generated from the `waitcnt` port table in model/src by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim --test rtl_generated`.
// Do not edit: change the table and regenerate.
input  logic clk_i,
input  logic rst_ni,
input  logic issue_valid_i,
input  logic [3:0] issue_wave_i,
input  logic [3:0] issue_class_i,
input  logic [3:0] ret_valid_i,
input  logic [3:0][3:0] ret_wave_i,
input  logic [3:0][3:0] ret_class_i,
input  logic wait_valid_i,
input  logic [3:0] wait_wave_i,
input  logic wait_vscnt_i,
input  logic [15:0] wait_imm_i,
output logic issue_ack_o,
output logic [3:0] issue_sat_o,
output logic [15:0][5:0] vm_cnt_o,
output logic [15:0][5:0] lgkm_cnt_o,
output logic [15:0][2:0] exp_cnt_o,
output logic [15:0][5:0] vs_cnt_o,
output logic [15:0] stall_o,
output logic [15:0] release_o,
output logic [15:0][3:0] err_o
