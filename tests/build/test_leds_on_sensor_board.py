"""``leds test`` for a strip on the sensor board's LED pin (the hall table's build step):
the command opens the board from the [sensor] section and sends every step's frame."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import cli
from hardware.clock import FakeClock
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable


def test_leds_test_drives_the_sensor_board_strip(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with SensorBoardEmulator(VirtualTable(), clock=FakeClock()) as emu:
        emu.start()
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[sensor]\nbackend = "sensor-board"\nport = "{emu.port}"\n'
                       '[leds]\nbackend = "sensor-board"\n')
        assert cli.main(["leds", "test", "--config", str(cfg), "--fast"]) == 0
        for _ in range(400):  # let the emulated board take what is still in the pty
            if not emu.wait_for_host(0.05):
                break
        frames = emu.led_frames
        last = emu.led_frame
    out = capsys.readouterr().out
    assert "LED test: backend sensor-board, 49 LEDs" in out and "A1 -> LED 0" in out
    assert frames >= 2  # blank at boot, then the test's frames (several may share a scan)
    # The last frame the board showed is one of the walk's: one cell white, or all white
    # (a pty may drop what is still queued when the port closes; USB would not).
    assert last is not None and any(last)
    lit = [i for i in range(0, len(last), 3) if last[i:i + 3] != bytes(3)]
    assert len(lit) == 1 or len(lit) == 49


def test_leds_test_on_the_sensor_board_without_a_board_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[sensor]\nport = "/nonexistent/ttyACM9"\n[leds]\nbackend = "sensor-board"\n')
    assert cli.main(["leds", "test", "--config", str(cfg), "--fast"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot open sensor board port '/nonexistent/ttyACM9'" in err[0]
