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
from pathlib import Path
from typing import Any, TextIO

from controller.i18n import _, localize
from controller.i18n import side as side_name
from controller.table.debounce import Timing
from controller.table.session import TableController
from controller.web.bridge import ControlSource, Inbox, Publisher
from controller.web.hub import StateHub
from controller.web.pairing import CODE_TTL
from controller.web.server import CameraFrames, WebServer, parse_address
from controller.web.transport import Limits
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
                 token: str | None = None, share_hints: bool = False,
                 limits: Limits | None = None, host_names: tuple[str, ...] = (),
                 devices: Path | None = None, computer: frozenset[str] = frozenset(),
                 review_budget: float | None = None) -> None:
        host, port = parse_address(address)
        self.hub = StateHub(share_hints=share_hints)
        self.inbox = Inbox()
        self.publisher = Publisher(self.hub)
        self.camera_interval = camera_interval
        frames = CameraFrames(camera, camera_interval) if camera is not None else None
        self.server = WebServer(self.hub, self.inbox, host=host, port=port, token=token,
                                virtual=virtual, camera=frames, palette=palette, limits=limits,
                                host_names=host_names, devices=devices, computer=computer)
        if review_budget is not None:
            self.server.reviews.budget = review_budget
        self._out: TextIO | None = None

    @property
    def token(self) -> str | None:
        """The scripts' token (``X-Dvonn-Token``), None when there is none."""
        return self.server.token

    def attach(self, ctl: TableController, clock: Clock) -> ControlSource:
        """Publish ``ctl``'s state from now on; the returned Source feeds the page's buttons
        into the loop that drives ``ctl`` (add it to that Runner's sources). The page reviews
        the games of ``ctl``'s journal (a Journal may be shared between threads)."""
        self.server.journal = ctl.journal
        hint_only(ctl)
        self.publisher.attach(ctl)
        return ControlSource(self.inbox, clock)

    def bind(self) -> None:
        """Take the address now (DvonnError when it is taken): before a journal is opened,
        so that a busy port leaves no file behind. ``start`` serves it."""
        self.server.bind()

    def use_camera(self, camera: Callable[[], Any]) -> None:
        """Serve the frames of ``camera`` (a function returning the latest annotated frame);
        before ``start``."""
        self.server.camera = CameraFrames(camera, self.camera_interval)

    def start(self, out: TextIO | None = None) -> list[str]:
        """Serve; prints the page's URLs, a pairing code and (once) a URL carrying it on
        ``out``, where later pairing codes are printed too; returns the page's URLs."""
        self.server.start()
        urls = self.server.urls()
        if out is not None:
            def say(line: str) -> None:
                print(line, file=out, flush=True)

            self.server.pairing.announce = say
            say(f"web view: {urls[0]}")
            for url in urls[1:]:
                say(f"web view on the network: {url}")
            code = self.server.pairing.new_code()
            say(f"pairing code: {code} (one phone, {CODE_TTL / 60:g} minutes; the page's "
                "'Show a new code on the table' prints a new one here)")
            say(f"pair a phone without typing: {urls[-1]}?pair={code} (works once)")
            say("a page that is not paired is a read-only spectators' view")
            self._out = out
            self._say_invitations()
        return urls

    def invite(self, opponent: Any) -> int:
        """Serve the remote players' seats of ``opponent`` (its ``remote`` sides, played on
        the page ``/remote``): their invitations are printed now, or when the view starts.
        Returns how many there are."""
        from controller.players.seats import WebSeat

        seats = [p for p in dict(getattr(opponent, "players", None) or {}).values()
                 if isinstance(p, WebSeat)]
        for seat in seats:
            self.server.remote.add(seat)
        if seats and self._out is not None:
            self._say_invitations()
        return len(seats)

    def _say_invitations(self) -> None:
        for seat in self.server.remote.seats:
            path = self.server.remote.invitation(seat.side)
            if path and self._out is not None:
                print(_("invitation for the remote player of {side}: {url} (works once: "
                        "whoever opens it plays {side}; paired phones show it too)").format(
                            side=localize(side_name(seat.side)),
                            url=self.server.full_url(path)), file=self._out, flush=True)

    def stop(self) -> None:
        """Stop serving (safe twice)."""
        self.server.stop()

    close = stop

    def __enter__(self) -> WebView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def hint_only(ctl: TableController, agents: frozenset[str] = frozenset()) -> None:
    """Give a table without computer players (two people) an Opponent that only answers
    *Hint* (the best action, placements included), as the page promises; ``agents``: the
    sides a virtual table's computer plays (no hint kept up for them)."""
    if getattr(ctl, "opponent", None) is not None:
        return
    from controller.players.opponent import Opponent

    opponent = Opponent("human", "human")
    opponent.no_hints = agents
    opponent.attach(ctl)


