"""Replay a recorded table session and score it: the actions it gives and the roles it shows.

A session ``NAME.jsonl`` may come with ``NAME.expected`` (what ``replay-sensors`` must print)
and ``NAME.checks.json`` (roles ``--trace`` must show within time windows: after a lift the
``destination`` cells, or an accepted ``alt`` set, with the lifted cell as ``source``; after a
move the ``remove`` cells). Used by the tests and benchmarks on ../shared/sessions and on the
project's own generated sessions.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.sensorlog import LogEvent, log_colours, read_log, replay, report
from controller.table.expected import Expected
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import iter_cells
from engine.move import Move


@dataclass
class Outcome:
    """A replayed session: the printed lines, the trace, and the controller."""

    lines: list[str]
    trace: list[dict[str, Any]]
    controller: TableController
    failed_checks: list[str] = field(default_factory=list)


def replay_events(events: Sequence[LogEvent], *, colours: bool | None = None,
                  **kw: Any) -> Outcome:
    """Replay events as ``replay-sensors --trace`` does; returns what it prints and traces."""
    trace: list[dict[str, Any]] = []
    if colours is None:
        colours = log_colours(events)
    ctl = TableController(colours=colours, trace=trace.append, resume=False, source="replay",
                          **kw)
    replay(events, ctl)
    out = io.StringIO()
    report(ctl, out)
    return Outcome(out.getvalue().splitlines(), trace, ctl)


def same(got: Sequence[str], want: Sequence[str]) -> bool:
    """Whether two outputs agree word for word (as the outside scorer compares them)."""
    return " ".join(got).split() == " ".join(want).split()


def _states(trace: Iterable[dict[str, Any]], t: float, until: float) -> list[dict[str, str]]:
    """The roles shown at some moment of [t, until]."""
    before: dict[str, str] = {}
    inside: list[dict[str, str]] = []
    for r in trace:
        if "roles" not in r:
            continue
        if r["t"] <= t + 1e-9:
            before = r["roles"]
        elif r["t"] <= until + 1e-9:
            inside.append(r["roles"])
    return [before, *inside]


def check_roles(trace: Sequence[dict[str, Any]], checks: Iterable[dict[str, Any]]) -> list[str]:
    """The required checks the trace does not satisfy, one line each."""
    failed = []
    for chk in checks:
        if not chk.get("required", True):
            continue
        want = set(chk["cells"])
        ok = False
        for roles in _states(trace, float(chk["t"]), float(chk["until"])):
            if chk["kind"] == "destination":
                dest = {c for c, r in roles.items() if r in ("destination", "suggest")}
                alt = set(chk.get("alt", ())) or None
                ok = roles.get(chk["source"]) == "source" and (dest == want or dest == alt)
            elif chk["kind"] == "remove":
                ok = all(roles.get(c) == "remove" for c in want)
            if ok:
                break
        if not ok:
            failed.append(f"{chk['kind']} {sorted(want)} for {chk.get('move')} "
                          f"(ply {chk.get('ply')}) not shown in {chk['t']}..{chk['until']} s")
    return failed


def run_session(log: Path) -> tuple[Outcome, list[str] | None]:
    """Replay ``log``; returns the outcome (with failed role checks) and the expected lines
    (None when there is no .expected file)."""
    outcome = replay_events(read_log(log))
    expected_path = log.with_suffix(".expected")
    checks_path = log.with_suffix(".checks.json")
    if checks_path.exists():
        outcome.failed_checks = check_roles(outcome.trace,
                                            json.loads(checks_path.read_text()))
    want = expected_path.read_text().splitlines() if expected_path.exists() else None
    return outcome, want


def unseen_order(got: Sequence[str], want: Sequence[str], events: Sequence[LogEvent]) -> bool:
    """Whether ``got`` is ``want`` but for the order of some consecutive actions that no
    reading of ``events`` tells apart (red pieces placed in one blackout, two moves of one
    player around the other's forced pass made unseen): the same actions in a window, the
    same position after it, the same lines after it, and no reading that agrees with a board
    one order passes through (a stack in the hand included) but with none of the other's.
    Cut-off stacks in the window may stand or be gone. Used to report such games apart from
    the exact ones, never to count them as exact."""
    got, want = list(got), list(want)
    if got == want or len(got) != len(want):
        return False
    i = next(k for k in range(len(want)) if got[k] != want[k])
    j = next((k for k in range(i + 1, len(want) + 1)
              if got[k:] == want[k:] and Counter(got[i:k]) == Counter(want[i:k])), None)
    if j is None or any(line.startswith("over") for line in want[i:j]):
        return False
    a, b = Game.from_moves(got[:j]), Game.from_moves(want[:j])
    if (a.zobrist, a.ply, a.turn, a.stacks()) != (b.zobrist, b.ply, b.turn, b.stacks()):
        return False

    def boards(order: Sequence[str]) -> list[Expected]:
        g = Game.from_moves(want[:i])
        cut: dict[int, str] = {}
        out = [Expected.of(g)]
        for action in order:
            move = Move.parse(action)
            board = g.snapshot(True)
            if move.source is not None:  # the stack in the hand
                lifted = board[:move.source] + "." + board[move.source + 1:]
                out.append(Expected(lifted, dict(cut)))
            for c in iter_cells(g.push(move)):  # a target cut off shows the moved stack
                cut[c] = board[move.source if c == move.target and move.source is not None
                               else c]
            out.append(Expected.of(g, cut))
        return out

    first, second = boards(got[i:j]), boards(want[i:j])
    for event in events:
        cells = getattr(event, "cells", None)
        if cells is None:
            continue
        if any(e.diff(cells) == 0 for e in first) != any(e.diff(cells) == 0 for e in second):
            return False  # this reading tells the orders apart
    return True
