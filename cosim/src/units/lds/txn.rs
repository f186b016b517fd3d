//! The `lds` transaction: one LDS instruction with the wave state it is
//! issued with, and its simpler variants for shrinking.

use serde::{Deserialize, Serialize};

/// One LDS instruction with the wave state it is issued with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LdsTxn {
    /// `op_i` code (`docs/lds.md`).
    pub op: u8,
    /// Wave64 (gfx9 ignores it).
    pub wave64: bool,
    /// gfx11 WGP mode.
    pub wgp: bool,
    /// Alignment mode UNALIGNED.
    pub unaligned: bool,
    /// Exec mask.
    pub exec: u64,
    /// offset0 field.
    pub offset0: u8,
    /// offset1 field.
    pub offset1: u8,
    /// M0.
    pub m0: u32,
    /// LDS_BASE in 256-byte blocks.
    pub lds_base: u16,
    /// Allocation size in bytes.
    pub lds_size: u32,
    /// Per-lane address (64 entries).
    pub addr: Vec<u32>,
    /// Per-lane DATA0 (64 entries).
    pub data0: Vec<u64>,
    /// Per-lane DATA1 (64 entries).
    pub data1: Vec<u64>,
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
    if t.exec != 0 {
        push(&|s| s.exec &= s.exec.wrapping_neg());
        push(&|s| s.exec &= 0xFFFF_FFFF);
        push(&|s| s.exec &= 0x5555_5555_5555_5555);
    }
    push(&|s| s.gap = 0);
    push(&|s| s.lds_base = 0);
    push(&|s| s.unaligned = false);
    push(&|s| {
        s.offset0 = 0;
        s.offset1 = 0;
        s.m0 = 0;
    });
    push(&|s| {
        s.data0.iter_mut().for_each(|d| *d = 0);
        s.data1.iter_mut().for_each(|d| *d = 0);
    });
    push(&|s| s.addr.iter_mut().for_each(|a| *a &= !3));
    v
}
