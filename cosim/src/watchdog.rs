//! Ending runs from outside the cycle loop: SIGINT/SIGTERM, `--timeout`,
//! and an RTL that stops making progress.
//!
//! The cycle loop reads one flag per cycle ([`Guard::stop`]) and publishes
//! its cycle ([`Guard::progress`]); a watchdog thread per run sets the flag
//! when the run's time is up or a termination signal arrived, and the loop
//! ends cleanly at the next cycle with everything reported.
//!
//! An RTL whose `eval()` never returns (an `initial` block with an endless
//! loop, say) never reaches that check. When the cycle has not advanced for
//! the stall limit while the thread is inside the RTL's step (or the time is
//! up and it stays there), the watchdog sends [`ABORT_SIGNAL`] to that
//! thread; its handler leaves the step through the shim (`gc_abort_jump`,
//! a `siglongjmp` back into `gc_step`), which returns "aborted", and the
//! engine reports the hang with its cycle and waveform like any other end.
//! The aborted instance is never touched again. Should the thread still not
//! come back (it was not in the RTL after all), the watchdog prints what it
//! knows and ends the process with the hang exit code.
//!
//! This keeps the per-cycle path to a load and a store of thread-local
//! atomics, with the RTL in-process; running it in a child process would
//! cost a round trip per cycle.

use crate::rtl::AbortHandle;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, Once};
use std::time::{Duration, Instant};

/// The signal that aborts a step that never returns.
pub const ABORT_SIGNAL: libc::c_int = libc::SIGUSR2;

/// Why a run was asked to stop before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// `--timeout` expired.
    Timeout,
    /// No progress within the stall limit.
    Stalled,
    /// SIGINT (2) or SIGTERM (15).
    Signal(i32),
}

impl StopReason {
    fn code(self) -> u8 {
        match self {
            StopReason::Timeout => 1,
            StopReason::Stalled => 2,
            StopReason::Signal(libc::SIGINT) => 3,
            StopReason::Signal(_) => 4,
        }
    }
    fn from_code(c: u8) -> Option<StopReason> {
        match c {
            1 => Some(StopReason::Timeout),
            2 => Some(StopReason::Stalled),
            3 => Some(StopReason::Signal(libc::SIGINT)),
            4 => Some(StopReason::Signal(libc::SIGTERM)),
            _ => None,
        }
    }
}

/// The first SIGINT/SIGTERM received (0: none).
static SIGNALLED: AtomicI32 = AtomicI32::new(0);
/// Whether a second signal ends the process at once.
static ESCALATE: AtomicBool = AtomicBool::new(true);

extern "C" fn on_stop_signal(sig: libc::c_int) {
    if SIGNALLED
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
        && ESCALATE.load(Ordering::SeqCst)
    {
        // A second signal: stop now, as the default action would.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) }
    }
}

/// Routes SIGINT and SIGTERM to [`signalled`] (a second one ends the
/// process at once with `128 + signal`). Idempotent.
pub fn catch_stop_signals() {
    ESCALATE.store(true, Ordering::SeqCst);
    install_stop_handlers();
}

/// As [`catch_stop_signals`], but further signals are ignored: for a job
/// process, which its parent may signal more than once and kills itself if
/// it must.
pub fn catch_stop_signals_quietly() {
    ESCALATE.store(false, Ordering::SeqCst);
    install_stop_handlers();
}

fn install_stop_handlers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: installs an async-signal-safe handler.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut sa.sa_mask);
                sa.sa_flags = libc::SA_RESTART;
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
        }
    });
}

/// The termination signal received, if any.
pub fn signalled() -> Option<i32> {
    match SIGNALLED.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

thread_local! {
    /// The RTL instance this thread is stepping, for the abort handler.
    static STEPPING: Cell<Option<AbortHandle>> = const { Cell::new(None) };
}

extern "C" fn on_abort_signal(_: libc::c_int) {
    if let Ok(Some(h)) = STEPPING.try_with(|c| c.get()) {
        // SAFETY: we are the stepping thread's handler; the shim checks
        // that a step of this instance is running on this thread.
        unsafe { h.jump() }
    }
}

fn install_abort_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: installs a handler that only jumps back into gc_step.
        // SA_NODEFER: the jump leaves the handler without restoring the
        // signal mask, so the signal must not be blocked while it runs.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_abort_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            sa.sa_flags = libc::SA_NODEFER;
            libc::sigaction(ABORT_SIGNAL, &sa, std::ptr::null_mut());
        }
    });
}

/// Limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock budget of the cycle loop.
    pub timeout: Option<Duration>,
    /// How long a cycle may take before the run counts as hung.
    pub stall: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: None,
            stall: Some(DEFAULT_STALL),
        }
    }
}

/// The default stall limit: no cycle of any unit takes a millisecond.
pub const DEFAULT_STALL: Duration = Duration::from_secs(60);

struct Shared {
    progress: AtomicU64,
    stop: AtomicU8,
    finished: Mutex<bool>,
    wake: Condvar,
}

