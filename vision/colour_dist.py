"""Distances of measured top colours from the piece classes, and the gates that rule a class
out (white and black are neutral, red is red): shared by the colour model and the reads that
look for a top elsewhere (``vision.taller``)."""

from __future__ import annotations

import numpy as np

PIECES = ("w", "b", "r")


def piece_dists(f: np.ndarray, means: dict[str, np.ndarray], stds: dict[str, np.ndarray]
                 ) -> np.ndarray:
    """(49, 3) squared distances to the piece classes. Chroma is a ratio to brightness, so
    its noise grows on dark tops: the spread widens by 0.03 / brightness."""
    noise = (0.03 / np.exp(f[:, 0]))[:, None]
    out = []
    for k in PIECES:
        std = np.broadcast_to(stds[k], f.shape).copy()
        std[:, 1:] = np.sqrt(std[:, 1:] ** 2 + noise ** 2)
        out.append((((f - means[k]) / std) ** 2).sum(axis=1))
    return np.stack(out, axis=1)


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
