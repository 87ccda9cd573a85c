"""Controller latency (snapshot in -> LED frame out) and replay speed over a recorded game.

Prints plain ``name: value unit`` lines (recorded in benchmarks/RESULTS.md). ``--tutor``
measures the latency twice in the same run, rounds taken in turn: without the live tutor and
with it (``controller.players.tutor`` at level ``better``, its worker process judging every
action of the recorded game beside the table, its verdicts taken each round as the Runner
does): the figures must stay the same (issue 43).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.sensorlog import read_log, replay  # noqa: E402
from controller.table.renderer import Renderer  # noqa: E402
from controller.table.session import TableController  # noqa: E402
from hardware.clock import SystemClock  # noqa: E402
from hardware.events import SnapshotEvent  # noqa: E402
from hardware.leds import RecordingStrip  # noqa: E402

LOG = ROOT / "tests" / "controller" / "data" / "board-seed3.jsonl"


def latency(judge: Any = None) -> list[float]:
    """Per snapshot: controller step + BoardView + renderer + RecordingStrip show, in ms.
    With ``judge`` (a controller.players.judging.Judge): the live tutor judges each action
    in it, and each round first takes the verdicts ready (Tutor.poll, a Runner source)."""
    events = read_log(LOG)
    ctl = TableController(colours=False)
    renderer = Renderer()
    strip = RecordingStrip()
    tutor = None
    if judge is not None:
        from controller.players.tutor import Tutor

        tutor = Tutor("better", clock=SystemClock(), judge=judge)
        tutor.attach(ctl)
    out: list[float] = []
    for event in events:
        start = time.perf_counter()
        if tutor is not None:
            tutor.poll()
        ctl.handle(event)
        view = ctl.view()
        strip.set_cells(renderer.render(view, event.t))
        strip.show()
        if isinstance(event, SnapshotEvent):
            out.append((time.perf_counter() - start) * 1000)
        # the deadline that makes the change stable: the costly path
        deadline = ctl.next_deadline()
        if deadline is not None:
            start = time.perf_counter()
            ctl.advance(deadline)
            view = ctl.view()
            strip.set_cells(renderer.render(view, deadline))
            strip.show()
            out.append((time.perf_counter() - start) * 1000)
    return out


def replay_speed(rounds: int = 5) -> float:
    """Snapshots per second through replay() of the whole recorded game."""
    events = read_log(LOG)
    snaps = sum(isinstance(e, SnapshotEvent) for e in events)
    start = time.perf_counter()
    for _ in range(rounds):
        replay(events, TableController(colours=False))
    return snaps * rounds / (time.perf_counter() - start)


def figures(name: str, samples: list[float]) -> None:
    samples = sorted(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"{name}_median: {statistics.median(samples):.3f} ms")
    print(f"{name}_p99: {p99:.3f} ms")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tutor", action="store_true",
                   help="also measure with the live tutor judging every action (same run)")
    p.add_argument("--rounds", type=int, default=10,
                   help="replays of the recorded game per figure with --tutor (default 10)")
    args = p.parse_args(argv)
    if not args.tutor:
        figures("controller_latency", latency())
        print(f"replay_speed: {replay_speed():.0f} snapshots/s")
        return
    from controller.players.judging import Judge

    judge = Judge()  # the tutor's worker, as `--tutor` starts it (its budget, its process)
    try:
        time.sleep(2.0)  # started (spawn takes a moment; the table never waits for it)
        plain: list[float] = []
        tutored: list[float] = []
        for _ in range(args.rounds):  # in turn: both see the same load of the machine
            plain += latency()
            tutored += latency(judge)
        figures("controller_latency", plain)
        figures("controller_latency_tutor", tutored)
        # jobs handed to the worker and not judged yet when the last round ended: the
        # worker was busy beside the table all the while
        print(f"tutor_jobs_waiting_at_end: {judge.pending}")
    finally:
        judge.close()


if __name__ == "__main__":
    main()
