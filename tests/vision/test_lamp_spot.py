"""A lamp's spot on the board (vision.sampling.measure_board): the board between the cells
clipped white in every channel is no hand over it. Room game 149: a spot on A3 and B4 from
the first frame read as something foreign there in every frame, so no frame was ever still,
no cell's own look was kept, and white pieces on pale laminate read '.'."""

from __future__ import annotations

import numpy as np

from vision.sampling import CellSamples, Thresholds, measure_board

BOARD = (150.0, 200.0, 215.0)  # BGR: a cream board


def _samples(spot: dict[int, tuple[float, float, float]]) -> CellSamples:
    """Six points round each cell, the board's colour but where ``spot`` says (point: BGR)."""
    n = 49 * 6
    inter = np.tile(np.array(BOARD), (n, 1))
    for i, bgr in spot.items():
        inter[i] = bgr
    return CellSamples(cells=np.zeros((49, 4, 3), np.float32), valid=np.ones((49, 4), bool),
                       white=np.full((49, 3), 240.0), inter=inter,
                       inter_white=np.full((n, 3), 240.0),
                       inter_of=[list(range(6 * c, 6 * c + 6)) for c in range(49)])


def test_a_lamps_clipped_spot_between_the_cells_is_nothing_over_the_board() -> None:
    clipped = {6 * 19 + k: (255.0, 255.0, 254.0) for k in range(3)}
    board = measure_board(_samples(clipped), Thresholds())
    assert not board.disturbed.any()


def test_a_hand_or_a_sleeve_between_the_cells_is_something_over_the_board() -> None:
    for colour in ((90.0, 120.0, 190.0), (40.0, 40.0, 45.0), (235.0, 235.0, 230.0)):
        hand = {6 * 19 + k: colour for k in range(3)}
        board = measure_board(_samples(hand), Thresholds())
        assert board.disturbed[19] == 0.5, colour
