"""What a prompted stack seen grown tells, when the players have played on.

A player who never answers ``choose-destination`` leaves the table a prompt while the next
moves are made. A camera that sees one of the prompted cells taller says where the stack
landed, but only while nothing else could have made that cell grow: the board showing that
move alone. Once the next players have moved, the explanations of the board say what each
prompted cell's height would be: where in every explanation that has that one cell grown the
prompted action landed on it, the growth tells the landing still (room game 135: H5's piece
onto G5, never answered; the next moves H4G3 and G4's onto G5 or beside it kept both
landings open, and the camera read G5 grown for 20 s). What the camera says of the other
prompted cells is not asked: a stack grown by two moves may read as not (room game 132).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.table.catchup import Hypothesis
from engine.geometry import iter_cells


def heights_along(heights: Sequence[int], h: Hypothesis) -> list[int]:
    """The heights standing after the actions of ``h`` from ``heights`` (stacks cut off
    still standing; a stack in the hand is none)."""
    out = list(heights)
    for m in h.real_moves():
        if m.source is None or m.target is None:
            continue
        out[m.target] += out[m.source]
        out[m.source] = 0
    if h.lifted is not None:
        out[h.lifted] = 0
    return out


def told_by_growth(heights: Sequence[int], options: Sequence[Hypothesis], choice: int,
                   by: int) -> int:
    """The prompted cells (``choice``) that, seen grown, tell that the prompted action (the
    first of every explanation in ``options``, from the table with ``heights`` standing)
    landed there: the cell grew in some explanation, and every explanation in which it grew
    has its first action land on it. ``by`` is the moved stack's height (none: nothing
    tells). What the others did is not asked (the camera may miss a stack grown: room game
    132, G2 grown by G1's and F2's stacks, read as not)."""
    if not options or by < 1 or any(h.back for h in options):
        return 0
    told = bad = 0
    for h in options:
        moves = h.real_moves()
        first = moves[0] if moves else None
        if first is None or first.target is None or not (choice >> first.target) & 1:
            return 0
        after = heights_along(heights, h)
        grew = [c for c in iter_cells(choice) if after[c] > heights[c]]
        for c in grew:
            if c == first.target:
                told |= 1 << c
            else:
                bad |= 1 << c
    return told & ~bad
