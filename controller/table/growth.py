"""What tells where a prompted action landed without an answer: the board showing that move
alone (:func:`shows_alone`), or a prompted stack seen grown, when the players have played on.

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

from controller.table.catchup import Hypothesis, cells_of
from engine.game import Game
from engine.geometry import NUM_CELLS, iter_cells
from engine.move import Move


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


def shows_alone(game: Game, source: int | None, choice: int, diff: int, board: str | None,
                options: Sequence[Hypothesis] = ()) -> bool:
    """Whether the board (``diff``: the cells that read otherwise than ``game``) shows one
    move from ``source`` to one of the ``choice`` cells and nothing else: the source empty,
    and any other cell that differs read empty and cut off by one of those moves (taken
    away with it: room game 112's last move); or, where every explanation (``options``)
    made more actions, none of the later ones came near those cells (:func:`_later_apart`)."""
    if source is None or not (diff >> source) & 1:
        return False
    if _later_apart(game, options, choice):
        return True
    rest = diff & ~(1 << source)
    if not rest:
        return True
    if board is None or len(board) != NUM_CELLS or any(board[c] != "." for c in iter_cells(rest)):
        return False
    cut = 0
    for c in iter_cells(choice):
        g = game.copy()
        move = Move(source, c)
        if move in g.legal_moves():
            cut |= g.push(move)
    return not rest & ~cut


def _later_apart(game: Game, options: Sequence[Hypothesis], choice: int) -> bool:
    """Whether the actions every explanation makes after the prompted one keep off the
    prompted cells (``choice``): none moves from or onto one, or cuts one off, so a prompted
    stack grown by the moved stack's height grew by the prompted action (room game 135: H5's
    stack onto G5 and H4's onto G3 between two frames; the board never showed H5's alone)."""
    if not options:
        return False
    for h in options:
        moves = h.real_moves()
        if h.back or len(moves) < 2 or (h.lifted is not None and (choice >> h.lifted) & 1):
            return False
        first = moves[0]
        if first.target is None or not (choice >> first.target) & 1:
            return False
        g = game.copy()
        for m in h.moves:  # (the forced passes too)
            later = m is not first and not m.is_pass
            if later and cells_of(m) & choice:
                return False
            if g.push(m) & choice and later:
                return False
    return True
