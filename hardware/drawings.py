"""The build drawings as SVG, generated from the pin map (hardware/pinmap.py), the board
geometry (engine.geometry) and the LED layout (hardware.leds.layout):

- ``sensorboard_schematic()``: Pico, the four muxes, the 49 sensors, 3.3 V LDO, LED level
  shifter and strip, by net name (same name = same wire);
- ``pi_wiring()``: the Raspberry Pi's 40-pin header with the LED data line and the buttons;
- ``placement_template()``: the top of the table at true scale in millimetres: every space's
  centre (hall sensor), LED hole, piece outline, name, mux channel and LED index.

``python -m hardware.drawings DIR`` writes them (docs/build/ holds the committed copies; a
test regenerates and compares them). Pure standard library: works on a hall-only install.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from engine.geometry import CELL_NAMES, NUM_CELLS, board_xy
from hardware import pinmap
from hardware.leds.layout import LedLayout

PITCH_MM = 40.0
PIECE_DIAMETER_MM = 0.7 * PITCH_MM  # 28 mm, as the camera geometry contract
LED_OFFSET_MM = 19.0  # LED centre from the space's centre, toward row 1: 2.5 mm off the piece
LED_HOLE_MM = 5.0
SENSOR_MARK_MM = 6.0  # the crosshair at the space's centre
TEMPLATE_WIRING = "serpentine"  # the wiring the docs recommend (fewest return wires)
FONT = "font-family=\"DejaVu Sans, Arial, sans-serif\""


class Svg:
    """A tiny SVG writer in millimetres (viewBox units = mm, y down)."""

    def __init__(self, width: float, height: float, title: str) -> None:
        self.width, self.height = width, height
        self.items: list[str] = [f"<title>{escape(title)}</title>",
                                 f'<rect x="0" y="0" width="{width:.2f}" height="{height:.2f}" '
                                 'fill="white"/>']

    def line(self, x1: float, y1: float, x2: float, y2: float, *, width: float = 0.3,
             colour: str = "black", dash: str = "") -> None:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<line x1="{x1:.2f}" y1="{y1:.2f}" x2="{x2:.2f}" y2="{y2:.2f}" '
                          f'stroke="{colour}" stroke-width="{width}"{extra}/>')

    def polyline(self, pts: Iterable[tuple[float, float]], *, width: float = 0.3,
                 colour: str = "black", closed: bool = False, fill: str = "none") -> None:
        tag = "polygon" if closed else "polyline"
        text = " ".join(f"{x:.2f},{y:.2f}" for x, y in pts)
        self.items.append(f'<{tag} points="{text}" fill="{fill}" stroke="{colour}" '
                          f'stroke-width="{width}"/>')

    def rect(self, x: float, y: float, w: float, h: float, *, fill: str = "none",
             colour: str = "black", width: float = 0.4) -> None:
        self.items.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" '
                          f'fill="{fill}" stroke="{colour}" stroke-width="{width}"/>')

    def circle(self, x: float, y: float, r: float, *, fill: str = "none", colour: str = "black",
               width: float = 0.3, dash: str = "") -> None:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{r:.2f}" fill="{fill}" '
                          f'stroke="{colour}" stroke-width="{width}"{extra}/>')

    def text(self, x: float, y: float, s: str, *, size: float = 3.0, anchor: str = "start",
             colour: str = "black", bold: bool = False) -> None:
        weight = ' font-weight="bold"' if bold else ""
        self.items.append(f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size}" {FONT} '
                          f'text-anchor="{anchor}" fill="{colour}"{weight}>{escape(s)}</text>')

    def render(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.2f}mm" '
                f'height="{self.height:.2f}mm" viewBox="0 0 {self.width:.2f} {self.height:.2f}">')
        return "\n".join([head, *self.items, "</svg>"]) + "\n"


def _resistor(svg: Svg, x: float, y: float, label: str) -> None:
    """A horizontal resistor body from x to x+8 at height y."""
    svg.rect(x, y - 1.2, 8, 2.4)
    svg.text(x + 4, y - 2, label, size=2.2, anchor="middle")


def _note_box(svg: Svg, x: float, y: float, height: float, fill: str, title: str,
              lines: Sequence[str], *, top: float = 10.0, step: float = 3.6,
              size: float = 2.3) -> None:
    """A 68 mm wide box of the schematic: a bold title, then one line of text each."""
    svg.rect(x, y, 68, height, fill=fill)
    svg.text(x + 34, y + 5, title, size=2.8, anchor="middle", bold=True)
    for i, text in enumerate(lines):
        svg.text(x + 3, y + top + i * step, text, size=size)


def _capacitor_to_ground(svg: Svg, x: float, y: float, label: str) -> None:
    """A capacitor hanging from (x, y) to a ground symbol."""
    svg.line(x, y, x, y + 3)
    svg.line(x - 2.5, y + 3, x + 2.5, y + 3, width=0.5)
    svg.line(x - 2.5, y + 4.2, x + 2.5, y + 4.2, width=0.5)
    svg.line(x, y + 4.2, x, y + 7)
    _ground(svg, x, y + 7)
    svg.text(x + 3.5, y + 4.5, label, size=2.2)


def _ground(svg: Svg, x: float, y: float) -> None:
    for i, half in enumerate((2.4, 1.5, 0.6)):
        svg.line(x - half, y + i * 0.8, x + half, y + i * 0.8)


# -- the sensor board ---------------------------------------------------------------------

def sensorboard_schematic() -> str:
    """The sensor board: Pico, muxes, sensors, LDO, level shifter and LEDs, by net name."""
    svg = Svg(420.0, 297.0, "dvonn-board sensor board schematic")
    svg.text(10, 12, "dvonn-board sensor board (Raspberry Pi Pico, 4 x CD74HC4067, 49 linear "
             "hall sensors, WS2812B)", size=5, bold=True)
    svg.text(10, 18.5, "Labels name nets: the same name is the same wire. Generated from "
             "hardware/pinmap.py; pin numbers are the Pico's physical pins (pin).", size=3)
    # The Pico, pins on its right side.
    pico_pins = [u for u in pinmap.pico_pins() if u.pin is not None]
    x0, y0, row = 14.0, 30.0, 9.0
    svg.rect(x0, y0, 48, row * len(pico_pins) + 8, fill="#eef6ee")
    svg.text(x0 + 24, y0 + 6, "Raspberry Pi Pico", size=3.6, anchor="middle", bold=True)
    nets: dict[str, tuple[float, float]] = {}
    for i, u in enumerate(pico_pins):
        y = y0 + 12 + i * row
        svg.text(x0 + 46, y + 1, f"{u.label()} (pin {u.pin})", size=2.6, anchor="end")
        svg.line(x0 + 48, y, x0 + 66, y)
        svg.circle(x0 + 66, y, 0.6, fill="black")
        net = f"{u.signal} = 3V3_SENS" if u.signal == "ADC_VREF" else u.signal
        svg.text(x0 + 68, y + 1, net, size=2.6)
        nets[u.signal] = (x0 + 66, y)
    svg.text(x0, y0 + row * len(pico_pins) + 14,
             f"GP{pinmap.PICO_STATUS_LED}: on-board LED, heartbeat (no pin)", size=2.4)
    svg.text(x0, y0 + row * len(pico_pins) + 19, "ADC filter 1 kOhm + 1 nF (tau = 1 us): the "
             "firmware waits", size=2.4)
    svg.text(x0, y0 + row * len(pico_pins) + 22.5, "20 us after every select or enable change "
             "before it reads.", size=2.4)
    # ADC input filter.
    ax, ay = nets["ADC0"]
    svg.line(ax + 12, ay, ax + 22, ay)
    _resistor(svg, ax + 22, ay, "1 kOhm")
    svg.line(ax + 30, ay, ax + 36, ay)
    svg.text(ax + 37, ay + 1, "SIG", size=2.6)
    _capacitor_to_ground(svg, ax + 17, ay, "1 nF to AGND")

    # The four multiplexers.
    mx, my, mh = 150.0, 30.0, 58.0
    for m, en in enumerate(pinmap.PICO_ENABLE):
        top = my + m * (mh + 4)
        svg.rect(mx, top, 34, mh, fill="#eef0fa")
        svg.text(mx + 17, top + 5, f"mux {m}: CD74HC4067", size=2.8, anchor="middle", bold=True)
        left = [("S0", "S0"), ("S1", "S1"), ("S2", "S2"), ("S3", "S3"), ("/E", f"/EN{m}"),
                ("SIG", "SIG"), ("VCC", "3V3(OUT)"), ("GND", "AGND")]
        for i, (pin, net) in enumerate(left):
            y = top + 10 + i * 5.8
            svg.line(mx - 10, y, mx, y)
            svg.text(mx + 1.5, y + 1, pin, size=2.3)
            svg.text(mx - 11, y + 1, f"{net} (GP{en})" if pin == "/E" else net, size=2.3,
                     anchor="end")
        cells = pinmap.mux_cells(m)
        for ch in range(pinmap.MUX_CHANNELS):
            y = top + 8 + ch * 3.15
            svg.line(mx + 34, y, mx + 40, y, width=0.2)
            svg.text(mx + 33, y + 0.8, f"C{ch}", size=1.9, anchor="end")
            label = (f"{CELL_NAMES[cells[ch]]} (cell {cells[ch]})" if ch < len(cells)
                     else "unused: tie to AGND")
            svg.text(mx + 41, y + 0.8, label, size=1.9)
    svg.text(mx - 10, my + 4 * (mh + 4) + 4, "Cell c is on mux c // 16, channel c % 16. "
             "100 nF from VCC to GND at every mux.", size=2.5)

    # One hall sensor (x 49).
    sx, sy = 262.0, 34.0
    svg.rect(sx, sy, 68, 46, fill="#fbf3e6")
    svg.text(sx + 34, sy + 5, "hall sensor x 49 (one per space)", size=2.8, anchor="middle",
             bold=True)
    svg.text(sx + 3, sy + 11, "TI DRV5055A3 (TO-92), 15 mV/mT, +-88 mT", size=2.4)
    for i, (pin, net) in enumerate((("VCC", "3V3_SENS"),
                                    ("GND", f"GND (pin {pinmap.SENSOR_GND_PIN}), not AGND"),
                                    ("OUT", "mux m, channel C(c % 16)"))):
        y = sy + 18 + i * 7
        svg.text(sx + 3, y + 1, pin, size=2.5)
        svg.line(sx + 12, y, sx + 24, y)
        svg.text(sx + 25, y + 1, net, size=2.4)
    svg.text(sx + 3, sy + 41, "100 nF across VCC-GND at the sensor; 10 uF per row", size=2.3)

    # The sensors' own 3.3 V regulator.
    _note_box(svg, 262.0, 86.0, 34, "#fbf3e6", "3.3 V LDO (sensors), 1 A", (
        "MCP1826S-3302E/DB (SOT-223) or TLV75733P,",
        "10 uF in and out; dropout about 0.25 V at 1 A",
        "(not AMS1117: 1.1-1.3 V dropout)",
        "49 x DRV5055A3: 294 mA typical, 490 mA max",
        "IN: VBUS (pin 40) only, never the LED supply",
        "OUT: 3V3_SENS -> sensors' VCC, ADC_VREF",
        f"GND: GND (pin {pinmap.SENSOR_GND_PIN}), not AGND"), size=2.2)

    # The LED data path.
    kx, ky = 262.0, 126.0
    svg.rect(kx, ky, 68, 34, fill="#f6eef6")
    svg.text(kx + 34, ky + 5, "74AHCT125 level shifter", size=2.8, anchor="middle", bold=True)
    for i, (pin, net) in enumerate((("1A", f"LED_DATA (GP{pinmap.PICO_LED}), 10 kOhm to GND"),
                                    ("1OE", "GND"), ("VCC", "VBUS (5 V)"),
                                    ("GND", f"GND (pin {pinmap.LED_GND_PIN})"),
                                    ("1Y", "330 Ohm -> DIN of LED 0"))):
        y = ky + 11 + i * 4.8
        svg.text(kx + 3, y + 1, pin, size=2.4)
        svg.text(kx + 13, y + 1, net, size=2.4)
    svg.text(kx, ky + 38.5, "Unused inputs 2A-4A to GND, their OE to 5 V. The pull-down", size=2.3)
    svg.text(kx, ky + 42, "keeps DIN low until the firmware drives the line.", size=2.3)

    # The LED chain and its supply.
    _note_box(svg, 262.0, 174.0, 40, "#eef6fa", "WS2812B x 49 (one per space)", (
        "DIN <- 330 Ohm <- 1Y", "DOUT -> DIN of the next LED",
        "5V, GND <- 0.75 mm2 bus along each row", "(power never through the thin pixel "
        "jumpers)", "1000 uF, 10 V across 5 V/GND at LED 0",
        "GND of supply, Pico and shifter joined"), top=11.0, step=4.6)
    _note_box(svg, 262.0, 220.0, 26, "#eef6fa", "5 V LED supply, 4 A", (
        "certified external adapter (e.g. GST25E05)",
        "fuse T5A at its output, before the buses",
        "output trimmed to 5.2 V at most",
        "leds.max_current_ma = 80 % of its rating",
        "(4 A: 3200)"))
    svg.text(262, 254, "USB: Pico <-> Raspberry Pi (power and data)", size=2.6)
    svg.text(262, 260, f"GP{pinmap.PICO_MAINT}: jumper to GND = maintenance mode", size=2.6)
    return svg.render()


# -- the Raspberry Pi header --------------------------------------------------------------

def pi_wiring() -> str:
    """The Pi's 40-pin header, the pins the table uses, buttons and the LED data line."""
    svg = Svg(297.0, 210.0, "dvonn-board Raspberry Pi wiring")
    svg.text(10, 12, "Raspberry Pi 40-pin header: LEDs and buttons", size=5, bold=True)
    svg.text(10, 18.5, "Pin numbers as on pinout.xyz (run `pinout` on the Pi to see your "
             "board): odd pins in one row, even pins (5V, 5V, GND...) on the board's edge.",
             size=3)
    svg.text(10, 23, "Generated from hardware/pinmap.py.", size=3)
    used = {u.pin: u for u in pinmap.pi_pins() if u.pin is not None}
    gpio_at = {pinmap.pi_pin(g): g for g in range(28) if g in _pi_gpios()}
    power_at = {p: name for name, pins in pinmap.PI_POWER_PINS.items() for p in pins}
    hx, hy, step = 120.0, 28.0, 8.0
    svg.rect(hx - 3.5, hy - 4, step + 7, 19 * step + 8, fill="#222", width=0.2)
    for pin in range(1, 41):
        r, c = (pin - 1) // 2, (pin - 1) % 2
        x, y = hx + c * step, hy + r * step
        u = used.get(pin)
        colour = ("#d33" if power_at.get(pin) == "5V" else "#f90" if power_at.get(pin) == "3V3"
                  else "#666" if power_at.get(pin) == "GND" else "#ccc")
        svg.circle(x, y, 2.4, fill="#4caf50" if u and u.gpio is not None else colour,
                   colour="white", width=0.4)
        svg.text(x, y + 0.9, str(pin), size=2.2, anchor="middle",
                 colour="white" if colour != "#ccc" else "black")
        name = power_at.get(pin) or (f"GPIO{gpio_at[pin]}" if pin in gpio_at else "")
        if c == 0:
            svg.text(x - 5, y + 1, name, size=2.3, anchor="end")
        else:
            svg.text(x + 5, y + 1, name, size=2.3)
        if u is None:
            continue
        label = f"{u.label('GPIO')} (pin {u.pin}): {u.meaning}"
        if c == 0:
            svg.line(x - 16, y, 8, y, width=0.25, colour="#4caf50", dash="1,1")
            svg.text(8, y - 1, label, size=2.3)
        else:
            svg.line(x + 18, y, 185, y, width=0.25, colour="#4caf50", dash="1,1")
            svg.text(186, y + 1, label, size=2.3)
    # Buttons: momentary switch from the GPIO to GND.
    bx, by = 186.0, 150.0
    svg.text(bx, by, "Each button: GPIO -> switch -> GND.", size=2.8, bold=True)
    svg.text(bx, by + 5, "No resistor: gpiozero turns on the internal pull-up,", size=2.5)
    svg.text(bx, by + 9.5, "the pin reads low while pressed.", size=2.5)
    svg.line(bx + 2, by + 18, bx + 12, by + 18)
    svg.line(bx + 12, by + 18, bx + 20, by + 14)
    svg.line(bx + 21, by + 18, bx + 30, by + 18)
    svg.circle(bx + 12, by + 18, 0.7, fill="black")
    svg.circle(bx + 21, by + 18, 0.7, fill="black")
    svg.text(bx, by + 23, "GPIO", size=2.4)
    svg.text(bx + 26, by + 23, "GND", size=2.4)
    _ground(svg, bx + 30, by + 18)
    # LED data path.
    svg.text(10, 196, f"LED data: GPIO{pinmap.PI_LED_PWM} (ws281x, Pi 1-4) or "
             f"GPIO{pinmap.PI_LED_SPI} (spi, Pi 5) -> 74AHCT125 1A (VCC = 5V pin 2, 1OE = GND) "
             "-> 1Y -> 330 Ohm -> DIN of LED 0; 10 kOhm from 1A to GND.", size=2.6)
    svg.text(10, 201, "Never power the LEDs from the Pi: their own 5 V supply (fused), grounds "
             "joined. Or drive them from the sensor board (backend \"sensor-board\").", size=2.6)
    return svg.render()


