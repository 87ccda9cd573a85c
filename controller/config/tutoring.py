"""The config's ``[tutor]`` section: the live tutor's level and the first game's lessons."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.i18n import Msg, config_error
from controller.players.tutor import LEVELS


@dataclass(frozen=True)
class TutorConfig:
    """``level``: "off" (the default), or what ``--tutor LEVEL`` takes (marks, better,
    warn); ``learn``: the first game's lessons, as ``--learn``."""

    level: str = "off"
    learn: bool = False


def parse_tutor(t: dict[str, Any]) -> TutorConfig:
    unknown = sorted(set(t) - {"level", "learn"})
    if unknown:
        raise config_error(f"tutor.{unknown[0]}", Msg("unknown key; allowed: {value}",
                                                      value="level, learn"))
    level = t.get("level", "off")
    if level not in ("off", *LEVELS):
        raise config_error("tutor.level", Msg("{value!r}: off, marks, better or warn",
                                              value=level))
    learn = t.get("learn", False)
    if not isinstance(learn, bool):
        raise config_error("tutor.learn", Msg("{value!r}: true or false", value=learn))
    return TutorConfig(level=level, learn=learn)
