"""Move: a placement (``C3``), a move of a stack (``C3D3``) or a pass (``PASS``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import InvalidMoveError
from engine.geometry import CELL_NAMES, NUM_CELLS, parse_cell

_TOKEN = re.compile(r"^([A-Ka-k][1-5])([A-Ka-k][1-5])?$")


@dataclass(frozen=True, slots=True)
class Move:
    """A small immutable action value.

    ``source`` is None for a placement and a pass; ``target`` is None only for a pass.
    Build them with :meth:`place`, :meth:`step`, :data:`PASS` or :meth:`parse`; those return
    shared instances, so move generation creates no objects.
    """

    source: int | None
    target: int | None

    @staticmethod
    def place(cell: int) -> Move:
        return _PLACES[cell]

    @staticmethod
    def step(source: int, target: int) -> Move:
        return _STEPS[source * NUM_CELLS + target]

    @staticmethod
    def parse(text: str) -> Move:
        """Parse ``C3``, ``C3D3`` or ``PASS`` (any case). Raises InvalidMoveError."""
        token = text.strip()
        if token.upper() == "PASS":
            return PASS
        m = _TOKEN.match(token)
        if not m:
            raise InvalidMoveError(
                f"{text!r} is not DVONN notation (expected e.g. C3, C3D3 or PASS)"
            )
        try:
            a = parse_cell(m.group(1))
            b = parse_cell(m.group(2)) if m.group(2) else None
        except ValueError as exc:
            raise InvalidMoveError(f"{text!r} is not DVONN notation: {exc}") from None
        if b is None:
            return _PLACES[a]
        if a == b:
            raise InvalidMoveError(f"{text!r} is not DVONN notation: source and target are equal")
        return _STEPS[a * NUM_CELLS + b]

    @property
    def is_pass(self) -> bool:
        return self.target is None

    @property
    def is_placement(self) -> bool:
        return self.source is None and self.target is not None

    @property
    def is_step(self) -> bool:
        return self.source is not None

    def __str__(self) -> str:
        if self.target is None:
            return "PASS"
        if self.source is None:
            return CELL_NAMES[self.target]
        return CELL_NAMES[self.source] + CELL_NAMES[self.target]

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


PASS = Move(None, None)
_PLACES = tuple(Move(None, c) for c in range(NUM_CELLS))
_STEPS = tuple(
    Move(a, b) if a != b else PASS for a in range(NUM_CELLS) for b in range(NUM_CELLS)
)