/// Watches one run from a second thread. Create it on the thread that steps
/// the RTL; dropping it ends the watch.
pub struct Guard {
    shared: Arc<Shared>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// What the watchdog prints and exits with when a stuck thread cannot be
/// brought back.
pub struct LastWords {
    /// The run's name.
    pub name: String,
    /// Exit code.
    pub code: i32,
}

impl Guard {
    /// Starts watching a run stepping `rtl` on this thread.
    pub fn start(limits: Limits, rtl: AbortHandle, last: LastWords) -> Guard {
        install_abort_handler();
        STEPPING.with(|c| c.set(Some(rtl)));
        let shared = Arc::new(Shared {
            progress: AtomicU64::new(0),
            stop: AtomicU8::new(0),
            finished: Mutex::new(false),
            wake: Condvar::new(),
        });
        // SAFETY: pthread_self has no preconditions.
        let target = unsafe { libc::pthread_self() };
        let sh = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("gpucosim-watchdog".into())
            .spawn(move || watch(&sh, limits, rtl, target, &last))
            .expect("the watchdog thread starts");
        Guard {
            shared,
            thread: Mutex::new(Some(thread)),
        }
    }

    /// The cycle counter the loop publishes (relaxed stores).
    #[inline]
    pub fn progress(&self) -> &AtomicU64 {
        &self.shared.progress
    }

    /// The flag behind [`Guard::stop`] (0: go on), for a loop outside
    /// Rust that reads it between cycles (the shim's `gc_run`).
    #[inline]
    pub fn stop_flag(&self) -> &AtomicU8 {
        &self.shared.stop
    }

    /// Why the run must stop, if it must (one relaxed load).
    #[inline]
    pub fn stop(&self) -> Option<StopReason> {
        match self.shared.stop.load(Ordering::Relaxed) {
            0 => None,
            c => StopReason::from_code(c),
        }
    }
}

impl Guard {
    /// Ends the watch (the run's loop is over); idempotent.
    pub fn finish(&self) {
        *self.shared.finished.lock().expect("watchdog lock") = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.lock().expect("watchdog lock").take() {
            let _ = t.join();
        }
        STEPPING.with(|c| c.set(None));
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.finish();
    }
}

fn watch(sh: &Shared, limits: Limits, rtl: AbortHandle, target: libc::pthread_t, last: &LastWords) {
    let start = Instant::now();
    let tick = Duration::from_millis(50);
    let mut seen = sh.progress.load(Ordering::Relaxed);
    let mut since = Instant::now();
    let mut aborted_at: Option<Instant> = None;
    let mut finished = sh.finished.lock().expect("watchdog lock");
    loop {
        // A run that ended before this thread first took the lock has
        // notified nobody: look before waiting.
        if *finished {
            return;
        }
        let (f, _) = sh.wake.wait_timeout(finished, tick).expect("watchdog lock");
        finished = f;
        if *finished {
            return;
        }
        let now = Instant::now();
        let p = sh.progress.load(Ordering::Relaxed);
        if p != seen {
            seen = p;
            since = now;
        }
        let request = |r: StopReason| {
            let _ = sh
                .stop
                .compare_exchange(0, r.code(), Ordering::SeqCst, Ordering::SeqCst);
        };
        if let Some(sig) = signalled() {
            request(StopReason::Signal(sig));
        }
        if limits.timeout.is_some_and(|t| now - start >= t) {
            request(StopReason::Timeout);
        }
        let stalled = limits.stall.is_some_and(|s| now - since >= s);
        if stalled {
            request(StopReason::Stalled);
        }
        // A stop request the loop does not pick up within a second (and
        // a stall at once): the thread is stuck in a step.
        let stuck = stalled
            || (sh.stop.load(Ordering::Relaxed) != 0 && now - since >= Duration::from_secs(1));
        if stuck && aborted_at.is_none() && rtl.in_step() {
            tracing::debug!(
                "{}: the RTL's step of cycle {p} does not return; aborting it",
                last.name
            );
            aborted_at = Some(now);
            // SAFETY: signals a live thread of this process; its handler
            // only acts inside a step of `rtl`.
            unsafe { libc::pthread_kill(target, ABORT_SIGNAL) };
        }
        let grace = Duration::from_secs(5);
        let gone = match aborted_at {
            Some(t) => now - t >= grace,
            None => {
                stalled && !rtl.in_step() && now - since >= limits.stall.unwrap_or_default() + grace
            }
        };
        if gone {
            let reason = match StopReason::from_code(sh.stop.load(Ordering::Relaxed)) {
                Some(StopReason::Timeout) => "its time ran out",
                Some(StopReason::Signal(_)) => "it was told to stop",
                _ => "it stopped making progress",
            };
            eprintln!(
                "HANG in {} at cycle {}: {reason} and the simulation thread cannot be brought back; no waveform or report was written",
                last.name, p
            );
            // SAFETY: ends the process without running destructors of a
            // thread that cannot finish.
            unsafe { libc::_exit(last.code) }
        }
    }
}
