"""A soft, low view of the board (one of the outside photos through another camera: turned,
0.72x, blurred, noisy, JPEG) shows its two near markers; the far two are a dozen pixels wide
and decode neither in the whole image nor at twice its size. Where the two found put them,
three times closer, one does: a pose, and the board reads right."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from vision.geometry import BoardGeometry
from vision.pose import MarkerDetector
from vision.reader import BoardReader

CASE = Path(__file__).resolve().parent / "data" / "perturbed" / "frame-009-soft.json"


def test_far_markers_are_looked_for_closer_where_the_near_ones_put_them() -> None:
    truth = json.loads(CASE.read_text(encoding="utf-8"))
    image = cv2.imread(str(CASE.parent / truth["file"]), cv2.IMREAD_COLOR)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert len(MarkerDetector(BoardGeometry()).detect(grey, thorough=True)) >= 3
    got = BoardReader().read(image, truth["heights"]).snapshot
    assert [(i, g, w) for i, (g, w) in enumerate(zip(got, truth["expected"], strict=True))
            if w != "*" and g != w] == []
