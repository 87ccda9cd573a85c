"""Which action explains a stable snapshot: a pure function of the position and the readings.

``explain(game, expected, snap)`` compares a stable snapshot with the board the position needs
and says what the players did: nothing (``idle``), a placement, a stack lifted (with the legal
landing spaces), a move that is now certain, a choice the readings cannot make (the cells that
tell the candidates apart), or something no legal action explains (``mismatch``, with the
differing cells). It never changes the game.

It is the one-action case of :mod:`controller.table.catchup`: every candidate action predicts the
whole board, and only candidates whose prediction agrees with every readable cell remain, so a
top colour that did not change is evidence too (a camera), and so is a cut-off stack already
taken away (occupancy only).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.table.catchup import Limits, Result, search
from controller.table.decision import decide
from controller.table.expected import Expected
from engine.game import Game
from engine.move import Move

IDLE = "idle"
PLACE = "place"
LIFTED = "lifted"
MOVE = "move"
MISMATCH = "mismatch"
WAIT = "wait"


@dataclass(frozen=True)
class Explanation:
    """What a stable snapshot means.

    ``kind`` is one of IDLE, PLACE, LIFTED, MOVE, MISMATCH, WAIT. ``move`` is the action to
    commit (PLACE, MOVE). For LIFTED: ``source`` (the stack in the hand or whose landing is in
    doubt, if one), ``candidates`` (its legal targets, a mask) and ``choice`` (the cells that
    tell the remaining explanations apart: the prompt; 0 when none is due; ``by_source``:
    they are the cells a stack may have come from, all landing on one cell). ``mismatch`` is
    the mask of cells no legal action explains. WAIT: an explanation needs a cell a hand
    still covers.
    """

    kind: str
    move: Move | None = None
    source: int | None = None
    candidates: int = 0
    choice: int = 0
    mismatch: int = 0
    by_source: bool = False


ONE_ACTION = Limits(depth=1, back=0)


def explain(
    game: Game,
    expected: Expected,
    snap: str,
    *,
    polarity: str | None = None,
) -> Explanation:
    """Explain the stable snapshot ``snap`` against ``expected`` in the position ``game``
    (one action at most, no take-backs)."""
    diff = expected.diff(snap)
    if not diff:
        return Explanation(IDLE)
    result = search(game, snap, removals=expected.removals, polarity=polarity, limits=ONE_ACTION)
    return from_result(game, expected, snap, result)


def from_result(game: Game, expected: Expected, snap: str, result: Result,
                pick: int | None = None) -> Explanation:
    """The Explanation of a one-action search result (see :func:`explain`)."""
    d = decide(result, pick=pick)
    if d.kind == "idle":
        return Explanation(IDLE)
    if d.kind == "commit" and not d.back and len(d.moves) >= 1:
        move = d.moves[0]
        return Explanation(PLACE if move.is_placement else MOVE, move=move, source=move.source)
    if d.kind in ("lifted", "choose"):
        candidates = d.choice
        if d.source is not None:
            candidates |= game.destinations(d.source)
        return Explanation(LIFTED, source=d.source, candidates=candidates,
                           choice=d.choice if d.choice & (d.choice - 1) else 0,
                           by_source=d.by_source and bool(d.choice & (d.choice - 1)))
    if d.kind == "wait":
        return Explanation(WAIT, source=d.source)
    return Explanation(MISMATCH, mismatch=expected.diff(snap))


def visible_targets(game: Game, expected: Expected, candidates: int) -> int:
    """Candidates where landing changes the top colour (a camera can see it land there)."""
    mover = game.turn
    out = 0
    for c in range(49):
        if (candidates >> c) & 1 and expected.board[c] != mover:
            out |= 1 << c
    return out
