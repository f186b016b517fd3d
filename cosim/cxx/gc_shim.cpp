// The C-ABI shim between gpucosim and a Verilated unit, built into the
// unit's shared library. gpucosim fills in the @...@ fields from the unit's
// port table (cosim/src/rtlbuild.rs); the rest is fixed.
//
// One gc_step call per cycle copies the packed input words into the ports,
// evaluates with the clock low, copies the output ports into the packed
// output words and applies the rising edge. Cycle n is at time 10n, its
// rising edge at 10n + 5 (the design is built with a 1 ns time unit, so
// `$time` in RTL messages is that time).
//
// What ends a simulation is reported in gc_step's result instead of ending
// the process: the library is built with VL_USER_FINISH, VL_USER_STOP and
// VL_USER_FATAL, so Verilator calls vl_finish, vl_stop and vl_fatal below.
// $finish, $stop, $error and $fatal (which end in vl_stop) let the step
// complete and then report; vl_fatal (a combinational loop that does not
// converge, a runtime error) throws out of the Verilated code. The RTL's
// text ($display, and Verilator's own messages) is captured per instance
// through VL_PRINTF. A watchdog on another thread can abort a step that
// never returns (gc_abort_jump, from a signal handler on the stepping
// thread): the instance is unusable afterwards.
#include "V@TOP@.h"
#include "verilated.h"
#ifdef GC_TRACE
#include "verilated_vcd_c.h"
#endif
#ifdef GC_COVERAGE
#include "verilated_cov.h"
#endif
#include <pthread.h>

#include <csetjmp>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "gc_eval.h"
#include "gc_hooks.h"

#if GC_DIRECT_EVAL
// Verilator's evaluation of the design's root, which V@TOP@::eval() calls
// (see evaluate below).
void V@TOP@___024root___eval(V@TOP@___024root* vlSelf);
#endif

