"""Simulated hands: play both sides on a table by doing what a person would do.

The hands look at what the LEDs say (the controller's BoardView) and at the position (a
player knows it), and act on a table (``put``/``lift``/``get``/``noise``, e.g. the emulated
sensor board's VirtualTable): place a piece; lift a stack, hold it, set it down on the
target; answer a prompt with the gesture or with next/confirm; take cut-off stacks away;
restore what the LEDs call a mismatch. Now and then they flicker a sensor, change their mind
(set a stack back), knock a piece or press undo, as configured.

:meth:`Hands.script` is a generator of pauses (seconds): the driver waits that long (on its
clock) between physical steps, so the same hands run at human pace or on a FakeClock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from controller.table.session import TableController
from engine.game import Game
from engine.move import Move

Press = Callable[[str, bool], None]


class Table(Protocol):
    """What hands can do to a table."""

    def put(self, cell: int, stack: str) -> None: ...
    def lift(self, cell: int) -> str: ...
    def get(self, cell: int) -> str: ...
    def noise(self, cell: int, duration: float) -> None: ...


@dataclass(frozen=True)
class Habits:
    """How the hands behave: pace and how often they do the unusual things (0..1 per turn)."""

    pace: float = 0.8  # seconds between physical steps (> the 0.5 s debounce)
    noise: float = 0.1
    cancel: float = 0.05
    knock: float = 0.0
    undo: float = 0.0
    gesture: float = 0.5  # when prompted: gesture (else next/confirm buttons)


def choose_move(game: Game, players: str, rng: random.Random) -> Move:
    """A move for the side to act: 'random' or 'greedy' (best own score after it, ties random)."""
    moves = game.legal_moves()
    if players != "greedy" or game.placing or len(moves) == 1:
        return rng.choice(moves)
    side = 0 if game.turn == "w" else 1
    best: list[Move] = []
    top = -1
    for m in moves:
        game.push(m)
        score = game.score()[side]
        game.pop()
        if score > top:
            best, top = [m], score
        elif score == top:
            best.append(m)
    return rng.choice(best)


class Hands:
    """Both players' hands at one table, guided by a TableController's BoardView."""

    def __init__(
        self,
        table: Table,
        controller: TableController,
        press: Press,
        *,
        seed: int = 0,
        players: str = "random",
        habits: Habits | None = None,
    ) -> None:
        self.table = table
        self.ctl = controller
        self.press = press
        self.rng = random.Random(seed)
        self.players = players
        self.habits = habits or Habits()
        self.done = False
        self.stats = {"noise": 0, "cancel": 0, "knock": 0, "undo": 0, "gesture": 0,
                      "buttons": 0, "removed": 0, "restored": 0}

    # -- looking -----------------------------------------------------------------------------
    def _cells(self, role: str) -> list[int]:
        return sorted(c for c, r in self.ctl.view().roles.items() if r == role)

    def _awaiting_remote(self) -> bool:
        """True while a remote side is to act and its action has not arrived: its hands wait
        for the LEDs instead of choosing."""
        waiting = getattr(getattr(self.ctl, "opponent", None), "waiting", None)
        return waiting is not None and waiting(self.ctl.game) is not None

    def _chance(self, p: float) -> bool:
        return p > 0 and self.rng.random() < p

    # -- acting ------------------------------------------------------------------------------
    def script(self) -> Iterator[float]:
        """The hands' whole game, as pauses between physical steps; ends at the game's end."""
        pace = self.habits.pace
        stuck = 0
        while True:
            game = self.ctl.game
            if self._cells("mismatch"):
                yield from self._restore()
                stuck += 1
                if stuck > 20:
                    raise RuntimeError(f"the table cannot be restored: {self.ctl.view()}")
                continue
            stuck = 0
            if self._cells("remove"):
                for c in self._cells("remove"):
                    self.table.lift(c)
                    self.stats["removed"] += 1
                    yield pace * 0.6
                yield pace
                continue
            if game.is_over():
                self.done = True
                return
            if self._awaiting_remote():
                yield pace * 0.5  # the other table (or the phone) has not acted yet
                continue
            if self._chance(self.habits.noise):
                self.table.noise(self.rng.randrange(49), self.rng.uniform(0.03, 0.15))
                self.stats["noise"] += 1
                yield pace
            if self._chance(self.habits.knock) and game.occupied:
                yield from self._knock(game)
                continue
            ply = game.ply
            opponent = getattr(self.ctl, "opponent", None)  # a computer's action: follow it
            move = opponent.suggestion(self.ctl) if opponent is not None else None
            if move is None:
                move = choose_move(game.copy(), self.players, self.rng)
            if move.is_placement:
                assert move.target is not None
                piece = game.piece_to_place()
                assert piece is not None
                self.table.put(move.target, piece)
                yield pace
            elif move.is_step:
                yield from self._move(move)
            else:  # a forced pass happens by itself; give the controller time
                yield pace
            if self.ctl.game.ply > ply and self._chance(self.habits.undo):
                self.press("undo", False)
                self.stats["undo"] += 1
                yield pace
                yield from self._restore()

    def _move(self, move: Move) -> Iterator[float]:
        pace = self.habits.pace
        s, d = move.source, move.target
        assert s is not None and d is not None
        ply = self.ctl.game.ply
        stack = self.table.lift(s)
        yield pace
        if self._chance(self.habits.cancel) and self.ctl.game.ply == ply:
            self.table.put(s, stack)  # changed their mind
            self.stats["cancel"] += 1
            yield pace
            return
        self.table.put(d, self.table.get(d) + stack)
        yield pace
        if self.ctl.game.ply > ply or self.ctl.view().prompt != "choose-destination":
            return
        if self._chance(self.habits.gesture):
            self.stats["gesture"] += 1
            held = self.table.lift(d)
            yield pace
            self.table.put(d, held)
            yield pace
            return
        self.stats["buttons"] += 1
        for _ in range(8):
            if self.ctl.game.ply > ply:
                return
            if self.ctl.suggested == d:
                self.press("confirm", False)
            else:
                self.press("next", False)
            yield pace * 0.3

    def _knock(self, game: Game) -> Iterator[float]:
        cells = [c for c in range(49) if self.table.get(c)]
        c = self.rng.choice(cells)
        self.table.lift(c)
        self.stats["knock"] += 1
        yield self.habits.pace

    def _restore(self) -> Iterator[float]:
        """Make the table match the position (what the mismatch LEDs ask for)."""
        game = self.ctl.game
        removals = self.ctl.removals
        for c in range(49):
            want = game.stack(c)
            have = self.table.get(c)
            if c in removals:  # a cut-off stack may still stand; it goes when asked
                continue
            if have != want:
                if have:
                    self.table.lift(c)
                if want:
                    self.table.put(c, want)
                self.stats["restored"] += 1
        yield self.habits.pace * 1.5


class DirectTable:
    """A plain table for ``demo --direct``: the snapshot is read straight from the stacks."""

    def __init__(self, colours: bool = False) -> None:
        self.stacks = [""] * 49
        self.colours = colours
        self._noise: dict[int, float] = {}
        self.now: Callable[[], float] = lambda: 0.0

    def put(self, cell: int, stack: str) -> None:
        self.stacks[cell] = stack

    def lift(self, cell: int) -> str:
        stack, self.stacks[cell] = self.stacks[cell], ""
        return stack

    def get(self, cell: int) -> str:
        return self.stacks[cell]

    def noise(self, cell: int, duration: float) -> None:
        self._noise[cell] = self.now() + duration

    def cells(self) -> str:
        """What the sensors read now (a flickering cell reads the opposite)."""
        now = self.now()
        out = []
        for c, s in enumerate(self.stacks):
            ch = (s[-1] if self.colours else "x") if s else "."
            until = self._noise.get(c)
            if until is not None and now < until:
                ch = "." if s else "x"
            out.append(ch)
        return "".join(out)
