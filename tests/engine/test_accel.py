"""The compiled search core (engine/_dvonncore.c) against the pure-Python engine: the same
perft counts, legal moves, hashes and values, and the same fixed-depth and budgeted searches
(move, score, principal variation, node count, root scores); the fallback when it is missing.

The comparisons skip with a reason when the core is not built (no C compiler at install), but
fail when CI is set: CI has gcc and the Python headers, so there it must be built.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from dvonn_reference import build_position, load_perft_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import accel
from engine.evaluate import evaluate, moving_value_and_over, terminal_value
from engine.game import Game
from engine.move import PASS, Move
from engine.perft import perft
from engine.search import Limits, Searcher, SearchResult

ROOT = Path(__file__).resolve().parents[2]
POSITIONS = {p["name"]: p for p in load_perft_data()}


@pytest.fixture
def core() -> object:
    """The compiled core module (even when DVONN_ENGINE=python turns it off by default);
    skips when it is not built, but fails under CI."""
    if accel.BUILT is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must build the compiled search core: {accel.WHY}")
        pytest.skip(f"compiled search core not built: {accel.WHY}")
    return accel.BUILT


def random_game(seed: int, lo: int = 0, hi: int = 130) -> Game:
    """A position from a seeded random game, stopped at a ply in [lo, hi] or at its end."""
    rng = random.Random(seed)
    game = Game()
    stop = rng.randint(lo, hi)
    while game.ply < stop and not game.is_over():
        game.push_unchecked(rng.choice(game.legal_moves()))
    return game


def searchable(seed: int, placing: bool) -> Game:
    """A position that is not over: late placing phase or the moving phase."""
    for k in range(100):
        game = random_game(seed * 101 + k, 30, 48) if placing else random_game(
            seed * 101 + k, 49, 100)
        if not game.is_over():
            return game
    raise AssertionError("no open position found")


def cperft(game: Game, depth: int) -> int:
    assert accel.BUILT is not None
    result: int = accel.BUILT.perft(accel.position(game), depth)
    return result


def outcome(r: SearchResult) -> tuple[object, ...]:
    return (r.move, r.score, r.pv, r.depth, r.nodes, r.exact, r.root_scores)


# ----------------------------------------------------------------------------- rules


def test_move_codes_round_trip() -> None:
    moves = [PASS] + [Move.place(c) for c in range(49)] + [
        Move.step(a, b) for a in range(49) for b in range(49) if a != b]
    assert [accel.move(accel.code(m)) for m in moves] == moves
    with pytest.raises(ValueError, match="no move code"):
        accel.move(50)


@pytest.mark.parametrize(("name", "depth"), [("rules-md", 1), ("rules-md", 2), ("rules-md", 3),
                                             ("rules-md", 4), ("empty-board", 3)])
def test_perft_of_the_data_file(core: object, name: str, depth: int) -> None:
    entry = POSITIONS[name]
    game = build_position(entry)
    assert cperft(game, depth) == entry["perft"][str(depth)]


def test_perft_of_every_data_file_position(core: object) -> None:
    for entry in POSITIONS.values():
        game = build_position(entry)
        for depth, expected in entry["perft"].items():
            assert cperft(game, int(depth)) == expected, (entry["name"], depth)


def test_perft_depth_three_on_the_rules_position_equals_python(core: object) -> None:
    game = build_position(POSITIONS["rules-md"])
    assert cperft(game, 3) == perft(game, 3) == 94210


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                               HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 3))
def test_perft_of_random_positions_equals_python(core: object, seed: int, depth: int) -> None:
    game = random_game(seed, 44, 120)
    if game.placing and depth == 3:
        depth = 2  # a placing-phase perft 3 is 100k leaves in Python
    assert cperft(game, depth) == perft(game, depth)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                               HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6))
def test_moves_hash_values_and_play_equal_python(core: object, seed: int) -> None:
    """Along a whole random game: legal moves in the same order, the same Zobrist hash, the
    same static values, and the core's make (with cut-offs) gives the same stacks."""
    assert accel.BUILT is not None
    rng = random.Random(seed)
    game = Game()
    start = accel.position(game)
    played: list[int] = []
    while True:
        pos = accel.position(game)
        moves = game.legal_moves()
        assert accel.BUILT.legal_moves(pos) == [accel.code(m) for m in moves]
        assert accel.BUILT.zobrist(pos) == game.zobrist
        if not moves:
            assert accel.BUILT.terminal_value(pos) == terminal_value(game)
            break
        if game.placing:
            assert accel.BUILT.evaluate(pos) == (evaluate(game), False)
        else:
            assert accel.BUILT.evaluate(pos) == moving_value_and_over(game)
        m = rng.choice(moves)
        game.push(m)
        played.append(accel.code(m))
    assert accel.BUILT.play(start, played) == (game.stacks(), game.zobrist)


