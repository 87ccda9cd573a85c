"""Locking a camera's automatic exposure and white balance once the picture has settled.

A camera that adjusts itself shifts the whole picture's brightness and colour for a second or
two whenever an arm, a sleeve or the table's own LEDs change what it sees. The reader copes
(it normalises every frame by the markers' white and the board's own light), but a locked
camera gives it less to cope with. So after the start, once the picture has settled (the
camera's values changing by less than ``TOLERANCE`` for ``SETTLE`` seconds, or after ``LIMIT``
seconds at the most), a lock freezes what the camera lets be frozen, checks what the driver
took, and says in one line what it locked and what stays automatic.

Two kinds, each driving an object with the library's own methods (tests pass fakes):

- :class:`PicameraLock`: picamera2 (libcamera controls). The settled ``ExposureTime``,
  ``AnalogueGain`` and ``ColourGains`` from ``capture_metadata()`` are set back with
  ``AeEnable`` and ``AwbEnable`` off; a control the camera lacks (``camera_controls``) or
  refuses stays automatic.
- :class:`V4l2Lock`: a V4L2 webcam through cv2.VideoCapture. Each property is read first and
  read back after ``set``: ``CAP_PROP_AUTO_EXPOSURE`` manual (1; 0.25 on older OpenCV),
  ``CAP_PROP_EXPOSURE``, ``CAP_PROP_GAIN``, ``CAP_PROP_AUTO_WB`` off,
  ``CAP_PROP_WB_TEMPERATURE``. Many webcams do not report the exposure their automatic mode
  chose, so the picture is watched for ``CHECK`` seconds after the lock: a lock that made it
  darker or lighter (or shifted its colour) is undone and that part stays automatic.

Time comes from the injected clock; nothing here sleeps.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from hardware.clock import Clock

#: The ``[camera] lock`` choices: lock once settled, or leave the camera automatic.
LOCK_CHOICES = ("auto", "off")
#: Seconds the camera's values must hold (within TOLERANCE) to count as settled.
SETTLE = 1.5
#: Relative change still counted as steady (3 %).
TOLERANCE = 0.03
#: Seconds after the first frame when the lock takes the last values even if unsettled.
LIMIT = 8.0
#: Webcam: seconds the picture is watched after the lock.
CHECK = 0.5
#: Webcam: the relative change of brightness (exposure) or of the red/green and blue/green
#: ratios (white balance) after the lock that undoes it.
BRIGHTNESS_SLIP = 0.2
COLOUR_SLIP = 0.1

Notify = Callable[[str], None]


def say_on_stderr(line: str) -> None:
    """The default way a lock speaks: one line on the terminal."""
    print(line, file=sys.stderr, flush=True)


class Settle:
    """Whether a few numbers have held still: each within ``tolerance`` (relative) of the
    values where the steady stretch began, for ``window`` seconds; or ``limit`` seconds
    since the first (``timed_out``)."""

    def __init__(self, clock: Clock, window: float = SETTLE, tolerance: float = TOLERANCE,
                 limit: float = LIMIT) -> None:
        self.clock = clock
        self.window = window
        self.tolerance = tolerance
        self.limit = limit
        self.start: float | None = None
        self.timed_out = False
        self._ref: tuple[float, ...] = ()
        self._since = 0.0

    def add(self, values: Sequence[float]) -> bool:
        """Take the values seen now; True once settled (or past the limit)."""
        now = self.clock.now()
        if self.start is None:
            self.start = now
        vals = tuple(float(v) for v in values)
        if not _close(vals, self._ref, self.tolerance):
            self._ref, self._since = vals, now
        if now - self._since >= self.window:
            return True
        if now - self.start >= self.limit:
            self.timed_out = True
            return True
        return False

    def elapsed(self) -> float:
        return 0.0 if self.start is None else self.clock.now() - self.start


def _close(a: Sequence[float], b: Sequence[float], tolerance: float) -> bool:
    if len(a) != len(b) or not a:
        return False
    return all(abs(x - y) <= tolerance * max(abs(y), 1e-9) for x, y in zip(a, b, strict=True))


class CameraLock:
    """Watches frames until the picture settles, then locks; ``status`` says where it is."""

    def __init__(self, clock: Clock, notify: Notify = say_on_stderr,
                 settle: Settle | None = None) -> None:
        self.clock = clock
        self.notify = notify
        self.settle = settle or Settle(clock)
        self.done = False
        self.status = "exposure and white balance automatic until the picture settles"
        self.locked: list[str] = []  # what was locked, as said
        self.automatic: list[str] = []  # what stays automatic, and why

    def step(self, frame: np.ndarray) -> None:
        """Called by the source after each frame it read, until ``done``."""
        raise NotImplementedError

    def finish(self) -> None:
        """Say once, in one line, what was locked and what stays automatic."""
        self.done = True
        if self.locked:
            line = "locked " + ", ".join(self.locked)
            if self.automatic:
                line += "; stays automatic: " + "; ".join(self.automatic)
        else:
            line = "exposure and white balance stay automatic: " + "; ".join(self.automatic)
        if self.settle.timed_out:
            line += (f" (the picture had not settled after {self.settle.limit:g} s: "
                     f"locked at its last values)")
        self.status = line
        self.notify("camera: " + line)


class PicameraLock(CameraLock):
    """picamera2: the settled metadata set back as manual controls."""

    def __init__(self, cam: Any, clock: Clock, notify: Notify = say_on_stderr,
                 settle: Settle | None = None) -> None:
        super().__init__(clock, notify, settle)
        self._cam = cam

    def step(self, frame: np.ndarray) -> None:
        try:
            md = dict(self._cam.capture_metadata())
        except Exception as exc:  # the library raises plain errors
            self.automatic.append(f"the camera's metadata cannot be read ({exc})")
            self.finish()
            return
        exposure, gain, gains = md.get("ExposureTime"), md.get("AnalogueGain"), \
            md.get("ColourGains")
        numbers = [float(v) for v in (exposure, gain) if isinstance(v, int | float) and _number(v)]
        if isinstance(gains, Sequence) and len(gains) == 2 and all(map(_number, gains)):
            numbers += [float(gains[0]), float(gains[1])]
        else:
            gains = None
        if not numbers:
            self.automatic.append("the camera reports no exposure or colour gains")
            self.finish()
            return
        if self.settle.add(numbers):
            self._lock(exposure, gain, gains)

    def _lock(self, exposure: Any, gain: Any, gains: Sequence[float] | None) -> None:
        known = getattr(self._cam, "camera_controls", None)
        groups: dict[str, tuple[str, dict[str, Any]]] = {}
        if not (_number(exposure) and _number(gain)):
            self.automatic.append("exposure (the camera does not report it)")
        elif not _has(known, "AeEnable", "ExposureTime", "AnalogueGain"):
            self.automatic.append("exposure (the camera has no AeEnable/ExposureTime control)")
        else:
            groups["exposure"] = (
                f"exposure {float(exposure) / 1000:.1f} ms and gain {float(gain):.2f}",
                {"AeEnable": False, "ExposureTime": int(exposure),
                 "AnalogueGain": float(gain)})
        if gains is None:
            self.automatic.append("white balance (the camera reports no colour gains)")
        elif not _has(known, "AwbEnable", "ColourGains"):
            self.automatic.append("white balance (the camera has no AwbEnable/ColourGains "
                                  "control)")
        else:
            red, blue = float(gains[0]), float(gains[1])
            groups["white balance"] = (
                f"white balance (red x{red:.2f}, blue x{blue:.2f})",
                {"AwbEnable": False, "ColourGains": (red, blue)})
        if groups:
            try:
                self._cam.set_controls({k: v for _, c in groups.values() for k, v in c.items()})
                self.locked += [said for said, _ in groups.values()]
            except Exception:  # one refused control: try each part on its own
                for name, (said, controls) in groups.items():
                    try:
                        self._cam.set_controls(controls)
                        self.locked.append(said)
                    except Exception as exc:
                        self.automatic.append(f"{name} (the camera refused it: {exc})")
        self.finish()


def _number(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def _has(known: Any, *names: str) -> bool:
    """Whether the camera lists every control (a camera that lists none: assume it has)."""
    return not isinstance(known, Mapping) or all(n in known for n in names)


class V4l2Lock(CameraLock):
    """A V4L2 webcam through cv2.VideoCapture: properties read, set, read back, and the
    picture checked after the lock."""

    def __init__(self, cap: Any, cv2: Any, clock: Clock, notify: Notify = say_on_stderr,
                 settle: Settle | None = None, check: float = CHECK) -> None:
        super().__init__(clock, notify, settle)
        self._cap = cap
        self._cv2 = cv2
        self.check = check
        self._settled: np.ndarray | None = None  # the picture's channel means when settled
        self._after: list[np.ndarray] = []  # the channel means after the lock
        self._locked_at = 0.0
        self._undo: dict[str, tuple[int, float]] = {}  # part -> (property, value to restore)
        self._said: dict[str, str] = {}

    def step(self, frame: np.ndarray) -> None:
        means = _means(frame)
        if self._settled is None:
            if self.settle.add(list(means) + self._driver_values()):
                self._settled = means
                self._lock()
            return
        self._after.append(means)
        if self.clock.now() - self._locked_at >= self.check and len(self._after) >= 2:
            self._verify()

    def _driver_values(self) -> list[float]:
        cv = self._cv2
        out = []
        for prop in (cv.CAP_PROP_EXPOSURE, cv.CAP_PROP_GAIN, cv.CAP_PROP_WB_TEMPERATURE):
            value = self._get(prop)
            if value is not None:
                out.append(value)
        return out

    def _get(self, prop: int) -> float | None:
        try:
            value = float(self._cap.get(prop))
        except Exception:
            return None
        return value if math.isfinite(value) and value >= 0 else None

    def _set(self, prop: int, value: float, slack: float = 0.0) -> bool:
        """Set and read back: True when the driver took ``value`` (within ``slack``,
        relative, or one step)."""
        try:
            if not self._cap.set(prop, value):
                return False
        except Exception:
            return False
        back = self._get(prop)
        if back is None:
            return False
        return abs(back - value) <= (max(1.0, slack * abs(value)) if slack else 1e-6)

    def _lock(self) -> None:
        cv = self._cv2
        self._locked_at = self.clock.now()
        auto_exposure = self._get(cv.CAP_PROP_AUTO_EXPOSURE)
        exposure = self._get(cv.CAP_PROP_EXPOSURE)
        gain = self._get(cv.CAP_PROP_GAIN)
        if exposure is None or exposure <= 0:
            self.automatic.append("exposure (the driver does not report it)")
        elif not (self._set(cv.CAP_PROP_AUTO_EXPOSURE, 1)
                  or self._set(cv.CAP_PROP_AUTO_EXPOSURE, 0.25)):
            self.automatic.append("exposure (the driver refused manual exposure)")
        else:
            restore = auto_exposure if auto_exposure not in (None, 1, 0.25) else 3
            self._undo["exposure"] = (cv.CAP_PROP_AUTO_EXPOSURE, float(restore))
            if not self._set(cv.CAP_PROP_EXPOSURE, exposure, slack=0.02):
                self._restore("exposure")
                self.automatic.append(f"exposure (the driver refused exposure {exposure:g})")
            else:
                said = f"exposure {exposure:g}"
                if gain is not None and self._set(cv.CAP_PROP_GAIN, gain, slack=0.02):
                    said += f" and gain {gain:g}"
                self._said["exposure"] = said
        auto_wb = self._get(cv.CAP_PROP_AUTO_WB)
        temperature = self._get(cv.CAP_PROP_WB_TEMPERATURE)
        if not self._set(cv.CAP_PROP_AUTO_WB, 0):
            self.automatic.append("white balance (the driver refused to turn it off)")
        else:
            self._undo["white balance"] = (cv.CAP_PROP_AUTO_WB,
                                           auto_wb if auto_wb not in (None, 0) else 1.0)
            if not temperature or not self._set(cv.CAP_PROP_WB_TEMPERATURE, temperature,
                                                slack=0.02):
                self._restore("white balance")
                self.automatic.append("white balance (the driver takes no colour temperature)")
            else:
                self._said["white balance"] = f"white balance {temperature:g} K"
        if not self._said:
            self.finish()

    def _restore(self, part: str) -> None:
        prop, value = self._undo[part]
        try:
            self._cap.set(prop, value)
        except Exception:
            pass
        self._said.pop(part, None)

    def _verify(self) -> None:
        """Undo a lock that changed the picture: the driver set other values than those the
        automatic mode was using."""
        assert self._settled is not None
        before = self._settled
        now = np.median(np.array(self._after[len(self._after) // 2:]), axis=0)
        if "exposure" in self._said:
            change = float(now.mean() / max(float(before.mean()), 1e-6)) - 1.0
            if abs(change) > BRIGHTNESS_SLIP:
                self._restore("exposure")
                word = "darker" if change < 0 else "lighter"
                self.automatic.append(f"exposure (locked, the picture came out "
                                      f"{abs(change):.0%} {word}: the driver does not report "
                                      f"the exposure it chose)")
        if "white balance" in self._said and now.size >= 3:
            shift = max(abs(_ratio(now, c) / max(_ratio(before, c), 1e-6) - 1.0) for c in (0, 2))
            if shift > COLOUR_SLIP:
                self._restore("white balance")
                self.automatic.append(f"white balance (locked, the colours shifted by "
                                      f"{shift:.0%}: the driver does not report the "
                                      f"temperature it chose)")
        self.locked = list(self._said.values())
        self.finish()


def _means(frame: np.ndarray) -> np.ndarray:
    """The picture's mean of each channel (B, G, R), from every 8th pixel."""
    small = frame[::8, ::8].reshape(-1, frame.shape[-1] if frame.ndim == 3 else 1)
    means: np.ndarray = small.astype(np.float64).mean(axis=0)
    return means


def _ratio(means: np.ndarray, channel: int) -> float:
    """Blue (0) or red (2) over green."""
    return float(means[channel]) / max(float(means[1]), 1e-6)
