"""Lock-step checking in a cocotb testbench with gpucosim's reference model.

`lockstep(dut, unit)` drives `<unit>_top` with gpucosim's stimulus for a seed
(the inputs `gpucosim run --unit UNIT --seed N` gives the RTL), predicts
every cycle with `gpucosim.Model` and compares every output every cycle, at
the falling edge of `clk_i` (the inputs change after each rising edge). The
first mismatch fails the test, naming the cycle, the port (the first
differing element of an array port), both values and what is in flight.

Settings come from the environment (run.py sets them): GPUCOSIM_PROFILE
(gfx9), GPUCOSIM_SEED (1), GPUCOSIM_CYCLES (2000), GPUCOSIM_KNOBS (none),
GPUCOSIM_MODEL (1; 0 drives the same stimulus without predicting or
comparing, to measure what the model costs), GPUCOSIM_REPRO (the command
that reruns the test, without `--cycles`).
"""

import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

import gpucosim


def _int(value):
    """A cocotb value as an unsigned int."""
    to_unsigned = getattr(value, "to_unsigned", None)
    return to_unsigned() if to_unsigned is not None else int(value)


def _first_difference(port, got, want):
    """`name[i]: DUT x, model y` for the first differing element."""
    if port.elems == 1:
        return f"{port.name}: DUT {got:#x}, model {want:#x}"
    mask = (1 << port.elem_width) - 1
    for i in range(port.elems):
        g = (got >> (i * port.elem_width)) & mask
        w = (want >> (i * port.elem_width)) & mask
        if g != w:
            return f"{port.name}[{i}]: DUT {g:#x}, model {w:#x}"
    return f"{port.name}: DUT {got:#x}, model {want:#x}"


async def lockstep(dut, unit):
    profile = os.environ.get("GPUCOSIM_PROFILE", "gfx9")
    seed = int(os.environ.get("GPUCOSIM_SEED", "1"))
    cycles = int(os.environ.get("GPUCOSIM_CYCLES", "2000"))
    knobs = os.environ.get("GPUCOSIM_KNOBS", "")
    with_model = os.environ.get("GPUCOSIM_MODEL", "1") != "0"
    repro = os.environ.get(
        "GPUCOSIM_REPRO",
        f"python run.py --unit {unit} --profile {profile} --seed {seed}"
        + (f" --knobs {knobs}" if knobs else ""),
    )

    stim = gpucosim.Stimulus(unit, profile, seed, knobs)
    model = gpucosim.Model(unit, profile) if with_model else None
    ports = gpucosim.port_table(unit)
    inputs = {p.name: getattr(dut, p.name) for p in ports if p.direction == "in"}
    outputs = [(p, getattr(dut, p.name)) for p in ports if p.direction == "out"]

    Clock(dut.clk_i, 10, unit="ns").start(start_high=True)
    start = time.perf_counter()
    for cycle in range(cycles):
        values = stim.next()
        for name, v in values.items():
            inputs[name].value = v
        await FallingEdge(dut.clk_i)
        if model is not None:
            want = model.step(values)
            for port, handle in outputs:
                got = _int(handle.value)
                if got != want[port.name]:
                    raise AssertionError(
                        f"{unit} {profile} seed {seed} cycle {cycle}: "
                        f"{_first_difference(port, got, want[port.name])} "
                        f"(in flight: {model.in_flight()}); reproduce: "
                        f"{repro} --cycles {cycle + 1}"
                    )
        await RisingEdge(dut.clk_i)
    elapsed = time.perf_counter() - start
    summary = model.coverage_summary() if model is not None else "no model"
    dut._log.info(
        "%s %s seed %d: %d cycles, %d transactions, no mismatch, "
        "%.0f cycles/s; %s",
        unit, profile, seed, cycles, stim.txns, cycles / elapsed, summary,
    )
