"""Durable game storage: every action is on disk before the table lights the next prompt.

One SQLite file (WAL mode, ``synchronous=FULL``) holds all games. ``append`` commits each
action in its own transaction and returns only after the commit, so a power cut or a killed
process never loses an action the controller already acknowledged.

Default location: ``$DVONN_DATA_DIR/games.sqlite3`` if set, else
``$XDG_DATA_HOME/dvonn-board/games.sqlite3``, else ``~/.local/share/dvonn-board/games.sqlite3``.

Game results (``GameInfo.result``):

* ``'white'``, ``'black'``, ``'tie'``: the game ended by the rules (scores are the counts);
* ``'white resigns'``, ``'black resigns'``: a player gave up (scores as they stood);
* ``'white out of time'``, ``'black out of time'``: that side's flag fell (scores as they stood);
* ``'abandoned'``: set by :meth:`Journal.abandon` (e.g. the players cleared the table);
* ``None``: the game is unfinished.

A foreign, newer-version or non-SQLite file raises :class:`JournalError` naming the path; the
journal never replaces it with a fresh empty database.

Three ways to open (see :class:`Journal`): ``readonly=True`` never creates or changes a file
(``games list``/``export``); ``writer=True`` takes the journal's writer lock (one writer per
journal: a second one is refused at once, naming the holder's pid) and, finding the file
damaged, moves it aside under a new name, recovers what can be read into a new journal and
says so; the default opens for writing without either (library use, tests).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from controller.i18n import Msg
from controller.journal import recover
from controller.journal.db import (
    ABANDONED,
    FILE_NAME,
    RESULTS,
    SCHEMA,
    SCHEMA_VERSION,
    SQLITE_CANTOPEN,
    SQLITE_CORRUPT,
    SQLITE_FULL,
    SQLITE_IOERR,
    SQLITE_NOTADB,
    SQLITE_PERM,
    SQLITE_READONLY,
    GameInfo,
    NewGame,
    default_journal_path,
    insert_game,
    result_code,
    row_info,
    say,
    set_wal,
    utc_now,
)
from controller.journal.lock import (
    WriterLock,
    lock_path,
    os_problem,
    why_not_readable,
    why_not_writable,
)
from engine.errors import DvonnError, InvalidMoveError
from engine.move import Move

__all__ = ["ABANDONED", "FILE_NAME", "IMPORTED", "RESULTS", "SCHEMA_VERSION",
           "DamagedJournalError", "GameInfo", "Journal", "JournalError", "NewGame",
           "default_journal_path"]

#: The source of every imported game starts so (``import:SITE:FILE``): the table never
#: resumes such a game (see Journal.unfinished).
IMPORTED = "import:"


class JournalError(DvonnError):
    """The journal file cannot be used, or a game id / operation is wrong; the message says why."""


class DamagedJournalError(JournalError):
    """The journal is a SQLite file with damaged pages (a writer recovers it; see Journal)."""


class Journal:
    """The game store. A context manager; ``close()`` is safe twice.

    ``now`` returns the ISO time stamps written (injectable for tests). One Journal may be
    shared between threads (e.g. the game loop and a web view): calls are serialised.
    """

    def __init__(self, path: str | Path | None = None, *, now: Callable[[], str] | None = None,
                 readonly: bool = False, writer: bool = False,
                 notify: Callable[[str], None] | None = None):
        """``readonly``: never create or change anything (a missing or empty file is a
        JournalError). ``writer``: hold the writer lock while open and recover a damaged
        file; ``notify`` gets the one-line report of a recovery (default: stderr)."""
        if readonly and writer:
            raise ValueError("a journal is opened readonly or as the writer, not both")
        self.path = Path(path).expanduser() if path is not None else default_journal_path()
        self.readonly = readonly
        self._now = now or utc_now
        self._notify = notify or say
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._writer: WriterLock | None = None
        if self.path.exists() and not self.path.is_file():
            raise JournalError(Msg("journal {path} is not a file", path=self.path))
        if readonly:
            self._conn = self._open_readonly()
            return
        self._make_folder()
        try:
            if writer:
                self._writer = self._take_lock()
            try:
                conn = self._open_writable()
            except DamagedJournalError as exc:
                if not writer:
                    raise
                conn = self._recover(exc)
        except BaseException:
            if self._writer is not None:
                self._writer.release()
            raise
        self._conn = conn

    # Never open the database file itself with another descriptor (to peek at its header,
    # say): closing any descriptor of a file drops every POSIX lock this process holds on
    # it, SQLite's included, and another process may then checkpoint and delete the -wal
    # under this one's connections.

    def _make_folder(self) -> None:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(
                Msg("cannot create the journal folder {folder}: {os_problem_exc}",
                    folder=folder, os_problem_exc=os_problem(exc))
            ) from exc

    def _take_lock(self) -> WriterLock:
        try:
            return WriterLock(self.path)
        except OSError as exc:
            reason = why_not_writable(self.path) or os_problem(exc)
            raise JournalError(Msg("journal {path} cannot be written: {reason} (making its lock "
                                   "file {name})",
                                   path=self.path, reason=reason,
                                   name=lock_path(self.path).name)) from exc

    def _open_writable(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, timeout=10.0, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise self._access_error(exc, "open") from exc
        try:
            self._setup(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_readonly(self) -> sqlite3.Connection:
        """A connection that cannot create or change a file, not even SQLite's -wal/-shm.

        Without a ``-wal`` file no connection is open and every commit is in the main
        file, so it is read as immutable (a plain read-only open would create -wal and
        -shm); with one, read-only through the WAL as usual.
        """
        where = f"journal {self.path}"
        if not self.path.exists():
            problem = why_not_readable(self.path)
            raise JournalError(
                Msg("{where} cannot be read: {why_not_readable_path}", where=where,
                    why_not_readable_path=problem) if problem else
                Msg("no journal at {path} (no games were stored there)", path=self.path))
        if not os.access(self.path, os.R_OK):
            raise JournalError(Msg("{where} cannot be read: {why_not_readable_path}",
                                   where=where, why_not_readable_path=why_not_readable(self.path)))
        if self.path.stat().st_size == 0:
            raise JournalError(Msg("{where} is an empty file, not a dvonn-board journal",
                                   where=where))
        uri = recover.read_only_uri(self.path)
        if not self.path.with_name(self.path.name + "-wal").exists():
            uri += "&immutable=1"
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10.0,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise self._access_error(exc, "read") from exc
        try:
            self._check(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _access_error(self, exc: sqlite3.Error, doing: str) -> JournalError:
        """A SQLite error while opening or writing, in words naming the cause and the path."""
        where = f"journal {self.path}"
        code = result_code(exc)
        if code in (SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM) or (
                code == SQLITE_IOERR and doing != "read"):
            reason = why_not_readable(self.path) if doing == "read" else (
                why_not_readable(self.path) or why_not_writable(self.path))
            if reason:
                verb = "read" if doing == "read" else "written"
                return JournalError(Msg("{where} cannot be {verb}: {reason}",
                                        where=where, verb=verb, reason=reason))
        if code == SQLITE_FULL:
            return JournalError(Msg("{where} cannot be written: the disk is full ({exc})",
                                    where=where, exc=exc))
        if code == SQLITE_CORRUPT:
            return DamagedJournalError(Msg("{where} is damaged ({exc})", where=where, exc=exc))
        if code == SQLITE_NOTADB:
            return JournalError(Msg("{where} is not a SQLite database ({exc}); if it is a damaged "
                                    "journal, move it away and start again",
                                    where=where, exc=exc))
        return JournalError(Msg("{where}: cannot {doing}: {exc}",
                                where=where, doing=doing, exc=exc))

    def _recover(self, damage: DamagedJournalError) -> sqlite3.Connection:
        """Move the damaged file aside (never deleted), carry what is readable into a new one."""
        try:
            aside = recover.move_aside(self.path)
        except OSError as exc:
            raise JournalError(Msg("{damage}; it cannot be moved aside: {os_problem_exc}",
                                   damage=damage, os_problem_exc=os_problem(exc))) from exc
        found = recover.salvage(aside)
        conn = self._open_writable()
        try:
            recover.restore(conn, found)
        except sqlite3.Error as exc:
            conn.close()
            raise JournalError(Msg("{damage}; it was moved to {aside}, but the recovery failed: "
                                   "{exc}",
                                   damage=damage, aside=aside, exc=exc)) from exc
        cut = f", {len(found.cut)} of them cut short" if found.cut else ""
        self._notify(f"{damage}: kept it as {aside} and recovered {len(found.games)} games "
                     f"({found.action_count} actions{cut}) into a new journal")
        return conn

    # -- opening ---------------------------------------------------------------------------

    def _read_state(self, conn: sqlite3.Connection) -> tuple[int, set[str]]:
        """Integrity, schema version and tables, read in one transaction (another opener
        may create the schema between two separate reads)."""
        where = f"journal {self.path}"
        try:
            conn.execute("BEGIN")
            try:
                check = conn.execute("PRAGMA quick_check").fetchall()
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            finally:
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._access_error(exc, "read") from exc
        if check != [("ok",)]:
            problems = "; ".join(" ".join(str(r[0]).split()) for r in check[:3])
            raise DamagedJournalError(Msg("{where} is damaged: {problems}",
                                          where=where, problems=problems))
        return int(version), tables

    def _check(self, conn: sqlite3.Connection) -> None:
        """A read-only opener's checks: the file must already be a journal of this version."""
        where = f"journal {self.path}"
        version, tables = self._read_state(conn)
        self._check_version(version, tables)
        if version < SCHEMA_VERSION:
            held = f"holds other data (tables {', '.join(sorted(tables))})" if tables else \
                "holds no tables"
            raise JournalError(Msg("{where} {held}: not a dvonn-board journal",
                                   where=where, held=held))

    def _check_version(self, version: int, tables: set[str]) -> None:
        where = f"journal {self.path}"
        if version > SCHEMA_VERSION:
            raise JournalError(
                Msg("{where} has schema version {version}, newer than this program's "
                    "{SCHEMA_VERSION}: update dvonn-board",
                    where=where, version=version, SCHEMA_VERSION=SCHEMA_VERSION)
            )
        if version == SCHEMA_VERSION and not {"games", "actions"} <= tables:
            raise JournalError(Msg("{where} claims schema {version} but lacks its tables",
                                   where=where, version=version))

    def _setup(self, conn: sqlite3.Connection) -> None:
        where = f"journal {self.path}"
        try:
            mode = set_wal(conn)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise self._access_error(exc, "open") from exc
        version, tables = self._read_state(conn)
        if str(mode).lower() != "wal":
            raise JournalError(Msg("{where}: cannot switch to WAL mode (got {mode!r})",
                                   where=where, mode=mode))
        self._check_version(version, tables)
        if version == SCHEMA_VERSION:
            return
        if tables:
            raise JournalError(
                Msg("{where} holds other data (tables {value}); refusing to touch it",
                    where=where, value=', '.join(sorted(tables)))
            )
        try:
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                conn.execute("COMMIT")  # another process created it while we waited
                return
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise self._access_error(exc, "initialise") from exc

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Close the database (safe to call twice)."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                conn.close()
            writer, self._writer = self._writer, None
            if writer is not None:
                writer.release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r})"

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(Msg("journal {path} is closed", path=self.path))
        return self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One durable transaction: committed (and synced) when the block ends."""
        with self._lock:
            conn = self._db
            if self.readonly:
                raise JournalError(Msg("journal {path} was opened read-only", path=self.path))
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._access_error(exc, "write") from exc
            try:
                yield conn
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise self._access_error(exc, "write") from exc
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise self._access_error(exc, "write") from exc

    # -- games -----------------------------------------------------------------------------

    def new_game(self, *, white: str = "White", black: str = "Black", source: str = "table") -> int:
        """Start a game and return its id."""
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO games (white, black, source, started) VALUES (?, ?, ?, ?)",
                (white, black, source, self._now()),
            )
            game_id = cur.lastrowid
        assert game_id is not None
        return game_id

    def import_games(self, games: list[NewGame]) -> list[int]:
        """Store whole games (imported records) in one transaction: all of them or, on an
        error, none. Their actions are checked as ``append`` checks them; the result must be
        one of RESULTS, ABANDONED or None (unfinished). Returns the new ids in order."""
        checked = []
        for n, game in enumerate(games):
            try:
                actions = tuple(str(Move.parse(a)) for a in game.actions)
            except InvalidMoveError as exc:
                raise JournalError(Msg("game {value} to import: cannot store action: {exc}",
                                       value=n + 1, exc=exc)) \
                    from exc
            if game.result not in (*RESULTS, ABANDONED, None):
                raise JournalError(Msg("game {value} to import: result {result!r} is not one of "
                                       "{value2}",
                                       value=n + 1, result=game.result, value2=', '.join(RESULTS)))
            checked.append(NewGame(game.white, game.black, game.source, game.started, actions,
                                   game.finished, game.result, game.white_score,
                                   game.black_score))
        with self._write() as conn:
            now = self._now()
            return [insert_game(conn, game, now) for game in checked]

    def append(self, game_id: int, action: str) -> int:
        """Store one action ('C3', 'C3D3', 'PASS'); return its index once it is on disk.

        The notation is checked and stored upper case; a finished game takes no actions.
        """
        try:
            text = str(Move.parse(action))
        except InvalidMoveError as exc:
            raise JournalError(Msg("game {game_id}: cannot store action: {exc}",
                                   game_id=game_id, exc=exc)) from exc
        with self._write() as conn:
            self._open_row(conn, game_id)
            (index,) = conn.execute(
                "SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,)
            ).fetchone()
            conn.execute(
                "INSERT INTO actions (game_id, idx, action, at) VALUES (?, ?, ?, ?)",
                (game_id, index, text, self._now()),
            )
        return int(index)

    def take_back(self, game_id: int) -> str | None:
        """Remove the last action and return it (None when there is none).

        Taking back the last action of a finished (not abandoned) game reopens it.
        """
        with self._write() as conn:
            row = self._row(conn, game_id)
            if row[6] == ABANDONED:
                raise JournalError(Msg("game {game_id} was abandoned; nothing can be taken back",
                                       game_id=game_id))
            last = conn.execute(
                "SELECT idx, action FROM actions WHERE game_id = ? ORDER BY idx DESC LIMIT 1",
                (game_id,),
            ).fetchone()
            if last is None:
                return None
            conn.execute("DELETE FROM actions WHERE game_id = ? AND idx = ?", (game_id, last[0]))
            if row[5] is not None:
                conn.execute(
                    "UPDATE games SET finished = NULL, result = NULL, white_score = NULL, "
                    "black_score = NULL WHERE id = ?",
                    (game_id,),
                )
        return str(last[1])

    def finish(self, game_id: int, *, white_score: int, black_score: int, result: str) -> None:
        """Mark a game over. ``result`` is one of RESULTS (see the module docstring)."""
        if result not in RESULTS:
            raise JournalError(
                Msg("game {game_id}: result {result!r} is not one of {value}",
                    game_id=game_id, result=result, value=', '.join(RESULTS))
            )
        for name, score in (("white", white_score), ("black", black_score)):
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise JournalError(Msg("game {game_id}: {name} score {score!r} is not a count",
                                       game_id=game_id, name=name, score=score))
        with self._write() as conn:
            self._open_row(conn, game_id)
            conn.execute(
                "UPDATE games SET finished = ?, result = ?, white_score = ?, black_score = ? "
                "WHERE id = ?",
                (self._now(), result, white_score, black_score, game_id),
            )

    def abandon(self, game_id: int) -> None:
        """Close an unfinished game without a result (it keeps its actions)."""
        with self._write() as conn:
            self._open_row(conn, game_id)
            conn.execute(
                "UPDATE games SET finished = ?, result = ? WHERE id = ?",
                (self._now(), ABANDONED, game_id),
            )

    def delete(self, game_id: int) -> None:
        """Remove a game and its actions for good."""
        with self._write() as conn:
            self._row(conn, game_id)
            conn.execute("DELETE FROM actions WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))

    # -- reading ---------------------------------------------------------------------------

    _SELECT = (
        "SELECT g.id, g.white, g.black, g.started, g.finished, g.result, g.white_score, "
        "g.black_score, (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id), g.source "
        "FROM games g"
    )

    def games(self) -> list[GameInfo]:
        """Every stored game, oldest first."""
        rows = self._read(self._SELECT + " ORDER BY g.id", ())
        return [row_info(row) for row in rows]

    def game(self, game_id: int) -> GameInfo:
        """One game; an unknown id raises JournalError naming it."""
        self._check_id(game_id)
        rows = self._read(self._SELECT + " WHERE g.id = ?", (game_id,))
        if not rows:
            raise self._unknown(game_id)
        return row_info(rows[0])

    def unfinished(self) -> GameInfo | None:
        """The most recently started game that is not finished, or None. An imported game
        (source ``import:...``) is never one: the table does not resume it."""
        rows = self._read(self._SELECT + " WHERE g.finished IS NULL AND g.source NOT LIKE ? "
                          "ORDER BY g.id DESC LIMIT 1", (IMPORTED + "%",))
        return row_info(rows[0]) if rows else None

    def actions(self, game_id: int) -> list[str]:
        """The game's actions in order ('C3', 'C3D3', 'PASS')."""
        with self._lock:
            self.game(game_id)
            rows = self._read(
                "SELECT action FROM actions WHERE game_id = ? ORDER BY idx", (game_id,)
            )
        return [str(r[0]) for r in rows]

    def check(self) -> list[str]:
        """Problems found by SQLite's integrity check and the journal's own (empty if none)."""
        problems = [str(r[0]) for r in self._read("PRAGMA integrity_check", ()) if r[0] != "ok"]
        for game_id, count, top in self._read(
            "SELECT game_id, COUNT(*), MAX(idx) FROM actions GROUP BY game_id", ()
        ):
            if top != int(str(count)) - 1:
                problems.append(f"game {game_id}: action indices are not 0..{count}-1")
        orphans = self._read(
            "SELECT COUNT(*) FROM actions WHERE game_id NOT IN (SELECT id FROM games)", ()
        )
        if orphans[0][0]:
            problems.append(f"{orphans[0][0]} actions belong to no game")
        return problems

    # -- helpers ---------------------------------------------------------------------------

    def _read(self, sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
        try:
            with self._lock:
                return list(self._db.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            raise JournalError(Msg("journal {path}: cannot read: {exc}",
                                   path=self.path, exc=exc)) from exc

    def _unknown(self, game_id: int) -> JournalError:
        return JournalError(Msg("no game with id {game_id!r} in the journal {path}",
                                game_id=game_id, path=self.path))

    def _check_id(self, game_id: int) -> None:
        """An id SQLite cannot even hold (beyond 64 bits) names no game."""
        if not -(2**63) <= game_id < 2**63:
            raise self._unknown(game_id)

    def _row(self, conn: sqlite3.Connection, game_id: int) -> tuple[object, ...]:
        self._check_id(game_id)
        row = conn.execute(
            "SELECT id, white, black, source, started, finished, result FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise self._unknown(game_id)
        return tuple(row)

    def _open_row(self, conn: sqlite3.Connection, game_id: int) -> tuple[object, ...]:
        row = self._row(conn, game_id)
        if row[5] is not None:
            raise JournalError(Msg("game {game_id} is already over ({value})",
                                   game_id=game_id, value=row[6]))
        return row
