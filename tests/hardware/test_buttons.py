"""ButtonPanel on gpiozero's MockFactory: short and long presses timed by a FakeClock."""

from __future__ import annotations

import threading

import pytest
from gpiozero.pins.mock import MockFactory

from engine.errors import ConfigError
from hardware.buttons import ButtonPanel
from hardware.clock import FakeClock
from hardware.events import BUTTONS, ButtonEvent

PINS = {"confirm": 17, "next": 27, "undo": 22, "hint": "GPIO23", "new": 24}


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


def press(factory: MockFactory, pin: int, clock: FakeClock, held: float) -> None:
    factory.pin(pin).drive_low()
    clock.advance(held)
    factory.pin(pin).drive_high()


def test_short_and_long_presses(factory: MockFactory) -> None:
    clock = FakeClock(100.0)
    with ButtonPanel(PINS, pin_factory=factory, clock=clock, long_press=1.5) as panel:
        assert panel.names == BUTTONS
        press(factory, 17, clock, 0.2)
        press(factory, 22, clock, 1.5)  # exactly long_press counts as long
        press(factory, 23, clock, 1.49)
        assert panel.drain() == [
            ButtonEvent(100.2, "confirm", False),
            ButtonEvent(101.7, "undo", True),
            ButtonEvent(103.19, "hint", False),
        ]
        assert panel.drain() == []


def test_no_event_until_release(factory: MockFactory) -> None:
    clock = FakeClock()
    with ButtonPanel({"new": 5}, pin_factory=factory, clock=clock) as panel:
        factory.pin(5).drive_low()
        clock.advance(3)
        assert panel.drain() == []
        factory.pin(5).drive_high()
        assert panel.drain() == [ButtonEvent(3.0, "new", True)]


def test_presses_from_several_threads_are_all_kept(factory: MockFactory) -> None:
    clock = FakeClock()
    pins = {"confirm": 5, "next": 6, "undo": 13, "hint": 19}
    with ButtonPanel(pins, pin_factory=factory, clock=clock) as panel:
        def hammer(pin: int) -> None:
            for _ in range(100):
                factory.pin(pin).drive_low()
                factory.pin(pin).drive_high()

        threads = [threading.Thread(target=hammer, args=(p,)) for p in pins.values()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        events = panel.drain()
    assert len(events) == 400
    assert {e.button: sum(1 for x in events if x.button == e.button) for e in events} == \
        {name: 100 for name in pins}


def test_unknown_button_is_a_config_error(factory: MockFactory) -> None:
    with pytest.raises(ConfigError) as info:
        ButtonPanel({"confirm": 17, "start": 18}, pin_factory=factory, clock=FakeClock())
    assert info.value.key == "buttons.start"
    assert "confirm, next, undo, hint, new" in str(info.value)


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"long_press": 0}, "buttons.long_press"),
    ({"bounce_time": -1}, "buttons.bounce_time"),
])
def test_bad_timings(factory: MockFactory, kwargs: dict[str, float], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        ButtonPanel({"confirm": 17}, pin_factory=factory, clock=FakeClock(), **kwargs)
    assert info.value.key == key


def test_bad_pin_value(factory: MockFactory) -> None:
    with pytest.raises(ConfigError) as info:
        ButtonPanel({"hint": 4.5}, pin_factory=factory, clock=FakeClock())  # type: ignore[dict-item]
    assert info.value.key == "buttons.hint"


def test_failed_constructor_releases_the_pins_it_took(factory: MockFactory) -> None:
    with pytest.raises(ConfigError, match="cannot use pin 17") as info:
        ButtonPanel({"confirm": 17, "next": 17}, pin_factory=factory, clock=FakeClock())
    assert info.value.key == "buttons.next"
    # GPIO17 was released, so it can be claimed again.
    with ButtonPanel({"confirm": 17}, pin_factory=factory, clock=FakeClock()) as panel:
        assert panel.names == ("confirm",)


def test_close_twice_releases_pins(factory: MockFactory) -> None:
    clock = FakeClock()
    panel = ButtonPanel({"confirm": 17}, pin_factory=factory, clock=clock)
    panel.close()
    panel.close()
    assert panel.closed
    press(factory, 17, clock, 0.1)  # nobody listens any more
    assert panel.drain() == []
    ButtonPanel({"confirm": 17}, pin_factory=factory, clock=clock).close()
