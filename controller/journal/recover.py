"""Reading what can still be read from a damaged journal, to carry it into a new one.

A damaged SQLite file usually has a few bad pages: a query that crosses one fails, the others
still work. So games are read one id at a time when the whole table cannot be, and a game's
actions one index at a time when its list cannot be; a game keeps the longest run of actions
from its start that are notation and legal. The damaged file is only read (read-only URI).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from controller.i18n import Msg
from engine.errors import DvonnError
from engine.game import Game
from engine.move import Move

#: Game ids probed one by one when the damaged file no longer says how many there were.
MAX_PROBE = 100_000
#: Consecutive ids missing before probing stops.
PROBE_GAP = 1_000

_GAME_COLUMNS = ("id, white, black, source, started, finished, result, white_score, "
                 "black_score")

GameRow = tuple[object, ...]
ActionRow = tuple[int, str, str]


@dataclass
class Salvage:
    """What was read from a damaged journal."""

    games: list[GameRow] = field(default_factory=list)
    actions: dict[int, list[ActionRow]] = field(default_factory=dict)
    #: Games whose actions were cut short (a bad page or a bad action).
    cut: list[int] = field(default_factory=list)

    @property
    def action_count(self) -> int:
        return sum(len(a) for a in self.actions.values())


SIDE_FILES = ("", "-wal", "-shm")


def aside_name(path: Path) -> Path:
    """``games.sqlite3.damaged-20260522T101500`` (a number added if that is taken)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    base = path.with_name(f"{path.name}.damaged-{stamp}")
    candidate, n = base, 1
    while any(candidate.with_name(candidate.name + s).exists() for s in SIDE_FILES):
        candidate = base.with_name(f"{base.name}-{n}")
        n += 1
    return candidate


def move_aside(path: Path) -> Path:
    """Rename the journal and its -wal/-shm to a new name beside it (nothing is deleted).

    On failure whatever was moved is put back and the OSError raised.
    """
    aside = aside_name(path)
    moved: list[str] = []
    try:
        for suffix in SIDE_FILES:
            src = path.with_name(path.name + suffix)
            if src.exists():
                os.rename(src, aside.with_name(aside.name + suffix))
                moved.append(suffix)
    except OSError:
        for suffix in moved:
            os.rename(aside.with_name(aside.name + suffix), path.with_name(path.name + suffix))
        raise
    return aside


def read_only_uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=ro"


def salvage(path: Path) -> Salvage:
    """Everything readable from the journal file ``path`` (which is not changed)."""
    out = Salvage()
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error:
        return out
    try:
        rows = [r for r in _game_rows(conn) if isinstance(r[0], int)]
        known = {int(str(r[0])) for r in rows}
        for game_id in sorted(known | _action_game_ids(conn)):
            actions, cut = _actions(conn, game_id)
            if game_id not in known:
                if not actions:
                    continue
                rows.append((game_id, "?", "?", "recovered", actions[0][2], None, None, None,
                             None))
            out.actions[game_id] = actions
            if cut:
                out.cut.append(game_id)
        out.games = sorted(rows, key=lambda r: int(str(r[0])))
    finally:
        conn.close()
    return out


def _game_rows(conn: sqlite3.Connection) -> list[GameRow]:
    try:
        return [tuple(r) for r in conn.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY id")]
    except sqlite3.Error:
        pass
    top = _first_int(conn, "SELECT seq FROM sqlite_sequence WHERE name = 'games'",
                     "SELECT MAX(id) FROM games")
    rows: list[GameRow] = []
    missing = 0
    limit = min(top, MAX_PROBE) if top is not None else MAX_PROBE
    for game_id in range(1, limit + 1):
        try:
            row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        except sqlite3.Error:
            row = None
        if row is None:
            missing += 1
            if top is None and missing >= PROBE_GAP:
                break
            continue
        missing = 0
        rows.append(tuple(row))
    return rows


def _first_int(conn: sqlite3.Connection, *queries: str) -> int | None:
    for sql in queries:
        try:
            row = conn.execute(sql).fetchone()
        except sqlite3.Error:
            continue
        if row is not None and isinstance(row[0], int):
            return row[0]
    return None


def _action_game_ids(conn: sqlite3.Connection) -> set[int]:
    try:
        return {int(r[0]) for r in conn.execute("SELECT DISTINCT game_id FROM actions")
                if isinstance(r[0], int)}
    except sqlite3.Error:
        return set()


def _actions(conn: sqlite3.Connection, game_id: int) -> tuple[list[ActionRow], bool]:
    """The game's longest good run of actions from index 0, and whether it was cut short."""
    raw: list[tuple[object, ...]]
    cut = False
    try:
        raw = [tuple(r) for r in conn.execute(
            "SELECT idx, action, at FROM actions WHERE game_id = ? ORDER BY idx", (game_id,))]
    except sqlite3.Error:
        raw, cut = [], True
        next_idx = 0
        while True:
            try:
                row = conn.execute("SELECT idx, action, at FROM actions WHERE game_id = ? AND "
                                   "idx = ?", (game_id, next_idx)).fetchone()
            except sqlite3.Error:
                break
            if row is None:
                break
            raw.append(tuple(row))
            next_idx += 1
    good: list[ActionRow] = []
    game = Game()
    for expected, (idx, action, at) in enumerate(raw):
        try:
            if idx != expected or not isinstance(action, str):
                raise DvonnError(Msg("gap or bad row"))
            move = Move.parse(action)
            game.push(move)
        except (DvonnError, ValueError):
            return good, True
        good.append((expected, str(move), str(at)))
    return good, cut


def restore(conn: sqlite3.Connection, found: Salvage) -> None:
    """Write salvaged games into a new, empty journal (same ids), in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for row in found.games:
            conn.execute(f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                         _clean(row))
            game_id = int(str(row[0]))
            conn.executemany("INSERT INTO actions (game_id, idx, action, at) VALUES (?,?,?,?)",
                             [(game_id, i, a, at) for i, a, at in found.actions.get(game_id, [])])
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _clean(row: GameRow) -> tuple[object, ...]:
    """A salvaged games row made fit for the schema (a damaged row may hold anything)."""
    def text(v: object) -> str:
        return "?" if v is None else str(v)

    def opt_text(v: object) -> str | None:
        return None if v is None else str(v)

    def opt_int(v: object) -> int | None:
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    return (int(str(row[0])), text(row[1]), text(row[2]), text(row[3]), text(row[4]),
            opt_text(row[5]), opt_text(row[6]), opt_int(row[7]), opt_int(row[8]))
