"""argparse types for the numbers the commands take: one clear line for a bad value."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def seconds(low: float = 0.0, high: float = math.inf, *,
            above: bool = False) -> Callable[[str], float]:
    """A finite number of seconds in ``low..high`` (more than ``low`` when ``above``).

    NaN and infinity are refused: a NaN timeout would wait for ever."""
    if above:
        rule = f"more than {low:g} seconds"
    elif high == math.inf:
        rule = f"{low:g} or more seconds"
    else:
        rule = f"{low:g}..{high:g} seconds"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        ok = math.isfinite(value) and (value > low if above else value >= low) and value <= high
        if not ok:
            raise argparse.ArgumentTypeError(f"{text!r}: must be {rule}")
        return value

    return parse


def whole(low: int, high: int, what: str = "a whole number") -> Callable[[str], int]:
    """A whole number in ``low..high``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r}: must be {low}..{high}")
        return value

    return parse
