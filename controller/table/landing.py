"""When the camera saw a stack leave, and whether it saw anything land after.

A stack cannot land before it left. Where a commit's move changes its landing's top colour,
the camera reads that colour there from when the stack landed: a landing cell read the moved
stack's colour since before the camera saw that stack leave (give or take ``SLACK``: the hand
leaves one cell a moment before the other), and not seen moved since (the touch cue,
vision.cues.touch), showed something else, and the commit waits (room game 116: J4, taller by
J3's and K4's stacks, showed its side over the vacated K4, which read white from 2 s before
H1's white-topped stack left; J3K4 H1K4 was committed for J3J4 K4J4 H1H4, J3's black top
never seen on K4). A landing the camera could not read since the stack left says nothing
(room game 119: E4, '?' behind a taller stack from before E5E4 to after E1E4). A landing on
a top of the same colour shows no colour; the touch cue misses some (room game 102: D2D4),
so there nothing seen is no reason to wait. A red top is nobody's: no stack topped so moves
and no move leaves one, so a red reading neither dates a stack nor shows a landing.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.game import Game
from engine.geometry import NUM_CELLS, iter_cells
from engine.move import Move

#: Seconds by which a landing may be seen moved before the stack's leaving was.
SLACK = 1.0

_INF = float("inf")


class Touches:
    """Per cell, when the camera saw its stack moved and leave since the last commit, and the
    colour it reads white or black, since when, and when it last read it."""

    def __init__(self) -> None:
        self._moved = [-_INF] * NUM_CELLS  # last seen moved
        self._pending: list[float | None] = [None] * NUM_CELLS  # seen moved, not read since
        self._left: list[float | None] = [None] * NUM_CELLS
        #: per cell: the colour it reads white or black, since when, and when last read so
        self._run: list[tuple[str, float, float]] = [("", -_INF, -_INF)] * NUM_CELLS

    def clear(self) -> None:
        """An action was committed: what was seen moved before is that action's."""
        self._moved = [-_INF] * NUM_CELLS
        self._pending = [None] * NUM_CELLS
        self._left = [None] * NUM_CELLS

    def observe(self, new: int, board: str, t: float) -> None:
        """A reading: ``new`` the stacks first seen moved in it, ``board`` as read."""
        pending, left = self._pending, self._left
        for c in iter_cells(new):
            self._moved[c] = t
            if pending[c] is None:
                pending[c] = t
        for c, ch in enumerate(board):
            if ch in "wb":
                pending[c] = None
                colour, began, _ = self._run[c]
                self._run[c] = (ch, began if colour == ch else t, t)
            elif ch == "." and pending[c] is not None:
                if left[c] is None:
                    left[c] = pending[c]
                pending[c] = None

    def left(self, c: int) -> float | None:
        """When the stack on ``c`` was first seen to leave since the last commit: seen moved,
        then read empty before it read a top (a hand passing over it, or a stack lifted and
        set back, is not; a vacated cell that flickers its old top later still left)."""
        return self._left[c]

    def landed_unseen(self, game: Game, moves: Sequence[Move]) -> bool:
        """Whether one of ``moves`` (played from ``game``) lands where the camera saw
        nothing change since ``SLACK`` seconds before it saw that stack leave."""
        g = game.copy()
        for m in moves:
            if m.source is not None and m.target is not None:
                left = self.left(m.source)
                if left is not None and not self._landed(g, m, left - SLACK):
                    return True
            g.push(m)
        return False

    def _landed(self, g: Game, m: Move, since: float) -> bool:
        """Whether ``m`` may have landed since ``since``: False only where it changes its
        landing's top colour, the camera has read that cell the moved stack's colour since
        before ``since`` and read it so after (a cell unreadable since, behind a taller stack
        or under a hand, says nothing: room game 119's E4, '?' from before E5E4 landed on it
        to after E1E4 did) and saw it moved only before then."""
        assert m.source is not None and m.target is not None
        top, mine = g.stack(m.target)[-1:], g.stack(m.source)[-1:]
        colour, began, last = self._run[m.target]
        return (top == mine or colour != mine or began >= since or last < since
                or self._moved[m.target] >= since)
