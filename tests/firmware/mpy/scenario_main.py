"""firmware/main.py on MicroPython (as tests/firmware/test_main.py on CPython): boot and
HELLO, snapshots on change and as heartbeat, PING, LED frames, every error reply, bad frames
on the wire, calibration with its stored baseline, and the real ``run()`` loop on the fake
clock."""

import link as L
import machine
import main as M
import scanner as S
from boards import Board, Store


def test_boot_says_hello_and_blanks_the_leds():
    b = Board()
    b.fw.boot()
    (hello,) = b.host.feed(b.uart.take())
    assert hello[1] == L.HELLO
    assert hello[3][:5] == bytes((1, 1, 0, 0, 49)) and hello[3][8] == 0
    assert hello[3][10:] == machine.unique_id()
    assert b.fw.leds.last == bytes(147)


def test_snapshot_on_change_and_as_heartbeat():
    b = Board()
    first = b.step()
    assert [m[1] for m in first] == [L.SNAPSHOT]
    assert first[0][3][0] & L.F_UNCALIBRATED
    b.raw[20] = S.NOMINAL + 4000
    b.raw[21] = S.NOMINAL + 17000
    (snap,) = b.step(S.DEBOUNCE)
    assert snap[3][0] & L.F_CHANGE
    assert L.unpack_cells(snap[3][1:], 49)[20:22] == [L.SOUTH, L.NORTH]
    assert b.us.us >= S.SETTLE_US * (S.CELLS + 8) * (S.DEBOUNCE + 1)
    beats = b.step(1000 // S.SCAN_PERIOD_MS)
    assert len(beats) >= 4 and all(not m[3][0] & L.F_CHANGE for m in beats)


def test_ping_led_frame_and_errors():
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
    ], errors


def test_bad_frames_on_the_wire_get_an_error_and_the_loop_goes_on():
    """A corrupted frame reaches the firmware's deframer: it answers E_BAD_FRAME and keeps
    scanning (the FrameError it raises inside must be constructible on MicroPython)."""
    b = Board()
    b.step()
    good = L.encode_frame(L.PING, 5, b"ok")
    corrupt = bytearray(good)
    corrupt[3] ^= 0x40
    b.uart.feed(bytes(corrupt) + b"\x05\x01\x00" + b"\x01" * 300 + b"\x00" + good)
    replies = [m for m in b.step() if m[1] != L.SNAPSHOT]
    kinds = [(m[1], m[3]) for m in replies]
    assert kinds == [
        (L.ERROR, bytes((L.E_BAD_FRAME, 0xFF)) + b"dropped a frame: bad_crc"),
        (L.ERROR, bytes((L.E_BAD_FRAME, 0xFF)) + b"dropped a frame: bad_cobs"),
        (L.PONG, b"ok"),  # an oversized frame is only counted: no reply
    ], kinds
    assert b.fw.errors_sent == 2
    assert b.fw.link.deframer.drops == {"bad_crc": 1, "bad_cobs": 1, "oversized": 1}
    assert [m[1] for m in b.step(40)] == [L.SNAPSHOT]


def test_calibrate_replies_with_stats_and_stores_the_baseline():
    store = Store()
    b = Board(store)
    b.raw = [S.NOMINAL + 100 + c for c in range(S.CELLS)]
    b.send(L.CALIBRATE, bytes((8,)))
    b.send(L.CALIBRATE, bytes((8,)))
    too_long = b.send(L.CALIBRATE, b"\x01\x02")
    msgs = b.step(8)
    (cal,) = [m for m in msgs if m[1] == L.CALIBRATED]
    busy, long_ = [m for m in msgs if m[1] == L.ERROR]
    assert busy[3][0] == L.E_BUSY
    assert (long_[3][0], long_[3][1]) == (L.E_BAD_LENGTH, too_long)
    p = cal[3]
    assert (p[0], p[1]) == (0, 8)
    assert [(p[2 + 4 * i] << 8) | p[3 + 4 * i] for i in range(49)] == b.raw
    assert store.data is not None and len(store.data) == 98
    rebooted = Board(store)
    rebooted.fw.boot()
    assert rebooted.fw.scanner.calibrated and rebooted.fw.scanner.baseline == b.raw
    (hello,) = rebooted.host.feed(rebooted.uart.take())
    assert hello[3][8] == 1


def test_file_store_round_trips_on_the_filesystem():
    store = M.FileStore("baseline_test.bin")
    assert store.load() is None
    store.save(bytes(range(98)))
    assert M.FileStore("baseline_test.bin").load() == bytes(range(98))


def test_hello_on_request_and_flags():
    b = Board()
    b.send(L.HELLO)
    msgs = b.step()
    assert [m[1] for m in msgs] == [L.HELLO, L.SNAPSHOT]
    assert msgs[1][3][0] == L.F_UNCALIBRATED
    b.raw[0] = S.NOMINAL + 17000
    b.step(S.DEBOUNCE)
    b.raw[0] = S.NOMINAL
    b.ticks.ms += S.HEARTBEAT_MS
    (beat,) = b.step()  # a heartbeat while cell 0's change back is being debounced
    assert beat[3][0] == L.F_UNCALIBRATED | L.F_PENDING, beat[3][0]


class Stop(Exception):
    pass


class Stream:
    """The USB stream of run(), in memory: the host's bytes in, the board's frames out."""

    def __init__(self):
        self.rx = b""
        self.tx = bytearray()

    def read(self):
        data, self.rx = self.rx, b""
        return data

    def write(self, data):
        self.tx.extend(data)


def test_run_loops_every_scan_period_on_the_fake_clock():
    """main.run() itself: the maintenance jumper read, build() on the machine module, boot,
    and the loop keeping SCAN_PERIOD_MS on time.ticks_ms/sleep_ms (the fake clock, which stops
    the loop after a simulated second). The ticks start just before the 2**30 wrap."""
    import fake_utime as utime

    utime.install(start_ms=(1 << 30) - 400)
    stream = Stream()
    stream.rx = L.encode_frame(L.PING, 9, b"hi")
    saved = M.UsbStream, M.ticks_ms, M.sleep_ms
    M.UsbStream = lambda: stream
    M.ticks_ms, M.sleep_ms = utime.ticks_ms, utime.sleep_ms
    start = utime.ticks_ms()

    def stop_after_a_second():
        if utime.ticks_diff(utime.ticks_ms(), start) >= 1000:
            raise Stop()

    utime.on_sleep_ms = stop_after_a_second
    try:
        M.run()
        raise AssertionError("run() returned")
    except Stop:
        pass
    finally:
        M.UsbStream, M.ticks_ms, M.sleep_ms = saved
        utime.uninstall()
    msgs = L.Deframer().feed(bytes(stream.tx))
    assert msgs[0][1] == L.HELLO and msgs[1][1] == L.PONG and msgs[1][3] == b"hi"
    snaps = [m for m in msgs if m[1] == L.SNAPSHOT]
    assert 5 <= len(snaps) <= 6, len(snaps)  # the heartbeat: every 200 ms, across the wrap
    assert utime.sleeps == 1000 // S.SCAN_PERIOD_MS, utime.sleeps


def test_maintenance_jumper_keeps_the_repl():
    saved = machine.Pin.__init__

    def grounded(self, id, mode=-1, pull=-1, value=None):
        saved(self, id, mode, pull, value)
        if id == M.MAINT_PIN:
            self._value = 0

    machine.Pin.__init__ = grounded
    try:
        assert M.run() is None
    finally:
        machine.Pin.__init__ = saved
