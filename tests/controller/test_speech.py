"""The table's voice (controller/speech) without a speech engine: the sentences in both
languages, the announcer listening to a controller (actions, cut-offs, take-backs, the result,
mismatches said once they held, by the injected clock), the speaker's worker thread (never
blocking the table, closed cleanly), the [speech] config, dev.py installing espeak-ng, and a
bad --speak-to folder or a missing espeak-ng: one line, exit code 2."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.config.settings import SpeechConfig, parse_config
from controller.i18n import localize
from controller.sim.demo import DemoOptions, run_demo
from controller.speech import words
from controller.speech.announcer import Announcer
from controller.speech.espeak import Espeak, SpeechError, WavFolder
from controller.speech.speaker import Speaker
from controller.table.inference import MISMATCH, Explanation
from controller.table.session import TableController
from engine.errors import ConfigError
from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells
from engine.move import Move
from hardware.clock import FakeClock

ROOT = Path(__file__).resolve().parents[2]


class Voice:
    """A fake voice: keeps what it was told to say."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.closed = 0

    def say(self, text: str) -> None:
        self.lines.append(text)

    def close(self) -> None:
        self.closed += 1


def spoken_action(line: str, game: Game, move: Move, lang: str = "en") -> bool:
    """Does ``line`` say ``move``, played by the side to act in ``game``?"""
    side = {"en": {"w": "White", "b": "Black"}, "de": {"w": "Weiß", "b": "Schwarz"}}[lang]
    who = side[game.turn]
    if move.is_pass:
        return line.startswith(who) and ("passes" in line or "passt" in line)
    if move.source is None:
        cell = str(move)
        return line.startswith(who) and (f"on {cell}." in line or f"auf {cell}." in line)
    src, dst = str(move)[:2], str(move)[2:]
    return line.startswith(f"{who} moves {src} to {dst}") or \
        line.startswith(f"{who} zieht von {src} nach {dst}")


def check_every_action(lines: list[str], actions: list[str], lang: str = "en") -> None:
    """``lines`` say each of ``actions`` in order (with the stacks each cut off)."""
    game = Game()
    at = 0
    for text in actions:
        move = Move.parse(text)
        while at < len(lines) and not spoken_action(lines[at], game, move, lang):
            at += 1
        assert at < len(lines), f"action {len(game.move_stack) + 1} ({text}) was not said"
        sentence = lines[at].split(".")[0]  # the action, before the score
        removed = game.push(move)
        rest = sentence[sentence.index(str(move)[2:]) + 2:] if move.is_step else ""
        for cell in iter_cells(removed):  # the stacks it cut off, after its target
            assert CELL_NAMES[cell] in rest, (sentence, CELL_NAMES[cell])
        at += 1


# ----------------------------------------------------------------- the sentences
def test_an_action_in_words_a_listener_can_follow_in_both_languages() -> None:
    game = Game.from_moves(["C3"])
    move = words.action("w", Move.parse("C3D4"), None, removed=(1 << 10) | (1 << 20))
    cells = words.mask_list((1 << 10) | (1 << 20))
    assert move == f"White moves C3 to D4, cutting off {cells}."
    assert " and " in cells
    assert localize(move, "de").startswith("Weiß zieht von C3 nach D4 und trennt ")
    assert localize(move, "de").endswith(" ab.") and " und " in localize(move, "de")
    assert words.action("b", Move.parse("E5"), "r") == "Black places a DVONN piece on E5."
    assert localize(words.action("w", Move.parse("E5"), "w"), "de") == \
        "Weiß setzt einen Spielstein auf E5."
    assert localize(words.action("b", Move.parse("PASS"), None), "de") == \
        "Schwarz kann nicht ziehen und passt."
    assert words.result(20, 18, "w") == "Game over: white 20, black 18. White wins."
    assert localize(words.result(9, 9, "tie"), "de") == \
        "Partie zu Ende: Weiß 9, Schwarz 9. Unentschieden."
    assert game.ply == 1


# ----------------------------------------------------------------- the announcer
def test_a_whole_game_is_said_action_by_action_with_the_result() -> None:
    voice = Voice()
    result = run_demo(DemoOptions(fast=True, direct=True, seed=11, quiet=True,
                                  speak=Announcer(voice, lang="en")), _Null())
    assert result.over
    check_every_action(voice.lines, result.actions)
    w, b = result.score
    winner = {"w": "White wins.", "b": "Black wins."}.get(result.winner or "", "A tie.")
    assert voice.lines[-1] == f"Game over: white {w}, black {b}. {winner}"
    assert voice.lines[0] == "White to place a DVONN piece."
    assert any(line.startswith("Where did the stack land: ") for line in voice.lines)


