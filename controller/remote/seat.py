"""What a remote seat is to the table (controller.players.seats has the two kinds).

A seat differs from a computer player in one way: it never blocks. :meth:`RemoteSeat.poll`
says whether the remote side's action for this position has arrived (None: not yet), and
:meth:`RemoteSeat.tell` hands it the table's actions so far, every time they change (telling
the same list twice changes nothing).
"""

from __future__ import annotations

from typing import TypeGuard

from engine.game import Game
from engine.move import Move


class RemoteSeat:
    """The do-nothing parts of a seat; subclasses override :meth:`poll` and :meth:`tell`."""

    remote = True
    name = "remote"

    def __init__(self, side: str) -> None:
        self.side = side
        #: What the players should know about the seat ('' when nothing): waiting, cut off,
        #: the tables disagree.
        self.note: str = ""

    def new_game(self, side: str) -> None:
        self.side = side

    def poll(self, game: Game) -> Move | None:
        """The remote side's action in ``game`` if it has arrived (legal there), else None."""
        return None

    def tell(self, game: Game) -> None:
        """The table's actions so far (``game.move_stack``), after every change."""

    def pump(self) -> bool:
        """Take in what arrived from outside; True when something changed (the table then
        updates and redraws)."""
        return False

    def observe(self, game: Game, move: Move) -> None:
        pass

    def choose(self, game: Game) -> Move:  # pragma: no cover - seats are polled, never asked
        raise NotImplementedError("a remote seat is polled, never asked to choose")

    def end_game(self, game: Game) -> None:
        pass

    def close(self) -> None:
        pass


def is_remote(player: object) -> TypeGuard[RemoteSeat]:
    """True for a seat (never blocks; polled), False for a computer player."""
    return isinstance(player, RemoteSeat)
