"""The mux settles before the ADC samples (firmware/scanner.py MuxBus, issue 23).

The ADC reads the filter's capacitor (1 kOhm + 1 nF behind the mux, tau about 1.07 us), modelled
in conftest.RcBoard with a fake microsecond clock: a sample taken too soon after the select
lines move still holds part of the previous channel. A piece (a strong magnet: 850 mV, about
16900 counts above mid-scale) must leave nothing on the next cell in scan order, whatever
speed the code runs the pin writes at, and a dead sensor must read as itself. (With the old
10 nF filter, tau about 11 us, even the 20 us wait would leave 500-2100 counts: the 1 nF of
the build guide is part of the fix.)
"""

from __future__ import annotations

import math

import pytest

from firmware import scanner as S
from firmware.link import EMPTY, UNREADABLE
from tests.firmware.conftest import TAU_US, RcBoard, UsClock

PIECE = S.NOMINAL + 16900  # a 6x2 mm magnet 4 mm from a DRV5055A3: ~56 mT, ~850 mV
LSB = 16  # one step of the RP2040's 12-bit ADC in read_u16 counts

#: (per pin write, ADC sample point, whole ADC read) in microseconds: the interpreter's speed
SPEEDS = {
    "micropython": (2.0, 1.0, 3.0),  # RP2040 at 125 MHz, bytecode
    "fast": (0.5, 0.5, 2.0),  # native code or an overclocked chip: less time between writes
    "slow": (5.0, 2.0, 8.0),
}


def board(clock: UsClock, sources: list[int | None], speed: str) -> tuple[RcBoard, S.MuxBus]:
    write, sample, read = SPEEDS[speed]
    rc = RcBoard(clock, sources, write_us=write, sample_us=sample, read_us=read)
    return rc, S.MuxBus(rc.select, rc.enable, rc.adc, sleep_us=clock.sleep_us)


def scan_twice(bus: S.MuxBus) -> list[int]:
    raw = [0] * S.CELLS
    bus.read_all(raw)  # the first scan starts from a mid-scale node
    bus.read_all(raw)
    return raw


@pytest.mark.parametrize("speed", SPEEDS)
def test_a_piece_puts_no_phantom_on_the_next_cell(us_clock: UsClock, speed: str) -> None:
    for cell in range(S.CELLS - 1):
        sources: list[int | None] = [S.NOMINAL] * S.CELLS
        sources[cell] = PIECE
        _, bus = board(us_clock, sources, speed)
        raw = scan_twice(bus)
        leak = raw[cell + 1] - S.NOMINAL
        assert abs(leak) < LSB, f"a piece on cell {cell} leaks {leak} counts into {cell + 1}"
        assert abs(raw[cell] - PIECE) < LSB, f"cell {cell} reads {raw[cell]}, not {PIECE}"
        assert S.classify(EMPTY, raw[cell + 1], S.NOMINAL) == EMPTY


@pytest.mark.parametrize("speed", SPEEDS)
@pytest.mark.parametrize("rail", [0, 65535])
def test_a_dead_sensor_reads_its_rail_not_its_predecessor(us_clock: UsClock, speed: str,
                                                          rail: int) -> None:
    """An unpowered or broken sensor whose output sits at a rail is unreadable and fails the
    calibration even right after a piece, instead of copying the cell before it."""
    for cell in range(S.CELLS - 1):
        sources: list[int | None] = [S.NOMINAL] * S.CELLS
        sources[cell] = PIECE
        sources[cell + 1] = rail
        _, bus = board(us_clock, sources, speed)
        raw = scan_twice(bus)
        assert abs(raw[cell + 1] - rail) < LSB, f"dead sensor {cell + 1} reads {raw[cell + 1]}"
        assert S.classify(EMPTY, raw[cell + 1], S.NOMINAL) == UNREADABLE


def test_every_read_waits_settle_us_after_the_last_pin_change(us_clock: UsClock) -> None:
    rc, bus = board(us_clock, [S.NOMINAL] * S.CELLS, "fast")
    scan_twice(bus)
    assert len(rc.settled_for) == 2 * S.CELLS
    assert min(rc.settled_for) >= S.SETTLE_US
    # 20 us is 18.7 tau: a full-scale step leaves far less than one count ...
    assert 65535 * math.exp(-S.SETTLE_US / TAU_US) < 1
    # ... while a ghost above ON_DELTA needs a sample within ln(850 mV / 75 mV) = 2.4 tau
    assert math.log((PIECE - S.NOMINAL) / S.ON_DELTA) * TAU_US < S.SETTLE_US / 5


def test_a_scan_fits_the_scan_period(us_clock: UsClock) -> None:
    """Even at slow pin writes the bus leaves most of the 5 ms period to the rest of a step."""
    for speed, limit_us in (("micropython", 2000), ("slow", 2800)):
        _, bus = board(us_clock, [S.NOMINAL] * S.CELLS, speed)
        start = us_clock.us
        bus.read_all([0] * S.CELLS)
        took = us_clock.us - start
        assert took < limit_us < S.SCAN_PERIOD_MS * 1000, (speed, took)
