"""The controller's camera backend: frames in, SnapshotEvents out."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from engine.errors import ConfigError
from engine.geometry import NUM_CELLS, spread
from hardware.camera import FrameSource, source_from_config
from hardware.clock import Clock
from hardware.events import SnapshotEvent, check_snapshot
from vision.calibration import Calibration
from vision.classify import GLARE
from vision.cues.height import HeightWatch
from vision.cues.touch import TouchWatch
from vision.geometry import BoardGeometry
from vision.pose import BoardNotFoundError
from vision.reader import BoardReader, Reading

UNREADABLE = "?" * NUM_CELLS
#: What the table's LEDs show: cell -> (r, g, b), after brightness, lit cells only.
Leds = Mapping[int, tuple[int, int, int]]
HIDDEN = "hidden by a stack"  # vision.classify's reason for a cell behind a taller stack


def clear_of_hands(snapshot: str) -> int:
    """The cells read, with no unreadable cell (a hand) over or beside them."""
    dark = sum(1 << c for c, ch in enumerate(snapshot) if ch == "?")
    return ((1 << NUM_CELLS) - 1) & ~(dark | spread(dark))


class CameraSensor:
    """Polls a frame source and reads each frame; a lost board reads as all '?'.

    ``leds_provider`` says what the table's LEDs show as a frame is taken (None: not known);
    it goes to the reader with the frame."""

    def __init__(self, source: FrameSource, reader: BoardReader, clock: Clock,
                 heights_provider: Callable[[], Sequence[int]] | None = None,
                 leds_provider: Callable[[], Leds | None] | None = None) -> None:
        self.source = source
        self.reader = reader
        self.clock = clock
        self.heights_provider = heights_provider
        self.leds_provider = leds_provider
        self._last_leds: Leds | None = None
        self.last_reading: Reading | None = None
        self.last_error: str = ""
        self._last_frame: np.ndarray | None = None
        g = reader.geometry
        self.touch = TouchWatch(g.cell_centres_mm(), g.disc_radius_mm, g.thickness_mm)
        self.height = HeightWatch(g.cell_centres_mm(), g.disc_radius_mm, g.thickness_mm)

    def poll(self, timeout: float = 0.0) -> list[SnapshotEvent]:
        """Read one frame: [] when the source has none, else one SnapshotEvent.

        ``timeout`` is accepted for the runner's Source protocol; the source paces itself."""
        frame = self.source.read()
        if frame is None:
            return []
        t = self.clock.now()
        heights = list(self.heights_provider()) if self.heights_provider is not None else None
        leds = self.leds_provider() if self.leds_provider is not None else None
        self._last_frame, self._last_leds = frame, leds
        try:
            reading = self.reader.read(frame, heights, leds)
        except BoardNotFoundError as exc:
            self.last_error = str(exc)
            self.last_reading = Reading(UNREADABLE, [0.0] * NUM_CELLS, False,
                                        ["board not found"] * NUM_CELLS)
            return [SnapshotEvent(t, UNREADABLE)]
        self.last_error = ""
        self.last_reading = reading
        touched = 0
        if heights is not None and reading.pose is not None:
            pose = reading.pose
            touched = self.touch.update(frame, lambda p: self.reader.project(pose, p), heights,
                                        reading.snapshot)
            self.height.update(frame, lambda p: self.reader.project(pose, p), heights,
                               reading.snapshot, clear_of_hands(reading.snapshot))
        glare = sum(1 << c for c, (ch, why) in enumerate(zip(reading.snapshot, reading.reasons,
                                                              strict=True))
                    if ch == "?" and why == GLARE)
        return [SnapshotEvent(t, check_snapshot(reading.snapshot), touched=touched, glare=glare)]

    def grown(self, cells: int, by: int) -> int:
        """Of ``cells``, the one the camera sees ``by`` pieces taller than the heights given
        while the others are not (a move landed there: vision.cues.height), or 0."""
        return self.height.grown(cells, by)

    @property
    def last_frame(self) -> np.ndarray | None:
        """The last frame read (what ``play --record`` stores of a camera), or None."""
        return self._last_frame

    def reread(self, heights: Sequence[int]) -> tuple[str, int] | None:
        """The last frame read again with other ``heights`` (a candidate move's), by a copy of
        the reader: this sensor's own reader and colour model do not change. The snapshot and
        the mask of its cells read '?' because a stack in front hides them; None when there is
        no usable frame."""
        if self._last_frame is None or self.last_reading is None or self.last_reading.pose is None:
            return None
        shared = self.reader.detector  # (OpenCV's detector cannot be copied; it keeps nothing)
        probe = copy.deepcopy(self.reader, {id(shared): shared})
        try:
            reading = probe.read(self._last_frame, list(heights), self._last_leds)
        except BoardNotFoundError:
            return None
        hidden = sum(1 << c for c in range(NUM_CELLS)
                     if reading.snapshot[c] == "?" and reading.reasons[c] == HIDDEN)
        return reading.snapshot, hidden

    def learn(self, cell: int, colour: str) -> bool:
        """Teach the colour model that ``cell`` shows ``colour`` in the last frame read (the
        controller calls this for each placement it commits: a labelled example). False when
        there is no usable frame."""
        if self._last_frame is None or self.last_reading is None or not self.last_reading.pose_ok:
            return False
        heights = list(self.heights_provider()) if self.heights_provider is not None else None
        try:
            self.reader.learn(self._last_frame, cell, colour, heights)
        except BoardNotFoundError:
            return False
        return True

    def last_annotated(self) -> np.ndarray | None:
        """The last frame with the reading drawn on it (for the web view), or None."""
        if self._last_frame is None or self.last_reading is None:
            return None
        return self.last_reading.annotated(self._last_frame)

    def close(self) -> None:
        self.source.close()

    def __enter__(self) -> CameraSensor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Keys of the [camera] config section: the frame source's, the geometry's, and the calibration.
SOURCE_KEYS = frozenset({"source", "width", "height", "device", "path", "loop", "lock"})
GEOMETRY_KEYS = frozenset({"pitch_mm", "marker_side", "markers", "dictionary", "disc_diameter",
                           "disc_thickness"})
CAMERA_KEYS = SOURCE_KEYS | GEOMETRY_KEYS | {"calibration"}


def camera_from_config(section: Mapping[str, Any], *, clock: Clock,
                       heights_provider: Callable[[], Sequence[int]] | None = None
                       ) -> CameraSensor:
    """The camera backend from the ``[camera]`` config section (ConfigError names the key)."""
    for key in section:
        if key not in CAMERA_KEYS:
            known = ", ".join(sorted(CAMERA_KEYS))
            raise ConfigError(f"camera.{key}", f"unknown key; known: {known}")
    # Geometry keys in the config override the calibration file's geometry.
    geometry = BoardGeometry.from_config(section) if GEOMETRY_KEYS & set(section) else None
    calibration = None
    path = section.get("calibration")
    if path is not None:
        if not isinstance(path, str) or not path:
            raise ConfigError("camera.calibration", f"must be a file path, got {path!r}")
        calibration = Calibration.load(path)
    reader = BoardReader(geometry=geometry, calibration=calibration)
    source = source_from_config(section, clock=clock)
    return CameraSensor(source, reader, clock, heights_provider)
