"""Where the position says empty and where it says a stack stands, the two readings that
decide a placement or a lift the controller has not committed yet: a new piece's top judged
where it stands (one piece up), and an outline told from the board's print."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.geometry import NUM_CELLS
from vision.cues.colour_dist import PIECES, gate, piece_dists
from vision.sampling import Board, CellSamples, Measured, Thresholds, measure, print_match
from vision.stats import median


def outline_bare(profile: np.ndarray | None, c: int, known: np.ndarray, empties: np.ndarray,
             kept: np.ndarray | None) -> bool:
    """Whether cell ``c``'s outline is the board's print (thin, flat) like this frame's
    other empty cells' (or, with too few, the empty outline kept from an earlier frame)
    rather than a disc's edge, side wall and shadow like the frame's other known single
    pieces of its colour: six times nearer (a lifted stack's cell on cream paper: 8x; a
    glossy white top on seed 2 frame 166: 3.5x; a phantom lift stalls the game)."""
    if profile is None:
        return False
    known = known.copy()
    known[c] = False
    others = empties.copy()
    others[c] = False
    if known.sum() < 2:
        return False
    if others.sum() >= 5:
        ref = median(profile[others], axis=0)
    elif kept is not None:
        ref = kept
    else:
        return False
    d_piece = float(np.mean((profile[c] - median(profile[known], axis=0)) ** 2))
    d_empty = float(np.mean((profile[c] - ref) ** 2))
    return d_piece >= max(6.0 * d_empty, 0.015)


def print_absent(s: CellSamples, examples: np.ndarray, kept: np.ndarray | None,
                 kept_strength: float, th: Thresholds
                 ) -> tuple[np.ndarray, tuple[np.ndarray | None, float], tuple[object, ...] | None]:
    """Cells where the board's own print (learned from this frame's ``examples`` of empty
    cells, or ``kept`` from earlier frames with its strength) does not show: something lies
    over the board there. Also the print to keep, and (score, template, strength) for
    diagnostics (None without print profiles)."""
    none = np.zeros(NUM_CELLS, bool)
    if s.ring is None or s.ring_valid is None:
        return none, (kept, kept_strength), None
    own = int((examples & (s.ring_valid.sum(axis=1) >= s.ring_valid.shape[1] // 2)).sum())
    score, template, strength = print_match(s.ring, s.ring_valid, examples, kept)
    if own >= 4 and template is not None:
        if own >= 6:  # keep a well-seen print for frames with few empty cells
            kept, kept_strength = template, strength
    else:
        strength = kept_strength
    shown = (score, template, strength)
    if strength < 0.4 * th.print_strength:
        return none, (kept, kept_strength), shown
    # A weaker print scores noisier: below full strength the bar drops (to -0.8 at 0.4).
    bar = th.print_absent - 0.5 * max(0.0, th.print_strength - strength) / (
        0.6 * th.print_strength)
    return np.asarray(np.isfinite(score) & (score < bar)), (kept, kept_strength), shown


#: A new top and a piece class on opposite sides of the empty board's brightness, each at
#: least this far from it (log brightness), rule that class out for the new top.
OTHER_SIDE = 0.25


def new_tops(s: CellSamples, m: Measured, board: Board, occupied: np.ndarray,
         means: dict[str, np.ndarray], stds: dict[str, np.ndarray],
         tint: np.ndarray | None, dp: np.ndarray, nll: np.ndarray, th: Thresholds,
         empty_c: np.ndarray | None = None) -> tuple[Measured, np.ndarray, np.ndarray]:
    """The piece hypothesis where the position says empty, judged where a new piece's
    top would be (one piece up: at a tilt it stands off the cell's centre by the parallax
    of its height, and the centre's samples mix its top with its side wall): the
    features, piece distances and likelihoods, those of ``m`` elsewhere.

    With ``empty_c`` (each cell's empty-board features in this frame), a white or black
    class whose centre lies on the other side of the empty board's brightness from the new
    top, both clearly, is ruled out there: a top darker than the felt round it is no white
    piece where white tops are brighter than the felt, however wide the white class the game
    has taught (camera game 8, C5: a black top 0.4 darker than grey felt fitted black at
    0.35, but the wider black class paid more for its width than white for a distance of
    7.9 and the new piece read '?' for seconds)."""
    if s.new_top is None or s.new_top_valid is None or s.heights is None:
        return m, dp, nll
    ok = s.new_top_valid
    fresh = ~occupied & (ok.mean(axis=1) >= 1.0 - th.hidden)
    if not fresh.any():
        return m, dp, nll
    mn = measure(np.where(ok[..., None], s.new_top, 0.0), ok, s.white, board.shade)
    dn = piece_dists(mn.piece, means, stds)
    gate(dn, mn.piece, tint)
    if empty_c is not None:
        # The empty board with the light at each cell taken out, as the pieces' features.
        bare = empty_c[:, 0] - board.shade
        top = mn.piece[:, 0] - bare
        for j, k in enumerate(PIECES[:2]):
            centre = float(means[k][0]) - bare
            across = (top * centre < 0) & (np.abs(top) >= OTHER_SIDE) & (
                np.abs(centre) >= OTHER_SIDE)
            dn[:, j] = np.where(across, np.inf, dn[:, j])
    width = np.array([2.0 * float(np.log(stds[k]).sum()) for k in PIECES])[None, :]
    pm = replace(m, piece=np.where(fresh[:, None], mn.piece, m.piece),
                 spread=np.where(fresh, mn.spread, m.spread),
                 saturated=np.where(fresh, mn.saturated, m.saturated))
    pdp = np.where(fresh[:, None], dn, dp)
    return pm, pdp, np.where(fresh[:, None], dn + width, nll)
