"""The engine against the slow reference rules of dvonn_reference, on random games.

At every ply of many uniformly random games: the same legal actions, the same resulting
stacks, the same removed cells, the same score, the same end.
"""

from __future__ import annotations

import random

from dvonn_reference import REF_NAMES, Reference, names
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import Game
from engine.move import Move


def check_game_against_reference(seed: int) -> int:
    rng = random.Random(seed)
    game = Game()
    ref = Reference()
    plies = 0
    while True:
        expected = sorted(ref.legal())
        got = sorted(str(m) for m in game.legal_moves())
        assert got == expected, (seed, game.ply, repr(game))
        assert game.count_moves() == len(expected)
        assert game.turn == ref.side()
        assert game.is_over() == (not expected)
        if game.ply >= 49:
            assert names(game.movable()) == {m[:2] for m in expected if m != "PASS"}
        if not expected:
            break
        action = rng.choice(expected)
        removed = game.push(Move.parse(action))
        ref_removed = ref.apply(action)
        plies += 1
        assert names(removed) == ref_removed, (seed, game.ply, action)
        assert names(game.last_removed) == ref_removed
        assert [game.stack(c) for c in range(49)] == [ref.stacks[n] for n in REF_NAMES]
        assert game.score() == ref.score()
    w, b = ref.score()
    assert game.winner() == ("w" if w > b else "b" if b > w else "tie")
    return plies


def test_many_random_games_match_the_reference() -> None:
    total = sum(check_game_against_reference(seed) for seed in range(60))
    assert total > 60 * 60  # the games really were played out (about 81 plies each)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_match_the_reference(seed: int) -> None:
    check_game_against_reference(seed)


def _random_position(rng: random.Random) -> dict[str, str]:
    """A random moving-phase position, not necessarily reachable: random stacks anywhere."""
    pieces = ["w"] * 23 + ["b"] * 23 + ["r"] * 3
    rng.shuffle(pieces)
    pieces = pieces[: rng.randrange(3, 49)]
    cells = rng.sample(REF_NAMES, rng.randrange(1, min(len(pieces), 30) + 1))
    stacks = {c: "" for c in cells}
    for p in pieces:
        stacks[rng.choice(cells)] += p
    # as in a real game, DVONN pieces sit at the bottom (they never move on their own)
    return {c: "r" * s.count("r") + s.replace("r", "") for c, s in stacks.items() if s}


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(["w", "b"]))
def test_hand_built_random_positions_match_the_reference(seed: int, turn: str) -> None:
    """Tall stacks (up to 49), odd shapes and sparse boards that random play rarely reaches."""
    stacks = _random_position(random.Random(seed))
    game = Game.setup(stacks, turn)  # type: ignore[arg-type]
    ref = Reference(stacks={n: stacks.get(n, "") for n in REF_NAMES}, ply=49 if turn == "w" else 50)
    expected = sorted(ref.legal())
    assert sorted(str(m) for m in game.legal_moves()) == expected
    for action in expected:
        if action == "PASS":
            continue
        child, ref_child = game.copy(), ref.copy()
        assert names(child.push(Move.parse(action))) == ref_child.apply(action)
        assert [child.stack(c) for c in range(49)] == [ref_child.stacks[n] for n in REF_NAMES]
