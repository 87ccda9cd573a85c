"""The table's state as plain JSON-ready data: the seam for the web view and remote players.

``table_state(controller)`` gathers what a phone next to the table should show: the position
(stacks bottom->top per cell), whose turn and what to do, the LED roles, the actions so far,
the score, and the result. It reads the controller and changes nothing.

Version 2 adds three keys to version 1 (nothing else changed): ``last_move`` (the last
action, passes skipped: ``{"action", "from", "to"}``, ``from`` None for a placement; None
before the first action), ``removed`` (the stacks that action cut off, cell name -> pieces
bottom->top) and ``analysis`` (the hint the players asked the computer for while it is shown:
``{"best", "score", "depth", "cuts"}``, else None; the web view hides it from spectators).
Readers of version 1 can ignore them. ``messages`` (language -> the message in it, for the
page's language switch) came later in version 2; ``message`` stays English. ``tutor`` (the
live tutor's level, switch, marks by action index, latest mark, take-back offer and the cells
it lights; None without a tutor) came later too, and ``clock`` (the game clock,
controller.table.timer.TableClock.state: remaining seconds of both sides at ``at``, the
server's wall clock, the running side, ``flag``/``result`` once a flag fell; None without a
clock): a flag ends the game before the rules do, so ``phase`` and ``winner`` stay the
engine's and ``clock.result`` says it.
"""

from __future__ import annotations

from typing import Any

from controller.i18n import LANGUAGES, localize
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import CELL_NAMES, NUM_CELLS, iter_cells

FORMAT = "dvonn-board/table-state"
VERSION = 2


def table_state(ctl: TableController) -> dict[str, Any]:
    """A JSON-ready dict of the controller's state (see the module docstring)."""
    game = ctl.game
    view = ctl.view()
    white, black = game.score()
    last_move, removed = last_step(game)
    return {
        "format": FORMAT,
        "version": VERSION,
        "game_id": ctl.game_id,
        "players": {"white": ctl.players[0], "black": ctl.players[1]},
        "ply": game.ply,
        "phase": "over" if game.is_over() else "placing" if game.placing else "moving",
        "turn": game.turn,
        "piece_to_place": game.piece_to_place(),
        "stacks": {CELL_NAMES[c]: game.stack(c) for c in range(NUM_CELLS) if game.stack(c)},
        "actions": [str(m) for m in game.move_stack],
        "score": {"white": white, "black": black},
        "winner": game.winner(),
        "roles": view.named_roles(),
        "blink": sorted(CELL_NAMES[c] for c in view.blink),
        "prompt": view.prompt,
        "message": view.message,
        "messages": {lang: localize(view.message, lang) for lang in LANGUAGES},
        "hints": ctl.hints,
        "colours": ctl.colours,
        "last_move": last_move,
        "removed": removed,
        "analysis": analysis(ctl),
        "tutor": tutor(ctl),
        "clock": ctl.timer.page() if ctl.timer is not None else None,
    }


def analysis(ctl: TableController) -> dict[str, Any] | None:
    """The computer's hint on show (``ctl.opponent.hint``, see
    controller.players.opponent), or None."""
    hint = getattr(getattr(ctl, "opponent", None), "hint", None)
    best = getattr(hint, "best", None)
    if hint is None or best is None:
        return None
    return {"best": str(best), "score": round(float(hint.score), 2),
            "depth": int(getattr(hint, "depth", 0)),
            "cuts": [CELL_NAMES[c.cell] for c in getattr(hint, "cuts", ())]}


def tutor(ctl: TableController) -> dict[str, Any] | None:
    """The live tutor's marks and take-back offer (controller.players.tutor), or None
    without a tutor."""
    state = getattr(getattr(ctl, "opponent", None), "tutor_state", None)
    return state() if callable(state) else None


def last_step(game: Game) -> tuple[dict[str, str | None] | None, dict[str, str]]:
    """The last action (passes skipped) and the stacks it cut off, by cell name."""
    plies = 0
    for move in reversed(game.move_stack):
        plies += 1
        if move.is_pass:
            continue
        if move.target is None:  # pragma: no cover - passes are skipped above
            return None, {}
        if move.source is None:
            return {"action": str(move), "from": None, "to": CELL_NAMES[move.target]}, {}
        before = game.copy()
        for _ in range(plies):
            before.pop()
        stacks = before.stacks()
        cut = before.push(move)
        return ({"action": str(move), "from": CELL_NAMES[move.source],
                 "to": CELL_NAMES[move.target]},
                {CELL_NAMES[c]: stacks[c] for c in iter_cells(cut)})
    return None, {}
