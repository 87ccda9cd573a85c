"""The table's speech from its options and the ``[speech]`` config: an
:class:`~controller.speech.announcer.Announcer` speaking aloud through espeak-ng, or into a
``--speak-to`` folder of numbered WAV files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.i18n import get_language
from controller.speech.announcer import Announcer
from controller.speech.espeak import Espeak, WavFolder
from controller.speech.speaker import Speaker
from controller.speech.words import CATEGORIES

#: Seconds a table speaking aloud goes on saying what is queued when it stops.
DRAIN = 5.0


def open_speech(config: Any = None, *, folder: str | Path | None = None,
                lang: str | None = None, option: str = "--speak-to") -> Announcer:
    """An announcer (not attached yet) with its speaker's worker running. ``config``: the
    ``[speech]`` section (controller.config.settings.SpeechConfig; None: the defaults);
    ``folder``: write WAV files there instead of playing them (``option`` names it in
    errors). SpeechError (one line) for a bad folder or a missing espeak-ng."""
    lang = lang or get_language()
    sink = WavFolder(folder, option=option) if folder is not None else None
    engine = Espeak(voice=getattr(config, "voice", ""), volume=getattr(config, "volume", 100),
                    speed=getattr(config, "speed", 160))
    if sink is not None:
        def out(text: str, lang: str) -> None:
            sink.write(engine, text, lang)
    else:
        out = engine.say
    # aloud, closing waits for at most DRAIN seconds of what is still queued
    speaker = Speaker(out, lang=lang, drain=None if sink is not None else DRAIN)
    return Announcer(speaker, say=getattr(config, "say", CATEGORIES), lang=lang,
                     delay=getattr(config, "delay", 2.0))
