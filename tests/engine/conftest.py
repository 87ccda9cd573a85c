"""Fixtures for the engine tests; the helpers and the reference rules are in dvonn_reference."""

from __future__ import annotations

import pytest
from dvonn_reference import RULES_PLACEMENT

from engine.game import Game


@pytest.fixture
def rules_game() -> Game:
    """The RULES.md perft position (after 49 placements, White to move)."""
    return Game.from_moves(RULES_PLACEMENT)


@pytest.fixture
def rules_placement() -> list[str]:
    return list(RULES_PLACEMENT)
