"""RecordingStrip: a strip that keeps every frame it shows, for tests and the simulated table."""

from __future__ import annotations

from typing import Any

from .base import WireStrip
from .frame import RGB, Frame


class RecordingStrip(WireStrip):
    """Keeps every shown Frame (``frames``) and every transmitted buffer (``transmitted``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.frames: list[Frame] = []
        self.transmitted: list[bytes] = []
        #: Labels in force at each shown frame (parallel to ``frames``).
        self.frame_labels: list[tuple[str, ...]] = []

    def _output(self, frame: Frame) -> None:
        self.frames.append(frame)
        self.frame_labels.append(self.labels)
        super()._output(frame)

    def _transmit(self, buf: bytes) -> None:
        self.transmitted.append(bytes(buf))

    @property
    def shown_cells(self) -> list[tuple[RGB, ...]]:
        """The 49 requested cell colours of every shown frame, oldest first."""
        return [f.cells for f in self.frames]

    @property
    def shown_status(self) -> list[tuple[RGB, ...]]:
        """The requested status colours of every shown frame, oldest first."""
        return [f.status for f in self.frames]
