"""A remote player: a person somewhere else plays one side of the real table through its page.

``play --black remote`` gives the Opponent a :class:`~controller.players.seats.WebSeat` for
Black; :class:`RemotePlayers` (one per server) serves it:

- **The invitation** is ``/remote?invite=CODE``: the seat's one-time code (``WebSeat.code``,
  72 random bits), printed on the table's terminal and listed to paired phones
  (``GET /api/remote/invitations``). Opening the link only shows the page: a link preview in
  a chat app uses nothing up. The page's *Take the seat* button posts the code
  (``POST /api/remote/join``, with the page's ``X-Dvonn-Request`` header like every control
  request, guard.py); that uses it up and answers a session of its own: a random id in an
  HttpOnly, SameSite=Strict cookie (``dvonn_remote_PORT``) that lives as long as the pairing
  cookie (``Max-Age``: a browser closed and opened again keeps the seat), of which the server
  keeps only the SHA-256, in memory (a restart of the table makes a new invitation). A wrong
  or used code counts against the pairing codes' limits (429 beyond them, pairing.py). The
  invitation page says which side its code plays (:meth:`RemotePlayers.invited`).
- **The session acts for its side only**: ``POST /api/remote/offer`` (``{"ply": N,
  "action": "C3D4"}``: the action and the position the page showed), checked by the engine
  against the table's position (WebSeat.offer): another side's turn, a stale position, an
  illegal action or a second action for the same position is refused (409 with the reason)
  and changes nothing. It is not a paired device: to every other route it is a spectator (no
  buttons: no undo, no new game, no hints; it cannot pair, list or revoke devices).
- ``GET /api/remote/status``: the seat's position (ply, whose turn), the action it offered
  that the table has not carried out yet, and its legal actions when it is to choose.
- **Paired phones** (any seat, or a script with the token) see each remote seat's invitation
  and whether it was used, and may replace it (``POST /api/remote/invitations/SIDE/renew``:
  a new code; the old one and the session made with it are void at once).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.i18n import Msg
from controller.i18n import side as side_name
from controller.players.seats import WebSeat
from controller.web.devices import COOKIE_AGE, client, refused
from controller.web.pairing import Pairing, Refused, Throttle, Who, device_name
from engine.errors import DvonnError
from engine.move import Move

COOKIE = "dvonn_remote_{port}"
INVITE = "/remote?invite={code}"
MAX_CODE = 64  # characters: longer is not a code
MAX_BODY = 1024
OFFERS = 120  # offers a minute from one seat's session (a person clicks far fewer)
SIDES = {"white": "w", "black": "b", "w": "w", "b": "b"}


def _hash(session: str) -> str:
    return hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()


class RemotePlayers:
    """The remote seats of one server: invitations, sessions, offers (module docstring)."""

    def __init__(self, pairing: Pairing, clock: Callable[[], float] = time.time) -> None:
        self.pairing = pairing
        self.clock = clock
        self._lock = threading.Lock()
        self._seats: dict[str, WebSeat] = {}
        self._sessions: dict[str, tuple[str, int]] = {}  # hash -> (side, generation)
        self._offers = Throttle(OFFERS)

    def add(self, seat: WebSeat) -> None:
        """Serve ``seat`` (a side played by a person on the page)."""
        with self._lock:
            self._seats[seat.side] = seat

    @property
    def seats(self) -> list[WebSeat]:
        with self._lock:
            return [self._seats[s] for s in ("w", "b") if s in self._seats]

    def invitation(self, side: str) -> str | None:
        """The invitation's path for ``side`` (None: used, or no such seat)."""
        with self._lock:
            seat = self._seats.get(side)
            code = seat.code if seat is not None else None
        return INVITE.format(code=code) if code else None

    def invited(self, code: str) -> str | None:
        """The side an unused invitation ``code`` is for (None: wrong or used), for the
        invitation page to say which colour its player will play; uses nothing up."""
        if not code or len(code) > MAX_CODE:
            return None
        for seat in self.seats:
            known = seat.code
            if known is not None and hmac.compare_digest(code.encode("utf-8", "replace"),
                                                         known.encode()):
                return seat.side
        return None

    def join(self, code: Any, address: str) -> tuple[WebSeat, str]:
        """Use an invitation code up: its seat and a new session id; Refused otherwise."""
        wait = self.pairing.throttled(address)
        if wait:
            raise Refused(429, Msg("too many wrong codes: wait {wait} s", wait=wait), wait)
        if not isinstance(code, str) or not code or len(code) > MAX_CODE:
            raise Refused(400, Msg("send the invitation's code: {example}",
                                   example='{"code": "..."}'))
        for seat in self.seats:
            if seat.take(code):
                session = secrets.token_urlsafe(32)
                with self._lock:
                    self._sessions = {k: v for k, v in self._sessions.items()
                                      if v[0] != seat.side}  # one player a seat
                    self._sessions[_hash(session)] = (seat.side, seat.generation)
                return seat, session
        self.pairing.failed(address)
        raise Refused(403, Msg("this invitation is wrong or was used already: ask the table "
                               "for a new one"))

    def identify(self, session: str | None) -> WebSeat | None:
        """The seat a session cookie plays, or None."""
        if not session or len(session) > 2 * MAX_CODE:
            return None
        key = _hash(session)
        with self._lock:
            for known, (side, generation) in self._sessions.items():
                if hmac.compare_digest(known, key):
                    seat = self._seats.get(side)
                    if seat is not None and seat.generation == generation:
                        return seat
        return None

    def renew(self, side: str) -> str:
        """A new invitation for ``side`` (the old code and its session are void); KeyError
        when no remote player plays that side."""
        with self._lock:
            seat = self._seats[side]
            self._sessions = {k: v for k, v in self._sessions.items() if v[0] != side}
        return seat.renew()

    def offer(self, seat: WebSeat, ply: Any, action: Any) -> tuple[int, str]:
        """The session of ``seat`` chose ``action`` at ``ply``: (HTTP status, refusal or '')."""
        now = self.clock()
        with self._lock:
            wait = self._offers.wait(seat.side, now)
            if not wait:
                self._offers.add(seat.side, now)
        if wait:
            return 429, Msg("too many actions: wait {wait} s", wait=wait)
        if not isinstance(ply, int) or isinstance(ply, bool) or not isinstance(action, str) \
                or len(action) > 8:
            return 400, Msg("send {example}", example='{"ply": 12, "action": "C3D4"}')
        try:
            move = Move.parse(action)
        except DvonnError:
            return 400, Msg("{action!r} is not an action (e.g. C3 or C3D4)", action=action)
        refusal = seat.offer(ply, move)
        return (409, refusal) if refusal else (200, "")


