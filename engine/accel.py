"""The optional compiled search core (``engine._dvonncore``, built from engine/_dvonncore.c at
install when a C compiler is there) and the pure-Python fallback.

The core mirrors the Python engine exactly (move order, transposition table, killers,
history, evaluation, node counting, clock checks), so a search gives the same move, score,
principal variation and node count either way; only the speed differs. The environment
variable ``DVONN_ENGINE=python`` forces the pure-Python engine (tests, figures);
``DVONN_ENGINE=compiled`` makes a missing core an error instead of a quiet fallback.

Moves cross the boundary as small ints: 0 = PASS, 1 + cell = placement,
64 + source * 49 + target = step; positions as (stacks, ply, linked).
"""

from __future__ import annotations

import os
from types import ModuleType

from engine import evaluate as _ev
from engine import game as _game
from engine.game import Game
from engine.geometry import EDGE_MASK, INTERIOR_MASK, NEIGHBOUR_MASKS, NEIGHBOURS, NUM_CELLS
from engine.move import PASS, Move

ENV = "DVONN_ENGINE"
#: (stacks, ply, linked): what the core reads of a Game.
Position = tuple[tuple[str, ...], int, bool]

#: MOVES[code] = the Move (None for unused codes).
MOVES: tuple[Move | None, ...] = (
    (PASS,) + tuple(Move.place(c) for c in range(NUM_CELLS))
    + (None,) * (64 - 1 - NUM_CELLS)
    + tuple(Move.step(a, b) if a != b else None
            for a in range(NUM_CELLS) for b in range(NUM_CELLS))
)
_CODES: dict[Move, int] = {m: i for i, m in enumerate(MOVES) if m is not None}


def code(move: Move) -> int:
    """The core's int for ``move``."""
    return _CODES[move]


def move(code: int) -> Move:
    """The Move for a core int."""
    m = MOVES[code]
    if m is None:
        raise ValueError(f"{code} is no move code")
    return m


def position(game: Game) -> Position:
    """What the core needs of ``game`` (its history stays in Python)."""
    return (tuple(game._stacks), game._ply, game._linked)


def init(core: ModuleType) -> None:
    """Load the board tables, Zobrist keys and the evaluation weights of engine/evaluate.py
    into ``core`` (again after changing a weight there, e.g. in a tuning experiment)."""
    core.init(
        _game._Z, _game._Z_BLACK, _game._TARGETS, _ev._TARGET_MASKS, NEIGHBOURS,
        NEIGHBOUR_MASKS, _game._RING, INTERIOR_MASK, EDGE_MASK,
        tuple(d for row in _ev._DIST for d in row),
        _ev.flat_weights(),
    )


def _load() -> tuple[ModuleType | None, ModuleType | None, str]:
    """(the initialised core module or None, the one searches use by default or None, why
    not when it is None)."""
    choice = os.environ.get(ENV, "").strip().lower()
    try:
        from engine import _dvonncore as core
    except ImportError as exc:
        if choice in ("compiled", "c"):
            raise ImportError(f"{ENV}={choice} but the compiled core is not built ({exc}); "
                              "reinstall with a C compiler: pip install -e .") from exc
        return None, None, f"the compiled core is not built ({exc})"
    init(core)
    if choice in ("python", "pure", "py"):
        return core, None, f"{ENV}={choice} forces the pure-Python engine"
    return core, core, "compiled core engine._dvonncore"


#: The compiled core when it is built (tests compare it with Python even when it is off).
BUILT: ModuleType | None
#: The core searches use by default: BUILT unless DVONN_ENGINE=python turns it off.
CORE: ModuleType | None
BUILT, CORE, WHY = _load()


def available() -> bool:
    """True when searches use the compiled core."""
    return CORE is not None


def backend() -> str:
    """'compiled' or 'python' (for figures and ``--version`` style diagnostics)."""
    return "compiled" if CORE is not None else "python"


def perft(game: Game, depth: int) -> int:
    """perft through the compiled core when there is one, else the pure-Python perft."""
    if CORE is None:
        from engine.perft import perft as py_perft

        return py_perft(game, depth)
    result: int = CORE.perft(position(game), depth)
    return result


__all__ = ["BUILT", "CORE", "ENV", "MOVES", "WHY", "available", "backend", "code", "init",
           "move", "perft", "position"]
