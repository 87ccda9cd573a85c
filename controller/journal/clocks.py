"""The game clock's state in the journal: one row per game and ply, written with each action.

A table ``clocks`` beside ``games`` and ``actions`` (made on first use, so journals written
before it still open; a read-only journal without it has no clocks): ``state`` is the JSON of
controller.table.clock.GameClock.state (the time control and both sides' remaining seconds)
after action number ``idx`` (the game's ply). A resumed game takes the row of the highest ply
not beyond its own; a take-back leaves rows behind that the next action's row replaces.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from controller.i18n import Msg
from controller.journal.store import Journal, JournalError

TABLE = """
CREATE TABLE IF NOT EXISTS clocks (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
) WITHOUT ROWID
"""


class ClockStore:
    """Saves and loads a game's clock state in ``journal`` (controller.table.timer.ClockStore)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._made = False

    def save(self, game_id: int, ply: int, state: dict[str, object]) -> None:
        """Keep ``state`` as the clocks after action ``ply`` (durably, as actions are)."""
        text = json.dumps(state, separators=(",", ":"))
        with self.journal._write() as conn:  # the journal's own transaction
            if not self._made:
                conn.execute(TABLE)
                self._made = True
            conn.execute("INSERT OR REPLACE INTO clocks (game_id, idx, state) VALUES (?, ?, ?)",
                         (game_id, ply, text))

    def load(self, game_id: int, ply: int | None = None) -> dict[str, object] | None:
        """The clock state of the highest ply up to ``ply`` (None: any), or None."""
        rows = self._select("SELECT idx, state FROM clocks WHERE game_id = ? AND idx <= ? "
                            "ORDER BY idx DESC LIMIT 1",
                            (game_id, (1 << 62) if ply is None else ply))
        return _state(game_id, rows[0][1]) if rows else None

    def history(self, game_id: int) -> list[tuple[int, dict[str, object]]]:
        """Every kept state of the game as (ply, state), by ply (``games export``'s time)."""
        rows = self._select("SELECT idx, state FROM clocks WHERE game_id = ? ORDER BY idx",
                            (game_id,))
        out = []
        for idx, text in rows:
            state = _state(game_id, text)
            if state is not None:
                out.append((int(str(idx)), state))
        return out

    def _select(self, sql: str, args: tuple[object, ...]) -> list[tuple[object, ...]]:
        try:
            return list(self.journal._read(sql, args))  # the journal's own reading
        except JournalError as exc:
            if isinstance(exc.__cause__, sqlite3.OperationalError) and \
                    "no such table" in str(exc.__cause__):
                return []  # a journal written before clocks were kept
            raise


def _state(game_id: int, text: object) -> dict[str, object] | None:
    try:
        data: Any = json.loads(str(text))
    except ValueError as exc:
        raise JournalError(Msg("game {game_id}: its clock state is damaged: {exc}",
                               game_id=game_id, exc=exc)) from exc
    return data if isinstance(data, dict) else None
