"""Rendered stacks stand where ``Scene.offsets`` says: an untouched stack looks the same in
every frame of a game, whatever else changes (vision.synthetic.render)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.geometry import BoardGeometry
from vision.synthetic.render import Scene, render


def _scene(stacks: list[str], offsets: list[tuple[float, float]], seed: int) -> Scene:
    return Scene(stacks=stacks, size=(640, 480), tilt_deg=10.0, noise=0.0, blur=0.0,
                 jitter=2.0, seed=seed, offsets=offsets)


def _box(cell: int, scene: Scene) -> tuple[slice, slice]:
    from vision.synthetic.render import camera_pose, project_points

    g = BoardGeometry()
    k, rot, t = camera_pose(scene, g)
    u, v = project_points(k, rot, t, np.c_[g.cell_centres_mm()[cell:cell + 1], [[0.0]]])[0]
    return slice(int(v) - 12, int(v) + 12), slice(int(u) - 12, int(u) + 12)


def test_untouched_stacks_do_not_move_between_renders() -> None:
    stacks = [""] * 49
    stacks[24], stacks[10] = "wbw", "b"
    offsets = [(0.0, 0.0)] * 49
    offsets[24] = (1.5, -2.0)
    a, _ = render(_scene(stacks, offsets, seed=1))
    moved = list(stacks)
    moved[10] = ""  # another stack taken away, another render seed
    b, _ = render(_scene(moved, offsets, seed=2))
    rows, cols = _box(24, _scene(stacks, offsets, 1))
    assert np.array_equal(a[rows, cols], b[rows, cols])
    # the same stack set down again elsewhere looks different
    again = list(offsets)
    again[24] = (-1.0, 2.0)
    c, _ = render(_scene(moved, again, seed=2))
    assert np.abs(c[rows, cols].astype(int) - b[rows, cols].astype(int)).max() > 40


def test_without_offsets_stacks_jitter_with_each_seed() -> None:
    stacks = [""] * 49
    stacks[24] = "wbw"
    scene = replace(_scene(stacks, [(0.0, 0.0)] * 49, 1), offsets=None)
    a, _ = render(scene)
    b, _ = render(replace(scene, seed=2))
    rows, cols = _box(24, scene)
    assert not np.array_equal(a[rows, cols], b[rows, cols])
