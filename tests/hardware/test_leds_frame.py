"""Frame logic: colour checks, brightness, gamma, wire order and the current limit."""

from __future__ import annotations

import pytest

from engine.errors import ConfigError, DvonnError
from hardware.leds import LedError, LedLayout, RecordingStrip, level_table

BLACK = (0, 0, 0)
WHITE = (255, 255, 255)


def one_lit(cell: int, colour: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    cells = [BLACK] * 49
    cells[cell] = colour
    return cells


def linear(**kwargs: object) -> RecordingStrip:
    """A strip with gamma 1 and RGB wire order, so bytes equal the colours."""
    kwargs.setdefault("gamma", 1.0)
    kwargs.setdefault("order", "RGB")
    return RecordingStrip(**kwargs)  # type: ignore[arg-type]


def test_linear_frame_is_the_colours() -> None:
    strip = linear()
    wire = strip.frame_wire(one_lit(0, (1, 2, 3)))
    assert wire[:3] == b"\x01\x02\x03"
    assert wire[3:] == bytes(48 * 3)


@pytest.mark.parametrize(("order", "expected"), [
    ("RGB", b"\x0a\x14\x1e"), ("GRB", b"\x14\x0a\x1e"), ("BRG", b"\x1e\x0a\x14"),
    ("BGR", b"\x1e\x14\x0a"),
])
def test_wire_order(order: str, expected: bytes) -> None:
    strip = linear(order=order)
    assert strip.frame_wire(one_lit(1, (10, 20, 30)))[3:6] == expected


def test_wire_follows_the_layout() -> None:
    strip = linear(layout=LedLayout(rotate180=True, leds_per_cell=2, status_leds=1))
    frame = strip.frame_for(one_lit(0, (9, 8, 7)), [(1, 1, 1)])
    # A1 is last of the cells when the strip starts at K5: LEDs 96 and 97, status at 98.
    assert frame.wire[96 * 3:98 * 3] == bytes([9, 8, 7, 9, 8, 7])
    assert frame.wire[98 * 3:] == b"\x01\x01\x01"
    assert frame.wire[:96 * 3] == bytes(96 * 3)


def test_brightness_scales_before_gamma() -> None:
    assert level_table(1.0, 1.0) == bytes(range(256))
    assert level_table(0.5, 1.0)[255] == 128 and level_table(0.5, 1.0)[100] == 50
    table = level_table(1.0, 2.0)
    assert (table[0], table[128], table[255]) == (0, 64, 255)  # 255 * (128/255)^2 = 64.25
    assert level_table(0.5, 2.0)[255] == 64  # 255 * 0.5^2 = 63.75


def test_strip_brightness_and_gamma() -> None:
    strip = linear(brightness=0.5, gamma=2.0)
    assert strip.frame_wire(one_lit(0, (255, 128, 0)))[:3] == bytes([64, 16, 0])
    strip.brightness = 1.0
    assert strip.frame_wire(one_lit(0, (255, 128, 0)))[:3] == bytes([255, 64, 0])
    with pytest.raises(ConfigError) as info:
        strip.brightness = 1.5
    assert info.value.key == "leds.brightness"


def test_current_estimate() -> None:
    strip = linear(ma_per_channel=20.0, idle_ma=1.0)
    assert strip.last_current_ma == 0.0
    strip.set_cells(one_lit(0, (255, 0, 0)))
    strip.show()
    assert strip.last_current_ma == pytest.approx(20 + 49)
    strip.set_cells([WHITE] * 49)
    assert strip.show().current_ma == pytest.approx(49 * 60 + 49)


def test_current_limit_scales_the_frame_down() -> None:
    strip = linear(max_current_ma=1000, idle_ma=1.0)
    strip.set_cells([WHITE] * 49)
    frame = strip.show()
    assert frame.requested_ma == pytest.approx(2989)
    assert frame.scale == pytest.approx((1000 - 49) / 2940)
    assert set(frame.wire) == {82}  # floor(255 * 0.32347)
    assert frame.current_ma == pytest.approx(82 * 147 * 20 / 255 + 49)
    assert frame.current_ma <= 1000
    assert strip.last_current_ma == frame.current_ma
    # Preview is what a person sees: round(255 * 0.32347) with gamma 1.
    assert frame.preview[0] == (82, 82, 82)


def test_preview_sees_the_limit_through_gamma() -> None:
    strip = RecordingStrip(gamma=2.0, max_current_ma=49 + 735, idle_ma=1.0)
    frame = strip.frame_for([WHITE] * 49)
    assert frame.scale == pytest.approx(0.25)
    assert frame.preview[0] == (128, 128, 128)  # 255 * 0.25 ** (1 / 2) = 127.5


def test_current_limit_leaves_small_frames_alone() -> None:
    strip = linear(max_current_ma=1000)
    frame = strip.frame_for(one_lit(3, (200, 100, 50)))
    assert frame.scale == 1.0
    assert frame.wire[9:12] == bytes([200, 100, 50])


def test_limit_below_idle_draw_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        RecordingStrip(LedLayout(leds_per_cell=8), max_current_ma=300, idle_ma=1.0)
    assert info.value.key == "leds.max_current_ma"


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"gamma": 0}, "leds.gamma"), ({"gamma": "2"}, "leds.gamma"),
    ({"order": "GRBW"}, "leds.order"), ({"ma_per_channel": -1}, "leds.ma_per_channel"),
    ({"brightness": True}, "leds.brightness"), ({"idle_ma": 50}, "leds.idle_ma"),
])
def test_bad_settings_name_the_key(kwargs: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        RecordingStrip(**kwargs)  # type: ignore[arg-type]
    assert info.value.key == key


@pytest.mark.parametrize(("cells", "words"), [
    ([BLACK] * 48, "expected 49 colours, got 48"),
    ([BLACK] * 50, "got 50"),
    (one_lit(5, (256, 0, 0)), "cell 5 (F1)"),
    (one_lit(5, (-1, 0, 0)), "integers 0..255"),
    (one_lit(9, (1, 2)), "cell 9 (A2)"),
    (one_lit(0, (1.0, 2, 3)), "cell 0 (A1)"),  # type: ignore[arg-type]
    (one_lit(0, "abc"), "cell 0 (A1)"),  # type: ignore[arg-type]
    ("x" * 49, "expected 49 colours"),
])
def test_bad_frames_raise_led_error(cells: list[tuple[int, int, int]], words: str) -> None:
    strip = linear()
    with pytest.raises(LedError, match=words.replace("(", r"\(").replace(")", r"\)")):
        strip.set_cells(cells)
    assert issubclass(LedError, DvonnError) and issubclass(LedError, ValueError)


def test_status_and_labels_are_checked() -> None:
    strip = linear(layout=LedLayout(status_leds=2))
    with pytest.raises(LedError, match="status LED: expected 2 colours, got 1"):
        strip.set_status([WHITE])
    with pytest.raises(LedError, match="status LED 1"):
        strip.set_status([WHITE, (0, 0, 300)])
    with pytest.raises(LedError, match="labels: expected 49"):
        strip.set_labels(["x"] * 3)
    with pytest.raises(LedError, match="label 2 \\(C1\\)"):
        strip.set_labels(["a", "b", 3] + ["x"] * 46)  # type: ignore[list-item]
    strip.set_status([WHITE, (1, 2, 3)])
    assert strip.show().status == (WHITE, (1, 2, 3))


def test_frame_wire_changes_nothing() -> None:
    strip = linear()
    strip.frame_wire([WHITE] * 49)
    assert strip.cells == (BLACK,) * 49
    assert strip.frames == []


def test_clear_and_show() -> None:
    strip = linear()
    strip.set_cells([WHITE] * 49)
    strip.clear()
    assert strip.show().wire == bytes(147)


def test_close_twice_and_show_after_close() -> None:
    with linear() as strip:
        strip.show()
    assert strip.closed
    strip.close()
    strip.close()
    with pytest.raises(LedError, match="closed"):
        strip.show()


def test_numpy_integers_are_colours() -> None:
    np = pytest.importorskip("numpy")
    strip = linear()
    strip.set_cells([tuple(np.array([1, 2, 3], dtype=np.uint8))] * 49)  # type: ignore[misc]
    assert strip.cells[0] == (1, 2, 3) and type(strip.cells[0][0]) is int
    with pytest.raises(LedError):
        strip.set_cells([(True, 0, 0)] * 49)
