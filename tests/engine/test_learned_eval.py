"""The learned evaluation (issue 44): its features and weights are the same in Python and the
compiled core, the hand-set baseline is issue 25's evaluation, and the pipeline of
benchmarks/learn.py (generate, fit, write) runs and writes what is in the tree."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import accel, evalweights
from engine import evaluate as ev
from engine.game import PLACEMENTS, Game
from engine.geometry import NEIGHBOUR_MASKS
from engine.search import Limits, Searcher

ROOT = Path(__file__).resolve().parents[2]


def _learn() -> ModuleType:
    spec = importlib.util.spec_from_file_location("learn_for_tests",
                                                  ROOT / "benchmarks" / "learn.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _random_weights(rng: random.Random) -> ev.Weights:
    return (rng.randint(1, 9000), tuple(rng.randint(-9000, 9000) for _ in range(ev.NM)),
            tuple(rng.randint(-9000, 9000) for _ in range(ev.NM)), rng.randint(1, 300),
            tuple(rng.randint(-900, 900) for _ in range(ev.NP)),
            tuple(rng.randint(-900, 900) for _ in range(ev.NP)))


@pytest.fixture
def weights_restored() -> Iterator[None]:
    """Put the weights in use (and the core's) back after a test that changes them."""
    before = ev.WEIGHTS
    yield
    ev.use(before)
    if accel.BUILT is not None:
        accel.init(accel.BUILT)


def _load(weights: ev.Weights) -> None:
    ev.use(weights)
    if accel.BUILT is not None:
        accel.init(accel.BUILT)


@settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6))
def test_features_and_values_equal_python(weights_restored: None, seed: int) -> None:
    """Along a random game under random weights: the core's features and values are Python's."""
    core = accel.BUILT
    if core is None:
        pytest.skip("the compiled core is not built")
    rng = random.Random(seed)
    _load(_random_weights(rng))
    game = Game()
    while True:
        moves = game.legal_moves()
        if not moves:
            break
        pos = accel.position(game)
        if game.ply < PLACEMENTS:
            assert core.features(pos) == (ev.placing_features(game), False)
            assert core.evaluate(pos) == (ev.evaluate(game), False)
        else:
            assert core.features(pos) == ev.moving_features(game)
            assert core.evaluate(pos) == ev.moving_value_and_over(game)
        game.push(rng.choice(moves))


@pytest.mark.parametrize("seed", [3, 11])
def test_searches_under_other_weights_are_identical(weights_restored: None, seed: int) -> None:
    """Fixed-depth searches give the same move, score, PV and nodes in both engines."""
    if accel.BUILT is None:
        pytest.skip("the compiled core is not built")
    rng = random.Random(seed)
    _load(_random_weights(rng))
    for plies in (30, 55):
        game = Game()
        for _ in range(plies):
            game.push(rng.choice(game.legal_moves()))
        depth = 3 if plies < PLACEMENTS else 4
        a = Searcher(accelerated=True).search(game, Limits(depth=depth))
        b = Searcher(accelerated=False).search(game, Limits(depth=depth))
        assert (a.move, a.score, a.pv, a.nodes) == (b.move, b.score, b.pv, b.nodes)


def _hand_moving(game: Game) -> int:
    """Issue 25's moving evaluation, written out (PrimaDvonna's weights)."""
    fv = ev.field_values(game._red)[0]
    raw = 0
    for c, s in enumerate(game._stacks):
        if not s or s[-1] == "r":
            continue
        v = 100 * fv[c]
        if len(s) <= 10:
            reach = ev._TARGET_MASKS[c * 11 + len(s)] & game._occ
            enemy = game._black if s[-1] == "w" else game._white
            nm = NEIGHBOUR_MASKS[c]
            free = game._occ & nm != nm or not ev._IS_INTERIOR[c]
            for t in range(49):
                if reach >> t & 1:
                    v += 25 * fv[t]
                    if free and game._red >> t & 1:
                        v += 20 * fv[t]
                    if free and enemy >> t & 1:
                        v += 20 * fv[t]
        raw += v if s[-1] == "w" else -v
    value = raw * 40 // 6400
    return value if game.turn == "w" else -value


def test_hand_weights_are_issue_25s_evaluation(weights_restored: None) -> None:
    _load(ev.HAND)
    rng = random.Random(7)
    for _ in range(5):
        game = Game()
        while game.legal_moves():
            if game.ply >= PLACEMENTS:
                assert ev.moving_value(game) == _hand_moving(game)
            game.push(rng.choice(game.legal_moves()))


def test_weights_are_checked(weights_restored: None) -> None:
    with pytest.raises(ValueError, match="weights need"):
        ev.use((6400, (1,) * ev.NM, (1,) * (ev.NM - 1), 4, (0,) * ev.NP, (0,) * ev.NP))
    with pytest.raises(ValueError, match="weights need"):
        ev.use((0, (1,) * ev.NM, (1,) * ev.NM, 4, (0,) * ev.NP, (0,) * ev.NP))


def test_the_weights_in_the_tree_are_what_the_writer_writes() -> None:
    learn = _learn()
    text = (ROOT / "engine" / "evalweights.py").read_text()
    assert learn.render(ev.LEARNED, evalweights.NOTE) == text


def test_the_pipeline_generates_fits_and_writes(tmp_path: Path, weights_restored: None) -> None:
    pytest.importorskip("numpy")
    learn = _learn()
    data = tmp_path / "data.npz"
    figures = learn.generate(data, games=5, seed=1, nodes=60, place_nodes=30, label_nodes=300,
                             per_game=3, place_per_game=3, random_place=0.3, random_move=0.2,
                             random_plies=4)
    assert figures["placing"] == 15 and 5 <= figures["moving"] <= 20
    weights, fitted = learn.fit(data, lam=0.5, ridge=1e-2)
    assert fitted["samples"] == figures["samples"]
    ev.use(weights)  # the right shape and positive denominators
    path = tmp_path / "evalweights.py"
    path.write_text(learn.render(weights, "a test"))
    spec = importlib.util.spec_from_file_location("written_weights", path)
    assert spec is not None and spec.loader is not None
    written = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(written)
    assert (written.MOVING_DEN, written.MOVING_FULL, written.MOVING_EMPTY, written.PLACING_DEN,
            written.PLACING_EARLY, written.PLACING_LATE) == weights
    assert written.NOTE == "a test"