def test_only_the_chosen_categories_are_said() -> None:
    voice = Voice()
    result = run_demo(DemoOptions(fast=True, direct=True, seed=11, quiet=True,
                                  speak=Announcer(voice, say=("result",), lang="de")), _Null())
    assert len(voice.lines) == 1 and voice.lines[0].startswith("Partie zu Ende: ")
    assert result.over
    with pytest.raises(ValueError, match="unknown speech categories"):
        Announcer(Voice(), say=("actions", "gossip"))


def test_a_take_back_and_a_mismatch_that_holds_are_said_once() -> None:
    clock = FakeClock()
    voice = Voice()
    ctl = TableController(game=Game.from_moves(["C3", "D4"]))
    announcer = Announcer(voice, lang="en").attach(ctl, clock)
    assert voice.lines == ["White to place a DVONN piece."]
    ctl.undo()
    announcer.update(ctl)
    assert voice.lines[-1] == "Taken back: Black places a DVONN piece on D4."
    ctl.explanation = Explanation(MISMATCH, mismatch=1 << 5)
    said = len(voice.lines)
    announcer.update(ctl)
    clock.advance(1.9)
    announcer.poll()
    assert len(voice.lines) == said  # a hand passing over the board is no news
    clock.advance(0.2)
    announcer.poll()
    assert voice.lines[-1].startswith("The board differs at ") and len(voice.lines) == said + 1
    clock.advance(10)
    announcer.poll()
    assert len(voice.lines) == said + 1  # said once
    ctl.finished, ctl.message = True, "White's time is up: Black wins on time"
    announcer.update(ctl)  # a flag ends the game before the rules do: its message is said
    assert voice.lines[-1] == "White's time is up: Black wins on time"
    announcer.close()
    announcer.close()
    assert announcer.update not in ctl.listeners and voice.closed == 2


# ----------------------------------------------------------------- the speaker
def test_the_speaker_never_blocks_the_table() -> None:
    """A voice stuck on its first sentence: the whole game still plays to the end (the table
    only queues), and everything is said once the voice is free again."""
    release = threading.Event()
    heard: list[str] = []

    def stuck(text: str, lang: str) -> None:
        release.wait(60)
        heard.append(text)

    speaker = Speaker(stuck, lang="en")
    result = run_demo(DemoOptions(fast=True, direct=True, seed=5, quiet=True,
                                  speak=Announcer(speaker, lang="en")), _Null())
    assert result.over and not heard
    assert speaker.pending > len(result.actions) // 2  # queued while the voice was stuck
    release.set()
    speaker.close()
    check_every_action(heard, result.actions)
    assert heard[-1].startswith("Game over") and heard == speaker.said


def test_the_speaker_closes_cleanly_and_reports_a_failing_voice_once() -> None:
    reports: list[str] = []

    def broken(text: str, lang: str) -> None:
        raise SpeechError("espeak-ng failed (exit 1): no sound")

    with Speaker(broken, report=reports.append) as speaker:
        speaker.say("one")
        speaker.say("two")
        speaker.wait()
        assert speaker.failures == 2
    speaker.close()  # safe twice
    speaker.say("after close")  # ignored
    assert reports == ["espeak-ng failed (exit 1): no sound"]
    assert speaker.pending == 0 and speaker.said == []


def test_a_table_said_aloud_stops_soon_after_it_is_closed() -> None:
    """``drain``: closing waits that long for the queue; what is left then goes unsaid."""
    release, started = threading.Event(), threading.Event()
    heard: list[str] = []

    def slow(text: str, lang: str) -> None:
        started.set()
        release.wait(60)
        heard.append(text)

    speaker = Speaker(slow, drain=0.0)
    for text in ("one", "two", "three"):
        speaker.say(text)
    assert started.wait(60)
    speaker.close()  # returns at once: the voice is still on "one"
    release.set()
    speaker._thread.join(60)
    assert heard == ["one"] and not speaker._thread.is_alive()


# ----------------------------------------------------------------- engine, folder, config
def test_the_espeak_command_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    engine = Espeak(command="/usr/bin/espeak-ng", volume=80, speed=150)
    assert engine.args("de", tmp_path / "x.wav") == [
        "/usr/bin/espeak-ng", "-b", "1", "-v", "de", "-a", "80", "-s", "150", "-w",
        str(tmp_path / "x.wav")]
    assert Espeak(command="e", voice="en-us").args("en")[3:5] == ["-v", "en-us"]
    monkeypatch.setattr("controller.speech.espeak.shutil.which", lambda name: None)
    with pytest.raises(SpeechError, match="apt-get install espeak-ng"):
        Espeak()


