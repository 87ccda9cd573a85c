"""Game: a DVONN position with its history; legal moves, push/pop, isolation, score.

Stacks are strings of pieces bottom->top: ``'w'`` white, ``'b'`` black, ``'r'`` red (DVONN).
The hot path (move generation, push/pop) works on masks and preallocated tables only.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Literal

from engine.errors import IllegalMoveError
from engine.geometry import (
    ALL_CELLS,
    CELL_NAMES,
    INTERIOR_MASK,
    NEIGHBOUR_MASKS,
    NUM_CELLS,
    RAYS,
    flood,
    iter_cells,
    parse_cell,
)
from engine.move import PASS, Move

Side = Literal["w", "b"]
WHITE: Side = "w"
BLACK: Side = "b"
RED = "r"
PLACEMENTS = NUM_CELLS
#: Pieces per player (23 each) and DVONN pieces (3).
PIECES = {"w": 23, "b": 23, "r": 3}
#: A stack taller than this can never move.
MAX_MOVING_HEIGHT = 10

# TARGETS[cell * 11 + height] = on-board cells exactly `height` away in each direction.
_TARGETS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ray[h - 1] for ray in RAYS[cell] if 0 < h <= len(ray))
    for cell in range(NUM_CELLS)
    for h in range(11)
)
_STEP = tuple(
    Move.step(a, b) if a != b else PASS for a in range(NUM_CELLS) for b in range(NUM_CELLS)
)
_PLACE = tuple(Move.place(c) for c in range(NUM_CELLS))

# The six neighbours in order around the ring (E, NE, N, W, SW, S): consecutive ones touch.
_RING_DIRS = (0, 4, 2, 1, 5, 3)
_RING = tuple(tuple(RAYS[c][d][0] if RAYS[c][d] else -1 for d in _RING_DIRS)
              for c in range(NUM_CELLS))
_SAFE_EMPTYING: list[dict[int, bool]] = [{} for _ in range(NUM_CELLS)]


def _safe_to_empty(cell: int, occ: int) -> bool:
    """True when emptying ``cell`` cannot cut anything off: its occupied neighbours form one
    unbroken arc around it, so every path through ``cell`` can go round it (search speed-up:
    no flood fill after most moves; only valid when no DVONN piece leaves ``cell``).
    Memoised per cell and neighbourhood."""
    links = occ & NEIGHBOUR_MASKS[cell]
    known = _SAFE_EMPTYING[cell].get(links)
    if known is None:
        ring = [n >= 0 and bool((links >> n) & 1) for n in _RING[cell]]
        starts = sum(1 for i in range(6) if ring[i] and not ring[i - 1])
        known = starts <= 1 if not all(ring) else True
        _SAFE_EMPTYING[cell][links] = known
    return known


def _zobrist_keys() -> tuple[tuple[int, ...], int]:
    rng = random.Random(0xD7011)
    # _Z[(cell * NUM_CELLS + level) * 3 + piece]; the last key marks Black to act.
    keys = tuple(rng.getrandbits(64) for _ in range(NUM_CELLS * NUM_CELLS * 3))
    return keys, rng.getrandbits(64)


_Z, _Z_BLACK = _zobrist_keys()
_PIECE_INDEX = {"w": 0, "b": 1, "r": 2}
# (occupied, white, black, red, hash, source, moving stack, stack below, removed stacks)
_Undo = tuple[int, int, int, int, int, int, str, str, tuple[tuple[int, str], ...]]


def _stack_key(cell: int, stack: str, base: int = 0) -> int:
    h = 0
    for i, p in enumerate(stack):
        h ^= _Z[((cell * NUM_CELLS) + base + i) * 3 + _PIECE_INDEX[p]]
    return h


class Game:
    """A DVONN game from the empty board: position, side to act, history, push/pop.

    >>> g = Game.from_moves("G2 E3 A3".split())
    >>> g.turn, g.piece_to_place()
    ('b', 'b')
    """

    __slots__ = ("_stacks", "_occ", "_white", "_black", "_red", "_ply", "_hash", "_undo",
                 "move_stack", "_linked")

    def __init__(self) -> None:
        self._stacks: list[str] = [""] * NUM_CELLS
        self._occ = 0  # occupied cells
        self._white = 0  # stacks with a white top
        self._black = 0  # stacks with a black top
        self._red = 0  # stacks containing a red piece
        self._ply = 0
        self._hash = 0
        # Every stack is linked to a DVONN piece (always, except in some hand-built setups):
        # then only a move whose source was a link can cut anything off.
        self._linked = True
        self._undo: list[_Undo] = []
        self.move_stack: list[Move] = []

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_moves(cls, moves: Iterable[Move | str]) -> Game:
        """Play ``moves`` (Move values or notation) from the empty board."""
        game = cls()
        for m in moves:
            game.push(Move.parse(m) if isinstance(m, str) else m)
        return game

    @classmethod
    def setup(cls, stacks: Mapping[int | str, str], turn: Side = WHITE) -> Game:
        """A moving-phase position from stacks by cell (index or name), ``turn`` to act.

        For hand-built positions in tests and puzzles; it has no history to pop. Stacks are
        strings of 'w', 'b', 'r' bottom->top; no piece count is enforced beyond 23/23/3.
        """
        game = cls()
        counts = {"w": 0, "b": 0, "r": 0}
        for key, stack in stacks.items():
            cell = parse_cell(key) if isinstance(key, str) else key
            if not 0 <= cell < NUM_CELLS:
                raise ValueError(f"cell {key!r} is not on the board")
            if not stack or set(stack) - set("wbr"):
                raise ValueError(f"stack {stack!r} at {CELL_NAMES[cell]}: use 'w', 'b', 'r'")
            for p in stack:
                counts[p] += 1
            game._stacks[cell] = stack
            bit = 1 << cell
            game._occ |= bit
            if stack[-1] == WHITE:
                game._white |= bit
            elif stack[-1] == BLACK:
                game._black |= bit
            if RED in stack:
                game._red |= bit
            game._hash ^= _stack_key(cell, stack)
        for piece, n in counts.items():
            if n > PIECES[piece]:
                raise ValueError(f"{n} pieces of {piece!r}; the game has {PIECES[piece]}")
        if turn not in (WHITE, BLACK):
            raise ValueError(f"turn must be 'w' or 'b', got {turn!r}")
        game._ply = PLACEMENTS if turn == WHITE else PLACEMENTS + 1
        game._linked = flood(game._red, game._occ) == game._occ
        return game

    def copy(self) -> Game:
        """An independent game with the same position and history."""
        g = Game.__new__(Game)
        g._stacks = self._stacks.copy()
        g._occ, g._white, g._black, g._red = self._occ, self._white, self._black, self._red
        g._ply, g._hash = self._ply, self._hash
        g._linked = self._linked
        g._undo = self._undo.copy()
        g.move_stack = self.move_stack.copy()
        return g

    # ----------------------------------------------------------------- state
    @property
    def ply(self) -> int:
        """Actions taken so far (placements, moves and passes)."""
        return self._ply

    @property
    def placing(self) -> bool:
        """True in phase 1 (placing pieces)."""
        return self._ply < PLACEMENTS

    @property
    def turn(self) -> Side:
        """The side to act: White places first and also moves first in phase 2."""
        p = self._ply
        if p < PLACEMENTS:
            return WHITE if p % 2 == 0 else BLACK
        return WHITE if p % 2 == 1 else BLACK

    def piece_to_place(self) -> str | None:
        """The piece the next placement puts down ('r' for the first three), or None in phase 2."""
        if self._ply >= PLACEMENTS:
            return None
        return RED if self._ply < 3 else self.turn

    def stack(self, cell: int) -> str:
        return self._stacks[cell]

    def stacks(self) -> tuple[str, ...]:
        return tuple(self._stacks)

    @property
    def occupied(self) -> int:
        return self._occ

    @property
    def white_stacks(self) -> int:
        """Stacks White controls (white top)."""
        return self._white

    @property
    def black_stacks(self) -> int:
        return self._black

    @property
    def red_stacks(self) -> int:
        """Stacks that contain a DVONN piece."""
        return self._red

    @property
    def zobrist(self) -> int:
        """Hash of the position and side to act; equal after push/pop."""
        return self._hash ^ (_Z_BLACK if self.turn == BLACK else 0)

    def owner(self, cell: int) -> Side | None:
        bit = 1 << cell
        if self._white & bit:
            return WHITE
        if self._black & bit:
            return BLACK
        return None

    def snapshot(self, colours: bool = False) -> str:
        """The 49-char snapshot the table should read: '.' empty, else 'x' or the top piece."""
        if colours:
            return "".join(s[-1] if s else "." for s in self._stacks)
        return "".join("x" if s else "." for s in self._stacks)

    # ----------------------------------------------------------------- move generation
    def _steps(self, side_mask: int, first_only: bool = False) -> list[Move]:
        """Stack moves for the side whose tops are ``side_mask`` (no pass logic); with
        ``first_only``, stop at the first one found (enough to know the side can move)."""
        occ = self._occ
        stacks = self._stacks
        moves: list[Move] = []
        append = moves.append
        for c in iter_cells(side_mask):
            h = len(stacks[c])
            if h > MAX_MOVING_HEIGHT:
                continue
            nm = NEIGHBOUR_MASKS[c]
            if (INTERIOR_MASK >> c) & 1 and occ & nm == nm:
                continue
            base = c * NUM_CELLS
            for t in _TARGETS[c * 11 + h]:
                if (occ >> t) & 1:
                    append(_STEP[base + t])
                    if first_only:
                        return moves
        return moves

    def legal_moves(self) -> list[Move]:
        """All legal actions: placements, stack moves, ``[PASS]`` when forced, ``[]`` when over."""
        if self._ply < PLACEMENTS:
            return [_PLACE[c] for c in iter_cells(ALL_CELLS & ~self._occ)]
        mine, theirs = (self._white, self._black) if self._ply % 2 else (self._black, self._white)
        moves = self._steps(mine)
        if moves:
            return moves
        return [PASS] if self._steps(theirs, True) else []

    def moves_from(self, sources: int) -> list[Move]:
        """The side to act's stack moves that start on a cell of the mask ``sources``, in
        legal_moves() order (phase 2, no pass logic): a search that knows which stacks may
        have left (controller.table.catchup: the cells that read empty) asks only for those."""
        if self._ply < PLACEMENTS:
            return []
        return self._steps((self._white if self._ply % 2 else self._black) & sources)

    def must_pass(self) -> bool:
        """Whether legal_moves() is [PASS]: phase 2, the side to act cannot move, the other
        can (cheaper: it stops at the first move found)."""
        if self._ply < PLACEMENTS:
            return False
        mine, theirs = (self._white, self._black) if self._ply % 2 else (self._black, self._white)
        return not self._steps(mine, True) and bool(self._steps(theirs, True))

    def count_moves(self) -> int:
        """len(legal_moves()), a little faster (perft's last ply)."""
        if self._ply < PLACEMENTS:
            return PLACEMENTS - self._ply
        return len(self.legal_moves())

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    def movable(self) -> int:
        """Mask of the side-to-act's stacks that have at least one legal move (phase 2)."""
        out = 0
        for m in self.legal_moves():
            if m.source is not None:
                out |= 1 << m.source
        return out

    def destinations(self, source: int) -> int:
        """Mask of the legal landing cells of the stack on ``source`` for the side to act."""
        out = 0
        for m in self.legal_moves():
            if m.source == source and m.target is not None:
                out |= 1 << m.target
        return out

    def is_over(self) -> bool:
        """Phase 2 and neither side can move."""
        if self._ply < PLACEMENTS:
            return False
        return not (self._steps(self._white, True) or self._steps(self._black, True))

    # ----------------------------------------------------------------- push / pop
    def push(self, move: Move) -> int:
        """Apply a legal action; returns the mask of cells whose stacks were cut off and removed.

        Raises IllegalMoveError naming the move, the ply and the side when it is not legal here.
        """
        if move not in self.legal_moves():
            raise IllegalMoveError(self._illegal_reason(move), move=str(move), ply=self._ply + 1,
                                   side=self.turn)
        return self.push_unchecked(move)

    def push_unchecked(self, move: Move) -> int:
        """push() without the legality check: for search code that took ``move`` from
        legal_moves() of this very position."""
        stacks = self._stacks
        src, dst = move.source, move.target
        undo_state = (self._occ, self._white, self._black, self._red, self._hash)
        removed: tuple[tuple[int, str], ...] = ()
        removed_mask = 0
        if dst is None:  # pass
            self._undo.append((*undo_state, -1, "", "", removed))
        elif src is None:  # placement
            piece = RED if self._ply < 3 else self.turn
            bit = 1 << dst
            stacks[dst] = piece
            self._occ |= bit
            if piece == WHITE:
                self._white |= bit
            elif piece == BLACK:
                self._black |= bit
            else:
                self._red |= bit
            self._hash ^= _Z[dst * NUM_CELLS * 3 + _PIECE_INDEX[piece]]
            self._undo.append((*undo_state, dst, "", "", removed))
        else:
            moving = stacks[src]
            below = stacks[dst]
            sbit, dbit = 1 << src, 1 << dst
            self._hash ^= _stack_key(src, moving) ^ _stack_key(dst, moving, len(below))
            stacks[dst] = below + moving
            stacks[src] = ""
            occ = self._occ & ~sbit
            white, black = self._white & ~sbit & ~dbit, self._black & ~sbit & ~dbit
            if moving[-1] == WHITE:
                white |= dbit
            else:
                black |= dbit
            red = self._red
            carries_red = red & sbit
            if carries_red:
                red = (red & ~sbit) | dbit
            if self._linked and not carries_red and _safe_to_empty(src, occ):
                alive = occ
            else:
                alive = flood(red, occ)
            dead = occ & ~alive
            if dead:
                out = []
                for c in iter_cells(dead):
                    out.append((c, stacks[c]))
                    self._hash ^= _stack_key(c, stacks[c])
                    stacks[c] = ""
                removed = tuple(out)
                removed_mask = dead
                occ &= alive
                white &= alive
                black &= alive
            self._occ, self._white, self._black, self._red = occ, white, black, red
            self._undo.append((*undo_state, src, moving, below, removed))
        self._ply += 1
        self.move_stack.append(move)
        return removed_mask

    def pop(self) -> Move:
        """Take back the last action; raises IndexError when there is none."""
        if not self.move_stack:
            raise IndexError("pop from a game with no actions")
        move = self.move_stack.pop()
        occ, white, black, red, h, src, moving, below, removed = self._undo.pop()
        stacks = self._stacks
        if move.source is not None and move.target is not None:
            for c, s in removed:
                stacks[c] = s
            stacks[move.source] = moving
            stacks[move.target] = below
        elif move.target is not None:
            stacks[move.target] = ""
        self._occ, self._white, self._black, self._red, self._hash = occ, white, black, red, h
        self._ply -= 1
        return move

    @property
    def last_removed(self) -> int:
        """Mask of the cells cut off and removed by the last action."""
        if not self._undo:
            return 0
        out = 0
        for c, _ in self._undo[-1][8]:
            out |= 1 << c
        return out

    def removal_if(self, move: Move) -> int:
        """Mask of the cells ``move`` would cut off (it must be legal)."""
        removed = self.push(move)
        self.pop()
        return removed

    # ----------------------------------------------------------------- score
    def score(self) -> tuple[int, int]:
        """Pieces in the stacks each player controls: (white, black)."""
        stacks = self._stacks
        w = sum(len(stacks[c]) for c in iter_cells(self._white))
        b = sum(len(stacks[c]) for c in iter_cells(self._black))
        return w, b

    def winner(self) -> str | None:
        """'w', 'b' or 'tie' once the game is over, else None."""
        if not self.is_over():
            return None
        w, b = self.score()
        return WHITE if w > b else BLACK if b > w else "tie"

    # ----------------------------------------------------------------- text
    def _illegal_reason(self, move: Move) -> str:
        side = "White" if self.turn == WHITE else "Black"
        where = f"at ply {self._ply + 1} ({side} to act)"
        text = str(move)
        if self._ply < PLACEMENTS:
            if not move.is_placement:
                return f"{text!r} is illegal {where}: the placing phase needs a cell, e.g. C3"
            assert move.target is not None
            return f"{text!r} is illegal {where}: {CELL_NAMES[move.target]} is occupied"
        if self.is_over():
            return f"{text!r} is illegal {where}: the game is over"
        if move.is_placement:
            return f"{text!r} is illegal {where}: all pieces are placed; move a stack, e.g. C3D3"
        if move.is_pass:
            return f"{text!r} is illegal {where}: {side} has a move and must play it"
        assert move.source is not None and move.target is not None
        s, t = move.source, move.target
        stack = self._stacks[s]
        src_name, dst_name = CELL_NAMES[s], CELL_NAMES[t]
        if not stack:
            return f"{text!r} is illegal {where}: {src_name} is empty"
        if stack[-1] != self.turn:
            return f"{text!r} is illegal {where}: the stack on {src_name} is not {side}'s"
        if not self._stacks[t]:
            return f"{text!r} is illegal {where}: {dst_name} is empty (a stack lands on a stack)"
        nm = NEIGHBOUR_MASKS[s]
        if (INTERIOR_MASK >> s) & 1 and self._occ & nm == nm:
            return f"{text!r} is illegal {where}: the stack on {src_name} is surrounded"
        return (f"{text!r} is illegal {where}: the stack on {src_name} has height "
                f"{len(stack)} and must move exactly that far in a straight line")

    def __repr__(self) -> str:
        moves = " ".join(str(m) for m in self.move_stack)
        return f"Game.from_moves({moves!r}.split())"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self._stacks == other._stacks and \
            self._ply == other._ply

    def __hash__(self) -> int:
        return self.zobrist
