// The LDS RAM: 32 K dwords (128 KiB), one read and one write port per bank.
// Port b reads and writes the dword at raddr_i[b]; the unit never puts two
// ports on one address in a cycle (one dword per bank per cycle). Contents
// are zero at time zero and are not cleared by reset (docs/lds.md).
module lds_ram
  import lds_pkg::*;
(
  input  logic                            clk_i,
  input  logic [MaxBanks-1:0][RamAw-1:0]  addr_i,
  output logic [MaxBanks-1:0][31:0]       rdata_o,
  input  logic [MaxBanks-1:0]             we_i,
  input  logic [MaxBanks-1:0][31:0]       wdata_i
);

  logic [31:0] mem_q [RamDwords];

  initial begin
    for (int unsigned i = 0; i < RamDwords; i++) begin
      mem_q[i] = 32'd0;
    end
  end

  always_comb begin
    for (int unsigned b = 0; b < MaxBanks; b++) begin
      rdata_o[b] = mem_q[addr_i[b]];
    end
  end

  // No reset: a RAM keeps its contents across reset.
  always_ff @(posedge clk_i) begin
    for (int unsigned b = 0; b < MaxBanks; b++) begin
      if (we_i[b]) begin
        mem_q[addr_i[b]] <= wdata_i[b];
      end
    end
  end

endmodule
