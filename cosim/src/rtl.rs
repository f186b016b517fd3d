//! The Verilated RTL, driven through the generated C-ABI shim.

use crate::error::{Error, Result};
use crate::rtlbuild::{layout_hash, ABI_VERSION};
use gpucosim_model::ports::PortTable;
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;

type StepFn = unsafe extern "C" fn(*mut c_void, *const u32, *mut u32);
type CreateFn = unsafe extern "C" fn() -> *mut c_void;
type DestroyFn = unsafe extern "C" fn(*mut c_void);
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type TraceCloseFn = unsafe extern "C" fn(*mut c_void);
type U32Fn = unsafe extern "C" fn() -> u32;
type U64Fn = unsafe extern "C" fn() -> u64;

/// One instance of a Verilated unit.
pub struct Rtl {
    handle: *mut c_void,
    step: StepFn,
    destroy: DestroyFn,
    trace_open: TraceOpenFn,
    trace_close: TraceCloseFn,
    in_words: usize,
    out_words: usize,
    // Keeps the code mapped; dropped last.
    _lib: libloading::Library,
}

// The Verilated model is used by one thread at a time; each instance has its
// own VerilatedContext.
unsafe impl Send for Rtl {}

impl Rtl {
    /// Loads a library built by [`crate::rtlbuild::build`] for `table`.
    pub fn load(lib: &Path, table: &PortTable) -> Result<Rtl> {
        let bad = |what: String| {
            Error::Env(format!(
                "{} is not a usable gpucosim model library: {what}",
                lib.display()
            ))
        };
        // SAFETY: the library is one this program generated and built; its
        // initialisers are Verilator's.
        let l = unsafe { libloading::Library::new(lib) }.map_err(|e| bad(e.to_string()))?;
        // SAFETY: symbol types match the generated shim (checked by ABI version).
        unsafe {
            let abi: U32Fn = *l
                .get::<U32Fn>(b"gc_abi_version\0")
                .map_err(|e| bad(e.to_string()))?;
            if abi() != ABI_VERSION {
                return Err(bad(format!("shim ABI {} (expected {ABI_VERSION})", abi())));
            }
            let lh: U64Fn = *l
                .get::<U64Fn>(b"gc_layout_hash\0")
                .map_err(|e| bad(e.to_string()))?;
            if lh() != layout_hash(table) {
                return Err(bad(
                    "its port layout differs from the unit's port table".into()
                ));
            }
            let create: CreateFn = *l.get(b"gc_create\0").map_err(|e| bad(e.to_string()))?;
            let step: StepFn = *l.get(b"gc_step\0").map_err(|e| bad(e.to_string()))?;
            let destroy: DestroyFn = *l.get(b"gc_destroy\0").map_err(|e| bad(e.to_string()))?;
            let trace_open: TraceOpenFn =
                *l.get(b"gc_trace_open\0").map_err(|e| bad(e.to_string()))?;
            let trace_close: TraceCloseFn =
                *l.get(b"gc_trace_close\0").map_err(|e| bad(e.to_string()))?;
            let handle = create();
            if handle.is_null() {
                return Err(bad("gc_create failed".into()));
            }
            Ok(Rtl {
                handle,
                step,
                destroy,
                trace_open,
                trace_close,
                in_words: table.in_words(),
                out_words: table.out_words(),
                _lib: l,
            })
        }
    }

    /// One clock cycle: apply `inputs`, sample `outputs`, rising edge.
    #[inline]
    pub fn step(&mut self, inputs: &[u32], outputs: &mut [u32]) {
        assert!(inputs.len() >= self.in_words && outputs.len() >= self.out_words);
        // SAFETY: the buffers are at least as long as the shim reads/writes
        // (checked above; the layout hash ties the shim to the table).
        unsafe { (self.step)(self.handle, inputs.as_ptr(), outputs.as_mut_ptr()) }
    }

    /// Starts a VCD of the RTL's internal signals. Returns false if the
    /// library was built without tracing.
    pub fn trace_open(&mut self, path: &Path) -> Result<bool> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::Input(format!("bad path {}", path.display())))?;
        // SAFETY: handle is live; the string outlives the call.
        Ok(unsafe { (self.trace_open)(self.handle, c.as_ptr()) } != 0)
    }

    /// Flushes and closes the internal-signal VCD.
    pub fn trace_close(&mut self) {
        // SAFETY: handle is live.
        unsafe { (self.trace_close)(self.handle) }
    }
}

impl Drop for Rtl {
    fn drop(&mut self) {
        // SAFETY: handle came from gc_create and is destroyed once.
        unsafe { (self.destroy)(self.handle) }
    }
}
