"""Which action explains a stable snapshot: a pure function of the position and the readings.

``explain(game, expected, snap, ...)`` compares a stable snapshot with the board the position
needs and says what the players did: nothing (``idle``), a placement, a stack lifted (with the
legal landing spaces the readings still allow), a move that is now certain, or something no
legal action explains (``mismatch``, with the differing cells). It never changes the game.

Facts used (ARCHITECTURE.md): in phase 2 an empty space never fills again; a move empties its
source and puts the mover's colour on top of its target; cut-off stacks go afterwards, so a
removal read empty is evidence for the moves that cut that stack off.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.expected import EMPTY, Expected, matches
from engine.game import Game
from engine.geometry import iter_cells
from engine.move import Move

IDLE = "idle"
PLACE = "place"
LIFTED = "lifted"
MOVE = "move"
MISMATCH = "mismatch"


@dataclass(frozen=True)
class Explanation:
    """What a stable snapshot means.

    ``kind`` is one of IDLE, PLACE, LIFTED, MOVE, MISMATCH. ``move`` is the action to commit
    (PLACE, MOVE). For LIFTED: ``source``, ``candidates`` (legal targets the readings still
    allow, a mask) and ``returning`` (candidates read empty now: a "lift the destination and
    set it back" gesture under way; only moves to such a cell, or cutting it off, remain).
    ``mismatch`` is the mask of cells no legal action explains.
    """

    kind: str
    move: Move | None = None
    source: int | None = None
    candidates: int = 0
    returning: int = 0
    mismatch: int = 0


def explain(
    game: Game,
    expected: Expected,
    snap: str,
    *,
    source_hint: int | None = None,
) -> Explanation:
    """Explain the stable snapshot ``snap`` against ``expected`` in the position ``game``."""
    diff = expected.diff(snap)
    if not diff:
        return Explanation(IDLE)
    if game.placing:
        return _explain_placing(game, expected, snap, diff)
    if game.is_over():
        return Explanation(MISMATCH, mismatch=diff)
    return _explain_moving(game, expected, snap, diff, source_hint)


def _explain_placing(game: Game, expected: Expected, snap: str, diff: int) -> Explanation:
    """Phase 1: exactly one new piece on an empty space, of the right colour if seen."""
    if diff & (diff - 1):
        return Explanation(MISMATCH, mismatch=diff)
    cell = diff.bit_length() - 1
    if expected.board[cell] != EMPTY:
        return Explanation(MISMATCH, mismatch=diff)
    piece = game.piece_to_place()
    assert piece is not None
    if not matches(piece, snap[cell]):
        return Explanation(MISMATCH, mismatch=diff)
    return Explanation(PLACE, move=Move.place(cell))


def _explain_moving(
    game: Game, expected: Expected, snap: str, diff: int, source_hint: int | None
) -> Explanation:
    """Phase 2: one lifted stack of the side to move, and what its readings allow."""
    lifted = [c for c in iter_cells(diff) if snap[c] == EMPTY]
    movable = game.movable()
    sources = [c for c in lifted if (movable >> c) & 1]
    if source_hint in sources:
        assert source_hint is not None
        sources.remove(source_hint)
        sources.insert(0, source_hint)
    found: list[Explanation] = []
    for source in sources:
        result = _explain_source(game, snap, diff, source)
        if result is not None:
            if source == source_hint:
                return result
            found.append(result)
    if len(found) == 1:
        return found[0]
    return Explanation(MISMATCH, mismatch=diff)


def _explain_source(game: Game, snap: str, diff: int, source: int) -> Explanation | None:
    """The moves from ``source`` that agree with the readings, or None when none does."""
    mover = game.turn
    targets = game.destinations(source)
    rest = diff & ~(1 << source)
    possible = 0
    for target in iter_cells(targets):
        if _agrees(game, snap, rest, Move.step(source, target), mover):
            possible |= 1 << target
    if not possible:
        return None
    returning = 0
    for c in iter_cells(possible):
        if snap[c] == EMPTY:
            returning |= 1 << c
    if not returning and not possible & (possible - 1):
        return Explanation(MOVE, move=Move.step(source, possible.bit_length() - 1), source=source)
    return Explanation(LIFTED, source=source, candidates=possible, returning=returning)


def _agrees(game: Game, snap: str, rest: int, move: Move, mover: str) -> bool:
    """Whether every remaining differing cell is explained by ``move``: its target showing the
    mover's colour or lifted for the gesture (read empty), or a stack the move cuts off already
    taken away."""
    target = move.target
    assert target is not None
    cut = game.removal_if(move) if rest else 0
    for c in iter_cells(rest):
        read = snap[c]
        if c == target and (read == EMPTY or matches(mover, read)):
            continue
        if (cut >> c) & 1 and read == EMPTY:
            continue
        return False
    return True


def visible_targets(game: Game, expected: Expected, candidates: int) -> int:
    """Candidates where landing changes the top colour (a camera can see it land there)."""
    mover = game.turn
    out = 0
    for c in iter_cells(candidates):
        if expected.board[c] != mover:
            out |= 1 << c
    return out
