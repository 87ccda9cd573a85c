"""The virtual table's sensor model and the emulator's plumbing (without a client)."""

from __future__ import annotations

import os

import pytest

from firmware import scanner as S
from hardware.clock import FakeClock
from hardware.sensorboard import SensorBoardError
from hardware.sensorboard.emulator import (
    STRONG_COUNTS,
    WEAK_COUNTS,
    SensorBoardEmulator,
    VirtualTable,
    disc_field_mt,
)


def test_magnet_model_gives_the_design_figures() -> None:
    assert round(disc_field_mt(6, 2, 4.0)) == 57 and round(disc_field_mt(3, 1, 4.0)) == 13
    assert 45 < disc_field_mt(6, 2, 4.5) and disc_field_mt(6, 2, 3.5) < 72  # A3 at 3.3 V: 88
    assert 9.5 < disc_field_mt(3, 1, 4.5) and disc_field_mt(3, 1, 3.5) < 18
    assert 16500 < STRONG_COUNTS < 17100 and 3700 < WEAK_COUNTS < 4000  # 850 mV and 195 mV


def test_bottom_piece_sets_the_polarity() -> None:
    t = VirtualTable(seed=1)
    t.put(0, "w")
    t.put(1, "bww")
    t.put(2, "rb")
    t.put(3, "wbbbbbbbbb")
    t.put(4, "b" + "w" * 19)  # the tallest stack on a black piece
    t.put(5, "b")
    assert t.field(0) == STRONG_COUNTS and t.field(5) == WEAK_COUNTS
    assert all(t.field(c) > 0 for c in range(6))  # every magnet south down: the reading rises
    assert WEAK_COUNTS < t.field(1) < S.STRONG_DELTA < STRONG_COUNTS < t.field(2)
    assert S.STRONG_DELTA < t.field(3)
    assert t.field(4) < S.STRONG_DELTA - 2000  # 19 strong pieces above add under 11.5 mT
    assert t.polarity()[:7] == "nsnnss." and t.cells()[:7] == "xxxxxx."
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
    assert t.reading(9, clock.now()) > 32768 + 10000
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
