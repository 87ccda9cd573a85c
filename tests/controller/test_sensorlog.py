"""Sensor log reading, checking and recording."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.sensorlog import (
    LogRecorder,
    SensorLogError,
    log_colours,
    parse_lines,
    read_log,
)
from hardware.events import ButtonEvent, SnapshotEvent, StatusEvent

E = "." * 49


def test_parse_snapshots_and_buttons() -> None:
    events = parse_lines([f'{{"t": 0, "cells": "{E}"}}', "", '{"t": 1.5, "button": "new", '
                          '"long": true}'])
    assert events == [SnapshotEvent(0.0, E), ButtonEvent(1.5, "new", True)]


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("{nope", "bad JSON"),
        ("[1, 2]", "JSON object"),
        (f'{{"cells": "{E}"}}', "'t'"),
        (f'{{"t": "soon", "cells": "{E}"}}', "'t'"),
        ('{"t": 1, "cells": "..."}', "49 cells"),
        ('{"t": 1, "cells": "%s"}' % ("z" * 49), "offset 0"),
        ('{"t": 1, "button": "jump"}', "unknown button"),
        ('{"t": 1}', "needs 'cells' or 'button'"),
        (f'{{"t": NaN, "cells": "{E}"}}', "'t'"),
        (f'{{"t": -Infinity, "cells": "{E}"}}', "'t'"),
        (f'{{"t": 1e400, "cells": "{E}"}}', "'t'"),
        (f'{{"t": 1{"0" * 400}, "cells": "{E}"}}', "'t'"),  # an int too large for a float
        ('{"t": 1, "button": ["confirm"]}', "unknown button"),
        ('{"t": 1, "button": "new", "long": "no"}', "'long' must be true or false"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_bad_lines_name_the_line_and_the_problem(line: str, words: str) -> None:
    with pytest.raises(SensorLogError) as err:
        parse_lines([f'{{"t": 0, "cells": "{E}"}}', line], "x.jsonl")
    assert "x.jsonl line 2" in str(err.value) and words in str(err.value)


def test_decreasing_time_is_an_error() -> None:
    with pytest.raises(SensorLogError, match="line 2: t 0.5 is before"):
        parse_lines([f'{{"t": 1, "cells": "{E}"}}', f'{{"t": 0.5, "cells": "{E}"}}'])


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(SensorLogError, match="cannot read"):
        read_log(tmp_path / "missing.jsonl")


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n  \n")
    with pytest.raises(SensorLogError, match="empty.jsonl: the sensor log holds no events"):
        read_log(path)


def test_recorder_writes_relative_times_and_skips_repeats(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    with LogRecorder(path) as rec:
        rec.write(SnapshotEvent(10.0, E))
        rec.write(SnapshotEvent(10.2, E))  # a heartbeat: changes nothing
        rec.write(StatusEvent(10.3, "disconnected"))
        rec.write(ButtonEvent(10.5, "next"))
        rec.write(SnapshotEvent(11.0, "x" + E[1:]))
    rec.close()
    events = read_log(path)
    assert events == [SnapshotEvent(0.0, E), ButtonEvent(0.5, "next"),
                      SnapshotEvent(1.0, "x" + E[1:])]


def test_log_colours() -> None:
    assert not log_colours([SnapshotEvent(0, "x" + E[1:]), SnapshotEvent(1, "?" + E[1:])])
    assert log_colours([SnapshotEvent(0, "r" + E[1:])])


def test_log_cut_in_its_last_line_replays_what_it_has(tmp_path: Path) -> None:
    """A power cut while recording leaves a last line without its newline: keep the events
    before it and say so on one line naming the line."""
    path = tmp_path / "cut.jsonl"
    path.write_text(f'{{"t": 0, "cells": "{E}"}}\n{{"t": 0.5, "button": "new"}}\n'
                    f'{{"t": 1.0, "cells": "{E[:20]}')
    notes: list[str] = []
    events = read_log(path, warn=notes.append)
    assert [type(e) for e in events] == [SnapshotEvent, ButtonEvent]
    assert notes == [f"{path}: log ends in a partial line at line 3 (ignored)"]


def test_partial_last_line_is_noted_on_stderr(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_bytes(f'{{"t": 0, "cells": "{E}"}}\n{{"t": 0.'.encode())
    assert len(read_log(path)) == 1
    assert "log ends in a partial line at line 2" in capsys.readouterr().err


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "nonl.jsonl"
    path.write_text(f'{{"t": 0, "cells": "{E}"}}\n{{"t": 1, "button": "confirm"}}')
    notes: list[str] = []
    assert len(read_log(path, warn=notes.append)) == 2 and not notes


@pytest.mark.parametrize("text", [
    f'{{"t": 0, "cells": "{E}"}}\n{{"t": 0.5, "cel\n{{"t": 1, "cells": "{E}"}}\n',  # middle
    f'{{"t": 0, "cells": "{E}"}}\n{{"t": 0.5, "cel\n',  # bad last line that has its newline
])
def test_bad_line_with_its_newline_stays_an_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(SensorLogError, match="bad.jsonl line 2: bad JSON"):
        read_log(path)


def test_replay_sensors_cli_replays_a_cut_log(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "cut.jsonl"
    path.write_text(f'{{"t": 0, "cells": "{E}"}}\n{{"t": 1, "cells": "x{E[1:]}"}}\n'
                    f'{{"t": 2, "cel')
    run = subprocess.run([sys.executable, "-m", "controller.cli", "replay-sensors", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "partial line at line 3" in run.stderr
    assert run.stdout.split() == ["A1"]
