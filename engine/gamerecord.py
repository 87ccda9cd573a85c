"""A game as a record holds it: the actions, the players and other tags, and how it ended.

Kept apart from the readers (engine.records: Little Golem, move lists, JSON; engine.boardspace:
boardspace.net SGF) so that each reader can build one and records.load_record_file can call
them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.game import Game
from engine.move import Move

#: Longest piece of the input an error message quotes.
EXCERPT = 40
#: What a record says about the end of its game (GameRecord.status).
FINISHED, RESIGNED, UNFINISHED = "finished", "resigned", "unfinished"
#: GameRecord.status of a game lost on time (GameRecord.timeout: whose flag fell).
OUT_OF_TIME = "out of time"


def excerpt(value: object, limit: int = EXCERPT) -> str:
    """``repr`` of ``value`` for an error line, cut to about ``limit`` characters (a cut
    string names its full length)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class GameTime:
    """The time a game was played with, as a record keeps it (plain values).

    ``limit``: seconds each side had for the whole game (SGF ``TM``); ``increment``: the
    Fischer increment in seconds after each action (SGF ``OT[Fischer 10]``); ``left``: the
    acting side's seconds left after each action, by ply (SGF ``BL``/``WL``; None where the
    record does not say). A record may hold any part of it.
    """

    limit: float | None = None
    increment: float = 0.0
    left: tuple[float | None, ...] = ()

    def left_after(self, ply: int) -> float | None:
        """The acting side's seconds left after action ``ply`` (0-based), or None."""
        return self.left[ply] if 0 <= ply < len(self.left) else None


@dataclass
class GameRecord:
    """A parsed record: the actions (forced placement included) and what else it said.

    ``tags`` holds what the record names: ``White``, ``Black``, ``Date`` (ISO 8601 when the
    record's date could be read so, else as written), ``Site``, ``Game`` (the site's name of
    the game) and any other tag a Little Golem record carries.
    """

    moves: list[Move]
    tags: dict[str, str] = field(default_factory=dict)
    #: 'w' or 'b' when that side resigned at the end.
    resigned: str | None = None
    #: The record's format: 'lg' (Little Golem or a move list), 'json' or 'sgf'.
    format: str = "lg"
    #: 'w' or 'b' when that side lost on time (its flag fell) at the end.
    timeout: str | None = None
    #: The time control and clock readings, when the record has them.
    time: GameTime | None = None

    @property
    def white(self) -> str:
        return self.tags.get("White", "")

    @property
    def black(self) -> str:
        return self.tags.get("Black", "")

    @property
    def date(self) -> str:
        return self.tags.get("Date", "")

    def game(self) -> Game:
        """Replay the actions; raises IllegalMoveError naming the ply."""
        return replay(self.moves)

    def status(self, game: Game | None = None) -> str:
        """FINISHED (no one can move), RESIGNED, OUT_OF_TIME or UNFINISHED; ``game`` is the
        replayed game when the caller has it already."""
        if self.resigned is not None:
            return RESIGNED
        if self.timeout is not None:
            return OUT_OF_TIME
        played = game if game is not None else self.game()
        return FINISHED if played.is_over() else UNFINISHED


def replay(moves: Sequence[Move]) -> Game:
    """Play ``moves`` from the empty board, raising IllegalMoveError that names the ply."""
    game = Game()
    for m in moves:
        game.push(m)
    return game
