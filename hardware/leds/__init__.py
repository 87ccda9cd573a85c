"""LED strips that light the 49 spaces: interface, layout, frame logic, backends, factory.

Backends: ``ws281x`` (Pi 1-4, rpi_ws281x), ``spi`` (Pi 5, spidev), ``sensor-board`` (the
sensor board's LED pin over its serial link), ``terminal`` (drawn in a terminal),
``recording`` (keeps frames, for tests) and ``none`` (discards frames).
"""

from .base import LedStrip, NullStrip, WireStrip
from .factory import BACKENDS, ENV_VAR, layout_from_config, resolve_backend, strip_from_config
from .fake import RecordingStrip
from .frame import BLACK, ORDERS, RGB, Frame, FrameEncoder, LedError, level_table
from .layout import WIRINGS, LedLayout
from .serial_strip import LedLink, SensorBoardStrip
from .spi import encode_spi
from .terminal import TerminalStrip
from .ws281x import pack_words

__all__ = [
    "BACKENDS",
    "BLACK",
    "ENV_VAR",
    "ORDERS",
    "RGB",
    "WIRINGS",
    "Frame",
    "FrameEncoder",
    "LedError",
    "LedLayout",
    "LedLink",
    "LedStrip",
    "NullStrip",
    "RecordingStrip",
    "SensorBoardStrip",
    "TerminalStrip",
    "WireStrip",
    "encode_spi",
    "layout_from_config",
    "level_table",
    "pack_words",
    "resolve_backend",
    "strip_from_config",
]
