"""``leds test`` for a strip on the sensor board's LED pin (the hall table's build step):
the command opens the board from the [sensor] section and sends every step's frame."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from controller import cli
from hardware.clock import FakeClock
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable


def _lit(frame: bytes) -> list[int]:
    """The LEDs a frame lights."""
    return [i // 3 for i in range(0, len(frame), 3) if frame[i:i + 3] != bytes(3)]


def test_leds_test_drives_the_sensor_board_strip(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with SensorBoardEmulator(VirtualTable(), clock=FakeClock()) as emu:
        shown: list[bytes] = []
        leds = emu.firmware.leds
        show = leds.show
        walked = threading.Event()  # the first ten steps of the walk have reached the LEDs

        def record(payload: bytes) -> None:  # what the firmware clocks out to the LEDs
            shown.append(bytes(payload))
            show(payload)
            if sum(len(_lit(f)) == 1 for f in shown) >= 10:
                walked.set()

        leds.show = record
        emu.start()
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[sensor]\nbackend = "sensor-board"\nport = "{emu.port}"\n'
                       '[leds]\nbackend = "sensor-board"\n')
        assert cli.main(["leds", "test", "--config", str(cfg), "--fast"]) == 0
        # the emulated board's thread takes what is still in the pty (slowly on a loaded
        # machine: spinning while bytes were ready gave up before it had read them)
        walked.wait(60.0)
    out = capsys.readouterr().out
    assert "LED test: backend sensor-board, 49 LEDs" in out and "A1 -> LED 0" in out
    lit = [_lit(f) for f in shown]
    walk = [cells for cells in lit if len(cells) == 1]
    # The walk reached the board in order (a pty may drop the tail when the port closes).
    assert walk[:10] == [[led] for led in range(10)]


def test_leds_test_on_the_sensor_board_without_a_board_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[sensor]\nport = "/nonexistent/ttyACM9"\n[leds]\nbackend = "sensor-board"\n')
    assert cli.main(["leds", "test", "--config", str(cfg), "--fast"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot open sensor board port '/nonexistent/ttyACM9'" in err[0]