def test_hand_built_positions_equal_python(core: object) -> None:
    """Setups whose stacks are not all linked to a DVONN piece (the first move cuts them)."""
    assert accel.BUILT is not None
    game = Game.setup({"A1": "r", "B1": "wb", "C1": "w", "E1": "bb", "F1": "w", "G1": "b"},
                      turn="b")
    pos = accel.position(game)
    assert not pos[2]
    assert accel.BUILT.legal_moves(pos) == [accel.code(m) for m in game.legal_moves()]
    for m in game.legal_moves():
        game.push(m)
        assert accel.BUILT.play(pos, [accel.code(m)]) == (game.stacks(), game.zobrist)
        game.pop()
    assert cperft(game, 4) == perft(game, 4)


def test_bad_positions_are_refused(core: object) -> None:
    assert accel.BUILT is not None
    with pytest.raises(ValueError, match="49"):
        accel.BUILT.perft((("",) * 48, 49, True), 1)
    with pytest.raises(ValueError, match="w, b, r"):
        accel.BUILT.perft((("x",) + ("",) * 48, 49, True), 1)
    with pytest.raises(ValueError, match="depth"):
        accel.BUILT.perft((("",) * 49, 0, True), -1)
    with pytest.raises(ValueError, match="not legal"):
        accel.BUILT.play((("",) * 49, 0, True), [64])


# ----------------------------------------------------------------------------- searches


@pytest.mark.parametrize("placing", [False, True], ids=["moving", "placing"])
@pytest.mark.parametrize("seed", range(8))
def test_fixed_depth_searches_are_identical(core: object, seed: int, placing: bool) -> None:
    game = searchable(seed, placing)
    for depth in (1, 2, 3):
        py = Searcher(seed=seed, accelerated=False).search(game, Limits(depth=depth),
                                                           forced_fast=False)
        c = Searcher(seed=seed, accelerated=True).search(game, Limits(depth=depth),
                                                         forced_fast=False)
        assert outcome(c) == outcome(py), (seed, depth)


@pytest.mark.parametrize("seed", range(2))
def test_depth_four_is_identical(core: object, seed: int) -> None:
    game = searchable(seed + 50, False)
    py = Searcher(seed=seed, accelerated=False).search(game, Limits(depth=4))
    c = Searcher(seed=seed, accelerated=True).search(game, Limits(depth=4))
    assert outcome(c) == outcome(py)


@pytest.mark.parametrize(("pvs", "tt", "ordering", "noise"),
                         [(False, True, True, 0), (True, False, True, 0),
                          (True, True, False, 0), (True, True, True, 55)])
def test_search_options_are_identical(core: object, pvs: bool, tt: bool, ordering: bool,
                                      noise: int) -> None:
    for seed, placing in ((3, False), (4, True)):
        game = searchable(seed + 20, placing)
        py, c = (Searcher(seed=seed, use_pvs=pvs, use_tt=tt, use_ordering=ordering,
                          noise=noise, accelerated=compiled).search(game, Limits(depth=3))
                 for compiled in (False, True))
        assert outcome(c) == outcome(py)


