"""The game journal: storage, take-back, results, defaults and refusing bad files."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal.store import (
    SCHEMA_VERSION,
    GameInfo,
    Journal,
    JournalError,
    default_journal_path,
)
from engine.errors import DvonnError


class _Ticks:
    """Deterministic ISO time stamps, one second apart."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"2024-05-01T12:00:{self.n:02d}+00:00"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "games.sqlite3"


@pytest.fixture
def journal(db_path: Path) -> Iterator[Journal]:
    with Journal(db_path, now=_Ticks()) as j:
        yield j


def test_new_game_append_and_read_back(journal: Journal) -> None:
    gid = journal.new_game(white="Ann", black="Bob")
    assert journal.append(gid, "g2") == 0
    assert journal.append(gid, "E3") == 1
    assert journal.append(gid, "pass") == 2
    assert journal.append(gid, "c3d3") == 3
    assert journal.actions(gid) == ["G2", "E3", "PASS", "C3D3"]
    info = journal.game(gid)
    assert info == GameInfo(
        id=gid,
        white="Ann",
        black="Bob",
        started="2024-05-01T12:00:01+00:00",
        finished=None,
        result=None,
        white_score=None,
        black_score=None,
        actions=4,
        source="table",
    )
    assert not info.is_finished


def test_games_are_kept_apart_and_listed_oldest_first(journal: Journal) -> None:
    a = journal.new_game()
    b = journal.new_game(white="W", black="B", source="demo")
    journal.append(a, "A1")
    journal.append(b, "B1")
    journal.append(b, "C1")
    assert journal.actions(a) == ["A1"]
    assert journal.actions(b) == ["B1", "C1"]
    listed = journal.games()
    assert [g.id for g in listed] == [a, b]
    assert [g.actions for g in listed] == [1, 2]
    assert listed[1].source == "demo"


def test_take_back_removes_the_last_action(journal: Journal) -> None:
    gid = journal.new_game()
    assert journal.take_back(gid) is None
    journal.append(gid, "A1")
    journal.append(gid, "B1")
    assert journal.take_back(gid) == "B1"
    assert journal.actions(gid) == ["A1"]
    assert journal.append(gid, "C1") == 1
    assert journal.take_back(gid) == "C1"
    assert journal.take_back(gid) == "A1"
    assert journal.take_back(gid) is None
    assert journal.actions(gid) == []


def test_finish_records_result_and_scores(journal: Journal) -> None:
    gid = journal.new_game()
    journal.append(gid, "A1")
    journal.finish(gid, white_score=12, black_score=9, result="white")
    info = journal.game(gid)
    assert info.result == "white"
    assert (info.white_score, info.black_score) == (12, 9)
    assert info.finished is not None and info.is_finished
    assert journal.unfinished() is None
    with pytest.raises(JournalError, match="already over"):
        journal.append(gid, "B1")
    with pytest.raises(JournalError, match="already over"):
        journal.finish(gid, white_score=1, black_score=1, result="tie")


def test_take_back_after_the_end_reopens_the_game(journal: Journal) -> None:
    gid = journal.new_game()
    journal.append(gid, "A1")
    journal.finish(gid, white_score=0, black_score=1, result="black resigns")
    assert journal.take_back(gid) == "A1"
    info = journal.game(gid)
    assert info.finished is None and info.result is None and info.white_score is None
    assert journal.unfinished() == info


@pytest.mark.parametrize(
    ("result", "white", "black", "message"),
    [
        ("draw", 1, 1, "not one of"),
        ("white", -1, 1, "white score"),
        ("tie", 1, True, "black score"),
    ],
)
def test_finish_rejects_bad_values(
    journal: Journal, result: str, white: int, black: int, message: str
) -> None:
    gid = journal.new_game()
    with pytest.raises(JournalError, match=message):
        journal.finish(gid, white_score=white, black_score=black, result=result)
    assert journal.game(gid).finished is None


def test_abandon_and_unfinished(journal: Journal) -> None:
    assert journal.unfinished() is None
    a = journal.new_game()
    b = journal.new_game()
    journal.append(b, "A1")
    unfinished = journal.unfinished()
    assert unfinished is not None and unfinished.id == b
    journal.abandon(b)
    assert journal.game(b).result == "abandoned"
    assert journal.actions(b) == ["A1"]
    unfinished = journal.unfinished()
    assert unfinished is not None and unfinished.id == a
    with pytest.raises(JournalError, match="abandoned"):
        journal.take_back(b)
    with pytest.raises(JournalError, match="already over"):
        journal.abandon(b)


