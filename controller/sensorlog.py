"""Sensor logs: JSON Lines of snapshots and button presses, with the log's ``t`` as the clock.

``{"t": 0.0, "cells": "<49 chars>"}`` (optionally ``"polarity": "<49 chars of .ns?>"``, the
hall board's magnet polarity of that frame) or ``{"t": 3.2, "button": "confirm"}`` (optionally
``"long": true``), ``t`` in seconds and non-decreasing. :func:`read_log` checks every line and
names the line and what is wrong; :class:`LogRecorder` writes events as they arrive;
:func:`replay` feeds a log through a TableController deterministically.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar

from controller.i18n import Msg
from controller.table.expected import has_colours
from controller.table.session import TableController
from engine.errors import DvonnError
from hardware.events import (
    ALL_BUTTONS,
    ButtonEvent,
    SensorEvent,
    SnapshotError,
    SnapshotEvent,
    check_snapshot,
)

LogEvent = SnapshotEvent | ButtonEvent


class Timed(Protocol):
    """A log entry: anything with a time ``t`` in seconds."""

    @property
    def t(self) -> float: ...


T = TypeVar("T", bound=Timed)


class SensorLogError(DvonnError, ValueError):
    """A sensor log line that cannot be used; the message names the file, line and problem."""


def parse_line(text: str, where: str = "") -> LogEvent:
    """One log line as an event; raises SensorLogError (prefixed with ``where``) when bad."""
    prefix = f"{where}: " if where else ""
    obj, t = parse_object(text, where)
    if "cells" in obj and "button" in obj:
        raise SensorLogError(Msg("{prefix}has both 'cells' and 'button'", prefix=prefix))
    if "cells" in obj:
        cells = obj["cells"]
        if not isinstance(cells, str):
            raise SensorLogError(Msg("{prefix}'cells' must be a string, got {cells!r}",
                                     prefix=prefix, cells=cells))
        try:
            check_snapshot(cells)
        except SnapshotError as exc:
            raise SensorLogError(Msg("{prefix}{exc}", prefix=prefix, exc=exc)) from None
        polarity = obj.get("polarity", "")
        if not isinstance(polarity, str) or (polarity and (
                len(polarity) != len(cells) or set(polarity) - set(".ns?"))):
            raise SensorLogError(Msg("{prefix}'polarity' must be 49 characters of '.', 'n', 's', "
                                     "'?', got {polarity!r}",
                                     prefix=prefix, polarity=polarity))
        return SnapshotEvent(t, cells, polarity)
    if "button" in obj:
        return parse_button(obj, t, where)
    raise SensorLogError(Msg("{prefix}needs 'cells' or 'button'", prefix=prefix))


def parse_object(text: str, where: str = "") -> tuple[dict[str, Any], float]:
    """A line's JSON object and its checked ``t`` (seconds, finite): the part every line of a
    sensor log or a camera recording shares. SensorLogError (prefixed with ``where``) when bad.
    """
    prefix = f"{where}: " if where else ""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg.endswith(" at"):  # json's message may end in 'at'
            raise SensorLogError(Msg("{prefix}bad JSON: {msg} column {colno}",
                                     prefix=prefix, msg=exc.msg, colno=exc.colno)) from None
        raise SensorLogError(Msg("{prefix}bad JSON: {msg} at column {colno}",
                                 prefix=prefix, msg=exc.msg, colno=exc.colno)) from None
    except RecursionError:
        raise SensorLogError(Msg("{prefix}bad JSON: nested too deeply", prefix=prefix)) from None
    if not isinstance(obj, dict):
        raise SensorLogError(Msg("{prefix}expected a JSON object, got {name__}",
                                 prefix=prefix, name__=type(obj).__name__))
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float) or not _finite(t):
        raise SensorLogError(Msg("{prefix}missing or bad 't' (seconds): {t!r}", prefix=prefix, t=t))
    return obj, float(t)


def parse_button(obj: dict[str, Any], t: float, where: str = "") -> ButtonEvent:
    """The ButtonEvent of a line's object that has a ``button`` (and maybe ``long``)."""
    prefix = f"{where}: " if where else ""
    button = obj["button"]
    if button not in ALL_BUTTONS:
        raise SensorLogError(Msg("{prefix}unknown button {button!r} (one of {value})",
                                 prefix=prefix, button=button, value=', '.join(ALL_BUTTONS)))
    long = obj.get("long", False)
    if not isinstance(long, bool):
        raise SensorLogError(Msg("{prefix}'long' must be true or false, got {long!r}",
                                 prefix=prefix, long=long))
    return ButtonEvent(t, str(button), long)


def _finite(t: float) -> bool:
    try:
        return math.isfinite(t)
    except OverflowError:  # an int too large for a float
        return False


def read_log(path: str | Path, warn: Callable[[str], object] | None = None) -> list[LogEvent]:
    """Every event of a log file, checked (times non-decreasing); SensorLogError when bad or
    when it holds no event at all (an empty file is the wrong file, not an empty session).

    A last line without its newline that does not parse is a recording cut by a power cut:
    the events before it are kept and ``warn`` (default: stderr) gets one line naming it. A
    bad line anywhere else stays an error.
    """
    return read_lines(path, _log_line, warn)


def _log_line(text: str, where: str, number: int) -> LogEvent:
    return parse_line(text, where)


