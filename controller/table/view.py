"""BoardView: what the LEDs should mean right now, as plain data (a role per cell).

The controller builds a BoardView as a pure function of its state; the renderer turns it and
the time into colours. The web view will publish the same data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ROLES = (
    "movable",
    "source",
    "destination",
    "remove",
    "mismatch",
    "last",
    "suggest",
    "own-white",
    "own-black",
    "winner",
)


@dataclass(frozen=True)
class BoardView:
    """A role for some cells (cell index -> role name from ROLES), plus what to tell players.

    ``blink`` holds cells whose role should blink (e.g. candidate destinations awaiting a
    choice). ``message`` is one line for a display or terminal; ``prompt`` names what the
    controller waits for ('' when nothing), e.g. 'choose-destination'.
    """

    roles: dict[int, str] = field(default_factory=dict)
    blink: frozenset[int] = frozenset()
    message: str = ""
    prompt: str = ""

    def __post_init__(self) -> None:
        for cell, role in self.roles.items():
            if role not in ROLES or not 0 <= cell < 49:
                raise ValueError(f"bad role {role!r} for cell {cell!r}")

    def named_roles(self) -> dict[str, str]:
        """Roles keyed by upper-case cell name, as in the --trace output."""
        from engine.geometry import CELL_NAMES

        return {CELL_NAMES[c]: r for c, r in sorted(self.roles.items())}
