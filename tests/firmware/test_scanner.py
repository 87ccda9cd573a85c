"""The scan core (firmware/scanner.py) with fake ADC values and an injected ticks_ms."""

from __future__ import annotations

from firmware import scanner as S
from firmware.link import EMPTY, NORTH, SOUTH, UNREADABLE
from hardware.sensorboard.mpy_fakes import machine
from tests.firmware.conftest import Ticks


class Field:
    """49 raw readings the test sets directly; read_all copies them like a full scan."""

    def __init__(self) -> None:
        self.raw = [S.NOMINAL] * S.CELLS

    def read_all(self, out: list[int]) -> None:
        out[:] = self.raw


def make(ticks: Ticks, **kw: int) -> tuple[S.Scanner, Field]:
    field = Field()
    return S.Scanner(field.read_all, ticks, **kw), field


STRONG = S.NOMINAL + 16900  # a white or red piece: 6x2 mm magnet, 56 mT at 4 mm
WEAK = S.NOMINAL + 3840  # a black piece: 3x1 mm magnet, 13 mT


def test_strong_and_weak_magnets_keep_the_wire_codes() -> None:
    assert (S.LIGHT, S.DARK) == (NORTH, SOUTH) == (1, 2)


def test_classify_thresholds_and_hysteresis() -> None:
    base = S.NOMINAL
    assert S.classify(EMPTY, base, base) == EMPTY
    assert S.classify(EMPTY, base + S.ON_DELTA, base) == S.DARK
    assert S.classify(EMPTY, base + S.STRONG_DELTA - 1, base) == S.DARK
    assert S.classify(EMPTY, base + S.STRONG_DELTA, base) == S.LIGHT
    between = base + (S.ON_DELTA + S.OFF_DELTA) // 2
    assert S.classify(EMPTY, between, base) == EMPTY  # not enough to become occupied ...
    assert S.classify(S.DARK, between, base) == S.DARK  # ... but enough to stay occupied
    assert S.classify(S.LIGHT, between, base) == S.DARK  # the strength decides the colour
    assert S.classify(S.DARK, base + S.OFF_DELTA, base) == EMPTY
    assert S.classify(EMPTY, S.SAT_LOW, base) == UNREADABLE
    assert S.classify(S.LIGHT, S.SAT_HIGH, base) == UNREADABLE
    assert S.classify(EMPTY, 0, base) == UNREADABLE


def test_a_reading_that_falls_is_a_magnet_upside_down() -> None:
    base = S.NOMINAL
    assert S.classify(EMPTY, base - S.ON_DELTA + 1, base) == EMPTY
    assert S.classify(EMPTY, base - S.ON_DELTA, base) == UNREADABLE
    assert S.classify(EMPTY, base - 16900, base) == UNREADABLE  # a 6x2 north down
    between = base - (S.ON_DELTA + S.OFF_DELTA) // 2
    assert S.classify(EMPTY, between, base) == EMPTY
    assert S.classify(UNREADABLE, between, base) == UNREADABLE  # same hysteresis
    assert S.classify(UNREADABLE, base - S.OFF_DELTA, base) == EMPTY
    assert S.classify(S.LIGHT, base - S.ON_DELTA, base) == UNREADABLE


def test_the_design_fields_classify_with_margin() -> None:
    """Counts for the magnet figures: 298 per mT (15 mV/mT, 19.86 counts/mV)."""
    per_mt = 65536 / 3300 * 15
    base = S.NOMINAL
    for mt in (9.6, 13.0, 17.7, 29.2):  # a black bottom piece: alone .. under 19 strong ones
        assert S.classify(EMPTY, base + round(mt * per_mt), base) == S.DARK, mt
    for mt in (45.5, 56.0, 82.5):  # white or red bottom piece, 4.5 mm .. 3.5 mm plus a stack
        assert S.classify(EMPTY, base + round(mt * per_mt), base) == S.LIGHT, mt
    assert 29.2 * per_mt + 2000 < S.STRONG_DELTA < 45.5 * per_mt - 2000  # ~8 mT each way
    assert S.ON_DELTA * 1.8 < 9.6 * per_mt  # the weakest magnet is well above ON_DELTA
    assert S.CALIB_TOLERANCE < 9.6 * per_mt  # a black piece left on a cell fails calibration


def test_change_reported_after_exactly_debounce_scans(ticks: Ticks) -> None:
    sc, field = make(ticks)
    assert sc.scan() == S.REPORT_HEARTBEAT  # the first scan always reports
    field.raw[7] = STRONG
    for _ in range(S.DEBOUNCE - 1):
        ticks.ms += 5
        assert sc.scan() == S.REPORT_NONE
        assert sc.flags_pending()
    ticks.ms += 5
    assert sc.scan() == S.REPORT_CHANGE
    assert sc.states[7] == S.LIGHT and not sc.flags_pending()
    field.raw[7] = WEAK  # a black piece put there instead: again after DEBOUNCE scans
    results = []
    for _ in range(S.DEBOUNCE):
        ticks.ms += 5
        results.append(sc.scan())
    assert results == [S.REPORT_NONE] * (S.DEBOUNCE - 1) + [S.REPORT_CHANGE]
    assert sc.states[7] == S.DARK


