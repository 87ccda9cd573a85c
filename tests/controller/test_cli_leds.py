"""``dvonn-board leds test``: the wiring walk, its config file, backends and errors."""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import Any

import pytest

import controller.cli.leds as cli_leds
from controller.cli import main
from hardware.clock import FakeClock
from hardware.leds import LedStrip, RecordingStrip

WHITE = (255, 255, 255)


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Point the default config at an empty folder and clear LED environment variables."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("DVONN_LEDS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path / "xdg" / "dvonn-board" / "config.toml"


@pytest.fixture
def strips(monkeypatch: pytest.MonkeyPatch) -> list[LedStrip]:
    """Every strip the command builds, for inspecting its frames afterwards."""
    made: list[LedStrip] = []
    real = cli_leds.strip_from_config

    def spy(*args: Any, **kwargs: Any) -> LedStrip:
        strip = real(*args, **kwargs)
        made.append(strip)
        return strip

    monkeypatch.setattr(cli_leds, "strip_from_config", spy)
    return made


def write_config(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_walk_with_the_recording_backend(
    capsys: pytest.CaptureFixture[str], strips: list[LedStrip]
) -> None:
    assert main(["leds", "test", "--fast", "--backend", "recording"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("LED test: backend recording, 49 LEDs")
    assert out[1] == "A1 -> LED 0"
    assert out[49] == "K5 -> LED 48"
    assert out[50].startswith("all white -> 49 LEDs, about 1997 mA (limit 2000 mA")
    assert out[-1] == "LED test done"
    strip = strips[0]
    assert isinstance(strip, RecordingStrip) and strip.closed
    assert len(strip.frames) == 50
    for cell in range(49):
        assert [i for i, c in enumerate(strip.frames[cell].cells) if c != (0, 0, 0)] == [cell]
    assert strip.frames[-1].cells == (WHITE,) * 49
    assert strip.frames[-1].current_ma <= 2000


def test_config_file_layout_and_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], strips: list[LedStrip]
) -> None:
    config = write_config(tmp_path / "board.toml", """
[leds]
backend = "recording"
wiring = "serpentine"
leds_per_cell = 2
status_leds = 2
max_current_ma = 1500
""")
    assert main(["leds", "test", "--fast", "--config", str(config)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "A1 -> LEDs 0-1" in out
    assert "A2 -> LEDs 36-37" in out  # row 2 runs backwards: J2 is 18-19
    assert "status 0 -> LED 98" in out and "status 1 -> LED 99" in out
    assert any(line.startswith("all white -> 100 LEDs") and "limit 1500 mA" in line
               for line in out)
    strip = strips[0]
    assert isinstance(strip, RecordingStrip)
    assert len(strip.frames) == 49 + 2 + 1
    assert strip.frames[49].status == (WHITE, (0, 0, 0))


def test_default_config_location_is_read(
    no_user_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(no_user_config, '[leds]\nbackend = "none"\n')
    assert main(["leds", "test", "--fast"]) == 0
    assert "backend none" in capsys.readouterr().out


def test_environment_picks_the_backend(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DVONN_LEDS", "recording")
    assert main(["leds", "test", "--fast"]) == 0
    assert "backend recording" in capsys.readouterr().out


def test_terminal_backend_draws_each_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leds", "test", "--fast"]) == 0  # no config: terminal, plain into a pipe
    out = capsys.readouterr().out
    assert "A1 -> LED 0\n" in out and "K5 -> LED 48\n" in out
    assert out.count("F3") == 50 + 1  # in each of the 50 boards, and the caption of F3
    assert "      [A1 ]  B1    C1" in out
    assert "\x1b" not in out


def test_delay_uses_the_injected_clock() -> None:
    clock = FakeClock()
    args = argparse.Namespace(config=None, backend="none", delay=0.25, fast=False)
    assert cli_leds.run_test(args, clock=clock, out=io.StringIO()) == 0
    assert clock.now() == pytest.approx(50 * 0.25)
    args.fast = True
    assert cli_leds.run_test(args, clock=clock, out=io.StringIO()) == 0
    assert clock.now() == pytest.approx(50 * 0.25)


@pytest.mark.parametrize(("text", "words"), [
    ('[leds]\nwirng = "rows"\n', "'leds.wirng': unknown key"),
    ('[leds]\nbackend = "neopixel"\n', "'leds.backend': 'neopixel' (in the config)"),
    ('[leds]\nbrightness = 3\n', "'leds.brightness': must be a number 0..1"),
    ("leds = 3\n", "'leds'"),
    ("[leds\n", "invalid TOML"),
])
def test_bad_config_exits_2_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    config = write_config(tmp_path / "bad.toml", text)
    assert main(["leds", "test", "--fast", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dvonn-board leds: ")
    assert words in err


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leds", "test", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_bad_delay_and_bare_leds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leds", "test", "--delay", "-1"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--delay" in err
    assert main(["leds"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "ACTION" in err


@pytest.mark.parametrize(("text", "words"), [
    ('[leds]\nbackend = "none"\n[sensor]\nbakend = "camera"\n', "'sensor.bakend': unknown key"),
    ('[leds]\nbackend = "none"\n[timing]\nnoise = -1\n', "'timing.noise'"),
    ('[leds]\nbackend = "none"\n[colours]\n', "'colours': unknown section"),
])
def test_every_section_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    """leds test reads the config through the normal loader: a wrong key outside [leds] is
    refused as play would refuse it (it used to be ignored)."""
    config = write_config(tmp_path / "bad.toml", text)
    assert main(["leds", "test", "--fast", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and words in err


def test_binary_config_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    assert main(["leds", "test", "--fast", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert str(config) in err and "not UTF-8" in err and "byte offset 0" in err
