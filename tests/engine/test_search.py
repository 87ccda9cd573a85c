"""The search: forced wins, agreement with plain alpha-beta, budgets, determinism, analysis."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai import LEVELS, MAX_LEVEL, Engine, dvonn_placement, level
from engine.analysis import analyse, candidates, cuts
from engine.errors import IllegalMoveError
from engine.evaluate import WIN, evaluate, field_values, terminal_value
from engine.game import Game
from engine.move import Move
from engine.search import Limits, Searcher, plain_alphabeta, score_pieces

# Small positions solved exhaustively (plain alpha-beta to the end of the game): White to
# move, exactly one winning move, at least two losing ones. (stacks, winning move, margin)
FORCED_WINS = [
    ({"H3": "r", "H4": "wbb", "I3": "b", "J4": "ww", "H2": "w", "G3": "wwb", "I4": "wb"},
     "H2I3", 8),
    ({"J5": "r", "I5": "b", "H5": "b", "I4": "w", "J4": "w"}, "I4J5", 1),
    ({"B2": "r", "B1": "ww", "A2": "b", "C2": "bww", "B3": "w", "C4": "b", "C1": "b"},
     "B3A2", 2),
    ({"G1": "r", "G2": "w", "H1": "wbb", "H2": "bw", "H3": "b", "I1": "bww"}, "G2H3", 10),
]


def random_position(seed: int, moving: bool = True) -> Game:
    """A position from a seeded random game: in phase 2 (or late phase 1), not over."""
    rng = random.Random(seed)
    while True:
        game = Game()
        stop = rng.randint(52, 75) if moving else rng.randint(38, 47)
        while game.ply < stop and not game.is_over():
            game.push_unchecked(rng.choice(game.legal_moves()))
        if not game.is_over():
            return game


@pytest.mark.parametrize(("stacks", "winning", "margin"), FORCED_WINS)
def test_search_finds_the_forced_win(stacks: dict[str, str], winning: str, margin: int) -> None:
    game = Game.setup(stacks)
    assert plain_alphabeta(game, 20) == WIN + 100 * margin  # the position really is won
    result = Searcher(seed=3).search(game, Limits(nodes=20_000))
    assert str(result.move) == winning
    assert result.score == WIN + 100 * margin
    assert result.exact and result.pieces == margin
    assert game.stacks() == Game.setup(stacks).stacks()  # left as it was


@pytest.mark.parametrize(("stacks", "winning", "margin"), FORCED_WINS)
def test_the_loser_sees_the_loss(stacks: dict[str, str], winning: str, margin: int) -> None:
    game = Game.setup(stacks)
    game.push(Move.parse(winning))
    result = Searcher().search(game, Limits(nodes=20_000), forced_fast=False)
    if result.move is not None:
        assert result.score <= -WIN // 2
        assert result.pieces == -margin


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 2), pvs=st.booleans())
def test_tt_pvs_ordering_give_the_plain_alphabeta_value(seed: int, depth: int,
                                                         pvs: bool) -> None:
    game = random_position(seed)
    expected = plain_alphabeta(game, depth)
    searcher = Searcher(seed=seed, use_pvs=pvs)
    result = searcher.search(game, Limits(depth=depth))
    if result.depth == 0:  # a forced move is answered without searching
        assert len(game.legal_moves()) == 1
        return
    assert result.score == expected


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_depth_three_matches_plain_alphabeta(seed: int) -> None:
    game = random_position(seed + 100)
    assert Searcher().search(game, Limits(depth=3)).score == plain_alphabeta(game, 3)


def test_placing_phase_search_matches_plain_alphabeta() -> None:
    game = random_position(7, moving=False)
    assert game.placing
    assert Searcher().search(game, Limits(depth=2)).score == plain_alphabeta(game, 2)


def test_searcher_state_between_searches_does_not_change_fixed_depth_values() -> None:
    searcher = Searcher()
    for seed in range(4):
        game = random_position(seed + 40)
        assert searcher.search(game, Limits(depth=2)).score == plain_alphabeta(game, 2)


def test_node_budget_is_deterministic_for_a_seed() -> None:
    game = random_position(11)
    a = Searcher(seed=5).search(game, Limits(nodes=800))
    b = Searcher(seed=5).search(game, Limits(nodes=800))
    assert (a.move, a.score, a.pv, a.nodes) == (b.move, b.score, b.pv, b.nodes)
    assert a.nodes <= 800


def test_result_move_is_legal_and_pv_starts_with_it() -> None:
    game = random_position(12)
    result = Searcher().search(game, Limits(nodes=1500))
    assert result.move in game.legal_moves()
    assert result.pv[0] == result.move
    replay = game.copy()
    for m in result.pv:  # the whole line is playable
        replay.push(m)


class FakeClock:
    """Advances by ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.t = 100.0
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


