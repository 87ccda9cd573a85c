"""A lamp's spot on the empty board (vision.cues.spot): a piece put under it hides part of it,
while the board round it clips as before. Figures from room games 138 (grey card, a spot on
D5 and E5 from the first frame) and 122 (bright paper whose cells clip now and then)."""

from __future__ import annotations

import numpy as np

from engine.geometry import parse_cell
from vision.cues.spot import Spots, ring_clipped
from vision.sampling import Thresholds

D4, D5, E5, K5, A1 = (parse_cell(c) for c in ("D4", "D5", "E5", "K5", "A1"))


def _frame(own: dict[int, float], ring: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
    sat, rim = np.zeros(49), np.zeros(49)
    for c, v in own.items():
        sat[c] = v
    for c, v in ring.items():
        rim[c] = v
    return sat, rim


def _spot_138() -> Spots:
    """D5 and E5 under the spot, empty, in four still frames; D4 in its halo."""
    spots = Spots()
    for d, e in ((0.84, 0.79), (0.95, 0.84), (1.00, 0.89), (0.89, 0.84)):
        sat, rim = _frame({D5: d, E5: e}, {D5: 0.40, E5: 0.40, D4: 0.17})
        spots.remember(sat, rim, np.ones(49, bool), Thresholds())
    return spots


def test_a_piece_under_a_spot_hides_it_the_board_round_it_clipping_as_before() -> None:
    """Black's piece on D5 showed a washed grey top that fitted the card: 0.26 of its samples
    clipped (0.79 at the least while empty), the board round it 0.40 as before."""
    spots = _spot_138()
    sat, rim = _frame({D5: 0.26, E5: 0.89}, {D5: 0.40, E5: 0.40, D4: 0.17})
    assert np.flatnonzero(spots.hidden(sat, rim)).tolist() == [D5]
    sat[D5] = 0.84  # empty again
    assert not spots.hidden(sat, rim).any()


def test_the_exposure_moves_a_spot_and_the_board_round_it_together() -> None:
    """An arm over the picture darkens the whole frame: the spot shrinks on D5 and between the
    cells alike, and nothing was put there."""
    spots = _spot_138()
    sat, rim = _frame({D5: 0.26, E5: 0.30}, {D5: 0.05, E5: 0.05, D4: 0.0})
    assert not spots.hidden(sat, rim).any()


def test_a_bright_paper_that_clips_on_the_cells_alone_is_no_spot() -> None:
    """Room game 122: K5, empty, clipped 0.84 to 1.00 in still frames and 0.32 under a hand's
    shade; the board between the cells never clipped. Every empty cell read '?' in such
    frames with a spot cue that looked at the cell alone."""
    spots = Spots()
    for v in (0.84, 1.00, 0.95):
        sat, rim = _frame({K5: v}, {})
        spots.remember(sat, rim, np.ones(49, bool), Thresholds())
    sat, rim = _frame({K5: 0.32}, {})
    assert not spots.hidden(sat, rim).any()


def test_a_top_that_clips_in_a_spots_halo_where_the_empty_board_did_not_is_something() -> None:
    """Room game 138: D4, beside the spot (0.17 of the board round it clipped), never clipped
    while empty; White's piece there clipped 0.16 of its samples and read as the board. Away
    from any spot a top that clips is left to the colours (a glossy white under the lamp),
    and so is one in the halo when the whole frame brightened."""
    spots = _spot_138()
    sat, rim = _frame({D5: 0.89, E5: 0.84, D4: 0.16, A1: 0.16}, {D5: 0.40, E5: 0.40, D4: 0.17})
    assert np.flatnonzero(spots.hidden(sat, rim)).tolist() == [D4]
    spots.remember(sat, rim, np.ones(49, bool), Thresholds())  # (not committed yet)
    assert np.flatnonzero(spots.hidden(sat, rim)).tolist() == [D4]
    rim[D4] = 0.35
    assert not spots.hidden(sat, rim)[D4]


def test_no_spot_ever_hides_nothing() -> None:
    assert not Spots().hidden(np.zeros(49), np.zeros(49)).any()


def test_the_board_round_a_cell_clips_by_its_share_of_samples() -> None:
    inter = np.full((49 * 6, 3), 180.0)
    inter[6 * D5:6 * D5 + 3] = (255.0, 254.0, 252.0)
    inter[6 * D5 + 3] = (255.0, 120.0, 90.0)  # one channel clipped under a warm cast: not
    of = [list(range(6 * c, 6 * c + 6)) for c in range(49)]
    of[D5][5] = -1  # not counted
    share = ring_clipped(inter, of)
    assert share[D5] == 3 / 5
    assert share.sum() == share[D5]
    assert not ring_clipped(np.zeros((0, 3)), []).any()
