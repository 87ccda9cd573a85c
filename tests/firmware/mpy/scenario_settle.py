"""The MuxBus settle and discharge timings on MicroPython, with the RC node fake and its
microsecond clock (as tests/firmware/test_settle.py and test_unwired.py on CPython): no
phantom after a piece, a dead sensor reads its rail, every read waits SETTLE_US, calibration
rejects an unwired input wherever it is, and the scans fit the scan period."""

import link as L
import machine
import main as M
import scanner as S
from boards import FLOATING, SPEEDS, RcBoard, Ticks, UsClock

PIECE = S.NOMINAL + 16900
LSB = 16
OFFSET = 300
SAMPLES = 4


def scan_twice(bus):
    raw = [0] * S.CELLS
    bus.read_all(raw)
    bus.read_all(raw)
    return raw


def wired(n=S.CELLS):
    return [S.NOMINAL + OFFSET + 7 * c for c in range(n)]


def calibrate(bus, read_calibration):
    sc = S.Scanner(bus.read_all, Ticks(), read_calibration=read_calibration)
    sc.start_calibration(SAMPLES)
    for _ in range(SAMPLES):
        sc.scan()
    assert sc.calibration is not None
    return sc


def rejected_cells(sc):
    stats = sc.calibration[2]
    return [c for c in range(len(stats))
            if abs(stats[c][0] - S.NOMINAL) > S.CALIB_TOLERANCE
            or stats[c][1] > S.CALIB_MAX_SPREAD]


def test_a_piece_puts_no_phantom_on_the_next_cell():
    for speed in SPEEDS:
        for cell in range(S.CELLS - 1):
            sources = [S.NOMINAL] * S.CELLS
            sources[cell] = PIECE
            raw = scan_twice(RcBoard(UsClock(), sources, speed).bus())
            leak = raw[cell + 1] - S.NOMINAL
            assert abs(leak) < LSB, (speed, cell, leak)
            assert abs(raw[cell] - PIECE) < LSB, (speed, cell, raw[cell])
            assert S.classify(L.EMPTY, raw[cell + 1], S.NOMINAL) == L.EMPTY


def test_a_dead_sensor_reads_its_rail_not_its_predecessor():
    for speed in SPEEDS:
        for rail in (0, 65535):
            for cell in range(0, S.CELLS - 1, 3):
                sources = [S.NOMINAL] * S.CELLS
                sources[cell] = PIECE
                sources[cell + 1] = rail
                raw = scan_twice(RcBoard(UsClock(), sources, speed).bus())
                assert abs(raw[cell + 1] - rail) < LSB, (speed, rail, cell, raw[cell + 1])
                assert S.classify(L.EMPTY, raw[cell + 1], S.NOMINAL) == L.UNREADABLE


def test_every_read_waits_settle_us_after_the_last_pin_change():
    rc = RcBoard(UsClock(), [S.NOMINAL] * S.CELLS, "fast")
    scan_twice(rc.bus())
    assert len(rc.settled_for) == 2 * S.CELLS
    assert min(rc.settled_for) >= S.SETTLE_US, min(rc.settled_for)


def test_calibration_rejects_an_unwired_cell_wherever_it_is():
    for speed in SPEEDS:
        for cell in range(S.CELLS) if speed == "micropython" else (0, 15, 16, 31, 47, 48):
            sources = wired()
            sources[cell] = FLOATING
            bus = RcBoard(UsClock(), sources, speed).bus()
            sc = calibrate(bus, bus.read_all_discharged)
            rejected, _, stats = sc.calibration
            assert rejected_cells(sc) == [cell], (speed, cell, stats[cell])
            assert rejected == 1
            assert stats[cell][0] <= S.SAT_LOW
            assert sc.baseline[cell] == S.NOMINAL
            for c in range(S.CELLS):
                if c != cell:
                    assert abs(sc.baseline[c] - sources[c]) < LSB, (speed, cell, c)


