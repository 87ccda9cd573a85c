"""Colour model: a cell's sampled top face -> empty / white / black / red / unreadable.

Colours are compared after two normalisations measured in every frame: divide by the white
of the printed sheet around the markers (removes warm/cold casts and light gradients), and for
pieces also by the local shading of the board surface between the cells (removes shadows).
An empty cell must look like the board around it; a piece must fit its colour's model.
Anything else (skin, sleeves, glare, mixed regions) is '?': a wrong colour is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.errors import DvonnError
from engine.geometry import NEIGHBOURS, NUM_CELLS

PIECES = ("w", "b", "r")
#: Default piece models: mean and spread of (log brightness, (R-G)/L, (B-G)/L), white = 1.
DEFAULT_MEANS = {"w": (np.log(0.97), 0.0, 0.0), "b": (np.log(0.16), 0.0, 0.03),
                 "r": (np.log(0.37), 1.55, 0.03)}
DEFAULT_STDS = {"w": (0.10, 0.06, 0.06), "b": (0.30, 0.18, 0.18), "r": (0.22, 0.25, 0.15)}
EMPTY_STD = (0.07, 0.05, 0.05)
MIN_STD = {"w": (0.06, 0.03, 0.03), "b": (0.12, 0.08, 0.08), "r": (0.10, 0.12, 0.08)}
PRIOR_WEIGHT = 8.0


@dataclass
class Thresholds:
    """Decision limits (squared Mahalanobis distances, shares of samples)."""

    unknown: float = 16.0
    margin: float = 5.0
    saturated: float = 0.08
    hidden: float = 0.35
    spread_base: float = 0.03
    spread_gain: float = 0.04
    neighbour_conf: float = 0.9
    #: Reading '.' where a stack is expected needs this many margins of evidence.
    vanish_margin: float = 2.0


@dataclass
class CellSamples:
    """Raw BGR samples of the 49 top faces plus the references measured in the same frame."""

    cells: np.ndarray  # (49, K, 3) float32 raw
    valid: np.ndarray  # (49, K) bool: not hidden behind another stack
    white: np.ndarray  # (49, 3) sheet white interpolated at each cell
    board: np.ndarray  # (49, 3) raw board colour between the cells around each cell (nan: unknown)
    glare_near: np.ndarray | None = None  # (49,) bool: saturated board surface close by
    heights: np.ndarray | None = None  # (49,) what the controller believes, if known
    #: The board surface's white-normalised BGR (calibrated, remembered, or this frame's
    #: median when most of the board shows); None: unknown, so no cell can be called empty.
    board_ref: np.ndarray | None = None
    #: (49, K, 3) raw samples of each cell's base on the board and their validity: a stack
    #: the controller expects covers its base; a lifted one leaves it showing the empty cell.
    base: np.ndarray | None = None
    base_valid: np.ndarray | None = None


def features(bgr: np.ndarray) -> np.ndarray:
    """(..., 3) white-normalised BGR -> (..., 3) (log brightness, (R-G)/L, (B-G)/L)."""
    lum = bgr.mean(axis=-1) + 0.02
    return np.stack([np.log(lum), (bgr[..., 2] - bgr[..., 1]) / lum,
                     (bgr[..., 0] - bgr[..., 1]) / lum], axis=-1)


@dataclass
class Measured:
    """Per-cell measurements derived from CellSamples (all arrays over the 49 cells)."""

    piece: np.ndarray  # (49, 3) features after shadow normalisation
    empty: np.ndarray  # (49, 3) features minus the local board's features
    spread: np.ndarray  # (49,)
    saturated: np.ndarray  # (49,)
    hidden: np.ndarray  # (49,)
    brightness: np.ndarray  # (49,)
    board_features: np.ndarray  # (3,) the board as a whole


def measure(s: CellSamples) -> Measured:
    """Normalise the samples and reduce each cell to a few numbers."""
    white = np.maximum(s.white, 8.0)[:, None, :]
    norm = s.cells / white
    valid = s.valid.astype(np.float32)
    count = np.maximum(valid.sum(axis=1), 1.0)
    mean = (norm * valid[..., None]).sum(axis=1) / count[:, None]
    dev = np.abs(norm - mean[:, None, :]).mean(axis=-1)
    spread = (dev * valid).sum(axis=1) / count
    saturated = ((s.cells.max(axis=-1) >= 250) * valid).sum(axis=1) / count
    hidden = 1.0 - valid.mean(axis=1)
    board_n = s.board / np.maximum(s.white, 8.0)
    ok = np.all(np.isfinite(board_n), axis=1)
    if s.board_ref is not None:
        glob = np.asarray(s.board_ref, dtype=np.float64)
    else:
        glob = np.median(board_n[ok], axis=0) if ok.any() else np.full(3, 0.6)
    board_n = np.where(ok[:, None], board_n, glob[None, :])
    shade = np.clip(board_n.mean(axis=1) / max(float(glob.mean()), 1e-3), 0.3, 1.6)
    piece = features(mean / shade[:, None])
    # Empty: brightness as the board right around the cell, colour as the board as a whole.
    empty = features(mean) - features(board_n)
    empty[:, 1:] = features(mean)[:, 1:] - features(glob)[1:]
    return Measured(piece, empty, spread, saturated, hidden, mean.mean(axis=1), features(glob))


@dataclass
class ColourModel:
    """Gaussian models of the piece colours and the empty cells (offsets from the board)."""

    means: dict[str, np.ndarray] = field(
        default_factory=lambda: {k: np.array(v) for k, v in DEFAULT_MEANS.items()})
    stds: dict[str, np.ndarray] = field(
        default_factory=lambda: {k: np.array(v) for k, v in DEFAULT_STDS.items()})
    empty_offset: np.ndarray = field(default_factory=lambda: np.zeros((NUM_CELLS, 3)))
    empty_std: np.ndarray = field(default_factory=lambda: np.array(EMPTY_STD))
    board_ref: np.ndarray | None = None  # calibrated board colour (white-normalised BGR)
    thresholds: Thresholds = field(default_factory=Thresholds)
    _sums: dict[str, list[np.ndarray]] = field(default_factory=dict, repr=False)

    def distances(self, m: Measured) -> np.ndarray:
        """(49, 4) squared distances to '.', 'w', 'b', 'r'."""
        d = np.empty((NUM_CELLS, 4))
        d[:, 0] = (((m.empty - self.empty_offset) / self.empty_std) ** 2).sum(axis=1)
        for j, k in enumerate(PIECES, start=1):
            d[:, j] = (((m.piece - self.means[k]) / self.stds[k]) ** 2).sum(axis=1)
        return d

    def classify(self, s: CellSamples) -> tuple[str, list[float], list[str]]:
        """Labels (snapshot string), confidences 0..1 and a short reason per cell."""
        m = measure(s)
        d = self.distances(m)
        order = np.argsort(d, axis=1)
        best = d[np.arange(NUM_CELLS), order[:, 0]]
        second = d[np.arange(NUM_CELLS), order[:, 1]]
        th = self.thresholds
        conf = np.exp(-best / (2.0 * th.unknown)) * (1.0 - np.exp(-(second - best) / th.margin))
        labels = [".wbr"[i] for i in order[:, 0]]
        reasons = ["" for _ in range(NUM_CELLS)]
        unknown = np.zeros(NUM_CELLS, bool)
        spread_max = th.spread_base + th.spread_gain * m.brightness
        # A skin-coloured board is only trusted when calibrated (else a hand could pass).
        board_skin_like = self.board_ref is not None and _skin_like(m.board_features)
        for c in range(NUM_CELLS):
            why = ""
            if m.hidden[c] > th.hidden:
                why = "hidden by a stack"
            elif m.saturated[c] > th.saturated:
                why = "glare"
            elif s.glare_near is not None and s.glare_near[c] and conf[c] < th.neighbour_conf:
                why = "glare nearby"
            elif m.spread[c] > spread_max[c]:
                why = "mixed colours"
                unknown[c] = True
            elif best[c] > th.unknown:
                why = "unknown colour"
                unknown[c] = True
            elif _skin_like(m.piece[c]) and not (order[c, 0] == 0 and board_skin_like):
                why = "skin-like colour"
                unknown[c] = True
            elif order[c, 0] == 0 and s.board_ref is None:
                why = "board surface not seen"
            elif second[c] - best[c] < th.margin:
                why = "ambiguous"
            elif (order[c, 0] == 0 and s.heights is not None and s.heights[c] > 0
                  and second[c] - best[c] < th.vanish_margin * th.margin):
                why = "empty where a stack was expected: not sure"
            if why:
                labels[c], reasons[c], conf[c] = "?", why, 0.0
        for c in self._bare_bases(s):
            if labels[c] in PIECES:
                labels[c], reasons[c], conf[c] = "?", "base of the expected stack is bare", 0.0
        # Next to something unknown (a hand), only a confident reading stands.
        for c in range(NUM_CELLS):
            if labels[c] != "?" and conf[c] < th.neighbour_conf and any(
                    unknown[n] for n in NEIGHBOURS[c]):
                labels[c], reasons[c], conf[c] = "?", "next to an occlusion", 0.0
        return "".join(labels), [float(round(v, 4)) for v in conf], reasons

    def _bare_bases(self, s: CellSamples) -> list[int]:
        """Cells where a stack is expected but its base on the board clearly looks empty.

        A lifted stack moves the expected top's sample spot onto whatever lies behind it (the
        white sheet at the edge, a neighbour's top), which can look like a piece; its base
        cannot."""
        if s.base is None or s.base_valid is None or s.heights is None or s.board_ref is None:
            return []
        m = measure(replace(s, cells=s.base, valid=s.base_valid))
        d = self.distances(m)
        th = self.thresholds
        pieces = d[:, 1:].min(axis=1)
        spread_max = th.spread_base + th.spread_gain * m.brightness
        bare = ((s.heights > 0) & (m.hidden <= th.hidden) & (m.saturated <= th.saturated)
                & (m.spread <= spread_max) & (d[:, 0] <= th.unknown)
                & (pieces - d[:, 0] >= th.margin))
        return [int(c) for c in np.flatnonzero(bare)]

    def learn(self, samples: CellSamples, cell: int, colour: str) -> None:
        """Refine the model from a cell known to show ``colour`` ('.', 'w', 'b' or 'r')."""
        if colour not in (".",) + PIECES:
            raise DvonnError(f"cannot learn colour {colour!r}: expected one of '.', 'w', 'b', 'r'")
        m = measure(samples)
        if m.hidden[cell] > 0.2 or m.saturated[cell] > 0.02:
            return  # not a clean example
        if colour == ".":
            self.empty_offset[cell] = 0.8 * self.empty_offset[cell] + 0.2 * m.empty[cell]
            return
        x = m.piece[cell]
        acc = self._sums.setdefault(colour, [np.zeros(3), np.zeros(3), np.zeros(1)])
        acc[0] += x
        acc[1] += x * x
        acc[2] += 1.0
        n = float(acc[2][0])
        mu0, sd0 = np.array(DEFAULT_MEANS[colour]), np.array(DEFAULT_STDS[colour])
        mean = (PRIOR_WEIGHT * mu0 + acc[0]) / (PRIOR_WEIGHT + n)
        var = (PRIOR_WEIGHT * (sd0 ** 2 + mu0 ** 2) + acc[1]) / (PRIOR_WEIGHT + n) - mean ** 2
        self.means[colour] = mean
        # Spread: at least the floor, and 1.5x the observed spread (noise of few examples).
        self.stds[colour] = np.maximum(np.sqrt(np.maximum(var, 0.0)) * 1.5,
                                       np.array(MIN_STD[colour]))

    def calibrate_empty(self, views: list[CellSamples]) -> None:
        """Per-cell offsets of an empty cell from the board around it, from empty-board views."""
        if not views:
            raise DvonnError("calibration needs at least one view of the empty board")
        offsets = np.stack([measure(v).empty for v in views])
        self.empty_offset = np.median(offsets, axis=0)
        refs = [v.board_ref for v in views if v.board_ref is not None]
        if refs:
            self.board_ref = np.median(np.stack(refs), axis=0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "means": {k: [float(x) for x in v] for k, v in self.means.items()},
            "stds": {k: [float(x) for x in v] for k, v in self.stds.items()},
            "empty_offset": [[round(float(x), 5) for x in row] for row in self.empty_offset],
            "empty_std": [float(x) for x in self.empty_std],
            "board_ref": None if self.board_ref is None else [float(x) for x in self.board_ref],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "colour_model") -> ColourModel:
        """Inverse of to_dict; a malformed entry raises DvonnError naming it."""
        model = cls()
        for key in ("means", "stds"):
            if not isinstance(data.get(key, {}), dict):
                raise DvonnError(f"{where}.{key} must be a table of 'w', 'b', 'r', "
                                 f"got {data.get(key)!r}")
        try:
            for k in PIECES:
                if k in data.get("means", {}):
                    model.means[k] = _vec(data["means"][k], f"{where}.means.{k}")
                if k in data.get("stds", {}):
                    model.stds[k] = _vec(data["stds"][k], f"{where}.stds.{k}", positive=True)
            if "empty_offset" in data:
                arr = np.array(data["empty_offset"], dtype=np.float64)
                if arr.shape != (NUM_CELLS, 3) or not np.all(np.isfinite(arr)):
                    raise DvonnError(f"{where}.empty_offset must be 49 rows of 3 numbers")
                model.empty_offset = arr
            if data.get("board_ref") is not None:
                model.board_ref = _vec(data["board_ref"], f"{where}.board_ref", positive=True)
            if "empty_std" in data:
                model.empty_std = _vec(data["empty_std"], f"{where}.empty_std", positive=True)
        except (TypeError, ValueError, AttributeError) as exc:
            raise DvonnError(f"{where}: malformed colour model ({exc})") from None
        return model


def _skin_like(feat: np.ndarray) -> bool:
    """Warm, not red, not neutral: no DVONN piece looks like this, a hand does."""
    return bool(0.15 < feat[1] < 1.0 and feat[2] < -0.06)


def _vec(value: Any, where: str, positive: bool = False) -> np.ndarray:
    arr = np.array(value, dtype=np.float64)
    if arr.shape != (3,) or not np.all(np.isfinite(arr)) or (positive and np.any(arr <= 0)):
        raise DvonnError(f"{where} must be 3 {'positive ' if positive else ''}numbers, "
                         f"got {value!r}")
    return arr
