//! Test bench of the `waitcnt` unit.
