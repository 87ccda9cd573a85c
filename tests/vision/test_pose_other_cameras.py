"""An outside photo as a softer camera would take it (blur, stronger JPEG) must still show its
markers: the bits of each marker are read from the middle of its cells."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from vision.geometry import BoardGeometry
from vision.pose import MarkerDetector
from vision.reader import BoardReader

PHOTOS = Path(__file__).resolve().parent / "data" / "photos"


def _truth(name: str) -> dict[str, object]:
    for line in (PHOTOS / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        t = json.loads(line)
        if t["file"] == name:
            return dict(t)
    raise AssertionError(f"{name} is not in {PHOTOS / 'truth.jsonl'}")


@pytest.mark.parametrize("sigma,quality", [(0.8, 80), (1.2, 60)])
def test_a_blurred_recompressed_photo_still_shows_three_markers(sigma: float,
                                                                 quality: int) -> None:
    """frame-021 (an arm over marker 1): with the default bit sampling (4 px a cell, 13 %
    margin) blur and JPEG left only markers 0 and 3, and the board was not found at all."""
    truth = _truth("frame-021.jpg")
    frame = cv2.imread(str(PHOTOS / "frame-021.jpg"), cv2.IMREAD_COLOR)
    ok, buf = cv2.imencode(".jpg", cv2.GaussianBlur(frame, (0, 0), sigma),
                           [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    soft = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    found = MarkerDetector(BoardGeometry()).detect(cv2.cvtColor(soft, cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 2, 3]
    heights = truth["heights"]
    assert isinstance(heights, list)
    got = BoardReader().read(soft, heights).snapshot
    want = str(truth["expected"])
    assert all(g == w for g, w in zip(got, want, strict=True) if w != "*"), (got, want)
    assert not any(w == "?" and g in "wbr" for g, w in zip(got, want, strict=True))


def test_a_small_soft_photo_is_looked_at_twice_as_large() -> None:
    """frame-002 at 0.6 of its size and blurred (a smaller, softer camera): at its own
    resolution only markers 2 and 3 show; a reader without a pose yet looks again at twice
    the resolution (and with the contrast equalised), finds a third and reads every cell."""
    truth = _truth("frame-002.jpg")
    frame = cv2.imread(str(PHOTOS / "frame-002.jpg"), cv2.IMREAD_COLOR)
    small = cv2.resize(frame, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA)
    soft = cv2.GaussianBlur(small, (0, 0), 1.2)
    grey = cv2.cvtColor(soft, cv2.COLOR_BGR2GRAY)
    assert len(MarkerDetector(BoardGeometry()).detect(grey)) < 3
    assert len(MarkerDetector(BoardGeometry()).detect(grey, thorough=True)) >= 3
    heights = truth["heights"]
    assert isinstance(heights, list)
    got = BoardReader().read(soft, heights).snapshot
    want = str(truth["expected"])
    assert all(g == w for g, w in zip(got, want, strict=True) if w != "*"), (got, want)
