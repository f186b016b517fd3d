/* The C ABI without a simulator: a model stepped on gpucosim's stimulus,
 * checked against the split eval/tick of a second model, with the coverage
 * reached. Build:
 *   cc -Idpi/include dpi/examples/step.c -Ltarget/release -lgpucosim_dpi \
 *      -Wl,-rpath,$PWD/target/release -o step
 *   ./step ta gfx9 1 10000                        (unit profile seed cycles) */
#include <gpucosim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
    fprintf(stderr, "step: %s: %s\n", what, gpucosim_last_error());
    return 2;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: step UNIT PROFILE SEED CYCLES\n");
        return 2;
    }
    const char *unit = argv[1], *profile = argv[2];
    uint64_t seed = strtoull(argv[3], NULL, 0), cycles = strtoull(argv[4], NULL, 0);
    if (gpucosim_abi_version() != GPUCOSIM_ABI_VERSION) {
        fprintf(stderr, "step: library ABI %u, header %u\n", gpucosim_abi_version(),
                GPUCOSIM_ABI_VERSION);
        return 2;
    }
    gpucosim_model *a = gpucosim_model_new(unit, profile);
    if (!a) return fail("model");
    gpucosim_model *b = gpucosim_model_new(unit, profile);
    gpucosim_stim *s = gpucosim_stim_new(unit, profile, seed, NULL);
    if (!b || !s) return fail("model or stimulus");
    size_t ni = (size_t)gpucosim_model_in_words(a), no = (size_t)gpucosim_model_out_words(a);
    uint32_t *in = calloc(ni, 4), *oa = calloc(no, 4), *ob = calloc(no, 4);
    for (uint64_t c = 0; c < cycles; c++) {
        if (gpucosim_stim_next(s, in) < 0) return fail("stimulus");
        if (gpucosim_model_step(a, in, oa) || gpucosim_model_eval(b, in, ob) ||
            gpucosim_model_tick(b, in))
            return fail("step");
        if (memcmp(oa, ob, no * 4) != 0) {
            fprintf(stderr, "step: cycle %llu: step and eval differ\n", (unsigned long long)c);
            return 1;
        }
    }
    printf("%s; %lld transactions\n", gpucosim_model_cov_summary(a),
           (long long)gpucosim_stim_txns(s));
    gpucosim_stim_free(s);
    gpucosim_model_free(a);
    gpucosim_model_free(b);
    free(in);
    free(oa);
    free(ob);
    return 0;
}
