"""End to end: hands -> VirtualTable -> firmware emulator -> pty -> SensorBoardClient ->
TableController -> RecordingStrip, whole games on a FakeClock; plus kill-and-resume."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.journal.store import Journal
from controller.sensorlog import read_log, replay
from controller.sim.demo import DemoOptions, DemoResult, run_demo
from controller.sim.hands import Habits
from controller.table.session import TableController
from engine.game import Game
from hardware.leds import RecordingStrip

ROOT = Path(__file__).resolve().parents[2]


def play(tmp_path: Path, seed: int, habits: Habits, **kw: object) -> tuple[DemoResult,
                                                                          RecordingStrip]:
    strip = RecordingStrip()
    opts = DemoOptions(fast=True, seed=seed, habits=habits, strip=strip, quiet=True,
                       record=str(tmp_path / f"seed{seed}.jsonl"), **kw)  # type: ignore[arg-type]
    return run_demo(opts, io.StringIO()), strip


def check_game(result: DemoResult, log: Path) -> None:
    """The game is over, legal, and the recorded log replays to exactly the same game."""
    assert result.over
    game = Game.from_moves(result.actions)
    assert game.is_over() and game.score() == result.score
    replayed = replay(read_log(log), TableController(colours=False))
    assert replayed.actions == result.actions


def test_whole_game_with_noise_gestures_and_cancels(tmp_path: Path) -> None:
    habits = Habits(noise=0.3, cancel=0.15, gesture=0.5)
    result, strip = play(tmp_path, 11, habits)
    check_game(result, tmp_path / "seed11.jsonl")
    stats = result.stats
    assert stats["noise"] and stats["cancel"] and stats["gesture"] and stats["buttons"]
    assert len(strip.frames) > 100
    final = strip.shown_cells[-1]
    assert any(rgb != (0, 0, 0) for rgb in final)  # the end: owners and winner lit


def test_whole_game_with_knocks_and_undo(tmp_path: Path) -> None:
    habits = Habits(noise=0.1, knock=0.08, undo=0.08)
    result, _ = play(tmp_path, 12, habits, players="greedy")
    check_game(result, tmp_path / "seed12.jsonl")
    assert result.stats["knock"] and result.stats["undo"] and result.stats["restored"]


def test_journal_resume_guides_the_restore(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    prefix = Game()
    import random

    rng = random.Random(5)
    while prefix.ply < 60:
        prefix.push(rng.choice(prefix.legal_moves()))
    with Journal(path) as j:
        gid = j.new_game(source="demo")
        for m in prefix.move_stack:
            j.append(gid, str(m))
    result, _ = play(tmp_path, 13, Habits(noise=0.0), journal=str(path))
    assert result.controller.resumed and result.controller.game_id == gid
    assert result.actions[:60] == [str(m) for m in prefix.move_stack]
    assert result.over and result.stats["restored"] >= 49 - prefix.occupied.bit_count()
    with Journal(path) as j:
        info = j.game(gid)
        assert info.is_finished and j.actions(gid) == result.actions


def test_kill_9_during_a_demo_then_resume(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    # A killed demo cannot remove its emulated board's temporary port folder: keep it here.
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "demo", "--fast", "--seed", "21",
         "--journal", str(path)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        stored: list[str] = []
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists():
                try:
                    with Journal(path) as j:
                        games = j.games()
                        stored = j.actions(games[0].id) if games else []
                except Exception:  # the writer may hold the file for a moment
                    stored = []
                if len(stored) >= 25:
                    proc.send_signal(signal.SIGKILL)
                    break
            time.sleep(0.005)
    finally:
        if proc.poll() is None:  # never leave the demo running (deadline passed, or an error)
            proc.kill()
        proc.wait(timeout=30)
        assert proc.stderr is not None
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL, "the demo ended before it could be killed"
    with Journal(path) as j:
        info = j.unfinished()
        assert info is not None
        before = j.actions(info.id)
    assert len(before) >= 25
    result, _ = play(tmp_path, 22, Habits(noise=0.1), journal=str(path))
    assert result.controller.resumed and result.actions[: len(before)] == before
    assert result.over
    with Journal(path) as j:
        assert j.game(info.id).is_finished and j.unfinished() is None


@pytest.mark.parametrize("colours", [False, True])
def test_direct_table_games(tmp_path: Path, colours: bool) -> None:
    habits = Habits(noise=0.2, cancel=0.1, gesture=0.5)
    result, _ = play(tmp_path, 14, habits, direct=True, colours=colours)
    assert result.over
    replayed = replay(read_log(tmp_path / "seed14.jsonl"), TableController(colours=colours))
    assert replayed.actions == result.actions
