"""The table keeps time: a :class:`GameClock` driven by what the table commits.

:class:`TableClock` attaches to a TableController (``ctl.timer``, a listener called after every
event) and decides whose clock runs, from the table's state only: the side to act, or, while
the cut-off stacks of a move are still on the board, the side that moved (the removal is part
of its action). A prompt (where did the stack land?) comes before the commit, so it runs the
mover's clock too. The clock switches when the table commits an action (the Fischer increment
goes to the side that acted); with ``switch="button"`` the mover's clock runs on after the
commit until someone presses the ``clock`` button. No clock runs while the table waits to be
put right (after a resume, an undo or a new game: ``ctl.blocked``) or after the game ended.

:meth:`TableClock.tick` (the runner calls it every round) lets a flag fall: the game then ends
(``ctl.finished``), journaled as ``white out of time`` / ``black out of time``, or as a tie when
the opponent could no longer win (:func:`controller.table.clock.can_still_win`).

Journal: ``store`` (controller.journal.clocks.ClockStore) keeps the clock state with each
action and every ``SAVE_EVERY`` seconds while a clock runs; a resumed game restores it (the
time the table was off counts for nobody).

Remote play: each table runs its own side's clock. The state a remote seat publishes carries
this table's own side's time (``seat.clock_out``); the other side's time arrives with its
actions (``seat.their_clock``) and replaces this table's estimate when the table commits that
action. A difference beyond ``tolerance`` seconds, or another time control, is said (``note``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controller.i18n import Msg
from controller.i18n import side as side_name
from controller.table.clock import GameClock, TimeControl, can_still_win, mmss
from engine.move import PASS
from hardware.clock import Clock

SAVE_EVERY = 10.0
#: the results a flag fall journals (the side named lost on time)
OUT_OF_TIME = {"w": "white out of time", "b": "black out of time"}


class ClockStore(Protocol):
    """Where the clock state is kept with the game (controller.journal.clocks.ClockStore)."""

    def save(self, game_id: int, ply: int, state: dict[str, object]) -> None: ...
    def load(self, game_id: int, ply: int) -> dict[str, object] | None: ...


@dataclass(frozen=True)
class ClockOptions:
    """How the table keeps time (config ``[clock]``, ``--clock``)."""

    control: TimeControl | None = None
    switch: str = "table"  # or "button": the mover presses ``clock`` to hand over
    pulse: bool = True  # the LEDs' dim pulse along the side to act in the last minute
    pulse_seconds: float = 60.0
    tolerance: float = 5.0  # seconds two tables' clocks may differ without a word


def other(side: str) -> str:
    return "b" if side == "w" else "w"


class TableClock:
    """The clocks of the game on ``ctl`` (see the module docstring)."""

    def __init__(self, ctl: Any, control: TimeControl, clock: Clock, *,
                 options: ClockOptions | None = None, store: ClockStore | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.ctl = ctl
        self.wall = wall  # the page's timestamp: seconds since the epoch
        self.clock = clock
        self.options = options or ClockOptions(control=control)
        self.store = store
        self.game_clock = GameClock(control)
        self.fallen: str | None = None  # the side whose flag fell
        self.result = ""  # what the flag journaled ('black out of time', 'tie')
        self.note = ""  # the clocks of two tables disagree (said, not hidden)
        self.owed: str | None = None  # button mode: the side that acted and has not pressed
        self.listeners: list[Callable[[TableClock], None]] = []
        self._ply = ctl.game.ply
        self._game = ctl.game
        self._saved = 0.0
        self._last: dict[str, tuple[int, float]] = {}  # side -> (ply, time left) at its action
        now = clock.now()
        if store is not None and ctl.game_id is not None and ctl.resumed:
            state = store.load(ctl.game_id, ctl.game.ply)
            if state is not None:
                self.game_clock.restore(state, now)
        ctl.timer = self
        ctl.listeners.insert(0, self._on_event)  # before a remote seat publishes the actions
        self._follow(now)

    # ----------------------------------------------------------------- who runs
    @property
    def control(self) -> TimeControl:
        return self.game_clock.control

    def actor(self) -> str | None:
        """Whose clock should run now (None: none)."""
        ctl = self.ctl
        game = ctl.game
        if self.fallen is not None or ctl.finished or game.is_over() or ctl.blocked:
            return None
        if self.owed is not None:
            return self.owed
        if ctl.removals:  # the mover takes off what its move cut off
            for index in range(game.ply - 1, -1, -1):
                if game.move_stack[index] != PASS:
                    return _mover_at(index)
        return str(game.turn)

    def has_fallen(self, ctl: Any = None) -> bool:
        """True once a flag fell (the simulated hands stop then)."""
        return self.fallen is not None

    def left(self, side: str, now: float | None = None) -> float:
        return self.game_clock.left(side, self.clock.now() if now is None else now)

    def running(self) -> str | None:
        return self.game_clock.running

    # ----------------------------------------------------------------- events
    def _on_event(self, ctl: Any) -> None:
        self._follow(self.clock.now())

    def tick(self, now: float) -> None:
        """Follow the table to ``now`` (the runner calls this every round): when a flag fell
        meanwhile, the table's listeners (the page, the broadcast) hear of it."""
        fallen = self.fallen
        self._follow(now)
        if self.fallen != fallen:
            self.ctl.notify()

    def _follow(self, now: float) -> None:
        """A new game, committed actions, whose clock runs, a flag."""
        ctl = self.ctl
        if ctl.game is not self._game:  # a new game
            self._new_game(now)
        for side, seat in self._seats().items():  # the other table says its flag fell
            theirs = getattr(seat, "their_clock", None)
            if isinstance(theirs, dict) and theirs.get("flag") == side and \
                    theirs.get("ply") == ctl.game.ply and self.fallen is None:
                self._fall(side, now)
        self._check_flag(now)  # time spent before anything new happened
        ply = ctl.game.ply
        if ply > self._ply:
            self._committed(self._ply, ply, now)
        elif ply < self._ply:  # a take-back gives no time back
            self.owed = None
            if self.fallen is not None and not ctl.finished:
                self.fallen, self.result = None, ""  # the game reopened
        self._ply = ply
        self.game_clock.run(self.actor(), now)
        self._check_flag(now)
        if self.store is not None and ctl.game_id is not None and \
                self.game_clock.running is not None and now - self._saved >= SAVE_EVERY:
            self._save(now)

    def _new_game(self, now: float) -> None:
        self.game_clock = GameClock(self.control)
        self.game_clock.since = now
        self.fallen, self.result, self.note, self.owed = None, "", "", None
        self._game = self.ctl.game
        self._ply = 0
        self._last = {}

    def _committed(self, before: int, after: int, now: float) -> None:
        game = self.ctl.game
        acted: str | None = None
        at = after
        for index in range(before, after):
            move = game.move_stack[index]
            side = _mover_at(index)
            if move != PASS:
                self.game_clock.increment(side)
                acted, at = side, index + 1
                self._remote_time(side, at, now)
        if acted is not None:
            self._last[acted] = (at, self.game_clock.left(acted, now))
            if self.options.switch == "button":
                self.owed = acted
        self._publish_own()
        self._save(now)

    def button(self, event: Any) -> None:
        """A press of the ``clock`` button (``event.button == "clock"``): hands the clock to
        the other side once the table has committed the presser's action."""
        if getattr(event, "button", "") != "clock":
            return
        now = self.clock.now()
        if self.owed is not None:
            self.owed = None
            self._follow(now)

    def _check_flag(self, now: float) -> None:
        if self.fallen is not None or self.game_clock.running is None:
            return
        side = self.game_clock.flagged(now)
        if side is None or side in self._seats():  # a remote side's flag is its table's
            return
        self._fall(side, now)

    def _fall(self, side: str, now: float) -> None:
        ctl = self.ctl
        self.game_clock.run(None, now)
        self.fallen = side
        tie = not can_still_win(ctl.game, other(side))
        self.result = "tie" if tie else OUT_OF_TIME[side]
        ctl.finished = True
        w, b = ctl.game.score()
        if ctl.journal is not None and ctl.game_id is not None:
            ctl.journal.finish(ctl.game_id, white_score=w, black_score=b, result=self.result)
        if tie:
            ctl.message = Msg("{side}'s time is up, but {other} can no longer win: a tie",
                              side=side_name(side), other=side_name(other(side)))
        else:
            ctl.message = Msg("{side}'s time is up: {other} wins on time",
                              side=side_name(side), other=side_name(other(side)))
        self._save(now)
        self._publish_own()
        for listener in self.listeners:
            listener(self)

    def _save(self, now: float) -> None:
        self._saved = now
        if self.store is not None and self.ctl.game_id is not None:
            self.store.save(self.ctl.game_id, self.ctl.game.ply, self.game_clock.state(now))

    # ----------------------------------------------------------------- remote play
    def _seats(self) -> dict[str, Any]:
        players = getattr(getattr(self.ctl, "opponent", None), "players", None) or {}
        return {side: seat for side, seat in players.items()
                if getattr(seat, "remote", False) and hasattr(seat, "their_clock")}

    def _publish_own(self) -> None:
        """Give each remote seat this table's own side's time (sent with its actions)."""
        for side, seat in self._seats().items():
            mine = other(side)
            ply, left = self._last.get(mine, (0, self.game_clock.remaining[mine]))
            seat.clock_out = {"control": str(self.control), "side": mine, "ply": ply,
                              "left": round(left, 3)}
            if self.fallen == mine:
                seat.clock_out.update(flag=mine, ply=self.ctl.game.ply, left=0.0)

    def _remote_time(self, side: str, ply: int, now: float) -> None:
        """The remote side's action at ``ply`` was committed here: take its table's time."""
        seat = self._seats().get(side)
        theirs = getattr(seat, "their_clock", None) if seat is not None else None
        if not isinstance(theirs, dict) or theirs.get("ply") != ply:
            return
        reported = theirs.get("left")
        if not isinstance(reported, int | float) or isinstance(reported, bool):
            return
        here = self.game_clock.left(side, now)
        self.game_clock.run(None, now)  # settled: the reported time stands from now
        self.game_clock.remaining[side] = float(reported)
        if theirs.get("control") != str(self.control):
            self.note = Msg("the clocks disagree: {control} here, {there} at {side}'s table",
                            control=str(self.control), there=str(theirs.get("control")),
                            side=side_name(side))
        elif abs(here - float(reported)) > self.options.tolerance:
            self.note = Msg("the clocks disagree: {side} {here} here, {there} at {side}'s "
                            "table", side=side_name(side), here=mmss(here),
                            there=mmss(float(reported)))
        else:
            self.note = ""

    # ----------------------------------------------------------------- read-outs
    def line(self, now: float | None = None) -> str:
        """The terminal's clock text: ``White 2:31 · Black 2:58*`` (``*``: running)."""
        now = self.clock.now() if now is None else now
        running = self.game_clock.running
        parts = [Msg("{side} {time}{running}", side=side_name(s),
                     time=mmss(self.game_clock.left(s, now)), running="*" if running == s else "")
                 for s in ("w", "b")]
        text = Msg.joined(" \u00b7 ", parts)
        return Msg.joined(" | ", [text, self.note]) if self.note else text

    def low(self, now: float) -> str | None:
        """The side to act when its clock runs in its last minute (the LEDs' pulse)."""
        side = self.game_clock.running
        if not self.options.pulse or side is None:
            return None
        left = self.game_clock.left(side, now)
        return side if 0 < left <= self.options.pulse_seconds else None

    def page(self) -> dict[str, object]:
        """:meth:`state` now, stamped with the wall clock (``wall``)."""
        return self.state(self.clock.now(), self.wall())

    def state(self, now: float, stamp: float) -> dict[str, object]:
        """What the page gets (``clock`` in the table state): the time control, both sides'
        remaining seconds at ``stamp`` (the server's wall clock, seconds since the epoch),
        the running side, the side whose flag fell and the result, the disagreement note,
        ``switch`` ('table' or 'button': the page's ``clock`` button) and ``owed`` (button
        mode: the side that acted and has not pressed yet)."""
        return {"control": str(self.control), "white": round(self.left("w", now), 2),
                "black": round(self.left("b", now), 2), "running": self.game_clock.running,
                "at": round(stamp, 3), "flag": self.fallen, "result": self.result or None,
                "note": str(self.note), "low": self.options.pulse_seconds,
                "switch": self.options.switch, "owed": self.owed}


def _mover_at(index: int) -> str:
    """The side that takes action ``index`` (0-based, passes counted): both phases begin
    with White (49 placements, then moves)."""
    if index < 49:
        return "w" if index % 2 == 0 else "b"
    return "w" if index % 2 == 1 else "b"

