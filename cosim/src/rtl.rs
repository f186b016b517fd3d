//! The Verilated RTL, driven through the generated C-ABI shim.
//!
//! [`Rtl::step`] returns a raw status word, zero in the common case; a
//! nonzero status means the RTL printed text ([`Rtl::take_text`]) or ended
//! the simulation ([`Rtl::ended`]): `$finish`, `$stop`/`$error`/`$fatal`, a
//! Verilator runtime error, or a step aborted by the watchdog
//! ([`crate::watchdog`]).

use crate::error::{Error, Result};
use crate::rtlbuild::{layout_hash, ABI_VERSION};
use gpucosim_model::ports::PortTable;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8};

type StepFn = unsafe extern "C" fn(*mut c_void, *const u32, *mut u32) -> c_int;
type RunFn = unsafe extern "C" fn(
    *mut c_void,
    *const u32,
    *const u32,
    *mut u32,
    i64,
    u64,
    *mut u64,
    *const u8,
    *mut c_int,
) -> i64;
type CreateFn = unsafe extern "C" fn() -> *mut c_void;
type HandleFn = unsafe extern "C" fn(*mut c_void);
type HandleIntFn = unsafe extern "C" fn(*mut c_void) -> c_int;
type MessageFn = unsafe extern "C" fn(*mut c_void) -> *const c_char;
type TextFn = unsafe extern "C" fn(*mut c_void, *mut usize, *mut usize) -> *const c_char;
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type SetIntFn = unsafe extern "C" fn(*mut c_void, c_int);
type U32Fn = unsafe extern "C" fn() -> u32;
type U64Fn = unsafe extern "C" fn() -> u64;

/// Bit of a step status: the RTL printed text not yet taken.
pub const STATUS_TEXT: u32 = 1;

/// How the RTL ended the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtlEnd {
    /// `$finish`.
    Finish,
    /// `$stop`, `$error` or `$fatal`.
    Stop,
    /// A Verilator runtime error, e.g. a combinational loop that does not
    /// converge.
    Fatal,
    /// The step never returned and the watchdog aborted it.
    Aborted,
}

impl RtlEnd {
    fn from_status(status: u32) -> Option<RtlEnd> {
        match status >> 8 {
            0 => None,
            1 => Some(RtlEnd::Finish),
            2 => Some(RtlEnd::Stop),
            3 => Some(RtlEnd::Fatal),
            _ => Some(RtlEnd::Aborted),
        }
    }
}

/// The shim's entry points, copied out of the library.
#[derive(Clone, Copy)]
struct Api {
    step: StepFn,
    run: RunFn,
    destroy: HandleFn,
    in_step: HandleIntFn,
    abort_jump: HandleFn,
    message: MessageFn,
    text: TextFn,
    text_clear: HandleFn,
    trace_open: TraceOpenFn,
    trace_close: HandleFn,
    set_mutant: SetIntFn,
    activated: HandleIntFn,
    coverage_write: TraceOpenFn,
    direct_eval: U32Fn,
}

