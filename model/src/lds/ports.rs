//! Top-level ports of the LDS unit (`lds_top`).

crate::ports! {
    /// Ports of `lds_top`.
    pub mod lds_ports("lds", "lds_top") {
        /// Asynchronous active-low reset.
        input rst_ni: 1,
    }
}
