"""The table's state as plain JSON-ready data: the seam for the web view and remote players.

``table_state(controller)`` gathers what a phone next to the table should show: the position
(stacks bottom->top per cell), whose turn and what to do, the LED roles, the actions so far,
the score, and the result. It reads the controller and changes nothing.
"""

from __future__ import annotations

from typing import Any

from controller.session import TableController
from engine.geometry import CELL_NAMES, NUM_CELLS

FORMAT = "dvonn-board/table-state"
VERSION = 1


def table_state(ctl: TableController) -> dict[str, Any]:
    """A JSON-ready dict of the controller's state (see the module docstring)."""
    game = ctl.game
    view = ctl.view()
    white, black = game.score()
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
        "hints": ctl.hints,
        "colours": ctl.colours,
    }
