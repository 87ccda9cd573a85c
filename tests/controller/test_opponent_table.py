"""The computer on the simulated table, end to end: TableController + Opponent fed readings.

The computer is to act; the LEDs show its action (``suggest``); the person carries it out (it
commits) or does something else (a mismatch lighting what was expected, never committed) and
then puts the board back and follows. Also: placements, the hint button, the occupancy-only
sensor (confirm picks the suggested destination) and whole demo games with computer players.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from table_helpers import PLACEMENT, Feeder, board

from controller.players.opponent import Opponent
from engine.game import Game
from engine.geometry import CELL_NAMES, parse_cell
from engine.move import Move


def lifted(snap: str, cell: int, value: str = ".") -> str:
    return snap[:cell] + value + snap[cell + 1:]


def after(game: Game, move: Move, colours: bool) -> str:
    """The table's reading once ``move`` is carried out (no cut-off stacks taken away yet)."""
    g = game.copy()
    before = g.stacks()
    g.push(move)
    snap = list(board(g, colours))
    for c in range(49):  # cut-off stacks stay on the table until the players take them away
        if before[c] and not g.stack(c) and c != move.source:
            snap[c] = before[c][-1] if colours else "x"
    return "".join(snap)


def table_with_computer(game: Game, white: str, black: str, *, colours: bool = True,
                        seed: int = 1) -> tuple[Feeder, Opponent]:
    f = Feeder(game=game, colours=colours)
    opponent = Opponent(white, black, seed=seed)
    opponent.attach(f.ctl)
    f.read(board(game, colours))
    return f, opponent


def suggested(f: Feeder) -> set[str]:
    return {name for name, role in f.roles().items() if role == "suggest"}


def test_computer_to_move_the_person_follows() -> None:
    game = Game.from_moves(PLACEMENT)  # White (the computer) to move
    f, opp = table_with_computer(game, "ai:2", "human")
    move = opp.pending
    assert move is not None and move.source is not None and move.target is not None
    assert suggested(f) == {CELL_NAMES[move.source], CELL_NAMES[move.target]}
    assert f"White (computer) plays {move}" in f.ctl.view().message
    # The person lifts the suggested stack: its destination stays lit.
    f.read(lifted(board(game, True), move.source))
    assert f.roles()[CELL_NAMES[move.target]] == "suggest"
    # ... and sets it down there: committed as usual.
    f.read(after(game, move, True))
    assert f.ctl.game.move_stack[-1] == move and f.ctl.game.ply == game.ply + 1
    assert "mismatch" not in f.roles().values()
    assert opp.pending is None  # Black (a person) to move: nothing suggested


def test_computer_to_move_the_person_plays_something_else() -> None:
    game = Game.from_moves(PLACEMENT)
    f, opp = table_with_computer(game, "ai:2", "human")
    move = opp.pending
    assert move is not None and move.source is not None and move.target is not None
    other = next(m for m in game.legal_moves()
                 if m.source not in (move.source, move.target) and not game.removal_if(m))
    assert other.source is not None
    f.read(after(game, other, True))
    # Never accepted: the game did not advance; the changed cells are a mismatch and the
    # computer's action stays lit.
    assert f.ctl.game.ply == game.ply
    roles = f.roles()
    assert roles[CELL_NAMES[other.source]] == "mismatch"
    assert roles[CELL_NAMES[move.source]] in ("suggest", "mismatch")
    assert roles[CELL_NAMES[move.target]] in ("suggest", "mismatch")
    message = f.ctl.view().message
    assert f"the computer plays {move}" in message and "restore" in message
    # The person puts the board back: no mismatch, the suggestion shows again.
    f.read(board(game, True))
    assert "mismatch" not in f.roles().values()
    assert suggested(f) == {CELL_NAMES[move.source], CELL_NAMES[move.target]}
    assert "put the board back" not in f.ctl.view().message
    # ... and now follows it.
    f.read(after(game, move, True))
    assert f.ctl.game.move_stack[-1] == move


