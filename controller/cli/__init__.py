"""The ``dvonn-board`` command: a thin dispatcher over per-area command modules.

With no command it runs ``play`` when the table's hardware is configured or plugged in, else
``demo`` (the simulated table).

Each module in COMMAND_MODULES has ``register(subparsers)`` that adds its sub-commands and sets
``func(args) -> int`` on each. Errors the program raises on purpose (DvonnError), bad command
lines (argparse) and files that cannot be opened (OSError naming a file) print exactly one line
on stderr and exit 2; anything else prints one line too, exit 1 (``DVONN_DEBUG=1`` shows the
traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import NoReturn

from controller.i18n import _, below, error_text, get_language, language_from_env, set_language
from controller.i18n.argparse_words import install as install_argparse_words
from engine.errors import DvonnError

#: The longest error line printed (a message quoting a huge input is cut, never flooded).
MAX_LINE = 400


class UsageError(DvonnError):
    """A command line argparse refused; the message is argparse's own, on one line."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of printing the usage and exiting.

    Sub-parsers inherit the class (add_subparsers uses ``type(self)``), so every level of
    the command line answers a mistake with one line.
    """

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


def one_line(text: str, limit: int = MAX_LINE) -> str:
    """``text`` on one line (line breaks shown as ' / '), cut to ``limit`` characters."""
    flat = " / ".join(part.strip() for part in str(text).splitlines() if part.strip())
    if len(flat) > limit:
        flat = flat[: limit - 30] + f"... ({len(flat)} characters)"
    return flat

COMMAND_MODULES = (
    "controller.cli.rules",  # moves, perft, replay
    "controller.cli.table",  # demo, play, replay-sensors
    "controller.cli.games",  # games (list, export, import, delete)
    "controller.cli.analyze",  # analyze (the engine's review of a game)
    "controller.cli.leds",  # leds test
    "controller.cli.sensors",  # sensors calibrate
    "controller.cli.vision",  # vision read / calibrate / sheet
    "controller.cli.build",  # drawings (build guide SVGs, placement template pages)
    "controller.cli.web",  # web (the virtual table in the browser)
    "controller.cli.ai",  # engine (CodeCup protocol), match
    "controller.cli.broadcast",  # broadcast (every table of a club on one page)
)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="dvonn-board",
        description=_("A smart DVONN table: rules engine, sensing, LEDs, scoring, saved games."),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def default_command() -> str:
    """``play`` when the table's hardware is configured or plugged in, else ``demo``."""
    from controller.config.settings import default_config_path, load_config

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


def configured_language(path: str | None) -> None:
    """The config's ``[display] language`` when it is not 'auto' (a config the command
    cannot read is left for the command to report). Read before the command line is parsed
    (``config_option``), so argparse's help and errors speak it too."""
    from controller.config.settings import default_config_path, load_config

    try:
        if path is None and not default_config_path().exists():
            return
        setting = load_config(path).display.language
    except (DvonnError, OSError):
        return
    if setting != "auto":
        set_language(setting)


def config_option(args: Sequence[str]) -> str | None:
    """The ``--config FILE`` (or ``--config=FILE``) of a command line not parsed yet."""
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--config" and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith("--config="):
            return arg.partition("=")[2]
    return None


def _say(prog: str, message: str) -> None:
    print(one_line(f"{prog}: {message}"), file=sys.stderr)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (kill, a shutdown, a service stop) ends a command like Ctrl-C, so its cleanup
    runs: LEDs off, the journal closed, the emulated board's temporary port removed."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread (tests call main in threads)
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    set_language(language_from_env())  # LANGUAGE, LC_ALL, LC_MESSAGES, LANG (as gettext)
    configured_language(config_option(args_list))  # before the parser: --help in it too
    install_argparse_words()
    parser = build_parser()
    if not args_list:
        args_list = [default_command()]
    try:
        args = parser.parse_args(args_list)
    except UsageError as exc:
        _say(exc.prog, _("{error} (see '{prog} --help')").format(error=exc, prog=exc.prog))
        return 2
    func = getattr(args, "func", None)
    if func is None:
        _say("dvonn-board", _("no command given (see 'dvonn-board --help')"))
        return 2
    prog = f"dvonn-board {args.command}"
    try:
        with _sigterm_as_interrupt():
            return int(func(args) or 0)
    except UsageError as exc:
        _say(exc.prog, _("{error} (see '{prog} --help')").format(error=exc, prog=exc.prog))
        return 2
    except DvonnError as exc:
        _say(prog, error_text(exc))  # the controller's errors in the player's language
        return 2
    except KeyboardInterrupt:
        _say(prog, _("interrupted"))
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        if exc.filename is None or os.environ.get("DVONN_DEBUG"):
            return _unexpected(prog, exc)
        # A file the command was pointed at cannot be opened or written: the user's input.
        _say(prog, f"{exc.filename}: {below(str(exc.strerror or exc), get_language())}")
        return 2
    except Exception as exc:  # never a bare traceback for a player
        from controller.cli.extras import missing_extra_hint

        hint = missing_extra_hint(exc)  # e.g. a camera command without the camera extra
        if hint is not None:
            _say(prog, hint)
            return 2
        return _unexpected(prog, exc)


def _unexpected(prog: str, exc: Exception) -> int:
    if os.environ.get("DVONN_DEBUG"):
        raise exc
    _say(prog, _("unexpected {kind}: {error} (set DVONN_DEBUG=1 for the traceback)").format(
        kind=type(exc).__name__, error=exc))
    return 1
