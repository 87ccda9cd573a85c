"""perft counts: the RULES.md figures and the positions of data/perft.json."""

from __future__ import annotations

from typing import Any

import pytest
from dvonn_reference import (
    RULES_PLACEMENT,
    Reference,
    build_position,
    load_perft_data,
    ref_perft,
)

from engine.game import Game
from engine.perft import divide, perft

POSITIONS = load_perft_data()
CASES = [(p["name"], int(d), n) for p in POSITIONS for d, n in p["perft"].items()]
BY_NAME = {p["name"]: p for p in POSITIONS}


def test_the_data_file_holds_the_rules_md_figures() -> None:
    rules = BY_NAME["rules-md"]
    assert rules["moves"] == RULES_PLACEMENT
    assert rules["perft"] == {"1": 46, "2": 1968, "3": 94210, "4": 4318998}


@pytest.mark.parametrize(("name", "depth", "expected"), CASES,
                         ids=[f"{n}-d{d}" for n, d, _ in CASES])
def test_perft(name: str, depth: int, expected: int) -> None:
    game = build_position(BY_NAME[name])
    before = (game.stacks(), game.zobrist, game.ply)
    assert perft(game, depth) == expected
    assert (game.stacks(), game.zobrist, game.ply) == before  # perft leaves the game as it was


@pytest.mark.parametrize("entry", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_reference_generator_agrees_on_the_data_file(entry: dict[str, Any]) -> None:
    """The slow reference reproduces each count up to a cheap depth (2 for rules-md)."""
    ref = Reference.from_game(build_position(entry))
    depth = max(2, min(entry.get("reference_depth", 2), 3))
    for d in range(1, depth + 1):
        if str(d) in entry["perft"]:
            assert ref_perft(ref, d) == entry["perft"][str(d)], (entry["name"], d)


def test_perft_depth_zero_and_negative(rules_game: Game) -> None:
    assert perft(rules_game, 0) == 1
    with pytest.raises(ValueError, match="depth"):
        perft(rules_game, -1)


def test_a_finished_game_is_one_leaf() -> None:
    game = Game.setup({"A1": "rw"})
    assert game.is_over()
    assert perft(game, 1) == 1 and perft(game, 3) == 1


def test_divide_sums_to_perft(rules_game: Game) -> None:
    parts = divide(rules_game, 2)
    assert len(parts) == 46
    assert sum(parts.values()) == 1968
    assert set(parts) == {str(m) for m in rules_game.legal_moves()}
