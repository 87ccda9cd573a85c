"""Reading a frame again with the heights a candidate move would give.

A camera reader is given the heights the controller has committed. A move makes its
destination taller before it is committed, and at a tilt the taller stack then lies over the
cells behind it: the vacated source reads its side wall as a piece, a neighbour reads its top.
The board fits no explanation and the table waits for ever (the last moves of a game, where
stacks are tall, most of all). So when the table has read a board that fits nothing for a
while in the moving phase, each legal move is tried: the same frame is read again with the
heights after that move; when exactly one move gives a reading that is that move's board
(source empty, destination the mover's colour, every other cell as it stands, or one stack
lifted for the next action), that reading is what the controller is given, frame after
frame, while it still fits. When it stops fitting before the controller has committed the
move (the next player was quick), the one next move whose heights make the frame read as
both is looked for in the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.table.expected import Expected
from controller.table.inference import MISMATCH, WAIT
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import iter_cells
from engine.move import PASS, Move

#: Seconds the board must have fitted nothing (one stable board, one ply) before the frame
#: is read again with each move's heights.
STUCK_AFTER = 1.0
#: Moves a line may grow to before the controller commits its first.
MAX_LINE = 3
#: Reads the last frame again with other heights: (snapshot, mask of the cells read '?' because
#: a stack in front hides them), or None.
Reread = Callable[[Sequence[int]], "tuple[str, int] | None"]


def _play(game: Game, move: Move) -> int:
    """Push ``move`` and the passes that follow it (the table passes by itself); the mask of
    the stacks it cut off."""
    cut = game.push(move)
    while not game.is_over() and game.legal_moves() == [PASS]:
        game.push(PASS)
    return cut


def heights_after(ctl: TableController, *line: Move) -> list[int]:
    """The heights the table shows right after the moves of ``line`` (their cut-off stacks
    still standing)."""
    heights = ctl.heights()
    for move in line:
        assert move.source is not None and move.target is not None
        heights[move.target] += heights[move.source]
        heights[move.source] = 0
    return heights


def fits(ctl: TableController, cells: str, *line: Move) -> bool:
    """Whether ``cells`` is the table right after the moves of ``line``: their sources read
    empty, the destinations the movers' colours, every other cell as that position (with the
    stacks they cut off, and those cut off before, still standing or gone), but for one stack
    at most read empty: the next action's stack lifted already (the controller explains
    that)."""
    game = ctl.game.copy()
    removals = dict(ctl.removals)
    for move in line:
        before = game.stacks()
        if move not in game.legal_moves():
            return False
        for c in iter_cells(_play(game, move)):
            removals[c] = before[c][-1]
    for move in line:
        assert move.source is not None and move.target is not None
        top = game.stack(move.target)[-1:] or removals.get(move.target, ".")
        if cells[move.source] != "." or cells[move.target] not in (top, "." if move.target in
                                                                       removals else top):
            return False
    off = Expected.of(game, removals).diff(cells)
    return off == 0 or (off & (off - 1) == 0 and cells[off.bit_length() - 1] == ".")


class HeightCheck:
    """Watches a controller; when it is stuck, finds the one move whose heights make the
    frame read as that move (``reread(heights)`` reads the last frame again)."""

    def __init__(self, ctl: TableController) -> None:
        self.ctl = ctl
        self._key: tuple[int, str | None] | None = None
        self._since = 0.0
        self._tried = False
        self.line: tuple[Move, ...] = ()  # the moves whose heights the frames are read with
        self._ply = -1

    def stuck(self, t: float, cells: str) -> bool:
        """True in the moving phase when, for STUCK_AFTER seconds, the board has fitted
        nothing (one stable board, one ply), or the frames have read the same board that is
        not the expected one (a vacated cell that reads '?' never settles)."""
        ctl = self.ctl
        e = ctl.explanation
        if ctl.game.placing or ctl.game.is_over() or e is None:
            self._key = None
            return False
        if e.kind in (MISMATCH, WAIT):
            key: tuple[int, str | None] = (ctl.game.ply, ctl.stable)
        elif ctl.expected.diff(cells) or "?" in cells:
            key = (ctl.game.ply, "raw " + cells)
        else:
            self._key = None
            return False
        if key != self._key:
            self._key, self._since, self._tried = key, t, False
        return t - self._since >= STUCK_AFTER

    def reading(self, t: float, cells: str, reread: Reread) -> str:
        """What the controller should be given for this frame: ``cells`` as read, or the
        frame read again with the heights of the one line of moves that fits it."""
        ctl = self.ctl
        if self.line and ctl.game.ply != self._ply:
            self.line = ()  # committed (or something else happened): back to the heights
        if self.line:
            again = self._read(self.line, reread)
            if again is not None and fits(ctl, again, *self.line):
                return again
            found = (self._one(self.line, cells, reread) if len(self.line) < MAX_LINE
                     else None)
            if found is not None:
                self.line = found[0]
                return found[1]
            self.line = ()
        if not self.stuck(t, cells) or self._tried:
            return cells
        self._tried = True
        found = self._one((), cells, reread)
        if found is None:
            return cells
        self.line, self._ply = found[0], ctl.game.ply
        return found[1]

    def _read(self, line: tuple[Move, ...], reread: Reread) -> str | None:
        """The frame read again with the heights after ``line``; a cell that reads '?' because
        a stack in front of it hides it (the line's grown destination) and that the line does
        not touch reads as it stands: a hidden cell shows nothing, and nothing but a hand, which
        shows, changes a cell."""
        got = reread(heights_after(self.ctl, *line))
        if got is None:
            return None
        cells, hidden = got
        if not hidden:
            return cells
        game = self.ctl.game.copy()
        for move in line:
            _play(game, move)
        board = game.snapshot(True)
        touched = {c for m in line for c in (m.source, m.target)}
        out = list(cells)
        for c in iter_cells(hidden):
            if c not in touched and c not in self.ctl.removals and out[c] == "?":
                out[c] = board[c]
        return "".join(out)

    def _one(self, line: tuple[Move, ...], cells: str, reread: Reread
             ) -> tuple[tuple[Move, ...], str] | None:
        """The one move after ``line`` whose heights make the frame read as the line and it,
        with that reading; None when none or several do. Only moves whose source or
        destination ``cells`` (the frame as read) does not show as it stands are tried: the
        frame is read again for a few moves, not for all of them."""
        game = self.ctl.game.copy()
        for move in line:
            _play(game, move)
        if game.is_over():
            return None
        board = game.snapshot(True)
        found: list[tuple[tuple[Move, ...], str]] = []
        for move in game.legal_moves():
            if move.is_pass or move.source is None or move.target is None:
                continue
            if cells[move.source] == board[move.source] and \
                    cells[move.target] == board[move.target]:
                continue
            longer = (*line, move)
            again = self._read(longer, reread)
            if again is not None and fits(self.ctl, again, *longer):
                found.append((longer, again))
                if len(found) > 1:
                    return None  # two moves fit: the frame does not decide
        return found[0] if found else None
