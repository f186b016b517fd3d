// Generated from the `lds` port table in model/src by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-model --test ports_svh`.
// Do not edit: change the table and regenerate.
input  logic clk_i,
input  logic rst_ni
