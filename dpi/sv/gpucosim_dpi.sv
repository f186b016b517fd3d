// Generated from the port tables by
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.
//
// The DPI-C imports of libgpucosim_dpi (dpi/include/gpucosim.h): gpucosim's
// reference models and stimulus. Each unit's packed ports are one bit
// vector of 32-bit words, every port at its word offset (the port table in
// model/src/<unit>/ports.rs), passed as svBitVecVal*.
package gpucosim_dpi;

  import "DPI-C" function int unsigned gpucosim_abi_version();
  import "DPI-C" function string gpucosim_last_error();
  import "DPI-C" function chandle gpucosim_model_new(input string unit, input string profile);
  import "DPI-C" function void gpucosim_model_free(input chandle model);
  import "DPI-C" function int gpucosim_model_reset(input chandle model);
  import "DPI-C" function string gpucosim_model_in_flight(input chandle model);
  import "DPI-C" function int gpucosim_model_cov_bins(input chandle model);
  import "DPI-C" function string gpucosim_model_cov_name(input chandle model, input int i);
  import "DPI-C" function longint gpucosim_model_cov_hits(input chandle model, input int i);
  import "DPI-C" function string gpucosim_model_cov_summary(input chandle model);
  import "DPI-C" function chandle gpucosim_stim_new(input string unit, input string profile,
                                                      input longint unsigned seed, input string knobs);
  import "DPI-C" function longint gpucosim_stim_txns(input chandle stim);
  import "DPI-C" function void gpucosim_stim_free(input chandle stim);

  // ta: the packed ports of ta_top.
  localparam int unsigned TaInBits = 4704;
  localparam int unsigned TaOutBits = 13216;
  import "DPI-C" function int gpucosim_ta_eval(input chandle model, input bit [TaInBits-1:0] inputs,
                                     output bit [TaOutBits-1:0] outputs);
  import "DPI-C" function int gpucosim_ta_tick(input chandle model, input bit [TaInBits-1:0] inputs);
  import "DPI-C" function int gpucosim_ta_step(input chandle model, input bit [TaInBits-1:0] inputs,
                                     output bit [TaOutBits-1:0] outputs);
  import "DPI-C" function int gpucosim_ta_stim_next(input chandle stim, output bit [TaInBits-1:0] inputs);

  // lds: the packed ports of lds_top.
  localparam int unsigned LdsInBits = 10656;
  localparam int unsigned LdsOutBits = 9024;
  import "DPI-C" function int gpucosim_lds_eval(input chandle model, input bit [LdsInBits-1:0] inputs,
                                     output bit [LdsOutBits-1:0] outputs);
  import "DPI-C" function int gpucosim_lds_tick(input chandle model, input bit [LdsInBits-1:0] inputs);
  import "DPI-C" function int gpucosim_lds_step(input chandle model, input bit [LdsInBits-1:0] inputs,
                                     output bit [LdsOutBits-1:0] outputs);
  import "DPI-C" function int gpucosim_lds_stim_next(input chandle stim, output bit [LdsInBits-1:0] inputs);

  // waitcnt: the packed ports of waitcnt_top.
  localparam int unsigned WaitcntInBits = 352;
  localparam int unsigned WaitcntOutBits = 544;
  import "DPI-C" function int gpucosim_waitcnt_eval(input chandle model, input bit [WaitcntInBits-1:0] inputs,
                                     output bit [WaitcntOutBits-1:0] outputs);
  import "DPI-C" function int gpucosim_waitcnt_tick(input chandle model, input bit [WaitcntInBits-1:0] inputs);
  import "DPI-C" function int gpucosim_waitcnt_step(input chandle model, input bit [WaitcntInBits-1:0] inputs,
                                     output bit [WaitcntOutBits-1:0] outputs);
  import "DPI-C" function int gpucosim_waitcnt_stim_next(input chandle stim, output bit [WaitcntInBits-1:0] inputs);

endpackage
