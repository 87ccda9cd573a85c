"""The WS2812 PIO driver (firmware/leds.py) on the fake rp2, down to the simulated waveform."""

from __future__ import annotations

import pytest

from firmware import leds as L
from hardware.sensorboard.mpy_fakes import machine, rp2

CYCLE_NS = 1e9 / L.PIO_FREQ


def decode(wave: list[tuple[int, int]]) -> tuple[bytes, list[int], list[int]]:
    """Bytes from a WS2812 waveform: a high pulse of 7 cycles is a 1, of 2 a 0."""
    highs = [n for level, n in wave if level == 1]
    lows = [n for level, n in wave if level == 0]
    bits = [1 if n > 4 else 0 for n in highs]
    out = bytearray()
    for i in range(0, len(bits) - 7, 8):
        out.append(int("".join(map(str, bits[i:i + 8])), 2))
    return bytes(out), highs, lows


def test_standard_ws2812_program_assembles() -> None:
    prog = L.ws2812
    assert [i.op for i in prog.instrs] == ["out", "jmp", "jmp", "nop"]
    assert prog.labels == {"bitloop": 0, "do_zero": 3}
    assert (prog.wrap_target, prog.wrap) == (0, 3)
    assert [i.sideset for i in prog.instrs] == [0, 1, 1, 0]
    assert [i.delay for i in prog.instrs] == [2, 1, 4, 4]
    assert prog.options["pull_thresh"] == 24 and prog.options["autopull"]


def test_show_puts_one_left_aligned_word_per_led() -> None:
    strip = L.Leds(machine.Pin(16, machine.Pin.OUT), count=3, rp2_module=rp2)
    assert strip.sm.running and strip.sm.freq == 8_000_000
    strip.show(bytes([1, 2, 3, 0x10, 0x20, 0x30, 0xFF, 0, 0x80]))
    assert strip.sm.take() == [0x01020300, 0x10203000, 0xFF008000]
    assert strip.last == bytes([1, 2, 3, 0x10, 0x20, 0x30, 0xFF, 0, 0x80])


def test_waveform_has_ws2812_timing_and_carries_the_grb_bytes() -> None:
    grb = bytes([0xA5, 0x00, 0xFF, 0x12, 0x34, 0x56])
    strip = L.Leds(machine.Pin(16, machine.Pin.OUT), count=2, rp2_module=rp2)
    strip.show(grb)
    wave = strip.sm.simulate(strip.sm.take())
    data, highs, lows = decode(wave)
    assert data == grb
    assert len(highs) == 8 * len(grb)
    assert {h * CYCLE_NS for h in highs} <= {250.0, 875.0}  # T0H 0.25 us, T1H 0.875 us
    # every bit period (high + following low) is 10 cycles = 1.25 us (800 kHz)
    periods = [h + lo for h, lo in zip(highs, lows[1:], strict=False)]
    assert all(p * CYCLE_NS == 1250.0 for p in periods[:-1])


def test_wrong_frame_length_is_refused() -> None:
    strip = L.Leds(machine.Pin(16, machine.Pin.OUT), count=49, rp2_module=rp2)
    with pytest.raises(ValueError, match="147 bytes, got 3"):
        strip.show(b"\x00\x01\x02")
    strip.off()
    assert strip.sm.take()[-49:] == [0] * 49
