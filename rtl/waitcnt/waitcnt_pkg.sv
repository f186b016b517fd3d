// Shared types and encodings of the s_waitcnt scoreboard.
// Cycle contract: docs/waitcnt.md. Architectural rules: SPEC.md section 3.

package waitcnt_pkg;

  // The sizes, counter indices, error codes and types (err_t, incr_t,
  // cnt_t), the class codes and the per-profile rows, generated from the
  // model's tables (model/src/waitcnt/svh.rs).
`include "waitcnt_enc.svh"

endpackage
