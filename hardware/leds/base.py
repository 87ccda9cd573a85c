"""The LedStrip interface every backend implements, on top of the pure FrameEncoder.

A strip keeps the current 49 cell colours (canonical cell order), the status LED colours and
the cell labels; ``show()`` turns them into a Frame and hands it to the backend. Hardware
backends derive from WireStrip and implement one method, ``_transmit(buf)`` (wire-order
bytes). The terminal and recording strips take the whole Frame instead (``_output``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from types import TracebackType

from engine.geometry import CELL_NAMES, NUM_CELLS

from .frame import BLACK, RGB, Frame, FrameEncoder, LedError, check_colours, check_labels
from .layout import LedLayout


class LedStrip(ABC):
    """49 cell LEDs (plus optional status LEDs) with brightness, gamma and a current limit."""

    def __init__(
        self,
        layout: LedLayout | None = None,
        *,
        brightness: float = 1.0,
        gamma: float = 1.0,
        order: str = "GRB",
        max_current_ma: float | None = None,
        ma_per_channel: float = 20.0,
        idle_ma: float = 1.0,
    ) -> None:
        self.layout = layout if layout is not None else LedLayout()
        self.encoder = FrameEncoder(
            self.layout, brightness=brightness, gamma=gamma, order=order,
            max_current_ma=max_current_ma, ma_per_channel=ma_per_channel, idle_ma=idle_ma,
        )
        self._cells: list[RGB] = [BLACK] * NUM_CELLS
        self._status: list[RGB] = [BLACK] * self.layout.status_leds
        self._labels: list[str] = list(CELL_NAMES)
        self._closed = False
        self.last_frame: Frame | None = None

    # -- what to show -------------------------------------------------------------------
    def set_cells(self, colours: Sequence[tuple[int, int, int]]) -> None:
        """Exactly 49 (r, g, b) colours, 0..255, in canonical cell order; shown by show()."""
        self._cells = check_colours(colours, NUM_CELLS, "cell")

    def set_status(self, colours: Sequence[tuple[int, int, int]]) -> None:
        """One colour per status LED (``layout.status_leds`` of them)."""
        self._status = check_colours(colours, self.layout.status_leds, "status LED")

    def set_labels(self, labels: Sequence[str]) -> None:
        """49 short texts drawn on the cells by the terminal backend; others ignore them."""
        self._labels = check_labels(labels)

    def clear(self) -> None:
        """All cells and status LEDs black (shown by the next show())."""
        self._cells = [BLACK] * NUM_CELLS
        self._status = [BLACK] * self.layout.status_leds

    @property
    def cells(self) -> tuple[RGB, ...]:
        """The cell colours as last set."""
        return tuple(self._cells)

    @property
    def labels(self) -> tuple[str, ...]:
        """The cell labels as last set (cell names by default)."""
        return tuple(self._labels)

    @property
    def brightness(self) -> float:
        """Global brightness 0..1; takes effect at the next show()."""
        return self.encoder.brightness

    @brightness.setter
    def brightness(self, value: float) -> None:
        self.encoder.brightness = value

    @property
    def last_current_ma(self) -> float:
        """Estimated supply current of the last shown frame (0 before the first)."""
        return 0.0 if self.last_frame is None else self.last_frame.current_ma

    # -- output -------------------------------------------------------------------------
    def frame_for(
        self, cells: Sequence[tuple[int, int, int]], status: Sequence[tuple[int, int, int]] = ()
    ) -> Frame:
        """The Frame these colours would make (validated; nothing is shown or stored)."""
        status_list = check_colours(status, self.layout.status_leds, "status LED") if status \
            else [BLACK] * self.layout.status_leds
        return self.encoder.encode(check_colours(cells, NUM_CELLS, "cell"), status_list)

    def frame_wire(
        self, cells: Sequence[tuple[int, int, int]], status: Sequence[tuple[int, int, int]] = ()
    ) -> bytes:
        """The wire-order bytes these colours would make (nothing is shown)."""
        return self.frame_for(cells, status).wire

    def show(self) -> Frame:
        """Send the current colours to the LEDs; returns the Frame that was shown."""
        if self._closed:
            raise LedError(f"{type(self).__name__} is closed; cannot show a frame")
        frame = self.encoder.encode(self._cells, self._status)
        self._output(frame)
        self.last_frame = frame
        return frame

    @abstractmethod
    def _output(self, frame: Frame) -> None:
        """Deliver one frame to the device."""

    # -- lifetime -----------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release the device (hardware backends blank the LEDs first). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._release()

    def _release(self) -> None:
        """Free what the backend holds; called once by close(). Nothing by default."""
        return None

    def __enter__(self) -> LedStrip:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class WireStrip(LedStrip):
    """A strip fed with wire-order bytes: the one hardware method is ``_transmit(buf)``."""

    def _output(self, frame: Frame) -> None:
        self._transmit(frame.wire)

    @abstractmethod
    def _transmit(self, buf: bytes) -> None:
        """Send wire-order bytes (3 per LED, ``layout.led_count`` LEDs) to the strip."""

    def _blank(self) -> None:
        """Turn every LED off (used when closing)."""
        self._transmit(bytes(3 * self.layout.led_count))


class NullStrip(LedStrip):
    """A strip that computes frames and discards them (headless runs, backend ``none``)."""

    def _output(self, frame: Frame) -> None:
        return None
