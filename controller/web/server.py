"""The web server: Starlette on uvicorn, in a thread of its own beside the controller's loop.

Routes (the contract pages and outside tests rely on):

- ``GET /``: the page (``?token=TOKEN`` once: stores the pairing token in a cookie, then
  redirects to ``/`` so the link does not stay in the address bar).
- ``GET /api/state``: the ``table_state`` JSON (:mod:`controller.publish`).
- ``GET /api/events``: Server-Sent Events, ``event: state`` with the whole state as data and
  its sequence number as ``id``; the current state first, then every change in order.
- ``GET /api/info``: what this server offers (virtual table, camera, pairing, hint sharing).
- ``GET /api/camera.jpg``: the camera's latest annotated frame (404 without a camera;
  re-encoded at most ``camera_interval`` seconds apart, whatever the number of pages).
- ``POST /api/control/NAME``: the buttons (confirm, next, undo, hint, new), ``share`` (let
  spectators see hints: ``?on=1`` / ``?on=0``, toggles without it) and
  ``POST /api/control/click/CELL`` (the virtual table). Only with the pairing token (cookie,
  ``X-Dvonn-Token`` header or ``token`` query parameter); without it: 403 and nothing changes.
  Answers 200 ``{"ok": true}`` once the controller has the command, 409 with the reason when
  it was refused (an illegal click), 503 when the table did not answer in time.

Pages without the token are spectators: read-only, and hints are hidden from them unless the
players share them (:mod:`controller.web.hub`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from controller.web.bridge import CONTROLS, Command, Inbox
from controller.web.hub import StateHub
from controller.web.page import render_page
from engine.errors import DvonnError

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "dvonn_token_{port}"  # cookies ignore ports: one name per server
KEEPALIVE = 15.0  # seconds between SSE comments on a quiet stream
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
        raise DvonnError(f"{text!r} is not [HOST:]PORT (e.g. 8080 or 127.0.0.1:8080)") from None
    if not 0 <= port <= 65535:
        raise DvonnError(f"port {port} in {text!r} is out of range (0-65535)")
    return host, port


def lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent), if it has one."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.254.254.254", 1))
        addr = str(s.getsockname()[0])
        if not addr.startswith("127."):
            return addr
    return None


class WebServer:
    """Serves the view of one table (see the module docstring); ``start()`` runs it in a
    thread, ``stop()`` ends it (safe twice). The controller is never touched from here:
    states come through ``hub``, commands go through ``inbox``."""

    def __init__(
        self,
        hub: StateHub,
        inbox: Inbox | None,
        *,
        host: str = "0.0.0.0",
        port: int = 8080,
        token: str | None = None,
        virtual: bool = False,
        camera: CameraFrames | None = None,
        palette: dict[str, tuple[int, int, int]] | None = None,
        title: str = "dvonn-board",
    ) -> None:
        self.hub = hub
        self.inbox = inbox
        self.host = host
        self.port = port
        self.token = token or secrets.token_urlsafe(18)
        self.virtual = virtual
        self.camera = camera
        self.palette = palette
        self.title = title
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sock: socket.socket | None = None
        self._started = threading.Event()
        self.app = self._build_app()

    # ------------------------------------------------------------------ addresses
    def urls(self) -> list[str]:
        """The page's pairing URLs: this machine first, then the local network's address."""
        hosts = [self.host]
        if self.host in ("0.0.0.0", "::", ""):
            hosts = ["127.0.0.1"] + [a for a in (lan_address(),) if a]
        out = []
        for h in hosts:
            shown = f"[{h}]" if ":" in h else h
            out.append(f"http://{shown}:{self.port}/?token={self.token}")
        return out

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Bind (DvonnError when the address is taken) and serve in a daemon thread."""
        import uvicorn

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
            sock.listen(128)
        except OSError as exc:
            sock.close()
            raise DvonnError(f"cannot serve on {self.host}:{self.port}: {exc.strerror or exc}"
                             ) from None
        self._sock = sock
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_config=None, log_level="warning",
                                access_log=False, lifespan="on", timeout_graceful_shutdown=2,
                                timeout_keep_alive=30, limit_concurrency=1000)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="dvonn-web", daemon=True)
        self._thread.start()
        if not self._started.wait(10.0) or self._loop is None or not self._thread.is_alive():
            self.stop()
            raise DvonnError(f"the web server on {self.host}:{self.port} did not start")

    def _serve(self) -> None:
        assert self._server is not None and self._sock is not None
        try:
            self._server.run(sockets=[self._sock])
        finally:
            self._started.set()

    def stop(self) -> None:
        """End every event stream, stop the server and wait for its thread (safe twice)."""
        loop, server = self._loop, self._server
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.hub.close)
        if server is not None:
            server.should_exit = True
        if self._thread is not None:
            self._thread.join(10.0)
            self._thread = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self.inbox is not None:
            self.inbox.refuse_all("the table is shutting down")

    def __enter__(self) -> WebServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the app
    @property
    def cookie(self) -> str:
        """The pairing cookie's name (it carries the port: cookies ignore ports)."""
        return COOKIE.format(port=self.port)

    def paired(self, request: Any) -> bool:
        """Whether the request carries the pairing token (cookie, header or query)."""
        for given in (request.cookies.get(self.cookie), request.headers.get("x-dvonn-token"),
                      request.query_params.get("token")):
            if given and hmac.compare_digest(given.encode(), self.token.encode()):
                return True
        return False

    def _build_app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import (
            HTMLResponse,
            JSONResponse,
            RedirectResponse,
            Response,
        )
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles

        hub = self.hub

        @contextlib.asynccontextmanager
        async def lifespan(app: Any) -> AsyncIterator[None]:
            self._loop = asyncio.get_running_loop()
            hub.bind(self._loop)
            self._started.set()

            async def keep_alive() -> None:
                while True:
                    await asyncio.sleep(KEEPALIVE)
                    hub.keep_alive()

            ticker = asyncio.create_task(keep_alive())
            yield
            ticker.cancel()
            hub.close()

        def info(paired: bool) -> dict[str, Any]:
            return {"virtual": self.virtual, "camera": self.camera is not None,
                    "paired": paired, "share_hints": hub.share_hints,
                    "controls": list(CONTROLS) + [SHARE] + ([CLICK] if self.virtual else [])}

        async def page(request: Request) -> Response:
            given = request.query_params.get("token")
            if given is not None:
                if hmac.compare_digest(given.encode(), self.token.encode()):
                    response = RedirectResponse("/", status_code=303)
                    response.set_cookie(self.cookie, self.token, max_age=30 * 24 * 3600,
                                        httponly=True, samesite="strict")
                    return response
                notice = "This pairing link is not valid (the table was restarted?): read-only."
            else:
                notice = ""
            paired = self.paired(request)
            msg = hub.latest
            state = None if msg is None else msg.json(paired).decode()
            html = render_page(state, info=info(paired), palette=self.palette,
                               title=self.title, notice=notice)
            return HTMLResponse(html, headers={"Cache-Control": "no-store"})

        async def api_state(request: Request) -> Response:
            msg = hub.latest
            if msg is None:
                return JSONResponse({"error": "no state yet"}, status_code=503)
            return Response(msg.json(self.paired(request)), media_type="application/json",
                            headers={"Cache-Control": "no-store", "X-State-Seq": str(msg.seq)})

        async def api_info(request: Request) -> Response:
            return JSONResponse(info(self.paired(request)))


        async def camera(request: Request) -> Response:
            if self.camera is None:
                return JSONResponse({"error": "the camera is not this table's sensor"},
                                    status_code=404)
            from starlette.concurrency import run_in_threadpool

            jpeg = await run_in_threadpool(self.camera.jpeg)
            if jpeg is None:
                return JSONResponse({"error": "no frame yet"}, status_code=503)
            return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

        async def control(request: Request) -> Response:
            if not self.paired(request):
                return JSONResponse(
                    {"ok": False, "detail": "pairing token missing or wrong: open the "
                     "page's ?token= link that the command printed"}, status_code=403)
            name = request.path_params.get("name", CLICK)
            if name == SHARE:
                on = request.query_params.get("on")
                share = (not hub.share_hints) if on is None else on not in ("0", "false", "off")
                hub.set_share_hints(share)
                return JSONResponse({"ok": True, "share_hints": share})
            arg = request.path_params.get("cell", "")
            if name == CLICK and not self.virtual:
                return JSONResponse({"ok": False, "detail": "this table has no virtual board"},
                                    status_code=404)
            if (name not in CONTROLS and name != CLICK) or (name == CLICK and not arg):
                return JSONResponse({"ok": False, "detail": f"no control {name!r}"},
                                    status_code=404)
            if self.inbox is None:
                return JSONResponse({"ok": False, "detail": "this view is read-only"},
                                    status_code=404)
            seat = request.query_params.get("seat", "")
            if seat not in ("", "w", "b"):
                return JSONResponse({"ok": False, "detail": f"seat {seat!r} is not w or b"},
                                    status_code=400)
            future = self.inbox.put(Command(name, arg, seat))
            try:
                answer = await asyncio.wait_for(asyncio.wrap_future(future), ANSWER_TIMEOUT)
            except TimeoutError:
                return JSONResponse({"ok": False, "detail": "the table did not answer"},
                                    status_code=503)
            return JSONResponse(answer, status_code=200 if answer.get("ok") else 409)

        routes = [
            Route("/", page),
            Route("/api/state", api_state),
            Route("/api/info", api_info),
            Route("/api/events", EventStream(self), methods=["GET"]),
            Route("/api/camera.jpg", camera),
            Route("/api/control/click/{cell}", control, methods=["POST"],
                  name="click"),
            Route("/api/control/{name}", control, methods=["POST"]),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ]
        app = Starlette(routes=routes, lifespan=lifespan)
        return app


class EventStream:
    """``GET /api/events`` as a plain ASGI app (no per-message framework layers: it is the
    path every state takes to every page). The whole current state first, then each new one;
    states queued while the page was slow go out together in one write, in order."""

    def __init__(self, server: WebServer) -> None:
        self.server = server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request

        hub = self.server.hub
        paired = self.server.paired(Request(scope))
        sub = hub.subscribe(paired)

        async def watch() -> None:  # the page went away: end the stream
            while (await receive())["type"] != "http.disconnect":
                pass
            sub.offer(None)

        watcher = asyncio.create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-store"), (b"x-accel-buffering", b"no")]})
            await send({"type": "http.response.body", "body": b"retry: 1000\n\n",
                        "more_body": True})
            queue = sub.queue
            while True:
                msg = await queue.get()
                frames = []
                while msg is not None:
                    frames.append(msg.sse(paired))
                    if queue.empty():
                        break
                    msg = queue.get_nowait()
                if frames:
                    await send({"type": "http.response.body", "body": b"".join(frames),
                                "more_body": True})
                if msg is None:
                    break
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            hub.unsubscribe(sub)
