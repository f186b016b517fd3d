"""The Python API of gpucosim (run by tests/python.rs after installing the
wheel): stepping agrees with peeking, wide ports round-trip, bad input is
the right exception with a one-line message, eval answers as the CLI does,
and the stimulus is the seed's."""

import json
import subprocess
import sys
import unittest

import gpucosim


class ModelTest(unittest.TestCase):
    def test_units_and_ports(self):
        self.assertEqual(gpucosim.units(), ["ta", "lds", "waitcnt"])
        self.assertEqual(gpucosim.GFX, {"gfx9": 9, "gfx11": 11})
        self.assertEqual(list(gpucosim.GFX), gpucosim.PROFILES)
        for unit in gpucosim.units():
            m = gpucosim.Model(unit, "gfx9")
            self.assertEqual(m.top, unit + "_top")
            self.assertEqual(m.ports[0].name, "rst_ni")
            self.assertEqual([p.name for p in m.ports],
                             [p.name for p in gpucosim.port_table(unit)])
            self.assertTrue(any(p.direction == "out" for p in m.ports))
            for p in m.ports:
                self.assertEqual(p.width, p.elems * p.elem_width)

    def test_step_is_peek_then_edge(self):
        """Over each unit's stimulus: peek (twice) gives what step gives,
        on two models in lock-step."""
        for unit in gpucosim.units():
            for profile in gpucosim.PROFILES:
                a = gpucosim.Model(unit, profile)
                b = gpucosim.Model(unit, profile)
                stim = gpucosim.Stimulus(unit, profile, seed=4)
                for cycle in range(300):
                    inputs = stim.next()
                    peeked = b.peek(inputs)
                    self.assertEqual(b.peek(), peeked)
                    stepped = a.step(inputs)
                    self.assertEqual(stepped, peeked, f"{unit} {profile} {cycle}")
                    b.step()
                self.assertEqual(a.coverage(), b.coverage())
                self.assertGreater(sum(1 for h in a.coverage().values() if h), 0)

    def test_wide_ports_round_trip(self):
        m = gpucosim.Model("lds", "gfx11")
        big = (1 << 2047) | 0x1234_5678_9ABC_DEF0
        m.peek({"addr_i": big, "exec_i": (1 << 64) - 1})
        held = m.inputs()
        self.assertEqual(held["addr_i"], big)
        self.assertEqual(held["exec_i"], (1 << 64) - 1)
        self.assertEqual(held["rst_ni"], 0)

    def test_bad_input(self):
        m = gpucosim.Model("lds", "gfx9")
        with self.assertRaisesRegex(KeyError, "lds_top has no input nope"):
            m.step({"nope": 1})
        with self.assertRaisesRegex(KeyError, "is an output"):
            m.step({"done_o": 1})
        with self.assertRaisesRegex(ValueError, "does not fit in 6 unsigned bits"):
            m.step({"op_i": 64})
        with self.assertRaisesRegex(ValueError, "does not fit in 2048 unsigned bits"):
            m.step({"addr_i": 1 << 2048})
        with self.assertRaisesRegex(ValueError, "does not fit"):
            m.step({"addr_i": -1})
        with self.assertRaisesRegex(TypeError, "expected an int"):
            m.step({"op_i": "3"})
        with self.assertRaisesRegex(ValueError, "unknown unit `tex`"):
            gpucosim.Model("tex", "gfx9")
        with self.assertRaisesRegex(ValueError, "unknown profile `gfx10`"):
            gpucosim.Model("ta", "gfx10")
        with self.assertRaisesRegex(ValueError, "unknown knob `nope`"):
            gpucosim.Stimulus("ta", "gfx9", 1, "nope=3")
        with self.assertRaisesRegex(
            ValueError, r"knob `stall_pct` of unit ta: `200` is not an integer in 0\.\.=100"
        ):
            gpucosim.Stimulus("ta", "gfx9", 1, "stall_pct=200")
        with self.assertRaisesRegex(ValueError, "knob `exec` of unit lds"):
            gpucosim.Stimulus("lds", "gfx9", 1, "exec=most")
        with self.assertRaisesRegex(ValueError, "the request is not JSON"):
            m.eval("{")

    def test_reset(self):
        m = gpucosim.Model("waitcnt", "gfx9")
        stim = gpucosim.Stimulus("waitcnt", "gfx9", seed=2)
        for _ in range(200):
            m.step(stim.next())
        self.assertGreater(sum(m.coverage().values()), 0)
        m.reset()
        self.assertEqual(sum(m.coverage().values()), 0)
        self.assertEqual(m.inputs()["rst_ni"], 0)

    def test_eval_answers_as_the_cli(self):
        req = {"decode": "0xBF8C0070"}
        m = gpucosim.Model("waitcnt", "gfx9")
        got = m.eval(req)
        self.assertEqual(got["text"], "s_waitcnt vmcnt(0) lgkmcnt(0)")
        self.assertEqual(m.eval(json.dumps(req)), got)
        self.assertEqual([r["request"] for r in m.eval([req, req])], [0, 1])
        cli = sys.argv[1] if len(sys.argv) > 1 else None
        if cli:
            out = subprocess.run(
                [cli, "eval", "--unit", "waitcnt", "--profile", "gfx9"],
                input=json.dumps(req), capture_output=True, text=True, check=True)
            self.assertEqual(json.loads(out.stdout), got)
        with self.assertRaisesRegex(ValueError, "vscnt"):
            m.eval({"decode": "0xBC7C0005"})

    def test_stimulus_is_the_seeds(self):
        # Past the directed prefix every seed starts with.
        def first(seed, knobs=""):
            s = gpucosim.Stimulus("ta", "gfx9", seed, knobs)
            return [s.next() for _ in range(5000)]
        self.assertEqual(first(3), first(3))
        self.assertNotEqual(first(3), first(4))
        self.assertNotEqual(first(3), first(3, "misalign_pct=90"))
        s = gpucosim.Stimulus("ta", "gfx9")
        self.assertEqual(next(iter(s))["rst_ni"], 0)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