namespace {

// Bits 8..15 of gc_step's result: what ended the simulation (sticky).
enum End : int { kRunning = 0, kFinish = 1, kStop = 2, kFatal = 3, kAborted = 4 };
// Bit 0 of gc_step's result: the RTL printed text that is not drained yet.
const int kTextPending = 1;
// Captured text kept per instance until it is drained; a runaway $display
// loop must not exhaust memory.
const size_t kTextLimit = 1u << 20;

struct FatalUnwind {};

struct Sim {
  VerilatedContext ctx;
  V@TOP@* top = nullptr;
#ifdef GC_TRACE
  VerilatedVcdC* tfp = nullptr;
#endif
  uint64_t time = 0;
  // The model was evaluated once through V@TOP@::eval(), which initialises it.
  bool evaluated = false;
  int end = kRunning;
  std::string message;
  std::string text;
  size_t text_dropped = 0;
  pthread_t thread{};
  volatile sig_atomic_t in_step = 0;
  sigjmp_buf jump;
  // The mutant selected in an instrumented build (gpucosim mutate); 0 is
  // the RTL as written.
  int mutant = 0;
  // Whether the selected mutant's edit ever changed a value where it was
  // evaluated (weak mutation), as the instrumented RTL reports through
  // gpucosim_activated().
  int activated = 0;
  // The cycle of a gc_run call being stepped (read after an abort).
  volatile int64_t run_k = 0;
  // Within a gc_run call: the expected words that the outputs of the
  // last cycle compared matched, not yet copied to the call's `out` (null
  // when `out` holds that cycle's outputs).
  const uint32_t* volatile out_equals = nullptr;
};

std::mutex g_mutex;
std::vector<Sim*> g_sims;

// The mutant of the instance stepping on this thread, read by the
// instrumented RTL through gpucosim_mutant().
thread_local int t_mutant = 0;
// The instance stepping (or being created) on this thread, for
// gpucosim_activated().
thread_local Sim* t_sim = nullptr;

// The instance stepping on this thread: Verilator's callbacks carry none.
Sim* current() {
  std::lock_guard<std::mutex> lock(g_mutex);
  const pthread_t self = pthread_self();
  for (Sim* s : g_sims) {
    if (s->in_step && pthread_equal(s->thread, self)) return s;
  }
  return nullptr;
}

std::string where(const char* filename, int linenum) {
  std::string w = filename && filename[0] ? filename : "(unknown file)";
  if (linenum > 0) w += ":" + std::to_string(linenum);
  return w;
}

void end_with(Sim* s, int kind, const std::string& message) {
  if (s->end == kRunning) {
    s->end = kind;
    s->message = message;
  }
}

// One evaluation. V@TOP@::eval() runs the root evaluation between
// per-call bookkeeping: the first call initialises the model, and every
// call deletes the class objects released meanwhile and hands on the
// messages a multithreaded model's threads queued, taking and releasing
// a mutex or two. gpucosim builds the model single-threaded, and where
// the build found that eval() does nothing else and the design has no
// classes (GC_DIRECT_EVAL, from rtlbuild.rs), that bookkeeping has
// nothing to do: every evaluation after the first calls the root
// evaluation directly.
inline void evaluate(Sim* s) {
#if GC_DIRECT_EVAL
  if (s->evaluated) {
    V@TOP@___024root___eval(s->top->rootp);
    return;
  }
#endif
  s->top->eval();
  s->evaluated = true;
}

// The first half of a cycle: the inputs applied and the model evaluated
// with the clock low, after which its outputs are the cycle's.
inline void step_low(Sim* s, const uint32_t* in) {
  V@TOP@* t = s->top;
@IN_COPY@  t->clk_i = 0;
  s->ctx.time(s->time);
  evaluate(s);
#ifdef GC_TRACE
  if (s->tfp) s->tfp->dump(s->time);
#endif
}

// The second half: the rising edge.
inline void step_high(Sim* s) {
  s->top->clk_i = 1;
  s->ctx.time(s->time + 5);
  evaluate(s);
#ifdef GC_TRACE
  if (s->tfp) s->tfp->dump(s->time + 5);
#endif
}

// The output ports into the packed words `out`.
inline void copy_out(const V@TOP@* t, uint32_t* out) {
@OUT_COPY@}

// Whether the output ports differ from the packed words `exp`: each port
// compared where Verilator keeps it with the words copy_out would write.
inline bool outputs_differ(const V@TOP@* t, const uint32_t* exp) {
@OUT_DIFFERS@  return false;
}

// One cycle (gc_step), its outputs copied to `out`.
void step_inner(Sim* s, const uint32_t* in, uint32_t* out) {
  step_low(s, in);
  copy_out(s->top, out);
  step_high(s);
}

// One cycle of gc_run, its outputs compared with `exp` where they are:
// only differing outputs are copied to `out` (a copy of every cycle's
// outputs, compared afterwards, cost ta's one-thread lock-step 1-3 %:
// docs/benchmarks.md, the optimisation log). Matching ones equal `exp`,
// which s->out_equals then names for settle_out.
bool step_compare(Sim* s, const uint32_t* in, const uint32_t* exp, uint32_t* out) {
  step_low(s, in);
  const bool differ = outputs_differ(s->top, exp);
  if (differ) {
    copy_out(s->top, out);
    s->out_equals = nullptr;
  } else {
    s->out_equals = exp;
  }
  step_high(s);
  return differ;
}

// Completes gc_run's `out` on its way out: the outputs of the last cycle
// compared, if they matched.
void settle_out(Sim* s, uint32_t* out) {
  if (const uint32_t* exp = s->out_equals) {
    std::memcpy(out, exp, @OUT_WORDS@u * sizeof(uint32_t));
    s->out_equals = nullptr;
  }
}

}  // namespace

void vl_finish(const char* filename, int linenum, const char* hier) {
  (void)hier;
  if (Sim* s = current()) end_with(s, kFinish, "$finish at " + where(filename, linenum));
}

void vl_stop(const char* filename, int linenum, const char* hier) {
  (void)hier;
  if (Sim* s = current()) {
    end_with(s, kStop, "$stop, $error or $fatal at " + where(filename, linenum));
  }
}

void vl_fatal(const char* filename, int linenum, const char* hier, const char* msg) {
  (void)hier;
  std::string m = msg ? msg : "fatal error";
  if (filename && filename[0]) m += " (" + where(filename, linenum) + ")";
  if (Sim* s = current()) {
    end_with(s, kFatal, m);
    throw FatalUnwind{};
  }
  // Outside a step (e.g. in final blocks) there is nothing to abort.
  std::fprintf(stderr, "%%Error: %s\n", m.c_str());
}

