"""Where each of the 49 cells sits on the LED strip: wiring path, start corner, LEDs per cell.

The strip runs through the board row by row. ``rows`` wiring follows the canonical cell order
(A1 B1 ... I1, A2 ... K5); ``serpentine`` reverses every second row (row 2, row 4) so the
strip snakes back without long return wires. ``mirror`` reverses every row (the strip enters
row 1 at I1 instead of A1); ``rotate180`` starts the strip at K5 instead of A1 (the board is
symmetric under a half turn, A1 <-> K5). Each cell owns ``leds_per_cell`` consecutive LEDs,
``skip`` dark LEDs may sit between rows (wire runs), and ``status_leds`` follow the last cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.errors import ConfigError
from engine.geometry import CELL_NAMES, NUM_CELLS, ROW_LENGTHS, ROWS

WIRINGS = ("rows", "serpentine")
MAX_LEDS_PER_CELL = 8
MAX_STATUS_LEDS = 64
MAX_SKIP = 64


def _row_cells() -> list[list[int]]:
    out: list[list[int]] = []
    start = 0
    for length in ROW_LENGTHS:
        out.append(list(range(start, start + length)))
        start += length
    return out


def _check_int(key: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"leds.{key}", f"must be an integer {low}..{high}, got {value!r}")
    return value


@dataclass(frozen=True)
class LedLayout:
    """Cell -> LED index mapping; validated on construction (ConfigError names ``leds.<key>``)."""

    wiring: str = "rows"
    rotate180: bool = False
    mirror: bool = False
    leds_per_cell: int = 1
    status_leds: int = 0
    #: Dark LEDs between consecutive rows: one int for every gap, or one per gap (4 values).
    skip: int | tuple[int, ...] = 0
    cell_leds: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    status_indices: tuple[int, ...] = field(init=False, repr=False, compare=False)
    led_count: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.wiring not in WIRINGS:
            raise ConfigError("leds.wiring", f"must be one of {', '.join(WIRINGS)}; "
                              f"got {self.wiring!r}")
        for key in ("rotate180", "mirror"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"leds.{key}", f"must be true or false, got "
                                  f"{getattr(self, key)!r}")
        _check_int("leds_per_cell", self.leds_per_cell, 1, MAX_LEDS_PER_CELL)
        _check_int("status_leds", self.status_leds, 0, MAX_STATUS_LEDS)
        gaps = self._gaps()
        object.__setattr__(self, "skip", self.skip if isinstance(self.skip, int)
                           else tuple(self.skip))
        cell_leds: list[tuple[int, ...]] = [()] * NUM_CELLS
        led = 0
        for i, row in enumerate(self.cell_order_by_row()):
            for cell in row:
                cell_leds[cell] = tuple(range(led, led + self.leds_per_cell))
                led += self.leds_per_cell
            if i < ROWS - 1:
                led += gaps[i]
        object.__setattr__(self, "cell_leds", tuple(cell_leds))
        object.__setattr__(self, "status_indices", tuple(range(led, led + self.status_leds)))
        object.__setattr__(self, "led_count", led + self.status_leds)

    def _gaps(self) -> tuple[int, ...]:
        skip: object = self.skip
        if isinstance(skip, int) and not isinstance(skip, bool):
            return (_check_int("skip", skip, 0, MAX_SKIP),) * (ROWS - 1)
        if isinstance(skip, Sequence) and not isinstance(skip, str) and len(skip) == ROWS - 1:
            return tuple(_check_int("skip", s, 0, MAX_SKIP) for s in skip)
        raise ConfigError("leds.skip", f"must be an integer 0..{MAX_SKIP} or a list of "
                          f"{ROWS - 1} such integers (one per gap between rows), got {skip!r}")

    def cell_order_by_row(self) -> list[list[int]]:
        """The cells in strip order, grouped by the row the strip passes through."""
        rows = _row_cells()
        path: list[list[int]] = []
        for i, row in enumerate(rows):
            reverse = (self.wiring == "serpentine" and i % 2 == 1) != self.mirror
            path.append(row[::-1] if reverse else list(row))
        if self.rotate180:
            path = [[NUM_CELLS - 1 - c for c in row] for row in path]
        return path

    def cell_order(self) -> list[int]:
        """The cells in the order the strip reaches them."""
        return [c for row in self.cell_order_by_row() for c in row]

    def led_indices(self, cell: int) -> tuple[int, ...]:
        """The LED indices lit for ``cell`` (0..48)."""
        return self.cell_leds[cell]

    def led_owner(self, led: int) -> str:
        """What LED ``led`` shows: a cell name, ``status N`` or ``dark`` (a skipped LED)."""
        for cell, leds in enumerate(self.cell_leds):
            if led in leds:
                return CELL_NAMES[cell]
        if led in self.status_indices:
            return f"status {self.status_indices.index(led)}"
        return "dark"
