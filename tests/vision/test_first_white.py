"""The first white piece of a game on a pale board, in a room (benchmarks/camera_games.py
--room, game 107: the table's LED holes, one LED lit, the camera's own exposure): no white
top has been seen yet, so the white class is the wide prior, and the new top fits it at 7
where 4 is asked. The board round the cell changed all round and a whole disc edge shows:
it reads white, and nothing else reads a piece (the game stalled at its fifth placement)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.geometry import CELL_NAMES, NUM_CELLS
from vision.reader import BoardReader
from vision.synthetic.render import random_scene, render
from vision.synthetic.room import Develop

SIZE = (960, 720)
SEED = 107
#: The stacks before the first white piece (three red, one black), and where it goes.
BEFORE = {CELL_NAMES.index(n): p for n, p in (("C2", "b"), ("I2", "r"), ("D4", "r"),
                                             ("F4", "r"))}
CELL = CELL_NAMES.index("I3")


def test_the_first_white_piece_on_a_pale_board_in_a_room_reads_white() -> None:
    scene = random_scene(np.random.default_rng(SEED), [""] * NUM_CELLS, hands=0, size=SIZE,
                         wide=True)
    scene.led_holes = True
    brightness = float(np.random.default_rng([SEED, 5]).uniform(0.3, 0.5))
    last = {CELL_NAMES.index("C2"): tuple(int(round(v * brightness)) for v in (255, 150, 0))}
    frames = [render(replace(scene, stacks=[placed.get(c, "") for c in range(NUM_CELLS)],
                             leds=leds))
              for placed, leds in (({}, {}), (BEFORE, last), ({**BEFORE, CELL: "w"}, last))]
    develop = Develop(SEED, SIZE, room=True, auto=True)
    noise = np.random.default_rng(1).normal(0.0, 1.5, (SIZE[1], SIZE[0], 3)).astype(np.float32)
    reader = BoardReader()
    heights = [1 if c in BEFORE else 0 for c in range(NUM_CELLS)]
    got: list[str] = []
    for i, (image, truth) in enumerate(frames):
        for k in range(20 if i < 2 else 4):
            t = 0.1 * (20 * i + k + 1)
            read = reader.read(develop(image, t, noise), heights if i else [0] * NUM_CELLS)
            snap = read.snapshot
            assert all(g == w or (w == "." and g == "?")
                       for c, (g, w) in enumerate(zip(snap, truth.expected, strict=True))
                       if c != CELL), (i, snap, truth.expected)
            if i == 2:
                got.append(snap[CELL])
    assert got == ["w"] * 4, got