extern "C" int gc_vl_printf(const char* fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  std::string str;
  if (n >= static_cast<int>(sizeof small)) {
    str.resize(static_cast<size_t>(n));
    std::vsnprintf(&str[0], static_cast<size_t>(n) + 1, fmt, again);
  } else if (n > 0) {
    str.assign(small, static_cast<size_t>(n));
  }
  va_end(again);
  Sim* s = current();
  if (!s) {
    std::fputs(str.c_str(), stderr);
  } else if (s->text.size() + str.size() <= kTextLimit) {
    s->text += str;
  } else {
    s->text_dropped += str.size();
  }
  return n;
}

extern "C" {
// The DPI-C function an instrumented build (gpucosim mutate) reads its
// mutant select from: the mutant of the instance being stepped. Unused by
// other builds.
int gpucosim_mutant() { return t_mutant; }

// Called by an instrumented build where it evaluates the selected mutant's
// edit: `differs` is nonzero when the mutated value differs from the
// original one there (a statement edit passes 1 when it runs). Returns 1.
int gpucosim_activated(int differs) {
  if (differs && t_sim) t_sim->activated = 1;
  return 1;
}

uint32_t gc_abi_version() { return @ABI@u; }
uint64_t gc_layout_hash() { return 0x@HASH@ull; }
uint32_t gc_in_words() { return @IN_WORDS@u; }
uint32_t gc_out_words() { return @OUT_WORDS@u; }
// 1 when every evaluation after the first calls the root evaluation
// directly (see evaluate), 0 when each goes through eval().
uint32_t gc_direct_eval() { return GC_DIRECT_EVAL ? 1u : 0u; }

void* gc_create() {
  Sim* s = new Sim;
  s->ctx.randReset(0);
#ifdef GC_TRACE
  s->ctx.traceEverOn(true);
#endif
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_sims.push_back(s);
  }
  s->thread = pthread_self();
  s->in_step = 1;
  t_sim = s;
  try {
    s->top = new V@TOP@(&s->ctx, "@TOP@");
    s->top->clk_i = 0;
  } catch (const FatalUnwind&) {
  }
  s->in_step = 0;
  return s;
}

void gc_destroy(void* h) {
  Sim* s = static_cast<Sim*>(h);
  if (t_sim == s) t_sim = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (size_t i = 0; i < g_sims.size(); i++) {
      if (g_sims[i] == s) {
        g_sims.erase(g_sims.begin() + static_cast<long>(i));
        break;
      }
    }
  }
#ifdef GC_TRACE
  if (s->tfp) {
    s->tfp->close();
    delete s->tfp;
  }
#endif
  if (s->top) {
    if (s->end != kFatal) s->top->final();
    delete s->top;
  }
  delete s;
}

// One cycle. Returns kTextPending | end << 8. Once the simulation has
// ended with kFatal or kAborted the model is not evaluated again.
int gc_step(void* h, const uint32_t* in, uint32_t* out) {
  Sim* s = static_cast<Sim*>(h);
  if (s->end >= kFatal || !s->top) return (s->end ? s->end : kFatal) << 8;
  s->thread = pthread_self();
  if (sigsetjmp(s->jump, 0) != 0) {
    // Back from gc_abort_jump: the step never returned.
    s->in_step = 0;
    s->end = kAborted;
    return kAborted << 8;
  }
  s->in_step = 1;
  t_mutant = s->mutant;
  t_sim = s;
  try {
    step_inner(s, in, out);
  } catch (const FatalUnwind&) {
  }
  s->in_step = 0;
  s->time += 10;
  return (s->end << 8) | (s->text.empty() ? 0 : kTextPending);
}