@dataclass
class VirtualOptions:
    """What ``dvonn-board web`` was asked for."""

    address: str = "127.0.0.1:8080"
    agents: dict[str, Agent] = field(default_factory=dict)
    players: tuple[str, str] = ("White", "Black")
    auto_remove: bool = True
    share_hints: bool = False
    hints: bool = False
    token: str | None = None  # the scripts' X-Dvonn-Token (--token-file, DVONN_WEB_TOKEN)
    host_names: tuple[str, ...] = ()  # Host names besides the table's own (--web-host-name)
    devices: Path | None = None  # the paired devices' file (None: kept in memory only)
    journal: Any = None  # a controller.journal.store.Journal, or None (the game is not stored)
    #: opens the journal once the address is bound (a busy port leaves no file); the caller
    #: closes what it returned. Used when ``journal`` is None.
    open_journal: Callable[[], Any] | None = None
    limits: Limits | None = None  # the web server's connection limits (transport.Limits)
    review_budget: float | None = None  # seconds of engine time a game's review (reviews.py)
    publish: Any = None  # --publish: a StatePublisher (controller.remote.publisher) to attach
    clock: Any = None  # --clock: a controller.table.timer.ClockOptions (None: no game clock)
    #: --speak/--speak-to: a controller.speech.announcer.Announcer to attach (the caller
    #: closes it)
    speak: Any = None
    tutor: str | None = None  # --tutor [LEVEL]: the live tutor (controller.players.tutor)
    learn: bool = False  # --learn: the first game's lessons (controller.players.lessons)


def make_virtual_table(opts: VirtualOptions, clock: Clock | None = None
                       ) -> tuple[TableController, WebView, VirtualTable, Any]:
    """The controller, web view, virtual table and Runner of a virtual table (not started;
    the web view's address is bound before the journal is opened)."""
    from controller.runner import Runner

    clock = clock or SystemClock()
    web = WebView(opts.address, virtual=True, token=opts.token, share_hints=opts.share_hints,
                  limits=opts.limits, host_names=opts.host_names, devices=opts.devices,
                  computer=frozenset(opts.agents), review_budget=opts.review_budget)
    web.bind()
    try:
        journal = opts.journal
        if journal is None and opts.open_journal is not None:
            journal = opts.open_journal()
        ctl = TableController(journal=journal, colours=False, timing=VIRTUAL_TIMING,
                              players=opts.players, source="virtual", hints=opts.hints)
    except BaseException:
        web.stop()
        raise
    table = VirtualTable(ctl, web.inbox, clock, auto_remove=opts.auto_remove,
                         agents=opts.agents)
    web.publisher.overlay = table.overlay
    table.on_change = lambda: web.publisher(ctl)
    web.server.journal = journal  # the page reviews its games
    if opts.clock is not None:  # the game clock (--clock): before the page's publisher
        from controller.table.timer import TableClock

        store = None
        if journal is not None:
            from controller.journal.clocks import ClockStore

            store = ClockStore(journal)
        TableClock(ctl, opts.clock.control, clock, options=opts.clock, store=store)
    hint_only(ctl, frozenset(opts.agents))
    web.publisher.attach(ctl)
    if opts.publish is not None:
        opts.publish.attach(ctl)
    sources: list[Any] = [table]
    if opts.speak is not None:  # hears what the table committed, at every round
        sources.append(opts.speak.attach(ctl, clock))
    if opts.tutor or opts.learn:  # the page's requests reach the tutor through the table
        from controller.players.teaching import teach

        table.closing.extend(teach(ctl, sources, tutor=opts.tutor, learn=opts.learn,
                                   clock=clock))  # (the tutor's worker: closed with the table)
        web.publisher(ctl)
    runner = Runner(ctl, sources=sources, clock=clock, frame_interval=None)
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
            print(_("resuming game {id} at ply {ply}").format(id=ctl.game_id, ply=ctl.game.ply),
                  file=out, flush=True)
        try:
            runner.run(until=until, poll=0.05)
        except KeyboardInterrupt:
            print(_("stopped"), file=out, flush=True)
    finally:
        table.close()
        web.stop()
    return ctl
