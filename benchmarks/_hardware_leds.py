"""LED frame cost: build (validate, brightness, gamma, layout, current limit) plus each encoding.

Run by benchmarks/hardware.py, or alone.

Prints ``name: value unit`` lines, µs per frame, for 49 LEDs (one per cell) and 294 LEDs (six
per cell): ``frame_wire`` (validate colours + build the wire bytes every backend starts from),
``show`` (build from the stored colours, no validation), the SPI stream (Pi 5), the
rpi_ws281x words (Pi 1-4), and ``sensor_board_show`` (a show() through SensorBoardStrip handing
the payload to a link; 49 LEDs only, the board drives one LED per cell).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path, where hardware.py would shadow the
# hardware package: put the project root first instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from hardware.leds import (  # noqa: E402
    LedLayout,
    RecordingStrip,
    SensorBoardStrip,
    WireStrip,
    encode_spi,
    pack_words,
)

RGB = tuple[int, int, int]


class _Discard(WireStrip):
    """A strip whose transmit does nothing: times show() itself."""

    def _transmit(self, buf: bytes) -> None:
        return None


class _NullLink:
    def send_leds(self, payload: bytes) -> None:
        return None


def _per_call_us(func: Callable[[], object], min_seconds: float = 0.6) -> float:
    """Best of three runs of ``func`` repeated for ``min_seconds``, in µs per call."""
    best = float("inf")
    for _ in range(3):
        n = 0
        start = time.perf_counter()
        while True:
            func()
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds / 3:
                break
        best = min(best, elapsed / n * 1e6)
    return best


def _figures(leds_per_cell: int, cells: list[RGB]) -> dict[str, Callable[[], object]]:
    """The timed operations for one layout."""
    layout = LedLayout(wiring="serpentine", leds_per_cell=leds_per_cell)
    settings: dict[str, Any] = {"brightness": 0.8, "gamma": 2.2, "max_current_ma": 2000}
    strip = RecordingStrip(layout, **settings)
    wire = strip.frame_wire(cells)
    shown = _Discard(layout, **settings)
    shown.set_cells(cells)
    figures: dict[str, Callable[[], object]] = {
        "frame_wire": lambda: strip.frame_wire(cells),
        "show": shown.show,
        "encode_spi_2.4MHz": lambda: encode_spi(wire, 2_400_000),
        "encode_spi_6.4MHz": lambda: encode_spi(wire, 6_400_000),
        "frame_wire+spi_2.4MHz": lambda: encode_spi(strip.frame_wire(cells), 2_400_000),
        "frame_wire+ws281x_words": lambda: pack_words(strip.frame_wire(cells)),
    }
    if layout.led_count == 49:  # the sensor board drives one LED per cell only
        board = SensorBoardStrip(_NullLink(), layout, **settings)
        board.set_cells(cells)
        figures["sensor_board_show"] = board.show
    return figures


def main() -> None:
    rng = random.Random(7)
    cells: list[RGB] = [(rng.randrange(256), rng.randrange(256), rng.randrange(256))
                        for _ in range(49)]
    for leds_per_cell in (1, 6):
        for name, func in _figures(leds_per_cell, cells).items():
            func()  # warm up
            print(f"leds_{49 * leds_per_cell}_{name}: {_per_call_us(func):.1f} us/frame")


if __name__ == "__main__":
    main()
