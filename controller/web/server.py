"""The web server: Starlette on uvicorn, in a thread of its own beside the controller's loop.

Routes (the contract pages and outside tests rely on):

- ``GET /``: the page (``?pair=CODE``: the printed pairing URL; the page's pairing form is
  filled in with the code, the page takes it out of the address bar).
- ``GET /api/state``: the ``table_state`` JSON (:mod:`controller.publish`).
- ``GET /api/events``: Server-Sent Events, ``event: state`` with the whole state as data and
  its sequence number as ``id``; the current state first, then every change in order.
  ``HEAD``: the headers only. Streams are capped in all and per client address (503 over a
  cap; transport.py).
- ``GET /api/info``: what this server offers (virtual table, camera, pairing, hint sharing).
- ``GET /api/i18n/LANG``: the page's message catalog for LANG (msgid -> words; 404 for a
  language the table does not speak). The page itself comes in the config's language, else
  the browser's Accept-Language; its switch is remembered in the browser (localStorage).
- ``GET /api/camera.jpg``: the camera's latest annotated frame (404 without a camera;
  re-encoded at most ``camera_interval`` seconds apart, whatever the number of pages).
- ``POST /api/control/NAME``: the buttons (confirm, next, undo, hint, new), ``share`` (let
  spectators see hints: ``?on=1`` / ``?on=0``, toggles without it, 400 for any other) and
  ``POST /api/control/click/CELL`` (the virtual table). Only from a paired device (its session
  cookie) or a script (the ``X-Dvonn-Token`` header); otherwise 403 and nothing changes; a
  device paired for one seat gets 403 for the other side's action (pairing.py).
  Answers 200 ``{"ok": true}`` once the controller has the command, 409 with the reason when
  it was refused (an illegal click), 503 at once when ``Inbox.LIMIT`` commands wait already,
  and 503 when the table did not take it in time: then the command is dropped, never run.
- ``POST /api/pair``, ``POST /api/pair/request``, ``GET /api/devices``,
  ``POST /api/devices/ID/revoke``: pairing by one-time code and the paired devices
  (devices.py).
- ``GET /api/games``, ``GET /api/review/ID``: the journal's games and the engine's review of
  one (or of the live game), analysed in a worker thread and cached (reviews.py).
- ``GET /remote`` (``?invite=CODE``), ``POST /api/remote/join``, ``GET /api/remote/status``,
  ``POST /api/remote/offer``, ``GET /api/remote/invitations``,
  ``POST /api/remote/invitations/SIDE/renew``: a remote player's seat (remote.py).

Connections are counted per client address, and closed when they send no whole request
header in time or sit idle between requests (transport.py): one machine on the network
cannot lock the phones out.

Every request passes the gate of guard.py first: only the table's own host names, control
requests only from the table's own page (or a script), no framing. Pages of devices that are
not paired are spectators: read-only, and hints are hidden from them unless the players
share them (:mod:`controller.web.hub`).

A refusal (any route's, and the gate's) is ``{"ok": false, "detail": ENGLISH, "details":
{"en": ..., "de": ...}}``: ``detail`` stays the English text (scripts and logs), ``details``
is the same in each language the table speaks, for the page to show in its own.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from controller.i18n import (
    LANGUAGES,
    Msg,
    catalog,
    error_message,
    from_accept_language,
    in_every_language,
)
from controller.i18n import side as side_name
from controller.web.bridge import CONTROLS, Command, Inbox, InboxFull
from controller.web.devices import client, pairing_routes
from controller.web.guard import Guard, HostCheck
from controller.web.hub import StateHub
from controller.web.page import render_page
from controller.web.pairing import Pairing, Who, refusal_body, seat_refusal
from controller.web.remote import COOKIE as REMOTE_COOKIE
from controller.web.remote import RemotePlayers, remote_routes
from controller.web.reviews import REVIEW_BUDGET, Reviews, review_routes
from controller.web.serving import Serving, StreamFront
from controller.web.transport import Connections, Limits
from controller.web.tutoring import tutor_routes
from engine.errors import DvonnError

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "dvonn_session_{port}"  # cookies ignore ports: one name per server
ANSWER_TIMEOUT = 3.0  # seconds the table has to take a command
CLICK = "click"
SHARE = "share"


class CameraFrames:
    """The camera's annotated frame as JPEG, encoded at most every ``interval`` seconds."""

    def __init__(self, frame: Callable[[], Any], interval: float = 0.5,
                 max_width: int = 960) -> None:
        self.frame = frame
        self.interval = interval
        self.max_width = max_width
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._at = float("-inf")
        self.encoded = 0

    def jpeg(self) -> bytes | None:
        """The latest frame's JPEG (cached within the interval), None when there is none."""
        with self._lock:
            now = time.monotonic()
            if self._jpeg is not None and now - self._at < self.interval:
                return self._jpeg
            image = self.frame()
            if image is None:
                return self._jpeg
            import cv2

            h, w = image.shape[:2]
            if w > self.max_width:
                image = cv2.resize(image, (self.max_width, int(h * self.max_width / w)),
                                   interpolation=cv2.INTER_AREA)
            ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), 75])
            if ok:
                self._jpeg = bytes(buf)
                self._at = now
                self.encoded += 1
            return self._jpeg


