"""Whole camera game 6 (benchmarks/camera_games.py): dark felt with printed circles and
fills, black pieces nearly its colour, the camera at 13 deg.

At ply 74 B2's black stack moved onto C2 (whose top was black too) and the stacks it cut off
were taken away; earlier cut-off stacks had been taken away too (B1, C3, C4, D3, C5: the
heights say empty there). Those cells read 'b', no sequence of moves explained the board and
the game stalled. Two cues of the cell's own look (``vision.cues.own_look``): one direction of
eight or more may have changed where stacks a few pieces taller than the heights say would
hide it (C2, the move's destination, leaned over B2's direction toward it: 0.56, the other
seven 0.03 at most), and a cell the heights call empty that reads a piece reads '.' where
the board round it is as when it was last seen empty. (C3 and D3 still read 'b' here: C2,
four pieces taller than the heights say, changed two of C3's directions and one of D3's
that no taller stack hides, probably by its shadow.)
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from engine.geometry import parse_cell
from vision.reader import BoardReader
from vision.synthetic.materials import Material
from vision.synthetic.render import Scene, render

DARK_FELT = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.8716, tilt_deg=12.917,
    azimuth_deg=-45.181, yaw_deg=175.480, fill=0.8876, board_style="beige",
    cast=(0.8996, 0.9672, 1.0), exposure=0.8404, gradient=(0.108, -0.2262),
    vignette=0.0129, shadows=[(807.7, 66.1, 148.66, 0.2404)], blur=1.0652, noise=1.0267,
    jpeg_quality=86, seed=1043135831,
    material=Material(kind="felt", albedo=(66, 66, 66), grain=0.283, prints="circles+fills",
                      ink=(252, 224, 245), fill=(62, 69, 63), table=(39, 175, 45),
                      table_grain=0.418, card=(232, 237, 238), quiet=2.3304, seed=277488795),
    pieces={"w": (179, 196, 206), "b": (26, 24, 28), "r": (64, 27, 204)}, gloss=0.8278,
    side_shade=0.8079, decor=True, cast_shadow=(0.0436, 0.6186, 0.2529), jitter=0.0133,
    distortion=-0.0023, lamp_k=5739.1)
CASE = json.loads((Path(__file__).parent / "data" / "games-dark-felt.json").read_text())


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    r = BoardReader()
    for seed in (1, 2):  # the game began on the empty board (seen in more than one frame)
        r.read(render(replace(DARK_FELT, seed=seed))[0], [0] * 49)
    return r


def _phantoms(got: str, want: str) -> list[int]:
    """Standing pieces read '.' or a wrong colour: never allowed."""
    return [c for c, (g, w) in enumerate(zip(got, want, strict=True))
            if w in "wbr" and g != w and g != "?"]


def test_a_stack_moved_away_and_cut_off_stacks_taken_away_read_empty(
        reader: BoardReader) -> None:
    standing = CASE["standing"]
    image, truth = render(replace(DARK_FELT, stacks=standing["stacks"], seed=5))
    got = reader.read(image, standing["heights"]).snapshot
    assert got[parse_cell("B2")] == "b" and not _phantoms(got, truth.expected), got
    lifted = CASE["lifted"]
    assert lifted["heights"][parse_cell("B2")] == 1 and lifted["stacks"][parse_cell("B2")] == ""
    for seed in (6, 7):
        image, truth = render(replace(DARK_FELT, stacks=lifted["stacks"], seed=seed))
        reading = reader.read(image, lifted["heights"])
        got = reading.snapshot
        for name in ("B2", "B1", "C4", "C5"):
            c = parse_cell(name)
            assert truth.expected[c] == "." and got[c] == ".", (name, reading.reasons[c])
        assert not _phantoms(got, truth.expected), got
