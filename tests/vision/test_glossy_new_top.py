"""A new glossy white top where the heights say empty, its highlight clipping a twentieth to a
sixth of it, reads white where the rest of it fits white closely off the empty board, inside
a whole disc edge, even when the reader has no look of the cell from when it was empty (a
table resumed mid-game, or one whose every frame had a hand or a lamp's spot somewhere).
Room game 149: White's tops on a laminate stood 1.7 to 3.9 times the empty bar off the
empty board, and read '?' (neither empty nor a piece) where 4 times was asked."""

from __future__ import annotations

from dataclasses import replace

from engine.geometry import parse_cell
from tests.vision.test_spot_at_the_edge import CASES, LAMINATE
from vision.reader import BoardReader
from vision.synthetic.render import render

#: The same table on a cream laminate (nearer the white tops than the game's yellow one).
CREAM = replace(LAMINATE, material=replace(LAMINATE.material, albedo=(150, 200, 214)))
B1 = parse_cell("B1")


def test_a_glossy_white_top_off_the_empty_board_reads_white_without_a_look_of_the_cell(
        ) -> None:
    case = CASES["placing"]
    assert case["stacks"][B1] == "w" and case["heights"][B1] == 0
    got = []
    for frame in range(1, 7):
        image, truth = render(replace(CREAM, stacks=case["stacks"], seed=CREAM.seed + frame))
        snap = BoardReader().read(image, case["heights"]).snapshot
        assert all(g == w for c, (g, w) in enumerate(zip(snap, truth.expected, strict=True))
                   if w != "*" and c != B1), snap
        got.append(snap[B1])
    assert set(got) <= {"w", ".", "?"} and got.count("w") >= 5, got
