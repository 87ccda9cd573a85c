"""The simulated table: simulated hands -> VirtualTable -> emulated sensor board (real firmware,
real pseudo-terminal) -> SensorBoardClient -> TableController -> LED strip.

``fast``: one FakeClock shared by emulator, client, controller and hands; the firmware is
stepped at its scan period around every physical step and coarsely in between, so a game
takes seconds. Otherwise the SystemClock paces everything (about one action a second) and the
emulator scans in its own thread. ``direct`` skips the board: snapshots come from the table.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from controller.i18n import Msg, _
from controller.interrupts import deferred_interrupts
from controller.players.names import demo_names
from controller.runner import Runner
from controller.sensorlog import LogRecorder
from controller.sim.hands import DirectTable, Habits, Hands
from controller.table.session import TableController
from engine.errors import DvonnError
from hardware.clock import Clock, FakeClock, SystemClock
from hardware.events import ButtonEvent, SensorEvent, SnapshotEvent

FINE = 0.005  # seconds: the firmware's scan period
COARSE = 0.1
FINE_AFTER_STEP = 0.12
MAX_GAME_SECONDS = 4 * 3600.0


@dataclass
class DemoOptions:
    """What ``dvonn-board demo`` was asked for."""

    fast: bool = True
    seed: int | None = None
    players: str = "random"
    noise: bool = True
    direct: bool = False
    record: str | None = None
    journal: str | None = None
    habits: Habits | None = None
    strip: Any = None  # default: a TerminalStrip on the output stream
    quiet: bool = False
    colours: bool = False  # direct only: the table reads top colours, like a camera
    web: Any = None  # a controller.web.app.WebView: attach(ctl, clock) -> its Source
    white: str = "human"  # or ai[:LEVEL], greedy, random, cmd:...: the hands follow the LEDs
    black: str = "human"
    move_time: float = 0.2  # the full-strength computer's seconds a move
    #: ``demo --review``: the record to walk through (its actions, White's and Black's names
    #: and what it is): the hands follow its LEDs; nothing is journaled
    review: tuple[list[Any], str, str, str] | None = None
    #: real seconds to wait for a remote side's action before giving up (None: for ever)
    remote_timeout: float | None = None
    remote_config: dict[str, object] | None = None  # the [remote] section (broker log-in)
    #: ``--publish``: a controller.remote.publisher.StatePublisher (the caller closes it)
    publish: Any = None
    #: with ``web``: after the game the page keeps serving (its review, its state) until
    #: Ctrl-C or SIGTERM (``demo --web``); without: the demo returns when the game ends
    serve: bool = False
    #: ``--speak``/``--speak-to``: a controller.speech.announcer.Announcer (the caller closes
    #: it): attached to the controller with the demo's clock, polled every round
    speak: Any = None
    #: ``--clock``: a controller.table.timer.ClockOptions (None: no game clock)
    clock: Any = None
    #: ``--tutor [LEVEL]``: the live tutor's level (the simulated hands are the people it
    #: tutors), None: none; ``--learn``: the first game's lessons (controller.players)
    tutor: str | None = None
    learn: bool = False


@dataclass
class DemoResult:
    """How the demo ended."""

    over: bool
    score: tuple[int, int]
    winner: str | None
    actions: list[str]
    controller: TableController
    hands: Hands
    stats: dict[str, int] = field(default_factory=dict)


class DirectSource:
    """Reads a DirectTable like a sensor (one snapshot per poll when it changed)."""

    def __init__(self, table: DirectTable, clock: Clock) -> None:
        self.table = table
        self.clock = clock
        self._last: str | None = None

    def poll(self, timeout: float = 0.0) -> list[SensorEvent]:
        cells = self.table.cells()
        if cells == self._last:
            return []
        self._last = cells
        return [SnapshotEvent(self.clock.now(), cells)]


def _until(script: Iterator[float], ctl: TableController,
           done: Callable[[TableController], bool]) -> Iterator[float]:
    for delay in script:
        if done(ctl):
            return
        yield delay


def run_demo(opts: DemoOptions, out: TextIO) -> DemoResult:
    """Play one whole game on the simulated table; prints the score and winner to ``out``."""
    seed = opts.seed if opts.seed is not None else random.SystemRandom().randrange(1 << 30)
    clock: Clock = FakeClock() if opts.fast else SystemClock()
    closers: list[Any] = []
    try:
        journal = None
        if opts.journal and opts.review is None:
            from controller.journal.store import Journal

            journal = Journal(opts.journal)
            closers.append(journal)
        names = demo_names(opts.players, opts.white, opts.black)  # what plays each side
        done = None
        if opts.review is not None:
            from controller.players.walkthrough import Walkthrough, WalkthroughController

            moves, white, black, title = opts.review
            ctl: TableController = WalkthroughController(
                colours=opts.colours and opts.direct, source="review", players=(white, black))
            walk = Walkthrough(moves, title=title)
            walk.attach(ctl)
            done = walk.done
        else:
            ctl = TableController(journal=journal, colours=opts.colours and opts.direct,
                                  source="demo", players=names)
        if opts.publish is not None:
            opts.publish.attach(ctl)
        opponent = None
        if opts.review is None and (opts.white != "human" or opts.black != "human"):
            from controller.players.opponent import Opponent

            opponent = Opponent(opts.white, opts.black, seed=seed, move_time=opts.move_time,
                                remote_config=opts.remote_config)
            closers.append(opponent)
            opponent.attach(ctl)
            if opts.web is not None:
                opts.web.invite(opponent)  # a ``remote`` side: its invitation (web/remote.py)
        emulator = None
        table: Any
        source: Any
        if opts.direct:
            table = DirectTable(colours=opts.colours)
            table.now = clock.now
            source = DirectSource(table, clock)
        else:
            from hardware.sensorboard.client import SensorBoardClient
            from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable

            table = VirtualTable(seed=seed, clock=clock)
            emulator = SensorBoardEmulator(table, clock=clock, seed=seed)
            closers.append(emulator)
            source = SensorBoardClient(emulator.port, clock=clock)
            closers.append(source)
        strip = opts.strip
        if strip is None:
            from hardware.leds import TerminalStrip

            strip = TerminalStrip(stream=out, colour=bool(getattr(out, "isatty", lambda: 0)()))
            closers.append(strip)
        recorder = LogRecorder(opts.record) if opts.record else None
        if recorder is not None:
            closers.append(recorder)
        sources = [source] if opts.web is None else [source, opts.web.attach(ctl, clock)]
        if opponent is not None and opponent.remote:
            sources.append(opponent)  # takes in what the other table (or the phone) sent
        if opts.clock is not None and opts.review is None:  # the game clock (--clock)
            from controller.table.timer import TableClock

            store = None
            if journal is not None:
                from controller.journal.clocks import ClockStore

                store = ClockStore(journal)
            timer = TableClock(ctl, opts.clock.control, clock, options=opts.clock, store=store)
            done = timer.has_fallen  # a flag ends the game: the hands stop
        if opts.speak is not None:  # hears what the table committed, at every round
            sources.append(opts.speak.attach(ctl, clock))
        teaching: list[Any] = []
        if (opts.tutor or opts.learn) and opts.review is None:  # --tutor, --learn
            from controller.players.teaching import teach

            teaching = teach(ctl, sources, tutor=opts.tutor, learn=opts.learn, clock=clock,
                             out=None if opts.quiet else out)
            closers.extend(teaching)
        runner = Runner(ctl, sources=sources, strip=strip, clock=clock, recorder=recorder,
                        frame_interval=None if opts.fast else 0.25)

        def press(button: str, long: bool) -> None:
            runner.feed([ButtonEvent(clock.now(), button, long)])

        habits = opts.habits or Habits(pace=0.8 if opts.fast else 1.0,
                                       noise=0.1 if opts.noise else 0.0)
        hands = Hands(table, ctl, press, seed=seed, players=opts.players, habits=habits)
        if ctl.resumed and not opts.quiet:
            print(_("resuming game {id} at ply {ply}").format(id=ctl.game_id, ply=ctl.game.ply),
                  file=out)
        _drive(runner, hands, clock, emulator, fast=opts.fast, done=done,
               remote_timeout=opts.remote_timeout)
        for taught in teaching:  # the verdicts still on their way are shown too
            getattr(taught, "settle", lambda: None)()
        game = ctl.game
        over = game.is_over()
        score = game.score()
        winner = game.winner()
        if not opts.quiet:
            name = {"w": _("White"), "b": _("Black"), "tie": _("nobody (tie)")}.get(
                winner or "", "-")
            print(_("score: white {w} black {b}").format(w=score[0], b=score[1]), file=out)
            print(_("winner: {name}").format(name=name), file=out)
        if opts.serve and opts.web is not None:
            if not opts.quiet:
                print(_("the game is over; the web view keeps serving until Ctrl-C"), file=out,
                      flush=True)
            _serve(runner, clock, emulator, fast=opts.fast)
            if not opts.quiet:
                print(_("stopped"), file=out, flush=True)
        return DemoResult(over, score, winner, ctl.actions, ctl, hands, dict(hands.stats))
    finally:
        for c in reversed(closers):
            c.close()


def _drive(runner: Runner, hands: Hands, clock: Clock, emulator: Any, *, fast: bool,
           done: Callable[[TableController], bool] | None = None,
           remote_timeout: float | None = None) -> None:
    """Run hands and the sensing path until the hands are done (the game is over, or
    ``done(controller)``: the end of a reviewed record). While a remote side is to act, the
    table waits for it in real time (the fake clock stands still)."""
    script = hands.script() if done is None else _until(hands.script(), hands.ctl, done)
    start = clock.now()
    next_at = start + 1.0  # let the sensors report the table before the first hand moves
    fine_until = start
    if emulator is not None and not fast:
        emulator.start()
    runner.show(force=True)
    finished_at: float | None = None
    waited: float | None = None  # when (real time) the wait for a remote side began
    with deferred_interrupts() as stop:  # Ctrl-C between two rounds (controller/interrupts.py)
        while True:
            stop.check()
            seat = _awaited(runner.controller)
            if seat is not None:
                if getattr(seat, "stopped", False):
                    raise DvonnError(Msg("the remote game stopped: {note}", note=seat.note))
                waited = time.monotonic() if waited is None else waited
                if remote_timeout is not None and time.monotonic() - waited > remote_timeout:
                    raise DvonnError(Msg("no action from the remote side in {seconds} s ({note})",
                                         seconds=f"{remote_timeout:g}", note=seat.note))
                if fast:
                    wait = getattr(seat, "wait", None)
                    if wait is not None:
                        wait(0.05)  # a message from the broker ends the wait at once
                    else:
                        time.sleep(0.02)  # a person on a phone
                    runner.step(0.0)
                    continue
            else:
                waited = None
            now = clock.now()
            if now - start > MAX_GAME_SECONDS:
                raise RuntimeError("the demo game did not finish")
            if finished_at is None and now >= next_at:
                try:
                    delay = next(script)
                except StopIteration:
                    finished_at = now
                    delay = 0.0
                next_at = now + delay
                fine_until = now + FINE_AFTER_STEP
            if finished_at is not None and now - finished_at > 1.0:
                break
            if fast:
                assert isinstance(clock, FakeClock)
                dt = FINE if now < fine_until else max(FINE, min(COARSE, next_at - now))
                clock.advance(dt)
                sent = emulator.step() if emulator is not None else 0
                # the pty hands bytes over asynchronously: wait (real time) for what was sent
                runner.step(0.05 if sent else 0.0)
            else:
                runner.step(0.02)


def _serve(runner: Runner, clock: Clock, emulator: Any, *, fast: bool) -> None:
    """After the game: the sensing path and the page's commands go on (the page's state,
    its review and its buttons answer) until Ctrl-C or SIGTERM, which end this quietly."""
    with deferred_interrupts() as stop:
        while not stop.asked:
            if fast:
                assert isinstance(clock, FakeClock)
                clock.advance(COARSE)
                if emulator is not None:
                    emulator.step()
            runner.step(0.05)


def _awaited(ctl: TableController) -> Any:
    """The remote seat the table waits for, or None."""
    waiting = getattr(getattr(ctl, "opponent", None), "waiting", None)
    return waiting(ctl.game) if waiting is not None else None
