"""A camera out of focus or of lower resolution spreads a top's edge over more than the 1.7 mm
between two rim samples: white tops on white paper (their colour fits the empty board too, so
the edge decides) read "no disc edge". The rim step is also taken across two gaps (0.24 disc
radii): a soft edge shows there whole, a thin printed line is no step at all."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
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



def test_a_soft_edge_only_confirms_an_expected_top() -> None:
    """Only the tops the position expects take the soft edge: a sleeve's shading across two
    gaps passed for a new piece's edge (camera game 3, frame 689: an empty B2 under a hand
    and a sleeve read 'w'). The colour model judges the cells the heights call empty by the
    step between neighbouring samples alone."""
    from test_sleeve_print_edge import WHITE_SLEEVE

    from vision.synthetic.render import render

    image, _ = render(WHITE_SLEEVE)
    heights = np.array([len(s) for s in WHITE_SLEEVE.stacks])
    reader = BoardReader()
    reader.model.debug = {}
    reader.read(image, list(heights))
    pose, _ = reader.locate(image)
    samples, _ = reader.sample(image, pose, list(heights))
    assert samples.rim is not None and samples.rim_soft is not None
    assert (samples.rim_soft >= samples.rim).all() and (samples.rim_soft > samples.rim).any()
    used = reader.model.debug["rim"]
    assert np.array_equal(used[heights == 0], samples.rim[heights == 0])
    assert np.array_equal(used[heights > 0], samples.rim_soft[heights > 0])
