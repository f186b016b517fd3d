//! Test bench of the `lds` unit.
