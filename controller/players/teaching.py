"""Putting the teaching on a table: the live tutor (``--tutor [LEVEL]``) and the first game's
lessons (``--learn``), for ``play``, ``demo`` and ``web`` alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from controller.players.lessons import Lessons
from controller.players.tutor import Clock, Tutor

if TYPE_CHECKING:
    from controller.table.session import TableController


def teach(ctl: TableController, sources: list[Any], *, tutor: str | None, learn: bool,
          clock: Clock, out: TextIO | None = None, judge: Any = None) -> list[Any]:
    """Attach a Tutor at level ``tutor`` (None: none) and the Lessons (``learn``) to ``ctl``:
    each is added to ``sources`` (the Runner's), and a page's commands (``sources`` with
    ``handlers``: the web view's ControlSource) reach the tutor. Returns what to close."""
    made: list[Any] = []
    if learn:
        lessons = Lessons(out=out)
        lessons.attach(ctl)
        made.append(lessons)
    if tutor is not None:
        t = Tutor(tutor, clock=clock, out=out, judge=judge)
        t.attach(ctl)
        made.append(t)
        for source in sources:
            handlers = getattr(source, "handlers", None)
            if isinstance(handlers, dict):
                handlers["tutor"] = t.command
    sources.extend(made)
    return made
