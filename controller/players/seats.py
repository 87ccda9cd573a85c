"""Remote seats: a side played by someone who is not at the table.

A seat differs from a computer player in one way: it never blocks. :meth:`RemoteSeat.poll`
says whether the remote side's action for this position has arrived (None: not yet), and
:meth:`RemoteSeat.tell` hands it the table's actions so far, every time they change (the seat
sends them on; telling the same list twice changes nothing). The Opponent lights an arrived
action as ``suggest`` like a computer's, and the person at the table carries it out.

- ``remote``: a person on a phone or laptop, through the table's web server (:class:`WebSeat`,
  a mailbox the server fills; the server makes the invitation).
- ``remote:mqtt://HOST[:PORT]/MATCH``: another table, through an MQTT broker
  (controller.remote.match.MqttSeat).
"""

from __future__ import annotations

import hmac
import secrets
import threading
from typing import Any

from controller.i18n import Msg
from controller.i18n import side as side_name
from controller.remote.seat import RemoteSeat
from engine.game import Game
from engine.move import Move


class WebSeat(RemoteSeat):
    """A person on the table's web page plays this side (controller.web.remote serves them).

    - ``code``: the one-time invitation code for this seat (the server turns it into a link);
      :meth:`take` uses it up (constant-time comparison) and the seat is ``joined``;
      :meth:`renew` makes a new one (the old code and whoever joined with it are out).
    - :meth:`offer` (the server's threads) takes the action the person chose in the position
      the page showed; it is checked by the engine against the position the table last told
      (:meth:`tell`) and refused with a reason (a Msg) when it is not this side's legal
      action there. An offer stands for its position only: once the table's actions change
      (carried out, taken back, a new game) it is gone.
    - :meth:`poll` hands the offer to the table (the Opponent lights it as ``suggest``).
    """

    name = "remote"

    def __init__(self, side: str) -> None:
        super().__init__(side)
        self._lock = threading.Lock()
        self.code: str | None = secrets.token_urlsafe(9)
        self.generation = 0  # +1 with every new invitation (ends the sessions of the old)
        self._offer: tuple[tuple[Move, ...], Move] | None = None
        self._history: tuple[Move, ...] = ()
        self._game = Game()
        self._told = False
        self._news = False
        self.joined = False
        self.note = Msg("waiting for the remote player to open the invitation")

    # ------------------------------------------------------------------ the invitation
    def take(self, code: str) -> bool:
        """Use the invitation ``code`` up: True (and the seat is joined) when it is this
        seat's code and unused, else False."""
        with self._lock:
            good = self.code is not None and hmac.compare_digest(
                code.encode("utf-8", "replace"), self.code.encode())
            if good:
                self.code = None
        if good:
            self.join()
        return good

    def renew(self) -> str:
        """A new invitation code; the old one and whoever joined with it are out."""
        with self._lock:
            self.code = secrets.token_urlsafe(9)
            self.generation += 1
            self.joined = False
            self._offer = None
            self._news = True
        self.note = Msg("waiting for the remote player to open the invitation")
        return self.code

    def join(self) -> None:
        """The invitation was used: someone plays this seat now."""
        with self._lock:
            self.joined = True
            self._news = True
        self.note = ""

    # ------------------------------------------------------------------ the page's side
    def offer(self, ply: int, move: Move) -> str:
        """The remote player chose ``move`` in the position at ``ply`` (the page's view):
        '' when taken, else why not (a Msg; nothing changes)."""
        with self._lock:
            game = self._game
            if not self._told:
                return Msg("the table has not started yet")
            if game.is_over():
                return Msg("the game is over")
            if game.turn != self.side:
                return Msg("it is {side}'s turn", side=side_name(game.turn))
            if ply != game.ply:
                return Msg("the position has changed: look at the board again")
            if self._offer is not None:
                return Msg("you played {action} already: the table carries it out",
                           action=str(self._offer[1]))
            if move.is_pass or move not in game.legal_moves():
                return Msg("{action} is not a legal action here", action=str(move))
            self._offer = (self._history, move)
            self._news = True
        return ""

    def status(self) -> dict[str, Any]:
        """What the page needs: the position's ply, whose turn, the action offered and still
        waiting for the table, and this side's legal actions when it is to choose one."""
        with self._lock:
            game, offer = self._game, self._offer
            over = game.is_over()
            mine = self._told and not over and game.turn == self.side
            moves = game.legal_moves() if mine and offer is None else []
        return {"side": self.side, "ply": game.ply, "turn": game.turn, "over": over,
                "offered": str(offer[1]) if offer is not None else None,
                "pass": [str(m) for m in moves] == ["PASS"],
                "moves": [str(m) for m in moves if not m.is_pass]}

    # ------------------------------------------------------------------ the table's side
    def tell(self, game: Game) -> None:
        history = tuple(game.move_stack)
        with self._lock:
            if self._told and history == self._history:
                return
            self._told = True
            self._history = history
            self._game = game.copy()
            if self._offer is not None and self._offer[0] != history:
                self._offer = None  # carried out, taken back, or a new game

    def new_game(self, side: str) -> None:
        with self._lock:
            self.side = side
            self._offer = None

    def pump(self) -> bool:
        with self._lock:
            news, self._news = self._news, False
        return news

    def poll(self, game: Game) -> Move | None:
        with self._lock:
            offer = self._offer
        if offer is None or game.is_over() or game.turn != self.side:
            return None
        history, move = offer
        if tuple(game.move_stack) != history or move not in game.legal_moves():
            return None
        return move


def make_seat(spec: str, side: str, config: dict[str, object] | None = None) -> RemoteSeat:
    """The seat ``spec`` names (``remote`` or ``remote:mqtt://HOST[:PORT]/MATCH``) for
    ``side``; ``config``: the config's ``[remote]`` table (credentials, TLS)."""
    if spec == "remote":
        return WebSeat(side)
    from controller.remote.match import MqttSeat
    from controller.remote.url import credentials, parse_url

    url = parse_url(spec.split(":", 1)[1], levels=(1, 1), what=f"player {spec!r}:")
    return MqttSeat(url, side, credentials=credentials(config))
