"""Fixtures for the firmware tests: the MicroPython fakes installed, the shared test vectors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from hardware.sensorboard import mpy_fakes
from hardware.sensorboard.mpy_fakes import machine

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


class UsClock:
    """A fake microsecond clock: moves on ``sleep_us`` and on every (timed) pin write and ADC
    read, never on its own."""

    def __init__(self) -> None:
        self.us = 0.0

    def sleep_us(self, us: float) -> None:
        self.us += us


@pytest.fixture
def us_clock() -> UsClock:
    return UsClock()


#: A mux input nothing drives (a sensor not wired yet, a broken wire): the node keeps its charge
#: but for leakage.
FLOATING = None
#: Mux 3's channels 1..15, tied to AGND (hardware/README.md): they drive the node to 0 V.
AGND = 0
#: Leakage on an undriven node (the ADC input and the muxes' off channels, about 1 nA into 1 nF:
#: ~1 V/s, tau ~1 s), towards mid-scale: the worst case, where an empty cell would read.
LEAK_TAU_US = 1e6
LEAK_TO = 32768.0
#: The ADC filter of the build guide: mux SIG -> 1 kOhm -> GP26, 1 nF to AGND, plus the
#: CD74HC4067's ~70 Ohm on-resistance.
TAU_US = (1000 + 70) * 1e-9 * 1e6


class RcBoard:
    """The 4 muxes, the RC filter and ADC0 as mean as the hardware.

    ``sources[c]`` is what the sensor of cell c drives (counts), or FLOATING. The ADC sees the
    filter's capacitor: after the selected source changes, a sample taken dt microseconds later
    returns old + (new - old) * (1 - exp(-dt / tau)). Time comes from ``clock``: ``write_us`` per
    pin write (the pin changes at its end), an ADC read samples ``sample_us`` after it is called
    and returns ``read_us`` after it was called. No mux enabled, or a floating input selected:
    the node keeps its charge, apart from a leak towards ``leak_to`` with ``leak_tau_us``.
    The channels past the sources (mux 3's 1..15) are ``unused``: AGND as the build guide ties
    them, or FLOATING for a board where they were left open.
    """

    def __init__(self, clock: UsClock, sources: list[int | None], *, tau_us: float = TAU_US,
                 write_us: float = 2.0, sample_us: float = 1.0, read_us: float = 3.0,
                 unused: int | None = AGND, leak_tau_us: float = LEAK_TAU_US,
                 leak_to: float = LEAK_TO) -> None:
        self.clock = clock
        self.sources = sources
        self.unused = unused
        self.leak_tau_us = leak_tau_us
        self.leak_to = leak_to
        self.tau_us = tau_us
        self.write_us = write_us
        self.sample_us = sample_us
        self.read_us = read_us
        self.node = 32768.0  # mid-scale
        self.t = clock.us
        self.target: float | None = None
        self.select = [TimedPin(self, n) for n in (2, 3, 4, 5)]
        self.enable = [TimedPin(self, n, value=1) for n in (6, 7, 8, 9)]
        self.adc = machine.ADC(machine.Pin(26))
        self.adc.source = self.sample
        self.settled_for: list[float] = []  # per read: microseconds since the last pin change
        self._changed_at = clock.us

    def _follow(self) -> None:
        """Bring the node up to the clock's time, towards the current target."""
        now = self.clock.us
        if self.target is not None:
            toward, tau = self.target, self.tau_us
        else:
            toward, tau = self.leak_to, self.leak_tau_us
        self.node = toward + (self.node - toward) * math.exp(-(now - self.t) / tau)
        self.t = now

    def pin_changed(self) -> None:
        self._follow()
        self._changed_at = self.clock.us
        low = [m for m, p in enumerate(self.enable) if p.value() == 0]
        assert len(low) <= 1, f"muxes {low} enabled together"
        if not low:
            self.target = None
            return
        ch = sum(int(self.select[k].value() or 0) << k for k in range(4))
        cell = low[0] * 16 + ch
        src = self.sources[cell] if cell < len(self.sources) else self.unused
        self.target = None if src is FLOATING else float(src)

    def sample(self) -> int:
        self.clock.us += self.sample_us
        self._follow()
        self.settled_for.append(self.clock.us - self._changed_at)
        self.clock.us += self.read_us - self.sample_us
        return round(self.node)


class TimedPin(machine.Pin):
    """An output pin whose writes take ``board.write_us`` and tell the board the mux moved."""

    def __init__(self, board: RcBoard, id: int, value: int = 0) -> None:
        super().__init__(id, machine.Pin.OUT, value=value)
        self.board = board

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return super().value()
        self.board.clock.us += self.board.write_us
        super().value(v)
        self.board.pin_changed()
        return None
