"""Locking a camera's exposure and white balance once the picture has settled: picamera2 and
a V4L2 webcam, both faked (no camera, no picamera2 here), timed by a FakeClock."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from engine.errors import ConfigError  # noqa: E402
from hardware.camera import (  # noqa: E402
    Picamera2Source,
    VideoCaptureSource,
    source_from_config,
)
from hardware.camera_lock import LIMIT, SETTLE, Settle  # noqa: E402
from hardware.clock import FakeClock  # noqa: E402

STEP = 0.1  # seconds between frames


def run(src: Any, clock: FakeClock, seconds: float) -> None:
    for _ in range(round(seconds / STEP)):
        assert src.read() is not None
        clock.advance(STEP)


# -- settling ------------------------------------------------------------------------------

def test_settle_waits_for_values_to_hold_still() -> None:
    clock = FakeClock()
    settle = Settle(clock, window=1.5, tolerance=0.03, limit=8.0)
    for value in (100, 140, 170, 190):  # converging: each frame differs by more than 3 %
        assert not settle.add([value, 2.0])
        clock.advance(0.2)
    while not settle.add([191, 2.01]):  # within 3 % of 190 (seen at 0.6 s)
        clock.advance(0.2)
    assert clock.now() == pytest.approx(2.2)  # the first sample 1.5 s after 190
    assert not settle.timed_out


def test_slow_drift_is_not_settled_and_the_limit_ends_it() -> None:
    clock = FakeClock()
    settle = Settle(clock, window=1.5, tolerance=0.03, limit=8.0)
    value = 100.0
    while not settle.add([value]):
        value *= 1.01  # 1 % a frame: never 3 % from where the steady stretch began for 1.5 s
        clock.advance(0.2)
    assert settle.timed_out and clock.now() == pytest.approx(8.0)


# -- picamera2 -----------------------------------------------------------------------------

class FakePicamera2:
    """picamera2's methods the source uses; auto exposure converges for ``converge`` s
    (and swings by ``wobble`` from frame to frame: people moving under the camera)."""

    def __init__(self, clock: FakeClock, *, converge: float = 1.0, wobble: float = 0.0,
                 refuse: tuple[str, ...] = (), controls: tuple[str, ...] | None = None) -> None:
        self.clock = clock
        self.converge = converge
        self.wobble = wobble
        self.frames = 0
        self.refuse = refuse
        names = controls or ("AeEnable", "AwbEnable", "ExposureTime", "AnalogueGain",
                             "ColourGains")
        self.camera_controls = {n: (None, None, None) for n in names}
        self.set_calls: list[dict[str, Any]] = []
        self.stopped = self.closed = 0

    def create_still_configuration(self, **kw: Any) -> dict[str, Any]:
        return kw

    def configure(self, config: Any) -> None:
        pass

    def start(self) -> None:
        pass

    def capture_array(self, name: str = "main") -> np.ndarray:
        return np.full((6, 8, 3), 100, np.uint8)

    def capture_metadata(self) -> dict[str, Any]:
        left = max(0.0, self.converge - self.clock.now())  # seconds still converging
        self.frames += 1
        swing = 1.0 + self.wobble * (-1) ** self.frames
        return {"ExposureTime": int((20000 + 30000 * left) * swing), "AnalogueGain": 2.0 + left,
                "ColourGains": (1.8 + 0.5 * left, 1.5), "DigitalGain": 1.0}

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.set_calls.append(dict(controls))
        refused = [n for n in controls if n in self.refuse]
        if refused:
            raise RuntimeError(f"Control {refused[0]} is not advertised by libcamera")

    def stop(self) -> None:
        self.stopped += 1

    def close(self) -> None:
        self.closed += 1


def picamera(clock: FakeClock, lines: list[str], **kw: Any) -> tuple[Picamera2Source,
                                                                     FakePicamera2]:
    lock = kw.pop("lock", "auto")
    cam = FakePicamera2(clock, **kw)
    return Picamera2Source(lock=lock, clock=clock, notify=lines.append,
                           camera=lambda: cam), cam


def test_picamera2_locks_the_settled_values_once() -> None:
    clock, lines = FakeClock(), []
    src, cam = picamera(clock, lines)
    run(src, clock, 1.0 + SETTLE - STEP)  # still converging, then not yet steady for 1.5 s
    assert cam.set_calls == [] and lines == []
    assert "until the picture settles" in src.lock_status
    run(src, clock, 2.0)
    assert cam.set_calls == [{"AeEnable": False, "ExposureTime": 20000, "AnalogueGain": 2.0,
                              "AwbEnable": False, "ColourGains": (1.8, 1.5)}]
    assert lines == ["camera: locked exposure 20.0 ms and gain 2.00, white balance "
                     "(red x1.80, blue x1.50)"]
    assert src.lock_status == lines[0].removeprefix("camera: ")
    src.close()
    src.close()
    assert (cam.stopped, cam.closed) == (1, 1)


def test_a_refused_control_stays_automatic_and_is_said_once() -> None:
    clock, lines = FakeClock(), []
    src, cam = picamera(clock, lines, refuse=("AwbEnable",))
    run(src, clock, 6.0)
    assert len(cam.set_calls) == 3  # all together, then exposure, then white balance
    assert cam.set_calls[1] == {"AeEnable": False, "ExposureTime": 20000, "AnalogueGain": 2.0}
    assert len(lines) == 1
    assert lines[0].startswith("camera: locked exposure 20.0 ms and gain 2.00; stays "
                               "automatic: white balance (the camera refused it: Control "
                               "AwbEnable")


def test_a_control_the_camera_lacks_is_not_sent() -> None:
    clock, lines = FakeClock(), []
    src, cam = picamera(clock, lines, controls=("AeEnable", "ExposureTime", "AnalogueGain"))
    run(src, clock, 6.0)
    assert cam.set_calls == [{"AeEnable": False, "ExposureTime": 20000, "AnalogueGain": 2.0}]
    assert lines == ["camera: locked exposure 20.0 ms and gain 2.00; stays automatic: white "
                     "balance (the camera has no AwbEnable/ColourGains control)"]


def test_a_picture_that_never_settles_is_locked_at_the_limit() -> None:
    clock, lines = FakeClock(), []
    src, cam = picamera(clock, lines, wobble=0.1)
    run(src, clock, LIMIT + 1.0)
    assert len(cam.set_calls) == 1 and len(lines) == 1
    assert lines[0].endswith(f"(the picture had not settled after {LIMIT:g} s: locked at its "
                             f"last values)")


def test_lock_off_locks_nothing() -> None:
    clock, lines = FakeClock(), []
    src, cam = picamera(clock, lines, lock="off")
    run(src, clock, 6.0)
    assert cam.set_calls == [] and lines == [] and src.lock is None and src.lock_status == ""
    src.close()
    src.close()


# -- a V4L2 webcam -------------------------------------------------------------------------

class FakeCapture:
    """cv2.VideoCapture's methods on a V4L2 webcam. In automatic exposure the picture is
    always 120 grey; in manual, 120 x exposure / ``chosen`` (the exposure the automatic mode
    chose, which the driver reports as ``reported``)."""

    def __init__(self, *, refuse: tuple[int, ...] = (), raises: tuple[int, ...] = (),
                 chosen: float = 250.0, reported: float = 250.0,
                 backend: str = "V4L2") -> None:
        self.props: dict[int, float] = {
            cv2.CAP_PROP_AUTO_EXPOSURE: 3.0, cv2.CAP_PROP_EXPOSURE: reported,
            cv2.CAP_PROP_GAIN: 32.0, cv2.CAP_PROP_AUTO_WB: 1.0,
            cv2.CAP_PROP_WB_TEMPERATURE: 4600.0}
        self.refuse, self.raises = refuse, raises
        self.chosen = chosen
        self.backend = backend
        self.sets: list[tuple[int, float]] = []
        self.released = 0

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return True

    def getBackendName(self) -> str:  # noqa: N802
        return self.backend

    def get(self, prop: int) -> float:
        return self.props.get(prop, -1.0)

    def set(self, prop: int, value: float) -> bool:
        if prop in self.raises:
            raise cv2.error("VIDEOIO(V4L2): can't set property")
        if prop in self.refuse:
            return False
        if prop in self.props and prop not in (cv2.CAP_PROP_FRAME_WIDTH,
                                               cv2.CAP_PROP_FRAME_HEIGHT):
            self.sets.append((prop, value))
            self.props[prop] = float(value)
        return True

    def read(self) -> tuple[bool, np.ndarray]:
        level = 120.0
        if self.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 1.0:
            level *= self.props[cv2.CAP_PROP_EXPOSURE] / self.chosen
        return True, np.full((48, 64, 3), min(255.0, level), np.uint8)

    def release(self) -> None:
        self.released += 1


def webcam(clock: FakeClock, lines: list[str], device: int | str = 0,
           **kw: Any) -> tuple[VideoCaptureSource, FakeCapture]:
    lock = kw.pop("lock", "auto")
    cap = FakeCapture(**kw)
    return VideoCaptureSource(device, lock=lock, clock=clock, notify=lines.append,
                              capture=lambda _device: cap), cap


def test_webcam_locks_what_it_read_and_checks_it() -> None:
    clock, lines = FakeClock(), []
    src, cap = webcam(clock, lines)
    run(src, clock, 4.0)
    assert cap.sets == [(cv2.CAP_PROP_AUTO_EXPOSURE, 1), (cv2.CAP_PROP_EXPOSURE, 250.0),
                        (cv2.CAP_PROP_GAIN, 32.0), (cv2.CAP_PROP_AUTO_WB, 0),
                        (cv2.CAP_PROP_WB_TEMPERATURE, 4600.0)]
    assert lines == ["camera: locked exposure 250 and gain 32, white balance 4600 K"]
    src.close()
    src.close()
    assert cap.released == 1


def test_webcam_driver_refusing_white_balance_leaves_it_automatic() -> None:
    clock, lines = FakeClock(), []
    src, cap = webcam(clock, lines, refuse=(cv2.CAP_PROP_AUTO_WB,))
    run(src, clock, 6.0)
    assert lines == ["camera: locked exposure 250 and gain 32; stays automatic: white "
                     "balance (the driver refused to turn it off)"]


def test_webcam_driver_raising_on_exposure_leaves_it_automatic() -> None:
    clock, lines = FakeClock(), []
    src, cap = webcam(clock, lines, raises=(cv2.CAP_PROP_AUTO_EXPOSURE,))
    run(src, clock, 6.0)
    assert cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 3.0
    assert lines == ["camera: locked white balance 4600 K; stays automatic: exposure (the "
                     "driver refused manual exposure)"]


def test_webcam_whose_lock_darkens_the_picture_goes_back_to_automatic() -> None:
    clock, lines = FakeClock(), []
    src, cap = webcam(clock, lines, chosen=500.0, reported=250.0)  # a stale exposure reported
    run(src, clock, 6.0)
    assert cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 3.0  # automatic again
    assert lines == ["camera: locked white balance 4600 K; stays automatic: exposure (locked, "
                     "the picture came out 50% darker: the driver does not report the "
                     "exposure it chose)"]


def test_webcam_refusing_everything_says_what_stays_automatic() -> None:
    clock, lines = FakeClock(), []
    src, _ = webcam(clock, lines, refuse=(cv2.CAP_PROP_AUTO_EXPOSURE, cv2.CAP_PROP_AUTO_WB))
    run(src, clock, 6.0)
    assert lines == ["camera: exposure and white balance stay automatic: exposure (the driver "
                     "refused manual exposure); white balance (the driver refused to turn it "
                     "off)"]


def test_video_files_and_other_backends_lock_nothing() -> None:
    clock, lines = FakeClock(), []
    src, cap = webcam(clock, lines, device="clip.avi")
    run(src, clock, 6.0)
    assert src.lock is None and cap.sets == [] and lines == []
    src, cap = webcam(clock, lines, backend="GSTREAMER")
    run(src, clock, 6.0)
    assert src.lock is None and cap.sets == []
    assert lines == ["camera: exposure and white balance stay automatic: OpenCV opened 0 "
                     "through GSTREAMER, not V4L2"]
    src, cap = webcam(clock, [], lock="off")
    run(src, clock, 6.0)
    assert src.lock is None and cap.sets == []


def test_config_lock_key(tmp_path) -> None:
    with pytest.raises(ConfigError, match="camera.lock"):
        source_from_config({"source": "folder", "path": str(tmp_path), "lock": "always"})
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((4, 4, 3), np.uint8))
    src = source_from_config({"source": "folder", "path": str(tmp_path), "lock": "off"})
    assert src.lock is None
    src.close()
