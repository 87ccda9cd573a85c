"""The prompt's answer on the board itself: the chosen stack lifted and set back."""

from __future__ import annotations

from collections.abc import Sequence

from engine.geometry import iter_cells


def raised(choice: int, empty: int, before: int, since: Sequence[float], patchy: int = 0) -> int:
    """The prompted cells (``choice``) up for the gesture now: read empty, but not already
    empty when the prompt began (``before``), nor empty only between unreadable readings
    (``patchy``, a camera's: under a hand a standing stack can read empty one frame in two,
    room game 136's D3 beside the hand answering on D2). One gesture at a time: of several,
    the ones lifted last (``since``: when each was first seen empty); one that emptied before
    and stays empty is a stack gone or the source of a later move (hall seed 991: C2C3 after
    a blackout, then the gesture on C1). While it is up, a lifted stack's cell reads unknown."""
    up = choice & empty & ~before & ~patchy
    if up & (up - 1):
        last = max(since[c] for c in iter_cells(up))
        up = sum(1 << c for c in iter_cells(up) if since[c] >= last)
    return up
