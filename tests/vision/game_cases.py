"""A cell of a whole camera game read again from a frame rendered anew: the game's table
(a ``Scene``), the true stacks and the heights the controller had then (a JSON file in
``tests/vision/data``), read by a reader that saw the empty board first, as in play."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.reader import BoardReader
from vision.synthetic.render import Scene, render

DATA = Path(__file__).parent / "data"


def load_case(name: str) -> dict[str, Any]:
    """``{"stacks": [...], "heights": [...]}`` of ``data/<name>``."""
    return dict(json.loads((DATA / name).read_text()))


def reader_after_empty(scene: Scene) -> BoardReader:
    """A reader that has read the scene's table empty (a game begins on the empty board)."""
    r = BoardReader()
    r.read(render(replace(scene, stacks=[""] * 49))[0], [0] * 49)
    return r


def read_again(reader: BoardReader, scene: Scene, case: dict[str, Any], cell: int,
               frame: int) -> str:
    """The snapshot of frame ``frame`` (another noise seed) of the case, read with its
    heights; every cell but ``cell`` must read as the truth says (checked here)."""
    image, truth = render(replace(scene, stacks=case["stacks"], seed=scene.seed + frame))
    got = reader.read(image, case["heights"]).snapshot
    assert all(g == w for c, (g, w) in enumerate(zip(got, truth.expected, strict=True))
               if w != "*" and c != cell), got
    return got
