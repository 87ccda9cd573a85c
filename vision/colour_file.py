"""A colour model as plain data and back (the ``colour_model`` table of a calibration file)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from engine.errors import DvonnError
from engine.geometry import NUM_CELLS
from vision.colour_dist import PIECES

if TYPE_CHECKING:
    from vision.classify import ColourModel


def model_to_dict(model: ColourModel) -> dict[str, Any]:
    """The model as plain data (a calibration file's ``colour_model`` table)."""
    return {
        "means": {k: [float(x) for x in v] for k, v in model.means.items()},
        "stds": {k: [float(x) for x in v] for k, v in model.stds.items()},
        "empty_offset": [[round(float(x), 5) for x in row] for row in model.empty_offset],
        "empty_std": [float(x) for x in model.empty_std],
        "fill_offset": (None if model.fill_offset is None
                        else [float(x) for x in model.fill_offset]),
        "board": None if model.board is None else [float(x) for x in model.board],
    }


def fill_from_dict(model: ColourModel, data: dict[str, Any], where: str = "colour_model"
                   ) -> ColourModel:
    """``model`` with the entries of ``data`` (inverse of :func:`model_to_dict`); a
    malformed entry raises DvonnError naming it."""
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
        if data.get("board") is not None:
            model.board = _vec(data["board"], f"{where}.board")
        if data.get("fill_offset") is not None:
            model.fill_offset = _vec(data["fill_offset"], f"{where}.fill_offset")
        if "empty_std" in data:
            model.empty_std = _vec(data["empty_std"], f"{where}.empty_std", positive=True)
    except (TypeError, ValueError, AttributeError) as exc:
        raise DvonnError(f"{where}: malformed colour model ({exc})") from None
    return model


def _vec(value: Any, where: str, positive: bool = False) -> np.ndarray:
    arr = np.array(value, dtype=np.float64)
    if arr.shape != (3,) or not np.all(np.isfinite(arr)) or (positive and np.any(arr <= 0)):
        raise DvonnError(f"{where} must be 3 {'positive ' if positive else ''}numbers, "
                         f"got {value!r}")
    return arr
