"""A mux input with nothing wired is marked CHECK by calibration (issue 23, item 2).

An input nothing drives (a sensor not wired yet, a broken wire) floats: the filter's 1 nF keeps
whatever the channel selected before it left there, however long the bus waits, so a plain scan
reads it as a copy of that channel. Calibration scans (``MuxBus.read_all_discharged``) first
empty the node through mux 3's channel 1, tied to AGND, then select the cell: a wired sensor
drives the node back within SETTLE_US, a floating input stays near 0 V and is rejected.
conftest.RcBoard models the RC node with a fake microsecond clock; a floating input keeps the
node's charge apart from a leak (about 1 nA into 1 nF, towards mid-scale: the worst case).
"""

from __future__ import annotations

import math

import pytest

from firmware import main as M
from firmware import scanner as S
from firmware.link import EMPTY, UNREADABLE
from hardware.sensorboard.mpy_fakes import machine
from tests.firmware.conftest import FLOATING, TAU_US, RcBoard, Ticks, UsClock
from tests.firmware.test_settle import LSB, PIECE, SPEEDS

OFFSET = 300  # a wired sensor's quiescent offset: well inside CALIB_TOLERANCE
SAMPLES = 4


def bus_on(clock: UsClock, sources: list[int | None], speed: str = "micropython",
           **kw: float) -> tuple[RcBoard, S.MuxBus]:
    write, sample, read = SPEEDS[speed]
    rc = RcBoard(clock, sources, write_us=write, sample_us=sample, read_us=read, **kw)
    return rc, S.MuxBus(rc.select, rc.enable, rc.adc, sleep_us=clock.sleep_us)


def calibrate(bus: S.MuxBus, read_calibration) -> S.Scanner:
    sc = S.Scanner(bus.read_all, Ticks(), read_calibration=read_calibration)
    sc.start_calibration(SAMPLES)
    for _ in range(SAMPLES):
        sc.scan()
    assert sc.calibration is not None
    return sc


def wired(n: int = S.CELLS) -> list[int | None]:
    return [S.NOMINAL + OFFSET + 7 * c for c in range(n)]  # each cell a little different


def rejected_cells(sc: S.Scanner) -> list[int]:
    _, _, stats = sc.calibration
    return [c for c, (mean, spread) in enumerate(stats)
            if abs(mean - S.NOMINAL) > S.CALIB_TOLERANCE or spread > S.CALIB_MAX_SPREAD]


@pytest.mark.parametrize("speed", SPEEDS)
def test_calibration_rejects_an_unwired_cell_wherever_it_is(us_clock: UsClock,
                                                            speed: str) -> None:
    for cell in range(S.CELLS):
        sources = wired()
        sources[cell] = FLOATING
        _, bus = bus_on(us_clock, sources, speed)
        sc = calibrate(bus, bus.read_all_discharged)
        rejected, _, stats = sc.calibration
        assert rejected_cells(sc) == [cell], (cell, stats[cell])
        assert rejected == 1
        assert stats[cell][0] <= S.SAT_LOW  # near 0 V: it also reads unreadable
        assert sc.baseline[cell] == S.NOMINAL  # keeps its old baseline
        for c in range(S.CELLS):
            if c != cell:
                assert abs(sc.baseline[c] - sources[c]) < LSB, (cell, c)


@pytest.mark.parametrize("leak_tau_us", [1e6, 1e3])  # 1 nA, and a leak 1000 times worse
def test_step_5_only_a1_wired(us_clock: UsClock, leak_tau_us: float) -> None:
    """docs/build/hall-board.md step 5: A1 wired, 48 cells not yet; those are marked CHECK."""
    sources: list[int | None] = [S.NOMINAL + OFFSET] + [FLOATING] * (S.CELLS - 1)
    _, bus = bus_on(us_clock, sources, leak_tau_us=leak_tau_us)
    sc = calibrate(bus, bus.read_all_discharged)
    assert rejected_cells(sc) == list(range(1, S.CELLS))
    assert sc.calibration[0] == S.CELLS - 1
    assert abs(sc.baseline[0] - (S.NOMINAL + OFFSET)) < LSB
    _, _, stats = sc.calibration
    assert max(mean for mean, _ in stats[1:]) < S.NOMINAL - S.CALIB_TOLERANCE


