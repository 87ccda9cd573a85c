"""SIGTERM (``kill``, a shutdown) stops a running table like Ctrl-C: the cleanup runs, the game
stays in the journal, nothing is left behind in the temporary folder."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

from controller import cli
from controller.journal.store import Journal

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_ends_the_demo_like_ctrl_c(tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    env.pop("DVONN_DEBUG", None)
    (tmp_path / "tmp").mkdir()
    journal = tmp_path / "games.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "demo", "--seed", "3", "--journal", str(journal)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "the demo printed nothing within 60 s"
        assert list((tmp_path / "tmp").glob("dvonn-sensorboard-*")), "the emulated board's port"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "dvonn-board demo: interrupted"
    assert "Traceback" not in err
    assert not list((tmp_path / "tmp").iterdir()), "the temporary port was left behind"
    with Journal(journal, writer=True) as j:  # the writer lock was released
        assert j.games(), "the game was not kept"


def test_the_handler_is_restored_and_threads_are_left_alone() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with cli._sigterm_as_interrupt():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before

    seen: list[object] = []

    def in_thread() -> None:
        with cli._sigterm_as_interrupt():
            seen.append(signal.getsignal(signal.SIGTERM))

    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    assert seen == [before]
