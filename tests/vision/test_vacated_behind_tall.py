"""A vacated cell whose base and print a tall neighbour hides, read with the height it had
(the move not committed yet), reads '.': its top is the empty board closely, a piece far less,
and it has no disc edge. In a room game (benchmarks/camera_games.py --room, game 101, 144 s)
B4, vacated behind the 5-high C4 on a slate sheet, read 'w' and '?' by turns for 13 s; the
move's commit waited on it, the players went on, and the game was lost."""

from __future__ import annotations

import pytest

from engine.geometry import parse_cell
from tests.vision.game_cases import load_case, read_again, reader_after_empty
from vision.reader import BoardReader
from vision.synthetic.render import Scene

#: The game's table (the room's LEDs, exposure and hands left out: the same misread).
SLATE = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.8797, tilt_deg=27.47,
    azimuth_deg=32.86, yaw_deg=-74.04, fill=0.9369, board_style="slate",
    cast=(0.9734, 0.9863, 1.0), exposure=0.9716, gradient=(0.2839, -0.1653), vignette=0.2014,
    blur=0.9128, noise=2.413, jpeg_quality=91, seed=595366105,
    pieces={"w": (192, 209, 221), "b": (29, 26, 30), "r": (41, 26, 158)}, gloss=0.841,
    side_shade=0.7773, cast_shadow=(-0.7627, 0.1426, 0.3941), jitter=0.6127,
    distortion=-0.0235, lamp_k=6332.6, led_holes=True)
#: The true stacks then, and the heights the controller had (B4's stack still there).
CASE = load_case("vacated-behind-tall.json")


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return reader_after_empty(SLATE)


@pytest.mark.parametrize("frame", [1, 2, 3])
def test_a_vacated_cell_behind_a_tall_stack_reads_empty(reader: BoardReader,
                                                       frame: int) -> None:
    b4 = parse_cell("B4")
    assert CASE["heights"][b4] == 1 and CASE["stacks"][b4] == ""
    assert CASE["heights"][parse_cell("C4")] == 5
    got = read_again(reader, SLATE, CASE, b4, frame)
    assert got[b4] == ".", got
