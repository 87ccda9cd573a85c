"""The physical board the table should show: the engine position plus stacks still to remove.

Comparisons are per cell and tolerant where the sensors are: ``?`` matches anything, ``x``
(occupied, colour unknown) matches any piece, and a colour only has to agree with a colour.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.game import Game
from engine.geometry import CELL_NAMES, NUM_CELLS, iter_cells

EMPTY = "."
UNKNOWN = "?"
COLOURS = frozenset("wbr")


def matches(expect: str, read: str) -> bool:
    """Whether reading ``read`` agrees with the expected ``expect`` ('.', 'x' or a colour)."""
    if read == UNKNOWN:
        return True
    if expect == EMPTY or read == EMPTY:
        return expect == read
    return read == "x" or expect == "x" or read == expect


def has_colours(cells: str) -> bool:
    """True when a snapshot names any top colour (a camera reading)."""
    return any(c in COLOURS for c in cells)


def strip_colours(cells: str) -> str:
    """The occupancy-only form of a snapshot (colours become 'x')."""
    return "".join("x" if c in COLOURS else c for c in cells)


@dataclass(frozen=True)
class Expected:
    """What each cell should read: ``board`` (top colours, '.' empty) and ``removals``.

    ``removals`` maps cells whose stacks were cut off but may still stand on the table to the
    top colour they had: such a cell may read that colour or empty.
    """

    board: str
    removals: dict[int, str] = field(default_factory=dict)

    @staticmethod
    def of(game: Game, removals: dict[int, str] | None = None) -> Expected:
        """The expected board for ``game`` with the given stacks still to remove."""
        return Expected(game.snapshot(True), dict(removals or {}))

    def cell_ok(self, cell: int, read: str) -> bool:
        """Whether ``read`` is acceptable on ``cell``."""
        if matches(self.board[cell], read):
            return True
        old = self.removals.get(cell)
        return old is not None and matches(old, read)

    def diff(self, snap: str) -> int:
        """Mask of the cells where ``snap`` disagrees with this board."""
        out = 0
        board, removals = self.board, self.removals
        for c in range(NUM_CELLS):
            r = snap[c]
            if r == UNKNOWN or matches(board[c], r):
                continue
            old = removals.get(c)
            if old is not None and matches(old, r):
                continue
            out |= 1 << c
        return out

    def cleared(self, snap: str) -> int:
        """Mask of the cells still to remove that now read empty."""
        out = 0
        for c in self.removals:
            if snap[c] == EMPTY:
                out |= 1 << c
        return out


def names(mask: int) -> list[str]:
    """Upper-case cell names of a mask, in canonical order."""
    return [CELL_NAMES[c] for c in iter_cells(mask)]


def empty_mask(snap: str) -> int:
    """Mask of the cells that read empty."""
    return sum(1 << c for c, ch in enumerate(snap) if ch == ".")
