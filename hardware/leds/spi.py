"""WS2812B/SK6812 through SPI MOSI (GPIO10) with spidev: the way that works on a Pi 5.

Each data bit becomes a short burst of SPI bits whose high time matches WS2812 timing:
at 2.2-3.0 MHz (2.4 MHz typical) 3 SPI bits per data bit (0 -> 100, 1 -> 110); at
5.6-7.2 MHz (6.4 MHz typical) 8 SPI bits (0 -> 11000000, 1 -> 11111000). A run of zero
bytes after the frame holds the line low long enough (``reset_us``) for the LEDs to latch.
"""

from __future__ import annotations

import math
from typing import Any

from engine.errors import ConfigError

from .base import WireStrip

#: (lowest Hz, highest Hz, SPI bits per data bit)
SPI_RANGES = ((2_200_000, 3_000_000, 3), (5_600_000, 7_200_000, 8))
DEFAULT_SPI_HZ = 2_400_000
DEFAULT_RESET_US = 300.0


def bits_per_bit(hz: int) -> int:
    """SPI bits per WS2812 data bit for clock ``hz``; ConfigError outside the usable ranges."""
    if not isinstance(hz, bool) and isinstance(hz, int):
        for low, high, bits in SPI_RANGES:
            if low <= hz <= high:
                return bits
    ranges = " or ".join(f"{low:_}..{high:_}" for low, high, _ in SPI_RANGES)
    raise ConfigError("leds.spi_hz", f"must be an integer in {ranges} Hz (2_400_000 or "
                      f"6_400_000 are typical); got {hz!r}")


def _byte_table(bits: int) -> list[bytes]:
    """For every byte value, its SPI encoding (bits * 8 SPI bits = ``bits`` bytes)."""
    one, zero = (0b110, 0b100) if bits == 3 else (0b11111000, 0b11000000)
    table = []
    for value in range(256):
        acc = 0
        for i in range(7, -1, -1):
            acc = (acc << bits) | (one if value >> i & 1 else zero)
        table.append(acc.to_bytes(bits, "big"))
    return table


_TABLES = {3: _byte_table(3), 8: _byte_table(8)}


def reset_bytes(hz: int, reset_us: float = DEFAULT_RESET_US) -> int:
    """Zero bytes that keep MOSI low for at least ``reset_us`` microseconds at ``hz``."""
    return math.ceil(reset_us * hz / 8_000_000)


def encode_spi(buf: bytes, hz: int = DEFAULT_SPI_HZ, reset_us: float = DEFAULT_RESET_US) -> bytes:
    """Wire-order LED bytes -> the SPI byte stream, followed by the reset gap of zeros."""
    table = _TABLES[bits_per_bit(hz)]
    return b"".join(map(table.__getitem__, buf)) + bytes(reset_bytes(hz, reset_us))


class SpiStrip(WireStrip):
    """A strip on SPI MOSI; ``bus``/``device`` pick /dev/spidevB.D (0.0 = GPIO10)."""

    def __init__(
        self,
        *args: Any,
        bus: int = 0,
        device: int = 0,
        hz: int = DEFAULT_SPI_HZ,
        reset_us: float = DEFAULT_RESET_US,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        bits_per_bit(hz)
        for key, value in (("spi_bus", bus), ("spi_device", device)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9:
                raise ConfigError(f"leds.{key}", f"must be an integer 0..9, got {value!r}")
        self.hz = hz
        self.reset_us = reset_us
        self._spi: Any = None
        try:
            import spidev  # Pi-only: imported here, never at module level
        except ImportError as exc:
            raise ConfigError("leds.backend", "'spi' needs the spidev package "
                              "(pip install 'dvonn-board[pi]') and SPI enabled "
                              "(dtparam=spi=on)") from exc
        spi = spidev.SpiDev()
        try:
            spi.open(bus, device)
        except OSError as exc:
            raise ConfigError("leds.spi_bus", f"cannot open /dev/spidev{bus}.{device}: {exc} "
                              "(enable SPI with dtparam=spi=on)") from exc
        try:
            spi.max_speed_hz = hz
            spi.mode = 0
        except Exception:
            spi.close()
            raise
        self._spi = spi

    def _transmit(self, buf: bytes) -> None:
        self._spi.writebytes2(encode_spi(buf, self.hz, self.reset_us))

    def _release(self) -> None:
        if self._spi is None:
            return
        try:
            self._blank()
        finally:
            self._spi.close()
            self._spi = None
