"""Journal.import_games (``games import``): whole games in one transaction, all or none; an
imported unfinished game is never the one the table resumes."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal.store import Journal, JournalError, NewGame


def game(actions: tuple[str, ...], result: str | None = None, source: str = "import:x.sgf",
         ) -> NewGame:
    scores = (3, 1) if result else (None, None)
    return NewGame("Ann", "Bob", source, "2008-11-02T23:21:29+00:00", actions,
                   "2008-11-02T23:21:29+00:00" if result else None, result, *scores)


def test_games_are_stored_whole_or_not_at_all(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as journal:
        ids = journal.import_games([game(("c3", "D3"), "white"), game(("E3",))])
        assert ids == [1, 2] and journal.actions(1) == ["C3", "D3"]
        one = journal.game(1)
        assert (one.white, one.source, one.started, one.result, one.white_score) == \
            ("Ann", "import:x.sgf", "2008-11-02T23:21:29+00:00", "white", 3)
        with pytest.raises(JournalError, match="game 2 to import: cannot store action"):
            journal.import_games([game(("C3",)), game(("C3", "Z9"))])
        with pytest.raises(JournalError, match="game 1 to import: result 'won'"):
            journal.import_games([game(("C3",), "won")])
        assert len(journal.games()) == 2


def test_an_imported_unfinished_game_is_not_resumed(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as journal:
        table = journal.new_game()
        journal.import_games([game(("C3",))])
        info = journal.unfinished()
        assert info is not None and info.id == table
        journal.abandon(table)
        assert journal.unfinished() is None
