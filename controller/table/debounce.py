"""Debounce raw snapshots into stable ones, cell by cell.

A cell's new reading becomes *stable* once it has held ``stable`` seconds (0.5 s by default);
excursions shorter than ``noise`` seconds (0.2 s) neither count as a change nor restart the
wait for one (a value is only accepted while it is being read, so a change that lasts less
than ``stable`` never becomes stable). ``?`` (unreadable) carries no information: the cell
keeps what it had, and nothing about it is judged until it reads again. Time only comes
from the events (and from :meth:`Debouncer.advance`), so replays are deterministic.

Silence is evidence only from a source that reports changes alone. A source that streams
(the sensor board's heartbeat, a camera: its last readings came at most ``noise`` apart) and
then goes silent (a link lost, a Pi rebooting) has confirmed nothing during the silence: a
change falls due only within ``noise`` of a reading, else on the next reading that still
shows it (hall seed 432: a one-frame noise reading just before a blackout of two seconds
became a placement). The end of a replay holds the last reading for ever (``held``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.geometry import NUM_CELLS

UNKNOWN = "?"
#: Seconds a cell must read something other than empty without a break for its empty
#: readings before that to be forgotten (``Debouncer.first_empty``).
STEADY = 0.5
#: The same for :meth:`Debouncer.flicker_empty`: a vacated cell on printed paper can read its
#: circle as a white top for 2 s on end ('?' aside: camera benchmark game 24's I5); a stack
#: read for longer stood there.
FLICKER = 3.0
#: A cell unreadable this long was under a hand (shorter: a flicker): what it shows as it
#: first reads again is not yet a reading (``Debouncer.uncovered``).
SPELL = 0.3
#: A source streams once this many gaps in a row between its readings were at most ``noise``.
STREAK = 3
#: A streaming source silent this long was blind (a blackout, a Pi rebooting): whole actions
#: may have happened unseen.
BLIND = 1.5


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

    __slots__ = ("stable", "cand", "since", "other", "other_since", "hidden", "hidden_since",
                 "dot", "loose", "run", "shown", "veiled", "unveiled")

    def __init__(self, value: str) -> None:
        self.stable = value  # the accepted value ('?' until the cell has ever read)
        self.cand = value  # the value the cell is settling on
        self.since = 0.0  # when cand started
        self.other = ""  # a reading that interrupts cand ('' when none)
        self.other_since = 0.0
        self.hidden = value == UNKNOWN  # the latest raw reading was '?'
        self.hidden_since = 0.0  # since when, if so
        self.dot: float | None = None  # the first '.' since the cell last read otherwise steadily
        self.loose: float | None = None  # the same, for FLICKER seconds
        self.run: float | None = None  # since when it reads otherwise ('?' aside), if it does
        self.shown = float("-inf")  # when it first read again after a spell of '?'
        self.veiled = float("-inf")  # when it last read '?'
        self.unveiled = float("-inf")  # when it last read again after '?'

    def read(self, t: float, value: str, noise: float) -> None:
        if value == UNKNOWN:
            if not self.hidden and t - self.unveiled >= noise - 1e-9:
                # (a reading between two '?' for less than ``noise`` does not end the
                # spell: room game 158, C1's new black piece read '?' with a one-frame '.'
                # now and then, and D5 A3, placed after it, were committed first)
                self.hidden_since = t
            self.hidden = True
            self.veiled = t
            return
        if self.hidden and t - self.hidden_since >= SPELL - 1e-9:
            self.shown = t
        if self.hidden:
            self.unveiled = t
        self.hidden = False
        if value == ".":
            if self.run is not None and t - self.run >= STEADY:
                self.dot = None
                if t - self.run >= FLICKER:
                    self.loose = None
            self.run = None
            if self.dot is None:
                self.dot = t
            if self.loose is None:
                self.loose = t
        elif self.run is None:
            self.run = t
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
        self._deadline: float | None = None  # cached earliest deadline of any cell
        self._deadline_ok = False
        self._last: float | None = None  # when the latest reading came
        #: when the latest reading after a blind spell came (see ``BLIND``)
        self.blind_at = float("-inf")
        self._streak = 0  # consecutive gaps between readings of at most ``noise``

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

    @property
    def dimmed(self) -> int:
        """Mask of the cells read '?' now or until less than ``noise`` ago: a moment of '.'
        between two spells of '?' is no reading yet (room game 158: C1's unnamed piece)."""
        if self._cells is None or self._last is None:
            return 0
        last, noise = self._last, self.timing.noise - 1e-9
        return self._hidden | sum(1 << i for i, c in enumerate(self._cells)
                                  if last - c.unveiled < noise)

    def covered(self, t: float, patience: float) -> int:
        """Mask of the cells unreadable at ``t`` for less than ``patience`` seconds: a hand
        over them (a cell unreadable for longer is misread, not a hand passing)."""
        if self._cells is None:
            return 0
        return sum(1 << i for i, c in enumerate(self._cells)
                   if c.hidden and t - c.hidden_since < patience)

    def uncovered(self) -> int:
        """Mask of the cells whose latest reading is their first after ``SPELL`` seconds or
        more of '?' (a hand): what a cell shows as the hand leaves it is not yet a reading
        (room game 112: E4, grown under the hand, showed its old top one frame, then '?' and
        the new top, and E1H1 was committed for E1E4)."""
        if self._cells is None:
            return 0
        return sum(1 << i for i, c in enumerate(self._cells)
                   if c.shown == self._last and not c.hidden)

    def seen_since(self, cell: int) -> float:
        """When the cell's latest reading began: its run of '?' while unreadable (or read
        otherwise for less than ``noise`` since), else the value it reads (the time a piece
        set down was first seen there)."""
        if self._cells is None:
            return 0.0
        c = self._cells[cell]
        return c.hidden_since if (self.dimmed >> cell) & 1 else c.since

    def shown_since(self, cell: int) -> float:
        """When the cell began to read a top it still reads ('?' between aside; inf while it
        reads empty or never read one): a piece under glare reads '?' by turns, and it was
        first seen when it first read so."""
        run = None if self._cells is None else self._cells[cell].run
        return float("inf") if run is None else run

    def first_empty(self, cell: int) -> float:
        """When the cell first read empty since it last read otherwise for ``STEADY`` seconds
        without a break (inf when it does not read empty): a vacated cell that flickers
        between empty and a piece (its printed circle read as a white top) emptied when it
        first read so, not when it became stable (camera benchmark game 24: G5 flickered
        for 4 s, and G5D2 was committed after two later moves)."""
        if self._cells is None:
            return float("inf")
        c = self._cells[cell]
        if c.dot is None or (c.run is not None and (self._last or 0.0) - c.run >= STEADY):
            return float("inf")
        return c.dot

    def flickered(self) -> int:
        """Mask of the cells that read empty in the last ``stable`` seconds: what a cell
        shows between its empty readings has not held long enough to be a landing (a vacated
        cell flickering a top: room game 123)."""
        if self._cells is None:
            return 0
        now, within = self._last or 0.0, self.timing.stable
        return sum(1 << i for i, (c, ch) in enumerate(zip(self._cells, self._raw, strict=True))
                   if ch == "." or c.dot is not None and c.run is not None
                   and now - c.run < within - 1e-9)

    def wavering(self) -> int:
        """Mask of the cells still settling: read otherwise than their stable value, or
        showing a top after reading empty in the last ``stable`` seconds (a vacated cell
        flickering its old top: room game 107's F2)."""
        empty = sum(1 << i for i, ch in enumerate(self._raw) if ch == ".")
        return self.pending | self.flickered() & ~empty

    def patchy(self) -> int:
        """Mask of the cells that read empty only between '?' readings: stable empty, and
        read '?' since they first read so, less than ``stable`` seconds ago. Under a hand a
        standing stack can read empty one frame in two; that is no stack lifted (room game
        136: D3, covered while the players answered a prompt on D2 beside it)."""
        if self._cells is None:
            return 0
        now = self._last or 0.0
        return sum(1 << i for i, c in enumerate(self._cells)
                   if c.stable == "." and c.cand == "." and c.veiled >= c.since
                   and (c.hidden or now - c.veiled < self.timing.stable - 1e-9))

    def flicker_empty(self, since: list[float]) -> list[float]:
        """``since`` (per cell, when it was first seen empty) with each cell that reads empty
        now taken back to its first empty reading since it last read otherwise for ``FLICKER``
        seconds: the order a vacated cell that flickers between empty and a top emptied in,
        as far as a flicker may have hidden it."""
        if self._cells is None:
            return since
        now = self._last or 0.0
        return [min(s, c.loose) if s < float("inf") and c.loose is not None and (
            c.run is None or now - c.run < FLICKER) else s
            for s, c in zip(since, self._cells, strict=True)]

    @property
    def pending(self) -> int:
        """Mask of the cells read otherwise than their stable value (a change still being
        judged: a hand just lifted off a cell a sleeve had coloured)."""
        if self._cells is None:
            return 0
        return sum(1 << i for i, c in enumerate(self._cells)
                   if not c.hidden and (c.other or c.cand != c.stable))

    @property
    def streaming(self) -> bool:
        """Whether the source streams: its last readings came at most ``noise`` apart."""
        return self._streak >= STREAK

    def _heard_until(self) -> float | None:
        """How far silence still counts as evidence (None: without limit)."""
        if self._last is None or not self.streaming:
            return None
        return self._last + self.timing.noise + 1e-9

    def next_deadline(self, *, held: bool = False) -> float | None:
        """The earliest time at which :meth:`advance` may change something (None: never, or
        not before the next reading). ``held``: the last reading holds for ever (the end of
        a replay)."""
        if self._cells is None:
            return None
        if not self._deadline_ok:
            times = [d for c in self._cells if (d := c.deadline(self.timing)) is not None]
            self._deadline = min(times) if times else None
            self._deadline_ok = True
        due = self._deadline
        heard = None if held else self._heard_until()
        if due is not None and heard is not None and due > heard:
            return None  # a streaming source went silent: the next reading judges
        return due

    def advance(self, t: float, *, held: bool = False) -> str | None:
        """Let time pass up to ``t``; returns the new stable snapshot if it changed."""
        if self._cells is None:
            return None
        due = self.next_deadline(held=held)
        if due is None or due - 1e-9 > t:  # no cell can settle before its deadline
            return None
        heard = None if held else self._heard_until()
        if heard is not None:
            t = min(t, heard)
        self._deadline_ok = False
        changed = False
        for cell in self._cells:
            changed |= cell.settle(t, self.timing)
        return self.stable if changed else None

    def _heard(self, t: float) -> None:
        """A reading came at ``t``."""
        if self._last is not None and t - self._last <= self.timing.noise + 1e-9:
            self._streak += 1
        else:
            if self._last is not None and self._streak >= STREAK and t - self._last > BLIND:
                self.blind_at = t
            self._streak = 0
        self._last = t

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
            self._heard(t)
            self._deadline_ok = False
            return self.stable
        if cells == self._raw:  # the same reading again: only time passes
            self._heard(t)  # (it confirms every cell up to t)
            return self.advance(t)
        self._note(cells)
        before = self.stable
        self.advance(t)  # (up to what the silence before this reading still confirms)
        self._heard(t)
        for cell, value in zip(self._cells, cells, strict=True):
            cell.read(t, value, self.timing.noise)
            cell.settle(t, self.timing)  # a zero noise time acts at once
        self._deadline_ok = False
        after = self.stable
        return after if after != before else None
