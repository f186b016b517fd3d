//! The `lds` transaction: one LDS instruction with the wave state it is
//! issued with, and its simpler variants for shrinking.

use gpucosim_model::lds::tlm::Request;
use serde::{Deserialize, Serialize};

/// One LDS instruction with the wave state it is issued with (the model's
/// request), and the idle cycles before it is offered. Serialised flat:
/// the request's fields and `gap`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LdsTxn {
    /// The instruction and its wave state.
    #[serde(flatten)]
    pub req: Request,
    /// Idle cycles before the instruction is offered.
    pub gap: u8,
}

/// Simpler variants of a transaction, simplest first.
pub fn simplify(t: &LdsTxn) -> Vec<LdsTxn> {
    let mut v = Vec::new();
    let mut push = |f: &dyn Fn(&mut LdsTxn)| {
        let mut s = t.clone();
        f(&mut s);
        if s != *t && !v.contains(&s) {
            v.push(s);
        }
    };
    if t.req.exec != 0 {
        push(&|s| s.req.exec &= s.req.exec.wrapping_neg());
        push(&|s| s.req.exec &= 0xFFFF_FFFF);
        push(&|s| s.req.exec &= 0x5555_5555_5555_5555);
    }
    push(&|s| s.gap = 0);
    push(&|s| s.req.lds_base = 0);
    push(&|s| s.req.unaligned = false);
    push(&|s| {
        s.req.offset0 = 0;
        s.req.offset1 = 0;
        s.req.m0 = 0;
    });
    push(&|s| {
        s.req.data0.iter_mut().for_each(|d| *d = 0);
        s.req.data1.iter_mut().for_each(|d| *d = 0);
    });
    push(&|s| s.req.addr.iter_mut().for_each(|a| *a &= !3));
    v
}
