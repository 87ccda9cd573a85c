"""A printable sheet at true scale: the four markers (with quiet zones), the board outline,
the cell circles and their names. PNG at a given DPI, or SVG in millimetres.

The full sheet is 549 x 277 mm: few printers take it. ``tile_svg`` splits any SVG drawn in
millimetres onto A4 or A3 pages with an overlap, alignment targets and a scale bar on every
page; ``render_cards_svg`` prints each marker on its own card with the position to measure.
``check_printed_scale`` tells from a camera view whether the markers were printed and placed
at the configured size (``vision calibrate`` runs it).

Tiling is pure text (works on a hall-only install, e.g. for hardware/drawings.py's template);
the markers themselves need OpenCV (cv2.aruco), imported when used.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from engine.errors import DvonnError
from engine.geometry import CELL_NAMES

if TYPE_CHECKING:
    import numpy as np

    from vision.geometry import BoardGeometry

MM_PER_INCH = 25.4
RING = 0.45  # cell circle radius in pitches
#: Paper sizes (portrait width, height) in mm.
PAPERS: dict[str, tuple[float, float]] = {"A4": (210.0, 297.0), "A3": (297.0, 420.0)}
PAGE_MARGIN_MM = 14.0  # kept blank around each page: most printers cannot print the edge
PAGE_OVERLAP_MM = 16.0  # neighbouring pages share this strip; the targets sit in its middle
SCALE_TOLERANCE = 0.04  # printed marker size may differ this much from the configured size
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'


def _default_geometry(geometry: BoardGeometry | None) -> BoardGeometry:
    from vision.geometry import BoardGeometry

    return geometry or BoardGeometry()


def sheet_size_mm(geometry: BoardGeometry) -> tuple[float, float]:
    hx, hy = geometry.sheet_extent_mm()
    return (2 * hx, 2 * hy)


def _marker_bits(geometry: BoardGeometry, marker_id: int) -> np.ndarray:
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.dictionary))
    n = dictionary.markerSize + 2
    return cv2.aruco.generateImageMarker(dictionary, marker_id, n)  # one pixel per cell


def render_png(geometry: BoardGeometry | None = None, dpi: int = 300) -> np.ndarray:
    """The sheet as a grey image at ``dpi``; one pixel is 25.4/dpi mm."""
    import cv2
    import numpy as np

    g = _default_geometry(geometry)
    if not 50 <= dpi <= 1200:
        raise DvonnError(f"dpi {dpi} out of range 50..1200")
    s = dpi / MM_PER_INCH
    hx, hy = g.sheet_extent_mm()
    w, h = int(round(2 * hx * s)), int(round(2 * hy * s))
    img = np.full((h, w), 255, np.uint8)

    def px(x: float, y: float) -> tuple[float, float]:
        return ((x + hx) * s, (hy - y) * s)

    outline = np.array([px(x, y) for x, y in g.board_outline_mm()])
    cv2.polylines(img, [np.round(outline * 16).astype(np.int32)], True, 0, max(1, int(s * 0.5)),
                  cv2.LINE_AA, 4)
    for c, (x, y) in enumerate(g.cell_centres_mm()):
        u, v = px(x, y)
        cv2.circle(img, (int(u * 16), int(v * 16)), int(RING * g.pitch_mm * s * 16), 0,
                   max(1, int(s * 0.4)), cv2.LINE_AA, 4)
        scale = 0.012 * s * g.pitch_mm / 40.0 * 4
        (tw, th), _ = cv2.getTextSize(CELL_NAMES[c], cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.putText(img, CELL_NAMES[c], (int(u - tw / 2), int(v + th / 2)),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, 150, max(1, int(s * 0.2)), cv2.LINE_AA)
    for mid in sorted(g.markers):
        bits = _marker_bits(g, mid)
        corners = g.marker_corners_mm(mid)
        u0, v0 = px(corners[0, 0], corners[0, 1])
        u1, v1 = px(corners[2, 0], corners[2, 1])
        side = int(round(u1 - u0))
        patch = cv2.resize(bits, (side, side), interpolation=cv2.INTER_NEAREST)
        r0, c0 = int(round(v0)), int(round(u0))
        img[r0:r0 + side, c0:c0 + side] = patch
    # The 100 mm scale bar, bottom centre (between the lower markers).
    y_bar = int(round((hy + 3.1 * g.pitch_mm) * s))
    if y_bar < h:
        cv2.line(img, (int(round((hx - 50) * s)), y_bar), (int(round((hx + 50) * s)), y_bar), 0,
                 max(1, int(s * 0.6)))
    return img


def _marker_rects(bits: np.ndarray, x0: float, y0: float, cell: float) -> list[str]:
    n = bits.shape[0]
    out = []
    for r in range(n):
        for c in range(n):
            if bits[r, c] < 128:
                out.append(f'<rect x="{x0 + c * cell:.3f}" y="{y0 + r * cell:.3f}" '
                           f'width="{cell:.3f}" height="{cell:.3f}" fill="black"/>')
    return out


def _scale_bar(x: float, y: float, length: float = 100.0) -> list[str]:
    """A bar ``length`` mm long with 10 mm ticks and its label, starting at (x, y)."""
    out = [f'<line x1="{x:.3f}" y1="{y:.3f}" x2="{x + length:.3f}" y2="{y:.3f}" '
           'stroke="black" stroke-width="0.5"/>']
    for i in range(int(length // 10) + 1):
        tick = 3.0 if i % 5 == 0 else 1.8
        out.append(f'<line x1="{x + 10 * i:.3f}" y1="{y - tick:.3f}" x2="{x + 10 * i:.3f}" '
                   f'y2="{y:.3f}" stroke="black" stroke-width="0.3"/>')
    out.append(f'<text x="{x + length + 2:.3f}" y="{y:.3f}" font-size="3" {FONT}>'
               f'{length:g} mm: measure it</text>')
    return out


def render_svg(geometry: BoardGeometry | None = None) -> str:
    """The sheet as SVG in millimetres; marker cells are <rect> elements."""
    g = _default_geometry(geometry)
    hx, hy = g.sheet_extent_mm()
    W, H = 2 * hx, 2 * hy

    def px(x: float, y: float) -> tuple[float, float]:
        return (x + hx, hy - y)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:.3f}mm" height="{H:.3f}mm" '
           f'viewBox="0 0 {W:.3f} {H:.3f}">',
           f'<rect x="0" y="0" width="{W:.3f}" height="{H:.3f}" fill="white"/>']
    pts = " ".join(f"{u:.3f},{v:.3f}" for u, v in (px(x, y) for x, y in g.board_outline_mm()))
    out.append(f'<polygon points="{pts}" fill="none" stroke="black" stroke-width="0.5"/>')
    for c, (x, y) in enumerate(g.cell_centres_mm()):
        u, v = px(x, y)
        out.append(f'<circle cx="{u:.3f}" cy="{v:.3f}" r="{RING * g.pitch_mm:.3f}" fill="none" '
                   'stroke="black" stroke-width="0.4"/>')
        out.append(f'<text x="{u:.3f}" y="{v + 1.5:.3f}" font-size="{0.1 * g.pitch_mm:.2f}" '
                   f'text-anchor="middle" fill="#999">{CELL_NAMES[c]}</text>')
    for mid in sorted(g.markers):
        bits = _marker_bits(g, mid)
        x0, y0 = px(*g.marker_corners_mm(mid)[0, :2])
        out.append(f'<g id="marker{mid}">')
        out.extend(_marker_rects(bits, x0, y0, g.marker_side_mm / bits.shape[0]))
        out.append("</g>")
    y_bar = hy + 3.1 * g.pitch_mm
    if y_bar < H - 2:
        out.extend(_scale_bar(hx - 50, y_bar))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- pages --------------------------------------------------------------------------------

_SIZE = re.compile(r'<svg\b[^>]*\bwidth="([\d.]+)mm"[^>]*\bheight="([\d.]+)mm"[^>]*>', re.S)


def svg_size_mm(svg: str) -> tuple[float, float]:
    """Width and height of an SVG drawn in millimetres (width="...mm", viewBox in mm)."""
    m = _SIZE.search(svg)
    if m is None:
        raise DvonnError("not an SVG sized in millimetres (width=\"...mm\" height=\"...mm\")")
    return (float(m.group(1)), float(m.group(2)))


@dataclass(frozen=True)
class PagePlan:
    """How a W x H mm drawing falls on pages: paper size (as printed), columns, rows."""

    paper: str
    page_w: float
    page_h: float
    cols: int
    rows: int

    @property
    def area(self) -> tuple[float, float]:
        return (self.page_w - 2 * PAGE_MARGIN_MM, self.page_h - 2 * PAGE_MARGIN_MM)

    @property
    def step(self) -> tuple[float, float]:
        aw, ah = self.area
        return (aw - PAGE_OVERLAP_MM, ah - PAGE_OVERLAP_MM)

    @property
    def orientation(self) -> str:
        return "landscape" if self.page_w > self.page_h else "portrait"


def _count(length: float, area: float, step: float) -> int:
    return 1 if length <= area else math.ceil((length - area) / step) + 1


def plan_pages(width: float, height: float, paper: str = "A4") -> PagePlan:
    """The orientation of ``paper`` that needs the fewest pages for a width x height drawing."""
    if paper not in PAPERS:
        raise DvonnError(f"paper {paper!r} is not one of {', '.join(PAPERS)}")
    pw, ph = PAPERS[paper]
    best: PagePlan | None = None
    for w, h in ((ph, pw), (pw, ph)):  # landscape first: wins ties
        aw, ah = w - 2 * PAGE_MARGIN_MM, h - 2 * PAGE_MARGIN_MM
        plan = PagePlan(paper, w, h, _count(width, aw, aw - PAGE_OVERLAP_MM),
                        _count(height, ah, ah - PAGE_OVERLAP_MM))
        if best is None or plan.cols * plan.rows < best.cols * best.rows:
            best = plan
    assert best is not None
    return best


def _inner(svg: str) -> str:
    m = _SIZE.search(svg)
    end = svg.rfind("</svg>")
    if m is None or end < 0:
        raise DvonnError("not an SVG sized in millimetres")
    return svg[m.end():end]


def _target(x: float, y: float) -> list[str]:
    """An alignment target: a circle with a cross, 8 mm across."""
    return [f'<circle cx="{x:.3f}" cy="{y:.3f}" r="3" fill="none" stroke="black" '
            'stroke-width="0.25"/>',
            f'<line x1="{x - 4:.3f}" y1="{y:.3f}" x2="{x + 4:.3f}" y2="{y:.3f}" stroke="black" '
            'stroke-width="0.2"/>',
            f'<line x1="{x:.3f}" y1="{y - 4:.3f}" x2="{x:.3f}" y2="{y + 4:.3f}" stroke="black" '
            'stroke-width="0.2"/>']


def seams(plan: PagePlan, width: float, height: float
          ) -> tuple[list[float], list[float], list[float], list[float]]:
    """Where pages join, in drawing mm: vertical seam x's, horizontal seam y's, and the
    positions of the targets along them (y's on vertical seams, x's on horizontal ones)."""
    sx, sy = plan.step
    xs = [c * sx + PAGE_OVERLAP_MM / 2 for c in range(1, plan.cols)]
    ys = [r * sy + PAGE_OVERLAP_MM / 2 for r in range(1, plan.rows)]

    def along(length: float) -> list[float]:
        n = max(2, int(length // 70) + 1)
        return [length * (i + 0.5) / n for i in range(n)]

    return xs, ys, along(height), along(width)


def tile_svg(svg: str, paper: str = "A4", title: str = "") -> list[str]:
    """Split an SVG drawn in millimetres onto pages of ``paper`` (row by row, top left first).

    Neighbouring pages overlap by PAGE_OVERLAP_MM; in the middle of each overlap a dashed cut
    line and alignment targets are drawn at the same place of the drawing on both pages: cut
    one page along the line, lay it over the other so the targets coincide, tape. Each page
    has its position and a 50 mm scale bar in its bottom margin."""
    width, height = svg_size_mm(svg)
    plan = plan_pages(width, height, paper)
    inner = _inner(svg)
    aw, ah = plan.area
    sx, sy = plan.step
    vxs, hys, v_along, h_along = seams(plan, width, height)
    m = PAGE_MARGIN_MM
    pages = []
    for r in range(plan.rows):
        for c in range(plan.cols):
            x0, y0 = c * sx, r * sy
            out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{plan.page_w:g}mm" '
                   f'height="{plan.page_h:g}mm" viewBox="0 0 {plan.page_w:g} {plan.page_h:g}">',
                   f'<rect x="0" y="0" width="{plan.page_w:g}" height="{plan.page_h:g}" '
                   'fill="white"/>',
                   f'<svg x="{m:g}" y="{m:g}" width="{aw:g}" height="{ah:g}" '
                   f'viewBox="{x0:.3f} {y0:.3f} {aw:g} {ah:g}" overflow="hidden">',
                   inner,
                   "</svg>"]

            def page_xy(x: float, y: float, x0: float = x0, y0: float = y0
                        ) -> tuple[float, float]:
                return (x - x0 + m, y - y0 + m)

            for vx in vxs:
                if x0 <= vx <= x0 + aw:
                    (px, top), (_, bottom) = page_xy(vx, 0), page_xy(vx, height)
                    top, bottom = max(top, m), min(bottom, m + ah)
                    out.append(f'<line x1="{px:.3f}" y1="{top:.3f}" x2="{px:.3f}" '
                               f'y2="{bottom:.3f}" stroke="#c00" stroke-width="0.2" '
                               'stroke-dasharray="2,2"/>')
                    for ty in v_along:
                        tx, tyy = page_xy(vx, ty)
                        if m <= tyy <= m + ah:
                            out.extend(_target(tx, tyy))
            for hy in hys:
                if y0 <= hy <= y0 + ah:
                    (left, py), (right, _) = page_xy(0, hy), page_xy(width, hy)
                    left, right = max(left, m), min(right, m + aw)
                    out.append(f'<line x1="{left:.3f}" y1="{py:.3f}" x2="{right:.3f}" '
                               f'y2="{py:.3f}" stroke="#c00" stroke-width="0.2" '
                               'stroke-dasharray="2,2"/>')
                    for tx in h_along:
                        txx, ty = page_xy(tx, hy)
                        if m <= txx <= m + aw:
                            out.extend(_target(txx, ty))
            label = (f"{escape(title) + ': ' if title else ''}page {r * plan.cols + c + 1} of "
                     f"{plan.rows * plan.cols} (row {r + 1}, column {c + 1}), {plan.paper} "
                     f"{plan.orientation}. Print at 100 %; overlap so the targets meet, cut on "
                     "the red line.")
            base = plan.page_h - m + 4.0
            out.append(f'<text x="{m:g}" y="{base:.3f}" font-size="2.3" {FONT}>{label}</text>')
            out.extend(_scale_bar(m, base + 4.0, 50.0))
            out.append("</svg>")
            pages.append("\n".join(out) + "\n")
    return pages


# -- one card per marker ------------------------------------------------------------------

def marker_distances_mm(geometry: BoardGeometry | None = None) -> list[tuple[int, int, float]]:
    """(id, id, centre-to-centre distance in mm) for every pair of markers."""
    g = _default_geometry(geometry)
    ids = sorted(g.markers)
    out = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            (xa, ya), (xb, yb) = g.marker_centre_mm(a), g.marker_centre_mm(b)
            out.append((a, b, math.hypot(xb - xa, yb - ya)))
    return out


def render_cards_svg(geometry: BoardGeometry | None = None) -> str:
    """An A4 page with one card per marker: the marker, its quiet zone, centre lines out to
    the card's edge, which way is up, and where its centre goes; then the distances to
    measure between the centres once the cards are stuck down."""
    g = _default_geometry(geometry)
    W, H = PAPERS["A4"]
    side = g.marker_side_mm
    card = side + 2 * (2 * side / 6.0) + 14.0  # quiet zone of two marker cells, then a rim
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:g}mm" height="{H:g}mm" '
           f'viewBox="0 0 {W:g} {H:g}">',
           f'<rect x="0" y="0" width="{W:g}" height="{H:g}" fill="white"/>',
           f'<text x="15" y="14" font-size="4.5" font-weight="bold" {FONT}>dvonn-board camera '
           'markers, one card each</text>',
           f'<text x="15" y="19.5" font-size="3" {FONT}>Print at 100 % (no "fit to page"), cut '
           'on the dashed lines, stick each centre at its position.</text>']
    ids = sorted(g.markers)
    for k, mid in enumerate(ids):
        cx = 20 + (k % 2) * (card + 45) + card / 2
        cy = 26 + (k // 2) * (card + 22) + card / 2
        out.append(f'<rect x="{cx - card / 2:.3f}" y="{cy - card / 2:.3f}" width="{card:.3f}" '
                   f'height="{card:.3f}" fill="none" stroke="#888" stroke-width="0.25" '
                   'stroke-dasharray="3,2"/>')
        for x1, y1, x2, y2 in ((cx - card / 2, cy, cx - side / 2 - 4, cy),
                               (cx + side / 2 + 4, cy, cx + card / 2, cy),
                               (cx, cy - card / 2, cx, cy - side / 2 - 4),
                               (cx, cy + side / 2 + 4, cx, cy + card / 2)):
            out.append(f'<line x1="{x1:.3f}" y1="{y1:.3f}" x2="{x2:.3f}" y2="{y2:.3f}" '
                       'stroke="black" stroke-width="0.3"/>')
        bits = _marker_bits(g, mid)
        out.append(f'<g id="marker{mid}">')
        out.extend(_marker_rects(bits, cx - side / 2, cy - side / 2, side / bits.shape[0]))
        out.append("</g>")
        x, y = g.marker_centre_mm(mid)
        out.append(f'<text x="{cx:.3f}" y="{cy - card / 2 + 4.5:.3f}" font-size="3" '
                   f'text-anchor="middle" {FONT}>ID {mid}: this edge toward row 5 '
                   f'(side {side:g} mm)</text>')
        out.append(f'<text x="{cx:.3f}" y="{cy + card / 2 + 5:.3f}" font-size="3" '
                   f'text-anchor="middle" {FONT}>centre: x = {x:+.1f} mm, y = {y:+.1f} mm</text>')
        out.append(f'<text x="{cx:.3f}" y="{cy + card / 2 + 9:.3f}" font-size="2.4" '
                   f'text-anchor="middle" {FONT}>from the centre of F3 (x toward K3, y toward '
                   'row 5)</text>')
    y = 26 + 2 * (card + 22) + 6
    out.append(f'<text x="15" y="{y:.1f}" font-size="3.4" font-weight="bold" {FONT}>Then '
               'measure between the marker centres (within 1 mm):</text>')
    for i, (a, b, d) in enumerate(marker_distances_mm(g)):
        out.append(f'<text x="20" y="{y + 6 + 5 * i:.1f}" font-size="3.2" {FONT}>ID {a} to '
                   f'ID {b}: {d:.1f} mm</text>')
    out.extend(_scale_bar(15, H - 14))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- writing ------------------------------------------------------------------------------

LAYOUTS = ("full", "A4", "A3", "cards")


def write_sheet(path: str | Path, geometry: BoardGeometry | None = None, dpi: int = 300,
                layout: str = "full") -> list[Path]:
    """Write the sheet to ``path``: ``full`` as .png (at ``dpi``, its DPI recorded) or .svg;
    ``A4``/``A3`` as pages NAME-1.svg, NAME-2.svg ...; ``cards`` as one .svg page.
    Returns the files written."""
    p = Path(path)
    suffix = p.suffix.lower()
    if layout not in LAYOUTS:
        raise DvonnError(f"layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    if suffix not in (".png", ".svg"):
        raise DvonnError(f"sheet file {str(p)!r}: use a .png or .svg name")
    if layout != "full" and suffix != ".svg":
        raise DvonnError(f"sheet file {str(p)!r}: pages and cards are written as .svg")
    files: list[tuple[Path, bytes]] = []
    if layout == "full" and suffix == ".png":
        import cv2

        ok, buf = cv2.imencode(".png", render_png(geometry, dpi))
        if not ok:
            raise DvonnError("PNG encoding failed")
        files.append((p, _with_dpi(buf.tobytes(), dpi)))
    elif layout == "full":
        files.append((p, render_svg(geometry).encode()))
    elif layout == "cards":
        files.append((p, render_cards_svg(geometry).encode()))
    else:
        pages = tile_svg(render_svg(geometry), layout, "dvonn-board marker sheet")
        files += [(p.with_name(f"{p.stem}-{i + 1}{p.suffix}"), page.encode())
                  for i, page in enumerate(pages)]
    for target, data in files:
        try:
            target.write_bytes(data)
        except OSError as exc:
            raise DvonnError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from None
    return [f for f, _ in files]


def _with_dpi(png: bytes, dpi: int) -> bytes:
    """Insert a pHYs chunk so printers use true scale."""
    import struct
    import zlib

    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    at = 8 + 25  # signature + IHDR chunk
    return png[:at] + chunk + png[at:]


# -- checking the print from a camera view ------------------------------------------------

@dataclass(frozen=True)
class ScaleCheck:
    """Printed marker sides relative to the configured side, measured in the board plane
    through the homography of the four marker centres (so a uniform print scale cannot show;
    misplaced cards, tiles or a sheet printed "fit to page" do)."""

    ratios: dict[int, float]
    frames: int

    @property
    def ratio(self) -> float:
        return sum(self.ratios.values()) / len(self.ratios)

    @property
    def ok(self) -> bool:
        return all(abs(r - 1.0) <= SCALE_TOLERANCE for r in self.ratios.values())

    def describe(self, geometry: BoardGeometry | None = None) -> str:
        g = _default_geometry(geometry)
        side = g.marker_side_mm
        parts = ", ".join(f"ID {k} {r * side:.1f} mm" for k, r in sorted(self.ratios.items()))
        verdict = ("OK" if self.ok else
                   f"CHECK: more than {SCALE_TOLERANCE:.0%} off; reprint at 100 % (no 'fit to "
                   "page') and measure the marker positions (docs/build/camera.md)")
        return (f"printed scale: markers measure {parts} for {side:g} mm configured, relative "
                f"to their spacing (mean {self.ratio:.3f}, {self.frames} view(s)): {verdict}")


def _homography(src: Sequence[Sequence[float]], dst: Sequence[Sequence[float]]) -> np.ndarray:
    import cv2
    import numpy as np

    return cv2.getPerspectiveTransform(np.asarray(src, np.float32), np.asarray(dst, np.float32))


def measure_marker_sides(corners: Mapping[int, Any], geometry: BoardGeometry
                         ) -> dict[int, float] | None:
    """Marker id -> printed side / configured side, from one view's marker corners (image
    px, ArUco order). None unless all four markers of the geometry are seen."""
    import cv2
    import numpy as np

    ids = sorted(geometry.markers)
    if len(ids) != 4 or any(i not in corners for i in ids):
        return None
    centres_img = [np.asarray(corners[i], np.float64).reshape(4, 2).mean(axis=0) for i in ids]
    centres_mm = [geometry.marker_centre_mm(i) for i in ids]
    h = _homography(centres_img, centres_mm)
    out = {}
    for i in ids:
        pts = np.asarray(corners[i], np.float64).reshape(-1, 1, 2)
        mm = cv2.perspectiveTransform(pts, h).reshape(4, 2)
        sides = [float(np.linalg.norm(mm[k] - mm[(k + 1) % 4])) for k in range(4)]
        out[i] = sum(sides) / 4 / geometry.marker_side_mm
    return out


def check_printed_scale(frames: Sequence[Any], geometry: BoardGeometry | None = None
                        ) -> ScaleCheck | None:
    """The printed scale from camera frames (BGR or grey) of the table; None when no frame
    shows all four markers."""
    import cv2

    from vision.pose import MarkerDetector

    g = _default_geometry(geometry)
    detector = MarkerDetector(g, 1.0)
    sums: dict[int, list[float]] = {}
    used = 0
    for frame in frames:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        ratios = measure_marker_sides(detector.detect(grey), g)
        if ratios is None:
            continue
        used += 1
        for k, r in ratios.items():
            sums.setdefault(k, []).append(r)
    if not used:
        return None
    return ScaleCheck({k: sum(v) / len(v) for k, v in sums.items()}, used)
