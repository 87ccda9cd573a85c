"""``dvonn-board sensors calibrate|watch`` against the emulated board."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller import cli
from engine.geometry import parse_cell
from hardware.clock import FakeClock
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable


@pytest.fixture
def board() -> Iterator[SensorBoardEmulator]:
    emu = SensorBoardEmulator(VirtualTable(seed=5), clock=FakeClock(), seed=2)
    emu.start()
    yield emu
    emu.close()


def test_calibrate_prints_per_cell_stats(board: SensorBoardEmulator,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["sensors", "calibrate", "--port", board.port, "--samples", "8"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "samples: 8" in out and "kept at their old baseline: 0" in out
    lines = out.splitlines()
    assert lines[2].split()[0] == "A1" and lines[-1].split()[0] == "K5" and len(lines) == 51
    assert "CHECK" not in out


def test_calibrate_with_a_piece_left_fails(board: SensorBoardEmulator,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    board.table.put(parse_cell("C3"), "w")
    assert cli.main(["sensors", "calibrate", "--port", board.port, "--samples", "4"]) == 1
    captured = capsys.readouterr()
    (check,) = [ln for ln in captured.out.splitlines() if "CHECK" in ln]
    assert check.startswith("C3")
    assert "clear the table" in captured.err


def test_no_board_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["sensors", "calibrate", "--port", "/nonexistent/ttyACM7"])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot open sensor board port '/nonexistent/ttyACM7'" in err


@pytest.mark.parametrize(("args", "words"), [
    (["--samples", "0"], "--samples: '0': must be 1..255"),
    (["--samples", "many"], "'many' is not a whole number"),
    (["--timeout", "nan"], "--timeout: 'nan': must be 0 or more seconds"),
])
def test_bad_calibrate_options_are_refused_before_the_port_is_opened(
        args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["sensors", "calibrate", "--port", "/nonexistent/ttyACM7", *args])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1  # one line, no usage dump
    assert words in err and "/nonexistent" not in err


def test_silent_board_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    emu = SensorBoardEmulator(VirtualTable(), clock=FakeClock())  # never stepped: no answer
    try:
        code = cli.main(["sensors", "calibrate", "--port", emu.port, "--timeout", "0.05"])
    finally:
        emu.close()
    assert code == 2
    assert "no answer from the sensor board to CALIBRATE" in capsys.readouterr().err


def test_watch_prints_changes(board: SensorBoardEmulator,
                              capsys: pytest.CaptureFixture[str]) -> None:
    board.table.put(0, "b")
    assert cli.main(["sensors", "watch", "--port", board.port, "--seconds", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "watching the sensor board" in out
    assert "x" + "." * 48 + "  s" + "." * 48 in out
