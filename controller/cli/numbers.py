"""argparse types for the numbers the commands take: one clear line for a bad value."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from controller.i18n import _


def seconds(low: float = 0.0, high: float = math.inf, *,
            above: bool = False) -> Callable[[str], float]:
    """A finite number of seconds in ``low..high`` (more than ``low`` when ``above``).

    NaN and infinity are refused: a NaN timeout would wait for ever."""
    if above:
        rule = _("more than {low} seconds").format(low=f"{low:g}")
    elif high == math.inf:
        rule = _("{low} or more seconds").format(low=f"{low:g}")
    else:
        rule = _("{low}..{high} seconds").format(low=f"{low:g}", high=f"{high:g}")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                _("{text} is not a number of seconds").format(text=repr(text))) from None
        ok = math.isfinite(value) and (value > low if above else value >= low) and value <= high
        if not ok:
            raise argparse.ArgumentTypeError(
                _("{text}: must be {rule}").format(text=repr(text), rule=rule))
        return value

    return parse


def whole(low: int, high: int, what: str = "") -> Callable[[str], int]:
    """A whole number in ``low..high`` (``what``: its name in the error, already translated)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_("{text} is not {what}").format(
                text=repr(text), what=what or _("a whole number"))) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(_("{text}: must be {low}..{high}").format(
                text=repr(text), low=low, high=high))
        return value

    return parse
