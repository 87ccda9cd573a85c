"""Recorded sessions from a physical model that is not the project's own: every one replays to
its .expected output exactly, with its .checks.json roles shown in their time windows.

../shared/sessions is the outside evidence (CI always has it: there a missing folder fails);
tests/controller/data/shared holds a few copies so a clone without ../shared tests something.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli import main
from controller.sim.scoring import check_roles, run_session, same

HERE = Path(__file__).parent / "data" / "shared"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "sessions"
COPIES = sorted(HERE.glob("*.jsonl"))
OUTSIDE = sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else []


def _check(log: Path) -> None:
    outcome, want = run_session(log)
    assert want is not None, f"{log.name}: no .expected file"
    assert same(outcome.lines, want), (
        f"{log.name}: replay differs\n got: {outcome.lines}\nwant: {want}")
    assert outcome.failed_checks == [], f"{log.name}: {outcome.failed_checks}"


@pytest.mark.parametrize("log", COPIES, ids=[p.stem for p in COPIES])
def test_copied_sessions_replay_exactly(log: Path) -> None:
    _check(log)


def test_outside_sessions_are_there() -> None:
    if not OUTSIDE:
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing or empty; CI must have ../shared")
        pytest.skip(f"{SHARED} not found (a clone without ../shared): the copies in "
                    f"{HERE} still run")
    assert all(p.with_suffix(".expected").exists() for p in OUTSIDE)


@pytest.mark.parametrize("log", OUTSIDE, ids=[p.stem for p in OUTSIDE])
def test_outside_sessions_replay_exactly(log: Path) -> None:
    _check(log)


def test_the_command_prints_the_expected_lines(capsys: pytest.CaptureFixture[str]) -> None:
    log = HERE / "hall-11.jsonl"
    assert main(["replay-sensors", str(log)]) == 0
    out = capsys.readouterr().out
    assert out.split() == log.with_suffix(".expected").read_text().split()


def test_a_check_not_shown_in_its_window_is_reported() -> None:
    checks = [{"kind": "destination", "cells": ["A1", "B1"], "source": "C1", "required": True,
               "t": 1.0, "until": 2.0, "move": "C1A1", "ply": 50},
              {"kind": "remove", "cells": ["D1"], "required": True, "t": 1.0, "until": 2.0},
              {"kind": "remove", "cells": ["E1"], "required": False, "t": 1.0, "until": 2.0}]
    shown = {"A1": "destination", "B1": "destination", "C1": "source"}
    trace = [{"t": 0.5, "roles": {}}, {"t": 1.5, "roles": shown}, {"t": 2.5, "roles": {}}]
    failed = check_roles(trace, checks)
    assert len(failed) == 1 and failed[0].startswith("remove ['D1']")
    late = [{"t": 0.5, "roles": {}}, {"t": 2.5, "roles": shown}]
    assert len(check_roles(late, checks[:1])) == 1
    alt = dict(checks[0], alt=["A1"])
    assert check_roles([{"t": 1.2, "roles": {"A1": "destination", "C1": "source"}}], [alt]) == []