@pytest.mark.parametrize(("budget", "step"), [(0.05, 0.001), (0.3, 0.02), (1.0, 0.07)])
def test_time_limit_is_never_overrun(budget: float, step: float) -> None:
    game = random_position(13)
    clock = FakeClock(step)
    start = clock.t + step  # the search's first reading of the clock
    result = Searcher(clock=clock).search(game, Limits(time=budget))
    assert result.move in game.legal_moves()
    assert clock.t - start <= budget + 1e-6
    assert result.elapsed <= budget


def test_game_time_is_never_exceeded_over_a_whole_game() -> None:
    # Every reading of this clock costs 2 ms (a harsh model: real readings cost nothing).
    clock = FakeClock(0.002)
    engine = Engine(MAX_LEVEL, seed=1, game_time=1.5, clock=clock)
    rng = random.Random(2)
    game = Game()
    while not game.is_over():
        if game.turn == "w":
            game.push(engine.choose(game))
        else:
            game.push(rng.choice(game.legal_moves()))
    assert 0 < engine.time.used <= 1.5


def test_levels_are_node_budgets_and_deterministic() -> None:
    assert [lv.number for lv in LEVELS] == list(range(1, MAX_LEVEL + 1))
    assert all(lv.nodes for lv in LEVELS[:-1]) and LEVELS[-1].nodes is None
    with pytest.raises(ValueError, match="level 0 does not exist"):
        level(0)
    game = random_position(14)
    for n in (1, 3):
        a = Engine(n, seed=9).choose(game)
        b = Engine(n, seed=9).choose(game)
        assert a == b and a in game.legal_moves()


def test_node_levels_play_alike_on_a_slow_and_a_fast_clock() -> None:
    """Levels 1-6 are node budgets: load or a slower machine changes no move (the ladder in
    benchmarks/ladder.py relies on it)."""
    for seed, moving in ((16, True), (17, False)):
        game = random_position(seed, moving)
        for n in (2, 4):
            fast = Engine(n, seed=3, clock=FakeClock(0.0)).choose(game)
            slow = Engine(n, seed=3, clock=FakeClock(0.5)).choose(game)
            assert fast == slow, (seed, n)


def test_dvonn_placements_are_the_first_three_and_apart() -> None:
    game = Game()
    for _ in range(3):
        move = dvonn_placement(game, seed=4)
        assert move is not None and move in game.legal_moves()
        game.push(move)
    assert dvonn_placement(game, 4) is None
    reds = [c for c in range(49) if game.stack(c) == "r"]
    assert len(reds) == 3


def test_evaluation_is_symmetric_and_terminal_exact() -> None:
    game = random_position(15)
    value = evaluate(game)
    assert isinstance(value, int) and abs(value) < WIN // 2
    over = Game.setup({"F3": "r", "E3": "wwb", "G3": "wwww"})
    assert over.is_over()
    assert terminal_value(over) == WIN + 100  # White to act, 4 against 3
    fv, ring1, _, _ = field_values(over.red_stacks)
    assert fv[24] == 128 and ring1 & (1 << 23)


def test_cuts_names_the_stacks_a_move_cuts_off() -> None:
    # Moving E3 away leaves D3 with no link to the DVONN piece on F3.
    game = Game.setup({"F3": "r", "E3": "w", "D3": "bb", "G3": "w"})
    found = cuts(game, Move.parse("E3F3"))
    assert [(c.name, c.stack, c.owner) for c in found] == [("D3", "bb", "b")]
    assert cuts(game, Move.parse("G3F3")) == ()
    assert set(candidates(game)) == set(game.legal_moves())
    with pytest.raises(IllegalMoveError):
        cuts(game, Move.parse("D3F3"))


