"""The one pin map of the table: the sensor board's Pico and the Raspberry Pi's header.

Everything that names a pin reads it from here: the wiring diagrams and the schematic
(hardware/drawings.py), the pin table in hardware/README.md, the LED driver's default GPIO and
the button numbers suggested in controller/config/example.toml. The firmware runs on the chip
and cannot import the project, so firmware/main.py keeps its own constants;
tests/build/test_pinmap.py fails when any of them drift from this file.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.geometry import CELL_NAMES, NUM_CELLS

# -- Raspberry Pi Pico (sensor board) ---------------------------------------------------------

#: Pico GPIO -> physical pin (the 40-pin DIP numbering, pin 1 next to the USB socket, GP0).
_PICO_GPIO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}
#: The Pico's power and ground pins by physical number.
PICO_POWER_PINS = {
    "GND": (3, 8, 13, 18, 23, 28, 38), "RUN": (30,), "AGND": (33,), "ADC_VREF": (35,),
    "3V3(OUT)": (36,), "3V3_EN": (37,), "VSYS": (39,), "VBUS": (40,),
}

PICO_SELECT = (2, 3, 4, 5)  # mux select S0..S3, shared by the four muxes
PICO_ENABLE = (6, 7, 8, 9)  # mux 0..3 /EN, active low
PICO_ADC = 26  # ADC0: the muxes' joined SIG, through 1 kOhm
PICO_LED = 16  # WS2812 data (PIO0 SM0) -> 74AHCT125 -> 330 Ohm -> strip DIN
PICO_MAINT = 22  # maintenance jumper to GND at power-up: the firmware stays at the REPL
PICO_STATUS_LED = 25  # the on-board LED: toggles with every snapshot (no header pin)
#: Physical GND pins: the sensors' return (beside VBUS, which feeds their LDO) and the LED side
#: (beside GP16, the data line): the sensors' current never flows through AGND.
SENSOR_GND_PIN = 38
LED_GND_PIN = 23
MUX_CHANNELS = 16
MUX_COUNT = len(PICO_ENABLE)


def pico_pin(gpio: int) -> int | None:
    """Physical pin of a Pico GPIO (None for GP23-25, which are on the board only)."""
    return _PICO_GPIO_PIN.get(gpio)


def mux_channel(cell: int) -> tuple[int, int]:
    """(mux, channel) that reads ``cell`` (0..48): mux ``cell // 16``, channel ``cell % 16``."""
    if not 0 <= cell < NUM_CELLS:
        raise ValueError(f"cell must be 0..{NUM_CELLS - 1}, got {cell!r}")
    return divmod(cell, MUX_CHANNELS)


