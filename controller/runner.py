"""The event loop: sources -> TableController -> renderer -> LED strip (and an optional log).

A source is anything with ``poll(timeout) -> list[SensorEvent]`` (the sensor board client, the
camera sensor, a button panel wrapped by :class:`Drain`). :meth:`Runner.step` does one round
and is what tests and the fast demo call; :meth:`Runner.run` loops with the real clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from controller.i18n import _, localize
from controller.interrupts import deferred_interrupts
from controller.table.heightcheck import HeightCheck
from controller.table.renderer import Renderer
from controller.table.session import TableController
from controller.table.view import BoardView
from engine.diagram import cell_label
from engine.game import Game
from hardware.clock import Clock
from hardware.events import SensorEvent, SnapshotEvent


class Source(Protocol):
    """Something that reports events."""

    def poll(self, timeout: float = 0.0) -> list[SensorEvent]: ...


class Recorder(Protocol):
    """Keeps every event the runner feeds (a sensor log's LogRecorder, or a camera
    recording's writer)."""

    def write(self, event: SensorEvent) -> None: ...


class Drain:
    """Adapts an object with ``drain() -> list[events]`` (ButtonPanel) to a Source."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel

    def poll(self, timeout: float = 0.0) -> list[SensorEvent]:
        return list(self.panel.drain())


class PlacementTeacher:
    """Wraps a camera source (``learn(cell, colour)``, ``poll``, ``close``): each placement the
    controller commits is a labelled example (the piece just put down, seen in the frame that
    proved it), taught to the colour model. When the camera can read its last frame again
    (``reread(heights)``), a board that has fitted nothing for a while is read again with each
    legal move's heights (controller.table.heightcheck). When it can tell stacks taller than
    it last saw them (``grown(cells, by)``), a prompt about where a stack landed is put to it
    (``TableController.height_question``) and its answer rides on the reading."""

    def __init__(self, camera: Any, controller: TableController) -> None:
        self.camera = camera
        self.controller = controller
        self._taught = controller.game.ply
        self.heights = HeightCheck(controller) if hasattr(camera, "reread") else None

    def poll(self, timeout: float = 0.0) -> list[SensorEvent]:
        game = self.controller.game
        if game.ply > self._taught and game.move_stack[-1].is_placement:
            cell = game.move_stack[-1].target
            assert cell is not None
            self.camera.learn(cell, game.stack(cell))
        self._taught = game.ply
        events = list(self.camera.poll(timeout))
        asked = self.controller.height_question()
        if asked is not None and hasattr(self.camera, "grown"):
            grown = self.camera.grown(*asked)
            events = [replace(e, grown=grown) if isinstance(e, SnapshotEvent) else e
                      for e in events]
        if self.heights is None:
            return events
        return [replace(e, cells=self.heights.reading(e.t, e.cells, self.camera.reread))
                if isinstance(e, SnapshotEvent) else e for e in events]

    def close(self) -> None:
        self.camera.close()


class Runner:
    """Feeds events from ``sources`` to ``controller`` and shows its BoardView on ``strip``.

    A frame is shown when the view changes, and every ``frame_interval`` seconds while cells
    blink or pulse (None: only on changes). ``recorder`` logs every event as it arrives.
    """

    def __init__(
        self,
        controller: TableController,
        *,
        sources: Sequence[Source] = (),
        strip: Any = None,
        renderer: Renderer | None = None,
        clock: Clock,
        recorder: Recorder | None = None,
        frame_interval: float | None = 0.1,
        on_view: Callable[[BoardView], None] | None = None,
    ) -> None:
        self.controller = controller
        self.sources = list(sources)
        self.strip = strip
        self.renderer = renderer or Renderer()
        self.clock = clock
        self.recorder = recorder
        self.frame_interval = frame_interval
        self.on_view = on_view
        self.view: BoardView | None = None
        self._last_frame = float("-inf")
        self._ply = -1
        self._clocks = ""
        self.frames = 0

    def feed(self, events: Sequence[SensorEvent]) -> None:
        """Give events to the controller (and the log), then update the LEDs."""
        for event in events:
            if self.recorder is not None:
                self.recorder.write(event)
            self.controller.handle(event)
        self.controller.advance(self.clock.now())
        if self.controller.timer is not None:  # the game clock: a flag may fall
            self.controller.timer.tick(self.clock.now())
        self.show()

    def step(self, timeout: float = 0.0) -> list[SensorEvent]:
        """Poll every source once (the first waits up to ``timeout`` s); feed what came."""
        events: list[SensorEvent] = []
        for i, source in enumerate(self.sources):
            events.extend(source.poll(timeout if i == 0 else 0.0))
        events.sort(key=lambda e: e.t)
        self.feed(events)
        return events

    def show(self, force: bool = False) -> None:
        """Render the current view if it changed (or is animated and a frame is due)."""
        now = self.clock.now()
        view = self.controller.view()
        ply = self.controller.game.ply
        timer = self.controller.timer
        clocks = timer.line(now) if timer is not None else ""
        changed = view != self.view or ply != self._ply or clocks != self._clocks
        animated = bool(view.blink) or any(
            r in ("destination", "suggest", "mismatch") for r in view.roles.values()) or (
            timer is not None and timer.low(now) is not None)
        due = (self.frame_interval is not None and animated
               and now - self._last_frame >= self.frame_interval)
        if not (changed or due or force):
            return
        self.view = view
        self._ply = ply
        self._clocks = clocks
        self._last_frame = now
        if changed and self.on_view is not None:
            self.on_view(view)
        if self.strip is None:
            return
        self.strip.set_labels(stack_labels(self.controller.game))
        if hasattr(self.strip, "caption"):
            self.strip.caption = caption(self.controller.game, view) + (
                f" | {localize(clocks)}" if clocks else "")
        if hasattr(self.strip, "status_label"):
            self.strip.status_label = _("status")  # the word before the status LEDs' bar
        cells = self.renderer.render(view, now)
        low = timer.low(now) if timer is not None else None
        if low is not None:  # the last minute: a dim pulse along the side to act
            cells = self.renderer.edge_pulse(cells, view, low, now)
        self.strip.set_cells(cells)
        status_leds = getattr(getattr(self.strip, "layout", None), "status_leds", 0)
        if status_leds == 2:
            self.strip.set_status(self.renderer.status(view, now, self.controller.game.turn))
        self.strip.show()
        self.frames += 1

    def run(self, *, until: Callable[[], bool] | None = None, poll: float = 0.02) -> None:
        """Loop until ``until()`` is true (or Ctrl-C or SIGTERM: KeyboardInterrupt, raised
        between two rounds, see :mod:`controller.interrupts`)."""
        with deferred_interrupts() as stop:
            self.show(force=True)
            while until is None or not until():
                stop.check()
                self.step(poll)
                if not self.sources:
                    self.clock.sleep(poll)


def stack_labels(game: Game) -> list[str]:
    """What a terminal draws in each cell: 'W3' (top colour, height; '*' when a DVONN piece is
    inside), '·' when empty."""
    return [cell_label(s) if s else "\u00b7" for s in game.stacks()]


def caption(game: Game, view: BoardView) -> str:
    """The line above the terminal board: ply, score in phase 2, last action, the message."""
    parts = [_("ply {ply}").format(ply=game.ply)]
    if not game.placing:
        w, b = game.score()
        parts.append(_("white {w} black {b}").format(w=w, b=b))
    if game.move_stack:
        parts.append(_("last {action}").format(action=game.move_stack[-1]))
    if view.message:
        parts.append(localize(view.message))
    return " | ".join(parts)
