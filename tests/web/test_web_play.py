"""``play --web``: the real table's loop (here the emulated sensor board over a pty) serves
its view; a piece put on the table shows in /api/state, a paired phone's undo reaches it."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_helpers import get_json, http, wait_state

from engine.geometry import parse_cell
from hardware.clock import SystemClock
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(rb"web view: (http://127\.0\.0\.1:(\d+)/)")
TOKEN = "play-test-token-0123456789"  # the scripts' token (DVONN_WEB_TOKEN)


@pytest.fixture
def board() -> Iterator[SensorBoardEmulator]:
    emu = SensorBoardEmulator(VirtualTable(seed=5), clock=SystemClock(), seed=2)
    emu.start()
    yield emu
    emu.close()


def test_play_serves_the_running_table(tmp_path: Path, board: SensorBoardEmulator) -> None:
    cfg = tmp_path / "hall.toml"
    cfg.write_text(f'[sensor]\nbackend = "sensor-board"\nport = "{board.port}"\n'
                   '[leds]\nbackend = "terminal"\ncolour = false\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_DATA_HOME=str(tmp_path / "d"),
               DVONN_DATA_DIR=str(tmp_path / "d"), NO_COLOR="1", DVONN_WEB_TOKEN=TOKEN)
    env.pop("DVONN_LEDS", None)
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "play", "--config",
                             str(cfg), "--journal", str(tmp_path / "g.sqlite3"), "--web",
                             "127.0.0.1:0"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        seen = b""
        deadline = time.monotonic() + 60
        while not URL.search(seen):
            assert proc.poll() is None and time.monotonic() < deadline, seen[-300:]
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                seen += os.read(proc.stdout.fileno(), 65536)
        m = URL.search(seen)
        assert m is not None
        base, token = f"http://127.0.0.1:{int(m.group(2))}", TOKEN
        wait_state(base, lambda s: "White to place" in s["message"], "the table read")
        board.table.put(parse_cell("C3"), "r")  # on the real (emulated) table
        state = wait_state(base, lambda s: s["actions"] == ["C3"], "the placement")
        assert get_json(f"{base}/api/state")["actions"] == ["C3"]
        assert state["stacks"] == {"C3": "r"} and state["last_move"]["to"] == "C3"
        assert http(f"{base}/api/control/undo", "POST")[0] == 403
        status, body, _ = http(f"{base}/api/control/undo", "POST", token=token)
        assert status == 200 and json.loads(body)["ok"]
        state = get_json(f"{base}/api/state")
        assert state["actions"] == [] and state["roles"] == {"C3": "mismatch"}
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
