"""Issue 42, point 3: a table with a page keeps serving until it is stopped. ``demo --web``
used to exit 2.5 s after its game while the page still offered "Review this game"; now the
page, its state and the review answer after the end until Ctrl-C (or SIGTERM), which ends the
command quietly with exit code 0 (the game was played to its end)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from web_helpers import http

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"^web view: (http://127\.0\.0\.1:(\d+)/)\s*$")


class Output:
    """A process's stdout read in a thread (the demo draws its board there: an unread pipe
    would fill up and stop it), with a wait for a line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        assert proc.stdout is not None
        self._thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def join(self, timeout: float) -> None:
        """Wait until the stream is at its end (the process closed it)."""
        self._thread.join(timeout)

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        with self._changed:
            seen = 0
            while True:
                for line in self.lines[seen:]:
                    m = re.search(pattern, line)
                    if m:
                        return m
                seen = len(self.lines)
                left = deadline - time.monotonic()
                assert left > 0, f"no line like {pattern!r} within {timeout} s: " \
                                 f"{''.join(self.lines[-5:])}"
                self._changed.wait(left)


def _start(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop("DVONN_DEBUG", None)
    return subprocess.Popen([sys.executable, "-m", "controller.cli", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_demo_web_serves_after_the_game_until_ctrl_c() -> None:
    proc = _start("demo", "--fast", "--direct", "--no-noise", "--seed", "3", "--web",
                  "127.0.0.1:0")
    try:
        out = Output(proc)
        base = out.wait_for(URL.pattern, 60).group(1).rstrip("/")
        out.wait_for(r"^winner: ", 240)
        out.wait_for(r"keeps serving until Ctrl-C", 30)
        ended = time.monotonic()
        polls = 0
        while time.monotonic() - ended < 10.0 or polls < 3:  # the one wait: the page lives on
            assert proc.poll() is None, "the demo ended after its game"
            status, body, _ = http(f"{base}/api/state")
            assert status == 200 and json.loads(body)["phase"] == "over"
            status, body, _ = http(f"{base}/")
            assert status == 200 and b'id="review-this"' in body
            status, body, _ = http(f"{base}/api/review/live")  # "Review this game"
            review = json.loads(body)
            assert status == 200 and review["actions"], review
            polls += 1
            time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        # stdout is the reader thread's alone: a second reader (communicate) could take the
        # last lines from it
        assert proc.wait(timeout=60) == 0
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert "Traceback" not in err and err.strip() == "", err
        out.join(30)
        out.wait_for(r"^stopped", 5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_demo_without_web_still_exits_at_the_end() -> None:
    r = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--fast", "--direct",
                        "--no-noise", "--seed", "3"], cwd=ROOT, capture_output=True, text=True,
                       timeout=240)
    assert r.returncode == 0, r.stderr
    assert "winner: " in r.stdout and "keeps serving" not in r.stdout