def test_analyse_reports_best_pv_score_and_cuts() -> None:
    stacks, winning, margin = FORCED_WINS[0]
    game = Game.setup(stacks)
    result = analyse(game, Limits(nodes=20_000))
    assert str(result.best) == winning and result.exact and result.score == margin
    assert result.pv and result.pv[0] == result.best
    assert "best H2I3" in result.describe()
    over = Game.setup({"F3": "r", "E3": "wwb", "G3": "wwww"})
    assert analyse(over, Limits(nodes=10)).describe() == "game over"


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="needs a node, time or depth"):
        Limits()
    with pytest.raises(ValueError, match="node limit"):
        Limits(nodes=0)


def test_score_pieces_reads_margins_and_heuristics() -> None:
    assert score_pieces(WIN + 300) == 3
    assert score_pieces(-WIN - 200) == -2
    assert score_pieces(150) == 1.5


def test_no_change_of_sides_across_the_last_placement() -> None:
    """White places the 49th piece and then moves first: values must not flip sign there."""
    game = random_position(16, moving=False)
    rng = random.Random(1)
    while game.ply < 48:
        game.push(rng.choice(game.legal_moves()))
    assert game.turn == "w" and len(game.legal_moves()) == 1
    after = game.copy()
    after.push(after.legal_moves()[0])
    assert after.turn == "w"
    for depth in (1, 2):
        expected = plain_alphabeta(after, depth - 1) if depth > 1 else evaluate(after)
        assert plain_alphabeta(game, depth) == expected
        result = Searcher().search(game, Limits(depth=depth), forced_fast=False)
        assert result.score == expected
    assert Searcher().search(game, Limits(depth=1)).score == evaluate(after)
    # One ply earlier (Black to place), a depth-2 search sees White's value negated.
    game.pop()
    assert game.turn == "b"
    assert Searcher().search(game, Limits(depth=3)).score == plain_alphabeta(game, 3)


def test_time_control_shares_out_the_game_budget() -> None:
    from engine.timecontrol import PANIC, TimeControl

    assert TimeControl(move_time=0.2).budget(Game()) == 0.2
    assert TimeControl().budget(Game()) is None
    tc = TimeControl(game_time=5.0)
    placing = tc.budget(Game())
    assert placing is not None and 0 < placing <= 0.2 * 5.0 / 24.5 + 1e-9
    moving = tc.budget(random_position(17))
    assert moving is not None and moving > placing
    tc.used = 5.0 - tc.reserve  # the budget proper is spent: panic, from the reserve only
    assert tc.budget(Game()) == 0.0
    assert 0 < tc.panic_budget(Game()) <= PANIC
    with pytest.raises(ValueError, match="game time"):
        TimeControl(game_time=0)


def test_a_move_may_finish_an_iteration_past_its_share_but_never_the_budget() -> None:
    """plan(): no new iteration after the soft limit; the deadline is a multiple of the
    move's share, never more than half of what is left of the game budget."""
    from engine.timecontrol import HARD, SOFT, TimeControl

    assert TimeControl(move_time=0.2).plan(Game()) == (0.1, 0.2)
    assert TimeControl().plan(Game()) == (None, None)
    position = random_position(17)
    for used in (0.0, 2.0, 4.0, 4.6):
        tc = TimeControl(game_time=5.0, used=used)
        share = tc.budget(position)
        soft, hard = tc.plan(position)
        assert share is not None and soft is not None and hard is not None
        avail = 5.0 - used - tc.reserve
        assert soft <= hard <= max(share, avail * 0.5) + 1e-9
        assert hard == pytest.approx(max(share, min(share * HARD, avail * 0.5)))
        assert soft == pytest.approx(min(share * SOFT, hard))
    capped = TimeControl(game_time=100.0, move_time=0.3)
    assert capped.plan(position)[1] == pytest.approx(0.3)


def test_no_iteration_starts_after_the_soft_limit() -> None:
    """A clock that advances 0.01 s a reading: with a soft limit the deepening stops at the
    first iteration that ends past it, well before the deadline; the deadline alone lets it
    go deeper."""
    def run(soft: float | None) -> int:
        now = [0.0]

        def clock() -> float:
            now[0] += 0.01
            return now[0]

        result = Searcher(clock=clock, accelerated=False).search(
            random_position(17), Limits(time=50.0, soft=soft, depth=4))
        return result.depth

    assert run(0.0) == 2  # the first check comes after depth 2
    assert run(None) == 4
    with pytest.raises(ValueError, match="soft"):
        Limits(depth=3, soft=1.0)
    with pytest.raises(ValueError, match="soft"):
        Limits(time=1.0, soft=-1.0)
