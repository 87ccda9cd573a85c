"""A lifted stack on a board the colour of its piece (a white top on the cream sheet): the
cell fits both, and the printed circle gives it an edge, so the outline decides. In a whole
camera game (benchmarks/camera_games.py, game 5, the first move after the placing) the
lifted cell read 'w' and the game waited for a move it never saw."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from vision.reader import BoardReader
from vision.synthetic.render import Scene, render

#: The game's table: the project's sheet in cream ('beige'), a 4600 K lamp, 18 deg tilt.
CREAM_SHEET = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=1.104, tilt_deg=18.04,
    azimuth_deg=-77.1, yaw_deg=-160.6, fill=0.845, board_style="beige",
    cast=(1.0, 0.970, 0.943), exposure=0.872, gradient=(-0.271, 0.300), vignette=0.163,
    blur=0.511, noise=2.3, jpeg_quality=80, seed=282649263,
    pieces={"w": (180, 204, 220), "b": (34, 35, 34), "r": (37, 55, 144)}, gloss=0.679,
    side_shade=0.798, decor=True, cast_shadow=(0.553, -0.426, 0.106), jitter=1.77,
    distortion=-0.120, lamp_k=4613.0)
#: The true stacks then (cells 30 and 44 empty) and the heights the controller had (44's
#: white piece still there: it was just lifted).
CASE = json.loads((Path(__file__).parent / "data" / "lifted-stack-cream-sheet.json").read_text())


@pytest.mark.parametrize("frame", [1, 2])
def test_a_lifted_white_stack_on_the_cream_sheet_reads_empty(frame: int) -> None:
    reader = BoardReader()
    reader.read(render(CREAM_SHEET)[0], [0] * 49)  # the game began on the empty board
    assert CASE["heights"][44] == 1 and CASE["stacks"][44] == ""
    image, truth = render(replace(CREAM_SHEET, stacks=CASE["stacks"],
                                  seed=CREAM_SHEET.seed + frame))
    got = reader.read(image, CASE["heights"]).snapshot
    assert got[44] == ".", got
    assert all(g == w for g, w in zip(got, truth.expected, strict=True) if w != "*"), got
