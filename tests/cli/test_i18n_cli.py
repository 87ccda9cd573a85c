"""The CLI in German (issue 28): ``LANG=de_DE.UTF-8`` shows the demo's board lines, prompts
and result in German, while what programs read stays byte for byte the same in every language:
the sensor log, ``replay-sensors`` (actions and ``over white=N black=M``) and its ``--trace``
JSON, ``replay`` and ``moves``. Errors stay one line with exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGLISH = {"LANG": "en_US.UTF-8"}
GERMAN = {"LANG": "de_DE.UTF-8"}


def run(args: list[str], lang: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env.update(lang, XDG_CONFIG_HOME=str(cwd / "config"), DVONN_DATA_DIR=str(cwd / "data"))
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, bytes, Path]]:
    """The same demo game in English and in German: output, sensor log, folder."""
    out = {}
    for name, lang in (("en", ENGLISH), ("de", GERMAN)):
        folder = tmp_path_factory.mktemp(name)
        log = folder / "sensors.jsonl"
        done = run(["demo", "--fast", "--seed", "7", "--record", str(log)], lang, folder)
        assert done.returncode == 0, done.stderr
        out[name] = (done.stdout, log.read_bytes(), folder)
    return out


def test_the_demo_speaks_german(demos: dict[str, tuple[str, bytes, Path]]) -> None:
    english, german = demos["en"][0], demos["de"][0]
    assert "White to place a DVONN piece" in english and "Black to move" in english
    assert "Weiß setzt einen DVONN-Stein" in german and "Schwarz ist am Zug" in german
    assert "Halbzug 0" in german and "to move" not in german and "to place" not in german
    assert english.splitlines()[-2:] == ["score: white 9 black 7", "winner: White"]
    assert german.splitlines()[-2:] == ["Stand: Weiß 9 Schwarz 7", "Sieger: Weiß"]
    # the board's own lines (cells and stacks) are the same drawing
    board = [line for line in english.splitlines() if line.startswith(" ")]
    assert board == [line for line in german.splitlines() if line.startswith(" ")]


def test_what_programs_read_is_the_same_in_every_language(
        demos: dict[str, tuple[str, bytes, Path]]) -> None:
    assert demos["en"][1] == demos["de"][1]  # the sensor log
    folder = demos["en"][2]
    log = str(folder / "sensors.jsonl")
    seen = {}
    for name, lang in (("en", ENGLISH), ("de", GERMAN)):
        replayed = run(["replay-sensors", "--trace", log, "--journal", str(folder / f"{name}.db")],
                       lang, folder)
        assert replayed.returncode == 0, replayed.stderr
        seen[name] = replayed
    assert seen["en"].stdout == seen["de"].stdout
    assert seen["en"].stdout.splitlines()[-1] == "over white=9 black=7"
    assert seen["en"].stderr == seen["de"].stderr  # the --trace JSON lines
    assert seen["en"].stderr.startswith('{"t": ')
    actions = [line for line in seen["en"].stdout.splitlines() if not line.startswith("over")]
    record = folder / "game.txt"
    record.write_text(" ".join(actions) + "\n", encoding="utf-8")
    for args in (["replay", str(record)], ["moves", *actions[:60]]):
        en, de = run(args, ENGLISH, folder), run(args, GERMAN, folder)
        assert (en.returncode, en.stdout, en.stderr) == (de.returncode, de.stdout, de.stderr)
        assert en.returncode == 0, en.stderr


@pytest.mark.parametrize("args", [["frobnicate"], ["replay", "/no/such/file"], ["moves", "Z9"]])
def test_errors_are_one_german_line_with_exit_2(args: list[str], tmp_path: Path) -> None:
    de = run(args, GERMAN, tmp_path)
    en = run(args, ENGLISH, tmp_path)
    assert de.returncode == en.returncode == 2
    assert de.stdout == "" and len(de.stderr.splitlines()) == 1
    if args == ["frobnicate"]:
        assert "(siehe 'dvonn-board --help')" in de.stderr
        assert "(see 'dvonn-board --help')" in en.stderr


def test_the_config_language_wins_over_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "config" / "dvonn-board"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[display]\nlanguage = "de"\n', encoding="utf-8")
    # the config is read once the command line is understood
    done = run(["replay", "/no/such/file.txt"], ENGLISH, tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    done = run(["demo", "--fast", "--seed", "3"],
               ENGLISH, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Weiß setzt einen DVONN-Stein" in done.stdout
    (config / "config.toml").write_text('[display]\nlanguage = "fr"\n', encoding="utf-8")
    done = run(["demo", "--fast", "--seed", "3"], GERMAN, tmp_path)  # a bad config: the
    assert "Weiß setzt" in done.stdout  # environment's language (demo needs no config)


@pytest.mark.parametrize(("args", "words"), [
    (["--help"], ["Aufruf: dvonn-board", "Positionsargumente", "Optionen",
                  "diese Hilfe zeigen und beenden", "eine ganze Partie auf dem simulierten Tisch"]),
    (["perft", "--help"], ["Aufruf: dvonn-board perft", "eine Zahl je erstem Zug",
                           "(Vorgabe 600; 0 = keine Grenze)"]),
    (["demo", "--help"], ["Startwert des Zufalls", "Journaldatei"]),
    (["analyze", "--help"], ["Für jeden Zug einer Partie", "Sekunden für die ganze Partie"]),
])
def test_help_in_german(args: list[str], words: list[str], tmp_path: Path) -> None:
    de, en = run(args, GERMAN, tmp_path), run(args, ENGLISH, tmp_path)
    assert de.returncode == en.returncode == 0, de.stderr
    for word in words:
        assert word in de.stdout, (word, de.stdout)
    assert "usage:" in en.stdout and "options:" in en.stdout and "usage:" not in de.stdout


@pytest.mark.parametrize(("args", "german", "english"), [
    (["perft"], "diese Argumente fehlen: depth", "the following arguments are required: depth"),
    (["perft", "x"], "Argument depth: ungültiger int-Wert: 'x'",
     "argument depth: invalid int value: 'x'"),
    (["frobnicate"], "ungültige Auswahl: 'frobnicate' (möglich: ",
     "invalid choice: 'frobnicate' (choose from "),
    (["moves", "--bogus"], "unbekannte Argumente: --bogus", "unrecognized arguments: --bogus"),
    (["perft", "3", "--max-time", "-1"], "'-1': muss 0 oder mehr Sekunden sein",
     "'-1': must be 0 or more seconds"),
])
def test_argparse_errors_are_one_german_line_exit_2(
        args: list[str], german: str, english: str, tmp_path: Path) -> None:
    de, en = run(args, GERMAN, tmp_path), run(args, ENGLISH, tmp_path)
    assert de.returncode == en.returncode == 2
    assert de.stdout == en.stdout == ""
    assert len(de.stderr.splitlines()) == len(en.stderr.splitlines()) == 1
    assert german in de.stderr and "(siehe '" in de.stderr
    assert english in en.stderr and "(see '" in en.stderr


def test_a_config_error_in_german(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[sensor]\nbaudrate = -5\n', encoding="utf-8")
    de = run(["play", "--config", str(config)], GERMAN, tmp_path)
    en = run(["play", "--config", str(config)], ENGLISH, tmp_path)
    assert de.returncode == en.returncode == 2
    assert len(de.stderr.splitlines()) == 1
    assert en.stderr.strip() == (f"dvonn-board play: {config}: config key 'sensor.baudrate': "
                                 "must be a positive integer, got -5")
    assert de.stderr.strip() == (f"dvonn-board play: {config}: Konfigurationsschlüssel "
                                 "'sensor.baudrate': muss eine positive ganze Zahl sein, nicht -5")


def test_the_config_language_reaches_the_help(tmp_path: Path) -> None:
    config = tmp_path / "de.toml"
    config.write_text('[display]\nlanguage = "de"\n', encoding="utf-8")
    done = run(["play", "--config", str(config), "--help"], ENGLISH, tmp_path)
    assert done.returncode == 0 and "Aufruf: dvonn-board play" in done.stdout