@pytest.mark.parametrize("lmr", [0, 1, 3, 8])
def test_late_move_reductions_are_identical(core: object, lmr: int) -> None:
    # depth 4 and 5: the reductions start at nodes with 3 plies left (LMR_DEPTH)
    for seed, depth in ((5, 4), (6, 5)):
        game = searchable(seed + 30, False)
        py, c = (Searcher(seed=seed, lmr=lmr, accelerated=compiled).search(
                     game, Limits(depth=depth)) for compiled in (False, True))
        assert outcome(c) == outcome(py), (lmr, seed, depth)


@pytest.mark.parametrize(("lmr2", "lmr2_depth"), [(1, 3), (9, 4), (12, 5), (20, 5)])
def test_deeper_late_move_reductions_are_identical(core: object, lmr2: int,
                                                   lmr2_depth: int) -> None:
    # two plies for the latest moves at nodes with lmr2_depth or more plies left
    for seed, depth in ((5, 5), (6, 6)):
        game = searchable(seed + 30, False)
        py, c = (Searcher(seed=seed, lmr2=lmr2, lmr2_depth=lmr2_depth,
                          accelerated=compiled).search(game, Limits(depth=depth))
                 for compiled in (False, True))
        assert outcome(c) == outcome(py), (lmr2, lmr2_depth, seed, depth)


@pytest.mark.parametrize("nullmove", [0, 2, 3])
def test_null_moves_are_identical(core: object, nullmove: int) -> None:
    # a pass searched R + 1 plies shallower where the leaf value stands at beta (moving phase)
    for seed, depth in ((5, 4), (6, 5), (7, 6)):
        game = searchable(seed + 30, False)
        py, c = (Searcher(seed=seed, nullmove=nullmove, accelerated=compiled).search(
            game, Limits(depth=depth)) for compiled in (False, True))
        assert outcome(c) == outcome(py), (nullmove, seed, depth)


def test_null_moves_search_fewer_nodes_to_the_same_depth(core: object) -> None:
    """They prune: the same depth costs fewer nodes (the default has them on)."""
    fewer = 0
    for seed in (5, 6, 7):
        game = searchable(seed + 30, False)
        off, on = (Searcher(seed=seed, nullmove=r, accelerated=True).search(
            game, Limits(depth=6)) for r in (0, None))
        assert off.depth == on.depth == 6
        fewer += on.nodes < off.nodes
    assert fewer >= 2


@pytest.mark.parametrize("max_entries", [1, 37, 500])
def test_bounded_tables_are_emptied_alike(core: object, max_entries: int) -> None:
    """Tables that fill up inside a search are emptied at the same moment in both."""
    for seed, placing in ((5, False), (6, True)):
        game = searchable(seed + 30, placing)
        py, c = (Searcher(seed=seed, max_entries=max_entries, accelerated=compiled).search(
            game, Limits(depth=3)) for compiled in (False, True))
        assert outcome(c) == outcome(py)
        full = Searcher(seed=seed, accelerated=True)
        assert full.search(game, Limits(depth=3)).score == c.score  # values do not change
        assert accel.BUILT is not None
        searcher = Searcher(seed=seed, max_entries=max_entries, accelerated=True)
        searcher.search(game, Limits(depth=3))
        assert searcher._core is not None
        assert searcher._core.tt_len() <= max_entries
        py_searcher = Searcher(seed=seed, max_entries=max_entries, accelerated=False)
        py_searcher.search(game, Limits(depth=3))
        assert len(py_searcher.tt) == searcher._core.tt_len()
        assert len(py_searcher.evals) <= max_entries


