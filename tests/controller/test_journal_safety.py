"""The journal against the world: a second writer, a damaged file, reading that must not
write, and files this user may not change."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import controller.journal.lock as journal_lock
from controller.journal.lock import JournalBusyError, why_not_writable
from controller.journal.store import DamagedJournalError, Journal, JournalError
from engine.geometry import CELL_NAMES

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (what 'nothing changed' means)."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


def fill(path: Path, games: int, actions: int = 20) -> None:
    """``games`` games of ``actions`` placements (A1, B1, ...), written in one transaction
    (a commit per action, as play does, is slow on a busy disk)."""
    Journal(path).close()
    conn = sqlite3.connect(path)
    with conn:
        for g in range(games):
            gid = conn.execute("INSERT INTO games (white, black, source, started) VALUES "
                               "(?, ?, 'test', '2026-01-01T00:00:00+00:00')",
                               (f"white{g}", f"black{g}")).lastrowid
            conn.executemany("INSERT INTO actions (game_id, idx, action, at) VALUES "
                             "(?, ?, ?, '2026-01-01T00:00:00+00:00')",
                             [(gid, i, CELL_NAMES[i]) for i in range(actions)])
    conn.close()


# -- one writer --------------------------------------------------------------------------------

def test_a_second_writer_is_refused_naming_journal_and_holder(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path, writer=True) as first:
        gid = first.new_game()
        with pytest.raises(JournalBusyError) as info:
            Journal(path, writer=True)
        message = str(info.value)
        assert str(path) in message and f"process {os.getpid()}" in message
        first.append(gid, "A1")  # the holder goes on undisturbed
    with Journal(path, writer=True) as again:  # released on close
        assert again.actions(gid) == ["A1"]


def test_the_lock_dies_with_a_killed_holder(tmp_path: Path) -> None:
    """kill -9 leaves no stale lock (the lock file stays, the flock does not)."""
    path = tmp_path / "games.sqlite3"
    code = ("import sys; from controller.journal.store import Journal\n"
            "j = Journal(sys.argv[1], writer=True); print('ready', flush=True)\n"
            "sys.stdin.read()\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=REPO,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        with pytest.raises(JournalBusyError, match=f"process {child.pid}"):
            Journal(path, writer=True)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                stream.close()
    assert (tmp_path / "games.sqlite3.lock").exists()  # left unlocked by the killed holder
    with Journal(path, writer=True) as j:
        assert j.games() == []
    assert not (tmp_path / "games.sqlite3.lock").exists()  # a clean release removes it


def test_a_second_opener_in_the_writer_process_keeps_sqlite_locks(tmp_path: Path) -> None:
    """demo holds the writer Journal while its game loop opens another on the same file.
    Opening the database file with any other descriptor and closing it would drop SQLite's
    POSIX locks of the whole process: an outside reader then believed itself the last
    connection, checkpointed and deleted the -wal under the writers (seen as a game that
    stayed empty until the demo ended)."""
    path = tmp_path / "games.sqlite3"
    code = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "print(c.execute('SELECT COUNT(*) FROM actions').fetchone()[0]); c.close()")

    def outside_count() -> int:
        done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                              text=True, check=True)
        return int(done.stdout)

    with Journal(path, writer=True), Journal(path) as loop:
        gid = loop.new_game()
        loop.append(gid, "A1")
        assert outside_count() == 1
        loop.append(gid, "B1")
        assert outside_count() == 2
        assert (tmp_path / "games.sqlite3-wal").exists()
    with Journal(path, readonly=True) as j:
        assert j.actions(gid) == ["A1", "B1"]


def test_readers_need_no_lock(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path, writer=True) as w:
        gid = w.new_game()
        w.append(gid, "C3")
        with Journal(path, readonly=True) as r:
            assert r.actions(gid) == ["C3"]
            with pytest.raises(JournalError, match="read-only"):
                r.new_game()


# -- reading never writes ----------------------------------------------------------------------

def test_reading_a_missing_journal_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir" / "x.db"
    with pytest.raises(JournalError, match=f"no journal at {path}"):
        Journal(path, readonly=True)
    assert list(tmp_path.iterdir()) == []


def test_reading_an_empty_file_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    path.touch()
    with pytest.raises(JournalError, match="empty file"):
        Journal(path, readonly=True)
    assert tree(tmp_path) == {"x.db": b""}


def test_reading_a_closed_journal_creates_no_wal_or_shm(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    fill(path, 2, 3)
    before = tree(tmp_path)
    assert set(before) == {"games.sqlite3"}
    with Journal(path, readonly=True) as j:
        assert [g.actions for g in j.games()] == [3, 3]
        assert j.actions(2) == ["A1", "B1", "C1"]
    assert tree(tmp_path) == before


def test_reading_sees_what_a_killed_writer_committed(tmp_path: Path) -> None:
    """The writer died with its -wal holding commits: a reader sees them, changes nothing."""
    path = tmp_path / "games.sqlite3"
    code = ("import os, sys; from controller.journal.store import Journal\n"
            "j = Journal(sys.argv[1], writer=True); g = j.new_game()\n"
            "[j.append(g, c) for c in ('A1', 'B1')]; os._exit(0)\n")
    subprocess.run([sys.executable, "-c", code, str(path)], cwd=REPO, check=True,
                   env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert (tmp_path / "games.sqlite3-wal").exists()
    before = tree(tmp_path)
    with Journal(path, readonly=True) as j:
        assert j.actions(1) == ["A1", "B1"]
    after = tree(tmp_path)
    # The -shm file is SQLite's shared-memory index, where every reader of a WAL journal
    # marks what it reads; it holds no data. Every other byte stays as it was.
    assert after.keys() == before.keys()
    assert {k: v for k, v in after.items() if not k.endswith("-shm")} == \
        {k: v for k, v in before.items() if not k.endswith("-shm")}


@pytest.mark.parametrize(("make", "words"), [
    (lambda p: p.write_bytes(b"precious notes\n" * 300), "not a SQLite database"),
    (lambda p: p.mkdir(), "not a file"),
])
def test_reading_other_files_refuses_and_keeps_them(tmp_path: Path, make: object,
                                                    words: str) -> None:
    path = tmp_path / "x.db"
    make(path)  # type: ignore[operator]
    before = tree(tmp_path)
    with pytest.raises(JournalError, match=words):
        Journal(path, readonly=True)
    assert tree(tmp_path) == before


# -- a damaged journal -------------------------------------------------------------------------

def damage(path: Path, page_no: int) -> None:
    """Fold the WAL into the file, then overwrite one page with junk."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big")
    data[size * (page_no - 1): size * page_no] = b"\xa5" * size
    path.write_bytes(bytes(data))


