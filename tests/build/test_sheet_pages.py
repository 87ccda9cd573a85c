"""The marker sheet and the placement template on A4/A3 pages, the marker cards, and the
printed-scale check of ``vision calibrate``."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from controller.cli.build import all_drawings, template_pages
from engine.errors import DvonnError
from hardware.drawings import placement_template
from vision.geometry import BoardGeometry
from vision.pose import MarkerDetector
from vision.sheet import (
    PAGE_MARGIN_MM,
    PAGE_OVERLAP_MM,
    PAPERS,
    check_printed_scale,
    marker_distances_mm,
    measure_marker_sides,
    plan_pages,
    render_cards_svg,
    render_png,
    render_svg,
    seams,
    svg_size_mm,
    tile_svg,
    write_sheet,
)

NS = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parents[2]


def _nested_viewboxes(page: str) -> list[float]:
    root = ET.fromstring(page)
    (inner,) = [e for e in root if e.tag == f"{NS}svg"]
    return [float(v) for v in inner.get("viewBox", "").split()]


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_sheet_pages_cover_the_sheet_with_overlap(paper: str) -> None:
    svg = render_svg()
    width, height = svg_size_mm(svg)
    assert (round(width), round(height)) == (549, 277)
    pages = tile_svg(svg, paper, "sheet")
    plan = plan_pages(width, height, paper)
    assert len(pages) == plan.cols * plan.rows
    pw, ph = PAPERS[paper]
    covered_x: set[int] = set()
    covered_y: set[int] = set()
    for page in pages:
        root = ET.fromstring(page)
        assert {root.get("width"), root.get("height")} == {f"{pw:g}mm", f"{ph:g}mm"}
        x0, y0, w, h = _nested_viewboxes(page)
        # 1:1 - the nested viewport is as many mm as its viewBox.
        (inner,) = [e for e in root if e.tag == f"{NS}svg"]
        assert float(inner.get("width", 0)) == w and float(inner.get("height", 0)) == h
        covered_x.update(range(int(x0), int(min(x0 + w, width))))
        covered_y.update(range(int(y0), int(min(y0 + h, height))))
        assert "page " in page and "Print at 100 %" in page and "50 mm" in page
    assert covered_x == set(range(int(width))) and covered_y == set(range(int(height)))


def test_alignment_targets_sit_at_the_same_drawing_point_on_both_pages() -> None:
    svg = render_svg()
    width, height = svg_size_mm(svg)
    plan = plan_pages(width, height, "A4")
    assert plan.cols > 1
    vxs, _, v_along, _ = seams(plan, width, height)
    pages = tile_svg(svg, "A4")
    seam = vxs[0]
    found = []
    for index in (0, 1):  # the first two pages of the top row share seam 0
        x0, y0, _, _ = _nested_viewboxes(pages[index])
        root = ET.fromstring(pages[index])
        centres = [(float(c.get("cx", 0)) - PAGE_MARGIN_MM + x0,
                    float(c.get("cy", 0)) - PAGE_MARGIN_MM + y0)
                   for c in root if c.tag == f"{NS}circle" and c.get("r") == "3"]
        found.append({(round(x, 3), round(y, 3)) for x, y in centres
                      if math.isclose(x, seam, abs_tol=1e-3)})
    assert found[0] and found[0] == found[1]
    # The seam lies inside the overlap of the two pages.
    sx, _ = plan.step
    assert sx <= seam <= sx + PAGE_OVERLAP_MM


def test_template_pages_and_committed_copies() -> None:
    for paper in PAPERS:
        pages = template_pages(paper)
        w, h = svg_size_mm(placement_template())
        plan = plan_pages(w, h, paper)
        assert len(pages) == plan.cols * plan.rows
    for name, svg in all_drawings().items():
        committed = ROOT / "docs" / "build" / name
        assert committed.exists(), "run: dvonn-board drawings"
        assert committed.read_text(encoding="utf-8") == svg, f"{name} is stale: run " \
            "dvonn-board drawings"


def test_drawings_command_writes_every_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    assert main(["drawings", "--out", str(tmp_path), "--paper", "A3"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "placement-template-A3-1.svg" in names and "pi-wiring.svg" in names
    assert not any("A4" in n for n in names)
    assert len(capsys.readouterr().out.splitlines()) == len(names)


def test_cards_show_each_marker_and_the_distances_to_measure() -> None:
    svg = render_cards_svg()
    root = ET.fromstring(svg)
    assert root.get("width") == "210mm" and root.get("height") == "297mm"
    text = " ".join(t.text or "" for t in root.iter(f"{NS}text"))
    for mid in range(4):
        assert f'<g id="marker{mid}">' in svg
    assert "x = -248.0 mm, y = -112.0 mm" in text and "x = +248.0 mm, y = +112.0 mm" in text
    dists = {(a, b): d for a, b, d in marker_distances_mm()}
    assert dists[(0, 1)] == pytest.approx(496.0) and dists[(0, 3)] == pytest.approx(224.0)
    assert "544.2 mm" in text
    # Each marker is the configured 32 mm square.
    g = BoardGeometry()
    group = next(e for e in root.iter(f"{NS}g") if e.get("id") == "marker0")
    xs = [float(r.get("x", 0)) for r in group] + [float(r.get("x", 0)) + float(r.get("width", 0))
                                                  for r in group]
    assert max(xs) - min(xs) == pytest.approx(g.marker_side_mm, abs=0.01)


def test_write_sheet_layouts(tmp_path: Path) -> None:
    files = write_sheet(tmp_path / "sheet.svg", layout="A3")
    assert [f.name for f in files] == ["sheet-1.svg", "sheet-2.svg", "sheet-3.svg"]
    assert write_sheet(tmp_path / "cards.svg", layout="cards") == [tmp_path / "cards.svg"]
    with pytest.raises(DvonnError, match="pages and cards are written as .svg"):
        write_sheet(tmp_path / "sheet.png", layout="A4")
    with pytest.raises(DvonnError, match="layout"):
        write_sheet(tmp_path / "sheet.svg", layout="letter")
    assert not (tmp_path / "sheet.png").exists()


def test_sheet_command_with_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "sheet", "--out", str(tmp_path / "m.svg"), "--layout", "A4"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"m-6\.svg", out) and (tmp_path / "m-6.svg").exists()


def test_printed_scale_of_a_true_sheet_is_one() -> None:
    img = render_png(BoardGeometry(), 60)
    check = check_printed_scale([img])
    assert check is not None and check.ok
    assert check.ratio == pytest.approx(1.0, abs=0.02)
    assert "OK" in check.describe()


def test_printed_scale_catches_markers_printed_too_small() -> None:
    """Markers printed at 90 % but stuck at the right positions (cards "fit to page")."""
    small = BoardGeometry(marker_side=0.72)
    img = render_png(small, 60)
    check = check_printed_scale([img], BoardGeometry())
    assert check is not None and not check.ok
    assert check.ratio == pytest.approx(0.9, abs=0.02)
    assert "CHECK" in check.describe()


def test_printed_scale_needs_all_four_markers() -> None:
    img = render_png(BoardGeometry(), 60)
    g = BoardGeometry()
    corners = MarkerDetector(g, 1.0).detect(img)
    del corners[2]
    assert measure_marker_sides(corners, g) is None
    assert check_printed_scale([np.full((50, 50), 255, np.uint8)]) is None


def test_calibrate_reports_the_printed_scale(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from vision.synthetic.render import random_scene, render

    rng = np.random.default_rng(3)
    scene = random_scene(rng, [""] * 49, glare=False, shadow=False)
    frame, _ = render(scene)
    image = tmp_path / "empty.png"
    cv2.imwrite(str(image), frame)
    code = main(["vision", "calibrate", "--images", str(image), "--out",
                 str(tmp_path / "cal.json")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "printed scale: markers measure" in captured.out + captured.err
