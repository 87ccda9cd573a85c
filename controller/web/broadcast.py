"""``dvonn-board broadcast``: one read-only page with every table of a club, live.

The tables publish under ``CLUB/TABLE/`` (controller.remote.publisher); this server
subscribes to ``CLUB/+/state``, ``CLUB/+/presence`` and ``CLUB/+/result/+`` through one
:class:`~controller.remote.link.MqttLink` (it reconnects and resubscribes by itself, and the
retained messages come again), checks every message (controller.web.club) and serves:

- ``GET /``: the page (static/broadcast.html, .js, .css; no build step, nothing from outside).
- ``GET /api/tables``: a JSON list, one object a table: ``name``, ``online``, ``status``
  (``online`` or ``left``: its state was cleared or it went offline), ``seq`` and ``state``
  (its ``table_state``, None when cleared).
- ``GET /api/standings``: ``{"standings": [...], "games": [...]}`` (club.py's rule).
- ``GET /api/record/TABLE`` (the table's current game) and ``GET /api/record/TABLE/KEY`` (a
  finished game): a Little Golem record to download (``dvonn-board replay`` reads it).
- ``GET /api/events``: Server-Sent Events: first ``event: club`` (every table, the standings,
  the games and whether the broker is connected), then ``event: table`` (one table's entry)
  whenever a table changes, ``event: results`` when the standings change and ``event:
  broker`` when the broker connection comes or goes. Each frame is encoded once for every
  page; a page that falls behind gets a new ``club`` frame instead of its backlog.

Requests pass the web view's gate (guard.py: Host names, sizes, no framing; only GET and
HEAD: the page is read-only) and connection limits (transport.py: per address, in all, event
streams).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from pathlib import Path
from typing import Any

from controller.i18n import LANGUAGES, Msg, catalog, from_accept_language
from controller.remote.link import MqttLink
from controller.remote.url import BrokerURL, Credentials
from controller.web.club import NAME, Club
from controller.web.guard import Guard, HostCheck
from controller.web.page import RADIUS, _json_for_script, cell_positions, hexagon
from controller.web.serving import Serving, StreamFront
from controller.web.transport import Connections, Limits
from engine.errors import DvonnError

log = logging.getLogger("dvonn.broadcast")
STATIC = Path(__file__).resolve().parent / "static"
QUEUE_SIZE = 256  # frames a page may fall behind before it gets a new snapshot instead
#: The broadcast page's limits: many spectators, each on its own address.
LIMITS = Limits(per_address=16, total=1000, streams=512, streams_per_address=4)
RESYNC = b""  # a marker in a page's queue: send a whole snapshot


def frame(event: str, data: Any) -> bytes:
    """One Server-Sent Events frame."""
    return b"event: %s\ndata: %s\n\n" % (event.encode(), json.dumps(
        data, separators=(",", ":"), ensure_ascii=False).encode())


class Page:
    """One open event stream: a bounded queue of frames (None: the stream ends)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE_SIZE)
        self.resyncs = 0

    def offer(self, data: bytes | None) -> None:
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:  # fallen behind: a snapshot instead of the backlog
            while not self.queue.empty():
                self.queue.get_nowait()
            self.resyncs += 1
            self.queue.put_nowait(RESYNC if data is not None else None)


