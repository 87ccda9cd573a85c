"""The hall-sensor board: host codec (protocol), serial client and an emulator of the board.

The board is a Raspberry Pi Pico running firmware/ (MicroPython); it reports 49 hall-sensor
cells over USB serial and drives the table's WS2812 LEDs. See firmware/PROTOCOL.md.
"""

from __future__ import annotations

from engine.errors import DvonnError


class SensorBoardError(DvonnError):
    """The sensor board cannot be reached or refused a request; the message says which."""


__all__ = ["SensorBoardError"]
