"""``play --review``: the table walks the physical board through a recorded game (issue 26).

A TableController with the record attached (controller.players.walkthrough), fed readings on
its own clock (no sleeps): the record's next action lights as ``suggest``; carried out, it
commits; anything else is a mismatch until the board is put back; ``next`` steps on (the table
must follow) and ``undo`` steps back. Also: the CLI on a journaled game and ``demo --review``.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

from table_helpers import PLACEMENT, Feeder, board, edit

from controller.players.walkthrough import Walkthrough, WalkthroughController
from engine.game import Game
from engine.geometry import CELL_NAMES
from engine.move import Move


def record(seed: int = 4, plies: int | None = None) -> list[Move]:
    rng = random.Random(seed)
    game = Game()
    while not game.is_over() and (plies is None or game.ply < plies):
        game.push(rng.choice(game.legal_moves()))
    return list(game.move_stack)


def walk(moves: list[Move], colours: bool = True) -> tuple[Feeder, Walkthrough]:
    f = Feeder(WalkthroughController(colours=colours))
    guide = Walkthrough(moves, title="game 7")
    guide.attach(f.ctl)
    f.read(board(f.ctl.game, colours))
    return f, guide


def suggested(f: Feeder) -> set[str]:
    return {name for name, role in f.roles().items() if role == "suggest"}


def after(game: Game, move: Move, colours: bool = True) -> str:
    """The reading once ``move`` is carried out and what it cut off taken away."""
    g = game.copy()
    g.push(move)
    return board(g, colours)


def carry_out(f: Feeder, move: Move, colours: bool = True) -> None:
    """The person carries ``move`` out; asked where the stack landed (the sensors cannot
    tell), they confirm the lit destination, as at the computer's moves."""
    ply = f.ctl.game.ply
    f.read(after(f.ctl.game, move, colours))
    if f.ctl.game.ply == ply and f.ctl.view().prompt:
        f.press("confirm")


def test_the_record_lights_each_action_and_the_person_carries_it_out() -> None:
    moves = record(4)
    f, guide = walk(moves)
    for i, move in enumerate(moves):
        game = f.ctl.game
        if move.is_pass:  # forced: the table passes by itself
            assert game.ply > i
            continue
        assert game.ply == i
        cells = {CELL_NAMES[c] for c in (move.source, move.target) if c is not None}
        assert suggested(f) == cells, f"action {i + 1}"
        assert f"review {i + 1}/{len(moves)}" in f.ctl.view().message
        carry_out(f, move)
        assert f.ctl.game.move_stack[:i + 1] == moves[:i + 1]
    assert f.ctl.game.is_over() and list(f.ctl.game.move_stack) == moves
    assert "suggest" not in f.roles().values()


def test_another_action_is_a_mismatch_until_the_board_is_put_back() -> None:
    moves = record(4)
    f, _ = walk(moves)
    first = moves[0]
    assert first.target is not None
    other = next(c for c in range(49) if c != first.target)
    snap = board(f.ctl.game, True)
    f.read(edit(snap, **{CELL_NAMES[other]: "r"}))  # the DVONN piece placed elsewhere
    assert f.ctl.game.ply == 0  # never accepted
    roles = f.roles()
    assert roles[CELL_NAMES[other]] == "mismatch"
    assert "the record plays" in f.ctl.view().message
    f.read(snap)  # put back: the record's action lights again
    assert "mismatch" not in f.roles().values()
    assert suggested(f) == {CELL_NAMES[first.target]}
    carry_out(f, first)
    assert f.ctl.game.ply == 1


def test_next_steps_on_and_undo_steps_back() -> None:
    moves = record(4)
    f, guide = walk(moves)
    f.press("next")  # the first placement is played; the table must follow
    assert f.ctl.game.move_stack == moves[:1]
    target = CELL_NAMES[moves[0].target or 0]
    assert f.roles() == {target: "mismatch"}
    f.read(board(f.ctl.game, True))  # the person places it
    assert "mismatch" not in f.roles().values()
    assert suggested(f) == {CELL_NAMES[moves[1].target or 0]}
    f.press("undo")  # back: the piece must go
    assert f.ctl.game.ply == 0
    assert f.roles() == {target: "mismatch"}
    f.read(board(f.ctl.game, True))
    assert suggested(f) == {target}
    # through the placing phase with next alone, the board following each step
    for _ in range(49):
        f.press("next")
        f.read(board(f.ctl.game, True))
    assert f.ctl.game.move_stack == moves[:49] and not f.ctl.blocked
    move = moves[49]
    assert suggested(f) == {CELL_NAMES[c] for c in (move.source, move.target) if c is not None}


def test_a_resigned_record_ends_and_the_people_may_play_on() -> None:
    moves = record(9, plies=55)
    f, guide = walk(moves)
    for _ in range(len(moves)):
        f.press("next")
        f.read(board(f.ctl.game, True))
    assert f.ctl.game.move_stack == moves
    assert "ends here after 55 actions" in f.ctl.view().message
    assert "suggest" not in f.roles().values()
    f.press("next")  # nothing to step on to
    assert f.ctl.game.ply == 55


def test_the_placement_from_the_rules_on_an_occupancy_table() -> None:
    moves = [Move.parse(a) for a in PLACEMENT]
    f, _ = walk(moves, colours=False)
    for move in moves:
        carry_out(f, move, False)
    assert [str(m) for m in f.ctl.game.move_stack] == PLACEMENT
    assert "ends here after 49 actions" in f.ctl.view().message


def test_play_review_on_the_simulated_table_follows_the_record(tmp_path: Path) -> None:
    from controller.cli import main

    moves = record(6)
    path = tmp_path / "games.sqlite3"
    from controller.journal.store import Journal

    with Journal(path) as journal:
        gid = journal.new_game(white="Master", black="Student")
        for m in moves:
            journal.append(gid, str(m))
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        code = main(["demo", "--fast", "--direct", "--no-noise", "--seed", "3",
                     "--journal", str(path), "--review", str(gid)])
    assert code == 0, out.getvalue()
    text = out.getvalue()
    assert f"reviewing journal game {gid}: Master vs Student, {len(moves)} actions" in text
    assert f"review done: {len(moves)} of {len(moves)} actions" in text
    assert Journal(path, readonly=True).games()[-1].id == gid  # the walk is not journaled


def test_demo_review_of_an_unfinished_record_file_stops_at_its_end(tmp_path: Path) -> None:
    from contextlib import redirect_stdout

    from controller.cli import main

    moves = record(8, plies=60)
    path = tmp_path / "master.txt"
    path.write_text(" ".join(str(m) for m in moves) + "\n")
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["demo", "--fast", "--direct", "--no-noise", "--seed", "1",
                     "--review", str(path)])
    assert code == 0, out.getvalue()
    assert "review done: 60 of 60 actions" in out.getvalue()
