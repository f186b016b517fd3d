//! The C ABI (`include/gpucosim.h`): [`Model`] and [`Stim`] behind opaque
//! handles, callable from C, C++ and SystemVerilog DPI-C (`chandle`).
//!
//! No panic crosses the boundary: every function catches them. A function
//! that fails returns `NULL` or a negative number and leaves a one-line
//! message for [`gpucosim_last_error`] (per thread). Strings returned stay
//! valid until the next call returning a string on the same thread.
//!
//! Word buffers hold the unit's packed ports: `gpucosim_model_in_words`
//! and `gpucosim_model_out_words` words (`uint32_t`, a SystemVerilog
//! `bit [32*N-1:0]` passed as `svBitVecVal*`). The `gpucosim_<unit>_*`
//! functions are the same calls under one name per unit, because a
//! SystemVerilog import declares the vectors' widths and one C name may
//! have only one SystemVerilog signature; they also check that the handle
//! is a model of that unit.

use crate::{Model, Stim};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Version of this ABI (`GPUCOSIM_ABI_VERSION` in the header).
pub const ABI_VERSION: u32 = 1;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    static RETURNED: RefCell<CString> = RefCell::new(CString::default());
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

fn set_error(msg: &str) {
    LAST_ERROR.with(|e| *e.borrow_mut() = c_string(msg));
}

/// Hands a string to the caller (valid until the next string returned).
fn give(s: &str) -> *const c_char {
    RETURNED.with(|r| {
        *r.borrow_mut() = c_string(s);
        r.borrow().as_ptr()
    })
}

/// Runs `f`, turning an error or a panic into `fail` and a message.
fn guard<T>(fail: T, what: &str, f: impl FnOnce() -> Result<T, String>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            set_error(&format!("{what}: {e}"));
            fail
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            set_error(&format!(
                "{what}: internal error (please report): {}",
                msg.lines().next().unwrap_or("")
            ));
            fail
        }
    }
}

unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| format!("{what} is not UTF-8"))
}

unsafe fn model<'a>(m: *mut Model) -> Result<&'a mut Model, String> {
    m.as_mut()
        .ok_or_else(|| "the model handle is NULL (was gpucosim_model_new checked?)".into())
}

unsafe fn stim<'a>(s: *mut Stim) -> Result<&'a mut Stim, String> {
    s.as_mut()
        .ok_or_else(|| "the stimulus handle is NULL (was gpucosim_stim_new checked?)".into())
}

unsafe fn words<'a>(p: *const u32, n: usize, what: &str) -> Result<&'a [u32], String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    Ok(std::slice::from_raw_parts(p, n))
}

unsafe fn words_mut<'a>(p: *mut u32, n: usize, what: &str) -> Result<&'a mut [u32], String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    Ok(std::slice::from_raw_parts_mut(p, n))
}

/// The ABI version the library implements.
#[no_mangle]
pub extern "C" fn gpucosim_abi_version() -> u32 {
    ABI_VERSION
}

/// The message of the last failed call on this thread ("" if none).
#[no_mangle]
pub extern "C" fn gpucosim_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A model of `unit` for `profile` in its reset state; NULL on error.
///
/// # Safety
/// `unit` and `profile` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_new(
    unit: *const c_char,
    profile: *const c_char,
) -> *mut Model {
    guard(std::ptr::null_mut(), "gpucosim_model_new", || {
        let m = Model::new(text(unit, "unit")?, text(profile, "profile")?)?;
        Ok(Box::into_raw(Box::new(m)))
    })
}

/// Frees a model (NULL is ignored).
///
/// # Safety
/// `m` comes from [`gpucosim_model_new`] and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_free(m: *mut Model) {
    if !m.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(m))));
    }
}

/// Back to the state of a new model, coverage cleared. 0, or -1.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_reset(m: *mut Model) -> c_int {
    guard(-1, "gpucosim_model_reset", || {
        model(m)?.reset();
        Ok(0)
    })
}

/// Words of the packed inputs, or -1.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_in_words(m: *mut Model) -> c_int {
    guard(-1, "gpucosim_model_in_words", || {
        Ok(model(m)?.table().in_words() as c_int)
    })
}

/// Words of the packed outputs, or -1.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_out_words(m: *mut Model) -> c_int {
    guard(-1, "gpucosim_model_out_words", || {
        Ok(model(m)?.table().out_words() as c_int)
    })
}

/// Which entry point a call came through, for messages and the unit check.
struct Call {
    name: &'static str,
    unit: Option<&'static str>,
}

impl Call {
    unsafe fn model<'a>(&self, m: *mut Model) -> Result<&'a mut Model, String> {
        let m = model(m)?;
        match self.unit {
            Some(u) if u != m.unit() => Err(format!(
                "the handle is a model of unit {}, not {u}",
                m.unit()
            )),
            _ => Ok(m),
        }
    }
    unsafe fn stim<'a>(&self, s: *mut Stim) -> Result<&'a mut Stim, String> {
        let s = stim(s)?;
        match self.unit {
            Some(u) if u != s.table().unit => Err(format!(
                "the handle is a stimulus of unit {}, not {u}",
                s.table().unit
            )),
            _ => Ok(s),
        }
    }
}

