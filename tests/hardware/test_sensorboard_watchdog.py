"""The client's silence watchdog: a board that hangs but keeps the port open.

The emulated board runs the real firmware over a real pty; a hung board is one nobody steps
while the FakeClock moves on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import serial

from hardware.clock import FakeClock
from hardware.events import SnapshotEvent, StatusEvent
from hardware.sensorboard import SensorBoardError
from hardware.sensorboard import protocol as P
from hardware.sensorboard.client import WATCHDOG_TOKEN, SensorBoardClient
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable


class Rig:
    def __init__(self) -> None:
        self.clock = FakeClock(100.0)
        self.table = VirtualTable(seed=5)
        self.emu = SensorBoardEmulator(self.table, clock=self.clock, seed=2)
        self.client = SensorBoardClient(self.emu.port, clock=self.clock, silence_timeout=1.0)
        self.sent: list[tuple[int, bytes]] = []  # what the firmware sent, by type
        link = self.emu.firmware.link
        original = link.send

        def spy(mtype: int, payload: bytes = b"") -> Any:
            self.sent.append((mtype, bytes(payload)))
            return original(mtype, payload)

        link.send = spy

    def run(self, seconds: float) -> list:
        """The board runs (heartbeats) for ``seconds`` of fake time; what reached the host."""
        self.emu.run_for(seconds)
        return self.drain()

    def drain(self) -> list:
        events: list = []
        while got := self.client.poll(0.01):
            events += got
        return events

    def hang(self, seconds: float) -> list:
        """Time passes but the board does nothing; what the host reports meanwhile."""
        self.clock.advance(seconds)
        return self.drain()

    def resume(self) -> list:
        """The board steps again, once it has the host's bytes (if any are on the way)."""
        self.emu.wait_for_host(0.2)
        return self.run(0.05)

    def close(self) -> None:
        self.client.close()
        self.emu.close()


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = Rig()
    r.run(0.3)
    yield r
    r.close()


def status(events: list) -> list[StatusEvent]:
    return [e for e in events if isinstance(e, StatusEvent)]


def kinds(events: list) -> list[str]:
    return [e.kind for e in status(events)]


def test_heartbeats_keep_the_watchdog_quiet(rig: Rig) -> None:
    events: list = []
    for _ in range(8):
        events += rig.run(0.4)
    events += rig.run(2.5)  # longer than the timeout, but the heartbeats were sent meanwhile
    assert kinds(events) == []
    assert len([e for e in events if isinstance(e, SnapshotEvent)]) >= 20
    assert rig.client.silences == 0 and rig.client.connected
    assert all(mtype != P.PONG for mtype, _ in rig.sent)  # no watchdog PING went out


def test_silence_is_reported_once_and_the_board_pinged(rig: Rig) -> None:
    assert rig.hang(0.6) == []
    events = rig.hang(0.5)
    (silent,) = status(events)
    assert silent.kind == "silent" and silent.t == rig.clock.now()
    assert "for 1.10 s" in silent.detail and rig.emu.port in silent.detail
    assert rig.client.silences == 1 and rig.client.connected
    assert rig.emu.wait_for_host(1.0)  # the PING is on its way to the board
    assert rig.hang(0.5) == [] and rig.hang(0.3) == []  # nothing twice
    rig.emu.step()
    assert (P.PONG, WATCHDOG_TOKEN) in rig.sent  # the real firmware read it and answered


def test_a_board_that_resumes_clears_the_silence(rig: Rig) -> None:
    assert kinds(rig.hang(1.2)) == ["silent"]
    events = rig.resume()
    (back,) = status(events)
    assert back.kind == "reconnected" and "gap of 1.25 s" in back.detail
    assert events.index(back) == 0  # the news before the board's snapshots
    assert [e for e in events if isinstance(e, SnapshotEvent)]
    assert (P.PONG, WATCHDOG_TOKEN) in rig.sent
    assert rig.client.connected and rig.emu.boots == 1 and rig.client.reconnects == 0
    later: list = []
    for _ in range(6):
        later += rig.run(0.4)
    assert kinds(later) == []  # the state was cleared: nothing more to say
    assert kinds(rig.hang(1.5)) == ["silent"]  # a new silence is news again
    assert rig.client.silences == 2


