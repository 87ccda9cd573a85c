"""Test helpers for the engine tests (imported as a plain module; the name is unique).

``Reference`` is a deliberately slow, obviously-correct second implementation of the rules in
RULES.md, written over (row, column) coordinates and cell names with no masks, tables or
shared code from ``engine/``. The tests compare the engine against it on many positions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.move import Move

DATA = Path(__file__).parent / "data"

#: The placement of RULES.md "Figures to test against" (White to move, perft 46/1968/...).
RULES_PLACEMENT = (
    "G2 E3 A3 J3 H3 H2 D4 I4 K3 G3 C1 B2 C5 I1 J2 G4 D2 D1 G1 C4 E2 A1 I5 H1 B3 F1 D3 K5 E1 "
    "E5 F3 B1 J4 F2 J5 K4 F5 I3 I2 C3 D5 H4 G5 H5 F4 C2 E4 A2 B4"
).split()


# --------------------------------------------------------------------------- reference rules
COLUMNS = "ABCDEFGHIJK"
#: Row number -> the column letters of that row, straight from RULES.md.
ROW_COLUMNS = {1: "ABCDEFGHI", 2: "ABCDEFGHIJ", 3: "ABCDEFGHIJK", 4: "BCDEFGHIJK",
               5: "CDEFGHIJK"}
#: The six directions as (row step, column step), RULES.md "Neighbours".
REF_DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))
REF_NAMES = [f"{col}{row}" for row in range(1, 6) for col in ROW_COLUMNS[row]]


def ref_rc(name: str) -> tuple[int, int]:
    return int(name[1]), COLUMNS.index(name[0])


def ref_name(row: int, col: int) -> str | None:
    """The cell name at (row, column index), or None off the board."""
    if row not in ROW_COLUMNS or not 0 <= col < len(COLUMNS):
        return None
    letter = COLUMNS[col]
    return f"{letter}{row}" if letter in ROW_COLUMNS[row] else None


def ref_neighbours(name: str) -> list[str]:
    r, c = ref_rc(name)
    out = []
    for dr, dc in REF_DIRECTIONS:
        n = ref_name(r + dr, c + dc)
        if n is not None:
            out.append(n)
    return out


@dataclass
class Reference:
    """The rules, literally: stacks by cell name, a count of actions taken."""

    stacks: dict[str, str] = field(default_factory=lambda: {n: "" for n in REF_NAMES})
    ply: int = 0

    @classmethod
    def from_game(cls, game: Game) -> Reference:
        ref = cls()
        for i, name in enumerate(REF_NAMES):
            ref.stacks[name] = game.stack(i)
        ref.ply = game.ply
        return ref

    # who acts: placements W, B, W, B ... (49 of them, White last); then White moves first.
    def side(self) -> str:
        if self.ply < 49:
            return "w" if self.ply % 2 == 0 else "b"
        return "w" if (self.ply - 49) % 2 == 0 else "b"

    def stack_moves(self, side: str) -> list[str]:
        out = []
        for name, stack in self.stacks.items():
            if not stack or stack[-1] != side:
                continue  # only stacks topped by the side's colour (a lone red never moves)
            h = len(stack)
            if h > 10:
                continue
            nbrs = ref_neighbours(name)
            if len(nbrs) == 6 and all(self.stacks[n] for n in nbrs):
                continue  # surrounded on all six sides; off-board counts as open
            r, c = ref_rc(name)
            for dr, dc in REF_DIRECTIONS:
                target = ref_name(r + dr * h, c + dc * h)
                if target is not None and self.stacks[target]:
                    out.append(name + target)
        return out

    def legal(self) -> list[str]:
        if self.ply < 49:
            return [n for n, s in self.stacks.items() if not s]
        side = self.side()
        mine = self.stack_moves(side)
        if mine:
            return mine
        other = "b" if side == "w" else "w"
        return ["PASS"] if self.stack_moves(other) else []

    def apply(self, action: str) -> set[str]:
        """Play an action (assumed legal); returns the names of the cells whose stacks went."""
        removed: set[str] = set()
        if action == "PASS":
            pass
        elif len(action) == 2:
            piece = "r" if self.ply < 3 else self.side()
            assert not self.stacks[action]
            self.stacks[action] = piece
        else:
            src, dst = action[:2], action[2:]
            self.stacks[dst] += self.stacks[src]
            self.stacks[src] = ""
            # keep what is linked to a stack with a DVONN piece; remove the rest
            todo = [n for n, s in self.stacks.items() if "r" in s]
            seen = set(todo)
            while todo:
                n = todo.pop()
                for m in ref_neighbours(n):
                    if self.stacks[m] and m not in seen:
                        seen.add(m)
                        todo.append(m)
            for n, s in self.stacks.items():
                if s and n not in seen:
                    removed.add(n)
                    self.stacks[n] = ""
        self.ply += 1
        return removed

    def score(self) -> tuple[int, int]:
        w = sum(len(s) for s in self.stacks.values() if s and s[-1] == "w")
        b = sum(len(s) for s in self.stacks.values() if s and s[-1] == "b")
        return w, b

    def copy(self) -> Reference:
        return Reference(dict(self.stacks), self.ply)


def ref_perft(ref: Reference, depth: int) -> int:
    if depth == 0:
        return 1
    moves = ref.legal()
    if not moves:
        return 1
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        child = ref.copy()
        child.apply(m)
        total += ref_perft(child, depth - 1)
    return total


# --------------------------------------------------------------------------- helpers
def names(mask: int) -> set[str]:
    """The cell names of a mask."""
    return {REF_NAMES[c] for c in range(49) if mask >> c & 1}


def move_strings(game: Game) -> list[str]:
    return sorted(str(m) for m in game.legal_moves())


def random_actions(seed: int, max_plies: int = 1000) -> Iterator[Game]:
    """Play a uniformly random game (with checked push), yielding the game before each action
    and once more at the end."""
    rng = random.Random(seed)
    game = Game()
    for _ in range(max_plies):
        yield game
        moves = game.legal_moves()
        if not moves:
            return
        game.push(rng.choice(moves))
    yield game


def random_moves(seed: int) -> list[Move]:
    """The actions of one uniformly random complete game."""
    *_, game = random_actions(seed)
    return list(game.move_stack)


def load_perft_data() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((DATA / "perft.json").read_text())["positions"]
    return data


def build_position(entry: dict[str, Any]) -> Game:
    """A game from a perft.json entry: ``moves`` from the empty board or ``stacks`` + ``turn``."""
    if "moves" in entry:
        return Game.from_moves(entry["moves"])
    return Game.setup(entry["stacks"], entry["turn"])