/// One instance of a Verilated unit.
pub struct Rtl {
    handle: *mut c_void,
    api: Api,
    in_words: usize,
    out_words: usize,
    /// Set once a step was aborted: the instance is then left alone (not
    /// even destroyed), its state being whatever the aborted code left.
    poisoned: bool,
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
            macro_rules! sym {
                ($name:literal) => {
                    *l.get(concat!($name, "\0").as_bytes())
                        .map_err(|e| bad(e.to_string()))?
                };
            }
            let create: CreateFn = sym!("gc_create");
            let api = Api {
                step: sym!("gc_step"),
                run: sym!("gc_run"),
                destroy: sym!("gc_destroy"),
                in_step: sym!("gc_in_step"),
                abort_jump: sym!("gc_abort_jump"),
                message: sym!("gc_message"),
                text: sym!("gc_text"),
                text_clear: sym!("gc_text_clear"),
                trace_open: sym!("gc_trace_open"),
                trace_close: sym!("gc_trace_close"),
                set_mutant: sym!("gc_set_mutant"),
                activated: sym!("gc_activated"),
                coverage_write: sym!("gc_coverage_write"),
                direct_eval: sym!("gc_direct_eval"),
            };
            let handle = create();
            if handle.is_null() {
                return Err(bad("gc_create failed".into()));
            }
            Ok(Rtl {
                handle,
                api,
                in_words: table.in_words(),
                out_words: table.out_words(),
                poisoned: false,
                _lib: l,
            })
        }
    }

    /// Selects mutant `k` of a build instrumented by `gpucosim mutate` (0:
    /// the RTL as written); other builds ignore it. Takes effect only
    /// before the first [`Rtl::step`]: the RTL reads it at time 0.
    pub fn set_mutant(&mut self, k: u32) {
        // SAFETY: the handle is live; the shim only stores the value.
        unsafe { (self.api.set_mutant)(self.handle, k as c_int) }
    }

    /// Whether the library evaluates the model by calling Verilator's root
    /// evaluation directly after the first `eval()`, skipping the per-call
    /// bookkeeping that a single-threaded model without classes leaves
    /// with nothing to do (`rtlbuild` decides from the generated C++).
    pub fn direct_eval(&self) -> bool {
        // SAFETY: the function returns a constant of the library.
        unsafe { (self.api.direct_eval)() != 0 }
    }

    /// Whether the instance can still be used: no step of it was aborted.
    pub fn usable(&self) -> bool {
        !self.poisoned
    }

    /// Whether the selected mutant of an instrumented build was activated:
    /// its edit, where the RTL evaluated it, gave a value different from
    /// the original's at least once (a statement edit: it ran). False in
    /// other builds.
    pub fn activated(&self) -> bool {
        // SAFETY: the handle is live; the shim reads a field.
        unsafe { (self.api.activated)(self.handle) != 0 }
    }

    /// Writes the RTL's code coverage counts so far to `path`, in
    /// Verilator's `coverage.dat` format. Returns false, writing nothing,
    /// if the library was built without coverage.
    pub fn coverage_write(&mut self, path: &Path) -> Result<bool> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::Input(format!("bad path {}", path.display())))?;
        // SAFETY: the handle is live and `c` outlives the call.
        let written = unsafe { (self.api.coverage_write)(self.handle, c.as_ptr()) } != 0;
        if written && !path.is_file() {
            return Err(Error::Env(format!(
                "the RTL's code coverage could not be written to {}",
                path.display()
            )));
        }
        Ok(written)
    }

    /// One clock cycle: apply `inputs`, sample `outputs`, rising edge.
    /// Returns the step status: 0, or `STATUS_TEXT` and/or an end (see
    /// [`Rtl::ended`]).
    #[inline]
    pub fn step(&mut self, inputs: &[u32], outputs: &mut [u32]) -> u32 {
        assert!(inputs.len() >= self.in_words && outputs.len() >= self.out_words);
        // SAFETY: the buffers are at least as long as the shim reads/writes
        // (checked above; the layout hash ties the shim to the table).
        let s = unsafe { (self.api.step)(self.handle, inputs.as_ptr(), outputs.as_mut_ptr()) };
        let s = s as u32;
        if RtlEnd::from_status(s) == Some(RtlEnd::Aborted) {
            self.poisoned = true;
        }
        s
    }

    /// Steps cycles in one call, the first of them cycle `first` of the
    /// run: cycle `first + k` applies the `k`th block of `inputs` and
    /// compares its outputs with the `k`th block of `expected`, until one
    /// differs or its step status is not 0, or every block is done. After
    /// each cycle it stores the cycles done in `progress` (as the engine
    /// does after a [`Rtl::step`], for the watchdog), and it goes on to the
    /// next only while `stop` is 0. The last cycle stepped has its outputs
    /// in `outputs`. Returns the cycles stepped, that last one included,
    /// and its step status.
    #[inline]
    pub fn run(
        &mut self,
        inputs: &[u32],
        expected: &[u32],
        outputs: &mut [u32],
        first: u64,
        progress: &AtomicU64,
        stop: &AtomicU8,
    ) -> (usize, u32) {
        let n = inputs.len() / self.in_words.max(1);
        assert!(
            inputs.len() == n * self.in_words
                && expected.len() >= n * self.out_words
                && outputs.len() >= self.out_words
        );
        let mut st: c_int = 0;
        // SAFETY: `inputs` and `expected` hold `n` cycles' words and
        // `outputs` one cycle's (checked above; the layout hash ties the
        // shim to the table); the shim accesses `progress` and `stop` only
        // atomically (relaxed), as their Rust owners do.
        let done = unsafe {
            (self.api.run)(
                self.handle,
                inputs.as_ptr(),
                expected.as_ptr(),
                outputs.as_mut_ptr(),
                n as i64,
                first,
                progress.as_ptr(),
                stop.as_ptr(),
                &mut st,
            )
        };
        let st = st as u32;
        if RtlEnd::from_status(st) == Some(RtlEnd::Aborted) {
            self.poisoned = true;
        }
        (done as usize, st)
    }

    /// How a step status says the simulation ended, with the shim's
    /// message (Verilator's message and where it came from).
    pub fn ended(&self, status: u32) -> Option<(RtlEnd, String)> {
        let end = RtlEnd::from_status(status)?;
        // SAFETY: handle is live; the string is NUL-terminated and copied
        // before the next call into the shim.
        let msg = unsafe { CStr::from_ptr((self.api.message)(self.handle)) }
            .to_string_lossy()
            .into_owned();
        Some((end, msg))
    }

    /// Takes the text the RTL printed since the last call (and how many
    /// bytes were dropped beyond the shim's limit).
    pub fn take_text(&mut self) -> (String, usize) {
        if self.poisoned {
            return (String::new(), 0);
        }
        let (mut len, mut dropped) = (0usize, 0usize);
        // SAFETY: handle is live; the shim returns a pointer to `len` bytes
        // valid until the clear below.
        let text = unsafe {
            let p = (self.api.text)(self.handle, &mut len, &mut dropped);
            let bytes = std::slice::from_raw_parts(p as *const u8, len);
            let t = String::from_utf8_lossy(bytes).into_owned();
            (self.api.text_clear)(self.handle);
            t
        };
        (text, dropped)
    }

    /// What the watchdog needs to abort a step of this instance from
    /// another thread (see the watchdog, `watchdog.rs`).
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            handle: self.handle as usize,
            in_step: self.api.in_step,
            abort_jump: self.api.abort_jump,
        }
    }

    /// Starts a VCD of the RTL's internal signals. Returns false if the
    /// library was built without tracing.
    pub fn trace_open(&mut self, path: &Path) -> Result<bool> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::Input(format!("bad path {}", path.display())))?;
        // SAFETY: handle is live; the string outlives the call.
        Ok(unsafe { (self.api.trace_open)(self.handle, c.as_ptr()) } != 0)
    }

    /// Flushes and closes the internal-signal VCD.
    pub fn trace_close(&mut self) {
        if !self.poisoned {
            // SAFETY: handle is live.
            unsafe { (self.api.trace_close)(self.handle) }
        }
    }
}

impl Drop for Rtl {
    fn drop(&mut self) {
        if !self.poisoned {
            // SAFETY: handle came from gc_create and is destroyed once.
            unsafe { (self.api.destroy)(self.handle) }
        }
    }
}

/// A way to abort a running step of one [`Rtl`] instance: see
/// [`crate::watchdog`].
#[derive(Clone, Copy)]
pub struct AbortHandle {
    handle: usize,
    in_step: HandleIntFn,
    abort_jump: HandleFn,
}

impl AbortHandle {
    /// Whether the instance is inside a step (callable from any thread).
    pub fn in_step(&self) -> bool {
        // SAFETY: reads one volatile int of a live instance.
        unsafe { (self.in_step)(self.handle as *mut c_void) != 0 }
    }

    /// Leaves the running step. Only for the stepping thread's handler of
    /// [`crate::watchdog::ABORT_SIGNAL`].
    ///
    /// # Safety
    /// Must run on the thread inside [`Rtl::step`] of this instance, from a
    /// signal handler that interrupted it; the shim checks both and does
    /// nothing otherwise.
    pub unsafe fn jump(&self) {
        (self.abort_jump)(self.handle as *mut c_void)
    }
}
