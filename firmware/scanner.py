"""Scanning 49 linear hall sensors: mux addressing, baseline, hysteresis, debounce, heartbeat.

Pure logic over injected callables (``read_all(raw)`` and ``ticks_ms()``; the bus takes a
``sleep_us``) so it runs the same on the RP2040 and on CPython.

The magnets (docs/build/): every piece carries its magnet SOUTH pole down, so stacks attract,
and a south pole raises a DRV5055A3's output. The colour comes from the field's strength:
white and red pieces have a 6x2 mm N35 disc (56 mT at the nominal 4 mm from the Hall element,
45.5-71 mT over 3.5-4.5 mm), black ones a 3x1 mm disc (13 mT, 9.6-17.7 mT). The pieces above
the bottom one (their magnets 10, 16, 22 ... mm away) add at most 11.5 mT even for 19 strong
ones, so a stack on a black piece reads at most 29.2 mT and one on a white or red piece at
least 45.5 mT. In counts (u16 over 3.3 V: 19.86 counts/mV; 15 mV/mT): about 298 per mT.

A cell reads LIGHT (wire code 1, host polarity 'n': a strong magnet, white or red bottom piece)
or DARK (wire code 2, 's': a weak magnet, black bottom piece) when the reading rises, EMPTY when
it stays near the baseline, and UNREADABLE when it falls (a north pole down: a magnet glued
upside down) or the ADC sits near a rail (a broken or unpowered sensor).
"""

try:
    from link import EMPTY, NORTH, SOUTH, UNREADABLE  # on the chip: flat filesystem
except ImportError:
    from .link import EMPTY, NORTH, SOUTH, UNREADABLE

# The wire keeps link.py's names (a contract: 1 'n', 2 's'); what they mean now:
LIGHT = NORTH  # strong magnet (6x2 mm): a white or red piece at the bottom
DARK = SOUTH  # weak magnet (3x1 mm): a black piece at the bottom

CELLS = 49
NOMINAL = 32768  # a ratiometric sensor with no field sits at Vcc/2
ON_DELTA = 1500  # 5 mT: an empty cell becomes occupied (the weak magnet's least, 9.6 mT, is 2x)
OFF_DELTA = 1000  # 3.4 mT: ... and an occupied cell must fall under this to be empty again
STRONG_DELTA = 11000  # 37 mT: black stacks read <= 29.2 mT (8700), white/red >= 45.5 mT (13550)
SAT_LOW = 1024  # readings at or beyond these are unreadable
SAT_HIGH = 64512
DEBOUNCE = 3  # consecutive scans a new state must hold
HEARTBEAT_MS = 200  # a snapshot at least 5 times a second even when nothing changes
SCAN_PERIOD_MS = 5
# Mux settling: SIG reaches GP26 through 1 kOhm + 1 nF (+ ~70 Ohm mux on-resistance):
# tau ~1.07 us. Waiting 20 us after the select lines (or an enable) change leaves e^-18 of the
# previous channel: nothing (a piece's 850 mV would ghost above ON_DELTA only under 2.4 tau).
# 49 x (4 pin writes + 20 us + one ADC read) ~ 2-3 ms: inside SCAN_PERIOD_MS.
SETTLE_US = 20
# A mux input with nothing wired (a sensor not wired yet, a broken wire) is not driven: the
# filter's capacitor keeps the previous channel's voltage however long the bus waits, so a plain
# scan reads it as a copy of the channel selected before it. Calibration scans therefore empty
# the node first through a grounded channel (mux 3's channels 1..15 are tied to AGND,
# hardware/README.md): DISCHARGE_US (9.3 tau: a full-scale node falls to 6 counts) on mux 3
# channel 1, then the cell's channel and SETTLE_US as usual. A wired sensor drives the node
# back (e^-18.7 of the step is left), a floating input stays near 0 V: far from NOMINAL,
# rejected. Normal scans skip it: 12 pin writes and 30 us a cell instead of 4 and 20, a scan of
# about 2.8 ms instead of 1.7 at 2 us a pin write (4.8 instead of 2.6 ms at 5 us).
GROUND_MUX = 3
GROUND_CHANNEL = 1
DISCHARGE_US = 10
# An empty cell's mean must lie within this of NOMINAL (126 mV, 8.4 mT: the sensor's quiescent
# offset and the rails' difference, but less than a black piece left on the cell, >= 9.6 mT)
CALIB_TOLERANCE = 2500
CALIB_MAX_SPREAD = 1500  # ... and its readings within this of each other

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps here on the RP2040
_HALF = TICKS_PERIOD // 2
# 2**30 itself is not a small int on MicroPython (31-bit signed): `x % TICKS_PERIOD` would
# build a long-int temporary on the heap at every call. The mask is the largest small int.
_TICKS_MASK = TICKS_PERIOD - 1

REPORT_NONE = 0
REPORT_CHANGE = 1
REPORT_HEARTBEAT = 2


def ticks_diff(a, b):
    """a - b in milliseconds, correct across the ticks_ms wrap (allocates nothing)."""
    return ((a - b + _HALF) & _TICKS_MASK) - _HALF


