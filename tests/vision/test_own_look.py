"""A cell against its own look when it was last seen empty: in play the board starts empty,
so every new piece stands on a cell the reader has seen empty in this very light. A white
piece on white paper fits the empty board's colour, and with no white piece known yet no
outline to compare with: only the cell's own change tells it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.reader import BoardReader
from vision.synthetic.materials import Material
from vision.synthetic.render import Scene, random_scene, render

SIZE = (800, 600)
PAPER = Material(kind="paper", albedo=(219, 223, 226), grain=0.1, prints="circles",
                 ink=(36, 29, 30), card=(224, 227, 230), quiet=1.6, seed=11)


def _table(seed: int) -> Scene:
    rng = np.random.default_rng(4200 + seed)
    scene = random_scene(rng, [""] * 49, size=SIZE, wide=True, glare=False, shadow=False)
    return replace(scene, material=PAPER, pieces={"w": (176, 200, 215), "b": (30, 32, 23),
                                                  "r": (54, 56, 206)},
                   tilt_deg=18.0, exposure=0.9, distortion=-0.04)


def _stacks(placed: dict[int, str]) -> list[str]:
    return [placed.get(c, "") for c in range(49)]


@pytest.mark.parametrize(("seed", "cell"), [(0, 24), (1, 10)])
def test_a_new_white_piece_on_white_paper_reads_white_after_the_empty_board(
        seed: int, cell: int) -> None:
    table = _table(seed)
    placed = {3: "r", 30: "r", 45: "r", 17: "b"}  # committed; no white piece yet
    empty, _ = render(replace(table, stacks=_stacks({})))
    before, _ = render(replace(table, stacks=_stacks(placed), exposure=table.exposure * 1.03))
    after, truth = render(replace(table, stacks=_stacks({**placed, cell: "w"}),
                                  exposure=table.exposure * 0.97))
    heights = [1 if c in placed else 0 for c in range(49)]
    assert truth.expected[cell] == "w"
    # A fresh reader (no memory: the CLI, a photo) cannot tell it from the empty paper.
    assert BoardReader().read(after, heights).snapshot[cell] == "."
    reader = BoardReader()
    assert reader.read(empty, [0] * 49).snapshot == "." * 49
    got = reader.read(before, heights).snapshot
    assert all(got[c] == (placed.get(c) or ".") for c in range(49)), got
    got = reader.read(after, heights).snapshot
    want = truth.expected
    assert got[cell] == "w"
    assert all(g == w for g, w in zip(got, want, strict=True) if w != "*"), (got, want)


def test_a_shadow_or_a_moved_camera_is_no_new_piece() -> None:
    """The light changes over part of the board (a player leans over it) or the camera is
    bumped: the cells' own looks change, but no piece is there."""
    table = _table(0)
    placed = {3: "r", 30: "r", 45: "r", 17: "b", 24: "w"}
    heights = [1 if c in placed else 0 for c in range(49)]
    empty, _ = render(replace(table, stacks=_stacks({})))
    reader = BoardReader()
    reader.read(empty, [0] * 49)
    w, h = SIZE
    for scene in (replace(table, stacks=_stacks(placed),
                          shadows=[(0.45 * w, 0.5 * h, 0.25 * w, 0.35)]),
                  replace(table, stacks=_stacks(placed), yaw_deg=table.yaw_deg + 1.5)):
        frame, truth = render(scene)
        got = reader.read(frame, heights).snapshot
        assert not [c for c in range(49) if truth.expected[c] in ".?" and got[c] in "wbr"], got


def test_the_tint_at_an_empty_cells_centre_is_a_new_piece_in_the_placing_phase_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A white top on cream paper shows in the tint at the cell's centre only (camera game 15's
    F3). Once the stacks have moved, a piece comes onto an empty cell only with a hand that
    changes the board round it: a printed line through a vacated cell's centre that flips its
    tint between ink and paper from frame to frame read as a new white piece (camera game 24's
    E1), and the game stalled."""
    from vision import classify
    from vision.cues.own_look import CellLooks

    assert classify.placing(None) and classify.placing(np.array([1] * 48 + [0]))
    assert not classify.placing(np.array([1] * 49))  # all down: the moves begin
    assert not classify.placing(np.array([2] + [0] * 48))
    table = _table(0)
    cell = 24
    off = np.zeros(49)
    off[cell] = 0.5  # far outside the range the empty cell's centre showed
    monkeypatch.setattr(CellLooks, "chroma_off", lambda self, s, th: off)
    read = {}
    for phase, placed in (("placing", {3: "r", 30: "r", 45: "r", 17: "b"}),
                          ("moving", {3: "r", 30: "r", 45: "r", 17: "bw"})):
        frame, truth = render(replace(table, stacks=_stacks(placed)))
        assert truth.expected[cell] == "."
        reader = BoardReader()
        heights = [len(placed.get(c, "")) for c in range(49)]
        for _ in range(2):
            got = reader.read(frame, heights).snapshot
        read[phase] = got[cell]
    assert read["placing"] != "."  # evidence of a piece: a piece or '?', never the board
    assert read["moving"] == "."
