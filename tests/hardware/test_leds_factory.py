"""strip_from_config: backend choice (argument, $DVONN_LEDS, config), keys and their errors."""

from __future__ import annotations

import io
import sys
import types
from typing import Any

import pytest

from engine.errors import ConfigError
from hardware.leds import (
    NullStrip,
    RecordingStrip,
    SensorBoardStrip,
    TerminalStrip,
    strip_from_config,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DVONN_LEDS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


class Link:
    def __init__(self) -> None:
        self.payloads: list[bytes] = []

    def send_leds(self, payload: bytes) -> None:
        self.payloads.append(payload)


def test_default_is_a_plain_terminal_for_a_pipe() -> None:
    strip = strip_from_config({}, stream=io.StringIO())
    assert isinstance(strip, TerminalStrip)
    assert strip.colour is False
    assert strip.encoder.gamma == 2.2 and strip.encoder.max_current_ma == 2000


def test_keys_reach_layout_and_encoder() -> None:
    strip = strip_from_config({
        "backend": "recording", "wiring": "serpentine", "rotate180": True, "mirror": True,
        "leds_per_cell": 2, "status_leds": 4, "skip": [1, 0, 0, 1], "brightness": 0.25,
        "gamma": 1, "max_current_ma": 0, "ma_per_channel": 12, "idle_ma": 0.5,
        "order": "rgb",
    })
    assert isinstance(strip, RecordingStrip)
    layout = strip.layout
    assert (layout.wiring, layout.rotate180, layout.mirror) == ("serpentine", True, True)
    assert layout.led_count == 98 + 2 + 4 and layout.skip == (1, 0, 0, 1)
    assert strip.brightness == 0.25 and strip.encoder.order == "RGB"
    assert strip.encoder.max_current_ma is None  # 0 means no limit
    assert strip.encoder.ma_per_channel == 12 and strip.encoder.idle_ma == 0.5


def test_environment_overrides_config_and_argument_overrides_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DVONN_LEDS", "none")
    assert isinstance(strip_from_config({"backend": "recording"}), NullStrip)
    strip = strip_from_config({"backend": "terminal"}, backend="recording")
    assert isinstance(strip, RecordingStrip)


def test_bad_environment_value_says_where(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DVONN_LEDS", "neopixel")
    with pytest.raises(ConfigError, match="DVONN_LEDS") as info:
        strip_from_config({})
    assert info.value.key == "leds.backend"
    assert "ws281x, spi, sensor-board, terminal, recording, none" in str(info.value)


def test_sensor_board_needs_the_link() -> None:
    with pytest.raises(ConfigError, match="no sensor board link"):
        strip_from_config({"backend": "sensor-board"})
    link = Link()
    strip = strip_from_config({"backend": "sensor-board", "gamma": 1.0}, link=link)
    assert isinstance(strip, SensorBoardStrip)
    strip.show()
    assert link.payloads == [bytes(147)]


def test_terminal_colour_key_and_stream() -> None:
    out = io.StringIO()
    strip = strip_from_config({"colour": True}, stream=out)
    assert isinstance(strip, TerminalStrip) and strip.colour and strip.stream is out
    with pytest.raises(ConfigError) as info:
        strip_from_config({"colour": "auto"}, stream=out)
    assert info.value.key == "leds.colour"


@pytest.mark.parametrize(("section", "key", "words"), [
    ({"backend": "neopixel"}, "leds.backend", "not one of ws281x, spi"),
    ({"brigthness": 0.5}, "leds.brigthness", "unknown key; known keys: backend"),
    ({"wiring": "zigzag"}, "leds.wiring", "rows, serpentine"),
    ({"brightness": 2}, "leds.brightness", "0..1"),
    ({"gamma": "2.2"}, "leds.gamma", "number"),
    ({"order": "GRBW"}, "leds.order", "RGB, RBG, GRB"),
    ({"order": 3}, "leds.order", "GRB"),
    ({"max_current_ma": -5}, "leds.max_current_ma", "number"),
    ({"leds_per_cell": 12}, "leds.leds_per_cell", "1..8"),
    ({"skip": [1, 2]}, "leds.skip", "one per gap"),
    ({"backend": "spi", "spi_hz": 10_000_000}, "leds.spi_hz", "2_200_000..3_000_000"),
    ({"backend": "ws281x", "gpio_pin": 4}, "leds.gpio_pin", "10, 12, 13, 18, 19, 21"),
    ({"backend": "ws281x", "gpio_pin": [18]}, "leds.gpio_pin", "got [18]"),
])
def test_bad_config_names_the_key(section: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        strip_from_config(section, stream=io.StringIO())
    assert info.value.key == key
    assert words in str(info.value)


def test_section_must_be_a_table() -> None:
    with pytest.raises(ConfigError) as info:
        strip_from_config(["backend"], stream=io.StringIO())  # type: ignore[arg-type]
    assert info.value.key == "leds"


def test_hardware_backends_through_fake_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, tuple[Any, ...]]] = []

    class Spi:
        def open(self, bus: int, device: int) -> None:
            made.append(("spi", (bus, device)))

        def writebytes2(self, data: bytes) -> None:
            pass

        def close(self) -> None:
            pass

    class Pixels:
        def __init__(self, *args: Any) -> None:
            made.append(("ws281x", args))

        def begin(self) -> None:
            pass

        def setPixelColor(self, n: int, color: int) -> None:  # noqa: N802 - library's name
            pass

        def show(self) -> None:
            pass

    spidev = types.ModuleType("spidev")
    spidev.SpiDev = Spi  # type: ignore[attr-defined]
    ws = types.ModuleType("rpi_ws281x")
    ws.PixelStrip = Pixels  # type: ignore[attr-defined]
    ws.ws = types.SimpleNamespace(WS2811_STRIP_RGB=1)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", spidev)
    monkeypatch.setitem(sys.modules, "rpi_ws281x", ws)
    with strip_from_config({"backend": "spi", "spi_bus": 1, "spi_device": 2,
                            "spi_hz": 6_400_000}) as spi_strip:
        spi_strip.show()
    with strip_from_config({"backend": "ws281x", "gpio_pin": 13, "dma": 11}) as ws_strip:
        ws_strip.show()
    assert made == [("spi", (1, 2)), ("ws281x", (49, 13, 800_000, 11, False, 255, 1, 1))]
