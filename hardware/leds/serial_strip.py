"""LEDs driven by the sensor board's microcontroller: frames travel over its serial link.

The firmware drives one LED per cell (49 LEDs, 147-byte frames); wiring, start corner and
wire order are still free, so the layout may be serpentine, rotated or mirrored.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.errors import ConfigError, DvonnError

from .base import WireStrip

#: The sensor board's firmware drives exactly one LED per cell (147-byte GRB frames).
SENSOR_BOARD_LEDS = 49


class LedLink(Protocol):
    """The part of the sensor-board link this strip uses."""

    def send_leds(self, payload: bytes) -> None:
        """Send one frame: wire-order bytes (GRB for WS2812B), one LED after another."""
        ...


class SensorBoardStrip(WireStrip):
    """A strip on the sensor board's LED pin; ``link.send_leds`` gets each frame's bytes."""

    def __init__(self, link: LedLink, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        layout = self.layout
        if layout.led_count != SENSOR_BOARD_LEDS:
            key = ("leds_per_cell" if layout.leds_per_cell != 1
                   else "status_leds" if layout.status_leds else "skip")
            raise ConfigError(f"leds.{key}", f"the sensor board drives exactly "
                              f"{SENSOR_BOARD_LEDS} LEDs (one per cell, no status or skipped "
                              f"LEDs); this layout has {layout.led_count}")
        self.link = link

    def _transmit(self, buf: bytes) -> None:
        self.link.send_leds(buf)

    def _release(self) -> None:
        # The link belongs to its owner; a link that is already gone cannot be blanked.
        try:
            self._blank()
        except (OSError, DvonnError):
            pass
