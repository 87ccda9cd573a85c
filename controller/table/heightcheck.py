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
both is looked for in the same way; a frame that only shows '?' on the line's cells (a
flicker, a hand) keeps the line for a moment.

"Stuck" counts from the last frame that showed something new: a cell read '?' shows nothing,
so neither a vacated cell that reads '?' and '.' by turns nor the next player's hand keeps the
check from starting; it is tried once until something new shows, never on a frame with a hand
over the board (more than MAX_UNKNOWN cells read '?').
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
#: A frame with more cells read '?' than this (a hand over the board) is not tried.
MAX_UNKNOWN = 4
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


def fits(ctl: TableController, cells: str, *line: Move, loose: bool = False) -> bool:
    """Whether ``cells`` is the table right after the moves of ``line``: their sources read
    empty, the destinations the movers' colours, every other cell as that position (with the
    stacks they cut off, and those cut off before, still standing or gone), but for one stack
    at most read empty: the next action's stack lifted already (the controller explains
    that). ``loose``: a source or destination may also read '?' (it shows nothing: a hand,
    a flicker), so the frame does not contradict the line."""
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
        unknown = "?" if loose else "."
        if cells[move.source] not in (".", unknown) or cells[move.target] not in (
                top, "." if move.target in removals else top, unknown if loose else top):
            return False
    off = Expected.of(game, removals).diff(cells)
    return off == 0 or (off & (off - 1) == 0 and cells[off.bit_length() - 1] == ".")


class HeightCheck:
    """Watches a controller; when it is stuck, finds the one move whose heights make the
    frame read as that move (``reread(heights)`` reads the last frame again)."""

    def __init__(self, ctl: TableController) -> None:
        self.ctl = ctl
        self._ply = -1  # the ply the line was found at
        self._at_ply = -1  # the ply the board has been watched at
        self._seen: list[str] = ["?"] * 49  # each cell's last reading that was not '?'
        self._seen_at: list[float] = [0.0] * 49  # ... and the frame it began with
        self._changed = False  # a cell showed something new since stuck() last looked
        self._since = 0.0
        self._ply_start = 0.0  # when the board began to be watched at this ply
        self._tried = False  # read again since a cell last showed something new
        self._fitted = 0.0  # when the line last fitted a frame
        self.line: tuple[Move, ...] = ()  # the moves whose heights the frames are read with

    def stuck(self, t: float, cells: str) -> bool:
        """True in the moving phase when the board fits nothing (or is not the expected
        one) and for STUCK_AFTER seconds no cell has shown anything new: a cell read '?'
        (under a hand, or a vacated cell that never settles) shows nothing, so a hand, a
        flicker or a quick next player does not keep the check from ever starting."""
        ctl = self.ctl
        e = ctl.explanation
        if ctl.game.ply != self._at_ply:
            self._ply_start = t
        if self._changed or ctl.game.ply != self._at_ply:
            self._changed = False
            self._at_ply = ctl.game.ply
            self._since, self._tried = t, False
        if ctl.game.placing or ctl.game.is_over() or e is None:
            return False
        if e.kind not in (MISMATCH, WAIT) and not ctl.expected.diff(cells) and not any(
                ch == "?" and ctl.expected.board[c] != "." for c, ch in enumerate(cells)):
            return False  # (an empty cell read '?' is no vacated stack)
        return t - self._since >= STUCK_AFTER

    def _watch(self, t: float, cells: str) -> bool:
        """Note each cell's reading; True when one shows something new (not '?')."""
        seen, at = self._seen, self._seen_at
        new = False
        for c, ch in enumerate(cells):
            if ch != "?" and ch != seen[c]:
                seen[c], at[c] = ch, t
                new = True
        return new

    def _use(self, line: tuple[Move, ...], cells: str) -> None:
        """Take ``line``; its sources that the frame as read does not show empty (a grown
        stack's side over them) have been empty since their reading changed to that: the
        controller learns so (the order the cells emptied in decides between explanations
        that end on the same board; camera game 4: F2E2, pass, G3G2, not G3G2, pass, F2E2)."""
        self.line = line
        board = self.ctl.expected.board
        for move in line:
            c = move.source
            # only a reading that changed when the stack left dates it (not the stack's own
            # colour, which the side of the grown one may show as well), and not before the
            # ply began: what came before was committed
            if c is not None and cells[c] not in (".", "?", board[c][-1:]):
                self.ctl.emptied[c] = max(self._seen_at[c], self._ply_start)

    def reading(self, t: float, cells: str, reread: Reread) -> str:
        """What the controller should be given for this frame: ``cells`` as read, or the
        frame read again with the heights of the one line of moves that fits it. A stuck
        board is tried once until a cell shows something new, on a frame with few cells read
        '?' (not a hand over the board)."""
        ctl = self.ctl
        self._changed = self._watch(t, cells) or self._changed
        if self.line and ctl.game.ply != self._ply:
            self.line = ()  # committed (or something else happened): back to the heights
            ctl.emptied.clear()
        if self.line:
            again = self._read(self.line, reread)
            if again is not None and fits(ctl, again, *self.line):
                self._fitted = t
                return again
            found = (self._one(self.line, cells, reread) if len(self.line) < MAX_LINE
                     else None)
            if found is not None:
                self._use(found[0], cells)
                self._fitted = t
                return found[1]
            if again is not None and t - self._fitted < STUCK_AFTER and fits(
                    ctl, again, *self.line, loose=True):
                return again  # a flicker or a hand on the line's cells: keep the line
            self.line = ()
            ctl.emptied.clear()
        if not self.stuck(t, cells) or self._tried or cells.count("?") > MAX_UNKNOWN:
            return cells
        self._tried = True
        found = self._one((), cells, reread)
        if found is None:
            return cells
        self._use(found[0], cells)
        self._ply, self._fitted = ctl.game.ply, t
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