def parse_address(text: str, default_host: str = "0.0.0.0") -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); DvonnError naming the text when it is not one."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host = default_host
    host = host.strip("[]") or default_host
    try:
        port = int(port_text)
    except ValueError:
        raise DvonnError(Msg("{text!r} is not [HOST:]PORT (e.g. 8080 or 127.0.0.1:8080)",
                             text=text)) from None
    if not 0 <= port <= 65535:
        raise DvonnError(Msg("port {port} in {text!r} is out of range (0-65535)",
                             port=port, text=text))
    return host, port


class WebServer(Serving):
    """Serves the view of one table (see the module docstring); ``start()`` runs it in a
    thread, ``stop()`` ends it (safe twice; serving.py). ``bind()`` takes the address
    beforehand: a command binds before it opens its journal, so a busy port changes no file.
    The controller is never touched from here: states come through ``hub``, commands go
    through ``inbox``."""

    def __init__(
        self,
        hub: StateHub,
        inbox: Inbox | None,
        *,
        host: str = "0.0.0.0",
        port: int = 8080,
        token: str | None = None,
        host_names: tuple[str, ...] = (),
        devices: Path | None = None,
        computer: frozenset[str] = frozenset(),
        virtual: bool = False,
        camera: CameraFrames | None = None,
        palette: dict[str, tuple[int, int, int]] | None = None,
        title: str = "dvonn-board",
        limits: Limits | None = None,
        review_budget: float = REVIEW_BUDGET,
        language: str = "auto",
    ) -> None:
        super().__init__(host, port, Connections(limits))
        self.hub = hub
        self.inbox = inbox
        self.token = token  # the scripts' X-Dvonn-Token, or None
        self.host_names = host_names  # names besides the table's own (--web-host-name)
        self.computer = computer  # the sides the computer plays (a one-seat phone's undo)
        self.pairing = Pairing(token, devices)  # codes, sessions, throttles (pairing.py)
        self.remote = RemotePlayers(self.pairing)  # remote players' seats (remote.py)
        self.virtual = virtual
        self.camera = camera
        self.palette = palette
        self.title = title
        self.language = language  # the page's: 'en', 'de', or 'auto' (Accept-Language)
        self.journal: Any = None  # the table's Journal (set when it is open): reviews.py
        self.reviews = Reviews(review_budget)
        self.app = self._build_app()

    # ------------------------------------------------------------------ lifecycle
    def loop_started(self, loop: asyncio.AbstractEventLoop) -> None:
        self.hub.bind(loop)

    def keep_alive_streams(self) -> None:
        self.hub.keep_alive()

    def end_streams(self) -> None:
        self.hub.close()

    def stop(self) -> None:
        """End every event stream, stop the server and wait for its thread, then refuse
        the waiting commands and close the devices and reviews (safe twice)."""
        super().stop()
        if self.inbox is not None:
            self.inbox.refuse_all(Msg("the table is shutting down"))
        self.pairing.close()  # the devices' last-seen times
        self.reviews.close()

    # ------------------------------------------------------------------ the app
    @property
    def cookie(self) -> str:
        """The pairing cookie's name (it carries the port: cookies ignore ports)."""
        return COOKIE.format(port=self.port)

    @property
    def remote_cookie(self) -> str:
        """A remote player's session cookie's name (remote.py)."""
        return REMOTE_COOKIE.format(port=self.port)

    def full_url(self, path: str) -> str:
        """``path`` on the page's address on the network (the last of :meth:`urls`)."""
        return self.urls()[-1] + path.lstrip("/")

    def who(self, request: Any) -> Who | None:
        """Who sent the request: a paired device (its session cookie) or a script (the
        ``X-Dvonn-Token`` header); None for a spectator (pairing.py)."""
        return self.pairing.identify(request.cookies.get(self.cookie),
                                     request.headers.get("x-dvonn-token"), client(request))

    def paired(self, request: Any) -> bool:
        """Whether the request comes from a paired device or a script with the token."""
        return self.who(request) is not None

    def _build_app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import (
            HTMLResponse,
            JSONResponse,
            Response,
        )
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles

        hub = self.hub

        def info(sender: Who | None) -> dict[str, Any]:
            return {"virtual": self.virtual, "camera": self.camera is not None,
                    "paired": sender is not None, "seat": sender and sender.seat,
                    "share_hints": hub.share_hints,
                    "invitations": sender is not None and bool(self.remote.seats),
                    "controls": list(CONTROLS) + [SHARE] + ([CLICK] if self.virtual else [])}

        def state_now() -> dict[str, Any] | None:
            msg = hub.latest
            return None if msg is None else dict(json.loads(msg.json(True)))

        async def page(request: Request) -> Response:
            code = request.query_params.get("pair", "")  # the printed URL's pairing code
            notice = ("A link with ?token= no longer pairs a phone: enter the pairing code "
                      "the table shows." if "token" in request.query_params else "")
            sender = self.who(request)
            msg = hub.latest
            state = None if msg is None else msg.json(sender is not None).decode()
            shown = dict(info(sender), pair_code=code if code.isdigit() and len(code) < 9
                         else "")
            if request.url.path == "/remote":  # a remote player's page (remote.py)
                seat = self.remote.identify(request.cookies.get(self.remote_cookie))
                invite = request.query_params.get("invite", "")
                invite = invite if invite.isascii() and len(invite) < 65 else ""
                shown["remote"] = {"side": seat.side if seat is not None else "",
                                   "invite": invite,
                                   "invited": self.remote.invited(invite) or ""}
            lang = (self.language if self.language in LANGUAGES
                    else from_accept_language(request.headers.get("accept-language")))
            html = render_page(state, info=shown, palette=self.palette, title=self.title,
                               notice=notice, lang=lang)
            return HTMLResponse(html, headers={"Cache-Control": "no-store"})

        async def api_state(request: Request) -> Response:
            msg = hub.latest
            if msg is None:
                return JSONResponse({"error": "no state yet"}, status_code=503)
            return Response(msg.json(self.paired(request)), media_type="application/json",
                            headers={"Cache-Control": "no-store", "X-State-Seq": str(msg.seq)})

        async def api_info(request: Request) -> Response:
            return JSONResponse(info(self.who(request)))

        async def api_i18n(request: Request) -> Response:
            lang = request.path_params["lang"]
            if lang not in LANGUAGES:
                return JSONResponse({"error": f"no language {lang!r}; these: "
                                     f"{', '.join(LANGUAGES)}"}, status_code=404)
            return JSONResponse(catalog(lang), headers={"Cache-Control": "no-cache"})


        async def camera(request: Request) -> Response:
            if self.camera is None:
                return JSONResponse({"error": "the camera is not this table's sensor"},
                                    status_code=404)
            from starlette.concurrency import run_in_threadpool

            jpeg = await run_in_threadpool(self.camera.jpeg)
            if jpeg is None:
                return JSONResponse({"error": "no frame yet"}, status_code=503)
            return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

        def refuse(status: int, detail: str, headers: dict[str, str] | None = None) -> Response:
            return JSONResponse(refusal_body(detail), status_code=status, headers=headers)

        async def control(request: Request) -> Response:
            wait = self.pairing.throttled(client(request))  # before this request's try
            sender = self.who(request)
            if sender is None:
                if wait:
                    return refuse(429, Msg("too many wrong tokens: wait {wait} s", wait=wait),
                                  headers={"Retry-After": str(wait)})
                return refuse(403, Msg("this device is not paired: pair it with the code the "
                                       "table shows (scripts: the X-Dvonn-Token header)"))
            name = request.path_params.get("name", CLICK)
            if name == SHARE:
                on = request.query_params.get("on")
                if on not in (None, "0", "1"):
                    return refuse(400, Msg("on={on!r}: use on=1 (share) or on=0 (stop), or no "
                                           "on to toggle", on=on))
                share = (not hub.share_hints) if on is None else on == "1"
                hub.set_share_hints(share)
                return JSONResponse({"ok": True, "share_hints": share})
            arg = request.path_params.get("cell", "")
            if name == CLICK and not self.virtual:
                return refuse(404, Msg("this table has no virtual board"))
            if (name not in CONTROLS and name != CLICK) or (name == CLICK and not arg):
                return refuse(404, Msg("no control {name!r}", name=name))
            if self.inbox is None:
                return refuse(404, Msg("this view is read-only"))
            seat = request.query_params.get("seat", "")
            if seat not in ("", "w", "b"):
                return refuse(400, Msg("seat {seat!r} is not w or b", seat=seat))
            if sender.side:  # a phone paired for one seat acts for that seat only
                refusal = (Msg("this device plays {side} only", side=side_name(sender.side))
                           if seat not in ("", sender.side)
                           else seat_refusal(sender.side, name, arg, state_now(), self.computer))
                if refusal:
                    return refuse(403, refusal)
                seat = sender.side
            try:
                future = self.inbox.put(Command(name, arg, seat))
            except InboxFull as exc:
                return refuse(503, Msg("the table is busy ({why})", why=error_message(exc)),
                              headers={"Retry-After": "1"})
            answer = await answer_of(future)
            if answer is None:
                return refuse(503, Msg("the table did not answer; the command was dropped")
                              if future.cancelled() else Msg("the table took the command but "
                                                             "did not answer in time"))
            if not answer.get("ok") and isinstance(answer.get("detail"), str):
                answer = dict(answer, details=in_every_language(answer["detail"]))
            return JSONResponse(answer, status_code=200 if answer.get("ok") else 409)

        routes = [
            Route("/", page),
            Route("/remote", page),
            Route("/api/state", api_state),
            Route("/api/info", api_info),
            Route("/api/i18n/{lang}", api_i18n),
            Route("/api/events", EventStream(self), methods=["GET"]),
            Route("/api/camera.jpg", camera),
            Route("/api/control/click/{cell}", control, methods=["POST"],
                  name="click"),
            Route("/api/control/{name}", control, methods=["POST"]),
            *pairing_routes(self.pairing, lambda: self.cookie, self.who),
            *remote_routes(self.remote, lambda: self.remote_cookie, self.who,
                           lambda line: self.pairing.announce(line), self.full_url),
            *review_routes(self.reviews, lambda: self.journal, state_now, self.paired,
                           lambda: hub.share_hints),
            *tutor_routes(self, answer_of),  # the live tutor's take-backs (tutoring.py)
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ]
        from starlette.middleware import Middleware

        hosts = HostCheck(self.host, self.host_names)  # which Host names are this table's
        app = Starlette(routes=routes, lifespan=self.lifespan,
                        middleware=[Middleware(Guard, hosts=hosts)])  # guard.py
        return app