def mux_cells(mux: int) -> list[int]:
    """The cells on ``mux``, by channel."""
    return [c for c in range(NUM_CELLS) if c // MUX_CHANNELS == mux]


@dataclass(frozen=True)
class PinUse:
    """One pin of a pin map: GPIO number (None for power), physical pin, signal, meaning."""

    gpio: int | None
    pin: int | None
    signal: str
    meaning: str

    def label(self, prefix: str = "GP") -> str:
        """``GP16`` (Pico), ``GPIO18`` (Pi, prefix "GPIO") or the power pin's name."""
        return f"{prefix}{self.gpio}" if self.gpio is not None else self.signal


def _mux_range(mux: int) -> str:
    cells = mux_cells(mux)
    if len(cells) == 1:
        return f"cell {cells[0]} ({CELL_NAMES[cells[0]]}) on channel 0"
    return f"cells {cells[0]}-{cells[-1]} ({CELL_NAMES[cells[0]]} ... {CELL_NAMES[cells[-1]]})"


def pico_pins() -> list[PinUse]:
    """Every Pico pin the sensor board uses, in GPIO order, then the power pins."""
    uses = [PinUse(g, pico_pin(g), f"S{i}", f"mux select S{i} (all four muxes)")
            for i, g in enumerate(PICO_SELECT)]
    uses += [PinUse(g, pico_pin(g), f"/EN{m}", f"mux {m} /EN (active low): {_mux_range(m)}")
             for m, g in enumerate(PICO_ENABLE)]
    uses += [
        PinUse(PICO_LED, pico_pin(PICO_LED), "LED_DATA",
               "WS2812 data (PIO0 SM0) -> 74AHCT125 (10 kOhm to GND at 1A) -> 330 Ohm -> "
               "strip DIN"),
        PinUse(PICO_MAINT, pico_pin(PICO_MAINT), "MAINT",
               "maintenance jumper to GND at power-up: the firmware stays at the REPL"),
        PinUse(PICO_STATUS_LED, None, "STATUS", "on-board LED: toggles with every snapshot"),
        PinUse(PICO_ADC, pico_pin(PICO_ADC), "ADC0",
               "the four muxes' joined SIG, via 1 kOhm (1 nF to AGND)"),
        PinUse(None, 36, "3V3(OUT)", "the muxes' VCC (the sensors have their own 3.3 V LDO)"),
        PinUse(None, 35, "ADC_VREF",
               "wire to 3V3_SENS, the sensors' LDO output (the Pico ties it to its own 3V3 "
               "through 200 Ohm)"),
        PinUse(None, 33, "AGND", "the ADC filter's 1 nF and the muxes' GND only"),
        PinUse(None, SENSOR_GND_PIN, "GND",
               "ground of the sensors' LDO and the sensors' ground bus (not AGND)"),
        PinUse(None, LED_GND_PIN, "GND",
               "ground of the level shifter and the LED supply (one point)"),
        PinUse(None, 40, "VBUS",
               "5 V from USB: the 74AHCT125 and the sensors' LDO, never the LEDs"),
    ]
    return uses


# -- Raspberry Pi 40-pin header ---------------------------------------------------------------

#: BCM GPIO -> physical header pin (all 40-pin models, Pi 1 B+ to Pi 5).
_PI_GPIO_PIN = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19,
    9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
    16: 36, 26: 37, 20: 38, 21: 40,
}
PI_POWER_PINS = {"3V3": (1, 17), "5V": (2, 4), "GND": (6, 9, 14, 20, 25, 30, 34, 39)}

PI_LED_PWM = 18  # [leds] backend = "ws281x" (Pi 1-4): PWM0, the driver's default gpio_pin
PI_LED_SPI = 10  # [leds] backend = "spi" (Pi 5, or any Pi): SPI0 MOSI
#: The button GPIOs the docs and controller/config/example.toml suggest (any free GPIO works).
PI_BUTTONS: dict[str, int] = {"confirm": 5, "next": 6, "undo": 13, "hint": 19, "new": 26,
                              "clock": 21}


def pi_pin(gpio: int) -> int:
    """Physical header pin of a BCM GPIO."""
    return _PI_GPIO_PIN[gpio]


def pi_pins() -> list[PinUse]:
    """Every header pin the table uses on the Pi (LED data: one of the two)."""
    uses = [
        PinUse(PI_LED_PWM, pi_pin(PI_LED_PWM), "LED_PWM",
               'LED data for backend "ws281x" (Pi 1-4), via 74AHCT125'),
        PinUse(PI_LED_SPI, pi_pin(PI_LED_SPI), "LED_SPI",
               'LED data for backend "spi" (Pi 5 or any Pi), via 74AHCT125'),
    ]
    uses += [PinUse(g, pi_pin(g), name.upper(), f"button '{name}' to GND (internal pull-up)")
             for name, g in PI_BUTTONS.items()]
    uses += [
        PinUse(None, 2, "5V", "5 V of the Pi's supply: the 74AHCT125 only"),
        PinUse(None, 6, "GND", "common ground with the LED supply and the buttons"),
    ]
    return uses


def markdown_table(uses: list[PinUse], prefix: str = "GP") -> str:
    """The pin map as a Markdown table (pasted into the docs; a test compares)."""
    lines = ["| GPIO | pin | function |", "|---|---|---|"]
    for u in uses:
        pin = "—" if u.pin is None else str(u.pin)
        name = u.label(prefix)
        if prefix == "GP" and u.gpio == PICO_ADC:
            name += " / ADC0"
        lines.append(f"| {name} | {pin} | {u.meaning} |")
    return "\n".join(lines) + "\n"