class FakeClock:
    """Advances by ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.t = 100.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.t += self.step
        self.reads += 1
        return self.t


def test_a_whole_game_of_budgeted_searches_is_identical(core: object) -> None:
    """One searcher each for a whole game (the tables carry over between moves), node and
    time budgets on an injected clock: the same moves, values, node counts and clock reads."""
    py_clock, c_clock = FakeClock(0.0004), FakeClock(0.0004)
    py = Searcher(seed=7, clock=py_clock, accelerated=False)
    c = Searcher(seed=7, clock=c_clock, accelerated=True)
    game = random_game(7, 44, 44)
    while not game.is_over():
        limits = Limits(nodes=300, time=0.1) if game.ply % 3 else Limits(time=0.03)
        a, b = py.search(game, limits), c.search(game, limits)
        assert outcome(b) == outcome(a), game.ply
        assert (c_clock.reads, c_clock.t) == (py_clock.reads, py_clock.t)
        assert a.move is not None
        game.push(a.move)


def test_a_clock_that_fails_propagates(core: object) -> None:
    calls = []

    def broken() -> float:
        calls.append(1)
        if len(calls) > 3:
            raise RuntimeError("clock unplugged")
        return 0.0

    game = searchable(1, False)
    with pytest.raises(RuntimeError, match="unplugged"):
        Searcher(clock=broken, accelerated=True).search(game, Limits(time=10.0))


def test_searcher_uses_the_core_by_default_when_built(core: object) -> None:
    assert Searcher().accelerated == (os.environ.get(accel.ENV) != "python")
    assert not Searcher(accelerated=False).accelerated


# ----------------------------------------------------------------------------- fallback


def test_without_the_core_the_searcher_is_pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accel, "CORE", None)
    monkeypatch.setattr(accel, "BUILT", None)
    monkeypatch.setattr(accel, "WHY", "simulated: not built")
    assert not Searcher().accelerated
    with pytest.raises(ValueError, match="no compiled search core: simulated"):
        Searcher(accelerated=True)
    game = build_position(POSITIONS["rules-md"])
    assert accel.perft(game, 2) == 1968
    assert accel.backend() == "python"


def _backend_in_child(env_value: str | None,
                      hide_core: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != accel.ENV}
    if env_value is not None:
        env[accel.ENV] = env_value
    code = ("import sys\n"
            + ("sys.modules['engine._dvonncore'] = None\n" if hide_core else "")
            + "from engine import accel\nfrom engine.search import Searcher\n"
            "print(accel.backend(), Searcher().accelerated)\n")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def test_env_variable_forces_pure_python() -> None:
    out = _backend_in_child("python")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["python", "False"]


def test_a_missing_core_falls_back_quietly() -> None:
    out = _backend_in_child(None, hide_core=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["python", "False"]


def test_a_missing_core_is_an_error_when_required() -> None:
    out = _backend_in_child("compiled", hide_core=True)
    assert out.returncode != 0
    assert "DVONN_ENGINE=compiled but the compiled core is not built" in out.stderr


def test_the_core_is_used_when_built(core: object) -> None:
    out = _backend_in_child("")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["compiled", "True"]


def test_dev_py_reinstalls_when_the_c_sources_change(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`python3 dev.py test` rebuilds the core after a change to its C sources or setup.py."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev_for_accel", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    monkeypatch.setattr(dev, "VENV", tmp_path / ".venv")
    (tmp_path / "engine").mkdir()
    (tmp_path / ".venv").mkdir()
    for name in ("pyproject.toml", "setup.py", "engine/_dvonncore.c", "engine/_dvonnboard.h"):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1000, 1000))
    stamp = tmp_path / ".venv" / ".installed-test,camera,web"
    stamp.touch()
    os.utime(stamp, (2000, 2000))
    assert dev.installed_covers("test")
    for name in ("setup.py", "engine/_dvonncore.c", "engine/_dvonnboard.h"):
        os.utime(tmp_path / name, (3000, 3000))
        assert not dev.installed_covers("test"), name
        os.utime(tmp_path / name, (1000, 1000))