async def _body(request: Any) -> Any:
    """The request's JSON (None when it is not JSON or too long)."""
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            return None
    try:
        return json.loads(data or b"null")
    except ValueError:
        return None


def remote_routes(remote: RemotePlayers, cookie: Callable[[], str],
                  who: Callable[[Any], Who | None],
                  announce: Callable[[str], None], url: Callable[[str], str]) -> list[Any]:
    """The routes of the module docstring; ``cookie()`` is the remote session cookie's name,
    ``who(request)`` the paired device or script, ``announce`` prints on the table and
    ``url(path)`` is the full address of a path."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    no_seat = Refused(403, Msg("this page plays no seat: open the invitation the table gave "
                               "you"))

    async def join(request: Request) -> Response:
        data = await _body(request)
        code = data.get("code") if isinstance(data, dict) else None
        try:
            seat, session = remote.join(code, client(request))
        except Refused as exc:
            return refused(exc)
        who_joined = device_name(request.headers.get("user-agent", ""))
        announce(f"remote player joined: {side_name(seat.side)} ({who_joined})")
        response = JSONResponse({"ok": True, "side": seat.side})
        response.set_cookie(cookie(), session, max_age=COOKIE_AGE, httponly=True,
                            samesite="strict")  # as the pairing cookie (devices.py)
        return response

    def seat_of(request: Request) -> WebSeat | None:
        return remote.identify(request.cookies.get(cookie()))

    async def status(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return refused(no_seat)
        return JSONResponse(seat.status(), headers={"Cache-Control": "no-store"})

    async def offer(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return refused(no_seat)
        data = await _body(request)
        if not isinstance(data, dict):
            data = {}
        code, refusal = remote.offer(seat, data.get("ply"), data.get("action"))
        if refusal:
            return refused(Refused(code, refusal))
        return JSONResponse({"ok": True, "action": str(data["action"]).upper()})

    async def invitations(request: Request) -> Response:
        if who(request) is None:
            return refused(Refused(403, Msg("this device is not paired: pair it with the code "
                                            "the table shows")))
        listed = [{"side": s.side, "path": remote.invitation(s.side), "joined": s.joined}
                  for s in remote.seats]
        return JSONResponse({"invitations": listed}, headers={"Cache-Control": "no-store"})

    async def renew(request: Request) -> Response:
        if who(request) is None:
            return refused(Refused(403, Msg("this device is not paired: pair it with the code "
                                            "the table shows")))
        side = SIDES.get(request.path_params["side"])
        try:
            remote.renew(side or "")
        except KeyError:
            return refused(Refused(404, Msg("no remote player plays {side!r}",
                                            side=request.path_params["side"])))
        path = remote.invitation(side or "")
        announce(f"new invitation for {side_name(side or '')} (remote): {url(path or '')} "
                 "(works once)")
        return JSONResponse({"ok": True, "side": side, "path": path})

    return [
        Route("/api/remote/join", join, methods=["POST"]),
        Route("/api/remote/status", status, methods=["GET"]),
        Route("/api/remote/offer", offer, methods=["POST"]),
        Route("/api/remote/invitations", invitations, methods=["GET"]),
        Route("/api/remote/invitations/{side}/renew", renew, methods=["POST"]),
    ]