unsafe fn step(c: Call, m: *mut Model, inp: *const u32, out: *mut u32) -> c_int {
    guard(-1, c.name, || {
        let m = c.model(m)?;
        let t = m.table();
        let inp = words(inp, t.in_words(), "the input buffer")?;
        let out = words_mut(out, t.out_words(), "the output buffer")?;
        m.step(inp, out).map(|_| 0)
    })
}

unsafe fn eval(c: Call, m: *mut Model, inp: *const u32, out: *mut u32) -> c_int {
    guard(-1, c.name, || {
        let m = c.model(m)?;
        let t = m.table();
        let inp = words(inp, t.in_words(), "the input buffer")?;
        let out = words_mut(out, t.out_words(), "the output buffer")?;
        m.eval(inp, out).map(|_| 0)
    })
}

unsafe fn tick(c: Call, m: *mut Model, inp: *const u32) -> c_int {
    guard(-1, c.name, || {
        let m = c.model(m)?;
        let inp = words(inp, m.table().in_words(), "the input buffer")?;
        m.tick(inp).map(|_| 0)
    })
}

unsafe fn stim_next(c: Call, s: *mut Stim, inp: *mut u32) -> c_int {
    guard(-1, c.name, || {
        let s = c.stim(s)?;
        let inp = words_mut(inp, s.table().in_words(), "the input buffer")?;
        s.next(inp).map(c_int::from)
    })
}

/// One whole cycle (the lock-step engine's): the outputs of the cycle for
/// `inputs` into `outputs`, then the rising edge. 0, or -1.
///
/// # Safety
/// `m` is a live model handle; the buffers hold the unit's words.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_step(
    m: *mut Model,
    inputs: *const u32,
    outputs: *mut u32,
) -> c_int {
    let c = Call {
        name: "gpucosim_model_step",
        unit: None,
    };
    step(c, m, inputs, outputs)
}

/// The outputs of the current cycle for `inputs`, without the edge (call
/// it whenever an input changes). 0, or -1.
///
/// # Safety
/// As [`gpucosim_model_step`].
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_eval(
    m: *mut Model,
    inputs: *const u32,
    outputs: *mut u32,
) -> c_int {
    let c = Call {
        name: "gpucosim_model_eval",
        unit: None,
    };
    eval(c, m, inputs, outputs)
}

/// The rising edge with `inputs`, the inputs just before it. 0, or -1.
///
/// # Safety
/// As [`gpucosim_model_step`].
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_tick(m: *mut Model, inputs: *const u32) -> c_int {
    let c = Call {
        name: "gpucosim_model_tick",
        unit: None,
    };
    tick(c, m, inputs)
}

/// A one-line description of what is in flight; NULL on error.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_in_flight(m: *mut Model) -> *const c_char {
    guard(std::ptr::null(), "gpucosim_model_in_flight", || {
        Ok(give(&model(m)?.in_flight()))
    })
}

/// Number of coverage bins, or -1.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_cov_bins(m: *mut Model) -> c_int {
    guard(-1, "gpucosim_model_cov_bins", || {
        Ok(model(m)?.coverage().names.len() as c_int)
    })
}

/// The name of coverage bin `i`; NULL on error.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_cov_name(m: *mut Model, i: c_int) -> *const c_char {
    guard(std::ptr::null(), "gpucosim_model_cov_name", || {
        let c = model(m)?.coverage();
        let name = usize::try_from(i)
            .ok()
            .and_then(|i| c.names.get(i))
            .ok_or_else(|| format!("no bin {i} (the unit has {})", c.names.len()))?;
        Ok(give(name))
    })
}

/// The hits of coverage bin `i`, or -1.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_cov_hits(m: *mut Model, i: c_int) -> i64 {
    guard(-1, "gpucosim_model_cov_hits", || {
        let c = model(m)?.coverage();
        usize::try_from(i)
            .ok()
            .and_then(|i| c.hits.get(i))
            .map(|&h| h.min(i64::MAX as u64) as i64)
            .ok_or_else(|| format!("no bin {i} (the unit has {})", c.names.len()))
    })
}

/// `UNIT PROFILE: covered N/M bins; never hit: …`; NULL on error.
///
/// # Safety
/// `m` is a live model handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_model_cov_summary(m: *mut Model) -> *const c_char {
    guard(std::ptr::null(), "gpucosim_model_cov_summary", || {
        Ok(give(&model(m)?.coverage_summary()))
    })
}

