"""LedLayout: cell -> LED index for every wiring option, checked against hand-computed values."""

from __future__ import annotations

import itertools

import pytest

from engine.errors import ConfigError
from engine.geometry import NUM_CELLS, parse_cell
from hardware.leds import LedLayout


def first_led(layout: LedLayout, name: str) -> int:
    return layout.led_indices(parse_cell(name))[0]


def test_rows_is_the_canonical_order() -> None:
    layout = LedLayout()
    assert [layout.led_indices(c) for c in range(NUM_CELLS)] == [(c,) for c in range(NUM_CELLS)]
    assert layout.led_count == 49
    assert layout.status_indices == ()


@pytest.mark.parametrize(("name", "led"), [
    ("A1", 0), ("I1", 8), ("J2", 9), ("A2", 18), ("A3", 19), ("K3", 29),
    ("K4", 30), ("B4", 39), ("C5", 40), ("K5", 48),
])
def test_serpentine_reverses_rows_2_and_4(name: str, led: int) -> None:
    assert first_led(LedLayout(wiring="serpentine"), name) == led


@pytest.mark.parametrize(("name", "led"), [("K5", 0), ("C5", 8), ("K4", 9), ("A1", 48)])
def test_rotate180_starts_at_k5(name: str, led: int) -> None:
    assert first_led(LedLayout(rotate180=True), name) == led


@pytest.mark.parametrize(("name", "led"), [("I1", 0), ("A1", 8), ("J2", 9), ("A2", 18)])
def test_mirror_reverses_every_row(name: str, led: int) -> None:
    assert first_led(LedLayout(mirror=True), name) == led


@pytest.mark.parametrize(("name", "led"), [("I1", 0), ("A1", 8), ("A2", 9), ("J2", 18)])
def test_mirror_serpentine(name: str, led: int) -> None:
    assert first_led(LedLayout(wiring="serpentine", mirror=True), name) == led


@pytest.mark.parametrize(("name", "led"), [("K5", 0), ("C5", 8), ("B4", 9), ("K4", 18),
                                           ("I1", 40), ("B1", 47), ("A1", 48)])
def test_rotate180_serpentine(name: str, led: int) -> None:
    # The half-turned path of serpentine (A1 ... K5) runs K5 ... A1, entering row 1 at I1.
    layout = LedLayout(wiring="serpentine", rotate180=True)
    assert first_led(layout, name) == led


def test_rotated_order_is_the_reverse_of_rows() -> None:
    assert LedLayout(rotate180=True).cell_order() == list(range(48, -1, -1))


def test_leds_per_cell_are_consecutive() -> None:
    layout = LedLayout(leds_per_cell=3)
    assert layout.led_indices(0) == (0, 1, 2)
    assert layout.led_indices(parse_cell("B1")) == (3, 4, 5)
    assert layout.led_indices(48) == (144, 145, 146)
    assert layout.led_count == 147


def test_skip_between_rows_and_status_after_cells() -> None:
    layout = LedLayout(skip=2, status_leds=3)
    assert first_led(layout, "I1") == 8
    assert first_led(layout, "A2") == 11
    assert first_led(layout, "A3") == 23
    assert first_led(layout, "K5") == 56
    assert layout.status_indices == (57, 58, 59)
    assert layout.led_count == 60
    assert layout.led_owner(9) == "dark"
    assert layout.led_owner(11) == "A2"
    assert layout.led_owner(58) == "status 1"


def test_skip_per_gap() -> None:
    layout = LedLayout(skip=(0, 1, 0, 5))
    assert [first_led(layout, n) for n in ("A2", "A3", "B4", "C5")] == [9, 20, 30 + 1, 40 + 6]
    assert layout.led_count == 49 + 6


def test_status_with_several_leds_per_cell() -> None:
    layout = LedLayout(leds_per_cell=2, status_leds=3)
    assert layout.status_indices == (98, 99, 100)
    assert layout.led_count == 101


def test_every_layout_is_one_to_one() -> None:
    for wiring, rot, mir, lpc, skip in itertools.product(
        ("rows", "serpentine"), (False, True), (False, True), (1, 2), (0, 3)
    ):
        layout = LedLayout(wiring=wiring, rotate180=rot, mirror=mir, leds_per_cell=lpc,
                           skip=skip, status_leds=2)
        used = [led for leds in layout.cell_leds for led in leds] + list(layout.status_indices)
        assert len(used) == len(set(used)) == 49 * lpc + 2
        assert max(used) == layout.led_count - 1
        assert sorted(layout.cell_order()) == list(range(NUM_CELLS))


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"wiring": "zigzag"}, "leds.wiring"),
    ({"rotate180": "yes"}, "leds.rotate180"),
    ({"mirror": 1}, "leds.mirror"),
    ({"leds_per_cell": 0}, "leds.leds_per_cell"),
    ({"leds_per_cell": 9}, "leds.leds_per_cell"),
    ({"leds_per_cell": True}, "leds.leds_per_cell"),
    ({"status_leds": -1}, "leds.status_leds"),
    ({"skip": -1}, "leds.skip"),
    ({"skip": (1, 2)}, "leds.skip"),
    ({"skip": "2"}, "leds.skip"),
])
def test_bad_layout_names_the_key(kwargs: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        LedLayout(**kwargs)  # type: ignore[arg-type]
    assert info.value.key == key
    assert key in str(info.value)
