"""The ``[clock]`` section of the config: the game clock (controller.table.timer)."""

from __future__ import annotations

from typing import Any

from controller.i18n import Msg, config_error
from controller.table.clock import NONE, TimeControlError, parse_control
from controller.table.timer import ClockOptions

KEYS = ("control", "switch", "pulse", "pulse_seconds", "tolerance")
SWITCHES = ("table", "button")


def parse_clock(t: dict[str, Any]) -> ClockOptions:
    """Check ``[clock]`` and build the options; a bad value raises ConfigError naming the key."""
    for key in t:
        if key not in KEYS:
            raise config_error(f"clock.{key}", Msg("unknown key; allowed: {value}",
                                                   value=", ".join(KEYS)))
    d = ClockOptions()
    control = t.get("control", NONE)
    if not isinstance(control, str):
        raise config_error("clock.control", Msg("must be a string, got {value!r}", value=control))
    try:
        parsed = parse_control(control)
    except TimeControlError as exc:
        raise config_error("clock.control", str(exc)) from None
    switch = t.get("switch", d.switch)
    if switch not in SWITCHES:
        raise config_error("clock.switch", Msg("{backend!r} is not one of {value}",
                                               backend=switch, value=", ".join(SWITCHES)))
    pulse = t.get("pulse", d.pulse)
    if not isinstance(pulse, bool):
        raise config_error("clock.pulse", Msg("must be true or false, got {polarity!r}",
                                              polarity=pulse))
    numbers = {}
    for key, high in (("pulse_seconds", 600.0), ("tolerance", 600.0)):
        value = t.get(key, getattr(d, key))
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                not 0 <= value <= high:
            raise config_error(f"clock.{key}", Msg(
                "{value!r} is out of range; allowed {bracket}{low:g}, {upper}", value=value,
                bracket="[", low=0.0, upper=f"{high:g}]"))
        numbers[key] = float(value)
    return ClockOptions(control=parsed, switch=switch, pulse=pulse,
                        pulse_seconds=numbers["pulse_seconds"], tolerance=numbers["tolerance"])
