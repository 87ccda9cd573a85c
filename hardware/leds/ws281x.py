"""WS2812B/SK6812 on Raspberry Pi 1-4 through rpi_ws281x (PWM on GPIO18 by default).

rpi_ws281x is imported inside the constructor: the module exists only on a Pi, and a
PixelStrip must never be created elsewhere (it crashes the interpreter at exit). The frame
is already in wire order, so the PixelStrip is set up with WS2811_STRIP_RGB (no reordering),
full brightness and a linear gamma: each LED word is ``b0 << 16 | b1 << 8 | b2``.
"""

from __future__ import annotations

from typing import Any

from engine.errors import ConfigError

from .base import WireStrip

#: GPIO -> PWM/PCM/SPI channel that rpi_ws281x drives it with.
PIN_CHANNELS = {12: 0, 18: 0, 13: 1, 19: 1, 10: 0, 21: 0}


def pack_words(buf: bytes) -> list[int]:
    """Wire bytes (3 per LED) -> one 24-bit word per LED, first wire byte highest."""
    if len(buf) % 3:
        raise ValueError(f"wire buffer length {len(buf)} is not a multiple of 3")
    return [(buf[i] << 16) | (buf[i + 1] << 8) | buf[i + 2] for i in range(0, len(buf), 3)]


def check_pin(gpio_pin: int, dma: int, channel: int | None) -> int:
    """Validate pin, DMA channel and PWM channel; returns the channel to use."""
    if type(gpio_pin) is not int or gpio_pin not in PIN_CHANNELS:  # 18.0, [18]: no
        raise ConfigError("leds.gpio_pin", f"rpi_ws281x can drive GPIO "
                          f"{', '.join(map(str, sorted(PIN_CHANNELS)))}; got {gpio_pin!r}")
    if isinstance(dma, bool) or not isinstance(dma, int) or not 0 <= dma <= 14 or dma == 5:
        raise ConfigError("leds.dma", f"must be a DMA channel 0..14 other than 5 (used by the "
                          f"SD card on some models); 10 is safe; got {dma!r}")
    want = PIN_CHANNELS[gpio_pin]
    if channel is not None and (type(channel) is not int or channel != want):
        raise ConfigError("leds.channel", f"GPIO{gpio_pin} needs channel {want}, got "
                          f"{channel!r}")
    return want


class Ws281xStrip(WireStrip):
    """A strip on a PWM/PCM GPIO of a Pi 1-4."""

    def __init__(
        self,
        *args: Any,
        gpio_pin: int = 18,
        dma: int = 10,
        channel: int | None = None,
        freq_hz: int = 800_000,
        invert: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        channel = check_pin(gpio_pin, dma, channel)
        self._strip: Any = None
        try:
            import rpi_ws281x  # Pi-only: imported here, never at module level
        except ImportError as exc:
            raise ConfigError("leds.backend", "'ws281x' needs the rpi_ws281x package (Pi 1-4; "
                              "pip install 'dvonn-board[pi]'); on a Pi 5 use 'spi'") from exc
        strip = rpi_ws281x.PixelStrip(
            self.layout.led_count, gpio_pin, freq_hz, dma, invert, 255, channel,
            rpi_ws281x.ws.WS2811_STRIP_RGB,
        )
        try:
            strip.begin()
        except Exception:
            _cleanup(strip)
            raise
        self._strip = strip

    def _transmit(self, buf: bytes) -> None:
        strip = self._strip
        for i, word in enumerate(pack_words(buf)):
            strip.setPixelColor(i, word)
        strip.show()

    def _release(self) -> None:
        if self._strip is None:
            return
        try:
            self._blank()
        finally:
            _cleanup(self._strip)
            self._strip = None


def _cleanup(strip: Any) -> None:
    cleanup = getattr(strip, "_cleanup", None)
    if cleanup is not None:
        cleanup()