def _pi_gpios() -> set[int]:
    return {g for g in range(28) if g in pinmap._PI_GPIO_PIN}


# -- the placement / drilling template ----------------------------------------------------

OUTLINE_MM = 28.0  # the board's edge: this far outside the outer spaces' centres
#: Template margins around the cells' centres: left/right, top (legend), bottom (scale bar).
MARGIN_SIDE_MM = OUTLINE_MM + 6.0
MARGIN_TOP_MM = OUTLINE_MM + 24.0
MARGIN_BOTTOM_MM = OUTLINE_MM + 16.0


def _cell_positions(pitch: float) -> list[tuple[float, float]]:
    """Cell centres in template coordinates (mm, y down, row 5 at the top)."""
    pts = [board_xy(c, pitch) for c in range(NUM_CELLS)]
    ox = -min(p[0] for p in pts) + MARGIN_SIDE_MM
    oy = max(p[1] for p in pts) + MARGIN_TOP_MM
    return [(x + ox, oy - y) for x, y in pts]


def template_size_mm(pitch: float = PITCH_MM) -> tuple[float, float]:
    """Width and height of the template in mm."""
    pts = [board_xy(c, pitch) for c in range(NUM_CELLS)]
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return (max(xs) - min(xs) + 2 * MARGIN_SIDE_MM,
            max(ys) - min(ys) + MARGIN_TOP_MM + MARGIN_BOTTOM_MM)


