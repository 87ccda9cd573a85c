"""The speech engine: espeak-ng through its command (Debian's and Raspberry Pi OS's package
``espeak-ng``), and the ``--speak-to`` folder of numbered WAV files.

``espeak-ng -v VOICE -a VOLUME -s SPEED [-w FILE.wav]``, the text on its standard input (never
taken for an option). Without ``-w`` it plays on the default sound device. One process an
utterance: it starts in milliseconds on a Pi, and a stuck one is ended after ``timeout``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from controller.i18n import Msg
from engine.errors import DvonnError

COMMAND = "espeak-ng"
#: espeak-ng's voice for each of the table's languages (controller.i18n.LANGUAGES).
VOICES = {"en": "en", "de": "de"}
INDEX = "spoken.txt"
_NUMBERED = re.compile(r"^(\d{4,})\.wav$")


class SpeechError(DvonnError):
    """The speech engine is missing, or failed on an utterance."""


def find_espeak() -> str | None:
    """The espeak-ng executable, or None when it is not installed."""
    return shutil.which(COMMAND)


class Espeak:
    """Speaks (or writes a WAV file of) one text at a time with the espeak-ng command.

    ``voice``: an espeak-ng voice ('en-us', 'de+f3'); '' is the language's own (VOICES).
    ``volume`` 0..200 (espeak's amplitude, 100 normal), ``speed`` in words a minute (80..450).
    SpeechError when espeak-ng is not installed (naming the package to install).
    """

    def __init__(self, *, voice: str = "", volume: int = 100, speed: int = 160,
                 command: str | None = None, timeout: float = 30.0) -> None:
        path = command or find_espeak()
        if path is None:
            raise SpeechError(Msg("speech needs espeak-ng, which is not installed: sudo apt-get "
                                  "install espeak-ng"))
        self.command = path
        self.voice = voice
        self.volume = int(volume)
        self.speed = int(speed)
        self.timeout = timeout

    def args(self, lang: str, wav: Path | None = None) -> list[str]:
        """The command line (the text goes on standard input)."""
        voice = self.voice or VOICES.get(lang, lang)
        out = [self.command, "-b", "1", "-v", voice, "-a", str(self.volume), "-s",
               str(self.speed)]
        return [*out, "-w", str(wav)] if wav is not None else out

    def _run(self, args: list[str], text: str) -> None:
        try:
            done = subprocess.run(args, input=text.encode("utf-8"), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=self.timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SpeechError(Msg("espeak-ng failed: {error}", error=str(exc))) from None
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SpeechError(Msg("espeak-ng failed (exit {code}): {error}",
                                  code=done.returncode, error=detail[-1] if detail else ""))

    def say(self, text: str, lang: str) -> None:
        """Speak ``text`` aloud (returns when it has been said)."""
        self._run(self.args(lang), text)

    def write(self, text: str, lang: str, wav: Path) -> None:
        """Write ``text`` spoken as a WAV file at ``wav``."""
        self._run(self.args(lang, wav), text)


class WavFolder:
    """``--speak-to FOLDER``: each utterance as a numbered WAV file (0001.wav, ...) and a line
    ``0001.wav<TAB>text`` in FOLDER/spoken.txt. The folder is made when missing; numbering goes
    on after the files already there (a record across games). A bad folder: SpeechError naming
    it and why, before anything is spoken."""

    def __init__(self, folder: str | Path, *, option: str = "--speak-to") -> None:
        self.folder = Path(folder).expanduser()
        where = f"{option} {folder}"
        if self.folder.exists() and not self.folder.is_dir():
            raise SpeechError(Msg("{where}: is not a folder", where=where))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SpeechError(Msg("{where}: cannot be made ({reason})", where=where,
                                  reason=exc.strerror or exc)) from None
        index = self.folder / INDEX
        if not os.access(self.folder, os.W_OK | os.X_OK) or (
                index.exists() and not os.access(index, os.W_OK)):
            raise SpeechError(Msg("{where}: cannot be written", where=where))
        if index.exists() and index.is_dir():
            raise SpeechError(Msg("{where}: {name} is a folder", where=where, name=INDEX))
        numbers = [int(m.group(1)) for p in self.folder.iterdir()
                   if (m := _NUMBERED.match(p.name))]
        self.count = max(numbers, default=0)
        self.index = index

    def next_path(self) -> Path:
        """Where the next utterance goes (0001.wav, 0002.wav, ...)."""
        return self.folder / f"{self.count + 1:04d}.wav"

    def write(self, engine: Espeak, text: str, lang: str) -> Path:
        """Speak ``text`` into the next numbered file and add its line to the index."""
        path = self.next_path()
        part = path.with_name(path.name + ".part")
        engine.write(text, lang, part)
        os.replace(part, path)
        self.count += 1
        line = " ".join(text.split())
        with self.index.open("a", encoding="utf-8") as f:
            f.write(f"{path.name}\t{line}\n")
        return path
