"""Distances of measured top colours from the piece classes, and the gates that rule a class
out (white and black are neutral, red is red): shared by the colour model and the reads that
look for a top elsewhere (``vision.cues.taller``)."""

from __future__ import annotations

import numpy as np

from engine.geometry import NEIGHBOURS, NUM_CELLS

PIECES = ("w", "b", "r")


def piece_dists(f: np.ndarray, means: dict[str, np.ndarray], stds: dict[str, np.ndarray]
                 ) -> np.ndarray:
    """(49, 3) squared distances to the piece classes. Chroma is a ratio to brightness, so
    its noise grows on dark tops: the spread widens by 0.03 / brightness."""
    noise2 = (0.03 / np.exp(f[:, 0]))[:, None] ** 2
    out = np.empty((len(f), len(PIECES)))
    for j, k in enumerate(PIECES):
        s, m = np.asarray(stds[k]), np.asarray(means[k])
        q = ((f[:, 1:] - m[1:]) / np.sqrt(s[1:] ** 2 + noise2)) ** 2
        out[:, j] = ((f[:, 0] - m[0]) / s[0]) ** 2 + q[:, 0] + q[:, 1]
    return out


def dist(f: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    return np.asarray((((f - mean) / std) ** 2).sum(axis=-1))


def gate(d: np.ndarray, f: np.ndarray, black_tint: np.ndarray | None = None) -> None:
    """Rule out, in place, the classes a colour cannot be: white and black pieces are
    neutral (skin, wood, sleeves are not), black ones up to the tint this table's own black
    tops share (``black_tint``); red is red (not orange)."""
    # Chroma is relative to brightness: allow a dark top the same absolute tint as noise.
    lum = np.exp(f[:, 0])
    lim1, lim2 = np.maximum(0.25, 0.07 / lum), np.maximum(0.3, 0.08 / lum)
    neutral = (np.abs(f[:, 1]) <= lim1) & (np.abs(f[:, 2]) <= lim2)
    dark = neutral
    if black_tint is not None:  # (tint, tint, the brightest a tinted black top may be)
        dark = ((np.abs(f[:, 1] - black_tint[0]) <= lim1)
                & (np.abs(f[:, 2] - black_tint[1]) <= lim2) & (f[:, 0] < black_tint[2]))
    d[:, 0] = np.where(neutral, d[:, 0], np.inf)
    d[:, 1] = np.where(dark, d[:, 1], np.inf)
    d[:, 2] = np.where(red_hue(f), d[:, 2], np.inf)


def red_hue(f: np.ndarray) -> np.ndarray:
    """Red pieces are strongly red with green and blue alike (skin and wood lean orange)."""
    return np.asarray((f[..., 1] > 0.6) & (np.abs(f[..., 2]) < 0.3 * f[..., 1] + 0.12))


def dark_tops(f: np.ndarray, prior_b: np.ndarray, mid: float, rim: np.ndarray, bar: float,
              unknown: float, clear: np.ndarray) -> np.ndarray:
    """(49,) for expected tops that are a black piece whatever tint the frame's other black
    tops share, their distance from the game's black class (``prior_b``: not sharpened by
    the frame; 0 elsewhere). A black top is dark and nearly neutral; a glossy one mirrors the
    room and the lamp, so its tint and brightness differ from top to top (renderer seed 22
    frame 142 F3: R-G -0.29 where the frame's black tops are neutral; seed 1 frame 166 D3:
    twice as bright as the others). Only a top that shows its whole disc (an edge all round
    at four times the white ``bar``), darker than ``mid`` (between white and black), not
    red, nearly neutral, and ``clear`` (nothing foreign round it, not covered, not glare):
    a dark sleeve over a stack hides the disc's edge."""
    ok = (clear & (f[:, 0] < mid) & ~red_hue(f) & (np.abs(f[:, 1:]) <= 0.45).all(axis=1)
          & (rim >= 4.0 * bar) & (prior_b <= unknown))
    return np.asarray(np.where(ok, np.maximum(prior_b, 1e-6), 0.0))


def _neighbouring() -> np.ndarray:
    """(49, 49) True where the second cell is a neighbour of the first."""
    one = np.zeros((NUM_CELLS, NUM_CELLS), bool)
    for c in range(NUM_CELLS):
        one[c, list(NEIGHBOURS[c])] = True
    return one


#: (49, 49) True where the second cell is a neighbour of the first.
NEIGHBOURING = _neighbouring()


def _within_two() -> np.ndarray:
    """(49, 49) cells within two steps of each other (the cell itself left out)."""
    one = NEIGHBOURING
    two = one | ((one.astype(np.int32) @ one.astype(np.int32)) > 0)
    np.fill_diagonal(two, False)
    return two


#: (49, 49) cells within two steps of each other (the cell itself left out).
WITHIN_TWO = _within_two()


def local_empty_dist(rel: np.ndarray, examples: np.ndarray, spread: np.ndarray,
                     least: int = 3) -> np.ndarray:
    """(49,) distance of each cell's colour from the median of the empty cells round it
    (within two steps, at least ``least`` of them; inf elsewhere), with no light model
    between them: a shadow darkens a cell and its neighbours alike, and the board's light
    measured between the cells is wrong where a print runs through those points (a hexagon
    print puts its corners there: renderer seed 1 frames 68, 211). ``rel``: the cells'
    features less each cell's own offset (its print, its tint)."""
    sel = WITHIN_TWO & examples[None, :]
    n = sel.sum(axis=1)
    srt = np.sort(np.where(sel[:, :, None], rel[None, :, :], np.inf), axis=1)
    rows = np.arange(NUM_CELLS)
    med = 0.5 * (srt[rows, np.maximum((n - 1) // 2, 0)] + srt[rows, np.maximum(n // 2, 0)])
    ok = n >= least
    return np.where(ok, dist(rel, np.where(ok[:, None], med, 0.0), spread), np.inf)
