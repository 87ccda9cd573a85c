"""The calibration file (JSON): optional camera matrix and distortion, the colour model and
geometry overrides. Written by ``dvonn-board vision calibrate`` from views of the empty board
(:func:`vision.reader.calibrate_empty`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import DvonnError
from engine.geometry import NUM_CELLS
from vision.classify import ColourModel
from vision.cues.colour_dist import PIECES
from vision.geometry import BoardGeometry

FORMAT = "dvonn-board-camera-calibration"
VERSION = 1


class CalibrationError(DvonnError, ValueError):
    """A calibration file that cannot be read or used; the message names the file and key."""


@dataclass
class Calibration:
    """What the reader may know beyond the defaults."""

    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    model: ColourModel = field(default_factory=ColourModel)
    camera_matrix: np.ndarray | None = None
    dist_coeffs: np.ndarray | None = None
    geometry_overrides: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.geometry_overrides and self.geometry == BoardGeometry():
            self.geometry = BoardGeometry.from_config(self.geometry_overrides)
        elif not self.geometry_overrides and self.geometry != BoardGeometry():
            self.geometry_overrides = self.geometry.to_config()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"format": FORMAT, "version": VERSION,
                                "camera": dict(self.geometry_overrides),
                                "colour_model": model_to_dict(self.model)}
        if self.camera_matrix is not None:
            data["camera_matrix"] = self.camera_matrix.tolist()
        if self.dist_coeffs is not None:
            data["dist_coeffs"] = np.asarray(self.dist_coeffs).reshape(-1).tolist()
        return data

    def save(self, path: str | Path) -> None:
        """Write as JSON (atomically: a temporary file, then rename)."""
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        try:
            tmp.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
            tmp.replace(p)
        except OSError as exc:
            raise CalibrationError(f"cannot write calibration file {str(p)!r}: {exc}") from None

    @classmethod
    def from_dict(cls, data: Any, where: str = "calibration") -> Calibration:
        if not isinstance(data, dict):
            raise CalibrationError(f"{where}: expected a JSON object")
        if data.get("format") != FORMAT:
            raise CalibrationError(f"{where}: key 'format' must be {FORMAT!r}, "
                                   f"got {data.get('format')!r}")
        if data.get("version") != VERSION:
            raise CalibrationError(f"{where}: unsupported version {data.get('version')!r}")
        overrides = data.get("camera", {}) or {}
        geometry = BoardGeometry.from_config(overrides)
        try:
            model = model_from_dict(data.get("colour_model", {}) or {},
                                    f"{where}: colour_model")
        except DvonnError as exc:
            raise CalibrationError(str(exc)) from None
        matrix = dist = None
        if data.get("camera_matrix") is not None:
            matrix = _array(data["camera_matrix"], (3, 3), f"{where}: camera_matrix")
            if matrix[0, 0] <= 0 or matrix[1, 1] <= 0:
                raise CalibrationError(f"{where}: camera_matrix focal lengths must be positive")
        if data.get("dist_coeffs") is not None:
            dist = _array(data["dist_coeffs"], None, f"{where}: dist_coeffs")
            if dist.size not in (4, 5, 8, 12, 14):
                raise CalibrationError(f"{where}: dist_coeffs must have 4, 5, 8, 12 or 14 "
                                       f"values, got {dist.size}")
            if matrix is None:
                raise CalibrationError(f"{where}: dist_coeffs need a camera_matrix")
        return cls(geometry, model, matrix, dist, dict(overrides))

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise CalibrationError(f"cannot read calibration file {str(p)!r}: "
                                   f"{exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"calibration file {str(p)!r}: not JSON at line {exc.lineno} "
                                   f"column {exc.colno}: {exc.msg}") from None
        return cls.from_dict(data, f"calibration file {str(p)!r}")


def _array(value: Any, shape: tuple[int, ...] | None, where: str) -> np.ndarray:
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError(f"{where}: must be numbers, got {value!r}") from None
    if shape is not None and arr.shape != shape:
        raise CalibrationError(f"{where}: must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise CalibrationError(f"{where}: must be finite numbers")
    return arr.reshape(shape) if shape is not None else arr.reshape(-1)


# -- the colour model's table ---------------------------------------------------------

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


def model_from_dict(data: dict[str, Any], where: str = "colour_model") -> ColourModel:
    """The default model with the entries of ``data`` (inverse of :func:`model_to_dict`); a
    malformed entry raises DvonnError naming it."""
    model = ColourModel()
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
