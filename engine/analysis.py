"""Analysis for the table and the web view: best action, principal variation, score in
pieces, and for any candidate action the stacks it would cut off."""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells
from engine.move import Move
from engine.search import Limits, Searcher, score_pieces


@dataclass(frozen=True)
class Cut:
    """A stack an action would cut off: where, what (bottom->top), who controlled it."""

    cell: int
    stack: str

    @property
    def name(self) -> str:
        return CELL_NAMES[self.cell]

    @property
    def owner(self) -> str:
        return self.stack[-1]


@dataclass(frozen=True)
class Analysis:
    """The search's view of a position (score for the side to act, in pieces)."""

    best: Move | None
    pv: tuple[Move, ...]
    score: float
    exact: bool
    depth: int
    nodes: int
    elapsed: float
    #: What ``best`` would cut off.
    cuts: tuple[Cut, ...]

    @property
    def cut_mask(self) -> int:
        out = 0
        for c in self.cuts:
            out |= 1 << c.cell
        return out

    def describe(self) -> str:
        """One line: ``best C3D3 (+2.5 pieces, depth 4) cuts off E5 (wb)``."""
        if self.best is None:
            return "game over"
        word = "exactly " if self.exact else ""
        text = f"best {self.best} ({word}{self.score:+.2f} pieces, depth {self.depth})"
        if self.cuts:
            text += " cuts off " + ", ".join(f"{c.name} ({c.stack})" for c in self.cuts)
        if len(self.pv) > 1:
            text += " · line " + " ".join(str(m) for m in self.pv)
        return text


def cuts(game: Game, move: Move) -> tuple[Cut, ...]:
    """The stacks the legal action ``move`` would cut off and remove (none for a placement or
    a pass); raises IllegalMoveError naming the move when it is not legal here."""
    before = game.stacks()
    mask = game.push(move)
    game.pop()
    return tuple(Cut(c, before[c]) for c in iter_cells(mask))


def candidates(game: Game) -> dict[Move, tuple[Cut, ...]]:
    """Every legal action with the stacks it would cut off."""
    return {m: cuts(game, m) for m in game.legal_moves()}


def analyse(game: Game, limits: Limits, *, searcher: Searcher | None = None,
            seed: int = 0) -> Analysis:
    """Search ``game`` within ``limits`` (e.g. a node budget for a hint in about one second on a
    Pi 4) and describe the best action. ``game`` is left as it was."""
    s = searcher if searcher is not None else Searcher(seed=seed)
    result = s.search(game, limits, forced_fast=False)
    best_cuts = cuts(game, result.move) if result.move is not None else ()
    return Analysis(result.move, result.pv, score_pieces(result.score), result.exact,
                    result.depth, result.nodes, result.elapsed, best_cuts)
