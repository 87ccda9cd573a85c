"""Game review: the engine's view of every action of a game, within one time budget.

Each position of the game is searched once, in order, with one Searcher (its tables carry
over from one position to the next), the action played there searched first so that its
score is exact (Searcher.search ``first``). An action's ``before`` is that search's score of
the position (its best action's), its ``after`` the score the same search gave the action
played: both in pieces, from White's side (+ when White is ahead), on one scale (the same
depth), so that the ``loss``, what the mover gave away against the best (before minus after
from the mover's side, never below 0), is not the artefact of comparing searches of two
positions (each favours the side to act at its horizon). The next action's ``before`` is a
new, deeper look at the position the action led to.

Marks (only for an action that is not the engine's best, nor forced):
``?`` a loss of MISTAKE (2) pieces or more, ``??`` a loss of BLUNDER (5) or more.

The budget is seconds for the whole review, never exceeded (but for the last search's few
milliseconds of unwinding). Each position gets its share of what is left: a position in the
placing phase counts PLACING_WEIGHT of one in the moving phase (its scores are rough guesses
anyway), a forced action (one legal action) none: it keeps the score of the position it
leads to. Ctrl-C (KeyboardInterrupt) ends the review early: what was done is returned,
marked ``interrupted``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.analysis import Cut, cuts
from engine.game import WHITE, Game
from engine.move import Move
from engine.search import Limits, Searcher, score_pieces

Clock = Callable[[], float]
#: Progress: (positions searched, positions in all, seconds spent).
Progress = Callable[[int, int, float], None]

#: Seconds for the whole review when none are given.
DEFAULT_TIME = 30.0
#: Losses (pieces) that earn a mark.
MISTAKE, BLUNDER = 2.0, 5.0
#: A placing-phase position's share of the budget against a moving-phase one.
PLACING_WEIGHT = 0.25
#: The least time a search is given (a budget spent still searches one ply or so).
MIN_SEARCH = 0.002
#: A search is offered this many times its share (never more than what is left): it stops
#: deepening once half its time is gone, so it uses about its share, and what it leaves goes
#: to the positions after it.
STRETCH = 1.5


def mark(loss: float) -> str:
    """'??' for a loss of BLUNDER pieces or more, '?' for MISTAKE or more, else ''."""
    return "??" if loss >= BLUNDER else "?" if loss >= MISTAKE else ""


@dataclass(frozen=True)
class Score:
    """The engine's view of one position: White's score in pieces, its best action, and the
    score of the action played there (None after the last action)."""

    value: float
    best: Move | None
    cuts: tuple[Cut, ...]
    depth: int
    exact: bool
    played: float | None


@dataclass(frozen=True)
class ActionReview:
    """One action of the game as the engine saw it."""

    ply: int
    side: str
    move: Move
    before: float
    after: float
    best: Move | None
    best_cuts: tuple[Cut, ...]
    loss: float
    mark: str
    depth: int
    exact: bool
    forced: bool


@dataclass
class Review:
    """The reviewed actions (all of them unless ``interrupted``) and the time it took."""

    actions: list[ActionReview] = field(default_factory=list)
    total: int = 0
    budget: float = DEFAULT_TIME
    elapsed: float = 0.0
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return len(self.actions) == self.total and not self.interrupted


def _white(game: Game, score: int) -> float:
    """A search score for the side to act in ``game`` as White's, in pieces."""
    pieces = score_pieces(score)
    return round(pieces if game.turn == WHITE else -pieces, 2) + 0.0  # never -0.0


def _weight(game: Game) -> float:
    if len(game.legal_moves()) <= 1:
        return 0.0
    return PLACING_WEIGHT if game.placing else 1.0


