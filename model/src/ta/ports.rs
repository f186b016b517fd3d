//! Top-level ports of the texture-cache address unit (`ta_top`).
//! The cycle contract is in `docs/ta.md`.

use super::isa::{ADDR_W, LANES};
use super::params::MAX_LINE_BYTES;
use super::tlm::NSLOTS;

crate::ports! {
    /// Ports of `ta_top`.
    pub mod ta_ports("ta", "ta_top") {
        /// Asynchronous active-low reset.
        input rst_ni: 1,
        /// A buffer instruction is offered.
        input req_valid_i: 1,
        /// The 128-bit V# (bit 0 = V# bit 0).
        input vsharp_i: 128,
        /// 0 MUBUF non-format, 1 MUBUF `*_FORMAT_*`, 2 MTBUF.
        input kind_i: 2,
        /// 0 load, 1 store, 2 atomic without return, 3 atomic with return.
        input op_i: 2,
        /// Memory size in bytes of a non-format access or an atomic (1, 2, 4, 8, 12, 16).
        input size_i: 5,
        /// MTBUF format: gfx9 {nfmt\[6:4\], dfmt\[3:0\]}; gfx11 unified FORMAT.
        input fmt_i: 7,
        /// Instruction offen bit.
        input offen_i: 1,
        /// Instruction idxen bit.
        input idxen_i: 1,
        /// Instruction 12-bit offset.
        input inst_offset_i: 12,
        /// SGPR offset.
        input soffset_i: 32,
        /// SH_MEM_CONFIG.alignment_mode.
        input align_mode_i: 2,
        /// Wave64 (gfx9 is always wave64; the input is ignored there).
        input wave64_i: 1,
        /// Exec mask, bit = lane.
        input exec_i: LANES,
        /// Per-lane index VGPR.
        input vindex_i: 32 x LANES,
        /// Per-lane offset VGPR.
        input voffset_i: 32 x LANES,
        /// The cache accepts a line request this cycle.
        input line_ready_i: 1,

        /// The unit accepts an instruction this cycle.
        output req_ready_o: 1,
        /// Per-lane results are shown this cycle (one cycle per instruction).
        output lane_valid_o: 1,
        /// Byte address of dword d of lane l, element 4*l + d.
        output lane_addr_o: ADDR_W x NSLOTS,
        /// Dword d of lane l is in range, bit 4*l + d.
        output lane_inrange_o: NSLOTS,
        /// Dword d of lane l accesses memory, bit 4*l + d.
        output lane_access_o: NSLOTS,
        /// Lane raised MEMVIOL.
        output lane_memviol_o: LANES,
        /// A line request is offered.
        output line_valid_o: 1,
        /// Line-aligned byte address of the request.
        output line_addr_o: ADDR_W,
        /// Byte mask within the line (bits above the line size are 0).
        output line_mask_o: MAX_LINE_BYTES,
        /// Operation of the request (as op_i).
        output line_op_o: 2,
        /// Last line request of the instruction.
        output line_last_o: 1,
    }
}
