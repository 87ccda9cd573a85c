"""The simulated players' answers timed from ranges (``controller.sim.answers``): the mover
answers the prompt their own move brings before it shows, once it shows, or never; the
gesture's phases and where the stack comes back are drawn per answer."""

from __future__ import annotations

import random
from typing import Protocol

from controller.sim.answers import AnswerRanges, Habit, Lit, Timing

FRAME = 0.1


class _Table(Protocol):
    hand: str
    lit: Lit | None
    stacks: list[str]

    def count(self, what: str) -> None: ...
    def frames(self, seconds: float) -> None: ...
    def cover(self, *cells: int) -> None: ...
    def uncover(self) -> None: ...
    def put(self, cell: int, stack: str, back: tuple[float, float] | None = None) -> None: ...


class TimedAnswers:
    """Mixed into the players: ``respond`` and ``gesture`` with drawn timings."""

    table: _Table
    habits: dict[str, Habit]
    timer: random.Random
    ranges: AnswerRanges | None
    answers: list[dict[str, float]]

    def pending_target(self) -> int | None:
        raise NotImplementedError

    def respond(self, target: int, side: str) -> None:
        """The mover's answer to the prompt their move brings (``AnswerRanges``): before it
        shows (a player who knows the table), or once it shows, or never."""
        habit, t = self.habits[side], self.table
        if habit.never:
            t.count("never_answered")
            return
        timing = habit.draw(self.timer)
        t.hand = side
        assert self.ranges is not None
        if timing.start < 0:
            t.count("early_answer")
            t.frames(max(0.0, self.ranges.prompt_s + timing.start))
            self.gesture(target, timing, early=True)
            return
        waited = 0.0
        while self.pending_target() != target and waited < habit.patience:
            t.frames(FRAME)
            waited += FRAME
        if self.pending_target() == target:
            t.frames(timing.start)
            if self.pending_target() == target:
                self.gesture(target, timing, early=False)

    def gesture(self, cell: int, timing: Timing, early: bool) -> None:
        """Lift ``cell``'s stack under the hand and set it back as ``timing`` says."""
        t = self.table
        t.count("gesture")
        self.answers.append({"start": timing.start, "reach": timing.reach,
                             "hold": timing.hold, "linger": timing.linger,
                             "shift": (timing.shift_mm[0] ** 2 + timing.shift_mm[1] ** 2) ** 0.5,
                             "early": float(early)})
        t.cover(cell)
        t.frames(timing.reach)
        held, t.stacks[cell] = t.stacks[cell], ""
        t.frames(timing.hold)
        t.put(cell, held, back=timing.shift_mm)
        if timing.linger >= FRAME / 2:
            t.frames(timing.linger)
        t.uncover()  # (no linger: the hand leaves in the frame the stack comes down)
        if t.lit is not None:
            t.lit.prompt = None

