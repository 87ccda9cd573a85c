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