class BroadcastServer(Serving):
    """The broadcast page of ``url``'s club (see the module docstring). ``start()`` connects
    to the broker and serves in threads of its own; ``stop()`` ends both (safe twice)."""

    THREAD = "dvonn-broadcast"
    BACKLOG = 512

    def __init__(self, url: BrokerURL, *, host: str = "0.0.0.0", port: int = 8080,
                 credentials: Credentials | None = None, limits: Limits | None = None,
                 host_names: tuple[str, ...] = (), language: str = "auto",
                 link: Any = None) -> None:
        if len(url.path) != 1:
            raise DvonnError(Msg("broadcast --broker {url}: the path is the club only, e.g. "
                                 "mqtt://HOST/club", url=str(url)))
        super().__init__(host, port, Connections(limits or LIMITS))
        self.url = url
        self.club = Club(url.path[0])
        self.host_names = host_names
        self.language = language
        self.credentials = credentials
        self.link: Any = link
        self.pages: set[Page] = set()
        self.frames = 0  # change frames fanned out
        self._snapshot: bytes | None = None  # the current 'club' frame (loop thread)
        self._broker = False
        self._pump: threading.Thread | None = None
        self._stopping = threading.Event()
        self.app = self._build_app()

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Bind, serve and connect to the broker (threads of their own)."""
        super().start()
        if self.link is None:
            self.link = MqttLink(self.url, name="dvonn-broadcast", credentials=self.credentials)
        for kind in ("+/state", "+/presence", "+/result/+"):
            self.link.subscribe(f"{self.club.club}/{kind}")
        self._pump = threading.Thread(target=self._take_in, name="dvonn-broadcast-mqtt",
                                      daemon=True)
        self._pump.start()

    def stop(self) -> None:
        """Stop taking in and serving (safe twice)."""
        self._stopping.set()
        if self._pump is not None:
            self._pump.join(5.0)
            self._pump = None
        if self.link is not None:
            self.link.close()
        super().stop()

    # ------------------------------------------------------------------ the broker's thread
    def _take_in(self) -> None:
        """Take in the broker's messages and hand each change to the pages."""
        while not self._stopping.is_set():
            first = self.link.wait_message(0.2)
            batch = ([first] if first is not None else []) + self.link.messages()
            frames: list[bytes] = []
            if self.link.connected != self._broker:
                self._broker = bool(self.link.connected)
                frames.append(frame("broker", {"connected": self._broker}))
            changed: list[str] = []
            results = False
            for msg in batch:
                name, res = self.club.apply(msg.topic, msg.payload)
                if name is not None and name not in changed:
                    changed.append(name)
                results |= res
            for name in changed:
                entry = self.club.entry(name)
                if entry is not None:
                    frames.append(frame("table", entry))
            if results:
                frames.append(frame("results", self._results()))
            if frames:
                self._hand_over(frames)

    def _results(self) -> dict[str, Any]:
        return {"standings": self.club.standings(), "games": self.club.games()}

    def _hand_over(self, frames: list[bytes]) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody listens
            loop.call_soon_threadsafe(self._fan_out, b"".join(frames))

    # ------------------------------------------------------------------ the server's loop
    def tables(self) -> list[dict[str, Any]]:
        """/api/tables: every table's entry (with its ``seq``)."""
        return self.club.entries()

    def snapshot(self) -> bytes:
        """The ``club`` frame (cached until the next change)."""
        if self._snapshot is None:
            self._snapshot = frame("club", {"club": self.club.club, "broker": self._broker,
                                            "tables": self.tables(), **self._results()})
        return self._snapshot

    def _fan_out(self, data: bytes) -> None:
        self._snapshot = None
        self.frames += 1
        for page in self.pages:
            page.offer(data)

    def keep_alive_streams(self) -> None:
        for page in self.pages:
            if page.queue.empty():
                page.offer(b": keep-alive\n\n")

    def end_streams(self) -> None:
        for page in self.pages:
            page.offer(None)
        self.pages.clear()

    def _build_app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.requests import Request
        from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles

        template = (STATIC / "broadcast.html").read_text(encoding="utf-8")

        async def page(request: Request) -> Response:
            lang = (self.language if self.language in LANGUAGES
                    else from_accept_language(request.headers.get("accept-language")))
            config = {"club": self.club.club, "cells": cell_positions(), "radius": RADIUS,
                      "hex": hexagon(True), "lang": lang, "catalog": catalog(lang),
                      "languages": list(LANGUAGES)}
            html = (template.replace("{lang}", lang)
                    .replace("{club}", self.club.club)  # letters, digits, - _ . only
                    .replace("{config}", _json_for_script(config)))
            return HTMLResponse(html, headers={"Cache-Control": "no-store"})

        def no_store(data: Any) -> Response:
            return JSONResponse(data, headers={"Cache-Control": "no-store"})

        async def api_tables(request: Request) -> Response:
            return no_store(self.tables())

        async def api_standings(request: Request) -> Response:
            return no_store(self._results())

        async def api_i18n(request: Request) -> Response:
            lang = request.path_params["lang"]
            if lang not in LANGUAGES:
                return JSONResponse({"error": "no such language"}, status_code=404)
            return JSONResponse(catalog(lang), headers={"Cache-Control": "no-cache"})

        async def api_record(request: Request) -> Response:
            name = request.path_params["table"]
            key = request.path_params.get("key")
            text = None
            if NAME.match(name) and (key is None or NAME.match(key)):
                text = self.club.record(name, key)
            if text is None:
                return JSONResponse({"error": "no such game"}, status_code=404)
            filename = f"{self.club.club}-{name}{'-' + key if key else ''}.txt"
            return PlainTextResponse(text, headers={
                "Content-Disposition": f'attachment; filename="{filename}"',
                "Cache-Control": "no-store"})

        routes = [
            Route("/", page, methods=["GET", "HEAD"]),
            Route("/api/tables", api_tables, methods=["GET", "HEAD"]),
            Route("/api/standings", api_standings, methods=["GET", "HEAD"]),
            Route("/api/i18n/{lang}", api_i18n, methods=["GET", "HEAD"]),
            Route("/api/record/{table}", api_record, methods=["GET", "HEAD"]),
            Route("/api/record/{table}/{key}", api_record, methods=["GET", "HEAD"]),
            Route("/api/events", Events(self), methods=["GET", "HEAD"]),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ]
        hosts = HostCheck(self.host, self.host_names)
        return Starlette(routes=routes, lifespan=self.lifespan,
                         middleware=[Middleware(Guard, hosts=hosts)])


class Events(StreamFront):
    """``GET /api/events`` as a plain ASGI app (see the module docstring); ``HEAD`` and the
    stream caps: serving.py's :class:`~controller.web.serving.StreamFront`."""

    server: BroadcastServer

    async def stream(self, scope: Any, receive: Any, send: Any) -> None:
        server = self.server
        page = Page()
        page.offer(RESYNC)
        server.pages.add(page)

        def add(frames: list[bytes], data: bytes) -> None:
            if data == RESYNC:
                frames[:] = [server.snapshot()]  # the whole club: the backlog is moot
            else:
                frames.append(data)

        try:
            await self.relay(page.queue, lambda: page.offer(None), add, receive, send)
        finally:
            server.pages.discard(page)