// Up to `n` cycles in one call, the first of them cycle `first` of the
// run: cycle k applies the words at in + k * @IN_WORDS@ and compares its
// outputs with those at expected + k * @OUT_WORDS@. After each cycle it
// stores the cycles done (first + k + 1) in *progress for the watchdog,
// as the engine does after a gc_step, and it reads *stop: when that is not
// 0 it returns before the next cycle. It stops after the first cycle whose
// outputs differ or whose step result (as gc_step's) is not 0. The last
// cycle stepped has its outputs in `out`. Returns the cycles stepped, that
// last one included, with its step result in *result.
int64_t gc_run(void* h, const uint32_t* in, const uint32_t* expected, uint32_t* out, int64_t n,
               uint64_t first, uint64_t* progress, const uint8_t* stop, int* result) {
  Sim* s = static_cast<Sim*>(h);
  *result = 0;
  if (n <= 0) return 0;
  if (s->end >= kFatal || !s->top) {
    *result = (s->end ? s->end : kFatal) << 8;
    return 1;
  }
  s->thread = pthread_self();
  s->run_k = 0;
  s->out_equals = nullptr;
  if (sigsetjmp(s->jump, 0) != 0) {
    // Back from gc_abort_jump: cycle run_k never returned.
    s->in_step = 0;
    s->end = kAborted;
    settle_out(s, out);
    *result = kAborted << 8;
    return s->run_k + 1;
  }
  s->in_step = 1;
  t_mutant = s->mutant;
  t_sim = s;
  for (;;) {
    const int64_t k = s->run_k;
    bool differ = false;
    try {
      differ = step_compare(s, in + k * @IN_WORDS@, expected + k * @OUT_WORDS@, out);
    } catch (const FatalUnwind&) {
    }
    s->time += 10;
    __atomic_store_n(progress, first + static_cast<uint64_t>(k) + 1, __ATOMIC_RELAXED);
    const int st = (s->end << 8) | (s->text.empty() ? 0 : kTextPending);
    if (st != 0 || differ) {
      *result = st;
      break;
    }
    if (k + 1 == n || __atomic_load_n(stop, __ATOMIC_RELAXED) != 0) break;
    s->run_k = k + 1;
  }
  settle_out(s, out);
  s->in_step = 0;
  return s->run_k + 1;
}

// Selects mutant `k` of an instrumented build; call before the first step
// (the RTL reads it once, in its initial blocks).
void gc_set_mutant(void* h, int k) { static_cast<Sim*>(h)->mutant = k; }

// Whether the selected mutant was activated (see gpucosim_activated).
int gc_activated(void* h) { return static_cast<Sim*>(h)->activated; }

// Writes the RTL's code coverage counts (Verilator's coverage.dat format)
// to `path`; returns 0 if the library was built without coverage, 1 when
// written.
int gc_coverage_write(void* h, const char* path) {
#ifdef GC_COVERAGE
  Sim* s = static_cast<Sim*>(h);
  s->ctx.coveragep()->write(path);
  return 1;
#else
  (void)h;
  (void)path;
  return 0;
#endif
}

// Whether a step is running (read by the watchdog thread).
int gc_in_step(void* h) { return static_cast<Sim*>(h)->in_step; }

// Called from a signal handler on the stepping thread: leaves the running
// step, which then returns kAborted << 8. Does nothing outside a step.
void gc_abort_jump(void* h) {
  Sim* s = static_cast<Sim*>(h);
  if (s->in_step && pthread_equal(s->thread, pthread_self())) {
    s->in_step = 0;
    siglongjmp(s->jump, 1);
  }
}

// What ended the simulation (empty while it runs).
const char* gc_message(void* h) { return static_cast<Sim*>(h)->message.c_str(); }

// The RTL's text captured since the last gc_text_clear, and how many bytes
// were dropped beyond the per-instance limit.
const char* gc_text(void* h, size_t* len, size_t* dropped) {
  Sim* s = static_cast<Sim*>(h);
  *len = s->text.size();
  *dropped = s->text_dropped;
  return s->text.data();
}

void gc_text_clear(void* h) {
  Sim* s = static_cast<Sim*>(h);
  s->text.clear();
  s->text_dropped = 0;
}

// Opens a VCD of the RTL's internal signals; returns 0 if the library was
// built without tracing.
int gc_trace_open(void* h, const char* path) {
#ifdef GC_TRACE
  Sim* s = static_cast<Sim*>(h);
  if (s->tfp) return 1;
  s->tfp = new VerilatedVcdC;
  s->top->trace(s->tfp, 99);
  s->tfp->open(path);
  return 1;
#else
  (void)h;
  (void)path;
  return 0;
#endif
}

void gc_trace_close(void* h) {
#ifdef GC_TRACE
  Sim* s = static_cast<Sim*>(h);
  if (s->tfp) {
    s->tfp->close();
    delete s->tfp;
    s->tfp = nullptr;
  }
#else
  (void)h;
#endif
}
}  // extern "C"
