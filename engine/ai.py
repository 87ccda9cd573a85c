"""The computer player: levels from beginner to full strength, and its time management.

A level is a node budget (plus leaf noise for the weakest), so a Pi 4 and a desktop give the
same level the same moves; the top level is a time budget (default 1 s a move, or a share of
the game time). Any time budget also caps the node levels: a game budget is never exceeded.

``threads``: the full-strength level searches on that many threads (lazy SMP in the compiled
core, engine/search.py); the node levels 1-6 always search on one thread.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.evaluate import placing_value
from engine.game import Game
from engine.geometry import CENTRE_CELL, NUM_CELLS, distance
from engine.move import Move
from engine.search import Limits, Searcher, SearchResult
from engine.timecontrol import PANIC, TimeControl

Clock = Callable[[], float]


@dataclass(frozen=True)
class Level:
    """One strength: a node budget (None = time only) and leaf noise in centipieces."""

    number: int
    name: str
    nodes: int | None
    noise: int = 0


LEVELS: tuple[Level, ...] = (
    Level(1, "beginner", 20, 160),
    Level(2, "casual", 150, 55),
    Level(3, "club", 600, 13),
    Level(4, "strong", 2500, 4),
    Level(5, "expert", 10_000),
    Level(6, "master", 40_000),
    Level(7, "full strength", None),
)
MAX_LEVEL = len(LEVELS)
#: Seconds a move at full strength with no other budget.
DEFAULT_MOVE_TIME = 1.0


def level(number: int) -> Level:
    """The level ``number`` (1..MAX_LEVEL); ValueError names the range otherwise."""
    if not 1 <= number <= MAX_LEVEL:
        raise ValueError(f"level {number} does not exist: use 1 (beginner) .. {MAX_LEVEL} "
                         f"({LEVELS[-1].name})")
    return LEVELS[number - 1]


class Engine:
    """Chooses actions for one game at a time (keeps its tables between moves)."""

    def __init__(self, level_number: int = MAX_LEVEL, *, seed: int = 0,
                 game_time: float | None = None, move_time: float | None = None,
                 clock: Clock = time.monotonic, threads: int = 1) -> None:
        self.level = level(level_number)
        self.seed = seed
        self.clock = clock
        if self.level.nodes is None and game_time is None and move_time is None:
            move_time = DEFAULT_MOVE_TIME
        self.time = TimeControl(game_time, move_time, clock=clock)
        self.searcher = Searcher(seed=seed, clock=clock, noise=self.level.noise,
                                 threads=threads)
        self.last: SearchResult | None = None

    def new_game(self) -> None:
        """Forget the last game's tables and time."""
        self.searcher.reset()
        self.time.used = 0.0

    def limits(self, game: Game) -> Limits:
        """The budget of the next move: the level's nodes and/or the time control's share."""
        soft, seconds = self.time.plan(game)
        nodes = self.level.nodes
        if seconds is not None and seconds <= PANIC:
            # Out of time: one ply, itself bounded by a small share of the reserve.
            return Limits(depth=1, nodes=nodes, time=self.time.panic_budget(game))
        return Limits(nodes=nodes, time=seconds, soft=soft)

    def choose(self, game: Game) -> Move:
        """The action for the side to act (the game must not be over); charges its time."""
        self.time.start()
        try:
            dvonn = dvonn_placement(game, self.seed)
            if dvonn is not None:
                self.last = None
                return dvonn
            result = self.searcher.search(game, self.limits(game))
            self.last = result
            if result.move is None:
                raise ValueError("the game is over: there is no action to choose")
            return result.move
        finally:
            self.time.stop()


def dvonn_placement(game: Game, seed: int) -> Move | None:
    """The first three placements (DVONN pieces): near the middle, apart from each other,
    varied by the seed; None after them. (A search has nothing to go on yet.)"""
    if game.ply >= 3:
        return None
    reds = [c for c in range(NUM_CELLS) if game.stack(c)]
    candidates = [c for c in range(NUM_CELLS) if not game.stack(c)
                  and distance(c, CENTRE_CELL) <= 3
                  and all(distance(c, r) >= 2 for r in reds)]
    rng = random.Random(seed * 1_000_003 + game.ply)
    # Prefer cells 1-2 from the centre row's middle and 2-4 from the other DVONN pieces.
    def key(c: int) -> float:
        spread = sum(abs(distance(c, r) - 3) for r in reds)
        return abs(distance(c, CENTRE_CELL) - 1.5) + spread + rng.random() * 1.5
    return Move.place(min(candidates, key=key))


__all__ = ["LEVELS", "MAX_LEVEL", "Engine", "Level", "dvonn_placement", "level",
           "placing_value"]
