"""A camera out of focus or of lower resolution spreads a top's edge over more than the 1.7 mm
between two rim samples: white tops on white paper (their colour fits the empty board too, so
the edge decides) read "no disc edge". The rim step is also taken across two gaps (0.24 disc
radii): a soft edge shows there whole, a thin printed line is no step at all."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from vision.reader import BoardReader

PHOTOS = Path(__file__).resolve().parent / "data" / "photos"


@pytest.mark.parametrize("name,sigma,scale", [("frame-017.jpg", 0.8, 1.0),
                                              ("frame-006.jpg", 1.2, 0.8)])
def test_soft_edged_tops_read_their_colour(name: str, sigma: float, scale: float) -> None:
    truth = next(t for t in (json.loads(line) for line in
                             (PHOTOS / "truth.jsonl").read_text(encoding="utf-8").splitlines())
                 if t["file"] == name)
    image = cv2.imread(str(PHOTOS / name), cv2.IMREAD_COLOR)
    if scale != 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    soft = cv2.GaussianBlur(image, (0, 0), sigma)
    got = BoardReader().read(soft, truth["heights"]).snapshot
    want = truth["expected"]
    assert [(i, g, w) for i, (g, w) in enumerate(zip(got, want, strict=True))
            if w != "*" and g != w] == []
