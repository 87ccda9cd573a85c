"""A journal held in memory, written to the real one only when a replay has succeeded.

A camera recording's bad image shows only when the replay decodes it; holding the journal's
writes until the end keeps a failed replay from changing (or creating) the journal file.
"""

from __future__ import annotations

from typing import Any


class JournalBuffer:
    """The calls TableController makes on a journal (controller.table.journaling.JournalLike),
    kept in order; :meth:`flush` makes them on a real journal."""

    def __init__(self) -> None:
        self._calls: list[tuple[str, int, tuple[Any, ...], dict[str, Any]]] = []
        self._games: dict[int, list[str]] = {}

    def new_game(self, *, white: str = "White", black: str = "Black",
                 source: str = "table") -> int:
        game_id = len(self._games) + 1
        self._games[game_id] = []
        self._calls.append(("new_game", game_id, (),
                            {"white": white, "black": black, "source": source}))
        return game_id

    def append(self, game_id: int, action: str) -> int:
        self._games[game_id].append(action)
        self._calls.append(("append", game_id, (action,), {}))
        return len(self._games[game_id]) - 1

    def take_back(self, game_id: int) -> str | None:
        actions = self._games[game_id]
        self._calls.append(("take_back", game_id, (), {}))
        return actions.pop() if actions else None

    def finish(self, game_id: int, *, white_score: int, black_score: int, result: str) -> None:
        self._calls.append(("finish", game_id, (), {"white_score": white_score,
                                                    "black_score": black_score,
                                                    "result": result}))

    def abandon(self, game_id: int) -> None:
        self._calls.append(("abandon", game_id, (), {}))

    def actions(self, game_id: int) -> list[str]:
        return list(self._games[game_id])

    def flush(self, journal: Any) -> None:
        """Make every held call on ``journal`` (its own game ids), then forget them."""
        ids: dict[int, int] = {}
        for name, game_id, args, kwargs in self._calls:
            if name == "new_game":
                ids[game_id] = journal.new_game(**kwargs)
            else:
                getattr(journal, name)(ids[game_id], *args, **kwargs)
        self._calls.clear()
