"""cocotb testbench of ta_top: gpucosim's model predicts, every output is
compared every cycle (lockstep.py). Run with run.py --unit ta."""

import cocotb

from lockstep import lockstep


@cocotb.test()
async def ta_lockstep(dut):
    await lockstep(dut, "ta")