def review(moves: Sequence[Move], *, budget: float = DEFAULT_TIME,
           clock: Clock = time.monotonic, searcher: Searcher | None = None,
           progress: Progress | None = None,
           reviewed: Callable[[ActionReview], None] | None = None) -> Review:
    """Review the game of ``moves`` (legal, from the empty board) in about ``budget``
    seconds. ``progress`` is told after each position, ``reviewed`` each action as soon as
    its review is known (in order: a page draws the graph as it grows). Ctrl-C returns what
    is done."""
    start = clock()
    game = Game()
    weights, sides = [], []
    for m in moves:
        weights.append(_weight(game))
        sides.append(game.turn)
        game.push(m)
    # The position after the last action only matters when that action was forced.
    weights.append(max(_weight(game), PLACING_WEIGHT) if weights and weights[-1] == 0.0
                   else 0.0)
    for _ in moves:
        game.pop()
    s = searcher if searcher is not None else Searcher(seed=0, clock=clock)
    out = Review(total=len(moves), budget=budget)
    scores: list[Score | None] = []
    try:
        for i in range(len(moves) + 1):
            played = moves[i] if i < len(moves) else None
            left = sum(weights[i:])
            if weights[i] == 0.0 and (played is not None or not game.is_over()):
                scores.append(None)  # forced (or not needed): no search
            else:
                remaining = budget - (clock() - start)
                share = min(STRETCH * remaining * weights[i] / left, remaining) if left \
                    else remaining
                scores.append(_score(game, s, max(share, MIN_SEARCH), played))
            known = len(out.actions)
            _collect(out, moves, sides, scores)
            if reviewed is not None:
                for action in out.actions[known:]:
                    reviewed(action)
            if progress is not None:
                progress(i + 1, len(moves) + 1, clock() - start)
            if played is not None:
                game.push(played)
    except KeyboardInterrupt:
        out.interrupted = True
    out.elapsed = clock() - start
    return out


def _score(game: Game, searcher: Searcher, seconds: float, played: Move | None) -> Score:
    """Search ``game`` for ``seconds``, ``played`` first: White's score, the best action,
    what it cuts, and White's score of ``played``."""
    result = searcher.search(game, Limits(time=seconds), forced_fast=False, first=played)
    if result.depth == 0 and not result.exact:  # not even one ply in the time: one ply
        result = searcher.search(game, Limits(depth=1), forced_fast=False, first=played)
    value = _white(game, result.score)
    played_value: float | None = None
    if played is not None:
        scored = dict(result.root_scores)
        played_value = value if played == result.move or played not in scored else \
            _white(game, scored[played])
    best_cuts = cuts(game, result.move) if result.move is not None else ()
    return Score(value, result.move, best_cuts, result.depth, result.exact, played_value)


def _collect(out: Review, moves: Sequence[Move], sides: Sequence[str],
             scores: list[Score | None]) -> None:
    """Turn the scores known so far into reviewed actions (a forced action waits for the
    next score known: it takes that position's score for both)."""
    while len(out.actions) < len(moves):
        i = len(out.actions)
        here = scores[i] if i < len(scores) else None
        move, side = moves[i], sides[i]
        if here is None or here.played is None:  # forced: as good as where it leads
            after = next((sc for sc in scores[i + 1:] if sc is not None), None)
            if after is None or i >= len(scores):
                return
            out.actions.append(ActionReview(i + 1, side, move, after.value, after.value, move,
                                            (), 0.0, "", after.depth, after.exact, True))
            continue
        sign = 1 if side == WHITE else -1
        loss = max(0.0, round(sign * (here.value - here.played), 2))
        is_best = here.best == move
        out.actions.append(ActionReview(i + 1, side, move, here.value, here.played, here.best,
                                        here.cuts, loss, "" if is_best else mark(loss),
                                        here.depth, here.exact, False))


def judge(game: Game, played: Move, limits: Limits, *,
          searcher: Searcher | None = None) -> ActionReview:
    """One action on its own, as :func:`review` judges it (the live tutor): ``game`` is the
    position before ``played`` (left as it was); one search within ``limits``, ``played``
    first. A forced action (one legal action) is not searched and never marked."""
    side = game.turn
    if len(game.legal_moves()) <= 1:
        return ActionReview(game.ply + 1, side, played, 0.0, 0.0, played, (), 0.0, "", 0,
                            True, True)
    s = searcher if searcher is not None else Searcher(seed=0)
    result = s.search(game, limits, forced_fast=False, first=played)
    value = _white(game, result.score)
    scored = dict(result.root_scores)
    after = value if played == result.move or played not in scored else \
        _white(game, scored[played])
    sign = 1 if side == WHITE else -1
    loss = max(0.0, round(sign * (value - after), 2))
    best_cuts = cuts(game, result.move) if result.move is not None else ()
    is_best = result.move == played
    return ActionReview(game.ply + 1, side, played, value, after, result.move, best_cuts, loss,
                        "" if is_best else mark(loss), result.depth, result.exact, False)
