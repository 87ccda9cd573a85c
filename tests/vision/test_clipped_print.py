"""Where the light clips an overexposed paper board (a dark table makes the camera brighten),
its print fades: empty cells there are not "under something" for want of print. A white
sleeve that clips over the board still is (it stands out at once from the board beside it)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reader import BoardReader

PHOTOS = Path(__file__).resolve().parent / "data" / "photos"


@pytest.mark.parametrize("gain,gamma", [(1.1, 0.8), (1.2, 1.0)])
def test_an_overexposed_paper_board_reads_its_empty_cells_empty(gain: float,
                                                                gamma: float) -> None:
    """frame-017 (a pink paper board on a dark cloth) brightened as another camera's exposure
    would: 12 and 21 empty cells round the hot spot read '?' ("the board's print does not
    show around it") before."""
    truth = next(t for t in (json.loads(line) for line in
                             (PHOTOS / "truth.jsonl").read_text(encoding="utf-8").splitlines())
                 if t["file"] == "frame-017.jpg")
    frame = cv2.imread(str(PHOTOS / "frame-017.jpg"), cv2.IMREAD_COLOR)
    x = np.clip(frame.astype(np.float32) / 255.0 * gain, 0.0, 1.0)
    bright = (255.0 * x ** gamma).astype(np.uint8)
    got = BoardReader().read(bright, truth["heights"]).snapshot
    want = truth["expected"]
    assert [(i, g, w) for i, (g, w) in enumerate(zip(got, want, strict=True))
            if w != "*" and g != w] == []
