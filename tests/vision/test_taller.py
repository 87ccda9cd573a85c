"""A destination taller than the position says (a move not committed yet): its top is
looked for higher up. In a whole camera game (benchmarks/camera_games.py, game 2) J4 took a
stack of two, its top stood two pieces above where the heights put it and read "mixed
colours"; the controller waited for J4's colour and the players moved on without it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_lifted_base import GREEN_LAMINATE

from engine.geometry import parse_cell
from vision.reader import BoardReader
from vision.synthetic.render import render

CASE = json.loads((Path(__file__).parent / "data" / "taller-destination.json").read_text())


@pytest.mark.parametrize("frame", [1, 2])
def test_a_destination_taller_than_the_heights_reads_its_top(frame: int) -> None:
    j4 = parse_cell("J4")
    assert CASE["heights"][j4] == 1 and CASE["stacks"][j4] == "bbw"
    reader = BoardReader()
    reader.read(render(GREEN_LAMINATE)[0], [0] * 49)
    image, truth = render(replace(GREEN_LAMINATE, stacks=CASE["stacks"],
                                  seed=GREEN_LAMINATE.seed + frame))
    reading = reader.read(image, CASE["heights"])
    assert reading.snapshot[j4] == "w", reading.reasons[j4]
    assert all(g == w for g, w in zip(reading.snapshot, truth.expected, strict=True)
               if w != "*"), reading.snapshot
