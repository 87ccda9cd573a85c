"""Fake boards for the scenarios, in MicroPython-compatible code (ports of the helpers in
tests/firmware/conftest.py and test_main.py): an injected ticks_ms, a microsecond clock, the
RC node behind the muxes (``RcBoard``), and a whole firmware over an in-memory UART (``Board``).
"""

import math

import link as L
import machine
import main as M
import scanner as S


class Ticks:
    """An injected ticks_ms for the scanner: moves only when told."""

    def __init__(self, start=0):
        self.ms = start

    def __call__(self):
        return self.ms % (1 << 30)


class UsClock:
    """A fake microsecond clock: moves on ``sleep_us`` and on every timed pin write and ADC
    read, never on its own."""

    def __init__(self):
        self.us = 0.0

    def sleep_us(self, us):
        self.us += us


FLOATING = None  # a mux input nothing drives
AGND = 0  # mux 3's channels 1..15
LEAK_TAU_US = 1e6
LEAK_TO = 32768.0
TAU_US = (1000 + 70) * 1e-9 * 1e6  # 1 kOhm + the mux's 70 Ohm, into 1 nF

#: (per pin write, ADC sample point, whole ADC read) in microseconds, as in test_settle.py
SPEEDS = {
    "micropython": (2.0, 1.0, 3.0),
    "fast": (0.5, 0.5, 2.0),
    "slow": (5.0, 2.0, 8.0),
}


class RcBoard:
    """The 4 muxes, the RC filter and ADC0 (see conftest.RcBoard): a sample taken dt us after
    the selected source changed returns old + (new - old) * (1 - exp(-dt / tau)); pin writes
    and ADC reads take time on ``clock``; a floating input keeps the node's charge but for a
    leak towards mid-scale."""

    def __init__(self, clock, sources, speed="micropython", tau_us=TAU_US, unused=AGND,
                 leak_tau_us=LEAK_TAU_US, leak_to=LEAK_TO):
        self.clock = clock
        self.sources = sources
        self.unused = unused
        self.leak_tau_us = leak_tau_us
        self.leak_to = leak_to
        self.tau_us = tau_us
        self.write_us, self.sample_us, self.read_us = SPEEDS[speed]
        self.node = 32768.0
        self.t = clock.us
        self.target = None
        self.select = [TimedPin(self, n) for n in (2, 3, 4, 5)]
        self.enable = [TimedPin(self, n, 1) for n in (6, 7, 8, 9)]
        self.adc = machine.ADC(machine.Pin(26))
        self.adc.source = self.sample
        self.settled_for = []
        self._changed_at = clock.us

    def _follow(self):
        now = self.clock.us
        if self.target is not None:
            toward, tau = self.target, self.tau_us
        else:
            toward, tau = self.leak_to, self.leak_tau_us
        self.node = toward + (self.node - toward) * math.exp(-(now - self.t) / tau)
        self.t = now

    def pin_changed(self):
        self._follow()
        self._changed_at = self.clock.us
        low = [m for m in range(4) if self.enable[m].value() == 0]
        assert len(low) <= 1, f"muxes {low} enabled together"
        if not low:
            self.target = None
            return
        ch = 0
        for k in range(4):
            ch |= self.select[k].value() << k
        cell = low[0] * 16 + ch
        src = self.sources[cell] if cell < len(self.sources) else self.unused
        self.target = None if src is FLOATING else float(src)

    def sample(self):
        self.clock.us += self.sample_us
        self._follow()
        self.settled_for.append(self.clock.us - self._changed_at)
        self.clock.us += self.read_us - self.sample_us
        return round(self.node)

    def bus(self, **kw):
        return S.MuxBus(self.select, self.enable, self.adc, sleep_us=self.clock.sleep_us, **kw)


class TimedPin(machine.Pin):
    """An output pin whose writes take ``board.write_us`` and tell the board the mux moved."""

    def __init__(self, board, id, value=0):
        super().__init__(id, machine.Pin.OUT, value=value)
        self.board = board

    def value(self, v=None):
        if v is None:
            return super().value()
        self.board.clock.us += self.board.write_us
        super().value(v)
        self.board.pin_changed()


class Store:
    def __init__(self, data=None):
        self.data = data

    def load(self):
        return self.data

    def save(self, data):
        self.data = data


class Board:
    """A built firmware, the UART the 'host' talks through, and a field per cell."""

    def __init__(self, store=None):
        self.uart = machine.UART(0, 115200)
        self.ticks = Ticks()
        self.raw = [S.NOMINAL] * S.CELLS
        self.us = UsClock()
        self.fw = M.build(machine, M.UartStream(self.uart), ticks=self.ticks, store=store,
                          sleep_us=self.us.sleep_us)
        self.fw.bus.adc.source = self._source
        self.host = L.Deframer()
        self.seq = 0

    def _source(self):
        bus = self.fw.bus
        low = [m for m in range(4) if bus.enable[m].value() == 0]
        assert len(low) == 1, low
        ch = 0
        for k in range(4):
            ch |= bus.select[k].value() << k
        cell = low[0] * 16 + ch
        return self.raw[cell] if cell < S.CELLS else S.NOMINAL

    def send(self, mtype, payload=b"", version=L.VERSION):
        seq = self.seq
        self.uart.feed(L.encode_frame(mtype, seq, payload, version))
        self.seq += 1
        return seq

    def step(self, n=1):
        for _ in range(n):
            self.ticks.ms += S.SCAN_PERIOD_MS
            self.fw.step()
        return self.host.feed(self.uart.take())
