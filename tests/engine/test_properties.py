"""Invariants over uniformly random games (hypothesis chooses the seeds)."""

from __future__ import annotations

import json
import random
from collections import Counter

from dvonn_reference import random_moves
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.game import Game
from engine.geometry import iter_cells
from engine.move import PASS, Move
from engine.records import (
    export_littlegolem,
    export_moves,
    game_from_json,
    game_to_json,
    parse_record,
    position_from_json,
    position_to_json,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
GAMES = settings(max_examples=60, deadline=None)


def on_board(game: Game) -> Counter[str]:
    return Counter("".join(game.stacks()))


@GAMES
@given(SEEDS)
def test_pieces_are_on_the_board_or_removed_and_red_never_goes(seed: int) -> None:
    rng = random.Random(seed)
    game = Game()
    removed: Counter[str] = Counter()
    while moves := game.legal_moves():
        move = rng.choice(moves)
        before = game.stacks()
        mask = game.push(move)
        for c in iter_cells(mask):
            stack = before[c]
            if move.target == c and move.source is not None:
                stack += before[move.source]  # the moved stack itself was cut off
            removed.update(stack)
            assert game.stack(c) == ""
        assert removed["r"] == 0
        assert on_board(game)["r"] == min(game.ply, 3)
        total = on_board(game) + removed
        if not game.placing:
            assert total == Counter({"w": 23, "b": 23, "r": 3})
    assert game.is_over() and game.ply >= 49
    assert on_board(game)["r"] == 3


@GAMES
@given(SEEDS)
def test_push_pop_restores_everything(seed: int) -> None:
    rng = random.Random(seed)
    game = Game()
    while moves := game.legal_moves():
        before = (game.stacks(), game.zobrist, game.ply, game.turn, game.occupied,
                  game.white_stacks, game.black_stacks, game.red_stacks, game.score())
        for move in rng.sample(moves, min(3, len(moves))):
            game.push(move)
            assert game.pop() == move
            after = (game.stacks(), game.zobrist, game.ply, game.turn, game.occupied,
                     game.white_stacks, game.black_stacks, game.red_stacks, game.score())
            assert after == before
            assert game.legal_moves() == moves
        game.push(rng.choice(moves))
    # and all the way back to the empty board
    while game.move_stack:
        game.pop()
    assert game == Game() and game.zobrist == Game().zobrist == 0


@GAMES
@given(SEEDS)
def test_zobrist_matches_a_fresh_game_and_setup(seed: int) -> None:
    moves = random_moves(seed)
    game = Game()
    seen: dict[int, tuple[tuple[str, ...], str]] = {}
    for i, m in enumerate(moves):
        game.push(m)
        if i % 7 == 0 or i == len(moves) - 1:
            assert game.zobrist == Game.from_moves(moves[: i + 1]).zobrist
        if not game.placing:
            stacks = {c: s for c, s in enumerate(game.stacks()) if s}
            fresh = Game.setup(stacks, game.turn)
            assert fresh.zobrist == game.zobrist
            assert sorted(map(str, fresh.legal_moves())) == sorted(map(str, game.legal_moves()))
        key = (game.stacks(), game.turn)
        assert seen.setdefault(game.zobrist, key) == key  # no collision within a game


@GAMES
@given(SEEDS)
def test_every_listed_move_is_legal_and_applies(seed: int) -> None:
    rng = random.Random(seed)
    game = Game()
    while moves := game.legal_moves():
        assert game.count_moves() == len(moves)
        assert len(set(moves)) == len(moves)
        assert (moves == [PASS]) or PASS not in moves
        for m in moves:
            assert game.is_legal(m)
            if m.is_step:
                assert game.owner(m.source) == game.turn  # type: ignore[arg-type]
                assert game.destinations(m.source) >> m.target & 1  # type: ignore[arg-type,operator]
        for m in rng.sample(moves, min(4, len(moves))):
            g = game.copy()
            mask = g.push(m)  # checked push: must not raise
            assert g.move_stack[-1] == m and g.ply == game.ply + 1
            if m.is_step:
                assert game.removal_if(m) == mask == g.last_removed
        game.push(rng.choice(moves))
    assert game.count_moves() == 0 and game.is_over()


@GAMES
@given(SEEDS, st.booleans())
def test_notation_round_trips(seed: int, lower: bool) -> None:
    for m in random_moves(seed):
        text = str(m)
        assert text == text.upper()
        assert Move.parse(text.lower() if lower else text) == m
    assert Move.parse(str(PASS)) is PASS


@GAMES
@given(SEEDS, st.integers(min_value=0, max_value=200), st.booleans())
@example(seed=0, cut=48, resign=False)
@example(seed=0, cut=49, resign=False)
@example(seed=0, cut=49, resign=True)
@example(seed=0, cut=50, resign=False)
@example(seed=0, cut=48, resign=True)
def test_little_golem_round_trips(seed: int, cut: int, resign: bool) -> None:
    """Whole games and prefixes of them, with and without a final ``resign``.
    """
    moves = random_moves(seed)
    if cut < len(moves):
        moves = moves[:cut]
    game = Game.from_moves(moves)
    resigned = game.turn if resign and not game.is_over() else None
    text = export_littlegolem(moves, white="Ann", black="Bob", resigned=resigned)
    assert text == text.replace("PASS", "pass")  # lower case actions
    record = parse_record(text)
    if resigned is not None and len(moves) == 48:
        # Little Golem plays the forced 49th placement itself, so a resignation there
        # comes after it.
        assert record.moves[:48] == moves and record.moves[48].is_placement
    else:
        assert record.moves == moves
    assert record.resigned == resigned
    assert (record.white, record.black) == ("Ann", "Bob")
    assert parse_record(export_moves(moves)).moves == moves


@GAMES
@given(SEEDS)
def test_json_round_trips(seed: int) -> None:
    moves = random_moves(seed)
    rng = random.Random(seed)
    for cut in (len(moves), rng.randrange(len(moves) + 1)):
        game = Game.from_moves(moves[:cut])
        data = game_to_json(game, white="Ann", black="Bob", resigned=None)
        record = game_from_json(json.dumps(data))
        assert record.moves == moves[:cut]
        assert (record.white, record.black) == ("Ann", "Bob")
        assert record.game() == game
        pos = position_to_json(game)
        stacks = position_from_json(json.dumps(pos))
        assert stacks == {c: s for c, s in enumerate(game.stacks()) if s}
        if not game.placing:
            again = Game.setup(stacks, pos["turn"])
            assert again.stacks() == game.stacks() and again.zobrist == game.zobrist
