"""The simulated players answering on no fixed schedule, playing real games, under LEDs lit
from the true game (controller.sim.answers, controller.sim.physical)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.sim.answers import AnswerRanges, record_actions
from controller.sim.physical import Meanness, Sight, generate
from controller.table.session import TableController
from engine.game import Game
from engine.records import decode_record, load_record_file

RANGES = AnswerRanges()
REAL = Path(__file__).resolve().parents[3] / "shared" / "games" / "boardspace"


def test_answer_timings_fall_in_the_ranges_and_are_drawn_per_game_and_answer() -> None:
    answers: list[dict[str, float]] = []
    never = 0
    for seed in range(1, 9):  # (the table answers more of its own prompts: more games)
        session = generate(seed, "camera", Meanness(noise=0.0), answers=RANGES)
        again = generate(seed, "camera", Meanness(noise=0.0), answers=RANGES)
        assert session.events == again.events and session.answers == again.answers
        answers += session.answers
        never += session.stats.get("never_answered", 0)
    assert len(answers) > 20 and never > 0
    for a in answers:
        assert RANGES.start[0] <= a["start"] <= RANGES.start[1]
        assert RANGES.reach[0] <= a["reach"] <= RANGES.reach[1]
        assert RANGES.hold[0] <= a["hold"] <= RANGES.hold[1]
        assert a["linger"] == 0.0 or RANGES.linger[0] <= a["linger"] <= RANGES.linger[1]
        assert a["shift"] <= RANGES.offset_mm
    assert any(a["early"] for a in answers) and any(not a["early"] for a in answers)
    assert any(a["linger"] == 0.0 for a in answers) and any(a["linger"] > 0.3 for a in answers)
    assert len({round(a["hold"], 6) for a in answers}) == len(answers)  # no fixed rule


def test_lights_tell_the_sensor_the_true_roles_without_changing_the_game() -> None:
    seen: list[Sight] = []

    def sensor(stacks: list[str], covered: frozenset[int], ctl: TableController,
               sight: Sight) -> tuple[str, int, int]:
        seen.append(sight)
        return "".join("?" if c in covered else (s[-1] if s else ".")
                       for c, s in enumerate(stacks)), 0, 0

    plain = generate(5, "camera", sensor=sensor)
    assert all(s.roles == () for s in seen)
    seen.clear()
    lit = generate(5, "camera", lights=True, sensor=sensor)
    assert lit.truth == plain.truth and lit.events == plain.events
    roles = {r for s in seen for _, r in s.roles}
    assert {"last", "movable", "source", "destination"} <= roles
    assert seen[-1].roles == ()  # all dark at the end
    placing = [s for s in seen[:100] if s.roles]
    assert all(len(s.roles) == 1 and s.roles[0][1] == "last" for s in placing)
    assert all(s.t >= 0 for s in seen) and seen[-1].t > seen[0].t


def test_a_real_game_is_played_as_the_record_says() -> None:
    files = sorted(REAL.glob("*.sgf"))[:40]
    if not files:
        pytest.skip(f"{REAL} is missing")
    path = max(files, key=lambda p: p.stat().st_size)
    record = load_record_file(decode_record(path.read_bytes()), path.name)
    session = generate(2, "camera", Meanness(noise=0.0), answers=RANGES, lights=True,
                       record=[str(m) for m in record.moves])
    assert [m for m in session.truth if m != "PASS"] == [
        str(m) for m in record_actions(record.moves)]
    assert session.expected[:-1] == session.truth or session.expected == session.truth
    game = Game.from_moves(session.truth)
    assert max(len(s) for s in game.stacks()) >= 4