def test_prolonged_silence_reopens_the_port_and_reports_the_gap(rig: Rig) -> None:
    last_frame = rig.clock.now()
    assert kinds(rig.hang(1.1)) == ["silent"]
    assert rig.hang(0.9) == []  # the PING is not answered yet
    events = rig.hang(0.2)  # ... and now it is too late
    (down,) = status(events)
    assert down.kind == "disconnected" and "no answer to a PING" in down.detail
    assert "silent for 2.20 s" in down.detail
    assert not rig.client.connected
    assert rig.client.poll(5.0) == []  # reopened after the back-off; the board must speak first
    assert rig.client.connected and rig.clock.now() - last_frame == pytest.approx(2.25)
    events = rig.resume()
    (back,) = status(events)
    assert back.kind == "reconnected" and "gap of 2.30 s" in back.detail
    assert rig.client.reconnects == 1 and rig.client.hello is not None
    assert [e for e in events if isinstance(e, SnapshotEvent)][-1].cells == rig.table.cells()
    assert kinds(rig.run(1.5)) == []


def test_a_board_that_stays_silent_is_retried_quietly(rig: Rig) -> None:
    assert kinds(rig.hang(1.1)) == ["silent"]
    (down,) = status(rig.hang(1.1))
    assert down.kind == "disconnected"
    closed_at = down.t
    for backoff in (0.05, 0.1, 0.2):  # each reopen: PING after 1 s, close after 1 s more
        assert rig.client.poll(5.0) == [] and rig.client.connected
        assert rig.clock.now() - closed_at == pytest.approx(backoff)
        assert rig.hang(1.1) == [] and rig.client.connected
        assert rig.hang(1.1) == [] and not rig.client.connected
        closed_at = rig.clock.now()
    assert rig.client.poll(5.0) == [] and rig.client.connected
    assert kinds(rig.resume()) == ["reconnected"]
    assert rig.client.silences == 1 and rig.client.reconnects == 1


def test_the_board_vanishing_during_a_silence_is_reported_once(rig: Rig) -> None:
    assert kinds(rig.hang(1.1)) == ["silent"]
    assert kinds(rig.hang(1.1)) == ["disconnected"]
    rig.emu.unplug()
    for _ in range(4):
        assert rig.client.poll(5.0) == [] and not rig.client.connected
    rig.emu.replug()
    assert rig.client.poll(5.0) == [] and rig.client.connected
    (back,) = status(rig.resume())
    assert back.kind == "reconnected" and rig.emu.boots == 2


def test_zero_disables_the_watchdog() -> None:
    clock = FakeClock(5.0)
    with SensorBoardEmulator(VirtualTable(), clock=clock) as emu, \
            SensorBoardClient(emu.port, clock=clock, silence_timeout=0) as client:
        for _ in range(3):
            clock.advance(10.0)
            assert client.poll(0.01) == []
        assert client.connected and client.silences == 0
    with pytest.raises(SensorBoardError, match="silence_timeout must be >= 0 s.*-1"):
        SensorBoardClient("/dev/fake", clock=clock, silence_timeout=-1)


def test_a_ping_that_cannot_be_written_never_raises_from_poll() -> None:
    class Port:
        stuck = False
        in_waiting = 0

        def write(self, data: bytes) -> int:
            if Port.stuck:  # a hung board whose USB buffer is full
                raise serial.SerialTimeoutException("write timeout")
            return len(data)

        def read(self, n: int) -> bytes:
            return b""

        def close(self) -> None:
            pass

    clock = FakeClock()
    client = SensorBoardClient("/dev/fake", clock=clock, serial_factory=lambda p, b: Port())
    Port.stuck = True
    clock.advance(1.5)
    events = client.poll(0.0)
    assert kinds(events) == ["silent", "disconnected"]
    assert "cannot write" in events[1].detail and not client.connected
    Port.stuck = False
    assert client.poll(1.0) == [] and client.connected  # reopened; waiting for a frame
    client.close()
