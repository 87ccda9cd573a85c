"""table_state version 2: the last action and the stacks it cut off (version 1 unchanged)."""

from __future__ import annotations

import json

from controller.publish import FORMAT, VERSION, last_step, table_state
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import CELL_NAMES
from engine.move import Move


def test_version_2_adds_last_move_and_removed_only() -> None:
    state = json.loads(json.dumps(table_state(TableController())))
    assert (state["format"], state["version"]) == (FORMAT, VERSION) == (FORMAT, 2)
    assert state["last_move"] is None and state["removed"] == {} and state["analysis"] is None
    v1 = {"format", "version", "game_id", "players", "ply", "phase", "turn", "piece_to_place",
          "stacks", "actions", "score", "winner", "roles", "blink", "prompt", "message",
          "hints", "colours"}
    later = {"tutor", "clock"}  # later additions of version 2, None when off
    assert set(state) - later == v1 | {"last_move", "removed", "analysis", "messages"}
    assert state.get("clock") is None
    # the message in each language the page can switch to; "message" stays English
    assert state["messages"] == {"en": "White to place a DVONN piece",
                                 "de": "Weiß setzt einen DVONN-Stein"}
    assert state["message"] == state["messages"]["en"]


def test_last_step_names_the_move_and_the_stacks_it_cut_off_skipping_passes() -> None:
    import random

    rng = random.Random(5)
    seen_removal = seen_pass = False
    for _ in range(30):
        game = Game()
        while not game.is_over():
            move = rng.choice(game.legal_moves())
            before = game.stacks()
            cut = game.push(move)
            last, removed = last_step(game)
            if move.is_pass:
                seen_pass = True
                continue
            assert last is not None and last["action"] == str(move)
            if move.is_placement:
                assert last["from"] is None and removed == {}
            else:
                assert (Move.parse(last["from"] + last["to"])) == move
                expect = {CELL_NAMES[c]: before[c] for c in range(49) if (cut >> c) & 1}
                assert removed == expect
                seen_removal |= bool(removed)
    assert seen_removal and seen_pass


def test_a_hint_of_the_computer_is_published_as_analysis_and_hidden_from_spectators() -> None:
    import random

    from controller.players.opponent import Opponent
    from controller.web.hub import public_state
    from hardware.events import ButtonEvent, SnapshotEvent

    rng = random.Random(2)
    game = Game()
    while game.placing:
        game.push(rng.choice(game.legal_moves()))
    ctl = TableController(game=game)
    Opponent(hint_nodes=300, hint_seconds=0.5).attach(ctl)
    ctl.handle(SnapshotEvent(0.0, game.snapshot()))
    ctl.handle(ButtonEvent(0.1, "hint"))
    state = table_state(ctl)
    shown = state["analysis"]
    assert shown is not None and Move.parse(shown["best"]) in game.legal_moves()
    assert f"hint: {shown['best']}" in state["message"]
    hinted = {shown["best"][:2], shown["best"][2:], *shown["cuts"]}
    assert hinted & set(state["roles"])
    spectators = public_state(state, share_hints=False)
    assert spectators["analysis"] is None and "hint:" not in spectators["message"]
    assert not hinted & {c for c, r in spectators["roles"].items() if r in ("suggest", "remove")}
