"""``dvonn-board games``: list, export (Little Golem, moves, JSON) and delete."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from controller.cli import main
from controller.journal.store import Journal
from engine.game import Game
from engine.records import game_from_json, parse_record


def play_random(seed: int, plies: int | None = None) -> list[str]:
    """A legal game from a seeded random playout (whole, or its first ``plies`` actions)."""
    rng = random.Random(seed)
    game = Game()
    while not game.is_over() and (plies is None or game.ply < plies):
        game.push(rng.choice(game.legal_moves()))
    return [str(m) for m in game.move_stack]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal with: 1 finished game, 2 resigned by black, 3 unfinished, 4 abandoned."""
    path = tmp_path_factory.mktemp("template") / "games.sqlite3"
    with Journal(path) as j:
        whole = play_random(7)
        gid = j.new_game(white="Ann", black="Bob")
        for a in whole:
            j.append(gid, a)
        w, b = Game.from_moves(whole).score()
        winner = Game.from_moves(whole).winner()
        j.finish(gid, white_score=w, black_score=b,
                 result={"w": "white", "b": "black", "tie": "tie"}[str(winner)])

        gid = j.new_game(white="Cy", black="Di")
        for a in play_random(8, plies=60):
            j.append(gid, a)
        j.finish(gid, white_score=9, black_score=7, result="black resigns")

        gid = j.new_game()
        for a in play_random(9, plies=5):
            j.append(gid, a)

        gid = j.new_game(source="demo")
        j.abandon(gid)
    return path


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    """A private copy of the template journal (closed, so the file holds everything)."""
    path = tmp_path / "games.sqlite3"
    shutil.copyfile(template, path)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "games", "--journal", str(store))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "STARTED", "PLAYERS", "ACTIONS", "RESULT"]
    with Journal(store) as j:
        first = j.game(1)
    assert f"{first.result} {first.white_score}-{first.black_score}" in lines[1]
    assert "Ann vs Bob" in lines[1] and f" {first.actions} " in lines[1]
    assert "Cy vs Di" in lines[2] and "black resigns 9-7" in lines[2]
    assert lines[3].split()[-1] == "unfinished" and " 5 " in lines[3]
    assert lines[4].split()[-1] == "abandoned"
    assert len(lines) == 5
    # "list" is the same, and --journal may also follow the action.
    assert run(capsys, "games", "list", "--journal", str(store))[1] == out


def test_list_empty_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "new.sqlite3"
    Journal(path).close()
    code, out, _ = run(capsys, "games", "--journal", str(path))
    assert code == 0 and out.strip() == f"no games in {path}"


def test_listing_never_creates_a_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A named journal that does not exist is an error (a typo must not look like 'no
    games'); the default one lists as no games. Neither creates a file or a folder."""
    path = tmp_path / "no" / "such" / "dir" / "x.db"
    code, out, err = run(capsys, "games", "list", "--journal", str(path))
    assert code == 2 and out == "" and err == f"dvonn-board games: no journal at {path} " \
        "(no games were stored there)\n"
    empty = tmp_path / "empty.db"
    empty.touch()
    code, _, err = run(capsys, "games", "--journal", str(empty))
    assert code == 2 and "empty file" in err and empty.read_bytes() == b""
    monkeypatch.setenv("DVONN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    code, out, _ = run(capsys, "games")
    assert code == 0 and out == f"no games in {tmp_path / 'data' / 'games.sqlite3'}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]
    code, _, err = run(capsys, "games", "export", "1")
    assert code == 2 and "no journal at" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_journal_path_from_config(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[journal]\npath = "{store}"\n', encoding="utf-8")
    code, out, _ = run(capsys, "games", "--config", str(cfg))
    assert code == 0 and "Ann vs Bob" in out


def test_export_little_golem_round_trips(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games", "--journal", str(store), "export", "1")
    assert code == 0
    assert out.startswith("Event [] Site [www.littlegolem.net] White [Ann] Black [Bob] 1. ")
    record = parse_record(out)
    with Journal(store) as j:
        assert [str(m) for m in record.moves] == j.actions(1)
    assert record.white == "Ann" and record.resigned is None


def test_export_resigned_game_ends_in_resign(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "games", "export", "2", "--journal", str(store), "--format", "lg")
    assert code == 0 and out.rstrip().endswith("resign")
    assert parse_record(out).resigned is not None


def test_export_moves(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games", "--journal", str(store), "export", "3", "--format",
                       "moves")
    assert code == 0
    assert out == " ".join(play_random(9, plies=5)) + "\n"


def test_export_json_to_file(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "game1.json"
    code, out, err = run(capsys, "games", "--journal", str(store), "export", "1",
                         "--format", "json", "--out", str(target))
    assert code == 0 and out == "" and str(target) in err
    data = json.loads(target.read_text(encoding="utf-8"))
    with Journal(store) as j:
        info, actions = j.game(1), j.actions(1)
    assert data["moves"] == actions
    assert data["score"] == {"white": info.white_score, "black": info.black_score}
    assert data["journal"]["id"] == 1 and data["journal"]["result"] == info.result
    assert data["white"] == "Ann"
    assert [str(m) for m in game_from_json(data).moves] == actions
    assert not list(tmp_path.glob(".game1.json.*"))  # no temporary file left behind


def test_export_json_of_resigned_game(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games", "--journal", str(store), "export", "2", "--format",
                       "json")
    assert code == 0 and json.loads(out)["resigned"] == "b"


def test_delete(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games", "--journal", str(store), "delete", "2")
    assert code == 0 and "deleted game 2 (Cy vs Di, 60 actions)" in out
    with Journal(store) as j:
        assert [g.id for g in j.games()] == [1, 3, 4]


@pytest.mark.parametrize("game_id", ["42", "-1", "1" + "0" * 30])  # the last: beyond 64 bits
@pytest.mark.parametrize("action", ["export", "delete"])
def test_unknown_id_exits_2_with_a_message(
    store: Path, capsys: pytest.CaptureFixture[str], action: str, game_id: str
) -> None:
    code, out, err = run(capsys, "games", "--journal", str(store), action, game_id)
    assert code == 2 and out == ""
    assert f"no game with id {game_id} " in err and str(store) in err
    with Journal(store) as j:
        assert [g.id for g in j.games()] == [1, 2, 3, 4]


@pytest.mark.parametrize("where", ["missing/out.txt", "."])  # no such folder; a folder
def test_export_to_an_unwritable_path_exits_2(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    out_path = tmp_path / where
    code, out, err = run(capsys, "games", "--journal", str(store), "export", "1", "--out",
                         str(out_path))
    assert code == 2 and out == "" and f"cannot write {out_path}" in err
    assert len(err.splitlines()) == 1
    assert not [p for p in tmp_path.rglob("*.tmp")]  # no temporary file left behind


def test_corrupt_journal_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"not sqlite at all" * 200)
    code, _, err = run(capsys, "games", "--journal", str(path))
    assert code == 2 and str(path) in err


def test_bad_format_is_refused(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--journal", str(store), "export", "1", "--format", "pgn"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and len(err.splitlines()) == 1
