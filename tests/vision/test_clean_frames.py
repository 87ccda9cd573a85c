"""Frames without a hand must be read exactly, and a cell in view beside a hand too (issue
#9): one renderer frame per physical cue, each read wrong before its cue
(tests/vision/clean_scenes.py says what each shows)."""

from __future__ import annotations

import pytest

from engine.geometry import CELL_NAMES
from tests.vision import clean_scenes
from vision.reader import BoardReader
from vision.synthetic.render import heights_of, render


@pytest.mark.parametrize("name", ["GLOSSY_BLACK", "BRIGHT_BLACK", "BEHIND_A_STACK",
                                  "IVORY_HIGHLIGHTS", "HEX_CORNERS", "HAND_BESIDE"])
def test_frame_reads_exactly(name: str) -> None:
    scene = getattr(clean_scenes, name)
    frame, truth = render(scene)
    reading = BoardReader().read(frame, heights_of(scene.stacks))
    wrong = [f"{CELL_NAMES[c]}: read {g!r} want {w!r} ({reading.reasons[c]})"
             for c, (g, w) in enumerate(zip(reading.snapshot, truth.expected, strict=True))
             if w != "*" and g != w]
    assert not wrong, wrong