def test_step_5_only_a1_wired():
    for leak_tau_us in (1e6, 1e3):
        sources = [S.NOMINAL + OFFSET] + [FLOATING] * (S.CELLS - 1)
        bus = RcBoard(UsClock(), sources, leak_tau_us=leak_tau_us).bus()
        sc = calibrate(bus, bus.read_all_discharged)
        assert rejected_cells(sc) == list(range(1, S.CELLS))
        assert sc.calibration[0] == S.CELLS - 1
        assert abs(sc.baseline[0] - (S.NOMINAL + OFFSET)) < LSB


def test_without_the_discharge_unwired_cells_pass():
    sources = [S.NOMINAL + OFFSET] + [FLOATING] * (S.CELLS - 1)
    bus = RcBoard(UsClock(), sources).bus()
    sc = calibrate(bus, bus.read_all)
    assert rejected_cells(sc) == [S.CELLS - 1]


def test_discharged_reads_of_wired_sensors_are_exact():
    for speed in SPEEDS:
        sources = wired()
        sources[3], sources[4], sources[20], sources[48] = 65535, PIECE, 0, PIECE
        rc = RcBoard(UsClock(), sources, speed)
        raw = [0] * S.CELLS
        rc.bus().read_all_discharged(raw)
        for c in range(S.CELLS):
            assert abs(raw[c] - sources[c]) < LSB, (speed, c, raw[c])
        assert len(rc.settled_for) == S.CELLS and min(rc.settled_for) >= S.SETTLE_US
        assert all(p.value() == 1 for p in rc.enable)


def test_unused_channels_left_open_cannot_discharge():
    sources = [S.NOMINAL + OFFSET] + [FLOATING] * (S.CELLS - 1)
    bus = RcBoard(UsClock(), sources, unused=FLOATING).bus()
    assert calibrate(bus, bus.read_all_discharged).calibration[0] == 0


def test_scan_times():
    took = {}
    for speed in ("micropython", "slow"):
        for how in ("read_all", "read_all_discharged"):
            clock = UsClock()
            bus = RcBoard(clock, wired(), speed).bus()
            start = clock.us
            getattr(bus, how)([0] * S.CELLS)
            took[(speed, how)] = clock.us - start
    assert took[("micropython", "read_all")] < 2000, took
    assert took[("micropython", "read_all_discharged")] < 3000, took
    assert took[("slow", "read_all")] < 2800, took
    assert took[("slow", "read_all_discharged")] < S.SCAN_PERIOD_MS * 1000, took


def test_the_firmware_calibrates_with_the_discharged_reads():
    fw = M.build(machine, M.UartStream(machine.UART(0)), ticks=Ticks(),
                 sleep_us=lambda us: None)
    assert fw.scanner.read_calibration == fw.bus.read_all_discharged
    assert fw.scanner.read_all == fw.bus.read_all


def test_in_normal_scans_unwired_cells_echo_a1():
    sources = [PIECE] + [FLOATING] * (S.CELLS - 1)
    raw = scan_twice(RcBoard(UsClock(), sources).bus())
    states = [S.classify(L.EMPTY, v, S.NOMINAL) for v in raw]
    assert states[:-1] == [S.LIGHT] * (S.CELLS - 1), states
    assert states[-1] == L.UNREADABLE


def test_a_plain_scan_copies_the_channels_before_a_floating_input():
    for speed in SPEEDS:
        for cell in range(0, S.CELLS - 1, 5):
            sources = wired()
            sources[cell] = FLOATING
            bus = RcBoard(UsClock(), sources, speed).bus()
            raw = scan_twice(bus)
            driven = [v for v in sources if v is not None]
            assert min(driven) - LSB < raw[cell] < max(driven) + LSB, (speed, cell, raw[cell])
            if cell % 2:
                assert abs(raw[cell] - raw[cell - 1]) < LSB, (speed, cell)
            bus.read_all_discharged(raw)
            assert raw[cell] <= S.SAT_LOW, (speed, cell, raw[cell])
