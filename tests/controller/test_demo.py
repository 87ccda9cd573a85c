"""``dvonn-board demo``: a whole game on the simulated table, printed in the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.sensorlog import read_log, replay
from controller.table.session import TableController


@pytest.mark.parametrize("extra", [[], ["--direct"], ["--players", "greedy", "--no-noise"]])
def test_fast_demo_plays_to_the_end_and_records(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    log = tmp_path / "demo.jsonl"
    code = main(["demo", "--fast", "--seed", "7", "--record", str(log), *extra])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert code == 0
    assert lines[-2].startswith("score: white ") and lines[-1].startswith("winner: ")
    assert "A1" in out and "K5" in out  # the board drawn by the TerminalStrip
    ctl = replay(read_log(log), TableController(colours=False))
    w, b = ctl.game.score()
    assert ctl.game.is_over() and lines[-2] == f"score: white {w} black {b}"
