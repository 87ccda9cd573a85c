"""Searches on several threads (lazy SMP in the compiled core, engine/_dvonnsmp.h): legal moves
and sane scores in every phase, the exact value of solved endgames, the budget kept on the
injected and the real clock, node budgets and the pure-Python engine left on one thread, and
``dvonn-board engine --threads N``.

A search on several threads is not deterministic: these tests assert what holds for any
interleaving of the threads (never wall time, never a particular move of a heuristic search).
"""

from __future__ import annotations

import io
import random
import sys

import pytest
from dvonn_reference import RULES_PLACEMENT

from controller.cli import main
from engine import accel
from engine.ai import Engine
from engine.evaluate import WIN
from engine.game import Game
from engine.search import MAX_THREADS, Limits, Searcher, SearchResult, plain_alphabeta

needs_core = pytest.mark.skipif(accel.BUILT is None, reason=f"no compiled core: {accel.WHY}")


def random_game(seed: int, stop: int) -> Game:
    """A seeded random game stopped at ply ``stop`` or at its end."""
    rng = random.Random(seed)
    game = Game()
    while game.ply < stop and not game.is_over():
        game.push_unchecked(rng.choice(game.legal_moves()))
    return game


def before_the_end(seed: int, stacks: int = 9) -> Game:
    """The last position of a seeded random game with at least ``stacks`` stacks on the board
    (a small endgame a search solves to the end)."""
    moves = [str(m) for m in random_game(seed, 400).move_stack]
    for back in range(1, len(moves)):
        game = Game.from_moves(moves[:len(moves) - back])
        if sum(1 for c in range(49) if game.stack(c)) >= stacks:
            return game
    raise AssertionError("no such position")


def assert_sane(game: Game, result: SearchResult) -> None:
    """A legal move, its principal variation legal from the position, a score in range."""
    assert result.move is not None and result.move in game.legal_moves()
    assert result.pv and result.pv[0] == result.move
    line = game.copy()
    for move in result.pv:
        assert move in line.legal_moves()
        line.push(move)
    assert -WIN - 10_000 < result.score < WIN + 10_000
    assert result.nodes > 0 and result.depth >= 1


def positions() -> list[Game]:
    """The placing phase (early and its last plies), the RULES.md position, the middle game
    and near the end."""
    return [random_game(3, 12), random_game(5, 45), Game.from_moves(RULES_PLACEMENT),
            random_game(7, 70), before_the_end(11, 12)]


@needs_core
@pytest.mark.parametrize("index", range(5))
def test_two_threads_give_a_legal_move_and_a_sane_score(index: int) -> None:
    game = positions()[index]
    before = list(game.move_stack)
    result = Searcher(threads=2, accelerated=True).search(game, Limits(depth=5))
    assert_sane(game, result)
    assert result.depth == 5 or result.exact
    assert list(game.move_stack) == before
    if game.ply < 48:  # a heuristic value, far from a finished game's
        assert abs(result.score) < WIN // 2


@needs_core
def test_a_searcher_on_threads_keeps_playing_a_game() -> None:
    """Move after move with the tables kept (the shared table ages, entries of earlier moves
    stay): every action legal, to the end of the game."""
    game = random_game(21, 40)
    searcher = Searcher(threads=3, accelerated=True)
    while not game.is_over():
        result = searcher.search(game, Limits(depth=3))
        assert result.move is not None and result.move in game.legal_moves()
        game.push(result.move)


