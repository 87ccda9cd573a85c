"""Pure frame logic shared by every LED backend: colours -> wire bytes.

Pipeline for one frame: validate the 49 cell colours (+ status colours) -> brightness and
gamma through one 256-entry lookup table -> expand to LED positions through the LedLayout
(several LEDs per cell, dark skipped LEDs, status LEDs) -> estimate the supply current and
scale every channel down when it exceeds ``max_current_ma`` -> reorder each LED's bytes into
the strip's wire order (GRB for WS2812B).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from engine.errors import ConfigError, DvonnError
from engine.geometry import CELL_NAMES, NUM_CELLS

from .layout import LedLayout

RGB = tuple[int, int, int]
BLACK: RGB = (0, 0, 0)
ORDERS = tuple("".join(p) for p in permutations("RGB"))


class LedError(DvonnError, ValueError):
    """A frame the strip cannot show: wrong number of colours or a value outside 0..255."""


def check_colours(colours: Sequence[Sequence[int]], expected: int, what: str) -> list[RGB]:
    """Return ``colours`` as RGB tuples, or raise LedError naming the first bad entry."""
    if isinstance(colours, (str, bytes)) or len(colours) != expected:
        got = len(colours) if not isinstance(colours, (str, bytes)) else repr(colours)
        raise LedError(f"{what}: expected {expected} colours, got {got}")
    out: list[RGB] = []
    for i, colour in enumerate(colours):
        if type(colour) is tuple and len(colour) == 3:  # the common case, checked fast
            r, g, b = colour
            if type(r) is int and type(g) is int and type(b) is int \
                    and 0 <= r <= 255 and 0 <= g <= 255 and 0 <= b <= 255:
                out.append(colour)
                continue
        name = f"{what} {i}" + (f" ({CELL_NAMES[i]})" if what == "cell" else "")
        if isinstance(colour, (str, bytes)) or not isinstance(colour, Sequence) \
                or len(colour) != 3:
            raise LedError(f"{name}: colour must be (r, g, b), got {colour!r}")
        try:  # operator.index: Python and numpy integers, not floats or text
            r, g, b = (operator.index(v) for v in colour)
        except TypeError:
            r = g = b = -1
        if any(isinstance(v, bool) for v in colour) or not (
                0 <= r <= 255 and 0 <= g <= 255 and 0 <= b <= 255):
            raise LedError(f"{name}: colour {tuple(colour)!r} needs integers 0..255")
        out.append((r, g, b))
    return out


def check_labels(labels: Sequence[str]) -> list[str]:
    """49 short strings, one per cell in canonical order."""
    if isinstance(labels, str) or len(labels) != NUM_CELLS:
        got = repr(labels) if isinstance(labels, str) else len(labels)
        raise LedError(f"labels: expected {NUM_CELLS} texts, got {got}")
    for i, label in enumerate(labels):
        if not isinstance(label, str):
            raise LedError(f"label {i} ({CELL_NAMES[i]}): must be text, got {label!r}")
    return list(labels)


def level_table(brightness: float, gamma: float) -> bytes:
    """Lookup table v -> round(255 * (v * brightness / 255) ** gamma)."""
    return bytes(round(255 * ((v * brightness) / 255) ** gamma) for v in range(256))


def order_offsets(order: str) -> tuple[int, int, int]:
    """For each wire byte position, which RGB channel (0 = R) it carries: GRB -> (1, 0, 2)."""
    if order not in ORDERS:
        raise ConfigError("leds.order", f"must be one of {', '.join(ORDERS)}; got {order!r}")
    return ("RGB".index(order[0]), "RGB".index(order[1]), "RGB".index(order[2]))


@dataclass(frozen=True)
class Frame:
    """One shown frame: what was asked, what the LEDs get, and the current it should draw."""

    cells: tuple[RGB, ...]
    status: tuple[RGB, ...]
    #: Per-cell colours as a person should see them (brightness and current limit, no gamma).
    preview: tuple[RGB, ...]
    preview_status: tuple[RGB, ...]
    #: Final RGB bytes per LED, in LED index order (after gamma and the current limit).
    rgb: bytes
    #: ``rgb`` with each LED's bytes in the strip's wire order.
    wire: bytes
    requested_ma: float
    current_ma: float
    #: Factor applied by the current limit (1.0 = none).
    scale: float


class FrameEncoder:
    """Turns cell and status colours into a Frame for one layout and set of limits."""

    def __init__(
        self,
        layout: LedLayout,
        *,
        brightness: float = 1.0,
        gamma: float = 1.0,
        order: str = "GRB",
        max_current_ma: float | None = None,
        ma_per_channel: float = 20.0,
        idle_ma: float = 1.0,
    ) -> None:
        self.layout = layout
        self._order = order_offsets(order)
        self.order = order
        self._gamma = _number("gamma", gamma, 0.1, 5.0)
        self.ma_per_channel = _number("ma_per_channel", ma_per_channel, 0.1, 100.0)
        self.idle_ma = _number("idle_ma", idle_ma, 0.0, 10.0)
        self.idle_total_ma = self.idle_ma * layout.led_count
        if max_current_ma is not None:
            _number("max_current_ma", max_current_ma, 1.0, 100_000.0)
            if max_current_ma <= self.idle_total_ma:
                raise ConfigError("leds.max_current_ma", f"{max_current_ma} mA does not even "
                                  f"cover the idle draw of {layout.led_count} LEDs "
                                  f"({self.idle_total_ma:g} mA)")
        self.max_current_ma = max_current_ma
        self._brightness = 1.0
        self.brightness = brightness
        # Gather plan: byte j of the LED rgb buffer copies source byte _gather[j], where the
        # source is cells (49*3), status (n*3), then one black entry for dark LEDs.
        dark = (NUM_CELLS + layout.status_leds) * 3
        gather = [dark, dark + 1, dark + 2] * layout.led_count
        for cell, leds in enumerate(layout.cell_leds):
            for led in leds:
                gather[3 * led:3 * led + 3] = [3 * cell, 3 * cell + 1, 3 * cell + 2]
        for k, led in enumerate(layout.status_indices):
            s = 3 * (NUM_CELLS + k)
            gather[3 * led:3 * led + 3] = [s, s + 1, s + 2]
        self._gather = gather

    @property
    def brightness(self) -> float:
        """Global brightness 0..1 (applied before gamma, so it is perceptual)."""
        return self._brightness

    @brightness.setter
    def brightness(self, value: float) -> None:
        self._brightness = _number("brightness", value, 0.0, 1.0)
        self._lut = level_table(self._brightness, self._gamma)

    @property
    def gamma(self) -> float:
        """Gamma exponent (1.0 = linear, 2.2..2.8 looks natural on WS2812B)."""
        return self._gamma

    def estimate_ma(self, rgb: bytes) -> float:
        """Supply current of the LED rgb buffer: channels at their PWM level plus idle draw."""
        return sum(rgb) * self.ma_per_channel / 255 + self.idle_total_ma

    def encode(self, cells: Sequence[RGB], status: Sequence[RGB] = ()) -> Frame:
        """Build the Frame for already validated colours (49 cells, ``status_leds`` status)."""
        source = bytearray()
        for colour in cells:
            source += bytes(colour)
        for colour in status:
            source += bytes(colour)
        source += b"\0\0\0"
        levels = bytes(source).translate(self._lut)
        rgb = bytes(map(levels.__getitem__, self._gather))
        requested = self.estimate_ma(rgb)
        scale = 1.0
        if self.max_current_ma is not None and requested > self.max_current_ma:
            channel_ma = requested - self.idle_total_ma
            scale = (self.max_current_ma - self.idle_total_ma) / channel_ma
            rgb = rgb.translate(bytes(math.floor(v * scale) for v in range(256)))
        current = self.estimate_ma(rgb)
        wire = self.to_wire(rgb)
        # The limit scales PWM levels; a person sees that through the gamma curve.
        dim = self._brightness * scale ** (1 / self._gamma)
        preview = tuple(_dim(c, dim) for c in cells)
        preview_status = tuple(_dim(c, dim) for c in status)
        return Frame(tuple(cells), tuple(status), preview, preview_status, rgb, wire,
                     requested, current, scale)

    def to_wire(self, rgb: bytes) -> bytes:
        """Reorder each LED's (r, g, b) bytes into the wire order."""
        if self.order == "RGB":
            return rgb
        out = bytearray(len(rgb))
        for pos, channel in enumerate(self._order):
            out[pos::3] = rgb[channel::3]
        return bytes(out)


def _dim(colour: RGB, factor: float) -> RGB:
    return (round(colour[0] * factor), round(colour[1] * factor), round(colour[2] * factor))


def _number(key: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not low <= value <= high:
        raise ConfigError(f"leds.{key}", f"must be a number {low:g}..{high:g}, got {value!r}")
    return float(value)
