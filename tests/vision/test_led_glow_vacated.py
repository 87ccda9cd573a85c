"""A vacated cell read with the height it had (the move not committed yet) reads '.' where the
table's LED beside it glows into the board round it: the cell's own look, kept while it was
empty with the LEDs dark, changed only in the directions an LED hole lights (its own toward
row 1, its upper neighbours'). In a room game (benchmarks/camera_games.py --room, game 102,
98 s) G2, vacated on a beige sheet with H3's LED lit, read 'w' until the game was lost."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.geometry import parse_cell
from tests.vision.game_cases import load_case, read_again
from vision.reader import BoardReader
from vision.synthetic.render import Scene, render

#: The game's table (hands and exposure left out: the same misread).
BEIGE = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.99297, tilt_deg=28.834,
    azimuth_deg=-72.986, yaw_deg=66.564, fill=0.85886, board_style="beige",
    cast=(0.96247, 1.0, 0.98981), exposure=0.7949, gradient=(0.29592, -0.15449),
    vignette=0.02732, blur=0.611, noise=3.338, jpeg_quality=92, seed=1053304172,
    pieces={"w": (160, 189, 206), "b": (23, 25, 20), "r": (31, 46, 144)}, gloss=0.7431,
    side_shade=0.6792, cast_shadow=(0.31702, 0.27485, 0.2729), jitter=1.3459,
    distortion=0.0461, lamp_k=6418.8, led_holes=True)
#: The true stacks then (G2 gone) and the heights the controller had (G2's stack there).
CASE = load_case("vacated-under-led.json")
G2, H3 = parse_cell("G2"), parse_cell("H3")
#: H3 lit as the last move's landing, at the brightness the build guide advises (0.4).
LAST = {H3: (102, 60, 0)}


def _reader() -> BoardReader:
    """A reader that read the empty board in still frames, the LEDs dark."""
    r = BoardReader()
    for i in range(4):
        r.read(render(replace(BEIGE, seed=BEIGE.seed + i))[0], [0] * 49)
    return r


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return _reader()


@pytest.mark.parametrize("frame", [1, 2, 3])
def test_a_vacated_cell_beside_a_lit_led_reads_empty(reader: BoardReader, frame: int) -> None:
    assert CASE["heights"][G2] == 1 and CASE["stacks"][G2] == ""
    got = read_again(reader, replace(BEIGE, leds=LAST), CASE, G2, 20 + frame)
    assert got[G2] == ".", got


def test_a_standing_stack_beside_a_lit_led_reads_its_top() -> None:
    r = _reader()
    stacks = list(CASE["stacks"])
    stacks[G2] = "w"
    case = {"stacks": stacks, "heights": CASE["heights"]}
    for frame in (1, 2, 3):
        lit = {**LAST, G2: (16, 64, 16)}  # its own LED too: a movable stack
        got = read_again(r, replace(BEIGE, leds=lit), case, G2, 10 + frame)
        assert got[G2] == "w", got
