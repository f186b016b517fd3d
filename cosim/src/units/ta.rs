//! Test bench of the `ta` unit.
