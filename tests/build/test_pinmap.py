"""One pin map: the firmware's constants, the README's table, the LED driver's default GPIO and
the config example's button numbers all agree with hardware/pinmap.py."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

from engine.geometry import NUM_CELLS
from hardware import pinmap
from hardware.clock import FakeClock
from hardware.leds.factory import DEFAULTS as LED_DEFAULTS
from hardware.sensorboard import mpy_fakes
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable

ROOT = Path(__file__).resolve().parents[2]


def firmware(name: str = "main") -> ModuleType:
    """A firmware module as CPython sees it (with the fakes of machine/rp2 installed)."""
    mpy_fakes.install()
    return importlib.import_module(f"firmware.{name}")


def test_firmware_pins_are_the_pin_map() -> None:
    fw_main = firmware()
    assert tuple(fw_main.SELECT_PINS) == pinmap.PICO_SELECT
    assert tuple(fw_main.ENABLE_PINS) == pinmap.PICO_ENABLE
    assert fw_main.ADC_PIN == pinmap.PICO_ADC
    assert fw_main.LED_PIN == pinmap.PICO_LED
    assert fw_main.MAINT_PIN == pinmap.PICO_MAINT
    assert fw_main.STATUS_LED == pinmap.PICO_STATUS_LED


def test_firmware_docstring_names_the_same_pins() -> None:
    doc = firmware().__doc__ or ""
    s = pinmap.PICO_SELECT
    assert f"GP{s[0]}..GP{s[-1]} mux select" in doc
    e = pinmap.PICO_ENABLE
    assert f"GP{e[0]}..GP{e[-1]} mux enables" in doc
    for gpio in (pinmap.PICO_ADC, pinmap.PICO_LED, pinmap.PICO_MAINT, pinmap.PICO_STATUS_LED):
        assert f"GP{gpio}" in doc


def test_every_cell_is_read_on_the_mux_channel_the_pin_map_says() -> None:
    """Drive the real firmware (emulated) and check which cell the mux bus reads."""
    with SensorBoardEmulator(VirtualTable(), clock=FakeClock()) as emu:
        bus = emu.firmware.bus
        seen = []

        def read() -> int:
            mux = [m for m, pin in enumerate(bus.enable) if pin.value() == 0]
            sel = bus.select
            ch = sel[0].value() | sel[1].value() << 1 | sel[2].value() << 2 | sel[3].value() << 3
            seen.append((mux[0], ch))
            return 32768

        bus.adc.source = read
        raw = [0] * firmware("scanner").CELLS
        bus.read_all(raw)
    assert seen == [pinmap.mux_channel(c) for c in range(NUM_CELLS)]
    assert pinmap.MUX_COUNT * pinmap.MUX_CHANNELS >= NUM_CELLS


def test_readme_pin_table_is_generated_from_the_pin_map() -> None:
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert pinmap.markdown_table(pinmap.pico_pins()) in readme
    leds = (ROOT / "docs" / "build" / "hall-board.md").read_text(encoding="utf-8")
    assert pinmap.markdown_table(pinmap.pi_pins(), "GPIO") in leds


def test_pi_pins_agree_with_the_led_driver_and_the_config_example() -> None:
    assert LED_DEFAULTS["gpio_pin"] == pinmap.PI_LED_PWM
    example = (ROOT / "controller" / "config" / "example.toml").read_text(encoding="utf-8")
    buttons = example.split("[buttons]", 1)[1].split("\n[", 1)[0]
    found = {m[1]: int(m[2]) for m in re.finditer(r"^#? ?(\w+) = (\d+)$", buttons, re.M)}
    assert {k: v for k, v in found.items() if k != "long_press"} == pinmap.PI_BUTTONS


def test_physical_pins() -> None:
    assert pinmap.pico_pin(26) == 31 and pinmap.pico_pin(2) == 4 and pinmap.pico_pin(25) is None
    assert pinmap.pi_pin(18) == 12 and pinmap.pi_pin(10) == 19
    used = [u.pin for u in pinmap.pico_pins() if u.pin is not None]
    assert len(used) == len(set(used))
    used_pi = [u.pin for u in pinmap.pi_pins()]
    assert len(used_pi) == len(set(used_pi))
    with pytest.raises(ValueError):
        pinmap.mux_channel(NUM_CELLS)
