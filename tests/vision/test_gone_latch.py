"""A vacated cell on white paper passes the own-look test in every other frame only (the grown
destination leans over one direction, noise over another, the centre's print flips its tint):
once it read bare twice in a row with no hand near, it stays bare until a hand comes near,
its committed height changes or the board round it changes as a standing stack changes it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine.geometry import NEIGHBOURS, NUM_CELLS
from vision.cues.own_look import GONE_AFTER, CellLooks, read_bare
from vision.sampling import Thresholds

CELL = 24


class _Looks(CellLooks):
    """A cell's own look whose verdict the test sets frame by frame."""

    def __init__(self) -> None:
        super().__init__()
        self.verdict = np.zeros(NUM_CELLS, bool)

    def bare(self, s, open_for, th, also=None):  # type: ignore[no-untyped-def]
        return self.verdict.copy()


def _frame(looks: _Looks, bare: bool, heights: list[int] | None = None,
           covered: int | None = None, label: str = "w", reason: str = "") -> tuple[str, str]:
    heights = heights or [1 if c == CELL else 0 for c in range(NUM_CELLS)]
    looks.verdict[:] = False
    looks.verdict[CELL] = bare
    labels = "".join(label if c == CELL else "." for c in range(NUM_CELLS))
    reasons = [reason if c == CELL else "" for c in range(NUM_CELLS)]
    mask = np.zeros(NUM_CELLS, bool)
    if covered is not None:
        mask[covered] = True
    s = SimpleNamespace(heights=heights)
    out, _, why = read_bare(looks, s, lambda c, h: c, Thresholds(), labels,  # type: ignore[arg-type]
                            [0.5] * NUM_CELLS, reasons, mask)
    return out[CELL], why[CELL]


def test_a_cell_read_bare_twice_in_a_row_stays_bare_until_a_hand_comes() -> None:
    looks = _Looks()
    assert GONE_AFTER == 2
    assert _frame(looks, True)[0] == "."
    assert _frame(looks, False)[0] == "w"  # once is not enough: a flicker
    assert _frame(looks, True)[0] == "."
    assert _frame(looks, True)[0] == "."
    label, why = _frame(looks, False)
    assert label == "." and "no hand near" in why
    assert _frame(looks, False, label="?", reason="mixed colours")[0] == "."
    # a hand beside the cell: it may bring the stack back
    assert _frame(looks, False, covered=NEIGHBOURS[CELL][0])[0] == "w"
    assert _frame(looks, False)[0] == "w"


def test_the_latch_ends_with_a_hand_reason_a_new_height_or_a_changed_look() -> None:
    for end in ("reason", "height", "look"):
        looks = _Looks()
        _frame(looks, True)
        _frame(looks, True)
        assert _frame(looks, False)[0] == ".", end
        if end == "reason":
            got = _frame(looks, False, label="?", reason="something over the board here")
            assert got[0] == "?"
        elif end == "height":
            taller = [2 if c == CELL else 0 for c in range(NUM_CELLS)]
            assert _frame(looks, False, heights=taller)[0] == "w"
        else:
            looks.last = np.zeros(NUM_CELLS)
            looks.last[CELL] = 1.2  # changed all round as a new piece changes it
            assert _frame(looks, False)[0] == "w"
        assert _frame(looks, False)[0] == "w", end


def test_a_cell_the_heights_call_empty_is_not_held() -> None:
    looks = _Looks()
    empty = [0] * NUM_CELLS
    for _ in range(3):
        _frame(looks, True, heights=empty)
    assert _frame(looks, False, heights=empty)[0] == "w"


class _Asked(_Looks):
    """The same, where the verdict on a cell the heights call empty holds only when asked."""

    def bare(self, s, open_for, th, also=None):  # type: ignore[no-untyped-def]
        asked = np.asarray(s.heights) > 0
        if also is not None:
            asked = asked | also
        return self.verdict & asked


def test_in_the_placing_phase_a_piece_read_where_a_hand_was_is_kept() -> None:
    """Room game 113: a white piece on pale paper, read '.' a frame as the hand left, then
    'w'; the board round it is as it was when the cell was last seen empty, so the own look
    called it bare for good and the placement was never seen. Where a hand was over the cell
    since its look was kept, the piece read stands; where none was (a misread), it does not;
    in the moving phase no piece comes onto an empty cell, and the look decides as before."""
    empty = [0] * NUM_CELLS
    looks = _Asked()
    assert _frame(looks, True, heights=empty)[0] == "."  # no hand came: misread
    assert _frame(looks, True, heights=empty, label="?", reason="hidden by a stack")[0] == "?"
    assert _frame(looks, True, heights=empty)[0] == "w"  # the hand left a piece
    assert _frame(looks, True, heights=empty)[0] == "w"
    moving = [0 if c == CELL else 2 for c in range(NUM_CELLS)]
    looks = _Asked()
    _frame(looks, True, heights=moving, label="?", reason="hidden by a stack")
    assert _frame(looks, True, heights=moving)[0] == "."