async def answer_of(future: Future[dict[str, Any]]) -> dict[str, Any] | None:
    """The table's answer to a command, or None. When the table has not taken the command
    within ANSWER_TIMEOUT, it is withdrawn (``future.cancelled()``): it never runs. A command
    the table has taken runs; its answer is awaited as long again (None if it does not come).
    """
    waiting = asyncio.wrap_future(future)
    for _ in range(2):
        try:
            return await asyncio.wait_for(asyncio.shield(waiting), ANSWER_TIMEOUT)
        except TimeoutError:
            if future.cancel():  # still queued: withdrawn, the table drops it
                return None
    return None


class EventStream(StreamFront):
    """``GET /api/events`` as a plain ASGI app (no per-message framework layers: it is the
    path every state takes to every page). The whole current state first, then each new one;
    states queued while the page was slow go out together in one write, in order. ``HEAD``
    and the stream caps: serving.py's :class:`~controller.web.serving.StreamFront`."""

    server: WebServer

    async def stream(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request

        hub = self.server.hub
        paired = self.server.paired(Request(scope))
        sub = hub.subscribe(paired)
        try:
            await self.relay(sub.queue, lambda: sub.offer(None),
                             lambda frames, msg: frames.append(msg.sse(paired)), receive, send)
        finally:
            hub.unsubscribe(sub)
