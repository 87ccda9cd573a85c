"""The order pieces were placed in, as a camera sees it: the side to act fixes each piece's
colour, not which of two cells a player filled first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from controller.table.decision import Decision
from engine.game import Game
from engine.move import Move

#: Seconds between two players' placements at the least (seed 397 of the camera sessions:
#: the hand placing F1 hid E2 0.1 s before F1; camera game 25: 1.4 s out of turn).
TURN = 1.0


def out_of_turn(game: Game, cells: list[int], filled: Sequence[float]) -> bool:
    """Whether placements on ``cells`` (in the order played from ``game``) of different
    colours began to fill in another order (by more than ``TURN``: a hand hides the cells
    round the one it acts on at once)."""
    pieces = _pieces(game, cells)
    n = len(cells)
    return any(filled[cells[i]] > filled[cells[j]] + TURN and pieces[i] != pieces[j]
               for i in range(n) for j in range(i + 1, n))


def _pieces(game: Game, cells: list[int]) -> list[str]:
    """The piece each placement on ``cells`` (in order, from ``game``) puts down."""
    pieces = []
    for c in cells:
        pieces.append(game.piece_to_place() or "")
        game.push(Move.place(c))
    for _ in cells:
        game.pop()
    return pieces


def in_order(game: Game, d: Decision, seen: Callable[[int], float],
             read: Callable[[int], float] | None = None) -> Decision:
    """``d`` with a chain of placements reordered so that the pieces of each colour come in
    the order the camera saw their cells fill (``seen``; a tie by when each was read,
    ``read``): the side to act fixes each piece's colour, not which of two white pieces
    came first, and the search finds them in cell order (camera benchmark game 19: C4 read
    '?' under glare, then C5 and F1 came; F1 C5 C4 was committed for C4 C5 F1). A tie is a
    hand that passed over both cells on its way (room game 103: the hand placing C5 passed
    over B3, and both began to fill at 17.9 s; C5 was read at 20.2 s, B3 at 22.0 s)."""
    moves = list(d.moves)
    if d.kind != "commit" or d.back or len(moves) < 2 or any(
            m.source is not None or m.target is None for m in moves):
        return d
    targets = [m.target for m in moves if m.target is not None]
    pieces = _pieces(game, targets)
    for piece in set(pieces):
        at = [i for i, p in enumerate(pieces) if p == piece]
        cells = sorted((targets[i] for i in at),
                       key=lambda c: (seen(c), read(c) if read is not None else 0.0, c))
        for i, c in zip(at, cells, strict=True):
            moves[i] = Move.place(c)
    return replace(d, moves=tuple(moves))
