"""Build the configured LED strip from the ``[leds]`` config table.

The backend comes from, in order: the ``backend`` argument (command line), the environment
variable ``DVONN_LEDS`` (like gpiozero's GPIOZERO_PIN_FACTORY), the ``backend`` key, and
finally ``terminal``. Unknown keys and bad values raise ConfigError naming ``leds.<key>``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from engine.errors import ConfigError

from .base import LedStrip, NullStrip
from .fake import RecordingStrip
from .layout import LedLayout
from .serial_strip import LedLink, SensorBoardStrip
from .spi import DEFAULT_SPI_HZ

BACKENDS = ("ws281x", "spi", "sensor-board", "terminal", "recording", "none")
ENV_VAR = "DVONN_LEDS"
DEFAULT_BACKEND = "terminal"

#: Every key of ``[leds]`` and its default (None: backend's own default).
DEFAULTS: dict[str, Any] = {
    "backend": DEFAULT_BACKEND,
    "wiring": "rows",
    "rotate180": False,
    "mirror": False,
    "leds_per_cell": 1,
    "status_leds": 0,
    "skip": 0,
    "brightness": 1.0,
    "gamma": 2.2,
    "max_current_ma": 2000,
    "ma_per_channel": 20.0,
    "idle_ma": 1.0,
    "order": "GRB",
    "gpio_pin": 18,
    "dma": 10,
    "channel": None,
    "spi_bus": 0,
    "spi_device": 0,
    "spi_hz": DEFAULT_SPI_HZ,
    "colour": None,
}


def resolve_backend(section: Mapping[str, Any], backend: str | None = None) -> str:
    """The backend name to use (argument > $DVONN_LEDS > config > 'terminal'), validated."""
    env = os.environ.get(ENV_VAR, "").strip()
    if backend is not None:
        name, where = backend, "given on the command line"
    elif env:
        name, where = env, f"from environment variable {ENV_VAR}"
    else:
        name, where = section.get("backend", DEFAULT_BACKEND), "in the config"
    if name not in BACKENDS:
        raise ConfigError("leds.backend", f"{name!r} ({where}) is not one of "
                          f"{', '.join(BACKENDS)}")
    return str(name)


def check_section(section: Mapping[str, Any]) -> dict[str, Any]:
    """``section`` merged over DEFAULTS; ConfigError for keys that are not known."""
    if not isinstance(section, Mapping):
        raise ConfigError("leds", f"must be a table, got {type(section).__name__}")
    for key in section:
        if key not in DEFAULTS:
            raise ConfigError(f"leds.{key}", f"unknown key; known keys: {', '.join(DEFAULTS)}")
    merged = dict(DEFAULTS)
    merged.update(section)
    return merged


def layout_from_config(section: Mapping[str, Any]) -> LedLayout:
    """The LedLayout the ``[leds]`` table describes."""
    cfg = check_section(section)
    skip = cfg["skip"]
    if isinstance(skip, list):
        skip = tuple(skip)
    return LedLayout(
        wiring=cfg["wiring"], rotate180=cfg["rotate180"], mirror=cfg["mirror"],
        leds_per_cell=cfg["leds_per_cell"], status_leds=cfg["status_leds"], skip=skip,
    )


def strip_from_config(
    section: Mapping[str, Any],
    *,
    link: LedLink | None = None,
    stream: TextIO | None = None,
    backend: str | None = None,
) -> LedStrip:
    """Build the strip for the ``[leds]`` table; ``link`` is the sensor-board link if any."""
    cfg = check_section(section)
    name = resolve_backend(section, backend)
    layout = layout_from_config(section)
    limit = cfg["max_current_ma"]
    if limit == 0 and not isinstance(limit, bool):
        limit = None  # 0 = no limit
    order = cfg["order"].upper() if isinstance(cfg["order"], str) else cfg["order"]
    common: dict[str, Any] = dict(
        brightness=cfg["brightness"], gamma=cfg["gamma"], order=order,
        max_current_ma=limit, ma_per_channel=cfg["ma_per_channel"], idle_ma=cfg["idle_ma"],
    )
    if name == "terminal":
        from .terminal import TerminalStrip

        colour = cfg["colour"]
        if colour is None:  # colour on a terminal, plain text into pipes and logs
            isatty = getattr(stream if stream is not None else sys.stdout, "isatty", None)
            colour = bool(isatty and isatty()) and not os.environ.get("NO_COLOR")
        elif not isinstance(colour, bool):
            raise ConfigError("leds.colour", f"must be true or false, got {colour!r}")
        return TerminalStrip(layout, stream=stream, colour=colour, **common)
    if name == "recording":
        return RecordingStrip(layout, **common)
    if name == "none":
        return NullStrip(layout, **common)
    if name == "sensor-board":
        if link is None:
            raise ConfigError("leds.backend", "'sensor-board' drives the LEDs through the "
                              "sensor board, but no sensor board link is open")
        return SensorBoardStrip(link, layout, **common)
    if name == "spi":
        from .spi import SpiStrip

        return SpiStrip(layout, bus=cfg["spi_bus"], device=cfg["spi_device"],
                        hz=cfg["spi_hz"], **common)
    from .ws281x import Ws281xStrip

    return Ws281xStrip(layout, gpio_pin=cfg["gpio_pin"], dma=cfg["dma"],
                       channel=cfg["channel"], **common)
