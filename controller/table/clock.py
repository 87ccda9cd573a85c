"""The game clock as a pure model: time controls, two sides' remaining time, flag fall.

A time control is ``M+S``: ``M`` minutes for each side's whole game and ``S`` seconds of
Fischer increment added after each action the side completes (``15+10``, ``3+2``, ``5+0``),
or ``none`` (no clock). :class:`GameClock` never reads the time: every call passes ``now``
(seconds on the injected :class:`hardware.clock.Clock`'s scale), so tests never sleep.

The flag rule (README, *Clocks*): a side whose time runs out loses, unless the opponent can
no longer win by any sequence of legal actions from the position (:func:`can_still_win`):
then the game ends as a tie, as in chess when the opponent has no mating material left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controller.i18n import Msg
from engine.errors import DvonnError
from engine.game import Game

SIDES = ("w", "b")
NONE = "none"
_CONTROL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*\+\s*(\d+(?:\.\d+)?)\s*$")
#: positions the flag rule searches at most before it takes the opponent to be able to win
WIN_SEARCH_NODES = 20000


class TimeControlError(DvonnError, ValueError):
    """A time control that is not ``M+S`` or ``none``."""


@dataclass(frozen=True)
class TimeControl:
    """``minutes`` per side for the whole game and ``increment`` seconds after each action."""

    minutes: float
    increment: float = 0.0

    @property
    def seconds(self) -> float:
        return self.minutes * 60.0

    def __str__(self) -> str:
        return f"{self.minutes:g}+{self.increment:g}"


def parse_control(text: str | None) -> TimeControl | None:
    """``"15+10"`` -> TimeControl(15, 10); ``"none"``, ``""`` or None -> None (no clock).
    Anything else raises TimeControlError quoting it."""
    if text is None or text.strip().lower() in ("", NONE):
        return None
    m = _CONTROL.match(text)
    if m is None:
        raise TimeControlError(Msg(
            "time control {text!r} is not M+S (minutes per side + increment seconds, e.g. "
            "15+10) or none", text=text))
    minutes, increment = float(m.group(1)), float(m.group(2))
    if not 0 < minutes <= 600 or increment > 600:
        raise TimeControlError(Msg("time control {text!r}: minutes must be 0 < M <= 600 and the "
                                   "increment 0..600 seconds", text=text))
    return TimeControl(minutes, increment)


def mmss(seconds: float) -> str:
    """Remaining time as the clocks show it: ``M:SS`` (``H:MM:SS`` from an hour), rounded
    up (a side with 0.2 s left still shows 0:01), never below 0:00."""
    whole = max(0, int(-(-max(seconds, 0.0) // 1)))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class GameClock:
    """Two sides' remaining time; at most one side's runs (since ``since``)."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.remaining = {side: control.seconds for side in SIDES}
        self.running: str | None = None
        self.since = 0.0

    def left(self, side: str, now: float) -> float:
        """``side``'s remaining seconds at ``now`` (negative once its flag fell)."""
        used = now - self.since if self.running == side else 0.0
        return self.remaining[side] - max(0.0, used)

    def _settle(self, now: float) -> None:
        if self.running is not None:
            self.remaining[self.running] = self.left(self.running, now)
        self.since = now

    def run(self, side: str | None, now: float) -> None:
        """From ``now`` on ``side``'s clock runs (None: none runs)."""
        if side == self.running:
            return
        self._settle(now)
        self.running = side

    def add(self, side: str, seconds: float) -> None:
        """Give ``side`` time (the increment after an action)."""
        self.remaining[side] += seconds

    def increment(self, side: str) -> None:
        """``side`` completed an action: its Fischer increment."""
        self.add(side, self.control.increment)

    def flagged(self, now: float) -> str | None:
        """The side whose time has run out at ``now``, or None."""
        for side in SIDES:
            if self.left(side, now) <= 0.0:
                return side
        return None

    def when_flag(self) -> float | None:
        """When the running side's flag falls (on the clock's scale), None when none runs."""
        if self.running is None:
            return None
        return self.since + self.remaining[self.running]

    def state(self, now: float) -> dict[str, object]:
        """A JSON-ready copy (journaled with each action; what resume restores)."""
        return {"control": str(self.control), "w": round(self.left("w", now), 3),
                "b": round(self.left("b", now), 3), "running": self.running}

    def restore(self, state: dict[str, object], now: float) -> None:
        """Take remaining times from :meth:`state` (the running side is not restored: a
        clock does not run while the table is off; the caller starts the right one)."""
        for side in SIDES:
            value = state.get(side)
            if isinstance(value, int | float) and not isinstance(value, bool):
                self.remaining[side] = float(value)
        self.running = None
        self.since = now


def can_still_win(game: Game, side: str, nodes: int = WIN_SEARCH_NODES) -> bool:
    """True unless it is proven that no sequence of legal actions from ``game`` ends with
    ``side`` holding more pieces than the other (any actions of both sides, not best play:
    the opponent of a flagged player keeps the win whenever it is still possible at all).

    In the placing phase a side can always still win. In the moving phase a depth-first
    search over the game's continuations, the most promising for ``side`` first, looks for
    one; it stops at ``nodes`` positions, and then ``side`` is taken to be able to win (the
    flag's usual verdict)."""
    if game.placing:
        return True
    work = game.copy()
    budget = [nodes]

    def margin(g: Game) -> int:
        w, b = g.score()
        return w - b if side == "w" else b - w

    def search(g: Game) -> bool | None:
        if g.is_over():
            return margin(g) > 0
        budget[0] -= 1
        if budget[0] < 0:
            return None
        moves = g.legal_moves()
        scored = []
        for move in moves:
            g.push(move)
            scored.append((margin(g), move))
            g.pop()
        scored.sort(key=lambda item: -item[0])  # both sides help: is there any way?
        unknown = False
        for _, move in scored:
            g.push(move)
            found = search(g)
            g.pop()
            if found:
                return True
            if found is None:
                unknown = True
                if budget[0] < 0:
                    return None
        return None if unknown else False

    return search(work) is not False
