"""Time control: share a game's thinking budget out over the moves so it is never exceeded.

The clock is injected (``clock() -> seconds``), so tests drive it by hand. :meth:`TimeControl.
budget` says how long the next move may think; :meth:`TimeControl.start` / :meth:`stop`
charge what was really spent (search overruns its deadline by at most one check interval; the
reserve covers that and the time spent outside the search).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.game import PLACEMENTS, Game

Clock = Callable[[], float]

#: The part of a game budget the placing phase may use.
PLACING_SHARE = 0.2
#: Below this many seconds a move gets a fixed-depth answer instead of a timed search.
PANIC = 0.02
#: With a game budget, a move's search may run to HARD times its share (never past half of
#: what is left) and starts no new iteration after SOFT times its share; what a move leaves
#: unused goes to the next ones. (Against PrimaDvonna, HARD 2 / SOFT 0.6 and every other
#: split of the time measured scored no better: benchmarks/RESULTS.md, issue 25.)
HARD = 1.0
SOFT = 0.5


class TimeControl:
    """A budget for a whole game (``game_time``) and/or for each move (``move_time``)."""

    def __init__(self, game_time: float | None = None, move_time: float | None = None, *,
                 clock: Clock = time.monotonic, used: float = 0.0) -> None:
        if game_time is not None and not game_time > 0:
            raise ValueError(f"game time must be > 0 seconds, got {game_time}")
        if move_time is not None and not move_time > 0:
            raise ValueError(f"move time must be > 0 seconds, got {move_time}")
        self.game_time = game_time
        self.move_time = move_time
        self.clock = clock
        self.used = used
        self._started: float | None = None

    @property
    def reserve(self) -> float:
        """Seconds of the game budget never handed out (overruns, I/O, start-up)."""
        if self.game_time is None:
            return 0.0
        return max(0.1, 0.05 * self.game_time)

    @property
    def remaining(self) -> float | None:
        """Seconds of the game budget left (None without one)."""
        if self.game_time is None:
            return None
        return self.game_time - self.used

    def budget(self, game: Game) -> float | None:
        """Seconds the next move may search; None means no time limit at all."""
        per_move = self.move_time
        if self.game_time is None:
            return per_move
        avail = self.game_time - self.used - self.reserve
        if avail <= PANIC:
            return 0.0
        if game.ply < PLACEMENTS:
            # Placing gets a small fixed share: the moving phase is where depth pays.
            share = min(avail / self.moves_left(game),
                        PLACING_SHARE * self.game_time / (PLACEMENTS / 2))
        else:
            share = avail / self.moves_left(game)
        share = min(share, avail * 0.5)
        if per_move is not None:
            share = min(share, per_move)
        return max(share, 0.0)

    def plan(self, game: Game) -> tuple[float | None, float | None]:
        """(soft, hard) seconds for the next move: no new iteration after ``soft``, a stop at
        ``hard`` (None, None: no time limit). Without a game budget: half the move time, and
        the move time."""
        share = self.budget(game)
        if share is None:
            return None, None
        if self.game_time is None or share <= PANIC:
            return share * 0.5, share
        avail = self.game_time - self.used - self.reserve
        hard = min(share * HARD, avail * 0.5)
        if self.move_time is not None:
            hard = min(hard, self.move_time)
        hard = max(hard, share)
        return min(share * SOFT, hard), hard

    @staticmethod
    def moves_left(game: Game) -> float:
        """A rough count of the moves still to think about for the side to act: in the
        moving phase about half the stacks low enough to move far are, minus the last moves,
        which are quick (the search sees to the end)."""
        if game.ply < PLACEMENTS:
            return (PLACEMENTS - game.ply) / 2 + 16
        low = sum(1 for s in game.stacks() if 0 < len(s) <= 5)
        return max(2.0, low / 2 - 10)

    def panic_budget(self, game: Game) -> float:
        """Seconds for a move once the budget proper is spent: a share of the reserve."""
        remaining = self.remaining
        if remaining is None:
            return PANIC
        return max(0.0, min(PANIC, remaining / (2 * self.moves_left(game) + 8)))

    def start(self) -> None:
        """The engine's clock starts (it has to act)."""
        self._started = self.clock()

    def stop(self) -> float:
        """The engine's clock stops; returns the seconds charged for this move."""
        if self._started is None:
            return 0.0
        spent = self.clock() - self._started
        self._started = None
        self.used += spent
        return spent
