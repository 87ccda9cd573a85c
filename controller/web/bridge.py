"""Between the controller's thread and the web server's: states out, commands in.

:class:`Publisher` listens to the TableController (``ctl.listeners``) and publishes its
``table_state`` to a :class:`~controller.web.hub.StateHub` whenever it changed.

:class:`Inbox` carries commands from the web server (control buttons, virtual-table clicks)
to the thread that drives the controller: the server puts a :class:`Command` and waits for
its future; the driving thread takes it in a source's ``poll`` and answers after the
controller has handled what came of it. The controller is never touched from the server.

:class:`ControlSource` is the runner Source for the buttons: each command becomes a
ButtonEvent (``new`` as a long press: a page asks the player before it sends it).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from controller.i18n import Msg
from controller.publish import table_state
from controller.table.session import TableController
from controller.web.hub import StateHub
from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells
from engine.move import Move
from hardware.clock import Clock
from hardware.events import ALL_BUTTONS, ButtonEvent, SensorEvent

#: The control names a page may post (the table's buttons) besides the virtual table's clicks.
CONTROLS = ALL_BUTTONS  # the five, and ``clock`` (the game clock, when one runs)


@dataclass
class Command:
    """A request from a page: ``name`` (a button, or 'click') and its argument."""

    name: str
    arg: str = ""
    seat: str = ""  # 'w' or 'b' when the page plays one side only
    future: Future[dict[str, Any]] = field(default_factory=Future)

    def answer(self, ok: bool, detail: str = "") -> None:
        if not self.future.done():
            self.future.set_result({"ok": ok, "detail": detail})


class Publisher:
    """Publishes the controller's state to ``hub`` when it changed (a controller listener).

    ``overlay`` may amend the state before it goes out (the virtual table shows a stack in
    the hand that the controller has not been told about yet)."""

    def __init__(self, hub: StateHub,
                 overlay: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.hub = hub
        self.overlay = overlay
        self.last: dict[str, Any] | None = None
        self.published = 0
        self.cuts = CutOffs()

    def attach(self, ctl: TableController) -> None:
        """Listen to ``ctl`` and publish its state now."""
        if self not in ctl.listeners:
            ctl.listeners.append(self)
        self(ctl)

    def __call__(self, ctl: TableController) -> None:
        state = table_state(ctl)
        state["cut_off"] = self.cuts(ctl.game, ctl.game_id)
        if self.overlay is not None:
            state = self.overlay(state)
        if state != self.last:
            self.last = state
            self.hub.publish(state)
            self.published += 1


class CutOffs:
    """What each action of the game cut off, for the page's action list: ``{"I": {cell:
    pieces}}`` for the actions (index I in ``actions``) that cut anything off. Kept from one
    call to the next: only actions after the part of the game already seen are replayed."""

    def __init__(self) -> None:
        self._key: object = None
        self._moves: list[Move] = []
        self._cuts: dict[str, dict[str, str]] = {}

    def __call__(self, game: Game, key: object = None) -> dict[str, dict[str, str]]:
        moves = game.move_stack
        same = 0
        if key == self._key:
            while same < min(len(moves), len(self._moves)) and moves[same] == self._moves[same]:
                same += 1
        self._key = key
        self._cuts = {i: c for i, c in self._cuts.items() if int(i) < same}
        if same < len(moves):
            g = game.copy()
            while len(g.move_stack) > same:
                g.pop()
            for i in range(same, len(moves)):
                stacks = g.stacks()
                cut = g.push_unchecked(moves[i])
                if cut:
                    self._cuts[str(i)] = {CELL_NAMES[c]: stacks[c] for c in iter_cells(cut)}
        self._moves = list(moves)
        return dict(self._cuts)


class InboxFull(Exception):
    """The table has ``Inbox.limit`` commands waiting already: the page is told at once."""


class Inbox:
    """A thread-safe queue of commands, answered by the thread that drives the controller.

    At most ``limit`` commands wait (:class:`InboxFull` beyond). A command whose future was
    cancelled while it waited (its request timed out and was told so) is dropped when its
    turn comes: it never runs. A command taken is marked running, so it can no longer be
    cancelled: it runs and is answered."""

    LIMIT = 16

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._queue: queue.Queue[Command] = queue.Queue(limit)
        self.dropped = 0  # withdrawn commands skipped

    def put(self, command: Command) -> Future[dict[str, Any]]:
        """Queue ``command`` (InboxFull when ``limit`` wait already); its future."""
        try:
            self._queue.put_nowait(command)
        except queue.Full:
            raise InboxFull(Msg("{limit} commands are waiting for the table",
                               limit=self.limit)) from None
        return command.future

    def get(self, timeout: float = 0.0) -> Command | None:
        """The next command still wanted, waiting up to ``timeout`` seconds (0: only what
        is there)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                cmd = self._queue.get(timeout=left) if left > 0 else self._queue.get_nowait()
            except queue.Empty:
                return None
            if self._take(cmd):
                return cmd
            self.dropped += 1

    @staticmethod
    def _take(cmd: Command) -> bool:
        """Mark ``cmd`` running unless it was withdrawn (cancelled); whether it runs."""
        try:
            return cmd.future.set_running_or_notify_cancel()
        except RuntimeError:  # already running or answered: not withdrawn
            return not cmd.future.cancelled()

    def refuse_all(self, detail: str) -> None:
        while (cmd := self.get()) is not None:
            cmd.answer(False, detail)


class ControlSource:
    """A runner Source: the page's buttons as ButtonEvents (answered once they were fed).

    A command is answered on the poll after the one that returned its event, i.e. after the
    runner fed it to the controller. ``click`` commands are refused here: only a virtual
    table (:mod:`controller.web.virtual`) takes them.
    """

    def __init__(self, inbox: Inbox, clock: Clock) -> None:
        self.inbox = inbox
        self.clock = clock
        self._fed: list[Command] = []
        #: commands that are no button, by name, run in the table's thread: their answer is
        #: '' (done) or why not (the live tutor's ``tutor``: controller.players.teaching)
        self.handlers: dict[str, Callable[[str, str], str]] = {}

    def poll(self, timeout: float = 0.0) -> list[SensorEvent]:
        for fed in self._fed:
            fed.answer(True, fed.name)
        self._fed = []
        events: list[SensorEvent] = []
        while (cmd := self.inbox.get(timeout if not events else 0.0)) is not None:
            event = self.event_for(cmd)
            if event is not None:
                events.append(event)
                self._fed.append(cmd)
            if len(events) >= 8:
                break
        return events

    def event_for(self, cmd: Command) -> SensorEvent | None:
        """The ButtonEvent for a button command (None and the command answered otherwise)."""
        if cmd.name in CONTROLS:
            return ButtonEvent(self.clock.now(), cmd.name, cmd.name == "new")
        handler = self.handlers.get(cmd.name)
        if handler is not None:
            why = handler(cmd.arg, cmd.seat)
            cmd.answer(not why, why or cmd.arg)
            return None
        cmd.answer(False, Msg("this table has no virtual board: move the pieces on the table"))
        return None
