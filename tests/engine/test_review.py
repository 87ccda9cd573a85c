"""The review of a whole game (engine.review) and the search it rests on: the action played,
searched first, gets its exact score (Searcher.search ``first``). Clocks here advance a fixed
step at every reading, so the reviews are deterministic and take no real time to speak of."""

from __future__ import annotations

import pytest
from dvonn_reference import random_moves

from engine.game import Game
from engine.move import Move
from engine.review import BLUNDER, MISTAKE, mark, review
from engine.search import Limits, Searcher, plain_alphabeta


class StepClock:
    """Every reading is ``step`` seconds after the one before."""

    def __init__(self, step: float) -> None:
        self.t = 0.0
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def moving_position(seed: int, ply: int = 60) -> Game:
    moves = random_moves(seed)
    return Game.from_moves(moves[:min(ply, len(moves) - 5)])


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_action_searched_first_gets_its_exact_score(seed: int) -> None:
    game = moving_position(seed)
    for first in game.legal_moves()[-3:]:
        result = Searcher(use_tt=False).search(game, Limits(depth=3), forced_fast=False,
                                               first=first)
        game.push(first)
        exact = -plain_alphabeta(game, 2)
        game.pop()
        assert dict(result.root_scores)[first] == exact
        assert result.score == plain_alphabeta(game, 3)  # and the best is unchanged


def test_marks_and_their_thresholds() -> None:
    assert (MISTAKE, BLUNDER) == (2.0, 5.0)
    assert [mark(x) for x in (0.0, 1.99, 2.0, 4.99, 5.0, 30.0)] == ["", "", "?", "?", "??", "??"]


def test_a_review_has_one_entry_per_action_within_its_budget() -> None:
    moves = random_moves(5)
    clock = StepClock(0.0005)
    result = review(moves, budget=20.0, clock=clock)
    assert result.complete and [a.ply for a in result.actions] == list(range(1, len(moves) + 1))
    assert result.elapsed <= 20.0 + 0.05
    game = Game()
    for a, move in zip(result.actions, moves, strict=True):
        assert (a.move, a.side) == (move, game.turn)
        sign = 1 if a.side == "w" else -1
        assert a.loss == pytest.approx(max(0.0, sign * (a.before - a.after)), abs=0.011)
        assert a.mark == ("" if a.best == move or a.forced else mark(a.loss))
        assert a.forced == (len(game.legal_moves()) == 1)
        if a.forced:
            assert a.best == move and a.loss == 0.0
        else:
            assert a.best in game.legal_moves()
        game.push(move)
    last = result.actions[-1]
    w, b = game.score()
    assert last.exact and last.after == w - b  # the end of a game is seen exactly


def test_a_blunder_in_a_solved_ending_is_marked() -> None:
    """Near the end of random games the search sees to the end: an action that throws away 5
    pieces or more there is '??', one that keeps the best margin is not marked."""
    for seed in range(40):
        moves = random_moves(seed)
        game = Game.from_moves(moves[:-6])
        if len(game.legal_moves()) < 2:
            continue
        result = Searcher().search(game, Limits(depth=12), forced_fast=False)
        if not result.exact:
            continue
        worst = None
        for m in game.legal_moves():
            scored = Searcher().search(game, Limits(depth=12), forced_fast=False, first=m)
            loss = (scored.score - dict(scored.root_scores)[m]) / 100
            if loss >= BLUNDER:
                worst = m
                break
        if worst is None or result.move is None:
            continue
        prefix = moves[:-6]
        for played, want in ((worst, "??"), (result.move, "")):
            reviewed = review([*prefix, played], budget=60.0, clock=StepClock(0.001))
            assert reviewed.actions[-1].mark == want, (seed, played)
        return
    pytest.fail("no solved ending with a blunder in 40 random games")


def test_ctrl_c_keeps_what_is_done() -> None:
    moves = random_moves(7)

    def stop_at_twenty(done: int, total: int, elapsed: float) -> None:
        if done == 20:
            raise KeyboardInterrupt

    result = review(moves, budget=10.0, clock=StepClock(0.0005), progress=stop_at_twenty)
    assert result.interrupted and not result.complete
    assert [a.ply for a in result.actions] == list(range(1, 21))


def test_an_empty_game_and_a_game_cut_after_a_forced_action() -> None:
    assert review([], budget=1.0).actions == []
    moves = random_moves(8)[:49]  # the 49th placement is forced
    result = review(moves, budget=5.0, clock=StepClock(0.0005))
    assert result.complete and result.actions[-1].forced
    assert result.actions[-1].move == Move.parse(str(moves[-1]))
