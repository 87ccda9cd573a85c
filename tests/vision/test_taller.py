"""A destination taller than the position says (a move not committed yet): its top is
looked for higher up. In a whole camera game (benchmarks/camera_games.py, game 2) J4 took a
stack of two, its top stood two pieces above where the heights put it and read "mixed
colours"; the controller waited for J4's colour and the players moved on without it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_lifted_base import GREEN_LAMINATE

from engine.geometry import parse_cell
from vision.cues.taller import MIXED, read_taller
from vision.reader import BoardReader
from vision.synthetic.materials import Material
from vision.synthetic.render import Scene, render

CASE = json.loads((Path(__file__).parent / "data" / "taller-destination.json").read_text())


def _read(scene: Scene, case: dict[str, Any], frame: int) -> tuple[BoardReader, Any, Any, Any]:
    """A reader that saw ``scene``'s board empty, the frame of ``case``'s stacks it read with
    ``case``'s heights, the reading and the truth."""
    reader = BoardReader()
    reader.read(render(scene)[0], [0] * 49)
    image, truth = render(replace(scene, stacks=case["stacks"], seed=scene.seed + frame))
    return reader, image, reader.read(image, case["heights"]), truth


@pytest.mark.parametrize("frame", [1, 2])
def test_a_destination_taller_than_the_heights_reads_its_top(frame: int) -> None:
    j4 = parse_cell("J4")
    assert CASE["heights"][j4] == 1 and CASE["stacks"][j4] == "bbw"
    _, _, reading, truth = _read(GREEN_LAMINATE, CASE, frame)
    assert reading.snapshot[j4] == "w", reading.reasons[j4]
    assert all(g == w for g, w in zip(reading.snapshot, truth.expected, strict=True)
               if w != "*"), reading.snapshot


#: Room game 135's table (benchmarks/camera_games.py --room): felt under a 3,300 K lamp that
#: makes glossy white tops clip in part.
FELT = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.840, tilt_deg=31.53,
    azimuth_deg=175.36, yaw_deg=-99.57, fill=0.811, board_style="beige",
    cast=(0.854, 0.943, 1.0), exposure=1.179, gradient=(0.222, 0.053), vignette=0.139,
    blur=0.448, noise=1.33, jpeg_quality=92, seed=955693618,
    material=Material(kind="felt", albedo=(125, 125, 125), grain=0.446, prints="hexes",
                      ink=(44, 56, 49), table=(60, 130, 146), table_grain=0.311,
                      card=(235, 242, 245), quiet=1.631, seed=391072840),
    pieces={"w": (180, 198, 209), "b": (31, 29, 32), "r": (34, 46, 146)}, gloss=0.606,
    side_shade=0.713, cast_shadow=(-0.004, -0.029, 0.333), jitter=1.078, distortion=-0.119,
    lamp_k=3287.0)
SHEEN_CASE = json.loads((Path(__file__).parent / "data" / "taller-sheen.json").read_text())


@pytest.mark.parametrize("frame", [1, 2, 3])
def test_a_taller_destination_whose_glossy_top_clips_in_part_reads_its_top(frame: int) -> None:
    # J3 took H1's two white pieces (given one black piece): its top, up two pieces, clips
    # 0.1-0.2 of its face under the lamp and read "mixed colours" in one frame in three
    j3 = parse_cell("J3")
    assert SHEEN_CASE["heights"][j3] == 1 and SHEEN_CASE["stacks"][j3] == "bbw"
    _, _, reading, truth = _read(FELT, SHEEN_CASE, frame)
    assert reading.snapshot[j3] == "w", reading.reasons[j3]
    assert all(g == w for g, w in zip(reading.snapshot, truth.expected, strict=True)
               if w != "*"), reading.snapshot


#: Room game 132's table: dark felt under a 5,000 K lamp, as dark as a black top.
DARK_FELT = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=1.1023329201340764,
    tilt_deg=26.081441521056984, azimuth_deg=137.65376314978965, yaw_deg=120.9671742948085,
    fill=0.88368128424349, board_style="slate",
    cast=(0.9069838731899093, 0.9488434560049313, 1.0), exposure=0.8506398526957863,
    gradient=(0.28210616095854174, -0.12549187319602498), vignette=0.2466992955066393,
    glare=[(671.5739749388531, 485.8322094831822, 14.644844057693648, 299.47783437452074)],
    blur=1.1704853852323485, noise=1.619989359634395, jpeg_quality=83, seed=1053766339,
    material=Material(kind="felt", albedo=(49, 49, 49), grain=0.28167451551729167,
                      prints="lattice", ink=(231, 233, 250), table=(60, 164, 161),
                      table_grain=0.21383130907321235, card=(232, 236, 237),
                      quiet=1.2550156565240718, seed=734576208),
    pieces={"w": (179, 204, 219), "b": (29, 34, 35), "r": (43, 44, 195)},
    gloss=0.4980189353156015, side_shade=0.6502528973478923,
    cast_shadow=(-0.2533208965463196, 0.541514924354159, 0.4284062148752291),
    jitter=1.8909177277840252, distortion=-0.10798328215647565, lamp_k=4987.967835380252,
    led_holes=True)
VACATED = json.loads((Path(__file__).parent / "data" / "taller-vacated.json").read_text())


@pytest.mark.parametrize("frame", [1, 2, 3, 4])
def test_a_vacated_cell_on_a_board_of_a_pieces_colour_is_no_taller_stack(frame: int) -> None:
    # C2's stack gone (onto C3), its height still 1: read "mixed colours", C2 sampled three
    # pieces up showed the felt beyond it, as dark as a black top, and read 'b' (the stack
    # still there); the cue may say only what the board cannot look like
    c2 = parse_cell("C2")
    assert VACATED["heights"][c2] == 1 and VACATED["stacks"][c2] == ""
    reader, image, reading, _ = _read(DARK_FELT, VACATED, frame)
    labels = reading.snapshot[:c2] + "?" + reading.snapshot[c2 + 1:]
    reasons = list(reading.reasons)
    reasons[c2] = MIXED
    out, _, why = read_taller(lambda h: reader.sample(image, reading.pose, h)[0], reader.model,
                              VACATED["heights"], labels, [0.5] * 49, reasons,
                              np.zeros(49, bool))
    assert out[c2] == "?", why[c2]
