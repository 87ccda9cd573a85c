"""A lifted stack whose cell's base is out of sight (behind a neighbour, or crossed by the
board's print) reads '.' when its top is the empty board closely and no piece at all: in a
whole camera game (benchmarks/camera_games.py, game 2, frame 870) the cell A2 read "unknown
colour" after its stack was moved, and the game waited for a move it never saw."""

from __future__ import annotations

import pytest

from engine.geometry import parse_cell
from tests.vision.game_cases import load_case, read_again, reader_after_empty
from vision.reader import BoardReader
from vision.synthetic.materials import Material
from vision.synthetic.render import Scene

#: The game's table: green laminate with a lattice and circles, a warm lamp, 28 deg tilt.
GREEN_LAMINATE = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.849, tilt_deg=28.5,
    azimuth_deg=-146.9, yaw_deg=36.0, fill=0.904, board_style="slate",
    cast=(0.636, 0.859, 1.0), exposure=1.024, gradient=(-0.135, 0.094), vignette=0.141,
    blur=0.435, noise=2.3, jpeg_quality=74, seed=728761589,
    material=Material(kind="laminate", albedo=(171, 229, 180), grain=0.078,
                      prints="lattice+circles", ink=(43, 34, 36), table=(77, 186, 104),
                      table_grain=0.202, card=(243, 244, 244), quiet=2.33, seed=832755442),
    pieces={"w": (176, 196, 209), "b": (44, 43, 46), "r": (63, 40, 206)}, gloss=0.614,
    side_shade=0.782, cast_shadow=(-0.096, -0.254, 0.283), jitter=0.54, distortion=-0.103,
    lamp_k=2847.0)
#: The true stacks then, and the heights the controller had (A2's stack still there).
CASE = load_case("lifted-stack-base-hidden.json")


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return reader_after_empty(GREEN_LAMINATE)


@pytest.mark.parametrize("frame", [1, 2, 3])
def test_a_lifted_stack_with_its_base_out_of_sight_reads_empty(reader: BoardReader,
                                                               frame: int) -> None:
    a2 = parse_cell("A2")
    assert CASE["heights"][a2] == 1 and CASE["stacks"][a2] == ""
    got = read_again(reader, GREEN_LAMINATE, CASE, a2, frame)
    assert got[a2] == ".", got
