"""A side's name from what plays it: ``AI level 2``, ``greedy``, ``random``, a program's name;
with its colour when both sides would be called the same (``random (White)``), so a result
("random (Black) wins") and a club's standings tell the two sides of a table apart.

The names are made in the table's language when the game starts (they are then data: the
journal, records and the broadcast keep them as they are).
"""

from __future__ import annotations

import shlex
from pathlib import PurePath

from controller.i18n import _
from engine.ai import MAX_LEVEL


def player_name(spec: str) -> str:
    """What plays a side, said as a name (``spec``: a checked player spec, as
    controller.players.player.check_spec gives it; ``human``: a person, "Human")."""
    low = spec.strip().lower()
    if low in ("random", "greedy"):
        return low
    if low == "ai" or low.startswith("ai:"):
        level = int(low[3:]) if low.startswith("ai:") and low[3:].isdigit() else MAX_LEVEL
        return _("AI level {level}").format(level=level)
    if low == "remote":
        return _("remote player")
    if low.startswith("remote:"):
        return _("remote table")
    if low.startswith("cmd:"):
        try:
            argv = shlex.split(spec.strip()[4:])
        except ValueError:
            argv = []
        return PurePath(argv[0]).name if argv else "cmd"
    return spec.strip()


def side_names(white: str, black: str) -> tuple[str, str]:
    """The two sides' names, each with its colour when they are the same."""
    if white.strip().casefold() != black.strip().casefold():
        return white, black
    return (_("{name} (White)").format(name=white.strip()),
            _("{name} (Black)").format(name=black.strip()))


def demo_names(players: str, white: str, black: str) -> tuple[str, str]:
    """The names of a demo's sides: ``white``/``black`` (a player spec) where one plays a
    side, else the simulated hands' own choice, ``players`` (random or greedy)."""
    def one(spec: str) -> str:
        return player_name(players if spec.strip().lower() == "human" else spec)

    return side_names(one(white), one(black))
