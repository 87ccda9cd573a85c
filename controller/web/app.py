"""Putting the parts together: the web view of a running table, and the virtual table.

:class:`WebView` serves a table whose loop someone else drives (``play --web``,
``demo --web``): :meth:`WebView.attach` makes the controller publish its state and returns
the Source that brings the page's buttons into that loop.

:func:`run_virtual_table` is ``dvonn-board web``: a TableController fed by a
:class:`~controller.web.virtual.VirtualTable` (the browser board is the table), driven by a
Runner in the calling thread until ``until()`` is true or Ctrl-C.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from controller.table.debounce import Timing
from controller.table.session import TableController
from controller.web.bridge import ControlSource, Inbox, Publisher
from controller.web.hub import StateHub
from controller.web.server import CameraFrames, WebServer, parse_address
from controller.web.virtual import Agent, VirtualTable
from hardware.clock import Clock, SystemClock

#: The virtual table's sensor is exact: a change is real as soon as it is read.
VIRTUAL_TIMING = Timing(noise=0.0, stable=0.0)


class WebView:
    """The hub, the inbox and the server of one table's web view (see the module docstring).

    ``address`` is ``[HOST:]PORT`` (port 0: any free port). ``camera``: a function returning
    the latest annotated frame (BGR array) or None, when the camera is the sensor.
    """

    def __init__(self, address: str, *, virtual: bool = False,
                 camera: Callable[[], Any] | None = None, camera_interval: float = 0.5,
                 palette: dict[str, tuple[int, int, int]] | None = None,
                 token: str | None = None, share_hints: bool = False) -> None:
        host, port = parse_address(address)
        self.hub = StateHub(share_hints=share_hints)
        self.inbox = Inbox()
        self.publisher = Publisher(self.hub)
        frames = CameraFrames(camera, camera_interval) if camera is not None else None
        self.server = WebServer(self.hub, self.inbox, host=host, port=port, token=token,
                                virtual=virtual, camera=frames, palette=palette)

    @property
    def token(self) -> str:
        return self.server.token

    def attach(self, ctl: TableController, clock: Clock) -> ControlSource:
        """Publish ``ctl``'s state from now on; the returned Source feeds the page's buttons
        into the loop that drives ``ctl`` (add it to that Runner's sources)."""
        self.publisher.attach(ctl)
        return ControlSource(self.inbox, clock)

    def start(self, out: TextIO | None = None) -> list[str]:
        """Serve; prints the pairing URLs (``...?token=TOKEN``) on ``out``; returns them."""
        self.server.start()
        urls = self.server.urls()
        if out is not None:
            print(f"web view: {urls[0]}", file=out, flush=True)
            for url in urls[1:]:
                print(f"web view on the network: {url}", file=out, flush=True)
            print("open one of these links once on each player's phone to pair it; the same "
                  "address without ?token= is a read-only spectators' view", file=out,
                  flush=True)
        return urls

    def stop(self) -> None:
        """Stop serving (safe twice)."""
        self.server.stop()

    close = stop

    def __enter__(self) -> WebView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class VirtualOptions:
    """What ``dvonn-board web`` was asked for."""

    address: str = "127.0.0.1:8080"
    agents: dict[str, Agent] = field(default_factory=dict)
    players: tuple[str, str] = ("White", "Black")
    auto_remove: bool = True
    share_hints: bool = False
    hints: bool = False
    token: str | None = None
    journal: Any = None  # a controller.journal.store.Journal, or None (the game is not stored)


def make_virtual_table(opts: VirtualOptions, clock: Clock | None = None
                       ) -> tuple[TableController, WebView, VirtualTable, Any]:
    """The controller, web view, virtual table and Runner of a virtual table (not started)."""
    from controller.runner import Runner

    clock = clock or SystemClock()
    ctl = TableController(journal=opts.journal, colours=False, timing=VIRTUAL_TIMING,
                          players=opts.players, source="virtual", hints=opts.hints)
    web = WebView(opts.address, virtual=True, token=opts.token, share_hints=opts.share_hints)
    table = VirtualTable(ctl, web.inbox, clock, auto_remove=opts.auto_remove,
                         agents=opts.agents)
    web.publisher.overlay = table.overlay
    table.on_change = lambda: web.publisher(ctl)
    web.publisher.attach(ctl)
    runner = Runner(ctl, sources=[table], clock=clock, frame_interval=None)
    return ctl, web, table, runner


def run_virtual_table(opts: VirtualOptions, out: TextIO = sys.stdout,
                      until: Callable[[], bool] | None = None,
                      ready: Callable[[WebView], None] | None = None) -> TableController:
    """Serve a virtual table and drive it in this thread until ``until()`` (or Ctrl-C)."""
    ctl, web, table, runner = make_virtual_table(opts)
    try:
        web.start(out)
        if ready is not None:
            ready(web)
        if ctl.resumed:
            print(f"resuming game {ctl.game_id} at ply {ctl.game.ply}", file=out, flush=True)
        try:
            runner.run(until=until, poll=0.05)
        except KeyboardInterrupt:
            print("stopped", file=out, flush=True)
    finally:
        table.close()
        web.stop()
    return ctl
