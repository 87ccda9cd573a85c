"""A lamp's spot on the board (vision.sampling.measure_board): the board between the cells
clipped white in every channel is no hand over it. Room game 149: a spot on A3 and B4 from
the first frame read as something foreign there in every frame, so no frame was ever still,
no cell's own look was kept, and white pieces on pale laminate read '.'."""

from __future__ import annotations

import numpy as np

from engine.geometry import parse_cell
from vision.cues.spot import Spots
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


def test_a_spot_that_shrinks_far_below_its_least_says_something_lies_there() -> None:
    """Room game 138: D5 under a spot clipped 0.84-0.95 of its samples while empty, 0.32-0.42
    with Black's piece on it (which read as the board); E5 beside it, empty, 0.47-0.84 as
    the light drifted."""
    spots = Spots()
    d5, e5 = parse_cell("D5"), parse_cell("E5")
    for d, e in ((0.89, 0.68), (0.84, 0.63), (0.95, 0.74), (0.89, 0.79)):
        sat = np.zeros(49)
        sat[d5], sat[e5] = d, e
        spots.remember(sat, np.ones(49, bool), Thresholds().saturated)
    sat = np.zeros(49)
    sat[d5], sat[e5] = 0.37, 0.47
    assert np.flatnonzero(spots.hidden(sat)).tolist() == [d5]
    sat[d5] = 0.84
    assert not spots.hidden(sat).any()
    none = Spots()  # no spot ever: nothing to hide
    assert not none.hidden(np.zeros(49)).any()


def test_a_top_that_clips_beside_a_spot_where_the_empty_board_did_not_is_something() -> None:
    """Room game 138: D4, in the halo of the spot on D5, never clipped while empty; White's
    piece there clipped 0.16 of its samples and read as the board. Away from any spot a top
    that clips is left to the colours (a glossy white under the lamp)."""
    spots = Spots()
    d4, d5, a1 = parse_cell("D4"), parse_cell("D5"), parse_cell("A1")
    sat = np.zeros(49)
    sat[d5] = 0.89
    spots.remember(sat, np.ones(49, bool), Thresholds().saturated)
    sat[d4] = sat[a1] = 0.16
    assert np.flatnonzero(spots.hidden(sat)).tolist() == [d4]
    spots.remember(sat, np.ones(49, bool), Thresholds().saturated)  # not committed yet
    assert np.flatnonzero(spots.hidden(sat)).tolist() == [d4]
