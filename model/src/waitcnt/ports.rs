//! Top-level ports of the s_waitcnt scoreboard (`waitcnt_top`).

crate::ports! {
    /// Ports of `waitcnt_top`.
    pub mod waitcnt_ports("waitcnt", "waitcnt_top") {
        /// Asynchronous active-low reset.
        input rst_ni: 1,
    }
}