def test_a_bad_speak_to_folder_is_one_line_and_exit_2(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    config = tmp_path / "config.toml"
    config.write_text('[sensor]\nbackend = "emulator"\n')
    for command in (["demo", "--fast", "--direct"], ["play", "--config", str(config)],
                    ["web", "127.0.0.1:0"]):
        for folder, why in ((afile, "is not a folder"), (afile / "sub", "cannot be made")):
            code = main([*command, "--speak-to", str(folder)])
            err = capsys.readouterr().err
            assert code == 2
            assert err.count("\n") == 1 and why in err and "Traceback" not in err, err
            assert f"--speak-to {folder}" in err
    numbered = tmp_path / "spoken"
    numbered.mkdir()
    (numbered / "0007.wav").write_bytes(b"")
    assert WavFolder(numbered).next_path().name == "0008.wav"  # a record across games


def test_the_virtual_table_speaks_too() -> None:
    pytest.importorskip("starlette")
    from controller.web.app import VirtualOptions, make_virtual_table

    voice = Voice()
    announcer = Announcer(voice, lang="en")
    ctl, web, table, runner = make_virtual_table(VirtualOptions(address="127.0.0.1:0",
                                                                speak=announcer))
    try:
        assert announcer in runner.sources and announcer.update in ctl.listeners
        assert voice.lines == ["White to place a DVONN piece."]
    finally:
        table.close()
        web.stop()
        announcer.close()


def test_missing_espeak_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("controller.speech.espeak.shutil.which", lambda name: None)
    assert main(["demo", "--fast", "--direct", "--speak"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "sudo apt-get install espeak-ng" in err


def test_the_speech_config() -> None:
    cfg = parse_config('[speech]\nenabled = true\nvolume = 150\nspeed = 120\nvoice = "de+f3"\n'
                       'say = ["actions", "result"]\ndelay = 0.5\nfolder = "~/spoken"\n')
    assert cfg.speech == SpeechConfig(enabled=True, folder="~/spoken", voice="de+f3",
                                      volume=150, speed=120, say=("actions", "result"),
                                      delay=0.5)
    assert parse_config("").speech == SpeechConfig()
    assert SpeechConfig().say == words.CATEGORIES
    for text, key in (('say = ["actions", "jokes"]', "speech.say"), ("volume = 300",
                      "speech.volume"), ("speed = 10", "speech.speed"),
                      ('voice = "en; rm"', "speech.voice"), ("enabled = 1", "speech.enabled"),
                      ("loud = true", "speech.loud")):
        with pytest.raises(ConfigError) as info:
            parse_config(f"[speech]\n{text}\n")
        assert info.value.key == key


def test_dev_py_installs_espeak_ng_with_apt_get_as_root(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("dev_speech_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    dev: Any = importlib.util.module_from_spec(spec)
    sys.modules["dev_speech_test"] = dev
    spec.loader.exec_module(dev)
    calls: list[list[str]] = []
    monkeypatch.setattr(dev.shutil, "which",
                        lambda name: None if name == "espeak-ng" else f"/usr/bin/{name}")
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)
    monkeypatch.setattr(dev.subprocess, "call", lambda cmd, env=None: calls.append(cmd) or 0)
    dev.ensure_speech()
    assert calls[1][:3] == ["apt-get", "install", "-y"] and "espeak-ng" in calls[1]
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)
    dev.ensure_speech()
    assert "speech tests will skip" in capsys.readouterr().out


class _Null:
    """An output stream that keeps nothing (the demo's terminal board)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def test_the_tutors_marks_are_said_in_words() -> None:
    """A voice skips question marks: a player who plays by ear hears "a mistake" or "a
    blunder" after the marked action; a question the table asks keeps its question mark."""
    from controller.speech.announcer import spoken_marks

    assert spoken_marks("I2I3??: White loses 5.19 pieces; better: D1E2", "en") == \
        "I2I3, a blunder: White loses 5.19 pieces; better: D1E2"
    assert spoken_marks("E5?: Schwarz verliert 2 Steine", "de") == \
        "E5, ein Fehler: Schwarz verliert 2 Steine"
    asked = "Where did the stack land: D4 or E5?"
    assert spoken_marks(asked, "en") == asked