def test_without_the_discharge_step_5_would_pass_47_unwired_cells(us_clock: UsClock) -> None:
    """The limit of a plain scan (the normal scans, and the calibration before the fix): every
    unwired cell copies the channel selected before it, here A1, and passes calibration. Only
    K5 (mux 3 channel 0) is caught, because mux 3 is switched on while the select lines still
    name channel 15, which is tied to AGND."""
    sources: list[int | None] = [S.NOMINAL + OFFSET] + [FLOATING] * (S.CELLS - 1)
    _, bus = bus_on(us_clock, sources)
    sc = calibrate(bus, bus.read_all)
    assert rejected_cells(sc) == [S.CELLS - 1]
    for c in range(1, S.CELLS - 1):
        assert abs(sc.baseline[c] - (S.NOMINAL + OFFSET)) < LSB, c


def test_in_normal_scans_unwired_cells_echo_a1(us_clock: UsClock) -> None:
    """What step 5's `sensors watch` shows (normal scans do not discharge): a magnet on A1
    appears on every unwired cell of muxes 0-2 as well; K5 reads 0 V (see above): '?'."""
    sources: list[int | None] = [PIECE] + [FLOATING] * (S.CELLS - 1)
    _, bus = bus_on(us_clock, sources)
    raw = [0] * S.CELLS
    bus.read_all(raw)
    bus.read_all(raw)
    states = [S.classify(EMPTY, v, S.NOMINAL) for v in raw]
    assert states[:-1] == [S.LIGHT] * (S.CELLS - 1)
    assert states[-1] == UNREADABLE


@pytest.mark.parametrize("speed", SPEEDS)
def test_a_plain_scan_copies_the_channels_before_a_floating_input(us_clock: UsClock,
                                                                  speed: str) -> None:
    """Why a normal scan cannot see an unwired cell or a broken wire: the floating cell reads
    what the node held when its channel came up. Where only S0 moves (an odd channel) that is
    the previous cell, exactly; elsewhere the select lines pass through other channels, one
    pin write each, and the node holds a blend of them. Either way a reading of wired sensors:
    an empty cell, near mid-scale. The discharged read sees through it."""
    for cell in range(S.CELLS - 1):  # K5 comes after mux 3's grounded channel 15: see above
        sources = wired()
        sources[cell] = FLOATING
        _, bus = bus_on(us_clock, sources, speed)
        raw = [0] * S.CELLS
        bus.read_all(raw)
        bus.read_all(raw)
        driven = [v for v in sources if v is not None]
        assert min(driven) - LSB < raw[cell] < max(driven) + LSB, (cell, raw[cell])
        assert S.classify(EMPTY, raw[cell], S.NOMINAL) == EMPTY
        if cell % 2:
            assert abs(raw[cell] - raw[cell - 1]) < LSB, (cell, raw[cell], raw[cell - 1])
        bus.read_all_discharged(raw)
        assert raw[cell] <= S.SAT_LOW, (cell, raw[cell])
        assert S.classify(EMPTY, raw[cell], S.NOMINAL) == UNREADABLE


@pytest.mark.parametrize("speed", SPEEDS)
def test_discharged_reads_of_wired_sensors_are_exact(us_clock: UsClock, speed: str) -> None:
    """Each sensor drives the node back from 0 V within SETTLE_US: rails, pieces and all."""
    sources = wired()
    sources[3], sources[4], sources[20], sources[48] = 65535, PIECE, 0, PIECE
    rc, bus = bus_on(us_clock, sources, speed)
    raw = [0] * S.CELLS
    bus.read_all_discharged(raw)
    assert all(abs(raw[c] - sources[c]) < LSB for c in range(S.CELLS)), raw
    assert len(rc.settled_for) == S.CELLS and min(rc.settled_for) >= S.SETTLE_US
    assert all(p.value() == 1 for p in rc.enable)  # RcBoard also asserts one enable at a time