def read_lines(path: str | Path, parse: Callable[[str, str, int], T],
               warn: Callable[[str], object] | None = None, what: str = "sensor log",
               name: str | None = None) -> list[T]:
    """The entries of a JSON Lines file of timed lines, as :func:`read_log` reads a sensor log
    (``parse(text, where, line_number)`` makes one entry; ``what`` and ``name`` (default: the
    path) go into the messages). Camera recordings are read with it too."""
    p = Path(path)
    label = str(p) if name is None else name
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SensorLogError(Msg("{label}: cannot read the {what}: {exc}",
                                 label=label, what=what, exc=exc)) from None
    lines = data.split(b"\n")
    tail = lines.pop() if lines else b""  # after the last newline: a line cut short, if any
    try:
        text = [line.decode("utf-8") for line in lines]
    except UnicodeDecodeError as exc:
        raise SensorLogError(Msg("{label}: cannot read the {what}: {exc}",
                                 label=label, what=what, exc=exc)) from None
    events = parse_timed_lines(text, label, parse)
    if tail.strip():
        number = len(lines) + 1
        where = f"{label} line {number}"
        if not events or _is_whole_json(tail):
            # complete JSON, or nothing before it to keep: its fault is the error to report
            last = parse(tail.decode("utf-8", "replace"), where, number)
            if events and last.t < events[-1].t:
                raise SensorLogError(Msg("{where}: t {t} is before the previous line's t {t2}",
                                         where=where, t=last.t, t2=events[-1].t))
            events.append(last)
        else:
            (warn or _stderr)(f"{label}: {_short(what)} ends in a partial line at line {number} "
                              "(ignored)")
    if not events:
        raise SensorLogError(Msg("{label}: the {what} holds no events", label=label, what=what))
    return events


def _short(what: str) -> str:
    """'log' for a sensor log (the message it always gave), else the name as it is."""
    return "log" if what == "sensor log" else what


def _is_whole_json(line: bytes) -> bool:
    """Whether a line is complete JSON (so a fault in it is not a recording cut short)."""
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def parse_lines(lines: Iterable[str], name: str = "log") -> list[LogEvent]:
    """Events of log lines (blank lines skipped), checked like :func:`read_log`."""
    return parse_timed_lines(lines, name, _log_line)


def parse_timed_lines(lines: Iterable[str], name: str,
                      parse: Callable[[str, str, int], T]) -> list[T]:
    """Entries of timed lines (blank lines skipped, ``t`` non-decreasing), each made by
    ``parse(text, where, line_number)``: sensor logs and camera recordings alike."""
    events: list[T] = []
    last = -math.inf
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        event = parse(line, where, number)
        if event.t < last:
            raise SensorLogError(Msg("{where}: t {t} is before the previous line's t {last}",
                                     where=where, t=event.t, last=last))
        last = event.t
        events.append(event)
    return events


def format_event(event: SensorEvent) -> str | None:
    """The log line of an event (None for events a log does not keep, e.g. link status)."""
    obj: dict[str, Any]
    if isinstance(event, SnapshotEvent):
        obj = {"t": round(event.t, 4), "cells": event.cells}
        if event.polarity:
            obj["polarity"] = event.polarity
    elif isinstance(event, ButtonEvent):
        obj = {"t": round(event.t, 4), "button": event.button}
        if event.long:
            obj["long"] = True
    else:
        return None
    return json.dumps(obj, separators=(", ", ": "))


class LogRecorder:
    """Writes events to a sensor log as they arrive (line-buffered; ``close()`` safe twice).

    Times are made relative to the first event so a log starts at t = 0. A snapshot equal to
    the one before it (a sensor heartbeat) is left out: it changes nothing in a replay.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: IO[str] | None = self.path.open("w", encoding="utf-8", buffering=1)
        self._t0: float | None = None
        self._last = 0.0
        self._cells: tuple[str, str] | None = None

    def write(self, event: SensorEvent) -> None:
        if self._file is None:
            return
        if self._t0 is None:
            self._t0 = event.t
        t = max(self._last, event.t - self._t0)
        self._last = t
        moved: SensorEvent
        if isinstance(event, SnapshotEvent):
            if (event.cells, event.polarity) == self._cells:
                return
            self._cells = (event.cells, event.polarity)
            moved = SnapshotEvent(t, event.cells, event.polarity)
        elif isinstance(event, ButtonEvent):
            moved = ButtonEvent(t, event.button, event.long)
        else:
            return
        line = format_event(moved)
        if line is not None:
            self._file.write(line + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> LogRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def log_colours(events: Iterable[LogEvent]) -> bool:
    """True when any snapshot of the log names a top colour: the log comes from a camera."""
    return any(isinstance(e, SnapshotEvent) and has_colours(e.cells) for e in events)


def replay(events: Iterable[LogEvent], ctl: TableController) -> TableController:
    """Feed events in order, with the log's times as the only clock, then let changes settle."""
    for event in events:
        ctl.handle(event)
    ctl.settle()
    return ctl


def report(ctl: TableController, out: IO[str]) -> None:
    """What ``replay-sensors`` prints: the actions one per line, then the score line
    (``over white=N black=M``) if the game is over."""
    for action in ctl.actions:
        print(action, file=out)
    if ctl.game.is_over():
        w, b = ctl.game.score()
        print(f"over white={w} black={b}", file=out)
