"""The frame's own piece classes: the colour priors sharpened by the tops a frame shows.

The priors (``vision.classify``) are wide on purpose; a frame with several tops of a colour
says where that colour lies on this table, under this lamp, right now.
"""

from __future__ import annotations

import numpy as np

from engine.geometry import NUM_CELLS
from vision.cues.colour_dist import PIECES, gate, piece_dists, red_hue
from vision.sampling import Measured
from vision.stats import median

#: Floors of the spreads a frame or the game may learn (noise, light, JPEG).
MIN_STD = {"w": (0.12, 0.045, 0.055), "b": (0.22, 0.09, 0.11), "r": (0.20, 0.18, 0.13)}
#: How many tops of the frame weigh as much as the prior.
PRIOR_WEIGHT = 8.0


def black_tint(means: dict[str, np.ndarray], m: Measured, occupied: np.ndarray
               ) -> np.ndarray | None:
    """The chroma this table's black tops share (a black plastic is rarely quite neutral,
    and its tint is a large ratio on a dark top), from the frame's dark occupied tops
    that show a disc edge: four at least, most of them alike; None when neutral. Returns
    (tint, tint, the brightest a tinted black top may be)."""
    mid = 0.5 * (means["w"][0] + means["b"][0])
    # Red tops are dark too (log brightness below the middle): they are not black.
    dark = occupied & (m.piece[:, 0] < mid) & ~red_hue(m.piece)
    if dark.sum() < 4:
        return None
    x = m.piece[dark, 1:]
    med = median(x, axis=0)
    alike = (np.abs(x - med) <= np.array([0.15, 0.15])).all(axis=1)
    if alike.mean() < 0.6 or np.abs(med).max() <= 0.2:
        return None
    return np.append(np.clip(med, -0.6, 0.6), mid)


def piece_models(prior_means: dict[str, np.ndarray], prior_stds: dict[str, np.ndarray],
                 unknown: float, m: Measured, occupied: np.ndarray,
                 tint: np.ndarray | None = None
                 ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Piece centres and spreads sharpened by this frame's occupied tops (``unknown``: a top
    farther than this from every class teaches nothing)."""
    means = {k: v.copy() for k, v in prior_means.items()}
    if tint is not None:
        means["b"][1:] = tint[:2]
    stds = {k: v.copy() for k, v in prior_stds.items()}
    if not occupied.any():
        return means, stds
    for _ in range(2):
        d = piece_dists(m.piece, means, stds)
        gate(d, m.piece, tint)
        lab = np.argmin(d, axis=1)
        best = d[np.arange(NUM_CELLS), lab]
        # Red (three pieces in a game) is not sharpened by one frame; white and black are.
        for j, k in enumerate(PIECES[:2]):
            sel = occupied & (lab == j) & (best < unknown)
            n = int(sel.sum())
            if n < 3:
                continue
            x = m.piece[sel]
            med = median(x, axis=0)
            mad = 1.4826 * median(np.abs(x - med), axis=0)
            w = PRIOR_WEIGHT
            prior = means[k] if k == "b" and tint is not None else prior_means[k]
            means[k] = (w * prior + n * med) / (w + n)
            # The frame may sharpen a class, never widen it beyond the prior.
            stds[k] = np.clip(1.5 * mad, np.array(MIN_STD[k]), prior_stds[k])
        # Black and white split where this frame's tops split (in log brightness): only
        # tops that fit a class count (one that fits none is labelled white by argmin: a
        # hand or a sleeve over three tops dragged white down by 0.6 and two white tops
        # beside it read '.', camera game 8 frame 1631).
        fit = occupied & (best < unknown)
        if all(int(((lab == j) & fit).sum()) >= 2 for j in (0, 1)):
            lw = float(median(m.piece[fit & (lab == 0), 0]))
            lb = float(median(m.piece[fit & (lab == 1), 0]))
            if lw - lb > 0.8:
                means["w"][0], means["b"][0] = max(lw, means["w"][0] - 0.3), lb
    return means, stds
