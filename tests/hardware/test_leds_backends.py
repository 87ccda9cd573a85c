"""Backends: SPI and ws281x encoders byte for byte, the devices through fake modules, the
sensor-board strip, the recording strip and the terminal drawing."""

from __future__ import annotations

import io
import sys
import types
from typing import Any

import pytest

from engine.errors import ConfigError
from hardware.leds import LedLayout, RecordingStrip, SensorBoardStrip, TerminalStrip
from hardware.leds.spi import SpiStrip, bits_per_bit, encode_spi, reset_bytes
from hardware.leds.ws281x import Ws281xStrip, check_pin, pack_words

BLACK = (0, 0, 0)


def one_lit(cell: int, colour: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    cells = [BLACK] * 49
    cells[cell] = colour
    return cells


# -- SPI ------------------------------------------------------------------------------------
def test_spi_3_bit_encoding() -> None:
    # 0 -> 100, 1 -> 110; eight data bits make 24 SPI bits = 3 bytes.
    assert encode_spi(b"\x00", 2_400_000, reset_us=0) == bytes([0x92, 0x49, 0x24])
    assert encode_spi(b"\xff", 2_400_000, reset_us=0) == bytes([0xDB, 0x6D, 0xB6])
    assert encode_spi(b"\x80", 2_400_000, reset_us=0) == bytes([0xD2, 0x49, 0x24])


def test_spi_8_bit_encoding() -> None:
    # 0 -> 11000000, 1 -> 11111000.
    assert encode_spi(b"\xa5", 6_400_000, reset_us=0) == bytes(
        [0xF8, 0xC0, 0xF8, 0xC0, 0xC0, 0xF8, 0xC0, 0xF8])


def test_spi_reset_gap() -> None:
    assert reset_bytes(2_400_000, 300) == 90  # 300 us * 2.4 MHz / 8 bits
    assert reset_bytes(6_400_000, 300) == 240
    out = encode_spi(b"\x00\xff", 2_400_000)
    assert len(out) == 6 + 90
    assert out[6:] == bytes(90)


@pytest.mark.parametrize("hz", [1_000_000, 4_000_000, 8_000_000, True, 2.4e6])
def test_spi_rejects_unusable_clocks(hz: Any) -> None:
    with pytest.raises(ConfigError) as info:
        bits_per_bit(hz)
    assert info.value.key == "leds.spi_hz"


class FakeSpiDev:
    instances: list[FakeSpiDev] = []
    fail_open = False

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.opened: tuple[int, int] | None = None
        self.closed = 0
        self.max_speed_hz = 0
        self.mode = -1
        FakeSpiDev.instances.append(self)

    def open(self, bus: int, device: int) -> None:
        if FakeSpiDev.fail_open:
            raise FileNotFoundError(2, "No such file or directory")
        self.opened = (bus, device)

    def writebytes2(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def fake_spidev(monkeypatch: pytest.MonkeyPatch) -> type[FakeSpiDev]:
    FakeSpiDev.instances = []
    FakeSpiDev.fail_open = False
    module = types.ModuleType("spidev")
    module.SpiDev = FakeSpiDev  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", module)
    return FakeSpiDev


def test_spi_strip_sends_encoded_frames(fake_spidev: type[FakeSpiDev]) -> None:
    strip = SpiStrip(gamma=1.0, order="GRB", bus=0, device=1, hz=2_400_000)
    dev = fake_spidev.instances[0]
    assert (dev.opened, dev.max_speed_hz, dev.mode) == ((0, 1), 2_400_000, 0)
    strip.set_cells(one_lit(0, (255, 0, 0)))
    strip.show()
    wire = bytes([0, 255, 0]) + bytes(48 * 3)
    assert dev.written == [encode_spi(wire, 2_400_000)]
    strip.close()
    strip.close()
    assert dev.written[-1] == encode_spi(bytes(147), 2_400_000)  # blanked on close
    assert dev.closed == 1


def test_spi_strip_open_failure_is_a_config_error(fake_spidev: type[FakeSpiDev]) -> None:
    fake_spidev.fail_open = True
    with pytest.raises(ConfigError, match="spidev0.0"):
        SpiStrip()


def test_spi_strip_without_spidev(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spidev", None)
    with pytest.raises(ConfigError) as info:
        SpiStrip()
    assert info.value.key == "leds.backend"


# -- ws281x ---------------------------------------------------------------------------------
def test_pack_words() -> None:
    assert pack_words(b"\x01\x02\x03\xff\x00\x10") == [0x010203, 0xFF0010]
    with pytest.raises(ValueError):
        pack_words(b"\x01\x02")


@pytest.mark.parametrize(("pin", "dma", "channel", "key"), [
    (17, 10, None, "leds.gpio_pin"), (18, 5, None, "leds.dma"), (18, 15, None, "leds.dma"),
    (13, 10, 0, "leds.channel"),
    # TOML values of the wrong type: a list used to crash with "unhashable type"
    ([18], 10, None, "leds.gpio_pin"), (18.0, 10, None, "leds.gpio_pin"),
    ({"pin": 18}, 10, None, "leds.gpio_pin"), (18, 10, 0.0, "leds.channel"),
])
def test_ws281x_pin_checks(pin: Any, dma: int, channel: Any, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        check_pin(pin, dma, channel)
    assert info.value.key == key


def test_ws281x_channel_follows_the_pin() -> None:
    assert check_pin(18, 10, None) == 0
    assert check_pin(13, 10, None) == 1


class FakePixelStrip:
    instances: list[FakePixelStrip] = []
    fail_begin = False

    def __init__(self, *args: Any) -> None:
        self.args = args
        self.pixels: dict[int, int] = {}
        self.shows: list[dict[int, int]] = []
        self.cleaned = 0
        FakePixelStrip.instances.append(self)

    def begin(self) -> None:
        if FakePixelStrip.fail_begin:
            raise RuntimeError("ws2811_init failed with code -5")

    def setPixelColor(self, n: int, color: int) -> None:  # noqa: N802 - library's name
        self.pixels[n] = color

    def show(self) -> None:
        self.shows.append(dict(self.pixels))

    def _cleanup(self) -> None:
        self.cleaned += 1


@pytest.fixture
def fake_ws281x(monkeypatch: pytest.MonkeyPatch) -> type[FakePixelStrip]:
    FakePixelStrip.instances = []
    FakePixelStrip.fail_begin = False
    module = types.ModuleType("rpi_ws281x")
    module.PixelStrip = FakePixelStrip  # type: ignore[attr-defined]
    module.ws = types.SimpleNamespace(WS2811_STRIP_RGB=0x00100800)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rpi_ws281x", module)
    return FakePixelStrip


def test_ws281x_strip_words(fake_ws281x: type[FakePixelStrip]) -> None:
    strip = Ws281xStrip(LedLayout(status_leds=1), gamma=1.0, order="GRB", gpio_pin=18)
    dev = fake_ws281x.instances[0]
    assert dev.args == (50, 18, 800_000, 10, False, 255, 0, 0x00100800)
    strip.set_cells(one_lit(2, (0x11, 0x22, 0x33)))
    strip.show()
    assert dev.shows[0][2] == 0x221133  # G, R, B on the wire
    assert dev.shows[0][0] == 0 and len(dev.shows[0]) == 50
    strip.close()
    strip.close()
    assert set(dev.shows[-1].values()) == {0}
    assert dev.cleaned == 1


def test_ws281x_failed_begin_cleans_up(fake_ws281x: type[FakePixelStrip]) -> None:
    fake_ws281x.fail_begin = True
    with pytest.raises(RuntimeError):
        Ws281xStrip()
    assert fake_ws281x.instances[0].cleaned == 1


def test_ws281x_without_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)
    with pytest.raises(ConfigError, match="rpi_ws281x"):
        Ws281xStrip()


# -- sensor board ---------------------------------------------------------------------------
class FakeLink:
    def __init__(self, fail: bool = False) -> None:
        self.payloads: list[bytes] = []
        self.fail = fail

    def send_leds(self, payload: bytes) -> None:
        if self.fail:
            raise OSError("link is down")
        self.payloads.append(payload)


def test_sensor_board_strip_payload() -> None:
    link = FakeLink()
    strip = SensorBoardStrip(link, LedLayout(wiring="serpentine"), gamma=1.0, order="GRB")
    strip.set_cells(one_lit(9, (1, 2, 3)))  # A2 is LED 18 in serpentine wiring
    strip.show()
    assert link.payloads[0] == bytes(18 * 3) + bytes([2, 1, 3]) + bytes(30 * 3)
    strip.close()
    strip.close()
    assert link.payloads[-1] == bytes(147) and len(link.payloads) == 2


def test_sensor_board_strip_closes_quietly_when_the_link_is_gone() -> None:
    strip = SensorBoardStrip(FakeLink(fail=True))
    strip.close()
    assert strip.closed


# -- recording ------------------------------------------------------------------------------
def test_recording_strip_keeps_frames_and_bytes() -> None:
    strip = RecordingStrip(LedLayout(status_leds=2), gamma=1.0, order="RGB")
    strip.set_cells(one_lit(0, (5, 6, 7)))
    strip.set_status([(1, 1, 1), BLACK])
    strip.show()
    strip.set_labels(["3w"] * 49)
    strip.show()
    assert len(strip.frames) == len(strip.transmitted) == 2
    assert strip.shown_cells[0][0] == (5, 6, 7)
    assert strip.shown_status[1] == ((1, 1, 1), BLACK)
    assert strip.transmitted[0][:3] == bytes([5, 6, 7])
    assert strip.transmitted[0][-6:] == bytes([1, 1, 1, 0, 0, 0])
    assert strip.frame_labels[0][0] == "A1" and strip.frame_labels[1][0] == "3w"


# -- terminal -------------------------------------------------------------------------------
class TtyStream(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_draws_the_board_row_5_on_top() -> None:
    out = io.StringIO()
    strip = TerminalStrip(LedLayout(status_leds=3), stream=out, colour=False)
    strip.set_cells(one_lit(0, (255, 0, 0)))
    strip.set_status([BLACK, (0, 255, 0), BLACK])
    strip.show()
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["C5", "D5", "E5", "F5", "G5", "H5", "I5", "J5", "K5"]
    assert lines[0].startswith(" " * 7 + "C5")
    assert lines[1].startswith(" " * 4 + "B4")
    assert lines[2].startswith(" A3  ")  # the widest row starts at the margin
    assert lines[3].startswith(" " * 4 + "A2")
    assert lines[4].startswith(" " * 6 + "[A1 ]  B1")  # lit cells are bracketed
    assert lines[5] == "status . # ."
    assert strip.render_text(colour=False) == "\n".join(lines)


def test_terminal_labels_and_caption() -> None:
    strip = TerminalStrip(stream=io.StringIO(), colour=False)
    strip.set_labels([f"{i}" for i in range(49)])
    strip.caption = "A1 -> LED 0"
    text = strip.render_text()
    assert text.splitlines()[0] == "A1 -> LED 0"
    assert text.splitlines()[-1].split() == [str(i) for i in range(9)]


def test_terminal_colour_backgrounds() -> None:
    strip = TerminalStrip(stream=io.StringIO(), brightness=0.5)
    strip.set_cells(one_lit(0, (255, 0, 0)))
    text = strip.render_text(strip.show())
    assert "\x1b[48;2;128;0;0m\x1b[97m A1  \x1b[0m" in text  # brightness applies, no gamma
    assert "\x1b[48;2;0;0;0m" in text


def test_terminal_appends_when_not_a_tty() -> None:
    out = io.StringIO()
    strip = TerminalStrip(stream=out, colour=False)
    strip.show()
    strip.show()
    assert out.getvalue().count("C5") == 2
    assert "\x1b" not in out.getvalue()


def test_terminal_redraws_in_place_on_a_tty() -> None:
    out = TtyStream()
    strip = TerminalStrip(stream=out, colour=False)
    strip.show()
    first = out.getvalue()
    strip.show()
    assert out.getvalue()[len(first):].startswith("\x1b[5F\x1b[J")


@pytest.mark.parametrize(("layout", "key"), [
    (LedLayout(leds_per_cell=2), "leds.leds_per_cell"),
    (LedLayout(status_leds=1), "leds.status_leds"),
    (LedLayout(skip=1), "leds.skip"),
])
def test_sensor_board_drives_one_led_per_cell(layout: LedLayout, key: str) -> None:
    with pytest.raises(ConfigError, match="exactly 49 LEDs") as info:
        SensorBoardStrip(FakeLink(), layout)
    assert info.value.key == key
