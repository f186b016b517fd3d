//! The `waitcnt` transaction: an instruction of one wave, a pause, or an
//! injected protocol error; and its simpler variants for shrinking.

use gpucosim_model::waitcnt::Class;
use serde::{Deserialize, Serialize};

/// One transaction: an instruction of one wave, a pause, or an injected
/// protocol error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WaitcntTxn {
    /// `count` instructions of `class` issued back to back by `wave`; each
    /// returns `latency` cycles after it is accepted (later if an older
    /// instruction of its ordering domain has not returned yet).
    Issue {
        /// Wave (0..15).
        wave: u8,
        /// Instruction class.
        class: Class,
        /// Cycles from acceptance to the return (at least 1).
        latency: u16,
        /// Number of instructions in the burst (at least 1).
        count: u8,
    },
    /// `s_waitcnt imm` (or `s_waitcnt_vscnt null, imm` when `vscnt`).
    Wait {
        /// Wave (0..15).
        wave: u8,
        /// The 16-bit immediate.
        imm: u16,
        /// `s_waitcnt_vscnt` (gfx11).
        vscnt: bool,
    },
    /// The sequencer offers nothing for `cycles` cycles (returns go on).
    Idle {
        /// Cycles of pause (at least 1).
        cycles: u8,
    },
    /// Injected error: a return event of class code `code` (0..15) for
    /// `wave` that the memory system never issued.
    BadReturn {
        /// Wave (0..15).
        wave: u8,
        /// Class code (12..15 are illegal everywhere).
        code: u8,
        /// A second injected return of the same wave in the same cycle, of
        /// this class code (with an illegal `code`: an illegal return
        /// meeting an underflow of its wave).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        also: Option<u8>,
    },
    /// Injected error: `wave` executes `s_waitcnt 0` (all counters), then an
    /// issue of class code `code` is offered while it waits (a `busy` error),
    /// at once if the code is illegal, or 64 cycles after the transaction was
    /// taken whatever the wave's state (then an ordinary issue that returns
    /// after one cycle).
    BadIssue {
        /// Wave (0..15).
        wave: u8,
        /// Class code.
        code: u8,
    },
    /// Injected error: an issue of class code `code` and an `s_waitcnt imm`
    /// (`s_waitcnt_vscnt null, imm` when `vscnt`) offered to `wave` in the
    /// same cycle (a `dual` error; both are ignored). An illegal code, or
    /// `vscnt` on a profile without VS_CNT, adds `illegal`.
    BadDual {
        /// Wave (0..15).
        wave: u8,
        /// Class code of the issue (12..15 are illegal everywhere).
        code: u8,
        /// Immediate of the wait.
        imm: u16,
        /// The wait is `s_waitcnt_vscnt`.
        vscnt: bool,
        /// The wave first executes `s_waitcnt 0` (all counters) and the
        /// pair is offered in the next cycle, meeting the wave waiting if
        /// a counter was not 0 (`busy` on both sides); otherwise the pair
        /// is offered while the wave does not wait.
        busy: bool,
    },
    /// Injected error: `wave` executes `s_waitcnt 0` (all counters), and in
    /// the next cycle the wait `imm` (`s_waitcnt_vscnt null, imm` when
    /// `vscnt`) is offered: a `busy` error if the wave waits (`illegal` as
    /// well for `vscnt` on a profile without VS_CNT), else an ordinary wait.
    BadWait {
        /// Wave (0..15).
        wave: u8,
        /// Immediate of the second wait.
        imm: u16,
        /// The second wait is `s_waitcnt_vscnt`.
        vscnt: bool,
    },
}

/// Simpler variants of a transaction, simplest first.
pub fn simplify(txn: &WaitcntTxn) -> Vec<WaitcntTxn> {
    let mut v = Vec::new();
    match *txn {
        WaitcntTxn::Issue {
            wave,
            class,
            latency,
            count,
        } => {
            if count > 1 {
                v.push(WaitcntTxn::Issue {
                    wave,
                    class,
                    latency,
                    count: 1,
                });
                v.push(WaitcntTxn::Issue {
                    wave,
                    class,
                    latency,
                    count: count / 2,
                });
            }
            if latency > 1 {
                v.push(WaitcntTxn::Issue {
                    wave,
                    class,
                    latency: 1,
                    count,
                });
                v.push(WaitcntTxn::Issue {
                    wave,
                    class,
                    latency: latency / 2,
                    count,
                });
            }
            if wave != 0 {
                v.push(WaitcntTxn::Issue {
                    wave: 0,
                    class,
                    latency,
                    count,
                });
            }
        }
        WaitcntTxn::Wait { wave, imm, vscnt } => {
            if vscnt {
                v.push(WaitcntTxn::Wait {
                    wave,
                    imm,
                    vscnt: false,
                });
            }
            if wave != 0 {
                v.push(WaitcntTxn::Wait {
                    wave: 0,
                    imm,
                    vscnt,
                });
            }
        }
        WaitcntTxn::Idle { cycles } => {
            if cycles > 1 {
                v.push(WaitcntTxn::Idle { cycles: 1 });
            }
        }
        WaitcntTxn::BadReturn { .. }
        | WaitcntTxn::BadIssue { .. }
        | WaitcntTxn::BadDual { .. }
        | WaitcntTxn::BadWait { .. } => {}
    }
    v
}
