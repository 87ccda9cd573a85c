"""The computer on the real table: it chooses, the LEDs show it, a person carries it out.

:class:`Opponent` is attached to a TableController (``ctl.opponent``) and called from small
hooks there: after every event (choose when a computer is to act, keep external programs in
step), before a commit (a computer's action must be the one it chose), when the view is
composed (``suggest`` on the cell to place, or on source and destination) and on ``hint``.

- The suggested action commits as usual when the person carries it out.
- A different legal action is never accepted: it is a mismatch that lights the cells the person
  changed and the suggested action, until the board is put back.
- ``hint`` shows the best action for the side to act within a node budget (about one second on
  a Pi 4) with ``suggest``, and the stacks it would cut off with ``suggest`` blinking (never
  ``remove``: nothing is to be taken away yet), until the position changes.
- A computer player that fails (a crashed, hung or cheating program, or one that cannot follow a
  take-back) is dropped with a message: its side is played by hand; the game goes on, and
  the next new game starts it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.i18n import Msg
from controller.i18n import side as side_name
from controller.players.player import (
    ExternalPlayer,
    Player,
    PlayerError,
    check_spec,
    is_human,
    make_player,
)
from controller.players.seats import make_seat
from controller.remote.seat import RemoteSeat, is_remote
from controller.table.decision import taken_back
from controller.table.inference import LIFTED, MISMATCH
from engine.analysis import Analysis, analyse
from engine.errors import DvonnError
from engine.game import Game
from engine.geometry import CELL_NAMES
from engine.move import PASS, Move
from engine.search import Limits, Searcher

if TYPE_CHECKING:
    from controller.table.session import TableController

Clock = Callable[[], float]
#: A hint's budget: about a second on a Pi 4 (some 3,000 nodes a second there), capped in time.
HINT_NODES = 2500
HINT_SECONDS = 1.0


class Opponent:
    """The computer players of one table (``human`` sides are played by people)."""

    def __init__(self, white: str = "human", black: str = "human", *, seed: int = 0,
                 move_time: float | None = None, hint_nodes: int = HINT_NODES,
                 hint_seconds: float = HINT_SECONDS, clock: Clock = time.monotonic,
                 move_timeout: float | None = None,
                 remote_config: dict[str, object] | None = None, threads: int = 1) -> None:
        self.remote_config = remote_config or {}
        self._ctl: TableController | None = None
        self.specs = {"w": check_spec(white), "b": check_spec(black)}
        self.seed = seed
        self.move_time = move_time
        self.threads = threads  # the built-in engine's search threads (config [players])
        self.clock = clock
        # An external program that is silent this long is hung: its side goes to a person
        # rather than the table waiting for ever.
        self.move_timeout = move_timeout or max(10.0, 5 * (move_time or 1.0))
        self.players: dict[str, Player | RemoteSeat | None] = {"w": None, "b": None}
        for side in ("w", "b"):
            self.players[side] = self._make(side)
        self.hint_limits = Limits(nodes=hint_nodes, time=hint_seconds)
        self._hint_searcher = Searcher(seed=seed, clock=clock)
        self.pending: Move | None = None  # the computer's action for the current position
        self._pending_at: tuple[int, int] | None = None
        self.hint: Analysis | None = None
        self._hint_at: tuple[int, int] | None = None
        #: sides played by something else that this opponent does not know (a virtual
        #: table's computer agents): no hint is kept up for them while the switch is on
        self.no_hints: frozenset[str] = frozenset()
        self.expected: Move | None = None  # the computer's choice while a refusal stands
        self.note = ""
        # What each external program has been told (its own actions and the other side's).
        self._told: dict[str, list[Move]] = {"w": [], "b": []}
        self._started: dict[str, bool] = {"w": False, "b": False}
        self._dropped_ply = {"w": 0, "b": 0}  # how far a game went after its computer dropped

    # ------------------------------------------------------------------ helpers
    def _make(self, side: str) -> Player | RemoteSeat | None:
        spec = self.specs[side]
        if is_human(spec):
            return None
        if spec.startswith("remote"):
            return make_seat(spec, side, self.remote_config)
        return make_player(spec, seed=self.seed + (side == "b"), move_time=self.move_time,
                           clock=self.clock, move_timeout=self.move_timeout,
                           threads=self.threads)

    @staticmethod
    def _key(game: Game) -> tuple[int, int]:
        return game.ply, game.zobrist

    def computer(self, game: Game) -> Player | RemoteSeat | None:
        """The computer player to act now, or None (a person acts, or the game is over)."""
        if game.is_over():
            return None
        return self.players[game.turn]

    def _drop(self, side: str, error: DvonnError, ply: int) -> None:
        self._dropped_ply[side] = max(self._dropped_ply[side], ply)
        player = self.players[side]
        self.players[side] = None
        if player is not None:
            player.close()
        self.note = Msg("{side}'s computer stopped ({error}); {side} plays by hand",
                        side=side_name(side), error=error)

    # ------------------------------------------------------------------ hooks
    def attach(self, ctl: TableController) -> None:
        """Serve ``ctl``: its hooks call this opponent; it updates after every event."""
        ctl.opponent = self
        self._ctl = ctl
        ctl.listeners.append(self.update)
        self.update(ctl)

    @property
    def remote(self) -> bool:
        """True when a side is played from elsewhere: the runner then polls this opponent."""
        return any(is_remote(p) for p in self.players.values())

    def poll(self, timeout: float = 0.0) -> list[object]:
        """A Runner source: take in what remote seats received; when anything changed, the
        table updates (and its listeners, the web view, hear of it). Reports no events."""
        changed = False
        for player in self.players.values():
            if is_remote(player):
                changed = player.pump() or changed
        if changed and self._ctl is not None:
            self._ctl.notify()
        return []

    def waiting(self, game: Game) -> RemoteSeat | None:
        """The remote seat the table waits for (its side is to act and its action has not
        arrived), else None."""
        seat = self.computer(game)
        if is_remote(seat) and self.pending_for(game) is None and \
                game.legal_moves() != [PASS]:
            return seat
        return None

    def pending_for(self, game: Game) -> Move | None:
        """The computer's action in ``game`` if it is the position the suggestion is for."""
        if self.pending is not None and self._pending_at == self._key(game):
            return self.pending
        return None

    def suggestion(self, ctl: TableController) -> Move | None:
        """The computer's action for the position on ``ctl`` (chosen now if need be), or None
        when a person is to act."""
        if self.pending_for(ctl.game) is None:
            self.update(ctl)
        return self.pending_for(ctl.game)

    def update(self, ctl: TableController) -> None:
        """After every event: keep external programs in step; choose when a computer acts."""
        game = ctl.game
        if self.expected is not None and getattr(ctl, "explanation", None) is not None and \
                ctl.explanation.kind != MISMATCH:
            self.expected = None  # the board was put back
        for side in ("w", "b"):
            if self.players[side] is None and not is_human(self.specs[side]):
                # dropped: a new game (back to ply 0 after play went on) restarts it
                self._dropped_ply[side] = max(self._dropped_ply[side], game.ply)
            if self.players[side] is None and game.ply == 0 and self._dropped_ply[side] > 0:
                self._dropped_ply[side] = 0
                try:
                    self.players[side] = self._make(side)
                except DvonnError as exc:
                    self.note = Msg("{side}'s computer cannot start ({error})",
                                    side=side_name(side), error=exc)
                else:
                    self._started[side] = False
                    self.note = ""
            if self.players[side] is not None:
                self._sync(side, game)
            seat = self.players[side]
            if is_remote(seat):
                seat.tell(game)
        key = self._key(game)
        if self._pending_at != key:
            self.pending = None
            self._pending_at = None
        if self._hint_at is not None and self._hint_at != key:
            self.hint = None
            self._hint_at = None
        player = self.computer(game)
        if getattr(ctl, "hints", False) and self.hint is None and player is None and \
                game.turn not in self.no_hints and not game.is_over():
            # the hint switch is on: the best action of every position a person plays
            self.hint = analyse(game.copy(), self.hint_limits, searcher=self._hint_searcher)
            self._hint_at = key
        if player is None or self.pending is not None or game.legal_moves() == [PASS]:
            self._point_at_target(ctl)  # (a forced pass: the table passes by itself)
            return
        side = game.turn
        if is_remote(player):
            arrived = player.poll(game.copy())
            if arrived is not None:
                self.pending = arrived
                self._pending_at = key
            self._point_at_target(ctl)
            return
        try:
            move = player.choose(game.copy())
        except DvonnError as exc:
            self._drop(side, exc, game.ply)
            return
        self.pending = move
        self._pending_at = key
        self._point_at_target(ctl)

    def _point_at_target(self, ctl: TableController) -> None:
        """While the suggested stack is held and sensors cannot tell where it lands, make its
        destination the controller's own suggestion: ``confirm`` then commits it."""
        move = self.pending_for(ctl.game)
        e = getattr(ctl, "explanation", None)
        if move is None or move.target is None or e is None or e.kind != LIFTED:
            return
        if e.source == move.source and (e.choice >> move.target) & 1:
            ctl.suggested = move.target

    def _sync(self, side: str, game: Game) -> None:
        """Tell an external program the other side's new actions and read back the passes it
        sends by itself. A take-back or a resumed game cannot be told: that program is
        dropped (unless the game starts afresh)."""
        player = self.players[side]
        if player is None or not isinstance(player, ExternalPlayer) or is_remote(player):
            return  # built-in players read the position; they need no telling
        moves = game.move_stack
        told = self._told[side]
        if not self._started[side] or moves[:len(told)] != told:
            if game.ply != 0:
                self._drop(side, PlayerError(Msg("it cannot follow a take-back or a resumed game")),
                           game.ply)
                return
            try:
                player.new_game(side)
            except DvonnError as exc:
                self._drop(side, exc, game.ply)
                return
            self._started[side] = True
            self._told[side] = told = []
        try:
            for i in range(len(told), len(moves)):
                move = moves[i]
                if _mover(i) != side:
                    player.observe(game, move)
                elif move.is_pass:  # the table passed for it; it sends its PASS by itself
                    before = game.copy()
                    while before.ply > i:
                        before.pop()
                    player.choose(before)
                told.append(move)
        except DvonnError as exc:
            self._drop(side, exc, game.ply)

    def refuse(self, ctl: TableController, moves: list[Move], back: int) -> bool:
        """Before a commit of ``moves`` (after taking ``back`` actions back): True when a
        computer's action among them is not the one it chose (``expected`` then holds its
        choice where known). Such a commit is never accepted."""
        self.expected = None
        if not moves:
            return False
        game = ctl.game
        g = game
        if back:
            g = taken_back(game, back)
        elif self.computer(game) is not None and self._pending_at != self._key(game):
            self.update(ctl)  # a person was quicker than the first event after the last action
        for i, move in enumerate(moves):
            player = self.computer(g)
            if player is not None and not move.is_pass:
                if i == 0 and not back:
                    choice = self.pending_for(g)
                elif isinstance(player, ExternalPlayer) or is_remote(player):
                    choice = None  # it cannot be asked without being told: refuse
                else:
                    choice = player.choose(g.copy())
                if move != choice:
                    self.expected = choice
                    return True
            if g is game:
                g = game.copy()
            g.push(move)
        return False

    def on_hint(self, ctl: TableController) -> Analysis | None:
        """The hint button: analyse the position for the side to act (node budget); pressed
        again while the hint shows, it hides it."""
        game = ctl.game
        if game.is_over() or (self.hint is not None and self._hint_at == self._key(game)):
            self.hint = None
            self._hint_at = None
            return None
        self.hint = analyse(game.copy(), self.hint_limits, searcher=self._hint_searcher)
        self._hint_at = self._key(game)
        return self.hint

    # ------------------------------------------------------------------ view
    def roles(self, ctl: TableController, lifted: int | None) -> tuple[dict[int, str], int]:
        """Roles to show over the guide's (and cells to blink): the computer's action, or a
        hint with the stacks it would cut off. ``lifted``: the source a hand holds, if any."""
        roles: dict[int, str] = {}
        blink = 0
        game = ctl.game
        move = self.expected or (self.pending if self._pending_at == self._key(game) else None)
        if move is None and self.hint is not None and self._hint_at == self._key(game):
            move = self.hint.best
            for cut in self.hint.cuts:
                roles[cut.cell] = "suggest"
                blink |= 1 << cut.cell
        if move is None or move.target is None:
            return roles, blink
        roles[move.target] = "suggest"
        if move.source is not None and lifted != move.source:
            roles[move.source] = "suggest"  # (a wrong stack in the hand: still show the right one)
        return roles, blink

    def message(self, ctl: TableController) -> str:
        """What to tell the players about the computer (may be '')."""
        game = ctl.game
        parts = [self.note] if self.note else []
        parts += [p.note for p in self.players.values() if is_remote(p) and p.note]
        if self.expected is not None:
            parts.append(Msg("the computer plays {action}: put the board back and play it",
                             action=str(self.expected)))
        elif self.pending is not None and self._pending_at == self._key(game):
            if is_remote(self.players[game.turn]):
                parts.append(Msg("{side} (remote) plays {action}", side=side_name(game.turn),
                                 action=str(self.pending)))
            else:
                parts.append(Msg("{side} (computer) plays {action}", side=side_name(game.turn),
                                 action=str(self.pending)))
        elif is_remote(self.computer(game)):
            parts.append(Msg("waiting for {side} (remote)", side=side_name(game.turn)))
        elif self.hint is not None and self._hint_at == self._key(game) and self.hint.best:
            score = f"{self.hint.score:+.1f}"
            if self.hint.cuts:
                parts.append(Msg("hint: {action} ({score} pieces) cuts off {cells}",
                                 action=str(self.hint.best), score=score, cells=" ".join(
                                     CELL_NAMES[c.cell] for c in self.hint.cuts)))
            else:
                parts.append(Msg("hint: {action} ({score} pieces)", action=str(self.hint.best),
                                 score=score))
        return Msg.joined(" | ", parts)

    def close(self) -> None:
        for player in self.players.values():
            if player is not None:
                player.close()


def _mover(index: int) -> str:
    """The side that took action number ``index`` (0-based) of a game."""
    ply = index
    if ply < 49:
        return "w" if ply % 2 == 0 else "b"
    return "w" if ply % 2 == 1 else "b"
