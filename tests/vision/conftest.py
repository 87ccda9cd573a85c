"""Shared fixtures for the vision tests: small rendered frames, cached per session."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vision.geometry import BoardGeometry
from vision.synthetic.render import Scene, Truth, random_position, random_scene, render

SIZE = (800, 600)


@pytest.fixture(scope="session")
def geometry() -> BoardGeometry:
    return BoardGeometry()


@pytest.fixture(scope="session")
def rendered() -> Callable[..., tuple[np.ndarray, Truth, Scene]]:
    """``rendered(seed, hands=0, **scene_overrides)`` -> (frame, truth, scene), cached."""
    cache: dict[tuple[object, ...], tuple[np.ndarray, Truth, Scene]] = {}

    def make(seed: int, hands: int = 0, glare: bool = False, shadow: bool = False,
             moves: int | None = None, **overrides: object
             ) -> tuple[np.ndarray, Truth, Scene]:
        key = (seed, hands, glare, shadow, moves, repr(sorted(overrides.items())))
        if key not in cache:
            rng = np.random.default_rng(seed)
            stacks = random_position(rng, moves)
            scene = random_scene(rng, stacks, hands=hands, size=SIZE, glare=glare,
                                 shadow=shadow)
            for k, v in overrides.items():
                setattr(scene, k, v)
            frame, truth = render(scene)
            cache[key] = (frame, truth, scene)
        return cache[key]

    return make
