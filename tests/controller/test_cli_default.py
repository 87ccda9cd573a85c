"""With no command, dvonn-board plays the real table only when one is configured or found."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import cli


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | None) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    if text is not None:
        (tmp_path / "dvonn-board").mkdir()
        (tmp_path / "dvonn-board" / "config.toml").write_text(text)


def test_no_config_off_a_pi_is_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(tmp_path, monkeypatch, None)
    monkeypatch.setattr("controller.config.settings.on_raspberry_pi", lambda: False)
    assert cli.default_command() == "demo"


def test_a_pi_without_a_board_plugged_in_is_the_demo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(tmp_path, monkeypatch, None)
    monkeypatch.setattr("controller.config.settings.on_raspberry_pi", lambda: True)
    monkeypatch.setattr("hardware.sensorboard.client.find_board_port", lambda: None)
    assert cli.default_command() == "demo"
    monkeypatch.setattr("hardware.sensorboard.client.find_board_port", lambda: "/dev/ttyACM0")
    assert cli.default_command() == "play"


@pytest.mark.parametrize(("text", "expected"), [
    ('[sensor]\nbackend = "camera"\n', "play"),
    ('[sensor]\nbackend = "sensor-board"\nport = "/dev/ttyACM0"\n', "play"),
    ('[sensor]\nbackend = "emulator"\n', "demo"),
    ("[sensor]\nbackend = 3\n", "play"),  # play then names the bad key
])
def test_config_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str,
                        expected: str) -> None:
    _config(tmp_path, monkeypatch, text)
    assert cli.default_command() == expected
