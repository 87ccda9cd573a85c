"""The firmware loop (firmware/main.py) on fake hardware over an in-memory UART."""

from __future__ import annotations

from firmware import link as L
from firmware import main as M
from firmware import scanner as S
from hardware.sensorboard.mpy_fakes import machine
from tests.firmware.conftest import Ticks, UsClock


class Store:
    def __init__(self, data: bytes | None = None) -> None:
        self.data = data

    def load(self) -> bytes | None:
        return self.data

    def save(self, data: bytes) -> None:
        self.data = data


class Board:
    """A built firmware, the UART the 'host' talks through, and a field per cell."""

    def __init__(self, store: Store | None = None) -> None:
        self.uart = machine.UART(0, 115200)
        self.ticks = Ticks()
        self.raw = [S.NOMINAL] * S.CELLS
        self.us = UsClock()  # the muxes' settling waits cost no wall time
        self.fw = M.build(machine, M.UartStream(self.uart), ticks=self.ticks, store=store,
                          sleep_us=self.us.sleep_us)
        self.fw.bus.adc.source = self._source
        self.host = L.Deframer()
        self.seq = 0

    def _source(self) -> int:
        bus = self.fw.bus
        (mux,) = [m for m, p in enumerate(bus.enable) if p.value() == 0]
        ch = sum(bus.select[k].value() << k for k in range(4))
        cell = mux * 16 + ch
        return self.raw[cell] if cell < S.CELLS else S.NOMINAL

    def send(self, mtype: int, payload: bytes = b"", version: int = L.VERSION) -> int:
        seq = self.seq
        self.uart.feed(L.encode_frame(mtype, seq, payload, version))
        self.seq += 1
        return seq

    def step(self, n: int = 1) -> list[tuple]:
        for _ in range(n):
            self.ticks.ms += S.SCAN_PERIOD_MS
            self.fw.step()
        return self.host.feed(self.uart.take())


def test_boot_says_hello_and_blanks_the_leds() -> None:
    b = Board()
    b.fw.boot()
    (hello,) = b.host.feed(b.uart.take())
    assert hello[1] == L.HELLO
    assert hello[3][:5] == bytes((1, 1, 0, 0, 49)) and hello[3][8] == 0  # not calibrated
    assert hello[3][10:] == machine.unique_id()
    assert b.fw.leds.last == bytes(147)


def test_snapshot_on_change_and_as_heartbeat() -> None:
    b = Board()
    first = b.step()
    assert [m[1] for m in first] == [L.SNAPSHOT]
    assert first[0][3][0] & L.F_UNCALIBRATED
    b.raw[20] = S.NOMINAL + 4000  # a black piece (weak magnet)
    b.raw[21] = S.NOMINAL + 17000  # a white one (strong)
    msgs = b.step(S.DEBOUNCE)
    (snap,) = msgs
    assert snap[3][0] & L.F_CHANGE
    assert L.unpack_cells(snap[3][1:], 49)[20:22] == [L.SOUTH, L.NORTH]
    assert b.us.us >= S.SETTLE_US * (S.CELLS + 8) * (S.DEBOUNCE + 1)  # the bus waited
    beats = b.step(1000 // S.SCAN_PERIOD_MS)
    assert len(beats) >= 4 and all(not m[3][0] & L.F_CHANGE for m in beats)


def test_ping_led_frame_and_errors() -> None:
    b = Board()
    b.step()
    b.send(L.PING, b"tok")
    b.send(L.LED_FRAME, bytes(range(147)))
    bad = b.send(L.LED_FRAME, b"\x01\x02\x03")
    unknown = b.send(0x42)
    old = b.send(L.PING, b"x", version=2)
    replies = [m for m in b.step() if m[1] != L.SNAPSHOT]
    assert (replies[0][1], replies[0][3]) == (L.PONG, b"tok")
    assert b.fw.leds.last == bytes(range(147))
    errors = [(m[3][0], m[3][1], m[3][2:]) for m in replies[1:]]
    assert errors == [
        (L.E_BAD_LENGTH, bad, b"LED frame must be 147 bytes, got 3"),
        (L.E_UNKNOWN_TYPE, unknown, b"unknown message type 66"),
        (L.E_BAD_VERSION, old, b"protocol 2 not supported, board speaks 1"),
    ]


def test_calibrate_replies_with_stats_and_stores_the_baseline() -> None:
    store = Store()
    b = Board(store)
    b.raw = [S.NOMINAL + 100 + c for c in range(S.CELLS)]
    b.send(L.CALIBRATE, bytes((8,)))
    b.send(L.CALIBRATE, bytes((8,)))  # a second request while busy is refused
    msgs = b.step(8)
    (cal,) = [m for m in msgs if m[1] == L.CALIBRATED]
    (busy,) = [m for m in msgs if m[1] == L.ERROR]
    assert busy[3][0] == L.E_BUSY
    p = cal[3]
    assert (p[0], p[1]) == (0, 8)
    assert [(p[2 + 4 * i] << 8) | p[3 + 4 * i] for i in range(49)] == b.raw
    assert store.data is not None and len(store.data) == 98
    rebooted = Board(store)
    rebooted.fw.boot()
    assert rebooted.fw.scanner.calibrated and rebooted.fw.scanner.baseline == b.raw
