"""A blind player's game by ear: ``demo --fast --speak-to DIR`` in English and in German writes
what the table said through espeak-ng as numbered WAV files with a text index; the lines say
every action of the game (compared with its recorded action list, cut-offs included) and the
result, and every file is real speech (long enough, not silence).

espeak-ng comes from ``python3 dev.py test`` (as root); without it these tests skip with the
reason, except in CI (``CI`` set), where they fail."""

from __future__ import annotations

import array
import math
import os
import shutil
import wave
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_speech import check_every_action

from controller.cli import main
from controller.i18n import set_language
from controller.sensorlog import read_log, replay
from controller.table.session import TableController


def need_espeak() -> None:
    if shutil.which("espeak-ng"):
        return
    reason = ("espeak-ng is not installed: run `python3 dev.py test` as root (it installs it), "
              "or `apt-get install espeak-ng`")
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the speech tests must run)")
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    set_language("en")


def wav_facts(path: Path) -> tuple[float, float]:
    """(seconds, RMS of the samples scaled to 0..1) of a 16-bit mono WAV file."""
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1, path
        frames = w.readframes(w.getnframes())
        seconds = w.getnframes() / w.getframerate()
    samples = array.array("h", frames)
    rms = math.sqrt(sum(s * s for s in samples) / max(1, len(samples))) / 32768
    return seconds, rms


@pytest.mark.parametrize(("lang", "seed", "result"), [
    ("en", 3, ("Game over: white ", "White wins.", "Black wins.", "A tie.")),
    ("de", 5, ("Partie zu Ende: Weiß ", "Weiß gewinnt.", "Schwarz gewinnt.", "Unentschieden.")),
])
def test_a_whole_demo_game_is_said_aloud(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], lang: str,
                                         seed: int, result: tuple[str, ...]) -> None:
    need_espeak()
    monkeypatch.setenv("LANGUAGE", lang)
    said, log = tmp_path / "said", tmp_path / "game.jsonl"
    code = main(["demo", "--fast", "--seed", str(seed), "--record", str(log),
                 "--speak-to", str(said)])
    capsys.readouterr()
    assert code == 0
    ctl = replay(read_log(log), TableController(colours=False))
    assert ctl.game.is_over()
    index = (said / "spoken.txt").read_text(encoding="utf-8").splitlines()
    names = [line.split("\t", 1)[0] for line in index]
    lines = [line.split("\t", 1)[1] for line in index]
    assert names == [f"{i:04d}.wav" for i in range(1, len(index) + 1)]
    assert sorted(p.name for p in said.glob("*.wav")) == names
    check_every_action(lines, ctl.actions, lang)
    w, b = ctl.game.score()
    winner = {"w": result[1], "b": result[2]}.get(ctl.game.winner() or "", result[3])
    assert lines[-1].startswith(result[0]) and lines[-1].endswith(winner)
    assert f" {w}," in lines[-1] and f" {b}." in lines[-1]
    for name in names:
        seconds, rms = wav_facts(said / name)
        assert seconds > 0.2, (name, seconds)
        assert rms > 0.01, (name, rms)  # speech, not silence


@pytest.mark.parametrize(("lang", "clock", "mark"), [
    ("en", "White ", "a blunder"), ("de", "Weiß ", "ein grober Fehler")])
def test_a_demo_that_teaches_keeps_time_and_speaks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        lang: str, clock: str, mark: str) -> None:
    """Issue 43's whole table: ``demo --fast --tutor --clock 3+2 --speak-to DIR`` plays to the
    end; the terminal shows both clocks (M:SS, the running one starred) and the tutor's marks
    written after the action as the review writes them; DIR holds what was said, the marks
    said in words and the result last."""
    import re

    need_espeak()
    monkeypatch.setenv("LANGUAGE", lang)
    said = tmp_path / "said"
    code = main(["demo", "--fast", "--seed", "11", "--tutor", "--clock", "3+2",
                 "--speak-to", str(said)])
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(rf"{clock}\d:[0-5]\d\*? · ", out), "no clocks on the terminal"
    marks = re.findall(r"\b(?:[A-K][1-5]){2}\?\??", out)
    assert marks, "the tutor marked nothing in a whole demo game"
    lines = [line.split("\t", 1)[1]
             for line in (said / "spoken.txt").read_text(encoding="utf-8").splitlines()]
    assert any(mark in line for line in lines) or any(
        re.search(r"(?:[A-K][1-5]){2}, ", line) for line in lines)
    assert lines[-1].startswith(("Game over", "Partie zu Ende"))
    assert len(list(said.glob("*.wav"))) == len(lines)
