"""A room and a camera that adjusts itself, applied to each rendered frame (per frame, while
the renderer caches each distinct table state).

- :class:`RoomLight`: the room's light drifts over minutes (brightness and colour
  temperature), and now and then a person's soft shadow falls over part of the board.
- :class:`AutoCamera`: automatic exposure and white balance as a Pi camera or a webcam runs
  them by default: gains that follow, with a first-order lag of a second or two, a target
  computed from the frame's (centre-weighted) mean against the picture it settled on, so an
  arm or a sleeve over part of the picture, or the LEDs, shift the whole frame.

Both draw from their own seeded streams: the same seed gives the same frames.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synthetic.render import kelvin_bgr


class RoomLight:
    """The room's light at time ``t``: a gain per channel and a shadow field (or None)."""

    def __init__(self, seed: int, size: tuple[int, int]) -> None:
        rng = np.random.default_rng([seed, 71])
        self.size = size
        self.amp = float(rng.uniform(0.03, 0.12))
        self.period = float(rng.uniform(120.0, 600.0))
        self.phase = float(rng.uniform(0, 2 * math.pi))
        self.kelvin_amp = float(rng.uniform(50.0, 400.0))
        self.base_k = float(rng.uniform(3000.0, 5500.0))
        #: Shadows: (start, duration, fade, strength, x, y, radius) in s and px.
        w, h = size
        self.shadows: list[tuple[float, ...]] = []
        t = float(rng.uniform(10.0, 90.0))
        while t < 3600.0:
            dur = float(rng.uniform(3.0, 15.0))
            self.shadows.append((t, dur, float(rng.uniform(0.5, 1.5)),
                                 float(rng.uniform(0.15, 0.4)), float(rng.uniform(0.2, 0.8) * w),
                                 float(rng.uniform(0.2, 0.8) * h),
                                 float(rng.uniform(0.15, 0.35) * w)))
            t += dur + float(rng.uniform(20.0, 120.0))
        self._fields: dict[int, np.ndarray] = {}

    def gains(self, t: float) -> np.ndarray:
        """BGR gains of the room light at ``t`` against its start."""
        wave = math.sin(2 * math.pi * t / self.period + self.phase)
        level = 1.0 + self.amp * (wave - math.sin(self.phase))
        kelvin = self.base_k + self.kelvin_amp * (wave - math.sin(self.phase))
        tint = kelvin_bgr(kelvin) / kelvin_bgr(self.base_k)
        return np.asarray(level * tint / tint[1], np.float32)

    def shadow(self, t: float) -> tuple[float, np.ndarray | None]:
        """How dark a person's shadow is at ``t`` (0: none) and its field (1 at its core)."""
        for i, (t0, dur, fade, strength, x, y, r) in enumerate(self.shadows):
            if t0 <= t <= t0 + dur:
                level = min(1.0, (t - t0) / fade, (t0 + dur - t) / fade) * strength
                if i not in self._fields:
                    w, h = self.size
                    small = np.zeros((h // 4, w // 4), np.float32)
                    cv2.circle(small, (int(x / 4), int(y / 4)), int(r / 4), 1.0, -1)
                    soft = cv2.GaussianBlur(small, (0, 0), max(1.0, r / 4 * 0.5))
                    self._fields = {i: cv2.resize(soft, (w, h), interpolation=cv2.INTER_LINEAR)}
                return level, self._fields[i]
        return 0.0, None


class AutoCamera:
    """Auto exposure and white balance: per-channel gains lagging toward a target."""

    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng([seed, 72])
        self.tau = float(rng.uniform(0.3, 0.7))  # s: settled in 1-2 s
        self.strength = float(rng.uniform(0.7, 1.0))  # how far toward the target it goes
        self.gains = np.ones(3, np.float32)
        self.reference: np.ndarray | None = None
        self.t: float | None = None

    def measure(self, frame: np.ndarray) -> np.ndarray:
        """The centre-weighted mean BGR of a frame (every 4th pixel of its middle half)."""
        h, w = frame.shape[:2]
        mid = frame[h // 4:h - h // 4:4, w // 4:w - w // 4:4]
        return np.asarray(mid.reshape(-1, 3).mean(axis=0), np.float32) + 1.0

    def update(self, scene_mean: np.ndarray, t: float) -> None:
        """Move the gains toward the target for the scene (before the gains) seen at ``t``."""
        if self.reference is None:
            self.reference = scene_mean
            self.t = t
            return
        luma = float(scene_mean.mean())
        ref_luma = float(self.reference.mean())
        exposure = (ref_luma / luma) ** self.strength
        balance = ((self.reference / ref_luma) / (scene_mean / luma)) ** (0.8 * self.strength)
        target = np.clip(exposure * balance, 0.5, 2.0).astype(np.float32)
        dt = max(0.0, t - (self.t if self.t is not None else t))
        self.t = t
        self.gains += (target - self.gains) * (1.0 - math.exp(-dt / self.tau))


class Develop:
    """A rendered frame as the room and the camera turn it out at time ``t``."""

    def __init__(self, seed: int, size: tuple[int, int], room: bool = True,
                 auto: bool = True) -> None:
        self.room = RoomLight(seed, size) if room else None
        self.camera = AutoCamera(seed) if auto else None

    def __call__(self, frame: np.ndarray, t: float, noise: np.ndarray | None = None
                 ) -> np.ndarray:
        out = frame.astype(np.float32)
        if self.room is not None:
            out *= self.room.gains(t)
            level, field = self.room.shadow(t)
            if field is not None and level > 0:
                out *= (1.0 - level * field)[..., None]
        if self.camera is not None:
            self.camera.update(self.camera.measure(out), t)
            out *= self.camera.gains
        if noise is not None:
            out += noise
        return np.clip(out, 0, 255).astype(np.uint8)
