"""Where the camera saw stacks set down, kept across commits: the landings players who never
answer a prompt leave behind.

A move onto a stack topped by the mover's colour shows no colour; when the players go on
without answering the prompt, the later actions often cannot tell where it went either (room
games 143, 148, 159: three such moves in a row, the game over, every landing still open). But
the camera saw the stack set down: a stack that receives another lands a few millimetres off
where it stood, and the touch cue (vision.cues.touch) marks it as the hand leaves (one it
marks with no hand over it a moment before counts for nothing). So when a move's source was
seen to leave and, of the stacks it may have landed on, exactly one was seen moved from just
before that until the next stack was seen to leave (a few seconds at most), once the others
were out from under the hand, the explanations where it landed elsewhere are dropped
(:meth:`SetDowns.keep`). Seen moved at two or at none says nothing (a touch missed, a
neighbour shaken, a knock).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.table.catchup import Hypothesis
from engine.game import Game
from engine.geometry import NEIGHBOUR_MASKS, NUM_CELLS, iter_cells
from engine.move import Move

#: Seconds before its source was seen empty from which a landing seen moved counts: the hand
#: leaves the landing and the source in one reading or two.
EARLY = 0.5
#: Seconds after its source was seen empty until which a landing seen moved counts at most: a
#: stack is set down within a second or two, held in the air now and then (room game 120: 2 s);
#: a stack seen moved later is a hand passing, a knock or a later move's (room game 148: I5
#: seen moved 7 s after J5's stack landed on J4, while nothing else left).
LATE = 4.0
#: Seconds since a cell was last under a hand (read '?') within which it may be seen moved:
#: a stack is set down by a hand; one seen moved with no hand over it is an arm's shade or the
#: camera's exposure (room game 104).
HAND = 2.0
#: Seconds from the first to the last reading of a top (spells of '?' between) before a cell
#: read empty is a stack leaving: a vacated cell flickers its old top now and then, a moment
#: before a hand comes over it (simulated camera session 233: A3, and A3A2 was dropped for
#: D4's landing on B4 after A3's second "leaving").
STOOD = 1.0

_INF = float("inf")


class SetDowns:
    """Per cell, when its stack was seen to leave and when it was seen moved (set down or
    received a stack), since the game began."""

    def __init__(self) -> None:
        #: per cell, since when it reads a top ('?' between aside) and when it last did
        self._top: list[tuple[float, float] | None] = [None] * NUM_CELLS
        self._left: list[list[float]] = [[] for _ in range(NUM_CELLS)]
        self._moved: list[list[float]] = [[] for _ in range(NUM_CELLS)]
        self._lefts: list[tuple[float, int]] = []  # every leaving and its cell, in time order
        self._under = [-_INF] * NUM_CELLS  # when it last read '?'
        #: per cell, when it began and ended to read '?' (under a hand): (time, under)
        self._views: list[list[tuple[float, bool]]] = [[] for _ in range(NUM_CELLS)]
        self._now = -_INF  # the latest reading's time
        self.seen = False  # whether any stack was ever seen moved (a camera that tells)

    def observe(self, new: int, board: str, t: float) -> None:
        """A reading: ``new`` the stacks first seen moved in it, ``board`` as read."""
        for c in iter_cells(new):
            if board[c] != "." and t - self._under[c] <= HAND + 1e-9:
                self._moved[c].append(t)
                self.seen = True
        self._now = t
        for c, ch in enumerate(board):
            top = self._top[c]
            views = self._views[c]
            if (ch == "?") != (bool(views) and views[-1][1]):
                views.append((t, ch == "?"))
            if ch == "?":
                self._under[c] = t
            elif ch in "wbr":
                self._top[c] = (t, t) if top is None else (top[0], t)
            elif ch == ".":
                if top is not None and top[1] - top[0] >= STOOD - 1e-9:
                    self._left[c].append(t)
                    self._lefts.append((t, c))
                self._top[c] = None

    def left(self, cell: int) -> float:
        """When ``cell``'s stack was last seen to leave (minus infinity: never)."""
        return self._left[cell][-1] if self._left[cell] else -_INF

    def keep(self, game: Game, hypotheses: list[Hypothesis]) -> list[Hypothesis]:
        """The explanations (played from ``game``) none of whose moves the set-downs seen
        contradict; all of them where that would leave none (then what the camera saw
        moved is wrong, not every explanation)."""
        if not self.seen:
            return hypotheses
        kept = [h for h in hypotheses if h.back or self._fits(game, h.moves)]
        return kept if any(not h.back for h in kept) else hypotheses

    def _fits(self, game: Game, moves: Sequence[Move]) -> bool:
        g = game.copy()
        for m in moves:
            if m.source is not None and m.target is not None and not self._agrees(g, m):
                return False
            g.push(m)
        return True

    def _agrees(self, g: Game, m: Move) -> bool:
        """Whether ``m`` (from ``g``) lands where the camera saw its stack set down, or the
        camera cannot tell: its source was never seen to leave, or not exactly one of the
        stacks it may have landed on was seen moved since just before it left (one that
        changed colour may have been covered again by a later move: room game 154, D3's
        white stack onto the red C3, D4's black one after it)."""
        assert m.source is not None and m.target is not None
        if not self._left[m.source]:
            return True
        left = self._left[m.source][-1]
        after, lifted = next(((t, c) for t, c in self._lefts if t > left), (_INF, -1))
        until = min(after, left + LATE)
        targets = list(iter_cells(g.destinations(m.source)))

        # (or, read '?' until then, as the next stack left away from it: a landing read at
        # last as another hand lifts elsewhere; room game 134: F4, '?' from D4's landing
        # until J5 left, seen moved then, and D2, shaken, was taken; not one shaken as the
        # hand lifts: room game 135, F3 beside G3 and F4 read before)
        def counts(c: int, t: float) -> bool:
            return left - EARLY - 1e-9 <= t < until or (
                after == until and abs(t - until) < 1e-9 and self._under_at(c, t - 1e-6)
                and c != lifted and not (NEIGHBOUR_MASKS[lifted] >> c) & 1)

        seen = [c for c in targets if any(counts(c, t) for t in self._moved[c])]
        if len(seen) != 1 or seen[0] == m.target:
            return True
        # the others must have come out from under the hand before the window closed: the
        # camera judges a stack moved as the hand leaves it (room game 134: D4's stack onto
        # F4, still under the hand as D2 beside it was seen moved; D4D2 was committed)
        end = min(until, self._now)
        return any(self._under_at(c, end) for c in targets if c != seen[0])

    def _under_at(self, cell: int, t: float) -> bool:
        """Whether ``cell`` read '?' at ``t`` (its last reading up to then)."""
        state = False
        for when, under in self._views[cell]:
            if when > t + 1e-9:
                break
            state = under
        return state
