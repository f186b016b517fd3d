"""cocotb testbench of waitcnt_top: gpucosim's model predicts, every output is
compared every cycle (lockstep.py). Run with run.py --unit waitcnt."""

import cocotb

from lockstep import lockstep


@cocotb.test()
async def waitcnt_lockstep(dut):
    await lockstep(dut, "waitcnt")
