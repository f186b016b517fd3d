"""gpucosim's bit-accurate, cycle-level reference models of AMD GPU units
(ta, lds, waitcnt; profiles gfx9 and gfx11), for cocotb and other Python
testbenches. docs/python.md has the details."""

from typing import Any, Dict, Iterator, List, Mapping, Optional, Union, final

__all__ = ["GFX", "Model", "PROFILES", "Port", "Stimulus", "__version__", "port_table", "units"]

__version__: str
PROFILES: List[str]
#: The RTL's `GFX` parameter of each profile.
GFX: Dict[str, int]

@final
class Port:
    """One port of a unit's top module."""

    @property
    def name(self) -> str:
        """SystemVerilog name, e.g. ``req_valid_i``."""
    @property
    def direction(self) -> str:
        """``"in"`` or ``"out"``."""
    @property
    def width(self) -> int:
        """Width in bits."""
    @property
    def elems(self) -> int:
        """Elements of an array port (1 for a scalar or vector)."""
    @property
    def elem_width(self) -> int:
        """Width of one element in bits."""

@final
class Model:
    """A unit's reference model for one profile.

    Ports are named as in ``<unit>_top``; values are Python ints (an array
    port is one int, element 0 in the least significant bits). Inputs not
    given keep their last value; every input is 0 at first (``rst_ni`` 0:
    reset).
    """

    def __new__(cls, unit: str, profile: str) -> "Model":
        """Raises ValueError for an unknown unit or profile."""
    @property
    def unit(self) -> str: ...
    @property
    def profile(self) -> str: ...
    @property
    def top(self) -> str:
        """The top module's name, e.g. ``ta_top``."""
    @property
    def ports(self) -> List[Port]:
        """The port table, ``rst_ni`` first (``clk_i`` is not in it)."""
    def step(self, inputs: Optional[Mapping[str, int]] = None) -> Dict[str, int]:
        """One clock cycle: every output of the cycle for the inputs, then the
        rising edge. Raises KeyError for a name that is not an input,
        TypeError for a value that is not an int, ValueError for a value
        that does not fit the port."""
    def peek(self, inputs: Optional[Mapping[str, int]] = None) -> Dict[str, int]:
        """The outputs of the current cycle for the inputs, without the edge."""
    def inputs(self) -> Dict[str, int]:
        """The inputs held, as the next ``step`` applies them."""
    def reset(self) -> None:
        """Back to a new model: reset state, every input 0, coverage cleared."""
    def eval(self, request: Union[str, Mapping[str, Any], List[Any]]) -> Any:
        """``gpucosim eval``: a request, a list of requests (sharing state, e.g.
        the LDS memory) or a JSON string of either; returns the result(s)."""
    def coverage(self) -> Dict[str, int]:
        """Hits per coverage bin over the cycles stepped."""
    def coverage_summary(self) -> str:
        """``UNIT PROFILE: covered N/M bins; never hit: ...``"""
    def in_flight(self) -> str:
        """What is in flight, in one line."""

@final
class Stimulus(Iterator[Dict[str, int]]):
    """gpucosim's legal random stimulus for a unit: the inputs
    ``gpucosim run --unit UNIT --seed SEED`` gives the RTL, one cycle per
    ``next()`` (reset cycles first), as a dict of every input."""

    def __new__(cls, unit: str, profile: str, seed: int = 1, knobs: str = "") -> "Stimulus":
        """``knobs``: ``name=value`` pairs separated by commas or spaces, as
        ``gpucosim run --knob``. Raises ValueError on bad arguments."""
    def next(self) -> Dict[str, int]:
        """The inputs of the next cycle."""
    def __iter__(self) -> "Stimulus": ...
    def __next__(self) -> Dict[str, int]: ...
    @property
    def txns(self) -> int:
        """Transactions used so far."""

def units() -> List[str]:
    """The units, in command-line order."""

def port_table(unit: str) -> List[Port]:
    """The port table of a unit. Raises ValueError for an unknown unit."""
