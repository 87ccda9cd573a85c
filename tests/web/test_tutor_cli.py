"""``dvonn-board web 127.0.0.1:0 --tutor`` stops cleanly: SIGTERM (a service stop) and Ctrl-C
(the terminal's SIGINT to the whole process group, the tutor's worker process included) end
the table with no traceback, and the worker process ends with it (no orphan)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"^web view: http://127\.0\.0\.1:\d+/\s*$")
SIGINT_BIT = 1 << (signal.SIGINT - 1)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def ignores_ctrl_c(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    ignored = re.search(r"^SigIgn:\s*([0-9a-f]+)", status, re.M)
    return ignored is not None and bool(int(ignored.group(1), 16) & SIGINT_BIT)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("how", ["sigterm", "ctrl-c"])
def test_web_with_the_tutor_stops_with_its_worker(how: str, tmp_path: Path) -> None:
    env = dict(os.environ, DVONN_WEB_TOKEN="tutor-cli-token-0123456789", NO_COLOR="1",
               XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_DATA_HOME=str(tmp_path / "d"))
    env.pop("DVONN_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "web", "127.0.0.1:0",
                             "--tutor"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 90)
        assert ready, "web printed nothing"
        line = proc.stdout.readline()
        assert URL.match(line), line
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while not workers and time.monotonic() < deadline:  # the tutor's worker, started
            workers = [c for c in children(proc.pid) if ignores_ctrl_c(c)]
            time.sleep(0.05)
        assert workers, f"no tutor worker among {children(proc.pid)}"
        if how == "sigterm":
            proc.send_signal(signal.SIGTERM)
        else:  # the terminal's Ctrl-C reaches every process of the group
            os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "stopped" in out
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers), "the tutor's worker outlived the table"