@needs_core
@pytest.mark.parametrize("seed", [0, 2, 3, 4, 6, 8, 9])
def test_four_threads_solve_an_endgame_like_one(seed: int) -> None:
    """Solved to the end, four threads and one agree with the full-width alpha-beta on who
    wins; a won (lost) score found is never more (less) than the true final margin, and a draw
    is exactly 0."""
    game = before_the_end(seed)
    value = plain_alphabeta(game, 60)
    one = Searcher(threads=1, accelerated=True).search(game, Limits(depth=60))
    four = Searcher(threads=4, accelerated=True).search(game, Limits(depth=60))
    for result in (one, four):
        assert_sane(game, result)
        assert (result.score > 0) == (value > 0) and (result.score < 0) == (value < 0)
        if value == 0:
            assert result.score == 0
        else:
            assert result.exact and WIN // 2 <= abs(result.score) <= abs(value)


@needs_core
def test_the_injected_clock_stops_every_thread_in_time() -> None:
    """A clock that advances 1 ms at every reading: the main thread reads it (the GIL taken
    back for the call), stops before the deadline and the helpers with it."""
    readings = [0.0]

    def clock() -> float:
        readings[0] += 0.001
        return readings[0]

    game = Game.from_moves(RULES_PLACEMENT)
    searcher = Searcher(threads=2, accelerated=True, clock=clock)
    result = searcher.search(game, Limits(time=0.3))
    assert_sane(game, result)
    assert result.elapsed <= 0.3  # on the injected clock: its readings, not wall time


@needs_core
def test_the_real_clock_budget_returns_with_a_result() -> None:
    game = random_game(9, 60)
    result = Searcher(threads=2, accelerated=True).search(game, Limits(time=0.2))
    assert_sane(game, result)


@needs_core
def test_a_node_budget_stays_on_one_thread() -> None:
    """The levels are node budgets: the same search on any number of threads."""
    game = Game.from_moves(RULES_PLACEMENT)
    one = Searcher(threads=1, seed=4).search(game, Limits(nodes=20_000))
    four = Searcher(threads=4, seed=4).search(game, Limits(nodes=20_000))
    assert (four.move, four.score, four.pv, four.nodes) == (one.move, one.score, one.pv,
                                                            one.nodes)


def test_the_python_engine_ignores_threads() -> None:
    game = random_game(5, 55)
    one = Searcher(accelerated=False).search(game, Limits(depth=3))
    two = Searcher(accelerated=False, threads=2).search(game, Limits(depth=3))
    assert (two.move, two.score, two.pv, two.nodes) == (one.move, one.score, one.pv, one.nodes)


@pytest.mark.parametrize("threads", [0, -1, MAX_THREADS + 1])
def test_a_searcher_refuses_a_bad_thread_count(threads: int) -> None:
    with pytest.raises(ValueError, match="threads"):
        Searcher(threads=threads)


def test_the_engine_plays_on_threads() -> None:
    game = random_game(13, 60)
    engine = Engine(seed=1, move_time=0.05, threads=2)
    move = engine.choose(game)
    assert move in game.legal_moves()
    assert engine.last is not None and engine.last.depth >= 1 and engine.last.nodes > 0


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: str,
        *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("value", ["0", "x", "65", "1.5"])
def test_engine_refuses_a_bad_thread_count(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    code, out, err = run(capsys, monkeypatch, "Quit\n", "engine", "--threads", value)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "--threads" in err and repr(value) in err


def test_engine_plays_a_move_on_two_threads(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Black after White's first placement, then Quit: the option parses and the engine
    answers (a DVONN placement) and says how many threads it searches on."""
    code, out, err = run(capsys, monkeypatch, "C3\nQuit\n", "engine", "--threads", "2",
                         "--move-time", "0.05")
    assert code == 0 and len(out.split()) == 1
    assert "2 threads" in err


def test_the_table_computer_gets_its_threads() -> None:
    """``[players] threads`` reaches the full-strength engine of the table's computer."""
    from controller.players.opponent import Opponent
    from controller.players.player import EnginePlayer

    opponent = Opponent("ai", "ai:3", threads=3)
    try:
        for side in ("w", "b"):
            player = opponent.players[side]
            assert isinstance(player, EnginePlayer) and player.engine.searcher.threads == 3
    finally:
        opponent.close()
