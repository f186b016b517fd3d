//! Top-level ports of the LDS unit (`lds_top`).
//! The cycle contract is in `docs/lds.md`.

use super::params::MAX_BANKS;
use super::tlm::LANES;

crate::ports! {
    /// Ports of `lds_top`.
    pub mod lds_ports("lds", "lds_top") {
        /// Asynchronous active-low reset.
        input rst_ni: 1,
        /// An instruction is offered (taken at the edge when `req_ready_o`).
        input req_valid_i: 1,
        /// Operation code (`model/src/lds/isa.rs`, `docs/lds.md`).
        input op_i: 6,
        /// Wave64 (gfx9 is always wave64; the input is ignored there).
        input wave64_i: 1,
        /// gfx11 WGP mode (128 KiB, 64 banks); 0 = CU mode. Ignored on gfx9.
        input wgp_i: 1,
        /// SH_MEM_CONFIG.alignment_mode == UNALIGNED (0 = DWORD mode).
        input unaligned_i: 1,
        /// Exec mask, bit = lane.
        input exec_i: LANES,
        /// Instruction offset0 field.
        input offset0_i: 8,
        /// Instruction offset1 field.
        input offset1_i: 8,
        /// M0 (read by the addtid ops only).
        input m0_i: 32,
        /// LDS_BASE of the wave's allocation, in 256-byte blocks.
        input lds_base_i: 9,
        /// Size of the wave's allocation in bytes.
        input lds_size_i: 18,
        /// Per-lane address VGPR.
        input addr_i: 32 x LANES,
        /// Per-lane DATA0 (64-bit ops use all bits, others the low 32).
        input data0_i: 64 x LANES,
        /// Per-lane DATA1.
        input data1_i: 64 x LANES,

        /// The unit accepts an instruction this cycle (IDLE).
        output req_ready_o: 1,
        /// An instruction is being served this cycle (BUSY).
        output busy_o: 1,
        /// Lanes with at least one access served this cycle.
        output grant_lanes_o: LANES,
        /// Banks serving an access this cycle.
        output grant_banks_o: MAX_BANKS,
        /// The previous instruction completed at the last edge; the results hold.
        output done_o: 1,
        /// Per-lane return data of the last completed instruction.
        output rdata_o: 128 x LANES,
        /// Out-of-range dword slots of the last completed instruction, bit k of lane l.
        output oor_o: 8 x LANES,
        /// Lanes that raised MEMVIOL in the last completed instruction.
        output memviol_o: LANES,
        /// BUSY cycles of the last completed instruction.
        output cycles_o: 16,
    }
}
