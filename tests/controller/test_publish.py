"""The published table state: complete, JSON-serialisable, and in step with the game."""

from __future__ import annotations

import json

from table_helpers import PLACEMENT, Feeder, board

from controller.publish import table_state
from engine.game import Game


def test_state_of_a_fresh_table_is_empty_and_white_places_red() -> None:
    f = Feeder()
    f.read("." * 49)
    state = json.loads(json.dumps(table_state(f.ctl)))
    assert state["format"] == "dvonn-board/table-state"
    assert (state["ply"], state["phase"], state["turn"], state["piece_to_place"]) == (
        0, "placing", "w", "r")
    assert state["stacks"] == {} and state["actions"] == [] and state["roles"] == {}
    assert "White to place a DVONN piece" in state["message"]


def test_state_follows_placements_and_roles() -> None:
    f = Feeder()
    f.read("." * 49)
    for i in range(4):
        f.read(board(Game.from_moves(PLACEMENT[: i + 1])))
    state = table_state(f.ctl)
    assert state["actions"] == PLACEMENT[:4]
    assert state["stacks"] == {"G2": "r", "E3": "r", "A3": "r", "J3": "b"}
    assert state["roles"] == {"J3": "last"}
    assert (state["turn"], state["piece_to_place"]) == ("w", "w")


def test_state_after_placing_is_the_moving_phase_with_a_score() -> None:
    f = Feeder()
    f.read("." * 49)
    for i in range(len(PLACEMENT)):
        f.read(board(Game.from_moves(PLACEMENT[: i + 1])))
    state = table_state(f.ctl)
    assert state["phase"] == "moving" and state["turn"] == "w"
    assert state["score"] == {"white": 23, "black": 23} and state["winner"] is None
    assert len(state["stacks"]) == 49
