"""A lamp's spot at the edge of the board (room game 149: a yellow laminate, the spot on A3
and B4 from the first frame) clips the board between the cells round them. That is light,
not something over the board: the cells read '?' for glare (the reason the table's rule for
a piece under a spot looks for), and a black top in the spot's halo, washed grey, reads '?'
rather than white. Before, A3 read "something over the board here" in every frame (so no
frame was ever still, and a piece put on B4 was never named), and Black's B4 read 'w' one
frame in three, so that no move after it fitted the board as read."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine.geometry import parse_cell
from tests.vision.game_cases import load_case
from vision.reader import BoardReader
from vision.synthetic.render import Material, Scene, render

#: The game's table (hands, LEDs and the camera's own exposure left out: the same reading).
LAMINATE = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.83055, tilt_deg=7.755,
    azimuth_deg=85.843, yaw_deg=-15.312, fill=0.81374, board_style="grey",
    cast=(1.0, 0.97661, 0.9566), exposure=1.07909, gradient=(0.11645, -0.02448),
    vignette=0.21306, glare=[(248.866, 415.533, 20.430, 308.921)], blur=0.42762,
    noise=3.85775, jpeg_quality=82, seed=1034989066,
    material=Material(kind="laminate", albedo=(97, 201, 214), grain=0.11911,
                      prints="lattice+circles", ink=(6, 35, 28), fill=None,
                      table=(49, 185, 115), table_grain=0.08226, card=(228, 232, 234),
                      quiet=1.21405, seed=267999210),
    pieces={"w": (191, 201, 208), "b": (23, 26, 21), "r": (29, 33, 166)}, gloss=0.78489,
    side_shade=0.47567, cast_shadow=(0.03876, 0.67048, 0.14085), jitter=1.72202,
    distortion=-0.07465, lamp_k=4427.2, led_holes=True)
#: The true stacks and the controller's heights at 28.5 s (placing; A3 empty, Black's piece
#: on B4 committed) and at 84.7 s (moving; black tops on both).
CASES = load_case("spot-at-the-edge.json")
A3, B4 = parse_cell("A3"), parse_cell("B4")
FRAMES = range(1, 9)


def _reads(case: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(A3's label, its reason, B4's label, its reason) in eight frames of ``case``, read by
    a reader that saw the empty board first."""
    reader = BoardReader()
    for i in range(4):
        reader.read(render(replace(LAMINATE, seed=LAMINATE.seed + i))[0], [0] * 49)
    out = []
    for frame in FRAMES:
        image, _ = render(replace(LAMINATE, stacks=case["stacks"], seed=LAMINATE.seed + 10 + frame))
        r = reader.read(image, case["heights"])
        out.append((r.snapshot[A3], r.reasons[A3], r.snapshot[B4], r.reasons[B4]))
    return out


@pytest.fixture(scope="module")
def placing() -> list[tuple[str, str, str, str]]:
    return _reads(CASES["placing"])


@pytest.fixture(scope="module")
def moving() -> list[tuple[str, str, str, str]]:
    return _reads(CASES["moving"])


def test_an_empty_cell_under_the_spot_reads_glare(placing: list[tuple[str, str, str, str]]
                                                   ) -> None:
    assert CASES["placing"]["stacks"][A3] == "" and CASES["placing"]["heights"][A3] == 0
    assert [(a, why) for a, why, _, _ in placing] == [("?", "glare")] * len(FRAMES)


@pytest.mark.parametrize("phase", ["placing", "moving"])
def test_a_black_top_in_the_spots_halo_never_reads_white(
        phase: str, placing: list[tuple[str, str, str, str]],
        moving: list[tuple[str, str, str, str]]) -> None:
    reads = placing if phase == "placing" else moving
    assert CASES[phase]["stacks"][B4] == "b" and CASES[phase]["heights"][B4] == 1
    assert {b for _, _, b, _ in reads} <= {"b", "?"}, reads
