"""What the table controller needs of a journal (controller.journal.store.Journal is one;
a replay that must change no file until it succeeds holds the calls in memory)."""

from __future__ import annotations

from typing import Protocol


class JournalLike(Protocol):
    """The part of controller.journal.store.Journal the controller uses."""

    def new_game(self, *, white: str = ..., black: str = ..., source: str = ...) -> int: ...
    def append(self, game_id: int, action: str) -> int: ...
    def take_back(self, game_id: int) -> str | None: ...
    def finish(self, game_id: int, *, white_score: int, black_score: int, result: str) -> None: ...
    def abandon(self, game_id: int) -> None: ...
    def actions(self, game_id: int) -> list[str]: ...


def unfinished(journal: JournalLike) -> int | None:
    """The id of the journal's unfinished game, if it has one."""
    info = getattr(journal, "unfinished", lambda: None)()
    return None if info is None else int(info.id)
