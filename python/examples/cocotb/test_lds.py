"""cocotb testbench of lds_top: gpucosim's model predicts, every output is
compared every cycle (lockstep.py). Run with run.py --unit lds."""

import cocotb

from lockstep import lockstep


@cocotb.test()
async def lds_lockstep(dut):
    await lockstep(dut, "lds")
