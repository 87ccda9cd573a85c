import re

import cv2
import numpy as np
import pytest

from engine.errors import DvonnError
from vision.geometry import BoardGeometry
from vision.pose import MarkerDetector, pose_from_markers
from vision.sheet import render_png, render_svg, sheet_size_mm, write_sheet


def test_png_is_true_scale(geometry) -> None:
    dpi = 100
    img = render_png(geometry, dpi)
    w_mm, h_mm = sheet_size_mm(geometry)
    assert img.shape == (round(h_mm / 25.4 * dpi), round(w_mm / 25.4 * dpi))
    corners = MarkerDetector(geometry, 1.0).detect(img)
    assert sorted(corners) == [0, 1, 2, 3]
    side_px = np.linalg.norm(corners[0][0] - corners[0][1])
    assert side_px == pytest.approx(geometry.marker_side_mm / 25.4 * dpi, rel=0.03)
    # The marker pose reproduces the geometry: quiet zone and positions are right.
    pose = pose_from_markers(corners, geometry, (img.shape[1], img.shape[0]))
    assert pose.rms_px < 1.0


def test_svg_uses_millimetres_and_rects(geometry) -> None:
    svg = render_svg(geometry)
    w_mm, h_mm = sheet_size_mm(geometry)
    assert f'width="{w_mm:.3f}mm"' in svg and f'height="{h_mm:.3f}mm"' in svg
    for mid in range(4):
        assert f'<g id="marker{mid}">' in svg
    assert len(re.findall(r'<rect [^>]*fill="black"', svg)) > 4 * 20
    assert svg.count("<circle") == 49 and ">F3</text>" in svg


def test_write_png_with_dpi_and_svg(tmp_path) -> None:
    png = tmp_path / "sheet.png"
    write_sheet(png, dpi=150)
    data = png.read_bytes()
    assert b"pHYs" in data[:64]
    img = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    assert img.shape[1] == round(sheet_size_mm(BoardGeometry())[0] / 25.4 * 150)
    write_sheet(tmp_path / "sheet.svg")
    assert (tmp_path / "sheet.svg").read_text().startswith("<svg")
    with pytest.raises(DvonnError, match=".png or .svg"):
        write_sheet(tmp_path / "sheet.pdf")
    with pytest.raises(DvonnError, match="dpi"):
        render_png(dpi=10)
