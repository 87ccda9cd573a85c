"""Controller latency (snapshot in -> LED frame out) and replay speed over a recorded game.

Prints plain ``name: value unit`` lines (recorded in benchmarks/RESULTS.md).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.sensorlog import read_log, replay  # noqa: E402
from controller.table.renderer import Renderer  # noqa: E402
from controller.table.session import TableController  # noqa: E402
from hardware.events import SnapshotEvent  # noqa: E402
from hardware.leds import RecordingStrip  # noqa: E402

LOG = ROOT / "tests" / "controller" / "data" / "board-seed3.jsonl"


def latency() -> list[float]:
    """Per snapshot: controller step + BoardView + renderer + RecordingStrip show, in ms."""
    events = read_log(LOG)
    ctl = TableController(colours=False)
    renderer = Renderer()
    strip = RecordingStrip()
    out: list[float] = []
    for event in events:
        start = time.perf_counter()
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


def main() -> None:
    samples = sorted(latency())
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"controller_latency_median: {statistics.median(samples):.3f} ms")
    print(f"controller_latency_p99: {p99:.3f} ms")
    print(f"replay_speed: {replay_speed():.0f} snapshots/s")


if __name__ == "__main__":
    main()
