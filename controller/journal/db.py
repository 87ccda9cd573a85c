"""The journal's SQLite layer: schema, result codes, rows as :class:`GameInfo`, WAL mode.

Kept apart from :mod:`controller.journal.store` (the game store's operations) so each stays short.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SCHEMA_VERSION = 1
FILE_NAME = "games.sqlite3"
#: ``white out of time``: White's flag fell and Black wins (controller.table.timer)
RESULTS = ("white", "black", "tie", "white resigns", "black resigns", "white out of time",
           "black out of time")
ABANDONED = "abandoned"

SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    source TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT,
    result TEXT,
    white_score INTEGER,
    black_score INTEGER
);
CREATE TABLE actions (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    action TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
) WITHOUT ROWID;
CREATE INDEX games_unfinished ON games(finished, id);
"""


# SQLite primary result codes (sqlite3.Error.sqlite_errorcode & 0xff).
SQLITE_PERM, SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_CANTOPEN = 3, 8, 11, 14
SQLITE_FULL, SQLITE_NOTADB, SQLITE_IOERR = 13, 26, 10


def result_code(exc: sqlite3.Error) -> int:
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def say(message: str) -> None:
    print(f"dvonn-board: {message}", file=sys.stderr)


@dataclass(frozen=True)
class GameInfo:
    """One stored game: players, times (ISO 8601, UTC), result, scores and action count."""

    id: int
    white: str
    black: str
    started: str
    finished: str | None
    result: str | None
    white_score: int | None
    black_score: int | None
    actions: int
    source: str

    @property
    def is_finished(self) -> bool:
        """True once the game ended, was resigned or abandoned."""
        return self.finished is not None


@dataclass(frozen=True)
class NewGame:
    """A whole game to store at once (``Journal.import_games``): an imported record."""

    white: str
    black: str
    source: str
    started: str
    actions: tuple[str, ...]
    finished: str | None = None
    result: str | None = None
    white_score: int | None = None
    black_score: int | None = None


def insert_game(conn: sqlite3.Connection, game: NewGame, now: str) -> int:
    """Insert ``game`` and its actions (inside the caller's transaction); its new id."""
    cur = conn.execute(
        "INSERT INTO games (white, black, source, started, finished, result, white_score, "
        "black_score) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (game.white, game.black, game.source, game.started, game.finished, game.result,
         game.white_score, game.black_score),
    )
    game_id = cur.lastrowid
    assert game_id is not None
    conn.executemany(
        "INSERT INTO actions (game_id, idx, action, at) VALUES (?, ?, ?, ?)",
        [(game_id, i, action, now) for i, action in enumerate(game.actions)],
    )
    return int(game_id)


def default_journal_path() -> Path:
    """Where the journal lives when no path is given (see the module docstring)."""
    env = os.environ.get("DVONN_DATA_DIR")
    if env:
        return Path(env).expanduser() / FILE_NAME
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "dvonn-board" / FILE_NAME


def row_info(row: tuple[object, ...]) -> GameInfo:
    def opt_int(v: object) -> int | None:
        return None if v is None else int(str(v))

    return GameInfo(
        id=int(str(row[0])),
        white=str(row[1]),
        black=str(row[2]),
        started=str(row[3]),
        finished=None if row[4] is None else str(row[4]),
        result=None if row[5] is None else str(row[5]),
        white_score=opt_int(row[6]),
        black_score=opt_int(row[7]),
        actions=int(str(row[8])),
        source=str(row[9]),
    )


def set_wal(conn: sqlite3.Connection, patience: float = 10.0) -> str:
    """Switch to WAL mode; returns the mode now in force.

    Converting a brand-new file while another connection opens it fails at once with
    'database is locked' (SQLite does not wait there), so retry briefly.
    """
    deadline = time.monotonic() + patience
    pause = 0.002
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
