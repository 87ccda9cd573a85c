"""Scanning 49 linear hall sensors: mux addressing, baseline, hysteresis, debounce, heartbeat.

Pure logic over injected callables (``read_all(raw)`` and ``ticks_ms()``) so it runs the same on
the RP2040 and on CPython. A cell reads NORTH when a north pole faces its sensor (output falls
below the baseline), SOUTH when a south pole does (output rises), UNREADABLE when the ADC sits
near a rail (saturated by a too-strong magnet, or a broken/open sensor).
"""

try:
    from link import EMPTY, NORTH, SOUTH, UNREADABLE  # on the chip: flat filesystem
except ImportError:
    from .link import EMPTY, NORTH, SOUTH, UNREADABLE

CELLS = 49
NOMINAL = 32768  # a ratiometric sensor with no field sits at Vcc/2
ON_DELTA = 3000  # |reading - baseline| that makes an empty cell occupied (~150 mV)
OFF_DELTA = 2000  # ... and that an occupied cell must fall under to be empty again
SAT_LOW = 1024  # readings at or beyond these are unreadable
SAT_HIGH = 64512
DEBOUNCE = 3  # consecutive scans a new state must hold
HEARTBEAT_MS = 200  # a snapshot at least 5 times a second even when nothing changes
SCAN_PERIOD_MS = 5
CALIB_TOLERANCE = 6000  # an empty cell's mean must lie within this of NOMINAL
CALIB_MAX_SPREAD = 1500  # ... and its readings within this of each other

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps here on the RP2040
_HALF = TICKS_PERIOD // 2

REPORT_NONE = 0
REPORT_CHANGE = 1
REPORT_HEARTBEAT = 2


def ticks_diff(a, b):
    """a - b in milliseconds, correct across the ticks_ms wrap."""
    return ((a - b + _HALF) % TICKS_PERIOD) - _HALF


def classify(prev, raw, base, on=ON_DELTA, off=OFF_DELTA):
    """The state a single reading shows, with hysteresis around the cell's current state."""
    if raw <= SAT_LOW or raw >= SAT_HIGH:
        return UNREADABLE
    d = raw - base
    if prev == NORTH and d < -off:
        return NORTH
    if prev == SOUTH and d > off:
        return SOUTH
    if d <= -on:
        return NORTH
    if d >= on:
        return SOUTH
    return EMPTY


class MuxBus:
    """4 x CD74HC4067 sharing select lines S0..S3; active-low enables; SIG to one ADC.

    Cell c sits on mux c // 16, channel c % 16 (mux 3 uses channel 0 only).
    """

    def __init__(self, select_pins, enable_pins, adc, cells=CELLS):
        self.select = select_pins
        self.enable = enable_pins
        self.adc = adc
        self.cells = cells
        for p in enable_pins:
            p.value(1)

    def read_all(self, raw):
        """Fill ``raw`` (a list of ``cells`` ints) with one reading per cell."""
        sel = self.select
        adc = self.adc
        cell = 0
        for en in self.enable:
            if cell >= self.cells:
                break
            en.value(0)
            for ch in range(16):
                if cell >= self.cells:
                    break
                sel[0].value(ch & 1)
                sel[1].value((ch >> 1) & 1)
                sel[2].value((ch >> 2) & 1)
                sel[3].value((ch >> 3) & 1)
                raw[cell] = adc.read_u16()
                cell += 1
            en.value(1)


class Scanner:
    """Per-cell baseline, hysteresis and debounce; tells when to report a snapshot."""

    def __init__(self, read_all, ticks_ms, cells=CELLS, debounce=DEBOUNCE,
                 heartbeat_ms=HEARTBEAT_MS, on=ON_DELTA, off=OFF_DELTA):
        self.read_all = read_all
        self.ticks_ms = ticks_ms
        self.cells = cells
        self.debounce = debounce
        self.heartbeat_ms = heartbeat_ms
        self.on = on
        self.off = off
        self.baseline = [NOMINAL] * cells
        self.calibrated = False
        self.raw = [0] * cells
        self.states = [EMPTY] * cells
        self.pending = [EMPTY] * cells
        self.counts = [0] * cells
        self.last_report = None
        self.scans = 0
        self._cal_left = 0
        self._cal_samples = 0
        self._cal_sum = None
        self._cal_min = None
        self._cal_max = None
        self.calibration = None  # (rejected, samples, [(mean, spread)...]) when one finishes

    def set_baseline(self, values):
        self.baseline = list(values)
        self.calibrated = True

    def start_calibration(self, samples=32):
        """Average the next ``samples`` scans into a new baseline (the table must be empty)."""
        samples = max(1, min(255, samples))
        self._cal_left = samples
        self._cal_samples = samples
        self._cal_sum = [0] * self.cells
        self._cal_min = [65535] * self.cells
        self._cal_max = [0] * self.cells
        self.calibration = None

    @property
    def calibrating(self):
        return self._cal_left > 0

    def _calibrate_step(self):
        raw = self.raw
        for i in range(self.cells):
            v = raw[i]
            self._cal_sum[i] += v
            if v < self._cal_min[i]:
                self._cal_min[i] = v
            if v > self._cal_max[i]:
                self._cal_max[i] = v
        self._cal_left -= 1
        if self._cal_left:
            return
        stats = []
        rejected = 0
        n = self._cal_samples
        for i in range(self.cells):
            mean = (self._cal_sum[i] + n // 2) // n
            spread = self._cal_max[i] - self._cal_min[i]
            stats.append((mean, spread))
            if abs(mean - NOMINAL) > CALIB_TOLERANCE or spread > CALIB_MAX_SPREAD:
                rejected += 1  # a piece, a magnet nearby or a dead sensor: keep the old value
            else:
                self.baseline[i] = mean
        self.calibrated = True
        self.calibration = (rejected, n, stats)

    def flags_pending(self):
        for c in self.counts:
            if c:
                return True
        return False

    def scan(self):
        """One full scan; returns REPORT_CHANGE, REPORT_HEARTBEAT or REPORT_NONE."""
        self.read_all(self.raw)
        self.scans += 1
        changed = False
        if self._cal_left:
            self._calibrate_step()
        else:
            raw = self.raw
            base = self.baseline
            states = self.states
            pending = self.pending
            counts = self.counts
            for i in range(self.cells):
                cur = states[i]
                seen = classify(cur, raw[i], base[i], self.on, self.off)
                if seen == cur:
                    counts[i] = 0
                    continue
                if counts[i] and pending[i] == seen:
                    counts[i] += 1
                else:
                    pending[i] = seen
                    counts[i] = 1
                if counts[i] >= self.debounce:
                    states[i] = seen
                    counts[i] = 0
                    changed = True
        now = self.ticks_ms()
        if changed:
            self.last_report = now
            return REPORT_CHANGE
        if self.last_report is None or ticks_diff(now, self.last_report) >= self.heartbeat_ms:
            self.last_report = now
            return REPORT_HEARTBEAT
        return REPORT_NONE
