"""Crash safety: a process killed with SIGKILL loses no action it reported as committed."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal.store import Journal
from engine.geometry import CELL_NAMES

REPO = Path(__file__).resolve().parents[2]

# The child appends actions forever, printing each index only after append() returned.
CHILD = """
import sys
from controller.journal.store import Journal
from engine.geometry import CELL_NAMES

j = Journal(sys.argv[1])
gid = j.new_game(white="crash", black="test")
print("game", gid, flush=True)
i = 0
while True:
    index = j.append(gid, CELL_NAMES[i % 49])
    print(index, flush=True)
    i += 1
"""

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def _run_and_kill(path: Path, kill_after: int) -> tuple[int | None, int]:
    """Start the child, kill it after ``kill_after`` reported lines; return (game, last index)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=REPO,
    )
    assert child.stdout is not None
    game: int | None = None
    last = -1
    try:
        seen = 0
        while seen < kill_after:
            line = child.stdout.readline()
            if not line:
                break
            words = line.split()
            if words[0] == b"game":
                game = int(words[1])
            else:
                assert int(words[0]) == last + 1
                last = int(words[0])
            seen += 1
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        # Lines written before the kill also count: the child printed them after commit.
        for line in child.stdout.read().splitlines():
            words = line.split()
            if words and words[0] == b"game":
                game = int(words[1])
            elif words and words[0].isdigit():
                last = int(words[0])
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    return game, last


def test_sigkill_never_loses_a_reported_action(tmp_path: Path) -> None:
    rng = random.Random(20240501)
    path = tmp_path / "games.sqlite3"
    # Kill points in reported lines; 0 kills the child while it may still be creating the file.
    kill_points = [0, 1, 2] + [rng.randrange(3, 120) for _ in range(4)]
    expected: dict[int, int] = {}
    for kill_after in kill_points:
        game, last = _run_and_kill(path, kill_after)
        if game is not None:
            expected[game] = last
        with Journal(path) as j:
            assert j.check() == []
            for gid, top in expected.items():
                actions = j.actions(gid)
                # Every reported action is there; at most one more (committed, not yet printed).
                assert len(actions) - 1 in (top, top + 1)
                assert actions == [CELL_NAMES[i % 49] for i in range(len(actions))]
            unfinished = j.unfinished()
            if game is not None:
                assert unfinished is not None and unfinished.id == game
    assert len(expected) >= len(kill_points) - 1