def test_flicker_shorter_than_debounce_is_never_reported(ticks: Ticks) -> None:
    sc, field = make(ticks)
    sc.scan()
    for _ in range(20):
        field.raw[3] = STRONG
        for _ in range(S.DEBOUNCE - 1):
            ticks.ms += 5
            assert sc.scan() != S.REPORT_CHANGE
        field.raw[3] = S.NOMINAL
        ticks.ms += 5
        assert sc.scan() != S.REPORT_CHANGE
    assert sc.states[3] == EMPTY


def test_heartbeat_at_least_four_times_a_second(ticks: Ticks) -> None:
    sc, _ = make(ticks)
    reports = []
    for _ in range(200):  # one second at 5 ms a scan
        reports.append(sc.scan())
        ticks.ms += 5
    beats = reports.count(S.REPORT_HEARTBEAT)
    assert beats >= 4 and reports.count(S.REPORT_CHANGE) == 0
    gaps = [i for i, r in enumerate(reports) if r]
    assert max(b - a for a, b in zip(gaps, gaps[1:], strict=False)) * 5 <= 250


def test_heartbeat_survives_the_ticks_wrap() -> None:
    ticks = Ticks((1 << 30) - 50)
    sc, _ = make(ticks)
    sc.scan()
    beats = 0
    for _ in range(100):
        ticks.ms += 5
        beats += sc.scan() == S.REPORT_HEARTBEAT
    assert beats == 500 // S.HEARTBEAT_MS
    assert S.ticks_diff(3, (1 << 30) - 2) == 5


def test_saturated_sensor_reads_unreadable(ticks: Ticks) -> None:
    sc, field = make(ticks)
    field.raw[48] = 65535
    for _ in range(S.DEBOUNCE):
        sc.scan()
    assert sc.states[48] == UNREADABLE


def test_calibration_sets_the_baseline_and_rejects_occupied_cells(ticks: Ticks) -> None:
    sc, field = make(ticks)
    field.raw = [S.NOMINAL + 500 + i for i in range(S.CELLS)]
    field.raw[10] = STRONG  # a white piece left on the table
    field.raw[11] = S.NOMINAL + 2860  # a black one at its weakest (9.6 mT)
    field.raw[12] = S.NOMINAL - 2300  # a sensor with a large offset: still within tolerance
    sc.start_calibration(4)
    assert sc.calibrating
    for _ in range(4):
        sc.scan()
    assert not sc.calibrating and sc.calibrated
    rejected, samples, stats = sc.calibration
    assert (rejected, samples) == (2, 4)
    assert stats[0] == (S.NOMINAL + 500, 0)
    assert sc.baseline[0] == S.NOMINAL + 500 and sc.baseline[10] == S.NOMINAL
    assert sc.baseline[11] == S.NOMINAL and sc.baseline[12] == S.NOMINAL - 2300
    # against mid-scale cell 12 would read as a magnet upside down; against its baseline, empty
    assert S.classify(EMPTY, field.raw[12], S.NOMINAL) == UNREADABLE
    field.raw[10] = field.raw[11] = S.NOMINAL
    for _ in range(S.DEBOUNCE):
        sc.scan()
    assert sc.states[0] == EMPTY and sc.states[12] == EMPTY


def test_mux_bus_addresses_every_cell_once_with_one_enable_at_a_time() -> None:
    pins = [machine.Pin(n, machine.Pin.OUT) for n in range(10)]
    select, enable = pins[2:6], pins[6:10]
    adc = machine.ADC(machine.Pin(26))
    seen: list[int] = []
    waits: list[int] = []

    def source() -> int:
        low = [m for m, p in enumerate(enable) if p.value() == 0]
        assert len(low) == 1
        ch = sum(int(select[k].value() or 0) << k for k in range(4))
        seen.append(low[0] * 16 + ch)
        return 1000 + seen[-1]

    adc.source = source
    bus = S.MuxBus(select, enable, adc, sleep_us=waits.append)
    raw = [0] * S.CELLS
    bus.read_all(raw)
    assert seen == list(range(S.CELLS))
    assert raw == [1000 + c for c in range(S.CELLS)]
    assert all(p.value() == 1 for p in enable)
    # one wait per channel and one per enable change (4 muxes on, 4 off)
    assert waits == [S.SETTLE_US] * (S.CELLS + 8)
