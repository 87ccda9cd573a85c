"""A hall-sensor table installs without numpy and OpenCV: every command it uses must run with
both made unimportable (tests/install/blocker.py), and the camera commands must say in one
line which extra to install (exit 2)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hardware.clock import FakeClock
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable

ROOT = Path(__file__).resolve().parents[2]
BLOCKER = Path(__file__).with_name("blocker.py")
LOG = ROOT / "tests" / "controller" / "data" / "board-seed3.jsonl"
SGF = ROOT / "tests" / "engine" / "data" / "boardspace" / "DV-Aeacus-Dumbot-2008-11-02-2321.sgf"


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               DVONN_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("DVONN_LEDS", None)
    return env


def run_blocked(tmp_path: Path, commands: list[list[str]], timeout: float = 240
                ) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    results = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, str(BLOCKER), str(results), json.dumps(commands)],
                          cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True,
                          timeout=timeout)
    assert results.exists(), proc.stderr
    return json.loads(results.read_text()), proc


@pytest.fixture
def board() -> Iterator[SensorBoardEmulator]:
    emu = SensorBoardEmulator(VirtualTable(seed=5), clock=FakeClock(), seed=2)
    emu.start()
    yield emu
    emu.close()


def test_hall_only_commands_need_neither_numpy_nor_opencv(
        tmp_path: Path, board: SensorBoardEmulator) -> None:
    journal = str(tmp_path / "games.sqlite3")
    commands = [
        ["demo", "--fast", "--seed", "3", "--journal", journal],
        ["replay-sensors", str(LOG)],
        ["moves", "C1", "D1"],
        ["leds", "test", "--fast", "--backend", "recording"],
        ["sensors", "watch", "--port", board.port, "--seconds", "0.3"],
        ["sensors", "calibrate", "--port", board.port, "--samples", "4"],
        ["games", "--journal", journal, "list"],
        ["games", "import", "--journal", journal, str(SGF)],
        ["games", "export", "2", "--format", "sgf", "--journal", journal],
        ["replay", str(SGF)],
        ["analyze", str(SGF), "--time", "1"],
        ["perft", "1"],
        ["drawings", "--out", str(tmp_path / "drawings"), "--paper", "A4"],
    ]
    results, proc = run_blocked(tmp_path, commands)
    assert [r["argv"] for r in results] == commands, proc.stderr
    for r in results:
        assert r["attempts"] == [], f"{r['argv']} imported {r['attempts']}: {proc.stderr}"
        assert r["code"] == 0, f"{r['argv']} exited {r['code']}: {proc.stderr[-2000:]}"
    assert "over white=" in proc.stdout


@pytest.mark.parametrize("argv", [
    ["vision", "read", "photo.png"],
    ["vision", "sheet", "--out", "sheet.svg"],
    ["vision", "render", "--out", "frame.png"],
    ["vision", "calibrate", "--images", "empty.png"],
])
def test_camera_commands_without_the_camera_extra_say_what_to_install(
        tmp_path: Path, argv: list[str]) -> None:
    results, proc = run_blocked(tmp_path, [argv])
    assert results[0]["code"] == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "pip install 'dvonn-board[camera]'" in lines[0]
    assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]  # nothing written


def test_play_with_the_camera_backend_without_the_extra_is_one_line(tmp_path: Path) -> None:
    cfg = tmp_path / "camera.toml"
    cfg.write_text('[sensor]\nbackend = "camera"\n[leds]\nbackend = "none"\n')
    results, proc = run_blocked(tmp_path, [["play", "--config", str(cfg),
                                            "--journal", str(tmp_path / "g.sqlite3")]])
    assert results[0]["code"] == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("dvonn-board play: ") and "dvonn-board[camera]" in line


def test_play_on_the_hall_board_runs_without_numpy_or_opencv(
        tmp_path: Path, board: SensorBoardEmulator) -> None:
    """``play`` against the emulated sensor board, LEDs drawn in the terminal; stopped with
    Ctrl-C (SIGINT) once it has drawn a frame."""
    cfg = tmp_path / "hall.toml"
    cfg.write_text(f'[sensor]\nbackend = "sensor-board"\nport = "{board.port}"\n'
                   '[leds]\nbackend = "terminal"\ncolour = false\n')
    results = tmp_path / "results.json"
    argv = ["play", "--config", str(cfg), "--journal", str(tmp_path / "g.sqlite3")]
    proc = subprocess.Popen([sys.executable, str(BLOCKER), str(results), json.dumps([argv])],
                            cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        seen = b""
        while b"to place" not in seen and proc.poll() is None:
            left = deadline - time.monotonic()
            assert left > 0, f"play drew nothing: {seen[-500:]!r}"
            ready, _, _ = select.select([proc.stdout], [], [], left)
            if ready:
                seen += os.read(proc.stdout.fileno(), 65536)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (result,) = json.loads(results.read_text())
    assert result["attempts"] == []
    assert result["code"] == 0, err.decode()
    assert b"the game is kept" in err
