/* gpucosim's reference models and stimulus as a C ABI: libgpucosim_dpi.so
 * (cargo build --release -p gpucosim-dpi). docs/dpi.md has the details.
 *
 * Buffers hold a unit's packed ports: every port at its word offset in the
 * port table (model/src/<unit>/ports.rs), least significant word first,
 * bits above its width zero; gpucosim_model_in_words / _out_words words.
 * A SystemVerilog `bit [32*N-1:0]` passed by DPI-C (svBitVecVal*) has
 * exactly this layout.
 *
 * Errors: NULL or a negative number, with a one-line message from
 * gpucosim_last_error() (per thread). No call panics or aborts. Strings
 * returned stay valid until the next call returning a string on the same
 * thread. A handle is used by one thread at a time. */
#ifndef GPUCOSIM_H
#define GPUCOSIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUCOSIM_ABI_VERSION 1u

typedef struct gpucosim_model gpucosim_model;
typedef struct gpucosim_stim gpucosim_stim;

uint32_t gpucosim_abi_version(void);
const char *gpucosim_last_error(void);

/* A model of `unit` ("ta", "lds", "waitcnt") for `profile` ("gfx9",
 * "gfx11") in its reset state. */
gpucosim_model *gpucosim_model_new(const char *unit, const char *profile);
void gpucosim_model_free(gpucosim_model *m);
/* Back to a new model's state, coverage cleared. */
int gpucosim_model_reset(gpucosim_model *m);
int gpucosim_model_in_words(gpucosim_model *m);
int gpucosim_model_out_words(gpucosim_model *m);

/* One whole clock cycle, as gpucosim's lock-step engine runs it: the
 * outputs of the cycle for `inputs`, then the rising edge. */
int gpucosim_model_step(gpucosim_model *m, const uint32_t *inputs, uint32_t *outputs);
/* The split an event-driven simulator needs: the outputs of the current
 * cycle for `inputs` without the edge (call whenever an input changes;
 * rst_ni low resets at once), and the rising edge with the inputs just
 * before it. */
int gpucosim_model_eval(gpucosim_model *m, const uint32_t *inputs, uint32_t *outputs);
int gpucosim_model_tick(gpucosim_model *m, const uint32_t *inputs);

const char *gpucosim_model_in_flight(gpucosim_model *m);
int gpucosim_model_cov_bins(gpucosim_model *m);
const char *gpucosim_model_cov_name(gpucosim_model *m, int bin);
int64_t gpucosim_model_cov_hits(gpucosim_model *m, int bin);
/* "UNIT PROFILE: covered N/M bins; never hit: ..." */
const char *gpucosim_model_cov_summary(gpucosim_model *m);

/* gpucosim's stimulus: the inputs `gpucosim run --unit UNIT --seed SEED`
 * gives the RTL, one cycle per call, reset cycles first. `knobs`:
 * "name=value" pairs separated by commas or spaces, or NULL. */
gpucosim_stim *gpucosim_stim_new(const char *unit, const char *profile, uint64_t seed,
                                 const char *knobs);
/* 1, or 0 once the stimulus is used up and the unit idle, or -1. */
int gpucosim_stim_next(gpucosim_stim *s, uint32_t *inputs);
int64_t gpucosim_stim_txns(gpucosim_stim *s);
void gpucosim_stim_free(gpucosim_stim *s);

/* The same calls under one name per unit (a SystemVerilog import declares
 * the vectors' widths, and one C name has one SystemVerilog signature);
 * they also check the handle's unit. */
#define GPUCOSIM_PER_UNIT(u)                                                             \
    int gpucosim_##u##_eval(gpucosim_model *m, const uint32_t *inputs, uint32_t *outputs); \
    int gpucosim_##u##_tick(gpucosim_model *m, const uint32_t *inputs);                    \
    int gpucosim_##u##_step(gpucosim_model *m, const uint32_t *inputs, uint32_t *outputs); \
    int gpucosim_##u##_stim_next(gpucosim_stim *s, uint32_t *inputs);
/* Generated from the unit registry by `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. */
GPUCOSIM_PER_UNIT(ta)
GPUCOSIM_PER_UNIT(lds)
GPUCOSIM_PER_UNIT(waitcnt)
/* End of the generated per-unit declarations. */
#undef GPUCOSIM_PER_UNIT

#ifdef __cplusplus
}
#endif

#endif
