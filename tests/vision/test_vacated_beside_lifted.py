"""A vacated cell beside another stack lifted away, both before the controller has the moves:
the heights still stand the neighbour up, and the lines of sight through it hid the vacated
cell's board (four directions in view, five needed to call it bare). In a room game
(benchmarks/camera_games.py --room, game 102) I3's stack went onto H2, then H3's onto G3;
I3 read bare, H3 read 'w' on the beige board for 4 s, and I3H3 was committed for I3H2. A
neighbour read bare (latched so since) no longer stands in the line of sight."""

from __future__ import annotations

import pytest

from engine.geometry import parse_cell
from tests.vision.game_cases import load_case, read_again, reader_after_empty
from vision.reader import BoardReader
from vision.synthetic.render import Scene

#: The game's table (the room's LEDs, exposure and hands left out: the same misread).
BEIGE = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.99297, tilt_deg=28.8343,
    azimuth_deg=-72.986, yaw_deg=66.564, fill=0.85886, board_style="beige",
    cast=(0.96247, 1.0, 0.98981), exposure=0.7949, gradient=(0.29592, -0.15449),
    vignette=0.02732, shadows=[(780.97, 189.97, 123.32, 0.27078)], blur=0.611,
    noise=3.3376, jpeg_quality=92, seed=1053304172,
    pieces={"w": (160, 189, 206), "b": (23, 25, 20), "r": (31, 46, 144)}, gloss=0.7431,
    side_shade=0.6792, decor=True, cast_shadow=(0.31702, 0.27485, 0.2729), jitter=1.3459,
    distortion=0.04610, lamp_k=6418.8, led_holes=True)
#: The true stacks then, and the heights the controller had (I3's and H3's stacks there).
CASE = load_case("vacated-beside-lifted.json")


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return reader_after_empty(BEIGE)


def test_a_vacated_cell_beside_a_lifted_stack_reads_empty(reader: BoardReader) -> None:
    h3, i3, h2 = parse_cell("H3"), parse_cell("I3"), parse_cell("H2")
    assert CASE["heights"][h3] == CASE["heights"][i3] == 1
    assert CASE["stacks"][h3] == CASE["stacks"][i3] == ""
    assert CASE["heights"][h2] == 2 and len(CASE["stacks"][h2]) == 3
    got = [read_again(reader, BEIGE, CASE, h3, frame) for frame in range(1, 5)]
    assert got[0][i3] == "."  # I3 read bare at once; two frames later it is so since
    assert [g[h3] for g in got[2:]] == [".", "."], [g[h3] for g in got]
