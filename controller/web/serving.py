"""What the table's web server (server.py) and the club's broadcast page (broadcast.py) share:
the page's addresses, taking the address, Starlette on uvicorn in a thread of its own (its
lifespan: the loop, the keep-alive ticker, the streams' end) and stopping it, and the front
of an event stream (``HEAD``, the stream caps of transport.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Self, TypeVar

from controller.i18n import Msg
from controller.web.transport import Connections, client_address, protocol_class
from engine.errors import DvonnError

KEEPALIVE = 15.0  # seconds between SSE comments on a quiet stream
T = TypeVar("T")


def lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent), if it has one."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.254.254.254", 1))
        addr = str(s.getsockname()[0])
        if not addr.startswith("127."):
            return addr
    return None


class Serving:
    """A Starlette app (``self.app``, set by the subclass) served by uvicorn in a daemon
    thread named ``THREAD`` on ``host:port`` (port 0: any free one; ``port`` is the real one
    once bound). ``start()`` serves, ``stop()`` ends it (safe twice). The subclass's app uses
    :meth:`lifespan`; its event streams are kept alive by :meth:`keep_alive_streams` and
    ended by :meth:`end_streams`."""

    app: Any  # the Starlette app (the subclass builds it)
    THREAD = "dvonn-web"
    BACKLOG = 128  # the listening socket's queue of connections not yet accepted

    def __init__(self, host: str, port: int, connections: Connections) -> None:
        self.host = host
        self.port = port
        self.connections = connections  # per-address caps and timers (transport.py)
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sock: socket.socket | None = None
        self._started = threading.Event()

    # ------------------------------------------------------------------ the subclass's part
    def loop_started(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called on the server's loop when it starts, before ``start()`` returns."""

    def keep_alive_streams(self) -> None:
        """Called on the server's loop every ``KEEPALIVE`` seconds."""

    def end_streams(self) -> None:
        """Called on the server's loop when the server stops: end every event stream."""

    # ------------------------------------------------------------------ addresses
    def urls(self) -> list[str]:
        """The page's URLs: this machine first, then the local network's address."""
        hosts = [self.host]
        if self.host in ("0.0.0.0", "::", ""):
            hosts = ["127.0.0.1"] + [a for a in (lan_address(),) if a]
        out = []
        for h in hosts:
            shown = f"[{h}]" if ":" in h else h
            out.append(f"http://{shown}:{self.port}/")
        return out

    # ------------------------------------------------------------------ lifecycle
    def bind(self) -> None:
        """Take the address now (DvonnError when it is taken); ``start()`` serves it."""
        if self._sock is not None:
            return
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
            sock.listen(self.BACKLOG)
        except OSError as exc:
            sock.close()
            raise DvonnError(Msg("cannot serve on {host}:{port}: {value}",
                                 host=self.host, port=self.port, value=exc.strerror or exc)
                             ) from None
        self._sock = sock
        self.port = sock.getsockname()[1]

    def start(self) -> None:
        """Bind (DvonnError when the address is taken) and serve in a daemon thread."""
        import uvicorn

        self.bind()
        # No limit_concurrency (a 503 for everyone): the per-address caps and timers of
        # transport.py; uvicorn's own keep-alive timer only backs up the idle timer.
        idle = self.connections.limits.idle_timeout
        config = uvicorn.Config(self.app, log_config=None, log_level="warning",
                                access_log=False, lifespan="on", timeout_graceful_shutdown=2,
                                timeout_keep_alive=max(1, math.ceil(idle)),
                                http=protocol_class(self.connections),
                                ws="none")  # no WebSockets: an upgrade would leave the caps
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name=self.THREAD, daemon=True)
        self._thread.start()
        if not self._started.wait(10.0) or self._loop is None or not self._thread.is_alive():
            self.stop()
            raise DvonnError(Msg("the web server on {host}:{port} did not start",
                                 host=self.host, port=self.port))

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
                loop.call_soon_threadsafe(self.end_streams)
        if server is not None:
            server.should_exit = True
        if self._thread is not None:
            self._thread.join(10.0)
            self._thread = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        """The app's lifespan: the loop is known, the keep-alive ticker runs, and at the end
        every event stream ends."""
        self._loop = asyncio.get_running_loop()
        self.loop_started(self._loop)
        self._started.set()

        async def keep_alive() -> None:
            while True:
                await asyncio.sleep(KEEPALIVE)
                self.keep_alive_streams()

        ticker = asyncio.create_task(keep_alive())
        yield
        ticker.cancel()
        self.end_streams()


class StreamFront:
    """The front of ``GET /api/events`` as a plain ASGI app: ``HEAD`` gets the headers only
    and ends; streams are capped in all and per client address (transport.py's
    :class:`~controller.web.transport.Limits`): one over a cap is answered 503 at once (the
    page tries again a second later). The subclass's :meth:`stream` sends the rest, most
    often through :meth:`relay`."""

    HEADERS = [(b"content-type", b"text/event-stream; charset=utf-8"),
               (b"cache-control", b"no-store"), (b"x-accel-buffering", b"no")]

    def __init__(self, server: Serving) -> None:
        self.server = server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("method") == "HEAD":
            await send({"type": "http.response.start", "status": 200, "headers": self.HEADERS})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        address = client_address(scope)
        streams = self.server.connections
        if not streams.open_stream(address):
            body = b'{"error":"too many event streams: try again later"}'
            await send({"type": "http.response.start", "status": 503, "headers": [
                (b"content-type", b"application/json"), (b"retry-after", b"5"),
                (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store")]})
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        try:
            await self.stream(scope, receive, send)
        finally:
            streams.close_stream(address)

    async def stream(self, scope: Any, receive: Any, send: Any) -> None:
        """The stream itself (the cap is taken, and given back when this returns)."""
        raise NotImplementedError

    async def relay(self, queue: asyncio.Queue[T | None], end: Callable[[], None],
                    add: Callable[[list[bytes], T], None], receive: Any, send: Any) -> None:
        """Send the stream's head, then what comes through ``queue`` until None comes (or
        the page goes away: then ``end()`` is called, which puts None in the queue). What
        has queued up while the page was slow goes out together in one write, in order:
        ``add(frames, item)`` adds an item's frames to the write's."""

        async def watch() -> None:  # the page went away: end the stream
            while (await receive())["type"] != "http.disconnect":
                pass
            end()

        watcher = asyncio.create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.HEADERS})
            await send({"type": "http.response.body", "body": b"retry: 1000\n\n",
                        "more_body": True})
            while True:
                item = await queue.get()
                frames: list[bytes] = []
                while item is not None:
                    add(frames, item)
                    if queue.empty():
                        break
                    item = queue.get_nowait()
                if frames:
                    await send({"type": "http.response.body", "body": b"".join(frames),
                                "more_body": True})
                if item is None:
                    break
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