def classify(prev, raw, base, on=ON_DELTA, off=OFF_DELTA, strong=STRONG_DELTA):
    """The state a single reading shows, with hysteresis around the cell's current state.

    Occupied from ``on`` above the baseline, empty again under ``off``; LIGHT from ``strong``
    above, DARK below. A reading ``on`` below the baseline is UNREADABLE (a magnet upside
    down), and stays so while it is more than ``off`` below.
    """
    if raw <= SAT_LOW or raw >= SAT_HIGH:
        return UNREADABLE
    d = raw - base
    if d >= on or (d > off and (prev == LIGHT or prev == DARK)):
        return LIGHT if d >= strong else DARK
    if d <= -on or (d < -off and prev == UNREADABLE):
        return UNREADABLE
    return EMPTY


class MuxBus:
    """4 x CD74HC4067 sharing select lines S0..S3; active-low enables; SIG to one ADC.

    Cell c sits on mux c // 16, channel c % 16 (mux 3 uses channel 0 only; its channels 1..15
    are tied to AGND). After the select lines of a channel are written, and after every enable
    change, the bus waits ``settle_us`` (``sleep_us``: time.sleep_us on the chip) so the ADC
    filter forgets the previous channel. ``read_all_discharged`` also empties the filter
    through a grounded channel before every cell, so an input nothing drives reads near 0 V.
    """

    def __init__(self, select_pins, enable_pins, adc, cells=CELLS, sleep_us=None,
                 settle_us=SETTLE_US, discharge_us=DISCHARGE_US):
        if sleep_us is None:
            try:
                from time import sleep_us
            except ImportError:
                from utime import sleep_us
        self.select = select_pins
        self.enable = enable_pins
        self.adc = adc
        self.cells = cells
        self.sleep_us = sleep_us
        self.settle_us = settle_us
        self.discharge_us = discharge_us
        for p in enable_pins:
            p.value(1)

    def _channel(self, ch):
        sel = self.select
        sel[0].value(ch & 1)
        sel[1].value((ch >> 1) & 1)
        sel[2].value((ch >> 2) & 1)
        sel[3].value((ch >> 3) & 1)

    def read_all(self, raw):
        """Fill ``raw`` (a list of ``cells`` ints) with one reading per cell."""
        sel = self.select
        adc = self.adc
        wait = self.sleep_us
        settle = self.settle_us
        cell = 0
        for en in self.enable:
            if cell >= self.cells:
                break
            en.value(0)
            wait(settle)
            for ch in range(16):
                if cell >= self.cells:
                    break
                sel[0].value(ch & 1)
                sel[1].value((ch >> 1) & 1)
                sel[2].value((ch >> 2) & 1)
                sel[3].value((ch >> 3) & 1)
                wait(settle)
                raw[cell] = adc.read_u16()
                cell += 1
            en.value(1)
            wait(settle)

    def read_all_discharged(self, raw):
        """Like ``read_all``, but every cell is read from an empty filter (for calibration).

        Per cell: all muxes off, mux 3 on at channel 1 (AGND) for ``discharge_us``, off again,
        the cell's channel selected and its mux on, ``settle_us``, read. The select lines only
        move while no mux is on, and never two enables are low together. A wired sensor drives
        the node back up within ``settle_us``; an input nothing drives stays near 0 V (only
        leakage moves it) and reads as unreadable instead of copying the cell before it.
        """
        enable = self.enable
        ground = enable[GROUND_MUX]
        adc = self.adc
        wait = self.sleep_us
        settle = self.settle_us
        discharge = self.discharge_us
        for cell in range(self.cells):
            mux = cell >> 4
            ch = cell & 15
            self._channel(GROUND_CHANNEL)
            ground.value(0)
            wait(discharge)
            if mux == GROUND_MUX:
                self._channel(ch)
            else:
                ground.value(1)
                self._channel(ch)
                enable[mux].value(0)
            wait(settle)
            raw[cell] = adc.read_u16()
            enable[mux].value(1)


class Scanner:
    """Per-cell baseline, hysteresis and debounce; tells when to report a snapshot."""

    def __init__(self, read_all, ticks_ms, cells=CELLS, debounce=DEBOUNCE,
                 heartbeat_ms=HEARTBEAT_MS, on=ON_DELTA, off=OFF_DELTA, strong=STRONG_DELTA,
                 read_calibration=None):
        self.read_all = read_all
        # calibration scans: the bus's read_all_discharged, so unwired inputs are rejected
        self.read_calibration = read_calibration or read_all
        self.ticks_ms = ticks_ms
        self.cells = cells
        self.debounce = debounce
        self.heartbeat_ms = heartbeat_ms
        self.on = on
        self.off = off
        self.strong = strong
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
                rejected += 1  # a piece, a magnet nearby, a dead or unwired sensor: keep the old
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
        self.scans += 1
        changed = False
        if self._cal_left:
            self.read_calibration(self.raw)
            self._calibrate_step()
        else:
            self.read_all(self.raw)
            raw = self.raw
            base = self.baseline
            states = self.states
            pending = self.pending
            counts = self.counts
            for i in range(self.cells):
                cur = states[i]
                seen = classify(cur, raw[i], base[i], self.on, self.off, self.strong)
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
