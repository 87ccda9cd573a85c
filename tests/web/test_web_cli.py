"""``dvonn-board web`` and ``demo --web`` as a user runs them: the address and pairing lines,
the scripts' token from the environment or a file (never the command line), clean stops,
one-line errors."""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
from pathlib import Path

from web_helpers import get_json, http

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"^web view: (http://127\.0\.0\.1:(\d+)/)\s*$")
TOKEN = "cli-test-token-0123456789"  # the scripts' token, from DVONN_WEB_TOKEN


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", *args]


def _first_line(proc: subprocess.Popen[str], timeout: float = 60.0) -> str:
    """The command's first line on stdout, waiting at most ``timeout`` s (never hangs)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, f"nothing printed within {timeout} s"
    return proc.stdout.readline()


def _env() -> dict[str, str]:
    env = dict(os.environ, DVONN_WEB_TOKEN=TOKEN)
    env.pop("DVONN_DEBUG", None)
    return env


def test_web_prints_the_pairing_url_serves_the_table_and_stops_on_sigterm() -> None:
    proc = subprocess.Popen(_cli("web", "127.0.0.1:0", "--black", "random"), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())
    try:
        assert proc.stdout is not None
        line = _first_line(proc)
        m = URL.search(line)
        assert m, line
        base = f"http://127.0.0.1:{m.group(2)}"
        state = get_json(f"{base}/api/state")
        assert state["players"] == {"white": "White", "black": "computer (random)"}
        status, _, _ = http(f"{base}/api/control/click/C3", "POST", token=TOKEN)
        assert status == 200
        assert http(f"{base}/api/control/click/D3", "POST")[0] == 403
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_bad_input_is_one_line_and_exit_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        for args, words in ((("web", "nope:xx"), "[HOST:]PORT"),
                            (("web", "127.0.0.1:0", "--white", "deep-blue"), "deep-blue"),
                            (("web", "127.0.0.1:0", "--token", "long-enough-token-x"),
                             "--token-file"),
                            (("web", "127.0.0.1:0", "--web-host-name", "evil:80"), "evil:80"),
                            (("demo", "--fast", "--web", "127.0.0.1:0", "--token-file",
                              "no/such/file"), "no/such/file"),
                            (("web", f"127.0.0.1:{port}"), "cannot serve"),
                            (("demo", "--fast", "--web", "x:y"), "[HOST:]PORT")):
            r = subprocess.run(_cli(*args), cwd=ROOT, capture_output=True, text=True,
                               timeout=30, env=_env())
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and words in lines[0], (args, r.stderr)


def test_demo_serves_its_table_while_it_plays(tmp_path: Path) -> None:
    """... and after it, until SIGTERM (test_glance_lifetime.py: the review, Ctrl-C)."""
    import time

    log = tmp_path / "out.txt"
    with log.open("w") as out:
        proc = subprocess.Popen(_cli("demo", "--fast", "--direct", "--no-noise", "--seed", "3",
                                     "--web", "127.0.0.1:0"), cwd=ROOT, stdout=out,
                                stderr=subprocess.PIPE, text=True, env=_env())
    try:
        deadline = time.monotonic() + 240
        while "keeps serving" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-500:]
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stdout = log.read_text()
    first = stdout.splitlines()[0]
    assert URL.search(first), first
    assert "score: white" in stdout


def test_a_virtual_game_in_a_journal_resumes_where_it_stopped(tmp_path: Path) -> None:
    journal = str(tmp_path / "games.sqlite3")
    played: list[str] = []
    for cells in (("C3", "D3"), ("E3",)):
        proc = subprocess.Popen(_cli("web", "127.0.0.1:0", "--journal", journal), cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=_env())
        try:
            assert proc.stdout is not None
            m = URL.search(_first_line(proc))
            assert m
            base = f"http://127.0.0.1:{m.group(2)}"
            assert get_json(f"{base}/api/state")["actions"] == played
            for cell in cells:
                status, _, _ = http(f"{base}/api/control/click/{cell}", "POST",
                                    token=TOKEN)
                assert status == 200
                played.append(cell)
            assert get_json(f"{base}/api/state")["actions"] == played
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=15)
            assert proc.returncode == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert played == ["C3", "D3", "E3"]


def test_a_journal_held_by_another_table_is_refused(tmp_path: Path) -> None:
    """One writer per journal: the virtual table refuses a journal a demo or play holds."""
    from controller.journal.store import Journal

    journal = tmp_path / "games.sqlite3"
    with Journal(journal, writer=True):
        r = subprocess.run(_cli("web", "127.0.0.1:0", "--journal", str(journal)), cwd=ROOT,
                           capture_output=True, text=True, env=_env(), timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert str(journal) in line and f"process {os.getpid()}" in line
