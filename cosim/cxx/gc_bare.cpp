// The bare Verilated loop `gpucosim bench` compares co-simulation against.
// gpucosim fills in the @...@ fields from the unit's port table
// (cosim/src/rtlbuild.rs): the port copies are the shim's, so both move
// exactly the same bits.
#include "V@TOP@.h"
#include "verilated.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const size_t kInWords = @IN_WORDS@;
static const size_t kOutWords = @OUT_WORDS@;
// Cycles timed at a time, their inputs read once beforehand (untimed): the
// loop measures the RTL with its inputs in cache, as in lock-step, where
// the driver has just written them, rather than the streaming of a
// recording of many megabytes from memory. gpucosim's figures (2) and (3)
// do the same (benchmark.rs, BLOCK_CYCLES, which fills this in).
static const size_t kBlock = @BLOCK@;

// Keeps the untimed reads of each block's inputs.
static volatile uint32_t sink;

// The weights of the output checksum, 2k + 1 (tb/src/run.rs,
// OutputChecksum): a table of u32s, so that each product is one
// 32 x 32 -> 64 bit multiply the compiler vectorises, as on the Rust side.
static uint32_t weights[kOutWords];

// One cycle's weighted sum of the output words. On x86-64 it is compiled
// three times, for x86-64-v4 (AVX-512), for AVX2 and for the baseline, and
// the CPU picks at load time (as OutputChecksum::fold picks per call):
// reading the outputs costs the bare loop what it costs figures (2) and (3)
// (ta's 413 words: about 20 ns a cycle with AVX-512, 33 ns with AVX2, on
// either side). GCC before 11 knows no x86-64-v4 and gets two copies.
// Written as `out[k] * (2k + 1)` in 64 bits, GCC made it a scalar loop of
// 64-bit multiplies, about four times as slow (150 ns a cycle of ta's 413
// words), which flattered every ratio to the bare loop.
// (A multiversioned function is called through its resolver, never
// inlined; Clang refuses `noinline` beside `target_clones`. Elsewhere the
// function is left out of line as the Rust side's is.)
#if defined(__x86_64__) && \
    (defined(__clang__) ? __clang_major__ >= 14 : defined(__GNUC__) && __GNUC__ >= 11)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#elif defined(__x86_64__) && !defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 6
__attribute__((target_clones("avx2", "default")))
#else
__attribute__((noinline))
#endif
uint64_t gc_weighted_sum(const uint32_t* out) {
  uint64_t sum = 0;
  for (size_t k = 0; k < kOutWords; k++) sum += static_cast<uint64_t>(out[k]) * weights[k];
  return sum;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s INPUT_WORDS_FILE [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 1;
  for (size_t k = 0; k < kOutWords; k++) weights[k] = static_cast<uint32_t>(2 * k + 1);
  std::FILE* f = std::fopen(argv[1], "rb");
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 2;
  }
  std::vector<uint32_t> data;
  uint32_t chunk[4096];
  size_t got;
  while ((got = std::fread(chunk, 4, 4096, f)) > 0) data.insert(data.end(), chunk, chunk + got);
  std::fclose(f);
  const size_t cycles = data.size() / kInWords;
  double best = 1e300;
  uint64_t checksum = 0;
  for (int r = 0; r < (repeats < 1 ? 1 : repeats); r++) {
    VerilatedContext ctx;
    ctx.randReset(0);
    V@TOP@* t = new V@TOP@(&ctx, "@TOP@");
    t->clk_i = 0;
    uint32_t out[kOutWords + 1] = {0};
    uint64_t h = 0x@SEED@ull;
    const uint32_t* in = data.data();
    uint64_t time = 0;
    double s = 0;
    for (size_t b = 0; b < cycles; b += kBlock) {
      const size_t n = cycles - b < kBlock ? cycles - b : kBlock;
      uint32_t touch = 0;
      for (size_t k = 0; k < n * kInWords; k++) touch += in[k];
      sink = sink + touch;
      auto t0 = std::chrono::steady_clock::now();
      for (size_t c = 0; c < n; c++, in += kInWords) {
@IN_COPY@        t->clk_i = 0;
        ctx.time(time);
        t->eval();
@OUT_COPY@        h = (h ^ gc_weighted_sum(out)) * 0x100000001b3ull;
        t->clk_i = 1;
        ctx.time(time + 5);
        t->eval();
        time += 10;
      }
      auto t1 = std::chrono::steady_clock::now();
      s += std::chrono::duration<double>(t1 - t0).count();
    }
    if (s < best) best = s;
    checksum = h;
    t->final();
    delete t;
  }
  std::printf("cycles=%zu best_seconds=%.9f checksum=%016llx\n", cycles, best,
              static_cast<unsigned long long>(checksum));
  return 0;
}
