"""The board/camera geometry contract of ARCHITECTURE.md, overridable from a config mapping.

Board coordinates are millimetres with the origin at the centre of F3, x toward K3, y toward
row 5 and z up out of the board (right-handed), so a stack's top face sits at
z = height * thickness.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.errors import ConfigError
from engine.geometry import NUM_CELLS, board_xy

DEFAULT_MARKERS: dict[int, tuple[float, float]] = {
    0: (-6.2, -2.8),
    1: (6.2, -2.8),
    2: (6.2, 2.8),
    3: (-6.2, 2.8),
}
#: Where the table's LED for a space glows through the board (the build guide's holes): this far
#: from the space's centre toward row 1 (-y).
LED_HOLE_MM = 19.0
DICTIONARIES = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_6X6_50")


@dataclass(frozen=True)
class BoardGeometry:
    """Pitch in mm; marker side, marker centres, disc sizes in pitches (as the contract)."""

    pitch_mm: float = 40.0
    marker_side: float = 0.8
    markers: dict[int, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_MARKERS))
    dictionary: str = "DICT_4X4_50"
    disc_diameter: float = 0.7
    disc_thickness: float = 0.15

    @property
    def disc_radius_mm(self) -> float:
        return 0.5 * self.disc_diameter * self.pitch_mm

    @property
    def thickness_mm(self) -> float:
        return self.disc_thickness * self.pitch_mm

    @property
    def marker_side_mm(self) -> float:
        return self.marker_side * self.pitch_mm

    def marker_centre_mm(self, marker_id: int) -> tuple[float, float]:
        x, y = self.markers[marker_id]
        return (x * self.pitch_mm, y * self.pitch_mm)

    def marker_corners_mm(self, marker_id: int) -> np.ndarray:
        """The 4 corners (x, y, 0) in ArUco order: top-left, top-right, bottom-right, bottom-left.

        Markers are printed upright with their top edge toward row 5 (+y).
        """
        cx, cy = self.marker_centre_mm(marker_id)
        h = 0.5 * self.marker_side_mm
        return np.array(
            [[cx - h, cy + h, 0.0], [cx + h, cy + h, 0.0], [cx + h, cy - h, 0.0],
             [cx - h, cy - h, 0.0]],
            dtype=np.float64,
        )

    def cell_centres_mm(self) -> np.ndarray:
        """(49, 2) centres of the cells in canonical order."""
        return np.array([board_xy(c, self.pitch_mm) for c in range(NUM_CELLS)], dtype=np.float64)

    def led_holes_mm(self) -> np.ndarray:
        """(49, 2) board mm of the LED holes, one a space (``LED_HOLE_MM`` toward row 1)."""
        return np.asarray(self.cell_centres_mm() + np.array([0.0, -LED_HOLE_MM]))

    def sheet_extent_mm(self) -> tuple[float, float]:
        """Half-width and half-height of the printed sheet: markers plus a quiet zone."""
        h = 0.5 * self.marker_side_mm
        quiet = 2.0 * self.marker_side_mm / 6.0
        xs = [abs(x) * self.pitch_mm for x, _ in self.markers.values()]
        ys = [abs(y) * self.pitch_mm for _, y in self.markers.values()]
        return (max(xs) + h + quiet, max(ys) + h + quiet)

    def board_outline_mm(self, margin: float = 0.62) -> np.ndarray:
        """The board's outline (convex hull of the cells grown by ``margin`` pitches)."""
        pts = []
        r = margin * self.pitch_mm
        for x, y in self.cell_centres_mm():
            for k in range(12):
                a = math.pi * k / 6.0 + math.pi / 12.0
                pts.append((x + r * math.cos(a), y + r * math.sin(a)))
        hull = _convex_hull(pts)
        return np.array(hull, dtype=np.float64)

    def to_config(self) -> dict[str, Any]:
        """The mapping ``from_config`` reads back (the ``camera`` section)."""
        return {
            "pitch_mm": self.pitch_mm,
            "marker_side": self.marker_side,
            "markers": {str(k): list(v) for k, v in sorted(self.markers.items())},
            "dictionary": self.dictionary,
            "disc_diameter": self.disc_diameter,
            "disc_thickness": self.disc_thickness,
        }

    @classmethod
    def from_config(cls, section: Mapping[str, Any] | None, prefix: str = "camera"
                    ) -> BoardGeometry:
        """Defaults overridden by ``section``; a bad key raises ConfigError naming camera.<key>."""
        geom = cls()
        if not section:
            return geom
        if not isinstance(section, Mapping):
            raise ConfigError(prefix, f"must be a table of settings, got {section!r}")
        known = {"pitch_mm", "marker_side", "markers", "dictionary", "disc_diameter",
                 "disc_thickness"}
        changes: dict[str, Any] = {}
        for key, value in section.items():
            name = f"{prefix}.{key}"
            if key not in known:
                continue  # other camera settings (source, device...) live in the same section
            if key == "dictionary":
                if value not in DICTIONARIES:
                    raise ConfigError(name, f"{value!r} is not one of {', '.join(DICTIONARIES)}")
                changes[key] = value
            elif key == "markers":
                changes[key] = _parse_markers(name, value)
            else:
                changes[key] = _positive(name, value)
        geom = replace(geom, **changes)
        if geom.disc_diameter >= 1.0:
            raise ConfigError(f"{prefix}.disc_diameter",
                              f"{geom.disc_diameter} pitches: discs would overlap (must be < 1)")
        return geom


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(name, f"must be a number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(name, f"must be a positive number, got {value!r}")
    return float(value)


def _parse_markers(name: str, value: Any) -> dict[int, tuple[float, float]]:
    if not isinstance(value, Mapping):
        raise ConfigError(name, f"must map marker ids to [x, y] in pitches, got {value!r}")
    out: dict[int, tuple[float, float]] = {}
    for k, v in value.items():
        try:
            mid = int(k)
        except (TypeError, ValueError):
            raise ConfigError(f"{name}.{k}", "marker id must be an integer") from None
        if mid < 0 or not isinstance(v, list | tuple) or len(v) != 2:
            raise ConfigError(f"{name}.{k}", f"must be [x, y] in pitches, got {v!r}")
        out[mid] = (_num(f"{name}.{k}", v[0]), _num(f"{name}.{k}", v[1]))
    if len(out) < 3:
        raise ConfigError(name, f"needs at least 3 markers, got {len(out)}")
    return out


def _num(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(name, f"must be a finite number, got {value!r}")
    return float(value)


def _convex_hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Andrew's monotone chain, counter-clockwise."""
    pts = sorted(set(points))

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]