def test_computer_places_and_a_wrong_placement_is_refused() -> None:
    game = Game.from_moves(PLACEMENT[:10])  # White to place; Black is the computer next
    f, opp = table_with_computer(game, "human", "ai:1", colours=False)
    assert opp.pending is None
    mine = Move.parse("F5")
    f.read(after(game, mine, False))  # the person (White) places
    assert f.ctl.game.move_stack[-1] == mine
    game.push(mine)
    move = opp.pending
    assert move is not None and move.is_placement and move.target is not None
    assert suggested(f) == {CELL_NAMES[move.target]}
    wrong = next(m for m in game.legal_moves() if m != move)
    assert wrong.target is not None
    f.read(after(game, wrong, False))
    assert f.ctl.game.ply == game.ply
    assert f.roles()[CELL_NAMES[wrong.target]] == "mismatch"
    f.read(board(game, False))  # taken away again
    f.read(after(game, move, False))
    assert f.ctl.game.move_stack[-1] == move


def test_occupancy_only_confirm_commits_the_suggested_destination() -> None:
    """Hall sensors cannot see where a stack lands: the suggested destination is the one
    ``confirm`` picks."""
    game = Game.from_moves(PLACEMENT)
    f, opp = table_with_computer(game, "ai:2", "human", colours=False)
    move = opp.pending
    assert move is not None and move.source is not None and move.target is not None
    f.read(lifted(board(game, False), move.source))
    for _ in range(8):
        if f.ctl.game.ply > game.ply:
            break
        assert f.roles()[CELL_NAMES[move.target]] == "suggest"
        if f.ctl.suggested == move.target:
            f.press("confirm")
        else:
            f.press("next")
    assert f.ctl.game.move_stack[-1] == move


def test_hint_button_shows_the_best_action_in_a_human_game() -> None:
    game = Game.setup({"F3": "r", "E3": "w", "D3": "bb"})
    f, opp = table_with_computer(game, "human", "human")
    assert suggested(f) == set()
    f.press("hint")
    assert opp.hint is not None and str(opp.hint.best) == "E3F3"
    roles = f.roles()
    assert roles["E3"] == roles["F3"] == "suggest"
    assert roles["D3"] == "suggest"
    assert parse_cell("D3") in f.ctl.view().blink  # would be cut off: blinks
    assert "hint: E3F3" in f.ctl.view().message and "cuts off D3" in f.ctl.view().message
    f.press("hint")  # pressed again: hidden
    assert suggested(f) == set()


def test_demo_with_computer_players_plays_a_whole_game() -> None:
    from controller.sim.demo import DemoOptions, run_demo
    from controller.sim.hands import Habits

    out = io.StringIO()
    result = run_demo(DemoOptions(fast=True, seed=3, direct=True, white="ai:1",
                                  black="greedy", quiet=True, habits=Habits(noise=0.0)), out)
    assert result.over
    game = Game.from_moves(result.actions)
    assert game.is_over()
    opponent = result.controller.opponent
    assert opponent is not None and opponent.players["w"] is not None


def test_demo_command_takes_players_for_each_side() -> None:
    from controller.cli import main

    assert main(["demo", "--fast", "--direct", "--seed", "4", "--no-noise",
                 "--players", "ai:2,greedy"]) == 0
    assert main(["demo", "--fast", "--direct", "--seed", "4", "--no-noise",
                 "--white", "random", "--black", "ai:1"]) == 0
    assert main(["demo", "--players", "chess,greedy"]) == 2
    assert main(["demo", "--white", "ai:0"]) == 2


def test_config_names_who_plays_each_side() -> None:
    from controller.config.settings import parse_config
    from engine.errors import ConfigError

    cfg = parse_config('[players]\nwhite_player = "AI:3"\nmove_time = 0.5\n')
    assert cfg.players.white_player == "ai:3" and cfg.players.black_player == "human"
    assert cfg.players.move_time == 0.5
    with pytest.raises(ConfigError, match="players.black_player"):
        parse_config('[players]\nblack_player = "chess"\n')


def test_play_refuses_a_bad_player_before_opening_anything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("DVONN_DATA_DIR", str(tmp_path))
    assert main(["play", "--white", "robot"]) == 2
    assert "player 'robot' is not one of" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
