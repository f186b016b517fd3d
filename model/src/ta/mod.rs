//! Texture-cache address unit for MUBUF/MTBUF buffer instructions (SPEC §1).
//! Cycle contract: `docs/ta.md`.

pub mod ports;
