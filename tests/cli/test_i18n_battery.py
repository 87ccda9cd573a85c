"""The bad-input battery in German (issue 28): under ``LANG=de_DE.UTF-8`` each command's error
is still one line naming the input, exit 2, and it is German, not the English line: the
controller's own messages from the catalog, the engine's (an illegal or unreadable action, a
broken record) and the system's (a missing file) put into German at the CLI's boundary.
One input of every case of tests/cli/data/bad_inputs.json, in process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_battery import BATTERY, prepare

from controller.cli import main
from controller.i18n import set_language


def _one_per_case() -> list[Any]:
    return [pytest.param(case, case["inputs"][0], id=f"{n:02d}-{case['inputs'][0]}")
            for n, case in enumerate(BATTERY["cases"])]


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    set_language("en")


def _line(world: Path, case: dict[str, Any], name: str, lang: str,
          monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", lang)
    folder = world / lang[:2]
    folder.mkdir()
    monkeypatch.chdir(folder)
    argv, names = prepare(folder, case, name)
    code = main(argv)
    return code, capsys.readouterr().err.splitlines(), names


@pytest.mark.parametrize(("case", "name"), _one_per_case())
def test_bad_input_is_one_german_line_exit_2(
        world: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        case: dict[str, Any], name: str) -> None:
    en_code, en, _names = _line(world, case, name, "en_US.UTF-8", monkeypatch, capsys)
    code, lines, names = _line(world, case, name, "de_DE.UTF-8", monkeypatch, capsys)
    assert code == en_code == 2
    assert len(lines) == len(en) == 1, lines[:5]
    assert names in lines[0], lines[0]
    assert lines[0].startswith("dvonn-board") and len(lines[0]) <= 400
    assert lines[0] != en[0], f"not German: {lines[0]}"


@pytest.mark.parametrize(("argv", "german"), [
    (["moves", "C3", "C3"],
     "dvonn-board moves: 'C3' ist im Halbzug 2 nicht erlaubt (Schwarz ist am Zug): C3 ist besetzt"),
    (["moves", "Z9"], "dvonn-board moves: Halbzug 1: 'Z9' ist keine DVONN-Notation "
                      "(erwartet z. B. C3, C3D3 oder PASS)"),
    (["moves", "C3", "C3D3"],
     "nicht erlaubt (Schwarz ist am Zug): beim Setzen braucht es ein Feld"),
    (["replay", "missing.txt"],
     "dvonn-board replay: kann 'missing.txt' nicht lesen: Datei oder Verzeichnis nicht gefunden"),
    (["games", "export", "abc", "--journal", "games.db"], "'abc' ist keine Partienummer"),
])
def test_the_engine_and_the_system_speak_german_at_the_boundary(
        world: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], german: str) -> None:
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert german in line, line
