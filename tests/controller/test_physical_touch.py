"""The simulated players' gesture under the hand and the camera's ``touched`` (controller.sim.
physical): a stack set down under a hand is reported moved once the hand is gone."""

from __future__ import annotations

from controller.sim.physical import Meanness, Sight, generate
from controller.sim.scoring import replay_events, same
from controller.table.session import TableController
from hardware.events import SnapshotEvent


def test_stacks_set_down_under_a_hand_are_reported_touched_until_covered_again() -> None:
    session = generate(0, "camera", Meanness(noise=0.0))  # (noise may read '?' anywhere)
    snaps = [e for e in session.events if isinstance(e, SnapshotEvent)]
    assert session.stats["hidden_gesture"] > 0 and session.stats["touch_missed"] > 0
    assert any(e.touched for e in snaps)
    for e in snaps:  # a covered cell is never reported moved
        assert not any((e.touched >> c) & 1 and ch == "?" for c, ch in enumerate(e.cells))
    assert same(replay_events(session.events).lines, session.expected)


def test_hall_tables_draw_nothing_new() -> None:
    a = generate(4, "hall")
    b = generate(4, "hall", Meanness(hidden_gesture=1.0, touch_missed=0.5))
    assert a.events == b.events and a.truth == b.truth
    assert not any(e.touched for e in a.events if isinstance(e, SnapshotEvent))


def test_a_sensor_sees_stacks_set_down_and_whose_hand_acts() -> None:
    """A Sensor may return (cells, touched, grown); it is told how often a stack was set down on
    each cell, whose hand is over the board and the cell it acts on."""
    seen: list[Sight] = []

    def sensor(stacks: list[str], covered: frozenset[int], ctl: TableController,
               sight: Sight) -> tuple[str, int, int]:
        seen.append(sight)
        cells = "".join("?" if c in covered else (s[-1] if s else ".")
                        for c, s in enumerate(stacks))
        return cells, 0, 0

    session = generate(2, "camera", sensor=sensor)
    assert len(session.truth) > 49
    assert sum(seen[-1].set_downs) >= 49  # every piece placed, every stack landed
    assert {s.hand for s in seen} == {"", "w", "b"}
    assert all((s.over is None) == (s.hand == "") for s in seen)
