"""``--speak`` and ``--speak-to FOLDER`` of ``play``, ``demo`` and ``web``: the table says each
action, its prompts, mismatches, cut-offs, the score and the result in its language
(controller.speech). Voice, volume, speed and what is said come from the config's
``[speech]`` section (``play --config``; demo and web read the default config file when there
is one).
"""

from __future__ import annotations

import argparse
from typing import Any

from controller.i18n import _


def add_speech_options(p: Any) -> None:
    """The ``--speak`` and ``--speak-to`` options."""
    p.add_argument("--speak", action="store_true",
                   help=_("say each action, prompt, mismatch, the score and the result aloud "
                          "(espeak-ng; voice, volume and what is said: the config's [speech])"))
    p.add_argument("--speak-to", metavar="FOLDER",
                   help=_("write what the table says as numbered WAV files (0001.wav, ...) in "
                          "FOLDER instead of playing it, with FOLDER/spoken.txt listing the "
                          "text of each"))


def speech_section(config: Any = None) -> Any:
    """The ``[speech]`` section: of ``config``, else of the default config file when it
    exists, else None (the defaults)."""
    if config is None:
        from controller.config.settings import default_config_path, load_config

        if not default_config_path().exists():
            return None
        config = load_config()
    return getattr(config, "speech", None)


def open_speech(args: argparse.Namespace, config: Any = None) -> Any:
    """The announcer asked for (``--speak``, ``--speak-to``, or ``[speech]`` enabled or with a
    folder), its worker running, not attached; None when speech is off. A bad folder or a
    missing espeak-ng: SpeechError, one line, before anything else is opened."""
    folder = getattr(args, "speak_to", None)
    speak = bool(getattr(args, "speak", False))
    section = speech_section(config) if (folder or speak or config is not None) else None
    if folder is None and not speak and section is not None:
        speak = bool(section.enabled)
        if section.folder:
            folder = section.folder
            speak = True
    if not (speak or folder):
        return None
    from controller.speech.setup import open_speech as open_announcer

    option = "--speak-to" if getattr(args, "speak_to", None) else "speech.folder"
    return open_announcer(section, folder=folder, option=option)
