"""controller.players.opponent on its own: suggestions, refusals, hints, external programs
kept in step.

(The end-to-end table flow, through TableController and the simulated table, is in
test_opponent_table.py.)
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.players.opponent import Opponent, _mover
from controller.players.player import ExternalPlayer, PlayerError
from engine.game import Game
from engine.move import Move

ENGINE = f"cmd:{sys.executable} -m controller.cli engine --level 1 --quiet"


#: The placement of RULES.md (White to move).
RULES_PLACEMENT = (
    "G2 E3 A3 J3 H3 H2 D4 I4 K3 G3 C1 B2 C5 I1 J2 G4 D2 D1 G1 C4 E2 A1 I5 H1 B3 F1 D3 K5 "
    "E1 E5 F3 B1 J4 F2 J5 K4 F5 I3 I2 C3 D5 H4 G5 H5 F4 C2 E4 A2 B4").split()


def table(game: Game) -> Any:
    """The part of a TableController the opponent reads."""
    return SimpleNamespace(game=game)


def test_humans_get_no_suggestion() -> None:
    opp = Opponent("human", "human")
    ctl = table(Game())
    opp.update(ctl)
    assert opp.pending is None and opp.roles(ctl, None) == ({}, 0)
    assert opp.refuse(ctl, [Move.parse("F3")], 0) is False


def test_the_computer_suggests_and_refuses_anything_else() -> None:
    game = Game.from_moves("F3 E3 G3".split())  # Black (ai) to place
    opp = Opponent("human", "ai:1", seed=2)
    ctl = table(game)
    opp.update(ctl)
    move = opp.pending
    assert move is not None and move.is_placement and move in game.legal_moves()
    roles, blink = opp.roles(ctl, None)
    assert roles == {move.target: "suggest"} and blink == 0
    assert "Black (computer) plays" in opp.message(ctl)
    other = next(m for m in game.legal_moves() if m != move)
    assert opp.refuse(ctl, [other], 0) is True
    assert opp.expected == move and "put the board back" in opp.message(ctl)
    assert opp.refuse(ctl, [move], 0) is False and opp.expected is None
    # A chain (the person's action, then one for the computer it has not shown yet) is
    # checked against the computer's choice there too.
    white = Opponent("ai:1", "ai:1", seed=2)
    two = [move, next(m for m in game.legal_moves() if m != move)]
    g2 = game.copy()
    g2.push(move)
    expected = white.players["w"].choose(g2.copy())  # type: ignore[union-attr]
    assert white.refuse(ctl, [move, expected], 0) is False
    assert white.refuse(ctl, [two[0], next(m for m in g2.legal_moves() if m != expected)],
                        0) is True
    assert white.expected == expected
    game.push(move)
    opp.update(ctl)
    assert opp.pending is None  # White (a person) acts now


def _computer_to_move() -> tuple[Game, Opponent, Any, Move]:
    """The RULES.md position, the computer (White) to move, its stack move suggested."""
    game = Game.from_moves(RULES_PLACEMENT)
    opp = Opponent("ai:2", "human", seed=1)
    ctl = table(game)
    opp.update(ctl)
    move = opp.pending
    assert move is not None and move.source is not None and move.target is not None
    return game, opp, ctl, move


def test_a_stack_move_lights_source_and_destination() -> None:
    game, opp, ctl, move = _computer_to_move()
    assert move.source is not None and move.target is not None
    assert opp.roles(ctl, None)[0] == {move.source: "suggest", move.target: "suggest"}
    # While the person holds the suggested stack, its destination stays lit.
    assert opp.roles(ctl, move.source)[0] == {move.target: "suggest"}


def test_hint_shows_the_best_action_and_what_it_cuts_off() -> None:
    game = Game.setup({"F3": "r", "E3": "w", "D3": "bb", "G3": "w", "G4": "b"})
    opp = Opponent()
    ctl = table(game)
    hint = opp.on_hint(ctl)
    assert hint is not None and hint.best in game.legal_moves()
    roles, blink = opp.roles(ctl, None)
    assert roles[hint.best.target] == "suggest"  # type: ignore[index]
    for cut in hint.cuts:
        assert roles[cut.cell] == "suggest" and blink >> cut.cell & 1
    assert opp.message(ctl).startswith("hint: ")
    game.push(hint.best)  # type: ignore[arg-type]
    opp.update(ctl)
    assert opp.hint is None  # a hint lasts until the position changes


def test_hint_cut_off_is_reported() -> None:
    # White's only sensible capture E3F3 cuts D3 off; the hint names it.
    game = Game.setup({"F3": "r", "E3": "w", "D3": "bb"})
    opp = Opponent()
    hint = opp.on_hint(table(game))
    assert hint is not None and str(hint.best) == "E3F3"
    assert [c.name for c in hint.cuts] == ["D3"]
    assert "cuts off D3" in opp.message(table(game))
    roles, blink = opp.roles(table(game), None)
    d3 = hint.cuts[0].cell
    assert roles[d3] == "suggest" and blink == 1 << d3  # lit, blinking: never 'remove'


def test_bad_specs_are_refused() -> None:
    with pytest.raises(PlayerError, match="is not one of"):
        Opponent("robot", "human")


def test_an_external_program_is_kept_in_step() -> None:
    opp = Opponent(ENGINE, "human")
    try:
        game = Game()
        ctl = table(game)
        for _ in range(8):  # White: the program; Black: a person placing the first free cell
            opp.update(ctl)
            if game.turn == "w":
                assert opp.pending is not None
                game.push(opp.pending)
            else:
                assert opp.pending is None
                game.push(game.legal_moves()[0])
        opp.update(ctl)
        assert isinstance(opp.players["w"], ExternalPlayer)
        assert opp._told["w"] == game.move_stack[:8]
    finally:
        opp.close()


def test_an_external_program_that_cannot_follow_a_take_back_is_dropped() -> None:
    opp = Opponent(ENGINE, "human")
    try:
        game = Game()
        ctl = table(game)
        opp.update(ctl)
        game.push(opp.pending)  # type: ignore[arg-type]
        game.push(game.legal_moves()[0])
        opp.update(ctl)
        game.pop()
        game.pop()
        game.push(game.legal_moves()[-1])  # a different history: a take-back happened
        opp.update(ctl)
        assert opp.players["w"] is None
        assert "White plays by hand" in opp.message(ctl)
        # A new game restarts the program.
        fresh = table(Game())
        opp.update(fresh)
        assert isinstance(opp.players["w"], ExternalPlayer) and opp.note == ""
        assert opp.pending is not None and opp.pending.is_placement
    finally:
        opp.close()


def test_a_crashing_program_hands_its_side_to_a_person(tmp_path: Path) -> None:
    script = tmp_path / "crash.py"
    script.write_text("import sys\nsys.exit(4)\n", encoding="utf-8")
    opp = Opponent(f"cmd:{sys.executable} {script}", "human")
    ctl = table(Game())
    opp.update(ctl)
    assert opp.players["w"] is None and opp.pending is None
    assert "exit code 4" in opp.note and "White plays by hand" in opp.note


def test_a_hanging_program_hands_its_side_to_a_person(tmp_path: Path) -> None:
    script = tmp_path / "hang.py"
    script.write_text("import sys, time\nfor line in sys.stdin:\n    time.sleep(60)\n",
                      encoding="utf-8")
    opp = Opponent(f"cmd:{sys.executable} {script}", "human", move_timeout=0.3)
    ctl = table(Game())
    opp.update(ctl)
    assert opp.players["w"] is None and opp.pending is None
    assert "no action at ply 1 within 0.3 s" in opp.note


def test_mover_of_each_action() -> None:
    assert [_mover(i) for i in (0, 1, 47, 48, 49, 50)] == ["w", "b", "b", "w", "w", "b"]


def test_an_external_program_plays_a_whole_table_game_with_passes() -> None:
    """The table passes for a side that cannot move; the program sends its own PASS, which the
    opponent reads back so the next action read is the real one."""
    from engine.ai import Engine
    from engine.move import PASS

    for seed in range(6):
        strong = Engine(3, seed=seed)  # Black: often leaves White without a move at the end
        opp = Opponent(ENGINE + f" --seed {seed}", "human")
        try:
            game = Game()
            ctl = table(game)
            passes = 0
            while not game.is_over():
                opp.update(ctl)
                assert opp.players["w"] is not None, opp.note
                if game.legal_moves() == [PASS]:  # the table passes by itself
                    passes += game.turn == "w"
                    game.push(PASS)
                elif game.turn == "w":
                    assert opp.pending is not None
                    game.push(opp.pending)
                else:
                    game.push(strong.choose(game))
            opp.update(ctl)
            assert opp.players["w"] is not None, opp.note
        finally:
            opp.close()
        if passes:
            return
    pytest.fail("no game in which the program had to pass")


def test_lifting_another_stack_still_shows_the_computers_action() -> None:
    game, opp, ctl, move = _computer_to_move()
    assert move.source is not None and move.target is not None
    other = next(m.source for m in game.legal_moves() if m.source != move.source)
    assert opp.roles(ctl, other)[0] == {move.source: "suggest", move.target: "suggest"}
