"""The 585 real boardspace.net games of ../shared/games/boardspace through the command line:
``replay`` ends each with the line its index.jsonl gives, and ``games import`` stores all of
them at once with their players, dates, sources and results.

Without ../shared these tests fail under CI (CI set) and are skipped elsewhere; the reader's
own tests (tests/engine/test_boardspace.py) run on the games kept in tests/engine/data."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.journal.store import Journal

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "games" / "boardspace"


def shared_index() -> list[dict[str, Any]]:
    index = SHARED / "index.jsonl"
    if not index.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{index} is missing: CI needs ../shared (the real games)")
        pytest.skip(f"{index} is missing (../shared not here)")
    return [json.loads(line) for line in index.read_text().splitlines() if line.strip()]


def test_every_shared_game_replays_to_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    games = shared_index()
    assert len(games) == 585
    wrong = []
    for entry in games:
        code = main(["replay", str(SHARED / entry["file"])])
        out, err = capsys.readouterr()
        lines = out.splitlines()
        if code != 0 or err or lines[-1] != entry["result"] or \
                f"Actions: {entry['plies']}" not in lines:
            wrong.append(f"{entry['file']}: exit {code}, {lines[-1:]} {err.strip()[:200]}")
    assert not wrong, f"{len(wrong)} games: " + "; ".join(wrong[:5])


def test_all_shared_games_import_at_once(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    games = shared_index()
    journal = tmp_path / "games.sqlite3"
    files = [str(SHARED / g["file"]) for g in games]
    assert main(["games", "import", "--journal", str(journal), *files]) == 0
    out, err = capsys.readouterr()
    assert err == "" and len(out.splitlines()) == len(games)
    with Journal(journal, readonly=True) as j:
        stored = j.games()
        assert len(stored) == len(games)
        for entry, info in zip(games, stored, strict=True):
            w, b = (int(x.split("=")[1]) for x in entry["result"].split()[1:])
            assert (info.white_score, info.black_score, info.actions) == (w, b, entry["plies"])
            assert info.result == ("white" if w > b else "black" if b > w else "tie")
            assert info.source == f"import:boardspace.net:{entry['file']}"
            stamp = entry["file"].removesuffix(".sgf").split("-")[-4:]
            assert info.started.startswith(f"{stamp[0]}-{stamp[1]}-{stamp[2]}T"
                                           f"{stamp[3][:2]}:{stamp[3][2:]}"), info.started
        assert j.unfinished() is None  # imported games are never resumed at the table
        some = stored[::60]
    for info in some:  # exported as SGF, each reads back to the same game
        target = tmp_path / f"{info.id}.sgf"
        assert main(["games", "export", str(info.id), "--format", "sgf", "--journal",
                     str(journal), "--out", str(target)]) == 0
        assert main(["replay", str(target)]) == 0
        assert capsys.readouterr().out.splitlines()[-1] == \
            f"over white={info.white_score} black={info.black_score}"
