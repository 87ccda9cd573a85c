"""Debounce raw snapshots into stable ones, cell by cell.

A cell's new reading becomes *stable* once it has held ``stable`` seconds (0.5 s by default);
excursions shorter than ``noise`` seconds (0.2 s) neither count as a change nor restart the
wait for one (a value is only accepted while it is being read, so a change that lasts less
than ``stable`` never becomes stable). ``?`` (unreadable) carries no information: the cell
keeps what it had, and nothing about it is judged until it reads again. Time only comes
from the events (and from :meth:`Debouncer.advance`), so replays are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.geometry import NUM_CELLS

UNKNOWN = "?"


@dataclass(frozen=True)
class Timing:
    """Debounce times in seconds: changes shorter than ``noise`` are ignored, ``stable`` is real."""

    noise: float = 0.2
    stable: float = 0.5

    def __post_init__(self) -> None:
        if not 0 <= self.noise <= self.stable:
            raise ValueError(f"timing needs 0 <= noise <= stable, got {self.noise}, {self.stable}")


class _Cell:
    """One cell's debounce state."""

    __slots__ = ("stable", "cand", "since", "other", "other_since", "hidden")

    def __init__(self, value: str) -> None:
        self.stable = value  # the accepted value ('?' until the cell has ever read)
        self.cand = value  # the value the cell is settling on
        self.since = 0.0  # when cand started
        self.other = ""  # a reading that interrupts cand ('' when none)
        self.other_since = 0.0
        self.hidden = value == UNKNOWN  # the latest raw reading was '?'

    def read(self, t: float, value: str) -> None:
        self.hidden = value == UNKNOWN
        if value == UNKNOWN:
            return
        if value == self.cand:
            self.other = ""
        elif value != self.other:
            self.other, self.other_since = value, t

    def deadline(self, timing: Timing) -> float | None:
        if self.hidden and (self.other or self.cand != self.stable):
            return None  # judged only on a reading: the next one that is not '?'
        if self.other:  # a promotion waits until the interruption is judged
            return self.other_since + timing.noise
        if self.cand != self.stable:
            return self.since + timing.stable
        return None

    def settle(self, t: float, timing: Timing) -> bool:
        """Apply what time ``t`` decides; True when the stable value changed. A cell under
        '?' is not judged: a one-frame flicker just before a hand covers the cell must not
        become a change while nothing can contradict it."""
        if self.hidden:
            return False
        if self.other and t - self.other_since >= timing.noise - 1e-9:
            self.cand, self.since, self.other = self.other, self.other_since, ""
        if (not self.other and self.cand != self.stable
                and t - self.since >= timing.stable - 1e-9):
            self.stable = self.cand
            return True
        return False


class Debouncer:
    """Turns a stream of raw 49-cell readings into stable snapshots.

    ``feed(t, cells)`` and ``advance(t)`` return the new stable snapshot when it changed, else
    None. The first reading is taken as stable at once (there is nothing to compare it with);
    its ``?`` cells stay ``?`` until they read.
    """

    def __init__(self, timing: Timing | None = None) -> None:
        self.timing = timing or Timing()
        self._cells: list[_Cell] | None = None
        self._raw = ""  # the last raw reading (a repeat of it changes nothing but time)
        self._hidden = 0
        self._deadline: float | None = None  # cached next_deadline()
        self._deadline_ok = False

    @property
    def stable(self) -> str | None:
        """The current stable snapshot (None before the first reading)."""
        if self._cells is None:
            return None
        return "".join(c.stable for c in self._cells)

    @property
    def unreadable(self) -> int:
        """Mask of the cells whose latest raw reading was '?' (a hand over them, glare)."""
        return self._hidden

    def next_deadline(self) -> float | None:
        """The earliest time at which :meth:`advance` may change something (None: never)."""
        if self._cells is None:
            return None
        if not self._deadline_ok:
            times = [d for c in self._cells if (d := c.deadline(self.timing)) is not None]
            self._deadline = min(times) if times else None
            self._deadline_ok = True
        return self._deadline

    def advance(self, t: float) -> str | None:
        """Let time pass up to ``t``; returns the new stable snapshot if it changed."""
        if self._cells is None:
            return None
        due = self.next_deadline()
        if due is None or due - 1e-9 > t:  # no cell can settle before its deadline
            return None
        self._deadline_ok = False
        changed = False
        for cell in self._cells:
            changed |= cell.settle(t, self.timing)
        return self.stable if changed else None

    def _note(self, cells: str) -> None:
        self._raw = cells
        hidden = 0
        if UNKNOWN in cells:
            for i, ch in enumerate(cells):
                if ch == UNKNOWN:
                    hidden |= 1 << i
        self._hidden = hidden

    def feed(self, t: float, cells: str) -> str | None:
        """A raw reading at time ``t`` (non-decreasing); returns the new stable snapshot or None.

        Deadlines before ``t`` must have been given to :meth:`advance` first for exact timing;
        :meth:`feed` settles up to ``t`` itself before taking the reading.
        """
        if len(cells) != NUM_CELLS:
            raise ValueError(f"snapshot must have {NUM_CELLS} cells, got {len(cells)}")
        if self._cells is None:
            self._cells = [_Cell(v) for v in cells]
            for cell in self._cells:
                cell.since = t
            self._note(cells)
            self._deadline_ok = False
            return self.stable
        if cells == self._raw:  # the same reading again: only time passes
            return self.advance(t)
        self._note(cells)
        before = self.stable
        self.advance(t)
        for cell, value in zip(self._cells, cells, strict=True):
            cell.read(t, value)
            cell.settle(t, self.timing)  # a zero noise time acts at once
        self._deadline_ok = False
        after = self.stable
        return after if after != before else None
