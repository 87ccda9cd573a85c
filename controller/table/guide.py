"""Compose the BoardView from the controller's state: what each LED should mean right now.

Priority per cell: ``mismatch`` > ``remove`` > the lifted stack's ``source`` / ``suggest`` /
``destination`` > ``last`` / ``movable`` (idle, phase 2, removals done) or the end-of-game
``own-white`` / ``own-black`` / ``winner``.
"""

from __future__ import annotations

from typing import Any, Protocol

from controller.i18n import N_, Msg
from controller.table.inference import LIFTED, MISMATCH, Explanation
from controller.table.view import BoardView
from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells

CHOOSE_DESTINATION = "choose-destination"
#: every candidate landed on the cell chosen, from different stacks: where did it come from?
CHOOSE_SOURCE = "choose-source"
_SIDE = {"w": "White", "b": "Black"}
#: the session's message when the game ends, by result
OVER = {"white": N_("game over: white {w} black {b}: white wins"),
        "black": N_("game over: white {w} black {b}: black wins"),
        "tie": N_("game over: white {w} black {b}: tie")}
#: the session's message when a side must pass (by: is it White?)
PASSED = {True: N_("White cannot move: PASS"), False: N_("Black cannot move: PASS")}


class TableState(Protocol):
    """What the guide reads of the table's controller (a TableController)."""

    game: Game
    explanation: Explanation
    blocked: bool  # after undo/new: the table must match before anything is inferred
    suggested: int | None
    removals: dict[int, str]
    hints: bool
    status: str
    message: str
    opponent: Any  # controller.players.opponent.Opponent, or None


def prompting(ctl: TableState) -> int:
    """The candidate cells the players must choose between (0 when no prompt is due).

    The controller prompts when the readings leave two or more explanations that differ
    (occupancy alone cannot see where a lifted stack lands; a camera cannot when several
    candidates already show the mover's colour); these cells tell them apart.
    """
    e = ctl.explanation
    if e.kind != LIFTED or ctl.blocked:
        return 0
    return e.choice


def last_step(ctl: TableState) -> tuple[int, int] | None:
    """Source and target of the last stack move (passes skipped), if the last action moved."""
    for move in reversed(ctl.game.move_stack):
        if move.is_pass:
            continue
        if move.source is None or move.target is None:
            return None
        return move.source, move.target
    return None


def compose(ctl: TableState) -> BoardView:
    """The BoardView of a TableController (reads its state, changes nothing)."""
    game = ctl.game
    e = ctl.explanation
    roles: dict[int, str] = {}
    blink = 0
    prompted: int | None = None  # prompting(ctl), once computed
    prompt = ""
    quiet = ctl.blocked or e.kind == MISMATCH  # the table must be put right first
    if game.is_over():
        winner = game.winner()
        for c in iter_cells(game.occupied):
            owner = game.owner(c)
            if owner is None:
                continue
            roles[c] = "winner" if owner == winner else f"own-{_SIDE[owner].lower()}"
    elif e.kind == LIFTED and not ctl.blocked:
        if e.source is not None:
            roles[e.source] = "source"
        for c in iter_cells(e.candidates):
            roles[c] = "source" if e.by_source else "destination"
        if ctl.suggested is not None and (e.candidates >> ctl.suggested) & 1:
            roles[ctl.suggested] = "suggest"
        blink = prompted = prompting(ctl)
        if blink:
            prompt = CHOOSE_SOURCE if e.by_source else CHOOSE_DESTINATION
    elif game.placing and game.move_stack and not quiet:
        placed = game.move_stack[-1].target
        if placed is not None:
            roles[placed] = "last"
    elif not game.placing and not ctl.removals and not quiet:
        last = last_step(ctl)
        if last is not None:
            roles[last[0]] = roles[last[1]] = "last"
        if ctl.hints:
            for c in iter_cells(game.movable()):
                roles[c] = "movable"
    opponent = ctl.opponent
    if opponent is not None and not ctl.blocked and not game.is_over():
        extra, lit = opponent.roles(ctl, e.source if e.kind == LIFTED else None)
        roles.update(extra)
        blink |= lit
    for c in ctl.removals:
        roles[c] = "remove"
    if e.kind == MISMATCH:
        for c in iter_cells(e.mismatch):
            roles[c] = "mismatch"
    return BoardView(roles=roles, blink=frozenset(iter_cells(blink)),
                     message=message(ctl, prompted=prompted), prompt=prompt)


def message(ctl: TableState, *, prompted: int | None = None) -> str:
    """One line for a display or terminal (``prompted``: :func:`prompting` when known)."""
    game = ctl.game
    e = ctl.explanation
    parts: list[str] = [ctl.status] if ctl.status else []
    if e.kind == MISMATCH:
        cells = " ".join(CELL_NAMES[c] for c in iter_cells(e.mismatch))
        parts.append(Msg("board differs at {cells}: restore the position", cells=cells))
    elif ctl.message:
        parts.append(ctl.message)
    if game.is_over():
        if not ctl.message.startswith("game over"):
            w, b = game.score()
            parts.append(Msg("game over: white {w} black {b}", w=w, b=b))
    elif e.kind == LIFTED and (prompting(ctl) if prompted is None else prompted):
        parts.append(Msg("press next/confirm on the cell the stack came from") if e.by_source
                     else Msg("lift the destination and set it back, or press next/confirm"))
    elif game.placing:
        parts.append(to_place(game.turn, game.piece_to_place()))
    elif ctl.removals:
        parts.append(Msg("remove the cut-off stacks"))
    else:
        parts.append(to_move(game.turn))
    opponent = ctl.opponent
    note = opponent.message(ctl) if opponent is not None else ""
    if note:
        parts.append(note)
    return Msg.joined(" | ", parts)


def to_move(side: str) -> Msg:
    """'White to move' / 'Black to move' (``side`` 'w' or 'b')."""
    return Msg("White to move") if side == "w" else Msg("Black to move")


def to_place(side: str, piece: str | None) -> Msg:
    """'White to place a DVONN piece', 'Black to place a piece', ..."""
    if piece == "r":
        return (Msg("White to place a DVONN piece") if side == "w"
                else Msg("Black to place a DVONN piece"))
    return Msg("White to place a piece") if side == "w" else Msg("Black to place a piece")