def led_position_mm(centre: tuple[float, float]) -> tuple[float, float]:
    """The LED hole of a space: LED_OFFSET_MM toward row 1 (down on the template)."""
    return (centre[0], centre[1] + LED_OFFSET_MM)


def _offset_polygon(pts: list[tuple[float, float]], d: float) -> list[tuple[float, float]]:
    """A convex polygon (clockwise on screen, y down) moved ``d`` outward, edge by edge."""
    n = len(pts)
    lines = []
    for i in range(n):
        (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % n]
        length = math.hypot(x2 - x1, y2 - y1)
        nx, ny = (y2 - y1) / length, -(x2 - x1) / length  # outward for clockwise (y down)
        lines.append(((x1 + nx * d, y1 + ny * d), (x2 - x1, y2 - y1)))
    out = []
    for i in range(n):
        (p, r), (q, s) = lines[i - 1], lines[i]
        cross = r[0] * s[1] - r[1] * s[0]
        t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / cross
        out.append((p[0] + t * r[0], p[1] + t * r[1]))
    return out


def placement_template(pitch: float = PITCH_MM, wiring: str = TEMPLATE_WIRING) -> str:
    """The table top at true scale (1 unit = 1 mm): tape it on the TOP face and drill."""
    width, height = template_size_mm(pitch)
    svg = Svg(width, height, "dvonn-board placement and drilling template (true scale)")
    centres = _cell_positions(pitch)
    layout = LedLayout(wiring=wiring)
    # Board outline: the hexagon through the corner spaces, moved OUTLINE_MM outward.
    corners = [centres[CELL_NAMES.index(n)] for n in ("A1", "A3", "C5", "K5", "K3", "I1")]
    svg.polyline(_offset_polygon(corners, OUTLINE_MM), closed=True, width=0.5, colour="#888")
    for c, (x, y) in enumerate(centres):
        svg.circle(x, y, PIECE_DIAMETER_MM / 2, colour="#999", dash="2,1.5", width=0.25)
        h = SENSOR_MARK_MM / 2
        svg.line(x - h, y, x + h, y, width=0.25)
        svg.line(x, y - h, x, y + h, width=0.25)
        lx, ly = led_position_mm((x, y))
        svg.circle(lx, ly, LED_HOLE_MM / 2, width=0.3, colour="#1565c0")
        svg.line(lx - 1, ly, lx + 1, ly, width=0.2, colour="#1565c0")
        svg.line(lx, ly - 1, lx, ly + 1, width=0.2, colour="#1565c0")
        mux, ch = pinmap.mux_channel(c)
        svg.text(x, y - 6.5, CELL_NAMES[c], size=4.0, anchor="middle", bold=True)
        svg.text(x - 2.5, y + 5.5, f"M{mux}.{ch}", size=2.3, anchor="end", colour="#a0522d")
        svg.text(lx + 3.2, ly + 0.8, f"LED {layout.led_indices(c)[0]}", size=2.3,
                 colour="#1565c0")
    # Legend and a scale bar to check the print.
    svg.text(6, 8, "dvonn-board template, TOP VIEW, 1:1. Tape on the top face (row 1 toward "
             "you); do not flip.", size=3.4, bold=True)
    svg.text(6, 13, f"+ hall sensor at the centre of each space (pitch {pitch:g} mm); "
             f"blue: {LED_HOLE_MM:g} mm LED hole {LED_OFFSET_MM:g} mm toward row 1; dashed: "
             f"the {PIECE_DIAMETER_MM:g} mm piece.", size=2.6)
    svg.text(6, 17.5, f"M<mux>.<channel>: the sensor's mux input; LED n: its place on a "
             f"'{wiring}' LED chain from A1. Check the 100 mm bar with a ruler.", size=2.6)
    bar_y = height - 8
    svg.line(6, bar_y, 106, bar_y, width=0.6)
    for i in range(11):
        svg.line(6 + 10 * i, bar_y - (2 if i % 5 else 3.5), 6 + 10 * i, bar_y, width=0.3)
    svg.text(56, bar_y + 4, "100 mm", size=3, anchor="middle")
    return svg.render()


# -- writing ------------------------------------------------------------------------------

#: File name -> generator of docs/build/.
DRAWINGS = {
    "sensorboard-schematic.svg": sensorboard_schematic,
    "pi-wiring.svg": pi_wiring,
    "placement-template.svg": placement_template,
}


def write_all(folder: str | Path) -> list[Path]:
    """Write every drawing into ``folder`` (made if missing); returns the paths."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in DRAWINGS.items():
        path = out / name
        path.write_text(make(), encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hardware.drawings",
                                     description="write the build drawings (SVG)")
    parser.add_argument("folder", nargs="?", default="docs/build")
    args = parser.parse_args(argv)
    for path in write_all(args.folder):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
