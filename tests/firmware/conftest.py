"""Fixtures for the firmware tests: the MicroPython fakes installed, the shared test vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hardware.sensorboard import mpy_fakes

mpy_fakes.install()  # before any firmware module imports machine/rp2

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    return json.loads((FIRMWARE / "test_vectors.json").read_text())


class Ticks:
    """An injected ticks_ms for the scanner: moves only when told."""

    def __init__(self, start: int = 0) -> None:
        self.ms = start

    def __call__(self) -> int:
        return self.ms % (1 << 30)


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()