def test_a_damaged_journal_is_kept_aside_and_recovered(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    fill(path, 60, 45)
    pages = path.stat().st_size // 4096
    damage(path, pages // 2)  # one page in the middle: some actions are lost
    damaged = path.read_bytes()
    with pytest.raises(DamagedJournalError):
        Journal(path)  # a plain opener refuses, as before
    said: list[str] = []
    with Journal(path, writer=True, notify=said.append) as j:
        games = j.games()
        assert j.check() == []
        assert 0 < len(games) <= 60
        total = sum(g.actions for g in games)
        assert 0 < total < 60 * 45
        for g in games:  # every recovered game is a run of actions from its start
            assert j.actions(g.id) == [CELL_NAMES[i] for i in range(g.actions)]
        gid = j.new_game()
        j.append(gid, "A1")
    (aside,) = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and
                not p.name.endswith(("-wal", "-shm"))]
    assert aside.read_bytes() == damaged  # the user's file, byte for byte
    assert len(said) == 1 and str(path) in said[0] and str(aside) in said[0]
    assert f"recovered {len(games)} games ({total} actions" in said[0]


def test_a_journal_damaged_at_its_first_table_page(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    fill(path, 3, 5)
    damage(path, 2)
    said: list[str] = []
    with Journal(path, writer=True, notify=said.append) as j:
        assert j.check() == []
        j.append(j.new_game(), "A1")
    assert len(said) == 1 and "kept it as" in said[0]
    assert len(list(tmp_path.glob("games.sqlite3.damaged-*"))) >= 1


def test_reading_a_damaged_journal_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    fill(path, 60, 45)
    damage(path, path.stat().st_size // 4096 // 2)
    before = tree(tmp_path)
    with pytest.raises(JournalError, match="damaged"):
        with Journal(path, readonly=True) as j:
            for g in j.games():
                j.actions(g.id)
    assert tree(tmp_path) == before


# -- files this user may not change ------------------------------------------------------------

@pytest.fixture
def foreign(tmp_path: Path) -> Iterator[Path]:
    """A journal this test's user may read but not write, in a folder it may not write.

    As anyone but root the files are made read-only with chmod. Root may write anything: the
    files then belong to user 'nobody' and the commands run as root without the capabilities
    that override file modes (:func:`run_cli`), so the modes bind root as they bind any user
    who is not the owner. Running as 'nobody' instead would fail wherever the clone's folder
    is closed to other users (its interpreter and code out of reach).
    """
    folder = tmp_path / "foreign"
    folder.mkdir()
    path = folder / "games.sqlite3"
    fill(path, 1, 3)
    path.chmod(0o444)
    folder.chmod(0o555)
    if os.geteuid() == 0:
        if SETPRIV is None:
            reason = ("as root this test needs setpriv (util-linux) to drop the capabilities "
                      "that override file modes")
            if os.environ.get("CI"):
                pytest.fail(f"{reason} (CI is set: the test must run)")
            pytest.skip(reason)
        os.chown(path, NOBODY, NOBODY)
        os.chown(folder, NOBODY, NOBODY)
    try:
        yield path
    finally:
        folder.chmod(0o755)


#: Drops every capability of a root child (util-linux; None where it is missing).
SETPRIV = shutil.which("setpriv")


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """The command line in a child process; as root, without any capability (see foreign)."""
    command = [sys.executable, "-m", "controller.cli", *argv]
    if os.geteuid() == 0:
        assert SETPRIV is not None
        command = [SETPRIV, "--bounding-set=-all", "--inh-caps=-all", "--", *command]
    env = dict(os.environ, PYTHONPATH=str(REPO), HOME="/tmp", XDG_CONFIG_HOME="/nonexistent")
    return subprocess.run(command, cwd="/", capture_output=True, text=True, env=env,
                          timeout=120)


def test_a_foreign_journal_is_read_and_never_written(foreign: Path) -> None:
    before = tree(foreign.parent)
    done = run_cli("games", "list", "--journal", str(foreign))
    assert done.returncode == 0, done.stderr
    assert "unfinished" in done.stdout and "white0 vs black0" in done.stdout
    for argv in (["games", "delete", "1", "--journal", str(foreign)],
                 ["demo", "--fast", "--seed", "1", "--journal", str(foreign)]):
        done = run_cli(*argv)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        (line,) = done.stderr.splitlines()
        assert str(foreign) in line and "cannot be written" in line, line
        assert "unexpected" not in line
    assert tree(foreign.parent) == before


def test_read_only_filesystem_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root writes through file modes but not through a read-only mount: the reason is taken
    from the mount flags (simulated here; a test cannot mount as an ordinary user)."""
    path = tmp_path / "games.sqlite3"
    real = os.statvfs

    class ReadOnly:
        def __init__(self, p: object) -> None:
            self.f_flag = real(p).f_flag | os.ST_RDONLY  # type: ignore[arg-type]

    monkeypatch.setattr(journal_lock.os, "statvfs", ReadOnly)
    assert why_not_writable(path) == f"{tmp_path} is on a read-only filesystem"
    error = sqlite3.OperationalError("attempt to write a readonly database")
    error.sqlite_errorcode = 8  # type: ignore[attr-defined]

    def refuse(self: Journal, conn: sqlite3.Connection) -> None:
        raise self._access_error(error, "open")

    monkeypatch.setattr(Journal, "_setup", refuse)
    with pytest.raises(JournalError) as info:
        Journal(path)
    assert str(info.value) == \
        f"journal {path} cannot be written: {tmp_path} is on a read-only filesystem"
