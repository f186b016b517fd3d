// Included into Verilator's runtime (verilated.cpp) and the shim of every
// library gpucosim builds: the runtime's text output goes through
// gc_vl_printf (defined in gc_shim.cpp), which captures it per instance.
#ifndef GC_HOOKS_H
#define GC_HOOKS_H
extern "C" int gc_vl_printf(const char* fmt, ...);
#endif
