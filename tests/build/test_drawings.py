"""The build drawings: valid SVG, every pin of the pin map on them, the template at true scale,
and the committed copies in docs/build/ equal to what the generator makes today."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine.geometry import CELL_NAMES, NUM_CELLS
from hardware import drawings, pinmap

ROOT = Path(__file__).resolve().parents[2]
NS = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> str:
    root = ET.fromstring(svg)
    return "\n".join(t.text or "" for t in root.iter(f"{NS}text"))


@pytest.mark.parametrize("name", sorted(drawings.DRAWINGS))
def test_drawings_are_valid_svg_in_millimetres(name: str) -> None:
    svg = drawings.DRAWINGS[name]()
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    w, h = root.get("width", ""), root.get("height", "")
    assert w.endswith("mm") and h.endswith("mm")
    vb = [float(v) for v in root.get("viewBox", "").split()]
    assert vb[:2] == [0, 0]
    assert math.isclose(vb[2], float(w[:-2])) and math.isclose(vb[3], float(h[:-2]))


def test_schematic_shows_every_pico_pin_and_every_cell() -> None:
    text = _texts(drawings.sensorboard_schematic())
    for u in pinmap.pico_pins():
        if u.pin is not None:
            assert f"{u.label()} (pin {u.pin})" in text, u
        else:
            assert f"GP{u.gpio}" in text
    for c in range(NUM_CELLS):
        mux, ch = pinmap.mux_channel(c)
        assert f"{CELL_NAMES[c]} (cell {c})" in text
    for m, gpio in enumerate(pinmap.PICO_ENABLE):
        assert f"/EN{m} (GP{gpio})" in text


def test_schematic_shows_the_analog_front_end_and_the_power_rules() -> None:
    """The ADC filter settles within the firmware's wait, the sensors' LDO is a low-dropout
    part on VBUS only with its ground off AGND, ADC_VREF follows the sensors' supply, the LED
    data line is pulled down, the LED supply is fused and its cap is 80 % of it."""
    text = _texts(drawings.sensorboard_schematic())
    assert "1 nF to AGND" in text and "10 nF" not in text
    assert "waits" in text and "20 us after every select or enable change" in text
    assert "MCP1826S-3302E" in text and "AMS1117-3.3" not in text
    assert "IN: VBUS (pin 40) only, never the LED supply" in text
    assert "LED 5 V" not in text  # no longer "VBUS or LED 5 V"
    assert f"GND (pin {pinmap.SENSOR_GND_PIN}), not AGND" in text
    assert "ADC_VREF = 3V3_SENS" in text and "ratiometric" not in text
    assert "DRV5055A3" in text and "SS49E" not in text
    assert f"LED_DATA (GP{pinmap.PICO_LED}), 10 kOhm to GND" in text
    assert "fuse T5A" in text and "5.2 V at most" in text and "10 V" in text
    assert "80 % of its rating" in text and "(4 A: 3200)" in text
    agnd = next(u for u in pinmap.pico_pins() if u.signal == "AGND")
    assert "sensor" not in agnd.meaning
    vref = next(u for u in pinmap.pico_pins() if u.signal == "ADC_VREF")
    assert "3V3_SENS" in vref.meaning


def test_pi_wiring_shows_every_pi_pin() -> None:
    text = _texts(drawings.pi_wiring())
    for u in pinmap.pi_pins():
        assert f"{u.label('GPIO')} (pin {u.pin})" in text, u
    for name in pinmap.PI_BUTTONS:
        assert f"button '{name}'" in text
    assert "10 kOhm from 1A to GND" in text and "supply (fused)" in text


def test_template_is_true_scale() -> None:
    svg = drawings.placement_template()
    root = ET.fromstring(svg)
    width, height = drawings.template_size_mm()
    assert root.get("width") == f"{width:.2f}mm"
    # Cell centres: the crosshair lines' midpoints; neighbours 40 mm apart.
    lines = [(float(e.get("x1", 0)), float(e.get("y1", 0)), float(e.get("x2", 0)),
              float(e.get("y2", 0))) for e in root.iter(f"{NS}line")]
    half = drawings.SENSOR_MARK_MM / 2
    centres = [((x1 + x2) / 2, y1) for x1, y1, x2, y2 in lines
               if y1 == y2 and math.isclose(x2 - x1, 2 * half, abs_tol=0.02)
               and x2 - x1 > 5]
    assert len(centres) == NUM_CELLS
    a1 = centres[CELL_NAMES.index("A1")]
    b1 = centres[CELL_NAMES.index("B1")]
    a2 = centres[CELL_NAMES.index("A2")]
    k3 = centres[CELL_NAMES.index("K3")]
    a3 = centres[CELL_NAMES.index("A3")]
    assert math.isclose(b1[0] - a1[0], 40.0, abs_tol=0.02) and b1[1] == a1[1]
    assert math.isclose(math.dist(a1, a2), 40.0, abs_tol=0.02)
    assert math.isclose(k3[0] - a3[0], 400.0, abs_tol=0.02)
    assert a1[1] > a2[1]  # row 1 nearest the player (bottom of the page)
    # The 100 mm scale bar is 100 units long.
    assert any(math.isclose(x2 - x1, 100.0) and y1 == y2 for x1, y1, x2, y2 in lines)
    # Every LED hole sits beside its own piece (a piece a little off centre leaves it
    # visible) and well clear of the neighbours' pieces: at 19 mm, 2.5 mm and about 8.9 mm.
    holes = [(float(e.get("cx", 0)), float(e.get("cy", 0))) for e in root.iter(f"{NS}circle")
             if math.isclose(float(e.get("r", 0)), drawings.LED_HOLE_MM / 2)]
    assert len(holes) == NUM_CELLS
    edge = drawings.PIECE_DIAMETER_MM / 2 + drawings.LED_HOLE_MM / 2  # hole touching a piece
    gaps = []
    for hole in holes:
        own, *others = sorted(math.dist(hole, c) for c in centres)
        assert own - edge >= 2.0
        gaps.append(others[0] - edge)
    assert min(gaps) >= 8.0
    assert math.isclose(min(gaps), 8.89, abs_tol=0.05)


def test_template_labels_mux_channel_and_led_index() -> None:
    text = _texts(drawings.placement_template())
    assert "M3.0" in text and "M0.0" in text and "LED 48" in text
    assert all(f"LED {i}" in text.split("\n") for i in range(NUM_CELLS))


def test_committed_drawings_are_up_to_date(tmp_path: Path) -> None:
    drawings.main([str(tmp_path)])
    for name in drawings.DRAWINGS:
        committed = ROOT / "docs" / "build" / name
        assert committed.exists(), "run: python -m hardware.drawings docs/build"
        assert committed.read_text(encoding="utf-8") == (tmp_path / name).read_text(
            encoding="utf-8"), f"{name} is stale: run python -m hardware.drawings docs/build"


def test_no_file_writes_outside_the_folder_given(tmp_path: Path) -> None:
    paths = drawings.write_all(tmp_path / "new")
    assert sorted(p.name for p in paths) == sorted(drawings.DRAWINGS)
    assert re.fullmatch(r"<svg .*", paths[0].read_text().splitlines()[0])
