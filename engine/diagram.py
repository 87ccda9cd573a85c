"""A text diagram of a position: stack owner and height per cell, row 5 at the top."""

from __future__ import annotations

from engine.game import Game
from engine.geometry import CELL_COORDS, CELL_NAMES, NUM_CELLS, ROWS


def cell_label(stack: str) -> str:
    """'.' empty; else top colour and height, upper case for White/Black/Red ('W3', 'R1'),
    with '*' when the stack holds a DVONN piece below its top."""
    if not stack:
        return "."
    label = f"{stack[-1].upper()}{len(stack)}"
    return label + "*" if "r" in stack[:-1] else label


def diagram(game: Game) -> str:
    """Rows 5..1 offset like the real board; each cell 4 characters wide."""
    lines = []
    for row in range(ROWS, 0, -1):
        cells = [c for c in range(NUM_CELLS) if CELL_COORDS[c][0] == row]
        first, last = CELL_NAMES[cells[0]], CELL_NAMES[cells[-1]]
        line = ""
        for c in cells:
            _, col = CELL_COORDS[c]
            pos = int((col - (row - 1) / 2 + 1) * 4)
            line = line.ljust(pos) + cell_label(game.stack(c)).center(4)
        lines.append(f"{row} {line.rstrip():<46}  {first}-{last}")
    return "\n".join(lines)
