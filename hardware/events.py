"""What sensing devices report: snapshots of the 49 cells, button presses, link status.

A snapshot is a 49-character string in canonical cell order (ARCHITECTURE.md):
``.`` empty, ``x`` occupied (colour unknown), ``w``/``b``/``r`` top colour, ``?`` unreadable.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import DvonnError
from engine.geometry import NUM_CELLS

SNAPSHOT_CHARS = frozenset(".xwbr?")
BUTTONS = ("confirm", "next", "undo", "hint", "new")
#: Optional buttons beyond the five: ``clock`` hands the game clock over (controller.table.timer).
CLOCK_BUTTON = "clock"
ALL_BUTTONS = (*BUTTONS, CLOCK_BUTTON)
EMPTY_SNAPSHOT = "." * NUM_CELLS


class SnapshotError(DvonnError, ValueError):
    """A snapshot string of the wrong length or with characters outside ``.xwbr?``."""


def check_snapshot(cells: str) -> str:
    """Return ``cells`` if it is a valid snapshot string, else raise SnapshotError naming why."""
    if len(cells) != NUM_CELLS:
        raise SnapshotError(f"snapshot must have {NUM_CELLS} cells, got {len(cells)}: {cells!r}")
    for i, ch in enumerate(cells):
        if ch not in SNAPSHOT_CHARS:
            raise SnapshotError(f"snapshot character {ch!r} at offset {i} is not one of '.xwbr?'")
    return cells


@dataclass(frozen=True, slots=True)
class SnapshotEvent:
    """All 49 cells as sensed at time ``t`` (seconds, the source's clock); ``polarity``:
    the hall board's per-cell magnet polarity of this very frame ('.', 'n', 's', '?'), or ''
    when the source has none; ``touched``: a camera's mask of the stacks that came out from
    under a hand moved (lifted and set down again: vision.cues.touch), 0 when it has none;
    ``grown``: of the cells a prompt asks about, the one a camera sees taller by the moved
    stack's height (vision.cues.height), 0 when it cannot tell or was not asked; ``glare``: a
    camera's mask of the cells it reads '?' for a lamp's glare there (no hand), 0 when none."""

    t: float
    cells: str
    polarity: str = ""
    touched: int = 0
    grown: int = 0
    glare: int = 0


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A button press; ``long`` is a long press (held past the configured time)."""

    t: float
    button: str
    long: bool = False


@dataclass(frozen=True, slots=True)
class StatusEvent:
    """Link or device news the players should see: ``kind`` e.g. 'disconnected', 'reconnected'."""

    t: float
    kind: str
    detail: str = ""


SensorEvent = SnapshotEvent | ButtonEvent | StatusEvent
