"""``--tutor [LEVEL]`` and ``--learn`` on ``play``, ``demo`` and ``web`` (the live tutor and
the first game's lessons: controller.players.tutor, controller.players.lessons)."""

from __future__ import annotations

import argparse
from typing import Any

from controller.i18n import Msg, _
from controller.players.tutor import DEFAULT_LEVEL, LEVELS
from engine.errors import DvonnError


def add_tutor_options(p: Any) -> None:
    p.add_argument("--tutor", nargs="?", const=DEFAULT_LEVEL, default=None, metavar="LEVEL",
                   help=_("judge each action of a person beside play and mark mistakes (?) "
                          "and blunders (??): marks, better (also the better action; the "
                          "default) or warn (also warn while a stack is lifted)"))
    p.add_argument("--learn", action="store_true",
                   help=_("a first game: the table explains each rule the first time it "
                          "matters"))


def tutor_level(args: argparse.Namespace, config: Any = None) -> str | None:
    """The tutor's level from ``--tutor`` or the config's ``[tutor] level`` (None: off)."""
    level = getattr(args, "tutor", None)
    if level is None and config is not None:
        level = config.level if config.level != "off" else None
    if level is not None and level not in LEVELS:
        raise DvonnError(Msg("--tutor {level!r}: marks, better or warn", level=level))
    return level


def learning(args: argparse.Namespace, config: Any = None) -> bool:
    return bool(getattr(args, "learn", False) or (config is not None and config.learn))