def test_delete(journal: Journal) -> None:
    a = journal.new_game()
    journal.append(a, "A1")
    b = journal.new_game()
    journal.delete(a)
    assert [g.id for g in journal.games()] == [b]
    with pytest.raises(JournalError, match=f"no game with id {a}"):
        journal.actions(a)
    assert journal.check() == []


@pytest.mark.parametrize("call", ["game", "actions", "take_back", "abandon", "delete", "append"])
def test_unknown_id_names_it(journal: Journal, call: str) -> None:
    method = getattr(journal, call)
    args = (77, "A1") if call == "append" else (77,)
    with pytest.raises(JournalError, match="no game with id 77") as info:
        method(*args)
    assert isinstance(info.value, DvonnError)
    with pytest.raises(JournalError, match="no game with id 77"):
        journal.finish(77, white_score=0, black_score=0, result="tie")


def test_bad_notation_is_refused(journal: Journal) -> None:
    gid = journal.new_game()
    with pytest.raises(JournalError, match="Z9"):
        journal.append(gid, "Z9")
    assert journal.actions(gid) == []


def test_data_survives_reopening(db_path: Path) -> None:
    with Journal(db_path) as j:
        gid = j.new_game(white="Ann", black="Bob")
        j.append(gid, "A1")
        j.append(gid, "B1")
    with Journal(db_path) as j:
        assert j.actions(gid) == ["A1", "B1"]
        assert j.game(gid).white == "Ann"
        assert j.check() == []


def test_pragmas_wal_and_full_sync(db_path: Path) -> None:
    with Journal(db_path) as j:
        conn = j._db
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_close_twice_and_use_after_close(db_path: Path) -> None:
    j = Journal(db_path)
    j.close()
    j.close()
    with pytest.raises(JournalError, match="closed"):
        j.games()


def test_ids_are_not_reused_after_delete(journal: Journal) -> None:
    a = journal.new_game()
    journal.delete(a)
    assert journal.new_game() > a


def test_default_path_follows_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DVONN_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_journal_path() == tmp_path / "xdg" / "dvonn-board" / "games.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_journal_path() == (
        tmp_path / "home" / ".local" / "share" / "dvonn-board" / "games.sqlite3"
    )
    monkeypatch.setenv("DVONN_DATA_DIR", str(tmp_path / "mine"))
    assert default_journal_path() == tmp_path / "mine" / "games.sqlite3"
    with Journal() as j:
        assert j.path == tmp_path / "mine" / "games.sqlite3"
        j.new_game()
    assert (tmp_path / "mine" / "games.sqlite3").is_file()


def test_garbage_file_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    junk = b"this is not a database, but someone's precious notes\n" * 100
    path.write_bytes(junk)
    with pytest.raises(JournalError, match=str(path)):
        Journal(path)
    assert path.read_bytes() == junk


def test_damaged_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as j:
        gid = j.new_game()
        for cell in ("A1", "B1", "C1", "D1"):
            j.append(gid, cell)
    # Fold the WAL into the main file, then smash the page after the header.
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page : page * 2] = b"\xa5" * page
    path.write_bytes(bytes(data))
    with pytest.raises(JournalError, match=str(path)):
        Journal(path)


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="recipes"):
        Journal(path)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    Journal(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="newer"):
        Journal(path)


def test_directory_in_the_way_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    path.mkdir()
    with pytest.raises(JournalError, match="not a file"):
        Journal(path)


def test_one_journal_shared_by_threads(journal: Journal) -> None:
    ids = [journal.new_game() for _ in range(4)]
    errors: list[BaseException] = []

    def writer(gid: int) -> None:
        try:
            for i in range(25):
                assert journal.append(gid, ("A1", "B1", "C1")[i % 3]) == i
                journal.games()
        except BaseException as exc:  # reported to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(gid,)) for gid in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [g.actions for g in journal.games()] == [25] * 4
    assert journal.check() == []


def test_many_openers_of_a_new_file_agree(tmp_path: Path) -> None:
    """Openers racing to create the schema: none may see half of another's work (its tables
    without its version) and refuse the file. 20 fresh files, 8 openers each."""
    for n in range(20):
        path = tmp_path / f"games{n}.sqlite3"
        start = threading.Barrier(8)
        errors: list[BaseException] = []

        def opener(path: Path = path, start: threading.Barrier = start,
                   errors: list[BaseException] = errors) -> None:
            try:
                start.wait()
                with Journal(path) as j:
                    j.append(j.new_game(), "A1")
            except BaseException as exc:  # reported to the main thread
                errors.append(exc)

        threads = [threading.Thread(target=opener) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with Journal(path) as j:
            assert [g.actions for g in j.games()] == [1] * 8
