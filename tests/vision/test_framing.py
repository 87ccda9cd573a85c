"""Framing: the field of view and height figures of docs/build/camera.md, and the warning of
``vision calibrate`` when a marker comes near the picture's edge (vision.framing)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.framing import (
    CAMERAS,
    TABLE_ROWS,
    check_framing,
    min_height_mm,
    picture_fov,
    sensor_mode,
    table_row,
)
from vision.synthetic.render import Scene, render

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "build" / "camera.md"


def straight_down(fill: float, size: tuple[int, int] = (800, 600), **kw: object) -> np.ndarray:
    """An empty board seen straight down; the sheet (markers and quiet zones) spans ``fill``
    of the picture's width."""
    scene = Scene(stacks=[""] * 49, size=size, focal_per_width=0.77, tilt_deg=0.0,
                  azimuth_deg=-90.0, yaw_deg=0.0, fill=fill, seed=3, **kw)  # type: ignore[arg-type]
    return render(scene)[0]


@pytest.mark.parametrize(("key", "size", "mode", "fov"), [
    # Camera Module 3: 1280x960 and 1536x864 read the 1536x864 mode, the middle 3072x1728
    # of the sensor; 1920x1080 the binned whole sensor; a 4:3 picture loses the sides.
    ("module3", (1280, 960), (1536, 864), (36.0, 28.0)),
    ("module3", (1536, 864), (1536, 864), (46.8, 28.0)),
    ("module3", (1920, 1080), (2304, 1296), (66.0, 41.0)),
    ("module3", (1600, 1200), (2304, 1296), (51.9, 41.0)),
    ("module2", (1280, 960), (1640, 1232), (62.2, 48.8)),
    ("module2", (1920, 1080), (1920, 1080), (38.9, 22.5)),
    ("hq-6mm", (1280, 960), (2028, 1520), (52.2, 40.4)),
])
def test_sensor_mode_and_field_of_view(key: str, size: tuple[int, int], mode: tuple[int, int],
                                       fov: tuple[float, float]) -> None:
    camera = CAMERAS[key]
    assert sensor_mode(camera, *size).size == mode
    assert picture_fov(camera, *size) == pytest.approx(fov, abs=0.1)


def test_lowest_height_formula() -> None:
    # markers reach 264 x 128 mm; 5 % of the picture kept on each side
    assert min_height_mm(66.0, 41.0) == pytest.approx(264 / 0.9 / math.tan(math.radians(33)))
    assert min_height_mm(66.0, 41.0) == pytest.approx(451.7, abs=0.1)
    # the figures for a 52-degree picture: at 55 cm about 4 mm beyond the markers
    hfov = picture_fov(CAMERAS["module3"], 1600, 1200)[0]
    assert 550 * math.tan(math.radians(hfov) / 2) - 264 == pytest.approx(3.9, abs=0.1)
    assert min_height_mm(hfov, 41.0, margin=0.0) == pytest.approx(542, abs=1)


def test_the_guide_table_matches_the_arithmetic() -> None:
    rows = {}
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| (.+?) \| (\d+x\d+) \| (\d+x\d+|—) \| (\d+)° × (\d+)° \| (\d+) cm "
                     r"\| ([\d.]+) \|", line.strip())
        if m:
            rows[(m[1].replace("**", ""), m[2])] = m.groups()[2:]
    assert len(rows) == len(TABLE_ROWS)
    for key, w, h in TABLE_ROWS:
        r = table_row(key, w, h)
        mode, hfov, vfov, height, px = rows[(r["camera"], r["size"])]
        assert mode == r["mode"]
        assert (int(hfov), int(vfov)) == (round(r["hfov"]), round(r["vfov"]))
        assert int(height) == math.ceil(r["min_height_cm"])
        assert float(px) == pytest.approx(r["px_per_mm"], abs=0.05)


def test_calibrate_warns_when_markers_are_near_the_edge(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the sheet fills the width: the marker squares end about 2 % from the left and right
    image = tmp_path / "tight.png"
    cv2.imwrite(str(image), straight_down(1.0))
    cal = tmp_path / "cal.json"
    assert main(["vision", "calibrate", "--images", str(image), "--out", str(cal)]) == 0
    out, err = capsys.readouterr()
    assert cal.exists() and "written to" in out
    warning = [line for line in err.splitlines() if line.startswith("framing:")]
    assert len(warning) == 1 and "framing" not in out
    line = warning[0]
    for mid, edge in ((0, "left"), (1, "right"), (2, "right"), (3, "left")):
        assert re.search(rf"ID {mid} \d\.\d% \(\d+ px\) from the {edge} edge", line), line
    assert "raise the camera about" in line and "1920x1080" in line


def test_calibrate_says_ok_when_the_margin_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "roomy.png"
    cv2.imwrite(str(image), straight_down(0.85))
    assert main(["vision", "calibrate", "--images", str(image),
                 "--out", str(tmp_path / "cal.json")]) == 0
    out, err = capsys.readouterr()
    assert "framing" not in err
    assert re.search(r"framing: every marker at least [5-9]% of the picture from its edges "
                     r"\(1 view\(s\), 800x600\): OK", out), out


def test_marker_beyond_the_edge_is_placed_and_named() -> None:
    frame = straight_down(0.8)
    centre_x = 400 + 248 / 274.67 * 0.8 * 400  # marker 1 and 2's centre column
    cut = np.ascontiguousarray(frame[:, : int(centre_x)])  # through the right-hand markers
    check = check_framing([cut])
    assert check is not None and not check.ok
    assert check.unseen == {0: False, 1: True, 2: True, 3: False}
    assert check.gaps[1]["right"] < 0 and check.gaps[2]["right"] < 0
    text = check.describe()
    assert "ID 1 not seen (beyond the right edge)" in text
    assert "ID 2 not seen (beyond the right edge)" in text
    assert "ID 0" not in text and "ID 3" not in text
    assert "centre the camera over F3" in text  # the board fits: it only sits off-centre


def test_covered_marker_is_not_blamed_on_the_framing() -> None:
    check = check_framing([straight_down(0.85, hidden_markers=(2,))])
    assert check is not None and not check.ok and check.near == []
    assert check.describe().startswith("framing: marker ID 2 not seen although inside")
