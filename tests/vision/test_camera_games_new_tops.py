"""New pieces the controller has not committed yet, in frames of the outside renderer's whole
games (../shared/camera-games; copies in data/camera-games, heights in cases.json: what the
controller had committed when the frame came).

- Game 8 (grey felt, camera nearly overhead), t=11.0: C5's black top, put down after the game
  had taught two black tops brighter than the black prior, read '?' ("neither empty nor a
  piece") for seconds: it fitted black at 0.35 and white at 7.9, but the taught black class
  was so wide that its width cost more than white's distance. The top is 0.4 darker than the
  felt round it, white tops are 0.4 brighter: white is ruled out (vision.cues.new_tops).
- Game 15 (cream paper, 28 deg tilt), t=30.4: F3's white top read '.'. White on cream is the
  paper's brightness, and the board's print round the cell (brightness only) changed a third
  of what makes a new piece; the frame kept the piece as F3's empty look, and once the
  placement was committed F3 read "the stack is gone". Its tint is not the paper's: the colour
  at its centre left the range it showed while empty by 0.13 (vision.cues.own_look.chroma_off).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.geometry import parse_cell
from vision.cues.own_look import NEW_CHROMA
from vision.reader import BoardReader

DATA = Path(__file__).resolve().parent / "data" / "camera-games"
CASES = json.loads((DATA / "cases.json").read_text())


def _frame(name: str) -> np.ndarray:
    image = cv2.imread(str(DATA / name))
    assert image is not None, name
    return image


def _wrong(got: str, want: str) -> list[int]:
    return [c for c, (g, w) in enumerate(zip(got, want, strict=True)) if w != "*" and g != w]


def test_a_new_black_top_darker_than_the_felt_reads_black_however_wide_the_taught_class() -> None:
    name = "game-8-f000055.jpg"
    heights = CASES["game-8"]["committed"]  # D3 F3 F5 C2 D2 A3 B4; C5 not yet
    c5 = parse_cell("C5")
    assert heights[c5] == 0 and CASES["frames"][name]["expected"][c5] == "b"
    reader = BoardReader()
    # The colour model as the game's seven placements had taught it (ColourModel.learn).
    reader.model.means = {"w": np.array([-0.1284, 0.0327, -0.0379]),
                          "b": np.array([-1.4252, 0.0035, 0.0225]),
                          "r": np.array([-0.8297, 1.2713, 0.081])}
    reader.model.stds = {"w": np.array([0.3035, 0.081, 0.1076]),
                         "b": np.array([0.6602, 0.1688, 0.1887]),
                         "r": np.array([0.4596, 0.3925, 0.235])}
    reading = reader.read(_frame(name), heights)
    assert reading.snapshot[c5] == "b", reading.reasons[c5]
    assert not _wrong(reading.snapshot, CASES["frames"][name]["expected"])


@pytest.fixture(scope="module")
def cream() -> tuple[BoardReader, list[str]]:
    """A reader that saw game 15's board twice with F3 empty (22 pieces committed), then the
    frame with F3's new white top (still 22 committed)."""
    heights = CASES["game-15"]["committed"]
    reader = BoardReader()
    snapshots = [reader.read(_frame(f"game-15-{f}.jpg"), heights).snapshot
                 for f in ("f000146", "f000148", "f000153")]
    return reader, snapshots


def test_a_new_white_top_on_cream_paper_reads_white(cream: tuple[BoardReader, list[str]]
                                                    ) -> None:
    _, snapshots = cream
    f3 = parse_cell("F3")
    assert CASES["game-15"]["committed"][f3] == 0
    for name, got in zip(("f000146", "f000148", "f000153"), snapshots, strict=True):
        expected = CASES["frames"][f"game-15-{name}.jpg"]["expected"]
        assert not _wrong(got, expected), (name, got, expected)
    assert snapshots[-1][f3] == "w"


def test_the_new_white_top_is_not_taken_for_the_empty_look(cream: tuple[BoardReader, list[str]]
                                                         ) -> None:
    reader, _ = cream
    f3 = parse_cell("F3")
    # The placement committed: the same frame with F3 one piece high reads its top, not
    # "the board round it is as it was when last seen empty".
    after = CASES["game-15"]["after"]
    assert after[f3] == 1
    reading = reader.read(_frame("game-15-f000153.jpg"), after)
    assert reading.snapshot[f3] == "w", reading.reasons[f3]
    assert not _wrong(reading.snapshot, CASES["frames"]["game-15-f000153.jpg"]["expected"])


def test_a_look_whose_tint_changed_is_not_refreshed() -> None:
    """In the game, F3's print had compared as changed by a third of a new piece's change
    (white on cream), the piece was taken for F3's empty look and its chroma widened F3's
    range: once committed, F3 read "the stack is gone" for the rest of the game."""
    heights = CASES["game-15"]["committed"]
    f3 = parse_cell("F3")
    reader = BoardReader()
    for name in ("f000146", "f000148"):
        reader.read(_frame(f"game-15-{name}.jpg"), heights)
    looks, th = reader.model.looks, reader.model.thresholds
    assert looks.look is not None and looks.chroma_lo is not None
    assert looks.chroma_hi is not None
    kept = (looks.look[f3].copy(), looks.chroma_lo[f3].copy(), looks.chroma_hi[f3].copy())
    frame = _frame("game-15-f000153.jpg")
    pose, _ = reader.locate(frame)
    samples, _ = reader.sample(frame, pose, heights)
    assert looks.chroma_off(samples, th)[f3] >= NEW_CHROMA
    others = np.asarray(heights) == 0
    others[f3] = False
    assert np.nanmax(looks.chroma_off(samples, th)[others]) < 0.5 * NEW_CHROMA
    looks.last = np.zeros(49)  # the print round F3 compared as unchanged
    empty = np.zeros(49, bool)
    empty[f3] = True
    looks.remember(samples, empty, np.zeros(49), np.asarray(heights), th)
    assert np.array_equal(looks.look[f3], kept[0])
    assert np.array_equal(looks.chroma_lo[f3], kept[1])
    assert np.array_equal(looks.chroma_hi[f3], kept[2])
