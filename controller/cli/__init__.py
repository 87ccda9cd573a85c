"""The ``dvonn-board`` command: a thin dispatcher over per-area command modules.

With no command it runs ``play`` when the table's hardware is configured or plugged in, else
``demo`` (the simulated table).

Each module in COMMAND_MODULES has ``register(subparsers)`` that adds its sub-commands and sets
``func(args) -> int`` on each. Errors the program raises on purpose (DvonnError) print one clear
line and exit 2; anything else prints one line too (``DVONN_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from engine.errors import DvonnError

COMMAND_MODULES = (
    "controller.cli.rules",  # moves, perft, replay
    "controller.cli.table",  # demo, play, replay-sensors
    "controller.cli.games",  # games (list, export)
    "controller.cli.leds",  # leds test
    "controller.cli.sensors",  # sensors calibrate
    "controller.cli.vision",  # vision read / calibrate / sheet
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dvonn-board",
        description="A smart DVONN table: rules engine, sensing, LEDs, scoring, saved games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def default_command() -> str:
    """``play`` when the table's hardware is configured or plugged in, else ``demo``."""
    from controller.config import default_config_path, load_config

    try:
        cfg = load_config(None)
    except DvonnError:
        return "play"  # play reports what is wrong with the config file
    backend = cfg.sensor.backend
    if backend == "camera" or (backend == "sensor-board" and (
            cfg.sensor.port or default_config_path().exists())):
        return "play"
    if backend == "sensor-board":
        from hardware.sensorboard.client import find_board_port

        return "play" if find_board_port() else "demo"
    return "demo"


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list:
        args_list = [default_command()]
    args = parser.parse_args(args_list)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except DvonnError as exc:
        print(f"dvonn-board {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"dvonn-board {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never a bare traceback for a player
        if os.environ.get("DVONN_DEBUG"):
            raise
        print(
            f"dvonn-board {args.command}: unexpected {type(exc).__name__}: {exc} "
            "(set DVONN_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 1

