"""TerminalStrip: the board drawn in a terminal, for development and the simulated table.

The hex board is drawn as it lies in front of White: row 5 at the top of the screen, row 1
at the bottom, each row offset by half a cell like the real board. Every cell shows its
label (cell name by default) on its colour as a 24-bit ANSI background; status LEDs form a
bar underneath. On a TTY each frame redraws the previous one in place; otherwise frames are
appended one after another (logs, pipes, tests).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from engine.geometry import CELL_COORDS, NUM_CELLS, ROWS

from .base import LedStrip
from .frame import RGB, Frame

CELL_WIDTH = 5  # characters per cell, label centred in the middle 3
PITCH = CELL_WIDTH + 1  # one space between cells; half a pitch is the row offset
RESET = "\x1b[0m"


def _cells_by_row() -> list[list[tuple[int, int]]]:
    """For each row 1..5: (cell, screen column) pairs, left to right."""
    rows: list[list[tuple[int, int]]] = [[] for _ in range(ROWS)]
    for cell in range(NUM_CELLS):
        r, c = CELL_COORDS[cell]
        # x = c - (r - 1) / 2 runs from -1 (A3) to 9 (K3); shift so A3 sits at column 0.
        rows[r - 1].append((cell, (2 * c - (r - 1) + 2) * PITCH // 2))
    return rows


_ROWS = _cells_by_row()


def _paint(colour: RGB, text: str) -> str:
    r, g, b = colour
    fg = "\x1b[30m" if 0.299 * r + 0.587 * g + 0.114 * b > 128 else "\x1b[97m"
    return f"\x1b[48;2;{r};{g};{b}m{fg}{text}{RESET}"


class TerminalStrip(LedStrip):
    """Draws each shown frame on ``stream`` (default: sys.stdout at construction)."""

    def __init__(
        self, *args: Any, stream: TextIO | None = None, colour: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.stream = stream if stream is not None else sys.stdout
        self.colour = colour
        #: One line drawn above the board (e.g. what the LED test is lighting).
        self.caption = ""
        #: The word before the status LEDs' bar; the controller sets it in the player's
        #: language (hardware knows no catalogs).
        self.status_label = "status"
        self._drawn_lines = 0
        isatty = getattr(self.stream, "isatty", None)
        self._tty = bool(isatty and isatty())

    def render_text(self, frame: Frame | None = None, *, colour: bool | None = None) -> str:
        """The frame (default: the last shown, else the current colours) as text lines."""
        if frame is None:
            frame = self.last_frame or self.encoder.encode(self._cells, self._status)
        use_colour = self.colour if colour is None else colour
        lines = [self.caption] if self.caption else []
        for row in reversed(_ROWS):
            line = ""
            width = 0
            for cell, col in row:
                line += " " * (col - width)
                width = col + CELL_WIDTH
                label = f"{self._labels[cell]:^3.3}"
                rgb = frame.preview[cell]
                if use_colour:
                    line += _paint(rgb, f" {label} ")
                else:
                    line += f"[{label}]" if any(rgb) else f" {label} "
            lines.append(line.rstrip() if not use_colour else line)
        if frame.preview_status:
            bar = f"{self.status_label} "
            for rgb in frame.preview_status:
                if use_colour:
                    bar += _paint(rgb, "  ") + " "
                else:
                    bar += "# " if any(rgb) else ". "
            lines.append(bar.rstrip())
        return "\n".join(lines)

    def _output(self, frame: Frame) -> None:
        text = self.render_text(frame)
        if self._tty and self._drawn_lines:
            # Back to the first line of the previous drawing, clear to the end, redraw.
            self.stream.write(f"\x1b[{self._drawn_lines}F\x1b[J")
        elif self._drawn_lines:
            self.stream.write("\n")
        self.stream.write(text + "\n")
        self.stream.flush()
        self._drawn_lines = text.count("\n") + 1

