"""Camera frame sources: everything that hands BGR frames to the vision code.

``FrameSource.read()`` returns an (H, W, 3) uint8 BGR array, or None when no frame is
available (end of a file or folder, a dropped frame). Sources are context managers and
``close()`` is safe twice. This module must not import vision/.

A camera (picamera2, a V4L2 webcam) locks its exposure and white balance once the picture has
settled (``[camera] lock = "auto"``, :mod:`hardware.camera_lock`); ``lock_status`` says what it
locked and what stays automatic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ConfigError, DvonnError
from hardware.camera_lock import (
    LOCK_CHOICES,
    CameraLock,
    Notify,
    PicameraLock,
    V4l2Lock,
    say_on_stderr,
)
from hardware.clock import Clock, SystemClock

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class CameraError(DvonnError):
    """A camera or frame source that cannot be opened or read; the message says which."""


class FrameSource:
    """Base class: subclasses implement ``_read`` (one frame) and ``_release``."""

    closed = False
    #: Locks the camera's exposure and white balance once the picture settles (None: a
    #: source with nothing to lock, or ``lock = "off"``).
    lock: CameraLock | None = None

    def read(self) -> np.ndarray | None:
        if self.closed:
            raise CameraError(f"{type(self).__name__} is closed")
        frame = self._read()
        if frame is not None and self.lock is not None and not self.lock.done:
            self.lock.step(frame)
        return frame

    @property
    def lock_status(self) -> str:
        """What the camera locked and what stays automatic ("" for a source without
        controls)."""
        return self.lock.status if self.lock is not None else ""

    def _read(self) -> np.ndarray | None:
        raise NotImplementedError

    def _release(self) -> None:
        """Free the device (called once)."""

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._release()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class VideoCaptureSource(FrameSource):
    """cv2.VideoCapture: a USB camera by index, a video file or a stream URL. A camera
    (an index or /dev/video*) opened through V4L2 locks its exposure and white balance once
    the picture settles, unless ``lock`` is "off"; ``capture`` makes the VideoCapture (tests
    pass a fake)."""

    def __init__(self, device: int | str, width: int | None = None,
                 height: int | None = None, *, lock: str = "auto", clock: Clock | None = None,
                 notify: Notify = say_on_stderr,
                 capture: Callable[[int | str], Any] | None = None) -> None:
        import cv2

        self.device = device
        self._cap = (capture or cv2.VideoCapture)(device)
        if not self._cap.isOpened():
            self._cap.release()
            self.closed = True
            raise CameraError(f"cannot open camera or video {device!r} with cv2.VideoCapture")
        if width:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        is_camera = isinstance(device, int) or str(device).startswith("/dev/video")
        if lock == "auto" and is_camera:
            backend = _backend_name(self._cap)
            if backend in ("", "V4L2"):
                self.lock = V4l2Lock(self._cap, cv2, clock or SystemClock(), notify)
            else:
                notify(f"camera: exposure and white balance stay automatic: OpenCV opened "
                       f"{device!r} through {backend}, not V4L2")

    def _read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        return frame if ok else None

    def _release(self) -> None:
        self._cap.release()


class ImageFolderSource(FrameSource):
    """The image files of a folder in sorted name order, one per read; None after the last."""

    def __init__(self, folder: str | Path, loop: bool = False) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraError(f"image folder {str(self.folder)!r} does not exist")
        self.files = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"image folder {str(self.folder)!r} holds no images "
                              f"({', '.join(IMAGE_SUFFIXES)})")
        self.loop = loop
        self._next = 0

    def _read(self) -> np.ndarray | None:
        import cv2

        if self._next >= len(self.files):
            if not self.loop:
                return None
            self._next = 0
        path = self.files[self._next]
        self._next += 1
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraError(f"cannot read image {str(path)!r}")
        return frame


class SyntheticSource(FrameSource):
    """Frames from a callable of the frame number (e.g. the synthetic renderer)."""

    def __init__(self, render: Callable[[int], np.ndarray | None],
                 limit: int | None = None) -> None:
        self._render = render
        self.limit = limit
        self.index = 0

    def _read(self) -> np.ndarray | None:
        if self.limit is not None and self.index >= self.limit:
            return None
        frame = self._render(self.index)
        self.index += 1
        return frame


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (a Pi system package, imported lazily).
    Exposure and white balance lock once the picture settles, unless ``lock`` is "off";
    ``camera`` makes the Picamera2 object (tests pass a fake)."""

    def __init__(self, width: int = 1280, height: int = 960, *, lock: str = "auto",
                 clock: Clock | None = None, notify: Notify = say_on_stderr,
                 camera: Callable[[], Any] | None = None) -> None:
        if camera is None:
            try:
                from picamera2 import Picamera2
            except ImportError as exc:
                raise CameraError("picamera2 is not installed (it comes with Raspberry Pi OS: "
                                  "sudo apt install python3-picamera2)") from exc
            camera = Picamera2
        try:
            self._cam = camera()
        except Exception as exc:  # the library raises plain errors when no camera is there
            raise CameraError(f"cannot open the Pi camera: {exc}") from exc
        try:
            config = self._cam.create_still_configuration(
                main={"size": (width, height), "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            self._cam.close()
            raise CameraError(f"cannot start the Pi camera at {width}x{height}: {exc}") from exc
        if lock == "auto":
            self.lock = PicameraLock(self._cam, clock or SystemClock(), notify)

    def _read(self) -> np.ndarray | None:
        # picamera2's "RGB888" is laid out B, G, R in memory: already what OpenCV expects.
        frame = self._cam.capture_array("main")
        return np.ascontiguousarray(frame[..., :3])

    def _release(self) -> None:
        try:
            self._cam.stop()
        finally:
            self._cam.close()


def source_from_config(section: Mapping[str, Any], *, clock: Clock | None = None,
                       notify: Notify = say_on_stderr) -> FrameSource:
    """Build a source from the ``camera`` config section by its ``source`` key:
    ``picamera2`` (width, height), ``video`` (device: index, file or URL), ``folder`` (path);
    ``lock`` ("auto" or "off") for the cameras, timed by ``clock``."""
    kind = section.get("source", "picamera2")
    width = _int(section, "width", 1280)
    height = _int(section, "height", 960)
    lock = section.get("lock", "auto")
    if lock not in LOCK_CHOICES:
        raise ConfigError("camera.lock", f"must be one of {', '.join(LOCK_CHOICES)}, "
                          f"got {lock!r}")
    if kind == "picamera2":
        return Picamera2Source(width, height, lock=lock, clock=clock, notify=notify)
    if kind == "video":
        device = section.get("device", 0)
        if isinstance(device, bool) or not isinstance(device, int | str):
            raise ConfigError("camera.device", f"must be a camera index or a path/URL, "
                              f"got {device!r}")
        return VideoCaptureSource(device, width, height, lock=lock, clock=clock, notify=notify)
    if kind == "folder":
        path = section.get("path")
        if not isinstance(path, str) or not path:
            raise ConfigError("camera.path", "a folder of images is required for source=folder")
        return ImageFolderSource(path, loop=bool(section.get("loop", False)))
    raise ConfigError("camera.source", f"{kind!r} is not one of picamera2, video, folder")


def _int(section: Mapping[str, Any], key: str, default: int) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"camera.{key}", f"must be a positive integer, got {value!r}")
    return value


def _backend_name(cap: Any) -> str:
    """The OpenCV backend that opened ``cap`` ("" when it cannot say)."""
    try:
        return str(cap.getBackendName())
    except Exception:
        return ""