def test_a_floating_input_after_a_rail_still_reads_low(us_clock: UsClock) -> None:
    sources = wired()
    for cell in (5, 17, 40):
        sources[cell - 1] = 65535
        sources[cell] = FLOATING
    _, bus = bus_on(us_clock, sources, "fast")  # the least time between the pin writes
    raw = [0] * S.CELLS
    bus.read_all_discharged(raw)
    assert all(raw[c] <= S.SAT_LOW for c in (5, 17, 40)), raw


def test_the_discharge_and_settle_waits() -> None:
    # DISCHARGE_US empties a full-scale node to under one ADC step ...
    assert 65535 * math.exp(-S.DISCHARGE_US / TAU_US) < LSB
    # ... and a sensor at a rail climbs back from 0 V to within a count in SETTLE_US
    assert 65535 * math.exp(-S.SETTLE_US / TAU_US) < 1
    # grounded: mux 3's channels 1..15 (hardware/README.md), not channel 0 (K5)
    assert S.GROUND_MUX * 16 + S.GROUND_CHANNEL >= S.CELLS


def test_a_board_with_the_unused_channels_left_open_cannot_discharge(us_clock: UsClock) -> None:
    """The discharge relies on the build guide's AGND ties; without them it changes nothing."""
    sources: list[int | None] = [S.NOMINAL + OFFSET] + [FLOATING] * (S.CELLS - 1)
    _, bus = bus_on(us_clock, sources, unused=FLOATING)
    sc = calibrate(bus, bus.read_all_discharged)
    assert sc.calibration[0] == 0


def test_scan_times(us_clock: UsClock) -> None:
    """A normal scan stays plain (well inside SCAN_PERIOD_MS); a calibration scan costs about
    1.6-1.9 times as much (12 pin writes and 30 us a cell instead of 4 and 20) and may fill the
    period at slow pin writes: the loop then starts the next scan at once, for 32 scans."""
    took = {}
    for speed in ("micropython", "slow"):
        for how in ("read_all", "read_all_discharged"):
            _, bus = bus_on(us_clock, wired(), speed)
            start = us_clock.us
            getattr(bus, how)([0] * S.CELLS)
            took[speed, how] = us_clock.us - start
    assert took["micropython", "read_all"] < 2000
    assert took["micropython", "read_all_discharged"] < 3000
    assert took["slow", "read_all"] < 2800
    assert took["slow", "read_all_discharged"] < S.SCAN_PERIOD_MS * 1000


def test_only_calibration_scans_discharge(ticks: Ticks) -> None:
    calls: list[str] = []

    def reader(name: str):
        def read(raw: list[int]) -> None:
            calls.append(name)
            raw[:] = [S.NOMINAL] * S.CELLS
        return read

    sc = S.Scanner(reader("plain"), ticks, read_calibration=reader("discharged"))
    sc.scan()
    sc.start_calibration(2)
    sc.scan()
    sc.scan()
    sc.scan()
    assert calls == ["plain", "discharged", "discharged", "plain"]
    sc = S.Scanner(reader("plain"), ticks)  # no calibration reader given: read_all
    sc.start_calibration(1)
    sc.scan()
    assert calls[-1] == "plain"


def test_the_firmware_calibrates_with_the_discharged_reads() -> None:
    fw = M.build(machine, M.UartStream(machine.UART(0)), ticks=Ticks(), sleep_us=lambda us: None)
    assert fw.scanner.read_calibration == fw.bus.read_all_discharged
    assert fw.scanner.read_all == fw.bus.read_all
