"""Walking the physical board through a recorded game: ``play --review ID`` (issue 26).

The record plays both sides the way the computer opponent plays one
(:mod:`controller.players.opponent`): its next action lights as ``suggest`` (the cell to place
on, or the stack and where it goes), the person carries it out and it commits as usual; a
different action is never accepted: a mismatch lights the cells changed and the record's
action until the board is put back. So a player sets up and replays a master game move by
move on the table.

The buttons (:class:`WalkthroughController`): ``undo`` takes the last action back (the table
must follow: a mismatch until it does, then the action lights again); ``next`` steps forward
without waiting for the hands: the record's action is played on the controller and the table
must follow (a mismatch on the cells to change until the board matches). While the controller
asks which cell a stack landed on, ``next`` keeps its usual meaning (the next candidate).
After the record's last action (a resigned or unfinished game) the people may play on, or undo.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from controller.i18n import Msg, side
from controller.players.opponent import Opponent
from controller.table.inference import LIFTED, MISMATCH
from controller.table.session import TableController
from engine.game import Game
from engine.move import PASS, Move


class _Record:
    """Plays the recorded action for the position (a Player to the Opponent's hooks)."""

    def __init__(self, moves: Sequence[Move]) -> None:
        self.moves = list(moves)

    def follows(self, game: Game) -> bool:
        """Whether ``game`` is the record so far and the record goes on from it."""
        return game.ply < len(self.moves) and list(game.move_stack) == self.moves[:game.ply]

    def choose(self, game: Game) -> Move:
        return self.moves[game.ply]

    def close(self) -> None:
        pass


class Walkthrough(Opponent):
    """The record as both sides' "computer" (see the module docstring). ``title`` names the
    game in the messages (e.g. "game 12")."""

    def __init__(self, moves: Sequence[Move], *, title: str = "the record",
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("human", "human", clock=clock)
        self.record = _Record(moves)
        self.title = title

    @property
    def total(self) -> int:
        return len(self.record.moves)

    def followed(self, game: Game) -> int:
        """How many of the record's actions ``game`` played as recorded."""
        n = 0
        for played, recorded in zip(game.move_stack, self.record.moves, strict=False):
            if played != recorded:
                break
            n += 1
        return n

    def done(self, ctl: TableController) -> bool:
        """The record is played to its end and the table shows it (nothing to put right)."""
        game = ctl.game
        return (game.ply == self.total and self.followed(game) == self.total
                and not ctl.blocked and not ctl.removals
                and ctl.explanation.kind not in (LIFTED, MISMATCH))

    def computer(self, game: Game) -> Any:
        if game.is_over() or not self.record.follows(game):
            return None
        return self.record

    def next_action(self, game: Game) -> Move | None:
        """The record's action in ``game``, None past its end or off the record."""
        return self.record.choose(game) if self.computer(game) is not None else None

    def message(self, ctl: TableController) -> str:
        game = ctl.game
        parts = [self.note] if self.note else []
        move = self.next_action(game)
        if self.expected is not None:
            parts.append(Msg("the record plays {action}: put the board back and play it",
                             action=str(self.expected)))
        elif move is not None:
            parts.append(Msg("review {ply}/{total}: {side} plays {action} (next: step on, "
                             "undo: back)", ply=game.ply + 1, total=self.total,
                             side=side(game.turn), action=str(move)))
        elif game.ply == self.total and list(game.move_stack) == self.record.moves:
            if not game.is_over():
                parts.append(Msg("review: {title} ends here after {total} actions (undo steps "
                                 "back)", title=self.title, total=self.total))
        elif not game.is_over():
            parts.append(Msg("review: off the record (undo to go back to it)"))
        return Msg.joined(" | ", parts)


class WalkthroughController(TableController):
    """A TableController whose ``next`` button steps the record on (module docstring). The
    walkthrough is attached afterwards (:meth:`Walkthrough.attach`)."""

    def _on_button(self, event: Any) -> None:  # a hardware.events.ButtonEvent
        e = self.explanation
        guide = self.opponent
        if event.button == "next" and isinstance(guide, Walkthrough) and not (
                e.kind == LIFTED and e.choice):
            self.step_on(guide)
            return
        super()._on_button(event)

    def step_on(self, guide: Walkthrough) -> bool:
        """Play the record's next action on the controller; the table must then follow."""
        move = guide.next_action(self.game)
        if move is None:
            self.message = guide.message(self) or Msg("review: nothing to step on to")
            return False
        if move != PASS:
            self._commit(move)  # (a forced pass: _commit passes by itself)
        self.blocked = True  # the table must match the new position before anything else
        self.message = Msg("stepped on: {action}: make the board match (the lit cells)",
                           action=str(move))
        self._infer()
        guide.update(self)
        return True
