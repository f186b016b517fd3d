"""cocotb testbench of a unit's `<unit>_top`, for every registered unit:
gpucosim's model predicts, every output is compared every cycle
(lockstep.py). The unit is GPUCOSIM_UNIT, which run.py sets from its
`--unit`. Run with run.py --unit UNIT."""

import os

import cocotb

from lockstep import lockstep


@cocotb.test()
async def unit_lockstep(dut):
    await lockstep(dut, os.environ["GPUCOSIM_UNIT"])
