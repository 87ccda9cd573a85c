"""firmware/scanner.py on MicroPython (as tests/firmware/test_scanner.py on CPython):
classification, hysteresis, debounce, heartbeat across the ticks wrap, calibration, and the
mux bus's addressing."""

import link as L
import machine
import scanner as S
from boards import Ticks

EMPTY, UNREADABLE = L.EMPTY, L.UNREADABLE
STRONG = S.NOMINAL + 16900  # a white or red piece: 6x2 mm magnet, 56 mT at 4 mm
WEAK = S.NOMINAL + 3840  # a black piece: 3x1 mm magnet, 13 mT


class Field:
    def __init__(self):
        self.raw = [S.NOMINAL] * S.CELLS

    def read_all(self, out):
        out[:] = self.raw


def make(ticks, **kw):
    field = Field()
    return S.Scanner(field.read_all, ticks, **kw), field


def test_strong_and_weak_magnets_keep_the_wire_codes():
    assert (S.LIGHT, S.DARK) == (L.NORTH, L.SOUTH) == (1, 2)


def test_classify_thresholds_and_hysteresis():
    base = S.NOMINAL
    c = S.classify
    assert c(EMPTY, base, base) == EMPTY
    assert c(EMPTY, base + S.ON_DELTA, base) == S.DARK
    assert c(EMPTY, base + S.STRONG_DELTA - 1, base) == S.DARK
    assert c(EMPTY, base + S.STRONG_DELTA, base) == S.LIGHT
    between = base + (S.ON_DELTA + S.OFF_DELTA) // 2
    assert c(EMPTY, between, base) == EMPTY
    assert c(S.DARK, between, base) == S.DARK
    assert c(S.LIGHT, between, base) == S.DARK
    assert c(S.DARK, base + S.OFF_DELTA, base) == EMPTY
    assert c(EMPTY, S.SAT_LOW, base) == UNREADABLE
    assert c(S.LIGHT, S.SAT_HIGH, base) == UNREADABLE
    assert c(EMPTY, 0, base) == UNREADABLE


def test_a_reading_that_falls_is_a_magnet_upside_down():
    base = S.NOMINAL
    c = S.classify
    assert c(EMPTY, base - S.ON_DELTA + 1, base) == EMPTY
    assert c(EMPTY, base - S.ON_DELTA, base) == UNREADABLE
    assert c(EMPTY, base - 16900, base) == UNREADABLE
    between = base - (S.ON_DELTA + S.OFF_DELTA) // 2
    assert c(EMPTY, between, base) == EMPTY
    assert c(UNREADABLE, between, base) == UNREADABLE
    assert c(UNREADABLE, base - S.OFF_DELTA, base) == EMPTY
    assert c(S.LIGHT, base - S.ON_DELTA, base) == UNREADABLE


def test_the_design_fields_classify():
    per_mt = 65536 / 3300 * 15
    base = S.NOMINAL
    for mt in (9.6, 13.0, 17.7, 29.2):
        assert S.classify(EMPTY, base + round(mt * per_mt), base) == S.DARK, mt
    for mt in (45.5, 56.0, 82.5):
        assert S.classify(EMPTY, base + round(mt * per_mt), base) == S.LIGHT, mt


def test_change_reported_after_exactly_debounce_scans():
    ticks = Ticks()
    sc, field = make(ticks)
    assert sc.scan() == S.REPORT_HEARTBEAT
    field.raw[7] = STRONG
    for _ in range(S.DEBOUNCE - 1):
        ticks.ms += 5
        assert sc.scan() == S.REPORT_NONE
        assert sc.flags_pending()
    ticks.ms += 5
    assert sc.scan() == S.REPORT_CHANGE
    assert sc.states[7] == S.LIGHT and not sc.flags_pending()
    field.raw[7] = WEAK
    results = []
    for _ in range(S.DEBOUNCE):
        ticks.ms += 5
        results.append(sc.scan())
    assert results == [S.REPORT_NONE] * (S.DEBOUNCE - 1) + [S.REPORT_CHANGE], results
    assert sc.states[7] == S.DARK


def test_flicker_shorter_than_debounce_is_never_reported():
    ticks = Ticks()
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


def test_heartbeat_at_least_four_times_a_second():
    ticks = Ticks()
    sc, _ = make(ticks)
    reports = []
    for _ in range(200):
        reports.append(sc.scan())
        ticks.ms += 5
    assert reports.count(S.REPORT_HEARTBEAT) >= 4 and reports.count(S.REPORT_CHANGE) == 0
    gaps = [i for i, r in enumerate(reports) if r]
    assert max(gaps[i + 1] - gaps[i] for i in range(len(gaps) - 1)) * 5 <= 250


def test_heartbeat_survives_the_ticks_wrap():
    ticks = Ticks((1 << 30) - 50)
    sc, _ = make(ticks)
    sc.scan()
    beats = 0
    for _ in range(100):
        ticks.ms += 5
        beats += sc.scan() == S.REPORT_HEARTBEAT
    assert beats == 500 // S.HEARTBEAT_MS, beats
    assert S.ticks_diff(3, (1 << 30) - 2) == 5
    assert S.ticks_diff((1 << 30) - 2, 3) == -5


def test_saturated_sensor_reads_unreadable():
    sc, field = make(Ticks())
    field.raw[48] = 65535
    for _ in range(S.DEBOUNCE):
        sc.scan()
    assert sc.states[48] == UNREADABLE


def test_calibration_sets_the_baseline_and_rejects_occupied_cells():
    ticks = Ticks()
    sc, field = make(ticks)
    field.raw = [S.NOMINAL + 500 + i for i in range(S.CELLS)]
    field.raw[10] = STRONG
    field.raw[11] = S.NOMINAL + 2860
    field.raw[12] = S.NOMINAL - 2300
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
    field.raw[10] = field.raw[11] = S.NOMINAL
    for _ in range(S.DEBOUNCE):
        sc.scan()
    assert sc.states[0] == EMPTY and sc.states[12] == EMPTY


def test_calibration_sample_count_is_clamped():
    sc, _ = make(Ticks())
    sc.start_calibration(0)
    assert sc._cal_left == 1
    sc.start_calibration(1000)
    assert sc._cal_left == 255


def test_mux_bus_addresses_every_cell_once_with_one_enable_at_a_time():
    pins = [machine.Pin(n, machine.Pin.OUT) for n in range(10)]
    select, enable = pins[2:6], pins[6:10]
    adc = machine.ADC(machine.Pin(26))
    seen = []
    waits = []

    def source():
        low = [m for m in range(4) if enable[m].value() == 0]
        assert len(low) == 1
        ch = 0
        for k in range(4):
            ch |= select[k].value() << k
        seen.append(low[0] * 16 + ch)
        return 1000 + seen[-1]

    adc.source = source
    bus = S.MuxBus(select, enable, adc, sleep_us=waits.append)
    raw = [0] * S.CELLS
    bus.read_all(raw)
    assert seen == list(range(S.CELLS))
    assert raw == [1000 + c for c in range(S.CELLS)]
    assert all(p.value() == 1 for p in enable)
    assert waits == [S.SETTLE_US] * (S.CELLS + 8)


def test_mux_bus_defaults_to_the_time_module_sleep_us():
    """Without an injected sleep_us the bus imports time.sleep_us, as on the chip."""
    import time

    pins = [machine.Pin(n, machine.Pin.OUT) for n in range(10)]
    bus = S.MuxBus(pins[2:6], pins[6:10], machine.ADC(26))
    assert bus.sleep_us is time.sleep_us
