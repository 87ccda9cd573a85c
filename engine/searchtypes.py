"""What a search is given and what it gives back: ``Limits`` (the budget), ``SearchResult``
and ``score_pieces`` (engine/search.py re-exports them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.evaluate import WIN
from engine.move import Move


@dataclass(frozen=True)
class Limits:
    """A search budget: any of nodes, seconds, depth (None = no limit on that one).

    ``time`` is the deadline; ``soft`` (seconds, at most ``time``) is when no new iteration of
    the deepening starts any more (default: half of ``time``, as the next iteration usually
    costs several times the last).
    """

    nodes: int | None = None
    time: float | None = None
    depth: int | None = None
    soft: float | None = None

    def __post_init__(self) -> None:
        if self.nodes is None and self.time is None and self.depth is None:
            raise ValueError("a search needs a node, time or depth limit")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"node limit must be >= 1, got {self.nodes}")
        if self.time is not None and not self.time >= 0:
            raise ValueError(f"time limit must be >= 0 seconds, got {self.time}")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"depth limit must be >= 1, got {self.depth}")
        if self.soft is not None and not (self.time is not None and 0 <= self.soft):
            raise ValueError(f"a soft time limit needs a time limit and >= 0, got {self.soft}")


@dataclass(frozen=True)
class SearchResult:
    """What a search found. ``score`` is centipieces for the side to act at the root."""

    move: Move | None
    score: int
    pv: tuple[Move, ...]
    depth: int
    nodes: int
    elapsed: float
    #: True when ``score`` is the exact final margin (the search saw every game end).
    exact: bool = False
    #: (move, score) of root moves fully searched in the last finished iteration, best first.
    root_scores: tuple[tuple[Move, int], ...] = field(default=())

    @property
    def pieces(self) -> float:
        """The score in pieces (a won game counts its final margin)."""
        return score_pieces(self.score)


def score_pieces(score: int) -> float:
    """Centipieces to pieces; a finished-game value gives its final margin."""
    if score >= WIN // 2:
        return (score - WIN) / 100
    if score <= -WIN // 2:
        return (score + WIN) / 100
    return score / 100


__all__ = ["Limits", "SearchResult", "score_pieces"]
