"""``demo --fast --clock 3+2`` plays a whole game to the end with the clocks on the terminal."""

from __future__ import annotations

import io
import re

from controller.sim.demo import DemoOptions, run_demo
from controller.table.clock import parse_control
from controller.table.timer import ClockOptions


def test_a_fast_demo_with_a_clock_runs_to_the_end_and_shows_the_clocks() -> None:
    out = io.StringIO()
    opts = DemoOptions(fast=True, seed=5, direct=True, noise=False,
                       clock=ClockOptions(control=parse_control("3+2")))
    result = run_demo(opts, out)
    text = out.getvalue()
    assert result.over and "winner:" in text
    assert re.search(r"White \d:\d\d\*? \u00b7 Black \d:\d\d", text)
    timer = result.controller.timer
    assert timer is not None and timer.fallen is None
    # each side got its increments: the clocks add up to the time spent
    spent = 2 * 180 - timer.left("w") - timer.left("b")
    assert spent < timer.clock.now()