/// gpucosim's stimulus for `unit`, `profile` and `seed` (`knobs`:
/// `name=value` pairs separated by spaces or commas, "" or NULL for the
/// defaults); NULL on error.
///
/// # Safety
/// The strings are NUL-terminated (`knobs` may be NULL).
#[no_mangle]
pub unsafe extern "C" fn gpucosim_stim_new(
    unit: *const c_char,
    profile: *const c_char,
    seed: u64,
    knobs: *const c_char,
) -> *mut Stim {
    guard(std::ptr::null_mut(), "gpucosim_stim_new", || {
        let knobs = if knobs.is_null() {
            ""
        } else {
            text(knobs, "knobs")?
        };
        let s = Stim::new(text(unit, "unit")?, text(profile, "profile")?, seed, knobs)?;
        Ok(Box::into_raw(Box::new(s)))
    })
}

/// The inputs of the next cycle into `inputs`: 1, or 0 once the stimulus is
/// used up and the unit idle, or -1.
///
/// # Safety
/// `s` is a live stimulus handle; `inputs` holds the unit's input words.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_stim_next(s: *mut Stim, inputs: *mut u32) -> c_int {
    let c = Call {
        name: "gpucosim_stim_next",
        unit: None,
    };
    stim_next(c, s, inputs)
}

/// Transactions the stimulus has used, or -1.
///
/// # Safety
/// `s` is a live stimulus handle or NULL.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_stim_txns(s: *mut Stim) -> i64 {
    guard(-1, "gpucosim_stim_txns", || Ok(stim(s)?.txns() as i64))
}

/// Frees a stimulus (NULL is ignored).
///
/// # Safety
/// `s` comes from [`gpucosim_stim_new`] and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn gpucosim_stim_free(s: *mut Stim) {
    if !s.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(s))));
    }
}

/// The per-unit entry points of every registered unit (from the registry,
/// `gpucosim_tb::units!`): `gpucosim_<unit>_eval`, `_tick`, `_step` and
/// `_stim_next`, each in the unit's module here.
macro_rules! per_unit {
    ([] $($unit:ident => $Tb:ident,)*) => {
        /// The units with per-unit entry points, and their names.
        pub const PER_UNIT: &[(&str, [&str; 4])] = &[$((
            stringify!($unit),
            [
                concat!("gpucosim_", stringify!($unit), "_eval"),
                concat!("gpucosim_", stringify!($unit), "_tick"),
                concat!("gpucosim_", stringify!($unit), "_step"),
                concat!("gpucosim_", stringify!($unit), "_stim_next"),
            ],
        )),*];
        $(
            /// The per-unit entry points of this unit.
            pub mod $unit {
                use super::*;

                /// [`gpucosim_model_eval`] for this unit's models.
                ///
                /// # Safety
                /// As [`gpucosim_model_step`].
                #[export_name = concat!("gpucosim_", stringify!($unit), "_eval")]
                pub unsafe extern "C" fn eval(m: *mut Model, inputs: *const u32, outputs: *mut u32) -> c_int {
                    let name = concat!("gpucosim_", stringify!($unit), "_eval");
                    super::eval(Call { name, unit: Some(stringify!($unit)) }, m, inputs, outputs)
                }
                /// [`gpucosim_model_tick`] for this unit's models.
                ///
                /// # Safety
                /// As [`gpucosim_model_step`].
                #[export_name = concat!("gpucosim_", stringify!($unit), "_tick")]
                pub unsafe extern "C" fn tick(m: *mut Model, inputs: *const u32) -> c_int {
                    let name = concat!("gpucosim_", stringify!($unit), "_tick");
                    super::tick(Call { name, unit: Some(stringify!($unit)) }, m, inputs)
                }
                /// [`gpucosim_model_step`] for this unit's models.
                ///
                /// # Safety
                /// As [`gpucosim_model_step`].
                #[export_name = concat!("gpucosim_", stringify!($unit), "_step")]
                pub unsafe extern "C" fn step(m: *mut Model, inputs: *const u32, outputs: *mut u32) -> c_int {
                    let name = concat!("gpucosim_", stringify!($unit), "_step");
                    super::step(Call { name, unit: Some(stringify!($unit)) }, m, inputs, outputs)
                }
                /// [`gpucosim_stim_next`] for this unit's stimuli.
                ///
                /// # Safety
                /// As [`gpucosim_stim_next`].
                #[export_name = concat!("gpucosim_", stringify!($unit), "_stim_next")]
                pub unsafe extern "C" fn stim_next(s: *mut Stim, inputs: *mut u32) -> c_int {
                    let name = concat!("gpucosim_", stringify!($unit), "_stim_next");
                    super::stim_next(Call { name, unit: Some(stringify!($unit)) }, s, inputs)
                }
            }
        )*
    };
}

gpucosim_tb::units!(@local per_unit []);

/// The C name of a per-unit entry point: `gpucosim_<unit>_<what>`.
pub fn per_unit_name(unit: &str, what: &str) -> String {
    format!("gpucosim_{unit}_{what}")
}
