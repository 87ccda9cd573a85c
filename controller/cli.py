"""The ``dvonn-board`` command: a thin dispatcher over per-area command modules.

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
    "controller.cli_engine",  # moves, perft, replay
    "controller.cli_game",  # demo, play, replay-sensors
    "controller.cli_games",  # games (list, export)
    "controller.cli_leds",  # leds test
    "controller.cli_sensors",  # sensors calibrate
    "controller.cli_vision",  # vision read / calibrate / sheet
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dvonn-board",
        description="A smart DVONN table: rules engine, sensing, LEDs, scoring, saved games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # TEMPORARY while the areas are built in parallel
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list:
        args_list = ["demo"]
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


if __name__ == "__main__":
    sys.exit(main())
