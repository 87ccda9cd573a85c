"""A piece put down where the position says empty (a placement the controller has not seen
yet) is judged where its top stands, not at the board's level: at a tilt the two are apart by
the parallax of one piece, and the cell's centre shows the top and its side wall mixed. In
the opening no top of its colour is known yet, so nothing else vouches for it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.reader import BoardReader
from vision.synthetic.materials import Material
from vision.synthetic.render import Scene, render

#: From whole camera games (benchmarks/camera_games.py, games 4 and 1), where the first
#: red, black and white placements read '?' ("neither empty nor a piece") and the game
#: stalled or went wrong.
TILTED_SHEET = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=0.956, tilt_deg=34.2,
    azimuth_deg=-150.9, yaw_deg=38.6, fill=0.844, board_style="beige",
    cast=(0.893, 0.976, 1.0), exposure=0.911, gradient=(0.223, 0.026), vignette=0.226,
    blur=0.73, noise=2.3, jpeg_quality=90, seed=149727523,
    pieces={"w": (187, 199, 207), "b": (55, 54, 54), "r": (67, 48, 150)}, gloss=0.5,
    side_shade=0.647, cast_shadow=(0.27, -0.072, 0.178), jitter=1.3, distortion=-0.011,
    lamp_k=6269.0)
GLOSSY_LAMINATE = Scene(
    stacks=[""] * 49, size=(960, 720), focal_per_width=1.175, tilt_deg=5.0,
    azimuth_deg=161.5, yaw_deg=-67.7, fill=0.852, board_style="grey",
    cast=(0.908, 0.968, 1.0), exposure=1.222, gradient=(0.030, -0.283), vignette=0.188,
    shadows=[(770.3, 137.8, 111.7, 0.321)], blur=0.78, noise=2.0, jpeg_quality=90,
    seed=486061378,
    material=Material(kind="laminate", albedo=(139, 83, 131), grain=0.041, prints="circles",
                      ink=(35, 31, 55), table=(193, 150, 117), table_grain=0.516,
                      card=(233, 230, 234), quiet=1.17, seed=1053058549),
    pieces={"w": (180, 199, 211), "b": (44, 44, 40), "r": (45, 27, 188)}, gloss=0.853,
    side_shade=0.687, decor=True, cast_shadow=(0.218, -0.344, 0.279), jitter=1.88,
    distortion=-0.095, lamp_k=5815.0)


def _read_after_empty_board(scene: Scene, stacks: dict[int, str], known: set[int]) -> str:
    """What a reader that saw the empty board first reads with only ``known`` committed."""
    reader = BoardReader()
    empty, _ = render(scene)
    reader.read(empty, [0] * 49)
    board = [""] * 49
    for cell, stack in stacks.items():
        board[cell] = stack
    frame, truth = render(replace(scene, stacks=board, seed=scene.seed + 1))
    assert all(truth.expected[c] == stacks[c][-1] for c in stacks)  # all in view
    heights = [len(board[c]) if c in known else 0 for c in range(49)]
    return reader.read(frame, heights).snapshot


def test_new_pieces_on_a_tilted_sheet() -> None:
    cells = [int(c) for c in np.random.default_rng(0).choice(49, 12, replace=False)]
    stacks = {c: "r" if i < 3 else "rbw"[i % 3] for i, c in enumerate(cells)}
    got = _read_after_empty_board(TILTED_SHEET, stacks, known=set(cells[:2]))
    assert {c: got[c] for c in cells} == stacks, got
    assert sum(ch != "." for ch in got) == len(cells), got  # and nothing else


def test_first_glossy_whites_whose_highlights_clip() -> None:
    stacks = {16: "r", 39: "r", 40: "r", 19: "b", 27: "b", 22: "w", 23: "w", 41: "w"}
    got = _read_after_empty_board(GLOSSY_LAMINATE, stacks, known={16, 39, 40, 19, 27})
    assert (got[22], got[23], got[41]) == ("w", "w", "w"), got
    assert [c for c in range(49) if got[c] != "."] == sorted(stacks), got


def test_a_glare_spot_on_an_empty_cell_is_not_a_piece() -> None:
    spots = [(480.0, 360.0, 14.0, 300.0), (420.0, 300.0, 10.0, 320.0)]
    scene = replace(GLOSSY_LAMINATE, glare=spots)
    got = _read_after_empty_board(scene, {16: "r", 19: "b"}, known={16, 19})
    assert [c for c in range(49) if got[c] in "wbr"] == [16, 19], got
    assert np.all([ch in ".?" for c, ch in enumerate(got) if c not in (16, 19)])
