"""SensorBoardClient over a real pty against the emulated board running the real firmware."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import serial

from hardware.clock import FakeClock
from hardware.events import SnapshotEvent, StatusEvent
from hardware.sensorboard import SensorBoardError
from hardware.sensorboard import protocol as P
from hardware.sensorboard.client import SensorBoardClient
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable


class Rig:
    def __init__(self) -> None:
        self.clock = FakeClock(100.0)
        self.table = VirtualTable(seed=3)
        self.emu = SensorBoardEmulator(self.table, clock=self.clock, seed=1)
        self.client = SensorBoardClient(self.emu.port, clock=self.clock)

    def run(self, seconds: float = 0.02) -> list[SnapshotEvent | StatusEvent]:
        """Run the board for ``seconds`` of fake time, then collect what reached the host."""
        self.emu.run_for(seconds)
        return self.drain()

    def drain(self) -> list:
        events: list = []
        while True:
            got = self.client.poll(0.01)
            if not got:
                return events
            events += got

    def close(self) -> None:
        self.client.close()
        self.emu.close()


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = Rig()
    yield r
    r.close()


def snapshots(events: list) -> list[SnapshotEvent]:
    return [e for e in events if isinstance(e, SnapshotEvent)]


def test_snapshots_reach_the_host_with_polarity(rig: Rig) -> None:
    rig.table.put(0, "w")
    rig.table.put(5, "bw")
    rig.table.put(20, "rbb")
    events = rig.run(0.03)
    last = snapshots(events)[-1]
    assert last.cells == rig.table.cells() == "x....x" + "." * 14 + "x" + "." * 28
    assert rig.client.polarity() == rig.table.polarity()
    assert rig.client.polarity()[:6] == "n....s" and rig.client.polarity()[20] == "n"
    assert last.t == rig.clock.now()
    assert rig.client.hello is not None and rig.client.hello.cells == 49
    assert rig.client.decoder.drops.total == 0
    rig.table.lift(5)
    assert snapshots(rig.run(0.02))[-1].cells[5] == "."


def test_short_flicker_is_filtered_long_one_shows(rig: Rig) -> None:
    rig.run(0.01)
    rig.table.noise(7, 0.008)  # under the firmware's 3-scan debounce
    assert all(s.cells[7] == "." for s in snapshots(rig.run(0.05)))
    rig.table.noise(7, 0.1)
    assert snapshots(rig.run(0.05))[-1].cells[7] == "x"
    assert snapshots(rig.run(0.1))[-1].cells[7] == "."


def test_garbage_between_frames_is_dropped_and_the_link_resyncs(rig: Rig) -> None:
    rig.table.put(30, "b")
    rig.run(0.03)
    good = P.encode_frame(P.SNAPSHOT, 9, P.snapshot_payload([3] * 49))
    rig.emu.inject(b"\x00\xff\x13garbage\x00" + good[:9])  # ... and a frame cut short
    rig.emu.inject(bytes(range(1, 256)) * 3)  # oversized run: eats the next frame too
    events = rig.run(0.5)  # ... so wait for the next heartbeats
    assert all(s.cells == rig.table.cells() for s in snapshots(events))
    assert snapshots(events)
    drops = rig.client.decoder.drops
    assert drops.bad_cobs == 1 and drops.oversized == 1  # the cut frame joined the run


def test_unplug_mid_frame_then_replug_reports_the_gap(rig: Rig) -> None:
    rig.table.put(1, "w")
    rig.run(0.03)
    frame = P.encode_frame(P.SNAPSHOT, 1, P.snapshot_payload([1] * 49))
    rig.emu.inject(frame[:8])
    assert rig.client.poll(0.01) == []  # half a frame: nothing yet
    rig.emu.unplug()
    down = rig.clock.now()
    events = rig.client.poll(0.01)
    assert [e.kind for e in events if isinstance(e, StatusEvent)] == ["disconnected"]
    assert rig.client.decoder.drops.truncated == 1 and not rig.client.connected
    retries = []
    for _ in range(6):  # back-off on the fake clock: 0.05, 0.1, 0.2, ...
        assert rig.client.poll(5.0) == []
        retries.append(round(rig.clock.now() - down, 3))
    assert retries == [0.05, 0.15, 0.35, 0.75, 1.55, 3.15]  # next at +2.0 (the cap)
    rig.emu.replug()
    events = rig.client.poll(5.0)
    (back,) = [e for e in events if isinstance(e, StatusEvent)]
    assert back.kind == "reconnected" and "gap of 5.15 s" in back.detail
    assert rig.emu.boots == 2
    last = snapshots(rig.run(0.03))[-1]
    assert last.cells == rig.table.cells() and last.cells[1] == "x"
    assert rig.client.hello is not None


def test_a_flooding_board_never_breaks_the_client(rig: Rig) -> None:
    rig.table.put(40, "w")
    rig.run(0.03)
    rig.emu.flood(20_000)
    events = rig.drain()
    assert len(snapshots(events)) > 10
    assert all(s.cells == rig.table.cells() for s in snapshots(events))
    assert rig.emu.tx_dropped > 0  # the pty filled up: frames were cut mid-way
    assert snapshots(rig.run(0.5))[-1].cells == rig.table.cells()  # heartbeats resume


def test_led_frames_reach_the_firmware_driver(rig: Rig) -> None:
    frame = bytes((i * 5) % 256 for i in range(147))
    rig.client.send_leds(frame)
    assert rig.emu.wait_for_host(1.0)
    for _ in range(20):  # the frame is read as it arrives, perhaps in pieces
        rig.emu.step()
        if rig.emu.led_frame == frame or not rig.emu.wait_for_host(0.05):
            break
    assert rig.emu.led_frame == frame and rig.emu.firmware.leds.last == frame
    with pytest.raises(SensorBoardError, match="147 bytes .*got 146"):
        rig.client.send_leds(frame[:-1])


def test_board_rejects_a_wrong_size_led_frame_with_a_clear_error(rig: Rig) -> None:
    with serial.Serial(rig.emu.port, timeout=0) as raw:  # a host that skips the check
        raw.write(P.encode_frame(P.LED_FRAME, 77, b"\x01\x02\x03"))
    assert rig.emu.wait_for_host(1.0)
    events = rig.run(0.01)
    errors = [e for e in events if isinstance(e, StatusEvent) and e.kind == "board-error"]
    assert len(errors) == 1
    assert "bad length" in errors[0].detail and "147 bytes, got 3" in errors[0].detail


def test_ping_and_calibrate_with_the_board_running(rig: Rig) -> None:
    rig.table.put(12, "b")  # left on the table: that cell is rejected
    rig.emu.start()
    try:
        assert rig.client.ping(timeout=5.0) >= 0
        cal = rig.client.calibrate(timeout=10.0, samples=8)
    finally:
        rig.emu.stop()
    assert cal["samples"] == 8 and cal["rejected"] == 1
    means = cal["mean"]
    assert isinstance(means, list) and len(means) == 49
    assert abs(means[0] - (32768 + rig.table.offsets[0])) < 100
    assert means[12] > 32768 + 2500  # a black piece's weak magnet (13 mT) is still seen
    assert rig.emu.store.data is not None


def test_no_answer_is_a_clear_error(rig: Rig) -> None:
    with pytest.raises(SensorBoardError, match="no answer .* PING within 0.05 s"):
        rig.client.ping(timeout=0.05)  # nobody steps the board


@pytest.mark.parametrize("timeout", [float("nan"), -1.0])
def test_a_bad_reply_timeout_is_refused_not_waited_on(rig: Rig, timeout: float) -> None:
    # NaN never reaches the deadline: ping/calibrate used to wait for ever.
    seq = rig.client._seq
    with pytest.raises(SensorBoardError, match="PING timeout must be >= 0 s"):
        rig.client.ping(timeout=timeout)
    with pytest.raises(SensorBoardError, match="CALIBRATE timeout must be >= 0 s"):
        rig.client.calibrate(timeout=timeout)
    assert rig.client._seq == seq  # refused before anything was sent to the board


def test_a_nan_poll_timeout_is_refused(rig: Rig) -> None:
    with pytest.raises(SensorBoardError, match="poll timeout must be a number"):
        rig.client.poll(float("nan"))


def test_auto_detect_by_vid_pid(monkeypatch: pytest.MonkeyPatch, rig: Rig) -> None:
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo

    other = ListPortInfo("/dev/ttyUSB9")
    other.vid, other.pid = 0x0403, 0x6001
    pico = ListPortInfo(rig.emu.port)
    pico.vid, pico.pid = 0x2E8A, 0x0005
    monkeypatch.setattr(list_ports, "comports", lambda: [other, pico])
    with SensorBoardClient(clock=rig.clock) as client:
        assert client.port == rig.emu.port
        rig.emu.run_for(0.01)
        assert snapshots(client.poll(0.05))
    monkeypatch.setattr(list_ports, "comports", lambda: [other])
    with pytest.raises(SensorBoardError, match="no sensor board found"):
        SensorBoardClient(clock=rig.clock)


def test_failed_constructor_releases_the_port_and_close_is_idempotent() -> None:
    class Port:
        closed = 0

        def write(self, data: bytes) -> int:
            raise serial.SerialException("write failed")

        def close(self) -> None:
            Port.closed += 1

    with pytest.raises(SensorBoardError, match="cannot write"):
        SensorBoardClient("/dev/fake", clock=FakeClock(), serial_factory=lambda p, b: Port())
    assert Port.closed == 1
    with pytest.raises(SensorBoardError, match="cannot open .*/nonexistent"):
        SensorBoardClient("/nonexistent/tty", clock=FakeClock())


def test_close_twice(rig: Rig) -> None:
    rig.client.close()
    rig.client.close()
    with pytest.raises(SensorBoardError, match="closed"):
        rig.client.poll(0)
