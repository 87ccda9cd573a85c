"""The mean generator of physical sessions (controller.sim.physical): its games replay exactly.

The full 1,000-game runs per sensor kind are in benchmarks/sessions.py; here a few seeds.
"""

from __future__ import annotations

from collections import Counter

import pytest

from controller.sim.physical import Meanness, expected_lines, generate
from controller.sim.scoring import replay_events, same
from engine.game import Game
from hardware.events import ButtonEvent, SnapshotEvent


@pytest.mark.parametrize("kind", ["hall", "camera"])
def test_generated_games_replay_exactly(kind: str) -> None:
    seen: Counter[str] = Counter()
    for seed in (1, 2, 3):
        session = generate(seed, kind)
        seen.update(session.stats)
        outcome = replay_events(session.events)
        assert same(outcome.lines, session.expected), (kind, seed)
        assert Game.from_moves(session.truth).is_over()
    # the players were mean: hands, held stacks, answers to prompts, noise
    assert seen["noise"] and seen["held"] and seen["gesture"] + seen["buttons"]


def test_generation_is_deterministic_and_readings_are_well_formed() -> None:
    a = generate(5, "camera")
    b = generate(5, "camera")
    assert a.events == b.events and a.truth == b.truth
    snaps = [e for e in a.events if isinstance(e, SnapshotEvent)]
    assert any("?" in e.cells for e in snaps)  # hands cover the camera's view
    assert all(len(e.cells) == 49 and set(e.cells) <= set(".wbr?") for e in snaps)
    times = [e.t for e in a.events]
    assert times == sorted(times)
    hall = generate(5, "hall", Meanness(buttons=1.0))
    assert all(set(e.cells) <= set(".x?") for e in hall.events if isinstance(e, SnapshotEvent))
    assert any(isinstance(e, ButtonEvent) for e in hall.events)


def test_expected_lines_end_with_the_score() -> None:
    session = generate(7, "hall", Meanness(noise=0, drop=0, repeat=0, blackout=0, hold=0,
                                           knock=0, wrong_piece=0, unanswered=0))
    g = Game.from_moves(session.truth)
    w, b = g.score()
    assert session.expected == expected_lines(list(g.move_stack))
    assert session.expected[-1] == f"over white={w} black={b}"


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="hall' or 'camera"):
        generate(1, "sonar")


@pytest.mark.parametrize(("kind", "seed"), [("hall", 220), ("camera", 321)])
def test_a_blackout_over_the_last_move_ends_with_the_game(kind: str, seed: int) -> None:
    """A blackout meant to last over the next action (a Pi rebooting) began with the last
    move: it ends with the game, so the table reads on while the players answer the last
    prompt (before, the log ended in the dark with one last reading, the last move never
    answered: no real table does that; hall 220, 658, camera 321, 719)."""
    session = generate(seed, kind)
    times = [e.t for e in session.events if isinstance(e, SnapshotEvent)]
    assert times[-1] - times[-2] < 1.0  # no silence before the last reading
    assert same(replay_events(session.events).lines, session.expected)
