"""Hall-board polarity: each snapshot carries its own frame's polarity (client, sensor log,
``sensors watch``), and the config key that turns the placement check off."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from controller.cli import sensors
from controller.config.settings import ConfigError, load_config
from controller.sensorlog import SensorLogError, format_event, parse_line
from hardware.events import SnapshotEvent

E = "." * 49


class TwoFramesBoard:
    """A board whose one read brings two snapshot frames with different polarities."""

    port = "/dev/fake"

    def __init__(self) -> None:
        self.frames = [SnapshotEvent(0.0, "x" + E[1:], "n" + E[1:]),
                       SnapshotEvent(0.0, "xx" + E[2:], "ns" + E[2:])]
        self.polled = False

    def poll(self, timeout: float = 0.0) -> list[Any]:
        if self.polled:
            raise KeyboardInterrupt
        self.polled = True
        return list(self.frames)

    def polarity(self) -> str:
        return self.frames[-1].polarity  # what the old code printed for both lines

    def __enter__(self) -> TwoFramesBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def test_watch_prints_each_frame_with_its_own_polarity(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    board = TwoFramesBoard()
    monkeypatch.setattr(sensors, "_open", lambda port: board)
    with pytest.raises(KeyboardInterrupt):
        sensors.cmd_watch(argparse.Namespace(port=None, seconds=0.0))
    lines = capsys.readouterr().out.splitlines()[1:]
    assert len(lines) == 2
    assert lines[0].split()[1:] == ["x" + E[1:], "n" + E[1:]]
    assert lines[1].split()[1:] == ["xx" + E[2:], "ns" + E[2:]]


def test_a_log_line_keeps_its_polarity() -> None:
    event = SnapshotEvent(1.5, "x" + E[1:], "s" + E[1:])
    line = format_event(event)
    assert line is not None and parse_line(line) == event
    assert parse_line('{"t": 1, "cells": "' + E + '"}').polarity == ""
    with pytest.raises(SensorLogError, match="'polarity'"):
        parse_line('{"t": 1, "cells": "' + E + '", "polarity": "nnn"}')


def test_polarity_check_config_key(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[sensor]\npolarity = false\n")
    assert load_config(path).sensor.polarity is False
    path.write_text("[sensor]\n")
    assert load_config(path).sensor.polarity is True
    path.write_text("[sensor]\npolarity = 'no'\n")
    with pytest.raises(ConfigError, match="sensor.polarity"):
        load_config(path)
