"""The virtual table's sensor model and the emulator's plumbing (without a client)."""

from __future__ import annotations

import os

import pytest

from hardware.clock import FakeClock
from hardware.sensorboard import SensorBoardError
from hardware.sensorboard.emulator import MAGNET_COUNTS, SensorBoardEmulator, VirtualTable


def test_bottom_piece_sets_the_polarity() -> None:
    t = VirtualTable(seed=1)
    t.put(0, "w")
    t.put(1, "bww")
    t.put(2, "rb")
    t.put(3, "wbbbbbbbbb")
    assert t.field(0) == -MAGNET_COUNTS
    assert t.field(1) > MAGNET_COUNTS / 2 and t.field(2) < -MAGNET_COUNTS / 2
    assert t.field(3) < -MAGNET_COUNTS / 2  # even under a tall stack of the other colour
    assert t.polarity()[:5] == "nsnn." and t.cells()[:5] == "xxxx."
    assert t.lift(1) == "bww" and t.get(1) == "" and t.field(1) == 0


def test_readings_are_seeded_and_noisy() -> None:
    a, b = VirtualTable(seed=4), VirtualTable(seed=4)
    ra = [a.reading(5, 0.0) for _ in range(50)]
    assert ra == [b.reading(5, 0.0) for _ in range(50)]
    assert len(set(ra)) > 10 and max(ra) - min(ra) < 600


def test_bad_input_is_named() -> None:
    t = VirtualTable()
    with pytest.raises(SensorBoardError, match="piece 'q' at offset 1"):
        t.put(3, "wq")
    with pytest.raises(SensorBoardError, match="cell must be 0..48, got 49"):
        t.get(49)
    with pytest.raises(SensorBoardError, match="needs a clock"):
        t.noise(2, 0.1)


def test_noise_window_follows_the_clock() -> None:
    clock = FakeClock()
    t = VirtualTable(seed=2, clock=clock)
    t.noise(9, 0.05)
    assert t.reading(9, clock.now()) < 32768 - 10000
    clock.advance(0.06)
    assert abs(t.reading(9, clock.now()) - 32768) < 2000


def test_unplug_removes_the_port_and_replug_reboots() -> None:
    clock = FakeClock()
    with SensorBoardEmulator(VirtualTable(), clock=clock) as emu:
        assert os.path.exists(emu.port) and emu.boots == 1 and emu.plugged
        emu.unplug()
        assert not os.path.exists(emu.port) and emu.step() == 0
        emu.replug()
        assert os.path.exists(emu.port) and emu.boots == 2
        emu.run_for(0.01)
        assert emu.firmware.scanner.scans == 2
        assert emu.led_frame == bytes(147)  # the firmware blanked the LEDs at boot
    assert not os.path.exists(emu.port)
    emu.close()  # twice is fine
