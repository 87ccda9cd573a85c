"""``dvonn-board sensors calibrate|watch``: the hall-sensor board from the command line."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from controller.cli.numbers import seconds, whole
from controller.i18n import _
from engine.geometry import CELL_NAMES
from hardware.clock import SystemClock
from hardware.events import SnapshotEvent, StatusEvent
from hardware.sensorboard import SensorBoardError
from hardware.sensorboard.client import SensorBoardClient

NOMINAL = 32768
TOLERANCE = 2500  # the firmware's calibration limits (firmware/scanner.py)
MAX_SPREAD = 1500


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("sensors", help=_("the hall-sensor board: calibrate, watch"))
    sub = parser.add_subparsers(dest="sensors_command", metavar="ACTION", required=True)
    cal = sub.add_parser("calibrate", help=_("re-measure every sensor on an EMPTY table"))
    cal.add_argument("--port", help=_("serial device (default: find the Pico by USB id)"))
    cal.add_argument("--timeout", type=seconds(), default=5.0,
                     help=_("seconds to wait (default 5)"))
    cal.add_argument("--samples", type=whole(1, 255), default=32,
                     help=_("scans to average (1..255)"))
    cal.set_defaults(func=cmd_calibrate)
    watch = sub.add_parser("watch", help=_("print snapshots as they change"))
    watch.add_argument("--port", help=_("serial device (default: find the Pico by USB id)"))
    watch.add_argument("--seconds", type=seconds(), default=0.0,
                       help=_("stop after this long (default: until Ctrl-C)"))
    watch.set_defaults(func=cmd_watch)


def _open(port: str | None) -> SensorBoardClient:
    return SensorBoardClient(port, clock=SystemClock())


def format_calibration(stats: dict[str, Any]) -> list[str]:
    """One line per cell: name, mean, offset from mid-scale, spread, and a verdict."""
    lines = [f"samples: {stats['samples']}  cells kept at their old baseline: "
             f"{stats['rejected']}",
             "cell   mean  offset  spread"]
    for name, mean, spread in zip(CELL_NAMES, stats["mean"], stats["spread"], strict=True):
        bad = abs(mean - NOMINAL) > TOLERANCE or spread > MAX_SPREAD
        verdict = "  CHECK: a piece or magnet near it, or a dead or unwired sensor" if bad else ""
        lines.append(f"{name:<4} {mean:6d} {mean - NOMINAL:+7d} {spread:7d}{verdict}")
    return lines


def cmd_calibrate(args: argparse.Namespace) -> int:
    with _open(args.port) as board:
        try:
            stats = board.calibrate(timeout=args.timeout, samples=args.samples)
        except SensorBoardError as exc:
            raise SensorBoardError(f"{exc}; is the board powered and running the firmware?"
                                   ) from exc
    print("\n".join(format_calibration(stats)))
    if stats["rejected"]:
        print(f"{stats['rejected']} cell(s) not calibrated: clear the table and run again",
              file=sys.stderr)
        return 1
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Snapshot string and polarity ('n' strong magnet: white or red; 's' weak: black), each
    time they change; link news as it comes."""
    start = time.monotonic()
    last = None
    with _open(args.port) as board:
        print(f"watching the sensor board on {board.port} (cells in order A1..K5; polarity "
              "n: strong magnet, white or red bottom piece; s: weak, black; ?: unreadable or a "
              "magnet upside down)", flush=True)
        while not args.seconds or time.monotonic() - start < args.seconds:
            for event in board.poll(0.1):
                stamp = f"{time.monotonic() - start:8.3f}"
                # each frame with its own polarity (two frames may arrive in one read)
                seen = (event.cells, event.polarity) if isinstance(event, SnapshotEvent) else None
                if isinstance(event, SnapshotEvent) and seen != last:
                    last = seen
                    print(f"{stamp}  {event.cells}  {event.polarity or board.polarity()}",
                          flush=True)
                elif isinstance(event, StatusEvent):
                    print(f"{stamp}  [{event.kind}] {event.detail}", flush=True)
    return 0
