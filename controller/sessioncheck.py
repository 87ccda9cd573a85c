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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.sensorlog import LogEvent, log_colours, read_log, replay
from controller.session import TableController


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
    from controller.cli.table import report

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
